"""The figure as a control: what a click or a drag reported by the browser may set, and to what.

A browser's report is untrusted, so it goes through the same rule as a link's value (``_url``): a finite
number, clamped into the slider's range and put on its step; for options, one of the listed values."""

import numpy as np
import pytest
import streamlit as st
from hypothesis import given
from hypothesis import strategies as hs

from page_kit import figures
from page_kit.chart import figure_control
from page_kit.controls import slider_specs
from page_kit.controls import url_values as _url
from page_kit.controls.slider_specs import Target


@pytest.fixture(autouse=True)
def fresh_state():
    for key in list(st.session_state):
        del st.session_state[key]
    slider_specs.remember("qx", {"kind": "number", "low": -2.0, "high": 2.0, "step": 0.1, "integer": False,
                                   "drag": True})
    slider_specs.remember("layer", {"kind": "number", "low": 0, "high": 61, "step": 1, "integer": True,
                                      "drag": False})
    slider_specs.remember("L", {"kind": "options", "options": [1024, 2048, 4096, 8192, 32768],
                                  "labels": ["1,024", "2,048", "4,096", "8,192", "32,768"], "drag": True})
    slider_specs.remember("mask", {"kind": "options", "options": ["causal", "symmetric"],
                                     "labels": ["causal", "symmetric"], "drag": False})
    yield


@given(raw=hs.one_of(hs.floats(allow_nan=True, allow_infinity=True), hs.text(max_size=12), hs.none(),
                     hs.booleans(), hs.lists(hs.integers(), max_size=2)))
def test_any_report_lands_on_the_slider_exactly_as_a_link_would(raw):
    got = slider_specs.snapped(Target("qx"), raw)
    number = None if isinstance(raw, bool) else slider_specs.finite(raw)
    if number is None:
        assert got is None
        return
    # the URL layer's own check on the same text
    expected = _url.numbers([repr(number)], -2.0, 2.0, 0.1, integer=False, count=1)
    assert got[1] == expected[0] and -2.0 <= got[0] <= 2.0


@pytest.mark.parametrize("raw, value", [(2800, 2048), (3000, 4096), (1e9, 32768), (1, 1024), ("8,192", 8192)])
def test_options_take_the_nearest_on_a_log_scale_or_an_exact_label(raw, value):
    """Context lengths double from one option to the next: 3,000 is 1.46x 2,048 but only 1.37x below 4,096."""
    assert slider_specs.snapped(Target("L"), raw)[0] == value


def test_an_option_that_is_not_a_number_takes_its_label_only():
    assert slider_specs.snapped(Target("mask"), "symmetric") == ("symmetric", "symmetric")
    assert slider_specs.snapped(Target("mask"), "<script>") is None
    assert slider_specs.snapped(Target("mask"), 1.0) is None


def test_a_scaled_target_sets_the_factor_from_the_marker():
    slider_specs.remember("s", {"kind": "options", "options": [1.5, 2.0, 4.0, 8.0], "labels": ["1.5", "2", "4", "8"],
                                "drag": True})
    # L' dragged to 30,000 with L = 4,096: s = 7.3, nearest listed factor 8
    assert slider_specs.snapped(Target("s", 1 / 4096), 30000.0)[0] == 8.0


def test_a_key_with_no_slider_is_ignored_unless_its_bounds_are_given():
    assert slider_specs.snapped(Target("nothing"), 3) is None
    assert slider_specs.snapped(Target("p", bounds=(0, 127, 1)), 300.4) == (127, "127")


def test_apply_sets_a_drag_slider_through_its_choice_and_a_streamlit_slider_through_its_key():
    chart = figures.heatmap(np.zeros((62, 8)), title="t", x_title="x", y_title="layer", alt="a", name="n")
    control = figure_control.pick(chart, x="qx", y="layer").control
    st.session_state["drag_qx"] = {"value": "1"}
    done = figure_control.apply(control, {"kind": "pick", "x": 0.26, "y": 70, "n": 1})
    assert done == {"qx": 0.3, "layer": 61}
    assert st.session_state["figctl_qx"] == {"text": "0.3", "over": "1"}  # holds until the thumb moves
    assert st.session_state["layer"] == 61
    assert figure_control.apply(control, {"kind": "pick", "x": "nan", "y": None}) == {}
    assert figure_control.apply(control, "not a dict") == {} and figure_control.apply(control, {"kind": "x"}) == {}


def test_a_diagonal_pick_sets_the_offset_and_opens_the_tab():
    slider_specs.remember("off", {"kind": "number", "low": -95, "high": 95, "step": 1, "integer": True,
                                    "drag": False})
    chart = figures.heatmap(np.zeros((96, 96)), title="t", x_title="n", y_title="m", alt="a", name="n")
    control = figure_control.pick(chart, diagonal="off", opens=("view", "One cell")).control
    assert figure_control.apply(control, {"kind": "pick", "x": 10, "y": 40}) == {"off": 30}
    assert st.session_state["view"] == "One cell"
    assert "targets" not in figure_control.browser_spec(control)  # the browser never sees keys


def test_drag_points_needs_the_named_arrows_and_starts_at_their_tips():
    chart = figures.vectors2d({"q": (1.0, 0.3), "k": (0.6, 0.8)}, title="t", alt="a", name="n")
    control = figure_control.drag_points(chart, {"q": ("qx", "qy")}).control
    assert control["handles"] == [{"trace": "q", "x": 1.0, "y": 0.3}]
    assert chart.figure.layout.dragmode is False
    with pytest.raises(ValueError, match="no trace named"):
        figure_control.drag_points(chart, {"nope": ("qx", "qy")})


def test_the_drag_slider_keeps_the_figures_choice_until_its_thumb_moves():
    from page_kit.controls import drag_slider

    st.session_state["figctl_qx"] = {"text": "0.3", "over": "1"}
    assert drag_slider.figure_choice("qx", "1") == "0.3"  # the thumb still where it was: the figure's value
    assert drag_slider.figure_choice("qx", "1.5") is None  # the thumb moved: it takes over
    assert "figctl_qx" not in st.session_state
