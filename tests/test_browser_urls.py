"""Hostile links in a real browser: every page opened from a URL that gives each of its widgets a value it cannot
hold (round 0) or nearly can (round 1, off the step or past an end), as a shared link would arrive."""

from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from streamlit.testing.v1 import AppTest

from devtools.streamlit_server import CHROMIUM_FLAGS, chromium_path, streamlit_server, wait_until_idle
from page_kit import registry
from tests.conftest import ROOT
from tests.test_url_pages import _bound_widgets, _hostile

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium); "
                                                ".ci/run installs it"),
]
PAGES = [p for p in registry.all_pages() if p is not registry.HOME]


def _widgets(info):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(info.path).run()
    return _bound_widgets(at)


@pytest.fixture(scope="module")
def server_page():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw, streamlit_server() as url:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield url, page, errors
        browser.close()


@pytest.mark.parametrize("info", PAGES, ids=lambda p: p.url_path)
def test_hostile_link_to_every_widget_of_a_page(server_page, info):
    url, page, errors = server_page
    widgets = _widgets(info)
    for round_ in (0, 1):
        errors.clear()
        query = urlencode({w.key: _hostile(kind, w, round_) for kind, ws in widgets.items() for w in ws}, doseq=True)
        page.goto(f"{url}/{info.url_path}?{query}", wait_until="domcontentloaded")
        wait_until_idle(page)
        page.wait_for_selector("h1", timeout=30000)
        page.get_by_text("Compute backend").wait_for(timeout=30000)  # app.py's sidebar: the app rendered
        wait_until_idle(page)
        where = f"{info.url_path} round {round_}"
        exceptions = page.locator('[data-testid="stException"]')
        assert exceptions.count() == 0, f"{where}: {exceptions.first.inner_text()}"
        boxes = page.locator('[data-testid="stAlertContentError"]')
        assert boxes.count() == 0, f"{where}: {boxes.first.inner_text()}"
        assert not errors, f"{where}: {errors}"


def test_the_address_bar_shows_the_corrected_values(server_page):
    url, page, _ = server_page
    page.goto(f"{url}/sinusoidal?d=9&n=1e309&base=%3Cscript%3E&layout=concat", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_timeout(500)
    shown = parse_qs(urlparse(page.url).query)
    assert shown.get("d") == ["8"]  # off the step: the nearest valid value
    assert "n" not in shown and "base" not in shown  # refused: the defaults apply
    assert shown.get("layout") == ["concat"]  # a valid value stays
