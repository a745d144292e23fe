"""The drag slider (page_kit/controls/drag_slider.py): its values, hostile state and links, and the URL it writes."""

import pytest
from streamlit.testing.v1 import AppTest

from page_kit import registry
from page_kit.controls import drag_slider
from tests import apptest_pages

SINUSOIDAL = registry.page("sinusoidal")


def test_numeric_stops_match_streamlit_steps_labels_and_url_text():
    values, labels, url = drag_slider.numeric_stops(8, 2048, 8, integer=True, format=None)
    assert values[:3] == (8, 16, 24) and values[-1] == 2048 and len(values) == 256
    assert labels[-1] == "2,048" and url[-1] == "2048"
    values, labels, url = drag_slider.numeric_stops(-2.0, 2.0, 0.1, integer=False, format="%.1f")
    assert len(values) == 41 and values[20] == 0.0 and values[-1] == 2.0
    assert labels[:2] == ("-2.0", "-1.9") and url[:2] == ("-2", "-1.9")  # whole floats without ".0", as Streamlit


def test_a_range_with_too_many_stops_is_refused_before_any_list_is_built():
    with pytest.raises(ValueError, match="at most"):
        drag_slider.numeric_stops(0, 10**9, 1, integer=True, format=None)


@pytest.mark.parametrize("text", [None, 5, "", "abc", "nan", "inf", "-inf", "1e309", "9" * 400, "[1, 2]"])
def test_state_the_slider_cannot_hold_falls_back_to_the_default(text):
    values = [8, 16, 24, 32]
    assert drag_slider._index_for(text, values, ["8", "16", "24", "32"], fallback=2) == 2


def test_a_value_the_list_no_longer_has_lands_on_the_nearest():
    assert drag_slider._index_for("31", [0, 10, 20, 30], ["0", "10", "20", "30"], fallback=0) == 3
    assert drag_slider._index_for("-5", [0, 10, 20, 30], ["0", "10", "20", "30"], fallback=2) == 0


def _sinusoidal(**query) -> AppTest:
    return apptest_pages.load(SINUSOIDAL, **query)


def _snippet(at: AppTest) -> str:
    return apptest_pages.snippets(at)[0]


def test_a_link_sets_the_drag_sliders_and_a_move_writes_the_url():
    at = _sinusoidal(n="64", base="100,000")
    sliders = dict(apptest_pages.drag_sliders(at))
    assert {"drag_n", "drag_d", "drag_base"} <= set(sliders)
    assert "pc.sinusoidal(64, 64, 100000.0" in _snippet(at)
    apptest_pages.move_drag_slider(at, "drag_n", "256")
    assert at.query_params["n"] in ("256", ["256"]) and "pc.sinusoidal(256, 64, 100000.0" in _snippet(at)
    apptest_pages.move_drag_slider(at, "drag_n", "128")  # back to the default: the link gets shorter
    assert "n" not in at.query_params
    assert at.query_params["base"] in ("100,000", ["100,000"])


@pytest.mark.parametrize("query", [{"n": "1e309"}, {"n": "abc"}, {"n": "12"}, {"base": "7"}, {"d": "-inf"},
                                   {"n": "99999999"}])
def test_hostile_links_change_only_the_view(query):
    at = _sinusoidal(**query)  # load() asserts no exception and no error box
    code = _snippet(at)
    n = {"1e309": 128, "abc": 128, "12": 8, "99999999": 2048}.get(query.get("n"), 128)
    assert f"pc.sinusoidal({n}, 64, 10000.0" in code, code


def test_hostile_browser_state_changes_only_the_view():
    at = _sinusoidal()
    for text in ("inf", "<script>", "1e400", "-3"):
        apptest_pages.move_drag_slider(at, "drag_n", text)
        apptest_pages.assert_clean(at, f"drag_n = {text!r}")
    assert "pc.sinusoidal(8, 64" in _snippet(at)  # "-3" is a number: the nearest stop is the smallest
