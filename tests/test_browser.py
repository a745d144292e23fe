"""Real-browser smoke test: every page in headless Chromium, no exception boxes, a screenshot each."""

from pathlib import Path

import pytest

from page_kit import registry
from tests.streamlit_server import CHROMIUM_FLAGS, chromium_path, streamlit_server, wait_until_idle

SHOTS = Path(__file__).resolve().parent / "artifacts" / "screenshots"
CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium); "
                                                ".ci/run installs it"),
]


@pytest.fixture(scope="module")
def chromium_browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def browser_page(chromium_browser):
    with streamlit_server() as url:
        page = chromium_browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield url, page, errors
        page.close()


def _check_clean(page, errors, where: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"{where}: {exceptions.first.inner_text()}"
    error_boxes = page.locator('[data-testid="stAlertContentError"]')
    assert error_boxes.count() == 0, f"{where}: {error_boxes.first.inner_text()}"
    assert not errors, f"{where}: {errors}"


def _screenshot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    # Streamlit scrolls inside its own container, so grow the viewport to the content for a whole-page shot.
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": min(max(900, height + 40), 12000)})
    page.wait_for_timeout(400)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 900})


@pytest.mark.parametrize("info", registry.all_pages(), ids=lambda p: p.url_path)
def test_page_and_each_section_render_without_exceptions(browser_page, info):
    url, page, errors = browser_page
    errors.clear()
    page.goto(f"{url}/{info.url_path}", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_selector("h1", timeout=30000)
    assert page.get_by_text("Compute backend").count() == 1, "app.py's sidebar is missing (legacy pages mode?)"
    _check_clean(page, errors, info.url_path)
    _screenshot(page, info.url_path)
    tabs = page.locator('[data-testid="stMain"] [role="tab"]')
    labels = [tabs.nth(i).inner_text().strip() for i in range(tabs.count())]
    for index, label in enumerate(labels[1:], start=1):
        tabs.nth(index).click()
        wait_until_idle(page)
        _check_clean(page, errors, f"{info.url_path} / {label}")
        _screenshot(page, f"{info.url_path}--{index}")


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
    _check_clean(page, errors, f"presentation mode, {scheme}")
    _screenshot(page, f"sinusoidal-present-{scheme}")
    page.emulate_media(color_scheme="light")


def test_first_visit_deep_link_opens_the_page_with_navigation(chromium_browser):
    """The first request after the server starts goes straight to a lesson (a link shared by a teacher)."""
    target = registry.all_pages()[-1]
    with streamlit_server() as url:
        page = chromium_browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{url}/{target.url_path}", wait_until="domcontentloaded")
        page.get_by_text("Compute backend").wait_for(timeout=30000)
        wait_until_idle(page)
        assert page.locator("h1").first.inner_text().strip() == target.title
        assert page.get_by_text("Page not found").count() == 0
        page.close()
