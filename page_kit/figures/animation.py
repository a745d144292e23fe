"""Frames for a chart: the same figure built for a range of one parameter, switched in the browser.

A teacher who drags a slider or presses Play wants the figure to move with the hand, not jump after a
round trip to the server. The page builds the figure once per frame value with the very same core call
and builder it uses for the static figure; this module keeps only what differs between the frames
(the x / y / z arrays of the traces that change) and hands them to the chart element, which swaps them
in the browser (a scrub bar and a Play button under the chart).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence

import numpy as np
import plotly.io as pio
import streamlit as st
from plotly.utils import PlotlyJSONEncoder

from page_kit.figures import cache
from page_kit.figures.chart import Chart

ATTRIBUTES = ("x", "y", "z")
LAYOUT_KEYS = ("title", "shapes", "annotations")
MAX_FRAME_BYTES = 2_000_000  # all frames of one chart together, as float32, before base64
MAX_FRAMES = 120
# finished frames, shared by every session: a rerun that leaves the animated view alone (another widget, an answer,
# the poll) sends the frames it sent before instead of building every frame again (51 figures: ~0.3 s)
FRAMES = cache.Bounded(32 << 20, max_entries=64)


def _f32_spec(values) -> dict:
    array = np.ascontiguousarray(np.asarray(values, dtype=np.float32))
    return {"bdata": base64.b64encode(array.tobytes()).decode("ascii"), "shape": list(array.shape)}


def frames_payload(label: str, values: Sequence, patches: Sequence[Sequence[tuple[int, str, object]]],
                   start: int = 0, interval_ms: int = 120, layouts: Sequence[dict] | None = None,
                   datas: Sequence[list] | None = None) -> dict:
    """Precomputed frames a chart can switch between in the browser (a scrub bar and a Play button).

    ``patches[i]`` lists what frame i changes: (trace index, attribute "x" / "y" / "z", array), and
    ``layouts[i]`` the layout keys it replaces (title, shapes, annotations); ``datas[i]``, when given, is
    frame i's whole trace list (for frames whose traces differ). Frames are
    bounded (MAX_FRAMES, MAX_FRAME_BYTES) so a Play button never ships more than a couple of megabytes.
    """
    if not 1 <= len(values) <= MAX_FRAMES or len(patches) != len(values):
        raise ValueError(f"A chart animates between 1 and {MAX_FRAMES} frames, one patch per value.")
    encoded = [[{"trace": int(t), "attribute": a, **_f32_spec(array)} for t, a, array in patch] for patch in patches]
    size = sum(len(item["bdata"]) * 3 // 4 for patch in encoded for item in patch)
    if size > MAX_FRAME_BYTES:
        raise ValueError(f"The animation would send {size / 1e6:.1f} MB; use fewer frames or a smaller figure.")
    return {"label": label, "values": [str(v) for v in values], "patches": encoded, "start": int(start),
            "interval_ms": int(interval_ms), "layouts": list(layouts) if layouts else None,
            "datas": list(datas) if datas else None}


def _array(trace, attribute: str):
    value = getattr(trace, attribute, None)
    return None if value is None else np.asarray(value, dtype=np.float64)


def frames(build: Callable[[object], Chart], label: str, values: Sequence, start_value=None,
           interval_ms: int = 120) -> dict:
    """Build ``build(v)`` for every v in ``values`` and keep the arrays that change between frames.

    Frames with the same traces send only the arrays that change; frames whose traces differ (a legend
    entry that comes and goes) send each frame's whole trace list. Raises ValueError when the frames would
    exceed the element's byte cap.
    """
    values = list(values)
    if not 2 <= len(values) <= MAX_FRAMES:
        raise ValueError(f"An animation needs between 2 and {MAX_FRAMES} frames.")
    first = build(values[0]).figure
    # Refuse before building the rest: every numeric array of one frame, times the frames, bounds what could change.
    bound = sum(_array(trace, a).size * 4 for trace in first.data for a in ATTRIBUTES
                if _array(trace, a) is not None and _array(trace, a).dtype != object) * len(values)
    if bound > MAX_FRAME_BYTES * 4:
        raise ValueError(f"This view is too large to animate ({bound / 1e6:.0f} MB of frames); make it smaller "
                         "(fewer positions or dimensions) to get the scrub bar and Play.")
    charts = [first] + [build(v).figure for v in values[1:]]
    if not _same_traces(charts):  # e.g. a legend entry per band, and the bands present change with the value
        datas = [json.loads(pio.to_json({"data": figure.data}, validate=False))["data"] for figure in charts]
        size = sum(len(json.dumps(d)) for d in datas)
        if size > MAX_FRAME_BYTES:
            raise ValueError(f"Animating this view would send {size / 1e6:.1f} MB; make the figure smaller first.")
        start = values.index(start_value) if start_value in values else 0
        return frames_payload(label, values, [[] for _ in values], start=start, interval_ms=interval_ms,
                              layouts=_layouts(charts), datas=datas)
    changing: list[tuple[int, str]] = []  # (trace index, attribute) that differ in at least one frame
    for t, trace in enumerate(first.data):
        for attribute in ATTRIBUTES:
            ref = _array(trace, attribute)
            if ref is None or ref.dtype == object:
                continue
            for other in charts[1:]:
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
    return frames_payload(label, values, patches, start=start, interval_ms=interval_ms, layouts=_layouts(charts))


def attach(chart: Chart, build: Callable[[object], Chart], label: str, values: Sequence, start_value=None,
           interval_ms: int = 120) -> Chart:
    """Give ``chart`` its frames, or say in a caption why this view is too large to animate.

    The frames are kept per recipe of ``build`` (its name and what it closes over, as the figure cache keys a
    builder), so ``build`` should close over the view without the animated value: then moving that value only
    moves the scrub bar's start."""
    values = list(values)
    key = cache.digest(cache.recipe_of(build), label, values, interval_ms)
    made = FRAMES.get(key) if key is not None else None
    if made is None:
        try:
            made = frames(build, label, values, None, interval_ms)
        except ValueError as error:
            made = str(error)
        if key is not None:
            FRAMES.put(key, made, len(json.dumps(made)) if isinstance(made, dict) else len(made))
    if isinstance(made, str):
        st.caption(f":material/motion_photos_off: {made}")
        return chart
    start = values.index(start_value) if start_value in values else 0
    chart.frames = {**made, "start": start}
    return chart


def _same_traces(charts) -> bool:
    kinds = [tuple(trace.type for trace in figure.data) for figure in charts]
    return all(k == kinds[0] for k in kinds)


def _layouts(charts) -> list[dict] | None:
    """Per frame, the layout parts that change: a title that states the value, shaded bands, marker lines."""
    parts = [{key: json.loads(json.dumps(figure.layout.to_plotly_json().get(key), cls=PlotlyJSONEncoder))
              for key in LAYOUT_KEYS} for figure in charts]
    changing = [key for key in LAYOUT_KEYS if any(p[key] != parts[0][key] for p in parts[1:])]
    return [{key: p[key] for key in changing} for p in parts] if changing else None
