"""What each slider of this browser tab can hold, and the rule that puts a value from outside onto it.

``controls.slider`` and ``select_slider`` record their spec here on every run (range, step and whether it is
whole numbers, or the listed options and their labels; and whether it is a drag slider). A click or a drag on a
figure (``page_kit.chart.figure_control``) names a slider by its key and reports a coordinate; ``snapped`` puts
that coordinate on the slider by the same rule the URL layer applies to a link (``_url.nearest`` for a numeric
slider, the nearest listed option for a select slider), and ``set_value`` sets the slider to it before the rerun
that follows, exactly as a move of the slider would. A key with no slider recorded, or a value that is not a
finite number, gives nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import streamlit as st

from page_kit.controls import drag_slider
from page_kit.controls import url_values as _url

SPECS_KEY = "_figure_targets"  # session state: key -> the slider's spec, recorded by controls each run


@dataclass(frozen=True)
class Target:
    """A widget key the figure sets, from a coordinate times ``scale`` (L′ on the axis -> s = L′ / L).

    ``bounds`` (low, high, step) describe the key's drag slider for a figure that sets a slider drawn in
    another tab, which may not have run yet in this browser tab (a lazy tab runs only while open); a slider that
    has run is always described by its own record."""

    key: str
    scale: float = 1.0
    bounds: tuple[float, float, float] | None = None


def remember(key: str, spec: dict) -> None:
    """Record a slider's spec (controls.slider / select_slider call this): what a figure may set it to."""
    st.session_state.setdefault(SPECS_KEY, {})[key] = spec


def snapped(target: Target, raw) -> tuple[object, str] | None:
    """(value, URL text) for ``raw`` (a coordinate from the browser) on ``target``'s slider, or None.

    The same rule as a link's value (``_url``): a finite number clamped into the range and put on the step;
    for options, the nearest listed one (on a log scale when every option is positive, as for context
    lengths and factors); a category label must be one of the options exactly."""
    spec = st.session_state.get(SPECS_KEY, {}).get(target.key) or _spec_from_bounds(target)
    if spec is None:
        return None
    if spec["kind"] == "options" and isinstance(raw, str) and raw in spec["labels"]:
        i = spec["labels"].index(raw)
        return spec["options"][i], spec["labels"][i]
    number = finite(raw)
    if number is None:
        return None
    number *= target.scale
    if spec["kind"] == "number":
        value = _url.nearest(number, spec["low"], spec["high"], spec["step"], spec["integer"])
        return value, _url.format_number(value, spec["integer"])
    numbers = [finite(o) for o in spec["options"]]
    if any(n is None for n in numbers):
        return None  # options that are not numbers take a label only
    logs = all(n > 0 for n in numbers) and number > 0
    distance = (lambda n: abs(math.log(n / number))) if logs else (lambda n: abs(n - number))
    i = min(range(len(numbers)), key=lambda k: distance(numbers[k]))
    return spec["options"][i], spec["labels"][i]


def _spec_from_bounds(target: Target) -> dict | None:
    """The spec ``controls.slider`` records, for a drag slider that has not run yet (see Target.bounds)."""
    if target.bounds is None:
        return None
    low, high, step = target.bounds
    spec = {"kind": "number", "low": low, "high": high, "step": step,
            "integer": all(isinstance(v, int) for v in target.bounds), "drag": True}
    remember(target.key, spec)
    return spec


def finite(raw) -> float | None:
    """``raw`` as a finite float, or None (a bool, text that is not a number, an infinity, NaN)."""
    if isinstance(raw, bool):
        return None
    try:
        number = float(raw)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def set_value(key: str, value, text: str) -> None:
    """Set the slider with this key (recorded: ``snapped`` gave the value) to ``value``, written ``text``.

    A drag slider takes it as the figure's choice (drag_slider.choose); a Streamlit slider through its widget
    key, before it is drawn again."""
    spec = st.session_state[SPECS_KEY][key]
    if spec.get("drag"):
        drag_slider.choose(key, text)
    else:
        st.session_state[key] = value
