"""A hero figure's frames are the figures the server sends for those values (page_kit/chart/hero_frames.py).

For every page whose figure carries frames, the test keeps what a browser would keep (the figures and frames
it was sent, dropping what the server says to drop), then moves the slider under the hand to each stop a
frame was sent for, and checks that the figure the run sends for that value is, byte for byte, the frame the
browser would already have drawn. It then moves on from that stop, so frames built after a move are checked
too, and checks that a frame goes over the wire only once.
"""

from __future__ import annotations

import logging

import pytest

from page_kit import registry
from page_kit.runtime import element_data
from tests.apptest_pages import drag_sliders, drag_value, move_drag_slider
from tests.apptest_pages import load as _load

PAGES = registry.all_pages()
# Pages whose default view has no figure a drag slider drives, and why; every other page must have frames.
NO_HERO = {
    "home": "no lesson figure",
    "compare": "opens on a table; its sliders drive tables",
    "hybrids": "opens on a table",
    "model_configs": "opens on a config chooser and a table",
    "local_global": "no drag slider: the model is a select box",
    "mm_pair_axes": "no drag slider: the model is a select box",
    "modernbert": "the first figure follows the model select only",
    "real_distance": "no drag slider: layers are a multiselect",
    "porting_bugs": "no drag slider: the bug is a select box and a toggle",
    "real_encoder": "the first tab follows a select, a text box and a number box",
    "real_frequencies": "its first drag slider drives only the figure hidden behind the question",
    "layer_strip": "the strip follows the config, not the layer slider",
    "drope": "its sliders change the figure only when a run is started",
    "lab": "its figure is a training run, not a core call a frame could repeat",
}


def _charts(at) -> dict[str, dict]:
    """The chart elements' data, by chart key, as the browser receives it."""
    found: dict[str, dict] = {}

    def walk(node):
        for child in getattr(node, "children", {}).values():
            proto = getattr(child, "proto", None)
            if getattr(child, "type", None) == "bidi_component" and proto.component_name == "posenc_plotly":
                data = element_data.unwrap(proto)
                found[data["chart"]] = data
            walk(child)

    walk(at.main)
    return found


class Browser:
    """What plotly_element.js keeps per chart: frames by digest, as the server sends and prunes them."""

    def __init__(self):
        self.frames: dict[str, dict[str, str]] = {}
        self.wire: dict[str, int] = {}  # digest -> times its JSON was sent as a frame

    def receive(self, charts: dict[str, dict]) -> None:
        for chart, data in charts.items():
            store = self.frames.setdefault(chart, {})
            ahead = data.get("ahead")
            if not ahead:  # not a hero figure: the browser keeps nothing
                store.clear()
            store[data["digest"]] = data["figure"]
            if ahead:
                for digest, figure in ahead["new"].items():
                    self.wire[digest] = self.wire.get(digest, 0) + 1
                    store[digest] = figure
                keep = set(ahead["keep"]) | {data["digest"]}
                for digest in [d for d in store if d not in keep]:
                    del store[digest]


def _hero(charts: dict[str, dict]) -> tuple[str, dict] | None:
    return next(((chart, data) for chart, data in charts.items() if (data.get("ahead") or {}).get("key")), None)


def _walk(at, key: str, texts: list[str], browser: Browser):
    """Move the drag slider with session-state key ``key`` one stop and back, as a student pressing an arrow
    key twice; the browser keeps what each run sends."""
    start = drag_value(at, key.removeprefix("drag_"))
    index = texts.index(start) if start in texts else 0
    step = 1 if index + 1 < len(texts) else -1
    for text in (texts[index + step], texts[index]):
        at = move_drag_slider(at, key, text)
        browser.receive(_charts(at))
    return at


def _state_key(at, url_key: str) -> str | None:
    return next((key for key, _ in drag_sliders(at) if key == f"drag_{url_key}"), None)


@pytest.mark.parametrize("info", PAGES, ids=lambda p: p.url_path)
def test_frames_are_the_figures_sent_for_their_values(info, caplog):
    caplog.set_level(logging.WARNING, logger="posenc_explorer.hero_frames")
    at = _load(info)
    browser = Browser()
    browser.receive(_charts(at))
    sliders = drag_sliders(at)
    if sliders:  # a hand that walks the first slider, a stop and back: frames are built from the second move
        key, texts = sliders[0]
        at = _walk(at, key, texts, browser)
    charts = _charts(at)
    found = _hero(charts)
    if info.url_path in NO_HERO:
        assert found is None, f"{info.url_path} now has frames: take it off NO_HERO"
        pytest.skip(f"{info.url_path}: {NO_HERO[info.url_path]}")
    assert found is not None, f"{info.url_path}: its figure carries no frames (page_kit.hero)"
    chart, data = found
    checked = 0
    for _ in range(2):  # the frames sent at first, then those sent after a move
        ahead = data["ahead"]
        state_key = _state_key(at, ahead["key"])
        assert state_key, f"{info.url_path}: frames for {ahead['key']!r}, which is not a drag slider on the page"
        stops = [text for text in ahead["frames"] if text != ahead["current"]]
        assert stops, f"{info.url_path}: a hero figure with no frame beside its value"
        for text in stops:
            drawn = browser.frames[chart].get(ahead["frames"][text])
            assert drawn is not None, f"{info.url_path}: the frame for {text!r} was never sent"
            at = move_drag_slider(at, state_key, text)
            charts = _charts(at)
            browser.receive(charts)
            assert charts[chart]["figure"] == drawn, \
                f"{info.url_path}: the frame drawn for {ahead['key']}={text} is not the figure the server sends"
            checked += 1
        data = charts[chart]
        if not (data.get("ahead") or {}).get("key"):
            break
    assert checked >= 2
    failed = [r.getMessage() for r in caplog.records if r.name == "posenc_explorer.hero_frames"]
    assert not failed, f"{info.url_path}: frames that could not be built: {failed}"
    assert max(browser.wire.values(), default=1) == 1, f"{info.url_path}: a frame was sent twice"


def test_a_walk_along_a_slider_sends_one_new_frame_per_move():
    """A page visit and a first move build no frame (the frame for where the hand came from is the figure drawn
    before: no build, not sent again); from the second move in a row on, only the next stop that way is built."""
    info = next(p for p in PAGES if p.url_path == "sinusoidal")
    at = _load(info)
    assert _charts(at)["chart_sinusoidal_table"]["ahead"]["key"] is None  # a visit: no hand yet
    at = move_drag_slider(at, "drag_n", "136")
    data = _charts(at)["chart_sinusoidal_table"]["ahead"]
    assert data["key"] == "n" and set(data["frames"]) == {"128", "136"} and not data["new"]
    for here, came_from, ahead in (("144", "136", "152"), ("152", "144", "160")):
        at = move_drag_slider(at, "drag_n", here)
        data = _charts(at)["chart_sinusoidal_table"]["ahead"]
        assert set(data["frames"]) == {came_from, here, ahead}
        assert list(data["new"]) == [data["frames"][ahead]], "only the frame ahead of the hand is new"
    at = move_drag_slider(at, "drag_base", "100,000")  # another slider: its first move builds nothing
    data = _charts(at)["chart_sinusoidal_table"]["ahead"]
    assert data["key"] == "base" and set(data["frames"]) == {"10,000", "100,000"} and not data["new"]


def test_no_frames_while_a_range_holds_a_slider_away_from_its_thumb():
    """Patches: the patch row r runs to the grid's last row. With r's thumb at row 13, a grid of 12 rows holds r
    at 11; walking the grid back up to 13 rows puts r at 12, and the next stop (14 rows) would bring it back to
    13, which a frame built with r where it stands (12) would not show: no frames until r stands where its thumb
    is again."""
    info = next(p for p in PAGES if p.url_path == "patches")
    at = _load(info)
    at = move_drag_slider(at, "drag_r", "13")  # the last row of the 14-row grid
    for rows, r in (("13", "12"), ("12", "11"), ("13", "12")):  # a walk down, then up: the grid pulls r along
        at = move_drag_slider(at, "drag_gh", rows)
        assert drag_value(at, "r") == r
        assert _charts(at)["chart_vit2d_one_patch"]["ahead"]["key"] is None
    at = move_drag_slider(at, "drag_gh", "14")  # r back at 13, where its thumb is: frames again (the next stop;
    assert drag_value(at, "r") == "13"  # not the figure before, which had r elsewhere)
    data = _charts(at)["chart_vit2d_one_patch"]["ahead"]
    assert data["key"] == "gh" and set(data["frames"]) == {"14", "15"}
