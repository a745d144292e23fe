"""The figure is the control, in a real browser: a drag of an arrow's tip or a click on a cell sets the same
URL key as the slider beside the figure, the figure redraws with it, and the slider shows the new value."""

import pytest

from devtools.streamlit_server import chromium_path, wait_for_query, wait_until_idle

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]

# the pixel (page coordinates) of a data point on a chart, from plotly's own axes
TO_PAGE = """([title, x, y]) => {
  const plot = [...document.querySelectorAll('.pe-plot')].find(
    (p) => (p.querySelector('.gtitle') || {}).textContent && p.querySelector('.gtitle').textContent.startsWith(title));
  const fl = plot._fullLayout, rect = plot.getBoundingClientRect();
  const px = (ax, v) => ax.l2p(ax.type === 'log' ? Math.log10(v) : (ax.type === 'category' ? ax.d2l(v) : v));
  return [rect.left + fl._size.l + px(fl.xaxis, x), rect.top + fl._size.t + px(fl.yaxis, y)];
}"""

TRACE_TIP = """([title, name]) => {
  const plot = [...document.querySelectorAll('.pe-plot')].find(
    (p) => (p.querySelector('.gtitle') || {}).textContent.startsWith(title));
  const trace = plot.data.find((t) => t.name === name);
  return [trace.x[trace.x.length - 1], trace.y[trace.y.length - 1]];
}"""


@pytest.fixture(scope="module")
def page_and_url(chromium, app_url):
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    yield page, app_url
    page.close()


def _open(page, url, path, title):
    page.goto(f"{url}/{path}", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_function(f"() => [...document.querySelectorAll('.pe-plot .gtitle')].some("
                           f"(t) => t.textContent.startsWith({title!r}))", timeout=30000)
    wait_until_idle(page)


def _query(page) -> dict:
    from urllib.parse import parse_qs, urlparse

    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def _slider_value(page, key):
    return page.locator(f'.ls[data-key="{key}"] .ls-value').text_content()  # folded under "More settings" or not


def test_dragging_the_query_arrow_sets_qx_and_qy(page_and_url):
    page, url = page_and_url
    _open(page, url, "rope", "Pair 0")
    start = page.evaluate(TO_PAGE, ["Pair 0", 1.0, 0.3])  # q's default tip
    end = page.evaluate(TO_PAGE, ["Pair 0", -1.02, 0.71])  # snaps to the sliders' 0.1 steps: (-1, 0.7)
    page.mouse.move(*start)
    page.mouse.down()
    for k in range(1, 11):
        page.mouse.move(start[0] + (end[0] - start[0]) * k / 10, start[1] + (end[1] - start[1]) * k / 10)
        page.wait_for_timeout(40)
    # the hand rests until the last move's rerun has drawn, then lets go where it is: the release's own report
    # snaps to the values already drawn, and the figure must still take back the arrow the hand left off the step
    wait_for_query(page, qx="-1", qy="0.7")
    page.mouse.up()
    wait_until_idle(page)
    try:  # the arrow taken back onto the step is drawn by the release's run, which a busy machine starts late
        page.wait_for_function(f"(args) => {{ const [x, y] = ({TRACE_TIP})(args); "
                               "return Math.abs(x + 1) < 1e-6 && Math.abs(y - 0.7) < 1e-6; }",
                               arg=["Pair 0", "q"], timeout=15000)
    except Exception:  # noqa: BLE001 (playwright's timeout): the assertion below says where the arrow is
        pass
    assert (_query(page)["qx"], _query(page)["qy"]) == ("-1", "0.7"), page.url
    assert _slider_value(page, "qx") == "-1" and _slider_value(page, "qy") == "0.7"
    assert page.evaluate(TRACE_TIP, ["Pair 0", "q"]) == pytest.approx([-1.0, 0.7], abs=1e-6)
    # the slider stays the twin: a key press moves on from the figure's value
    thumb = page.locator('.ls[data-key="qx"] .ls-range')
    if not thumb.is_visible():
        page.locator(".st-key-stage_more summary").first.click()  # the q sliders sit under "More settings"
        thumb.wait_for(state="visible", timeout=10000)
    thumb.focus()
    thumb.press("ArrowRight")
    wait_for_query(page, qx="-0.9")
    assert _query(page)["qx"] == "-0.9"
    assert page.evaluate(TRACE_TIP, ["Pair 0", "q"])[0] == pytest.approx(-0.9, abs=1e-6)


def test_a_browser_value_off_the_slider_lands_on_its_range(page_and_url):
    """Values from the browser are untrusted: a drag far outside the plane clamps to the slider's end."""
    page, url = page_and_url
    _open(page, url, "rope", "Pair 0")
    start = page.evaluate(TO_PAGE, ["Pair 0", 0.6, 0.8])  # k's default tip
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 2000, start[1] - 2000, steps=8)  # far off the plot, up and to the right
    page.mouse.up()
    wait_for_query(page, kx="2", ky="2")
    assert (_query(page)["kx"], _query(page)["ky"]) == ("2", "2"), page.url


def _click(page, title, x, y, **expected):
    page.mouse.click(*page.evaluate(TO_PAGE, [title, x, y]))
    wait_for_query(page, **expected)


def test_clicking_a_table_cell_opens_that_cell(page_and_url):
    page, url = page_and_url
    _open(page, url, "sinusoidal", "PE table")
    _click(page, "PE table", 20, 40, col="20", p="40")  # column 20, position 40
    query = _query(page)
    assert (query.get("col"), query.get("p"), query.get("view")) == ("20", "40", "One cell"), page.url
    assert _slider_value(page, "p") == "40" and _slider_value(page, "col") == "20"


def test_clicking_a_score_cell_picks_its_diagonal_and_marks_it(page_and_url):
    page, url = page_and_url
    _open(page, url, "rope_relative", "q_m · k_n, half")
    _click(page, "q_m · k_n, half", 10, 40, off="30")  # key n = 10, query m = 40: m − n = 30
    assert _query(page).get("off") == "30", page.url
    shape = page.evaluate("""() => [...document.querySelectorAll('.pe-plot')].find((p) =>
        p.querySelector('.gtitle').textContent.startsWith('q_m · k_n, half'))._fullLayout.shapes[0]""")
    assert (shape["x0"], shape["y0"]) == (-0.5, 29.5)  # the dotted line starts at (n, m) = (0, 30)
    assert page.get_by_text("Along m − n = 30:").first.is_visible()


def test_a_layer_of_the_strip_opens_that_layer(page_and_url):
    page, url = page_and_url
    _open(page, url, "layer_strip", "")
    title = page.evaluate("() => document.querySelector('.pe-plot .gtitle').textContent")
    page.mouse.click(*page.evaluate(TO_PAGE, [title, 7, 0.5]))  # layer 7's bottom cell
    wait_for_query(page, layer="7")
    assert (_query(page).get("layer"), _query(page).get("view")) == ("7", "One layer"), page.url
    assert page.get_by_text("Layer 7", exact=False).first.is_visible()


def test_pressing_near_the_target_line_sets_the_factor(page_and_url):
    page, url = page_and_url
    _open(page, url, "extension", "Wavelength of each pair")
    title = page.evaluate("""() => [...document.querySelectorAll('.pe-plot .gtitle')].map((t) => t.textContent)
        .find((t) => t.startsWith('Wavelength of each pair'))""")
    # L = 4,096 and L' = 16,384 (s = 4) by default: a press at 120,000 takes L' there, s = 29.3 -> 32
    _click(page, title, 20, 120000, s="32")
    assert _query(page).get("s") == "32", page.url
    assert _slider_value(page, "s") == "32"


def test_clicking_a_bias_cell_picks_its_distance_for_the_formula(page_and_url):
    page, url = page_and_url
    _open(page, url, "alibi?view=Bias+grids", "ALiBi bias per head")
    _click(page, "ALiBi bias per head", 3, 15, off="12")  # head 1's panel: query i = 15, key j = 3, i − j = 12
    assert _query(page).get("off") == "12", page.url
    assert _slider_value(page, "off") == "12"
    assert page.locator(".katex").filter(has_text="12").count() >= 1  # the formula's B at distance 12
