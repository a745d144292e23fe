"""Hostile links, one widget kind at a time: page_kit/controls/url_values.py's checks and the controls that use
them.

A shared link is untrusted input. page_kit/controls/url_values.py checks the raw query string against what each
widget can hold before Streamlit parses it. Here a small app with one control of every kind is opened from links whose
values are non-finite, too long for a float, off the step, out of range, unknown options or malformed
ranges (tests/test_url_pages.py does the same on every page), and the checks are fuzzed on their own.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from page_kit.controls import url_values as _url
from tests.apptest_pages import drag_value

HUGE = "9" * 400  # a 400-digit number: float() gives inf
KINDS = ("slider", "select_slider", "selectbox", "segmented_control", "toggle", "multiselect", "number_input",
         "text_input")


def _probe_app():
    from page_kit import controls

    controls.number("Seed", "seed", 0, 1000, 5)
    controls.number("Scale", "scale", 0.5, 2.0, 1.0)
    controls.slider("Dim", "d", 8, 64, 16, 4)
    controls.slider("Band", "band", 0.0, 1.0, (0.2, 0.5), 0.1)
    controls.select_slider("Length", "len", [1, 2, 4, 1024], 2, format_func=lambda v: f"{v:,}")
    controls.select_slider("Span", "span", [1, 2, 4, 8], (1, 4))
    controls.choice("Layout", "layout", ["half", "interleaved"], "half")
    controls.select("Preset", "preset", ["a", "b"])
    controls.toggle("Causal", "causal")
    controls.multiselect("Methods", "methods", ["x", "y", "z"], ["x"], max_selections=2)
    controls.text("Name", "name", "hi", max_chars=5)
    from page_kit import sections

    sections(["One", "Two"], key="tab")


DEFAULTS = {"seed": 5, "scale": 1.0, "d": 16, "band": (0.2, 0.5), "len": 2, "span": (1, 4), "layout": "half",
            "preset": "a", "causal": False, "methods": ["x"], "name": "hi", "tab": "One"}
PROBE = [  # (query, widget key, expected value)
    ({"seed": "1e309"}, "seed", 5), ({"seed": "inf"}, "seed", 5), ({"seed": HUGE}, "seed", 5),
    ({"seed": "nan"}, "seed", 5), ({"seed": "2.6"}, "seed", 3), ({"seed": "-1e300"}, "seed", 0),
    ({"seed": ["3", "4"]}, "seed", 4), ({"seed": "abc"}, "seed", 5), ({"scale": "1e309"}, "scale", 1.0),
    ({"scale": "0.777"}, "scale", 0.777), ({"scale": "7"}, "scale", 2.0),
    ({"d": "9"}, "d", 8), ({"d": "11"}, "d", 12), ({"d": "63"}, "d", 64), ({"d": "1e400"}, "d", 16),
    ({"d": "-inf"}, "d", 16), ({"d": "99999"}, "d", 64),
    ({"band": ["0.15", "0.77"]}, "band", (0.1, 0.8)), ({"band": ["0.9", "0.3"]}, "band", (0.3, 0.9)),
    ({"band": "0.3"}, "band", (0.2, 0.5)), ({"band": ["0.1", "0.2", "0.3"]}, "band", (0.2, 0.5)),
    ({"band": ["nan", "0.2"]}, "band", (0.2, 0.5)),
    ({"len": "3"}, "len", 2), ({"len": "1,024"}, "len", 1024), ({"len": "<b>"}, "len", 2),
    ({"span": ["8", "2"]}, "span", (2, 8)), ({"span": "2"}, "span", (1, 4)),
    ({"layout": "zigzag"}, "layout", "half"), ({"layout": "interleaved"}, "layout", "interleaved"),
    ({"preset": "c"}, "preset", "a"), ({"causal": "TRUE"}, "causal", True), ({"causal": "maybe"}, "causal", False),
    ({"methods": ["z", "q", "z", "y", "x"]}, "methods", ["z", "y"]), ({"methods": "q"}, "methods", ["x"]),
    ({"name": "abcdefghij"}, "name", "abcde"), ({"tab": "Two"}, "tab", "Two"), ({"tab": "<script>"}, "tab", "One"),
    ({"tab": ["Two", "One"]}, "tab", "One"),
]


@pytest.mark.parametrize("query, key, expected", PROBE, ids=[f"{k}={q[k]!s:.20}" for q, k, _ in PROBE])
def test_each_widget_kind_lands_on_a_valid_value(query, key, expected):
    at = AppTest.from_function(_probe_app)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if key == "tab":  # tabs are not a widget kind AppTest lists; their value lives in session state
        assert at.session_state[key] == expected
        return
    dragged = drag_value(at, key)  # a drag slider (the default for one value) shows its value's URL text
    if dragged is not None:
        assert type(expected)(dragged.replace(",", "")) == expected
    else:
        widget = next(w for kind in KINDS for w in at.get(kind) if w.key == key)
        assert widget.value == expected
    if expected == DEFAULTS[key]:
        assert key not in at.query_params  # a refused value leaves the address bar


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=30), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                          st.integers(-10**400, 10**400).map(str)), max_size=4),
       st.sampled_from([(0, 100, 1, True), (8, 64, 4, True), (0.0, 1.0, 0.05, False), (0.5, 2.0, None, False)]),
       st.sampled_from([1, 2]))
def test_numbers_check_keeps_only_values_the_widget_can_hold(raw, widget, count):
    low, high, step, integer = widget
    fixed = _url.numbers(raw, low, high, step, integer=integer, count=count)
    if fixed is None:
        return
    assert len(fixed) == count
    values = [float(v) for v in fixed]
    assert values == sorted(values)
    for v in values:
        assert math.isfinite(v) and low <= v <= high
        if step:
            assert math.isclose((v - low) / step, round((v - low) / step), abs_tol=1e-9)
        if integer:
            assert v == int(v)
    assert _url.numbers(fixed, low, high, step, integer=integer, count=count) == fixed  # a fixed point


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=8), max_size=5), st.sampled_from([None, 1, 2]), st.sampled_from([None, 2]))
def test_option_check_keeps_only_known_labels(raw, exactly, at_most):
    labels = ["a", "b", "1,024"]
    fixed = _url.options(raw, labels, exactly=exactly, at_most=None if exactly else at_most)
    if fixed is None:
        return
    if exactly:
        assert len(fixed) == exactly and all(v in labels for v in fixed)
    else:  # a multiselect: known labels, no repeats, at most at_most; or the empty selection as it came
        assert fixed == [""] or all(v in labels for v in fixed)
        assert len(set(fixed)) == len(fixed) and (at_most is None or len(fixed) <= at_most)


@settings(max_examples=200, deadline=None)
@given(st.floats(-100, 200, allow_nan=False), st.sampled_from([(8, 64, 4, True), (0.25, 64.0, 0.25, False),
                                                                (0.0, 1.0, 0.05, False), (-64, 64, 1, True)]))
def test_a_finite_value_lands_on_the_nearest_valid_one(value, widget):
    low, high, step, integer = widget
    (fixed,) = _url.numbers([repr(value)], low, high, step, integer=integer, count=1)
    clamped = min(max(value, low), high)
    assert abs(float(fixed) - clamped) <= step / 2 + 1e-9
