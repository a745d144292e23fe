"""The app as a whole in a real browser: hostile links, presentation mode's navigation and keys, a first visit
that deep-links to a lesson. Every page and tab in every view: tests/test_view_*.py (tests/browser_views.py)."""

import re

import pytest

from devtools.streamlit_server import chromium_path, streamlit_server, wait_until_idle
from page_kit import registry
from tests.browser_views import check_clean, check_figures, screenshot, watch

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium); "
                                                ".ci/run installs it"),
]


@pytest.fixture(scope="module")
def browser_page(chromium, app_url):
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    errors = watch(page)
    yield app_url, page, errors
    page.close()


def test_hostile_url_parameters_change_only_the_view(browser_page):
    url, page, errors = browser_page
    page.goto(f"{url}/sinusoidal?n=99999999&d=abc&base=7&layout=%3Cscript%3E&k=1e309&cols=9999"
              "&view=%3Cimg%20src=x%3E&present=maybe&p=-5&col=1.5",
              wait_until="domcontentloaded")
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator("h1").first.inner_text().startswith("Sinusoidal")


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_presentation_mode_and_colour_schemes(browser_page, scheme):
    url, page, errors = browser_page
    errors.clear()
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{url}/sinusoidal?present=true", wait_until="domcontentloaded")
    wait_until_idle(page)
    check_clean(page, errors, f"presentation mode, {scheme}")
    check_figures(page, f"presentation mode, {scheme}")
    screenshot(page, f"sinusoidal-present-{scheme}", 1400, 900)
    page.emulate_media(color_scheme="light")


def _press_to(page, key: str, url_path: str) -> None:
    """Press a presenter's key with the page's own document focused (a clicker's key goes to the page, not into
    a slider), and wait for the lesson it leads to. A key pressed while the page is still busy can be lost: after
    20 s without the new lesson the page's state is printed and the key pressed again, so a lost key is told
    from a key that does nothing."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)
    try:
        page.wait_for_url(f"**/{url_path}**", timeout=20000)
        return
    except Exception:  # noqa: BLE001 (playwright's timeout)
        state = page.evaluate("""() => ({ focus: document.activeElement && document.activeElement.outerHTML
            .slice(0, 120), script: document.querySelector('[data-testid=stApp]').dataset.testScriptState,
            url: location.href })""")
        print(f"{key} did not lead to {url_path} in 20 s; pressing again. The page: {state}")
    wait_until_idle(page)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)
    page.wait_for_url(f"**/{url_path}**", timeout=60000)


def test_presentation_mode_offers_navigation_and_a_way_out(browser_page):
    """The header (and the sidebar button) is hidden while presenting: the page itself must offer the
    previous / next lesson and section, by button and by key, and a visible exit."""
    url, page, errors = browser_page
    pages = registry.all_pages()
    for index in (0, 4, len(pages) - 1):  # first, middle, last: every page shows the bar and an exit
        page.goto(f"{url}/{pages[index].url_path}?present=true", wait_until="domcontentloaded")
        wait_until_idle(page)
        bar = page.locator(".st-key-present_bar", has_text=f"{index + 1} / {len(pages)}")
        bar.wait_for(state="visible", timeout=30000)
        wait_until_idle(page)  # a first visit can run the script twice; let the second finish
        assert bar.count() == 1, pages[index].url_path
        bar.get_by_role("button", name=re.compile("Exit")).wait_for(state="visible", timeout=30000)
        # previous section, previous, next, next section, the live class, exit (disabled at either end, never
        # missing)
        assert bar.locator("[data-testid=stButton]").count() == 6
    page.goto(f"{url}/{pages[4].url_path}?present=true", wait_until="domcontentloaded")
    # the keys belong to this page's bar: wait for it (the app's first paint can still be the last page's bar)
    page.locator(".st-key-present_bar", has_text=f"5 / {len(pages)}").wait_for(state="visible", timeout=30000)
    wait_until_idle(page)
    _press_to(page, "PageDown", pages[5].url_path)
    page.locator(".st-key-present_bar", has_text=f"6 / {len(pages)}").wait_for(state="visible", timeout=30000)
    wait_until_idle(page)
    assert page.locator("h1").first.inner_text().strip() == pages[5].title
    _press_to(page, "PageUp", pages[4].url_path)
    wait_until_idle(page)
    page.keyboard.press("Escape")
    page.locator(".st-key-present_bar").wait_for(state="detached", timeout=30000)
    wait_until_idle(page)
    assert "present=true" not in page.url


def test_first_visit_deep_link_opens_the_page_with_navigation(chromium):
    """The first request after the server starts goes straight to a lesson (a link shared by a teacher)."""
    target = registry.all_pages()[-1]
    with streamlit_server() as url:
        page = chromium.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{url}/{target.url_path}", wait_until="domcontentloaded")
        page.get_by_text("Compute backend").wait_for(timeout=30000)
        wait_until_idle(page)
        assert page.locator("h1").first.inner_text().strip() == target.title
        assert page.get_by_text("Page not found").count() == 0
        page.close()
