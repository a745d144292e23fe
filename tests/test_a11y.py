"""Accessibility in a real browser: axe-core's WCAG 2.2 A/AA audit of every page and tab, in light and dark,
in presentation mode and on a phone; a hero lesson driven by the keyboard alone; every chart's text alternative.

axe-core is the npm package pinned in package.json (`npm ci`); tests/a11y_audit.py holds the views and the
report (run `python -m tests.a11y_audit` to print every finding, not only the blocking ones)."""

import json
import re

import pytest

from devtools.streamlit_server import CHROMIUM_FLAGS, chromium_path, streamlit_server, wait_until_idle
from page_kit import registry
from tests import a11y_audit

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium); "
                                                ".ci/run installs it"),
    pytest.mark.skipif(not a11y_audit.axe_available(), reason="axe-core is not installed: run `npm ci` (README)"),
]
PAGES = registry.all_pages()


@pytest.fixture(scope="module")
def server_and_browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with streamlit_server() as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield url, browser
        browser.close()


@pytest.fixture(scope="module")
def view_pages(server_and_browser):
    """One browser context and tab per view, opened on first use and reused for every page."""
    url, browser = server_and_browser
    opened = {}

    def get(view):
        if view.name not in opened:
            context = a11y_audit.new_context(browser, view)
            opened[view.name] = (context, context.new_page())
        return url, opened[view.name][1]

    yield get
    for context, _ in opened.values():
        context.close()


@pytest.mark.parametrize("view", a11y_audit.VIEWS, ids=lambda v: v.name)
@pytest.mark.parametrize("info", PAGES, ids=lambda p: p.url_path)
def test_no_serious_axe_findings(view_pages, info, view):
    """axe's blocking findings on every tab; in the light view the same visit checks each chart's text alternative."""
    url, page = view_pages(view)
    found = a11y_audit.audit_page(page, url, info.url_path, view,
                                  on_tab=_charts_expose_their_text_alternative if view.name == "light" else None)
    report = "\n".join(a11y_audit.describe(where, a11y_audit.blocking(v)) for where, v in found.items()
                       if a11y_audit.blocking(v))
    assert not report, f"axe-core (WCAG 2.2 A/AA) finds critical or serious problems:\n{report}"
    if view.phone:  # 390 px is also a 1,280 px screen at 330 % zoom: the page reflows, never scrolls sideways
        wide = page.evaluate(_SIDEWAYS)
        assert not wide, f"{info.url_path}: the page scrolls sideways on a phone: {wide}"


_SIDEWAYS = """() => { const main = document.querySelector('[data-testid="stMain"]');
  const widths = {document: document.documentElement.scrollWidth, main: main.scrollWidth};
  return Object.values(widths).some((w) => w > window.innerWidth + 1) ? widths : null; }"""


# --- keyboard only ---------------------------------------------------------------------------------------------

_ACTIVE = """() => {
  const el = document.activeElement; if (!el) return null;
  const style = getComputedStyle(el);
  const slider = el.closest('.ls');
  const group = el.closest('[role="radiogroup"], [data-testid="stButtonGroup"]');
  return {tag: el.tagName, role: el.getAttribute('role'), text: (el.innerText || el.value || '').trim().slice(0, 40),
          slider: slider ? slider.dataset.key : null, group: group ? group.getAttribute('aria-label') : null,
          checked: el.getAttribute('aria-checked'), inMain: !!el.closest('[data-testid="stMain"]'),
          ring: (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1) || style.boxShadow !== 'none'};
}"""
_DRAWS = "() => (window.__posencCharts || {draws: 0}).draws"  # Plotly draws of the chart element (a move: one)


def _settle(page) -> None:
    wait_until_idle(page)
    page.wait_for_timeout(900)  # the live slider's next value and the chart's draw land after the rerun
    wait_until_idle(page)


def test_keyboard_alone_drives_the_sinusoidal_lesson(server_and_browser):
    """Tab from the top of the page: every control of the hero figure is reached in order, shows a focus ring,
    and its keys (arrows, PageUp / PageDown, Home / End, Space) change the figure; the tabs follow the arrows."""
    url, browser = server_and_browser
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{url}/sinusoidal", wait_until="domcontentloaded")
        _settle(page)
        page.wait_for_function("() => !!document.querySelector('[data-testid=\"stMain\"] .pe-plot .main-svg')",
                               timeout=30000)
        reached, moved, seen = [], {}, []
        keys = {"n": "ArrowRight", "d": "PageUp", "base": "End", "Column layout": "ArrowRight"}  # radios: arrows
        # Picture first: the figure column (its tabs, the figure) comes before the controls beside it, and the
        # rarely used ones sit in the folded "More settings", which Enter opens.
        for _ in range(200):  # the sidebar's lessons and settings come first
            page.keyboard.press("Tab")
            active = page.evaluate(_ACTIVE)
            if not active or not active["inMain"]:
                continue
            seen.append(active)
            assert active["ring"], f"no visible focus ring on {active}"
            if active["tag"] == "SUMMARY" and "More settings" in active["text"]:
                page.keyboard.press("Enter")
                _settle(page)
                continue
            slider = active["slider"] if active["tag"] == "INPUT" else None  # not its "?" help button
            target = slider or (active["group"] if active["group"] == "Column layout" else None)
            if active["role"] == "tab":
                target = "tabs"
            if target is None or target in reached:
                continue
            reached.append(target)
            if target == "tabs":
                continue  # switched last: another tab brings its own controls
            before = page.evaluate(_DRAWS)
            page.keyboard.press(keys[target])
            if active["role"] == "radio" and page.evaluate(_ACTIVE)["checked"] != "true":
                page.keyboard.press("Space")  # the arrows move to the next option; Space chooses it
            _settle(page)
            moved[target] = page.evaluate(_DRAWS) > before
            if target == "Column layout":
                break
        assert reached == ["tabs", "n", "d", "base", "Column layout"], f"reached by Tab: {reached} ({seen})"
        assert all(moved.values()), f"the figure was not redrawn for: {[k for k, v in moved.items() if not v]}"
        for _ in range(200):  # back to the tab strip with Shift+Tab; the arrows and Enter open the next tab
            page.keyboard.press("Shift+Tab")
            if (page.evaluate(_ACTIVE) or {}).get("role") == "tab":
                break
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        _settle(page)
        assert "view=" in page.url, "the arrow keys did not open the next tab"
        for moved_to in (r"[?&]n=136\b", r"[?&]base=1(%2C)?000(%2C)?000\b", r"[?&]layout=concat\b"):
            assert re.search(moved_to, page.url), page.url
    finally:
        context.close()


# --- text alternatives -------------------------------------------------------------------------------------------

_FIGURES = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].map((plot) => {
  const named = plot.closest('[role="figure"], [role="img"], figure');
  return {name: named ? (named.getAttribute('aria-label') || '').trim() : '',
          role: named ? (named.getAttribute('role') || named.tagName.toLowerCase()) : null};
})"""


def _charts_expose_their_text_alternative(page, where: str) -> None:
    """Every chart is a figure whose accessible name is the kit's alt text (what it shows, with the current
    numbers), and offers its numbers as a folded table."""
    figures = page.evaluate(_FIGURES)
    for figure in figures:
        assert figure["role"] in ("figure", "img"), f"{where}: a chart is not exposed as a figure: {figure}"
        assert len(figure["name"]) >= 15, f"{where}: a chart has no text alternative: {json.dumps(figure)}"
    folds = page.locator('[data-testid="stMain"] [data-testid="stExpander"] summary', has_text="Show the numbers")
    assert folds.count() >= min(1, len(figures)), f"{where}: no 'Show the numbers' table"
