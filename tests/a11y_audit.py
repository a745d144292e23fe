"""axe-core audits of the running app in headless Chromium: the views to audit and a readable report.

axe-core comes from the npm package (`package.json`, installed by `npm ci`), so the rules are the ones an
accessibility audit with axe 4.14 applies. Used by `tests/test_a11y.py`; run it alone to print every finding:

    python -m tests.a11y_audit [--view light|dark|present|phone ...] [url_path ...]
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from devtools.streamlit_server import count_runs, settle_after, wait_until_idle

AXE_JS = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.0, 2.1 and 2.2 at levels A and AA: what universities ask of course material.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
BLOCKING = ("critical", "serious")


@dataclass(frozen=True)
class View:
    """One way a student sees the app: a window size, a colour scheme, presentation mode or not."""
    name: str
    width: int
    height: int
    scheme: str = "light"
    present: bool = False
    phone: bool = False
    every_tab: bool = True      # axe on every tab (else on the first only)
    later_tabs: bool = True     # the view opens a page's later tabs (else its first only)


# The dark scheme changes colours only: it opens each page's first tab (the page's frame, the sidebar and the
# lesson's opening, audited for contrast); every tab's dark figures are built with plotly's checks by
# tests/test_figures_unchecked.py, whose pages run in the dark scheme.
VIEWS = (View("light", 1400, 900), View("dark", 1400, 900, scheme="dark", later_tabs=False),
         View("present", 1280, 720, present=True, every_tab=False),
         View("phone", 390, 844, phone=True, every_tab=False))
VIEW_NAMES = {view.name: view for view in VIEWS}

# Plotly's SVG (thousands of nodes per chart, a third of axe's time) is left out: its text colours come from the
# kit's template, checked for contrast in tests/test_figures.py, and the chart's name and role are checked on
# its container, which stays in.
_RUN_AXE = """async ([tags, rules, mainOnly]) => {
  const context = {exclude: [[".js-plotly-plot .svg-container"]]};
  if (mainOnly) context.include = [['[data-testid="stMain"]']];
  const only = rules ? {type: "rule", values: rules} : {type: "tag", values: tags};
  const result = await axe.run(context, {runOnly: only, resultTypes: ["violations"]});
  return result.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.map(String).join(" "), html: n.html.slice(0, 160),
                                impact: n.impact, summary: (n.failureSummary || "").slice(0, 300)}))}));
}"""
# The rules of WCAG A/AA whose result a colour scheme can change. The dark scheme changes colours only (the app's
# dark CSS, page_kit/lesson/a11y.DARK_CSS and settings' page background, and the figures' template, whose text axe
# leaves to tests/test_figures.py): the page's structure, names, roles and sizes are the light scheme's, audited
# there in full, so a dark view runs these.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def axe_available() -> bool:
    return AXE_JS.is_file()


def new_context(browser, view: View):
    """A fresh context per view: its own storage, so Streamlit's theme follows the emulated colour scheme."""
    context = browser.new_context(viewport={"width": view.width, "height": view.height}, is_mobile=view.phone,
                                  has_touch=view.phone, color_scheme=view.scheme)
    context.add_init_script(path=str(AXE_JS))  # in every document, before the app's own scripts
    count_runs(context)
    return context


# On a phone the lesson's controls dock at the bottom of the screen (settings.GLOBAL_CSS) while the figure column
# is in view, so in any one frame they cover whatever scrolls under them, which the reader scrolls into view. axe
# judges target spacing on that one frame, so the dock sits in the flow while axe runs: the dock's own controls
# are still checked, and nothing is reported only because the frame caught it under the dock.
_UNDOCK = """() => {
  const style = document.createElement("style");
  style.id = "a11y-audit-undock";
  style.textContent = '[data-testid="stColumn"]:has(.st-key-stage_side) { position: static !important; }';
  document.head.appendChild(style);
}"""
_REDOCK = "() => document.getElementById('a11y-audit-undock')?.remove()"


def audit(page, *, rules: list[str] | None = None, main_only: bool = False) -> list[dict]:
    """axe's violations of the WCAG A/AA rules on the page as it is now (with the phone's control dock in flow).

    ``rules`` runs those rules only (``COLOUR_RULES``); ``main_only`` audits the lesson's column, not the sidebar
    and the page's frame (a tab of a lesson changes only the column: the page-wide rules and the sidebar are
    audited on its first tab)."""
    # the page's own a11y script marks new wide formulas within 30 ms of a change: a settled page
    # (devtools.streamlit_server.wait_until_idle, no change for 80 ms) has them marked
    page.evaluate(_UNDOCK)
    try:
        return page.evaluate(_RUN_AXE, [WCAG_TAGS, rules, main_only])
    finally:
        page.evaluate(_REDOCK)


def blocking(violations: list[dict]) -> list[dict]:
    return [v for v in violations if v["impact"] in BLOCKING]


def open_page(page, url: str, path: str, view: View) -> None:
    query = "?present=true" if view.present else ""
    page.goto(f"{url}/{path}{query}", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_selector("h1", timeout=30000)
    # the sidebar's lessons arrive after the page's first elements; audited before, its scrolling box is empty
    nav = '[data-testid="stSidebarContent"] .st-key-lesson_nav a'
    if not page.locator(nav).count():
        page.wait_for_selector(nav, state="attached", timeout=30000)
        wait_until_idle(page)


def tab_labels(page) -> list[str]:
    tabs = page.locator('[data-testid="stMain"] [role="tab"]')
    return [tabs.nth(i).inner_text().strip() for i in range(tabs.count())]


def open_tab(page, index: int) -> None:
    settle_after(page, page.locator('[data-testid="stMain"] [role="tab"]').nth(index).click)


def audit_page(page, url: str, path: str, view: View, on_tab=None) -> dict[str, list[dict]]:
    """Every tab of a page (or only the first, for views that audit each page once): {where: violations}.

    ``on_tab(page, where)`` runs on each tab while it is open, so other checks of every tab share this visit
    (opening a tab is most of the cost of a browser sweep).
    """
    open_page(page, url, path, view)
    labels = tab_labels(page)
    where = f"{path} / {labels[0] if labels else 'page'} [{view.name}]"
    found = {where: audit(page)}
    if on_tab:
        on_tab(page, where)
    if view.every_tab and view.later_tabs:
        for index, label in enumerate(labels[1:], start=1):
            open_tab(page, index)
            where = f"{path} / {label} [{view.name}]"
            found[where] = audit(page)
            if on_tab:
                on_tab(page, where)
    return found


def describe(where: str, violations: list[dict], limit: int = 4) -> str:
    lines = []
    for v in violations:
        lines.append(f"{where}: {v['impact']} {v['id']} ({len(v['nodes'])} nodes): {v['help']}")
        for node in v["nodes"][:limit]:
            lines.append(f"    {node['target']}  {node['html']}")
            if v["id"] == "color-contrast":
                lines.append(f"      {node['summary'].splitlines()[-1] if node['summary'] else ''}")
    return "\n".join(lines)


def main(args: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    from devtools.streamlit_server import CHROMIUM_FLAGS, chromium_path, streamlit_server
    from page_kit import registry

    names = [args[i + 1] for i, a in enumerate(args) if a == "--view"]
    paths = [a for i, a in enumerate(args) if a != "--view" and (i == 0 or args[i - 1] != "--view")]
    paths = paths or [p.url_path for p in registry.all_pages()]
    views = [VIEW_NAMES[name] for name in names] if names else VIEWS
    with sync_playwright() as pw, streamlit_server() as url:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        for view in views:
            context = new_context(browser, view)
            page = context.new_page()
            for path in paths:
                start = time.time()
                for where, violations in audit_page(page, url, path, view).items():
                    bad = blocking(violations)
                    print(f"== {where}: {len(bad)} blocking rules ({time.time() - start:.1f}s)", flush=True)
                    if bad:
                        print(describe(where, bad), flush=True)
            context.close()
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
