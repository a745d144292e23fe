"""Real-browser smoke test: every page in headless Chromium, no exception boxes, a screenshot each."""

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from devtools.streamlit_server import CHROMIUM_FLAGS, chromium_path, streamlit_server, wait_until_idle
from page_kit import registry
from page_kit.theme import series_style

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
        # nothing leaves the machine: a classroom may be offline, and a reader's visit is nobody else's business
        page.on("request", lambda request: urlparse(request.url).hostname not in LOCAL_HOSTS
                and urlparse(request.url).scheme in ("http", "https", "ws", "wss")
                and errors.append(f"request to another host: {request.url}"))
        yield url, page, errors
        page.close()


LOCAL_HOSTS = {"127.0.0.1", "localhost"}

NOTES = re.compile(r"\b(source|course|our|lecture|private) notes?\b|\bone of the notes\b|\bthe seed notes?\b", re.I)


def _check_text(page, where: str) -> None:
    """Readers have never seen any notes behind the lessons: corrections are phrased as misconceptions."""
    text = page.locator('[data-testid="stMain"]').inner_text()
    found = NOTES.search(text)
    assert found is None, f"{where}: the page mentions notes the reader cannot see: {found.group(0)!r}"


def _check_clean(page, errors, where: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"{where}: {exceptions.first.inner_text()}"
    error_boxes = page.locator('[data-testid="stAlertContentError"]')
    assert error_boxes.count() == 0, f"{where}: {error_boxes.first.inner_text()}"
    assert not errors, f"{where}: {errors}"


FIGURE_CHECK_JS = (Path(__file__).resolve().parent / "figure_check.js").read_text()


def _check_figures(page, where: str) -> None:
    report = page.evaluate(FIGURE_CHECK_JS)
    assert not report["fonts"], f"{where}: figure text fell back to another font: {report['fonts']}"
    assert not report["overlaps"], f"{where}: {report['overlaps']}"
    assert not report["clipped"], f"{where}: {report['clipped']}"
    for name, colour, dash in report["series"]:
        style = series_style(name)
        if style is not None:  # a named encoding / method / reference curve looks the same in every figure
            assert (colour.lower(), dash) == (style.colour.lower(), style.dash), f"{where}: series {name!r}"


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
    try:  # the sidebar (the app's own lesson list and settings) is drawn after the page's first elements
        page.get_by_text("Compute backend").first.wait_for(state="attached", timeout=30000)
    except Exception:  # noqa: BLE001 (playwright's timeout): the assertion below says what is missing
        pass
    assert page.get_by_text("Compute backend").count() == 1, "app.py's sidebar is missing (legacy pages mode?)"
    _check_clean(page, errors, info.url_path)
    _check_figures(page, info.url_path)
    _check_text(page, info.url_path)
    _screenshot(page, info.url_path)
    tabs = page.locator('[data-testid="stMain"] [role="tab"]')
    labels = [tabs.nth(i).inner_text().strip() for i in range(tabs.count())]
    for index, label in enumerate(labels[1:], start=1):
        tabs.nth(index).click()
        wait_until_idle(page)
        _check_clean(page, errors, f"{info.url_path} / {label}")
        _check_figures(page, f"{info.url_path} / {label}")
        _check_text(page, f"{info.url_path} / {label}")
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
    _check_figures(page, f"presentation mode, {scheme}")
    _screenshot(page, f"sinusoidal-present-{scheme}")
    page.emulate_media(color_scheme="light")


def _press_to(page, key: str, url_path: str) -> None:
    """Press a presenter's key with the page's own document focused (a clicker's key goes to the page, not into
    a slider), and wait for the lesson it leads to. Once, under CI's load, a press was lost (no navigation in
    60 s, never reproduced since): a second press then tells a lost key from a key that does nothing, and the
    state the first one met is printed."""
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
    wait_until_idle(page)
    page.wait_for_timeout(500)
    assert page.locator(".st-key-present_bar").count() == 0
    assert "present=true" not in page.url


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


def test_phone_opens_on_the_lesson_with_readable_figures(chromium_browser, browser_page):
    """390 x 844 touch screen: no navigation drawer over the page on a first visit, no Plotly toolbar over the
    chart titles, and titles, legends and labels that still fit without overlapping."""
    url, _, _ = browser_page
    context = chromium_browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        for path in ("sinusoidal", "extension_compare"):
            page.goto(f"{url}/{path}", wait_until="domcontentloaded")
            wait_until_idle(page)
            page.wait_for_selector("h1", timeout=30000)
            covered = page.evaluate("""() => { const h = document.querySelector('h1').getBoundingClientRect();
                const top = document.elementFromPoint(h.left + 20, h.top + h.height / 2);
                return !(top && top.closest('h1')); }""")
            assert not covered, f"{path}: something (the navigation drawer?) covers the lesson's title"
            assert page.locator(".js-plotly-plot .modebar-container").first.is_hidden(), path
            _check_figures(page, f"phone / {path}")
            for title in page.locator(".js-plotly-plot .gtitle").all():
                assert title.bounding_box()["x"] + title.bounding_box()["width"] <= 390, f"{path}: title cut off"
    finally:
        context.close()
