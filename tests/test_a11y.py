"""Accessibility in a real browser: a hero lesson driven by the keyboard alone.

axe-core's WCAG 2.2 A/AA audit of every page and tab (light, dark, projector, phone) and every chart's text
alternative run in the one visit per page and view of tests/test_view_*.py (tests/browser_views.py); axe-core is
the npm package pinned in package.json (`npm ci`), and `python -m tests.a11y_audit` prints every finding, not only
the blocking ones."""

import re

import pytest

from devtools.streamlit_server import chromium_path, count_runs, settle_after, wait_until_idle
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
def server_and_browser(app_url, chromium):
    return app_url, chromium


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


def _settle_after(page, *keys: str) -> None:
    """Press ``keys`` and wait for the run they start (a drag slider's value, a tab) and the redraw it brings."""
    settle_after(page, lambda: [page.keyboard.press(key) for key in keys])


def test_keyboard_alone_drives_the_sinusoidal_lesson(server_and_browser):
    """Tab from the top of the page: every control of the hero figure is reached in order, shows a focus ring,
    and its keys (arrows, PageUp / PageDown, Home / End, Space) change the figure; the tabs follow the arrows."""
    url, browser = server_and_browser
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    count_runs(context)
    page = context.new_page()
    try:
        page.goto(f"{url}/sinusoidal", wait_until="domcontentloaded")
        wait_until_idle(page)
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
                _settle_after(page, "Enter")
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

            def press(key=keys[target], radio=active["role"] == "radio"):
                page.keyboard.press(key)
                if radio and page.evaluate(_ACTIVE)["checked"] != "true":
                    page.keyboard.press("Space")  # the arrows move to the next option; Space chooses it

            settle_after(page, press)
            moved[target] = page.evaluate(_DRAWS) > before
            if target == "Column layout":
                break
        assert reached == ["tabs", "n", "d", "base", "Column layout"], f"reached by Tab: {reached} ({seen})"
        assert all(moved.values()), f"the figure was not redrawn for: {[k for k, v in moved.items() if not v]}"
        for _ in range(200):  # back to the tab strip with Shift+Tab; the arrows and Enter open the next tab
            page.keyboard.press("Shift+Tab")
            if (page.evaluate(_ACTIVE) or {}).get("role") == "tab":
                break
        _settle_after(page, "ArrowRight", "Enter")
        assert "view=" in page.url, "the arrow keys did not open the next tab"
        for moved_to in (r"[?&]n=136\b", r"[?&]base=1(%2C)?000(%2C)?000\b", r"[?&]layout=concat\b"):
            assert re.search(moved_to, page.url), page.url
    finally:
        context.close()
