"""The chart element in a real browser: a slider move redraws the figure once and never remounts it,
and Play steps through precomputed frames without a round trip to the server."""

import pytest

from tests.streamlit_server import CHROMIUM_FLAGS, chromium_path, streamlit_server, wait_until_idle

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def page_and_url():
    sync_api = pytest.importorskip("playwright.sync_api")
    with streamlit_server() as url, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.sent = []  # every message the browser sends the server
        page.on("websocket", lambda ws: ws.on("framesent", lambda frame: page.sent.append(frame)))
        yield page, url
        browser.close()


def _counters(page) -> dict:
    return page.evaluate("() => ({...(window.__posencCharts || {draws: 0, mounts: 0})})")


def test_a_slider_move_draws_once_and_never_remounts(page_and_url):
    page, url = page_and_url
    page.goto(f"{url}/sinusoidal", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_function("() => window.__posencCharts && window.__posencCharts.draws >= 1", timeout=30000)
    plot = page.locator(".pe-plot").first
    plot.evaluate("el => { el.__marker = 'original' }")  # a remount would replace this node
    before = _counters(page)
    thumb = page.locator('[data-testid="stSlider"] input[type="range"]').first
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
        thumb.focus()
        thumb.press(key)
        wait_until_idle(page)
        page.wait_for_timeout(400)
    after = _counters(page)
    assert after["mounts"] == before["mounts"], "the chart was remounted"
    assert after["draws"] - before["draws"] == 3, f"expected one draw per move, got {after} from {before}"
    assert plot.evaluate("el => el.__marker") == "original"


def test_play_steps_through_frames_in_the_browser(page_and_url):
    page, url = page_and_url
    page.goto(f"{url}/rope?play_m=true", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_selector(".pe-play", timeout=30000)
    label = page.locator(".pe-label").first
    start = label.inner_text()
    assert page.sent, "the websocket probe sees nothing"
    page.sent.clear()
    page.locator(".pe-play").first.click()
    page.wait_for_function(f"() => document.querySelector('.pe-label').textContent !== {start!r}", timeout=10000)
    page.wait_for_timeout(600)
    assert label.inner_text() != start
    page.locator(".pe-play").first.click()  # pause
    assert not page.sent, "Play must not ask the server for anything"
