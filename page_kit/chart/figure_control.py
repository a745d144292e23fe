"""The figure is the control: a click on a cell or a point, or a drag of an arrow or a marker line, sets the
same URL-bound widget as the slider beside the figure.

A page builds its Chart as usual and names what the hand may act on:

    show(figure_control.drag_points(chart, {"q": ("qx", "qy"), "k": ("kx", "ky")}))   # arrow tips
    show(figure_control.pick(chart, x="i", y="pos"))                                   # a heatmap cell
    show(figure_control.drag_lines(chart, "y", [(L, "L"), (L * s, Target("s", 1 / L))]))  # marker lines

The chart element (``plotly_element.js``, ``figureControl``) reports the event in data units; a callback
then sets the named widget keys before the rerun that follows, exactly as a slider move would. Values from
the browser are untrusted: each one is snapped by the same rule the URL layer applies to a link
(``page_kit.controls.slider_specs``: ``_url.nearest`` for a numeric slider, the nearest listed option for a
select slider) using the slider's own range, step or options as ``controls`` recorded them in this browser
tab's last run; a key with no slider on the page, or a value that is not a finite number, is ignored. The slider
stays as the keyboard, touch and screen-reader twin: it shows the value the figure chose, and moving it takes
over again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from page_kit import figures
from page_kit.controls.slider_specs import Target, finite, set_value, snapped
from page_kit.figures import Chart, cache
from page_kit.i18n import _

__all__ = ["Target", "apply", "browser_spec", "drag_lines", "drag_points", "pick"]


def _target(value: str | Target | None) -> Target | None:
    return Target(value) if isinstance(value, str) else value


def pick(chart: Chart, *, x: str | Target | None = None, y: str | Target | None = None,
         diagonal: str | Target | None = None, distance: str | Target | None = None,
         traces: Sequence[str] | None = None, opens: tuple[str, str] | None = None) -> Chart:
    """A click on a cell (heatmap) or a point (a bar, a marker) sets ``x`` and / or ``y`` to its coordinates,
    ``diagonal`` to y − x (on a score grid of query rows and key columns, the offset m − n) and ``distance``
    to |y − x|.

    ``traces`` limits the clicks to the traces of those names (e.g. the layer strip's cells, not a legend
    entry's placeholder); ``opens`` (tabs key, label) opens the lesson tab that shows the chosen value."""
    _hint(chart, _("Click a cell of the figure to choose it; the slider sets the same value from the keyboard."))
    chart.control = {"pick": {"traces": list(traces) if traces else None},
                     "targets": {"pick": {"x": _target(x), "y": _target(y), "y-x": _target(diagonal),
                                          "|y-x|": _target(distance)}},
                     "opens": opens}
    return chart


def drag_points(chart: Chart, tips: Mapping[str, tuple[str | Target | None, str | Target | None]]) -> Chart:
    """The last point of each named trace (an arrow's tip) can be dragged; it sets the (x, y) keys given."""
    ends = cache.derived(chart, "trace_ends", _trace_ends)
    handles, targets = [], {}
    for trace, (x_key, y_key) in tips.items():
        if trace not in ends:
            raise ValueError(f"The figure has no trace named {trace!r} to drag.")
        x, y = ends[trace]
        handles.append({"trace": trace, "x": x, "y": y})
        targets[str(len(handles) - 1)] = {"x": _target(x_key), "y": _target(y_key)}
    chart = figures.hand_drags(chart)
    _hint(chart, _("Drag the tip of {tips} to move it; the sliders set the same values from the keyboard.").format(
        tips=_(" or ").join(tips)))
    chart.control = {"handles": handles, "anywhere": False, "targets": targets}
    return chart


def _trace_ends(figure) -> dict[str, tuple[float, float]]:
    """Where each named trace with x and y ends: (x, y) of its last point (the first trace of a name wins)."""
    ends: dict[str, tuple[float, float]] = {}
    for trace in figure.data:
        x, y = getattr(trace, "x", None), getattr(trace, "y", None)
        if trace.name is not None and trace.name not in ends and x is not None and y is not None and len(x):
            ends[trace.name] = (float(x[-1]), float(y[-1]))
    return ends


def drag_lines(chart: Chart, axis: str, lines: Sequence[tuple[float, str | Target]]) -> Chart:
    """Marker lines across the plot (``axis`` "y": horizontal lines at y = value) that follow the hand: a press
    anywhere in the plot takes the nearest line there, a drag moves it; each sets its key (times its scale)."""
    if axis not in ("x", "y"):
        raise ValueError("A marker line runs across the x or the y axis.")
    handles = [{"trace": None, "x": None, "y": None, axis: float(value)} for value, _ in lines]
    targets = {str(i): {axis: _target(key)} for i, (_, key) in enumerate(lines)}
    chart = figures.hand_drags(chart)
    _hint(chart, _("Press or drag on the figure: the nearer marker line follows; the sliders set the same values "
                   "from the keyboard."))
    chart.control = {"handles": handles, "anywhere": True, "targets": targets}
    return chart


def _hint(chart: Chart, text: str) -> None:
    """Say under the figure that it is a control: nothing on a chart shows that it answers a click."""
    chart.note = f"{chart.note} {text}".strip()


def browser_spec(control: dict | None) -> dict | None:
    """What the browser needs (no keys, no scales: it only reports where the hand went)."""
    if control is None:
        return None
    return {k: v for k, v in control.items() if k not in ("targets", "opens")}


def apply(control: dict, event: object) -> dict[str, object]:
    """Set the widget keys an event names; returns {key: value set} (nothing for an event it cannot use)."""
    if not isinstance(event, dict):
        return {}
    which = "pick" if event.get("kind") == "pick" else str(event.get("handle"))
    x, y = finite(event.get("x")), finite(event.get("y"))
    if x is not None and y is not None:  # a cell's diagonal: row minus column (query m minus key n)
        event = {**event, "y-x": y - x, "|y-x|": abs(y - x)}
    targets = control.get("targets", {}).get(which)
    if not targets:
        return {}
    done = {}
    for axis, target in targets.items():
        if target is None or axis not in event:
            continue
        value = snapped(target, event[axis])
        if value is not None:
            set_value(target.key, *value)
            done[target.key] = value[0]
    if done and control.get("opens"):
        tabs, label = control["opens"]
        st.session_state[tabs] = label
    return done
