"""Hostile links in a real browser: pages that hold every kind of URL-bound widget (tests/test_url_pages.py's
BROWSER_PAGES, which checks that no page has a kind they leave out) opened from a URL that gives each widget a
value it cannot hold (round 0) or nearly can (round 1, off the step or past an end), as a shared link arrives."""

from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from streamlit.testing.v1 import AppTest

from devtools.streamlit_server import chromium_path, wait_for_query, wait_until_idle
from page_kit import registry
from tests.apptest_pages import drag_sliders
from tests.conftest import ROOT
from tests.test_url_pages import BROWSER_KINDS, BROWSER_PAGES, _bound_widgets, _drag_hostile, _hostile, widget_kinds

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium); "
                                                ".ci/run installs it"),
]
PAGES = [p for p in registry.all_pages() if p.url_path in BROWSER_PAGES]


def _page(info) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(info.path).run()
    return at


def test_the_pages_hold_every_kind_the_browser_is_to_meet():
    assert {p.url_path for p in PAGES} == set(BROWSER_PAGES), "BROWSER_PAGES names a page the registry lacks"
    assert set().union(*(widget_kinds(_page(info)) for info in PAGES)) == BROWSER_KINDS


@pytest.fixture(scope="module")
def server_page(chromium, app_url):
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield app_url, page, errors
    page.close()


@pytest.mark.parametrize("info", PAGES, ids=lambda p: p.url_path)
def test_hostile_link_to_every_widget_of_a_page(server_page, info):
    url, page, errors = server_page
    at = _page(info)
    widgets, dragged = _bound_widgets(at), drag_sliders(at)
    for round_ in (0, 1):
        errors.clear()
        query = {w.key: _hostile(kind, w, round_) for kind, ws in widgets.items() for w in ws}
        query |= {key.removeprefix("drag_"): _drag_hostile(texts, round_) for key, texts in dragged}
        query = urlencode(query, doseq=True)
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
    wait_for_query(page, d="8")  # the corrected value, written back by the page's run
    shown = parse_qs(urlparse(page.url).query)
    assert shown.get("d") == ["8"]  # off the step: the nearest valid value
    assert "n" not in shown and "base" not in shown  # refused: the defaults apply
    assert shown.get("layout") == ["concat"]  # a valid value stays
