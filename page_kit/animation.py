"""Frames for a chart: the same figure built for a range of one parameter, switched in the browser.

A teacher who drags a slider or presses Play wants the figure to move with the hand, not jump after a
round trip to the server. The page builds the figure once per frame value with the very same core call
and builder it uses for the static figure; this module keeps only what differs between the frames
(the x / y / z arrays of the traces that change) and hands them to the chart element, which swaps them
in the browser (a scrub bar and a Play button under the chart).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .figures import Chart
from .plotly_element import MAX_FRAME_BYTES, MAX_FRAMES, frames_payload

ATTRIBUTES = ("x", "y", "z")


def _array(trace, attribute: str):
    value = getattr(trace, attribute, None)
    return None if value is None else np.asarray(value, dtype=np.float64)


def frames(build: Callable[[object], Chart], label: str, values: Sequence, start_value=None,
           interval_ms: int = 120) -> dict:
    """Build ``build(v)`` for every v in ``values`` and keep the arrays that change between frames.

    Every frame must have the same traces with arrays of the same shapes (the same figure with other
    numbers). Raises ValueError when they do not, or when the frames would exceed the element's byte cap.
    """
    values = list(values)
    if not 2 <= len(values) <= MAX_FRAMES:
        raise ValueError(f"An animation needs between 2 and {MAX_FRAMES} frames.")
    first = build(values[0]).figure
    # Refuse before building the rest: every numeric array of one frame, times the frames, bounds what could change.
    bound = sum(_array(trace, a).size * 4 for trace in first.data for a in ATTRIBUTES
                if _array(trace, a) is not None and _array(trace, a).dtype != object) * len(values)
    if bound > MAX_FRAME_BYTES * 4:
        raise ValueError(f"This view is too large to animate ({bound / 1e6:.0f} MB of frames); make it smaller first.")
    charts = [first] + [build(v).figure for v in values[1:]]
    changing: list[tuple[int, str]] = []  # (trace index, attribute) that differ in at least one frame
    for t, trace in enumerate(first.data):
        for attribute in ATTRIBUTES:
            ref = _array(trace, attribute)
            if ref is None or ref.dtype == object:
                continue
            for other in charts[1:]:
                if len(other.data) != len(first.data):
                    raise ValueError("Every frame must draw the same traces.")
                arr = _array(other.data[t], attribute)
                if arr is None or arr.shape != ref.shape:
                    raise ValueError("Every frame must keep the shape of its arrays.")
                if not np.array_equal(arr, ref, equal_nan=True):
                    changing.append((t, attribute))
                    break
    size = sum(_array(first.data[t], a).size * 4 for t, a in changing) * len(values)
    if size > MAX_FRAME_BYTES:
        raise ValueError(f"Animating this view would send {size / 1e6:.1f} MB; make the figure smaller first.")
    patches = [[(t, a, _array(figure.data[t], a)) for t, a in changing] for figure in charts]
    start = values.index(start_value) if start_value in values else 0
    titles = [figure.layout.title.text or "" for figure in charts]  # a title that states the value follows it
    return frames_payload(label, values, patches, start=start, interval_ms=interval_ms, titles=titles)
