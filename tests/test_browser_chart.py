"""The chart element in a real browser: a slider move redraws the figure once and never remounts it,
and Play steps through precomputed frames without a round trip to the server."""

import pytest

from devtools.streamlit_server import (
    chromium_path,
    count_runs,
    runs_started,
    settle_after,
    wait_for_run,
    wait_until_idle,
)

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def page_and_url(chromium, app_url):
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    count_runs(page)
    page.sent = []  # every message the browser sends the server
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: page.sent.append(frame)))
    yield page, app_url
    page.close()


def _counters(page) -> dict:
    return page.evaluate("() => ({...(window.__posencCharts || {draws: 0, mounts: 0})})")


def _open(page, url, path):
    page.goto(f"{url}/{path}", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_function("() => window.__posencCharts && window.__posencCharts.draws >= 1", timeout=30000)
    wait_until_idle(page)


@pytest.mark.parametrize("path, thumb", [
    ("sinusoidal", ".ls-range"),  # a drag slider (page_kit/controls/drag_slider.py)
    ("t5", ".ls-range"),
    # a Streamlit slider: a range too long for a drag slider (163,840 positions), folded under "More settings"
    ("latent_attention", '[data-testid="stSlider"] input[type="range"]'),
])
def test_a_slider_move_draws_once_and_never_remounts(page_and_url, path, thumb):
    page, url = page_and_url
    _open(page, url, path)
    plot = page.locator(".pe-plot").first
    plot.evaluate("el => { el.__marker = 'original' }")  # a remount would replace this node
    before = _counters(page)
    if thumb.startswith('[data-testid="stSlider"]') and not page.locator('[data-testid="stSlider"]').first.is_visible():
        page.locator(".st-key-stage_more summary").first.click()  # under the folded "More settings": unfold it
        page.locator('[data-testid="stSlider"]').first.wait_for(state="visible", timeout=10000)
    thumb = page.locator(thumb).first
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
        thumb.focus()
        settle_after(page, lambda key=key: thumb.press(key))
    after = _counters(page)
    assert after["mounts"] == before["mounts"], "the chart was remounted"
    assert after["draws"] - before["draws"] == 3, f"expected one draw per move, got {after} from {before}"
    assert plot.evaluate("el => el.__marker") == "original"


def test_a_drag_slider_redraws_the_figure_while_it_is_dragged(page_and_url):
    """The figure follows the hand: draws happen before the mouse is released, and the URL keeps the value."""
    page, url = page_and_url
    _open(page, url, "sinusoidal")
    slider = page.locator(".ls-range").first  # Positions n
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    start_x = box["x"] + box["width"] * 0.06  # near n = 128
    before = _counters(page)
    page.mouse.move(start_x, y)
    page.mouse.down()
    for k in range(1, 41):  # about 2 s of dragging to the right, a move every 50 ms
        page.mouse.move(start_x + k * box["width"] * 0.015, y)
        page.wait_for_timeout(50)
    during = _counters(page)
    settle_after(page, page.mouse.up)
    after = _counters(page)
    assert during["draws"] - before["draws"] >= 4, f"the figure did not follow the drag: {before} -> {during}"
    assert after["mounts"] == before["mounts"], "the chart was remounted"
    shown = page.locator(".ls-value").first.inner_text().replace(",", "")
    assert f"n={shown}" in page.url, f"the URL ({page.url}) does not hold the slider's value {shown}"
    title = page.locator(".pe-plot .gtitle").first.text_content()
    assert f"{shown} positions" in title, f"the figure ({title!r}) does not show n = {shown}"


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
    assert label.inner_text() != start
    page.locator(".pe-play").first.click()  # pause
    assert not page.sent, "Play must not ask the server for anything"


_VALUE = "el => el.getAttribute('aria-valuenow') ?? el.value"


def _press(page, locator, key):
    """Press ``key`` on a slider and wait for the run it starts; a key at the end of the range moves nothing and
    starts no run."""
    locator.focus()
    value, runs = locator.evaluate(_VALUE), runs_started(page)
    locator.press(key)
    if locator.evaluate(_VALUE) == value:
        wait_until_idle(page)
    else:
        wait_for_run(page, runs)


@pytest.mark.parametrize("path, drag_key", [("sinusoidal?view=One+cell", "n"), ("rope", "i")])
def test_drag_sliders_and_the_ranges_that_follow_them_stay_valid(page_and_url, path, drag_key):
    """Push every other slider to its end, then the drag slider to both ends and back: sliders whose range
    follows it (p ends at n - 1) must move inside their new range, never raise, and the URL must agree."""
    page, url = page_and_url
    page.goto(f"{url}/{path}", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_selector(f'.ls[data-key="{drag_key}"]', timeout=30000)
    thumb = page.locator(f'.ls[data-key="{drag_key}"] .ls-range')
    others = page.locator(f'.ls:not([data-key="{drag_key}"]) .ls-range, [data-testid="stSlider"] input[type="range"]')
    for end in ("End", "Home"):
        for index in range(others.count()):
            _press(page, others.nth(index), end)
        for end in ("End", "Home", "End"):
            _press(page, thumb, end)
            assert page.locator('[data-testid="stException"]').count() == 0, f"exception after {end}"
            assert page.locator('[data-testid="stAlert"]').count() == 0, f"error box after {end}"
    shown = thumb.evaluate("el => el.closest('.ls').querySelector('.ls-value').textContent").replace(",", "")
    assert f"{drag_key}={shown}" in page.url


def test_a_drag_sliders_help_opens_on_a_tap(page_and_url):
    """A touch screen has no hover: the "?" opens the help under the label, and closes it again."""
    page, url = page_and_url
    _open(page, url, "sinusoidal")
    help_button = page.locator('.ls[data-key="n"] .ls-help')
    tip = page.locator('.ls[data-key="n"] .ls-tip')
    assert not tip.is_visible()
    help_button.click()
    assert tip.is_visible() and "positions 0 to n-1" in tip.inner_text()
    assert help_button.get_attribute("aria-expanded") == "true"
    help_button.click()
    assert not tip.is_visible()


HOLD_SENDS = """() => {
  if (!window.__held) {
    window.__held = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      if (window.__holding) { window.__held.push([this, data]); return; }
      return send.call(this, data);
    };
    window.__release = () => {
      window.__holding = false;
      for (const [socket, data] of window.__held.splice(0)) send.call(socket, data);
    };
  }
  window.__holding = true;
}"""


def _press_held(page, thumb, key: str, expect: str):
    """Press ``key`` with every message to the server held back; the hero figure must show ``expect`` (a title
    fragment) at once. Then let the messages go; returns (JSON drawn ahead, draws so far)."""
    page.evaluate(HOLD_SENDS)
    before = _counters(page)
    thumb.focus()
    thumb.press(key)
    page.wait_for_function(f"() => (window.__posencCharts.aheadDraws || 0) > {before.get('aheadDraws', 0)}",
                           timeout=5000)
    page.wait_for_function("() => !(window.__posencCharts.pending > 0)", timeout=5000)  # that frame's draw is done
    title = page.locator(".pe-plot .gtitle").first.text_content()
    assert expect in title, f"the figure ({title!r}) was not drawn for {expect!r} ahead of the server"
    # the slider sends a move once the run of its last one has come back: on a busy machine that run may still be
    # out, and the move waits for it (held all the same, once sent)
    try:
        page.wait_for_function("() => window.__held.length >= 1", timeout=15000)
    except Exception:  # noqa: BLE001 (playwright's timeout): the assertion below says what happened
        pass
    assert page.evaluate("() => window.__held.length") >= 1, "nothing was held: the move reached the server anyway"
    drawn, draws = page.locator(".pe-chart").first.evaluate("el => el.__drawnJson"), _counters(page)["draws"]
    assert draws == before["draws"] + 1
    settle_after(page, lambda: page.evaluate("() => window.__release()"))
    return drawn, draws


def test_a_hero_figure_draws_the_next_value_before_the_server_answers(page_and_url):
    """page_kit/chart/hero_frames.py: after a move, the figure the hand came from is drawn again as the key goes back;
    after a second move the same way, the next stop's frame is drawn as the key is pressed, with every message
    to the server held back. The server's figure for that value, once it comes, is the one already drawn, and
    is not drawn again."""
    page, url = page_and_url
    _open(page, url, "sinusoidal")
    chart = page.locator(".pe-chart").first
    thumb = page.locator(".ls-range").first  # Positions n, 128
    _press(page, thumb, "ArrowRight")  # 136: a first move builds no frame
    for expect in ("128 positions", "120 positions"):  # back where it came from, then a stop built ahead
        drawn, draws = _press_held(page, thumb, "ArrowLeft", expect)
        assert chart.evaluate("el => el.__sent") == drawn, "the frame drawn is not the figure the server sent"
        assert _counters(page)["draws"] == draws, "the server's figure, already on screen, was drawn again"
    assert "n=120" in page.url


def test_a_figure_follows_its_column_when_the_sidebar_opens_or_closes(page_and_url):
    """The sidebar changes the column's width without the window changing, which Plotly alone does not follow:
    the figure overran its column or left a gap beside it."""
    page, url = page_and_url
    _open(page, url, "sinusoidal")
    widths = """() => { const chart = document.querySelector('.pe-chart');
        return [chart.parentElement.clientWidth,
                Math.round(chart.querySelector('.main-svg').getBoundingClientRect().width)]; }"""

    def toggle(press) -> None:
        column, _ = page.evaluate(widths)
        press()
        page.wait_for_function(f"() => ({widths})()[0] !== {column}", timeout=10000)
        page.wait_for_function(f"() => ({widths})()[0] === ({widths})()[1]", timeout=10000)
        column_now, drawn_now = page.evaluate(widths)
        assert column_now != column and drawn_now == column_now, (column, column_now, drawn_now)

    def close() -> None:
        page.locator('[data-testid="stSidebar"]').hover()
        page.locator('[data-testid="stSidebarCollapseButton"] button').first.click()

    toggle(close)
    toggle(lambda: page.locator('[data-testid="stExpandSidebarButton"]').first.click())
