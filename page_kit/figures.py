"""The figure kit: every figure in the app is built here.

Builders return a ``Chart``: the plotly figure (explicit template and colour scale, axis titles,
hover readouts), the alt text, and the full-resolution numbers for download. Figures never
ship more values than a screen can show: heatmaps keep at most MAX_HEATMAP_ROWS x
MAX_HEATMAP_COLS cells and line traces at most MAX_LINE_POINTS points (every k-th sample), and
every array goes to the browser as float32.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .theme import CATEGORICAL, DIVERGING, SEQUENTIAL, template_name

MAX_HEATMAP_ROWS = 480  # about the plot's height in pixels
MAX_HEATMAP_COLS = 960  # about the plot's width in pixels
MAX_LINE_POINTS = 1200
MAX_BARS = 1024


@dataclass
class Chart:
    """A built figure plus what the page shows around it."""

    figure: go.Figure
    alt: str
    name: str  # file stem for downloads
    table: dict[str, np.ndarray] = field(default_factory=dict)  # columns for the CSV
    matrix: np.ndarray | None = None  # full-resolution matrix for the .npy download
    note: str = ""  # e.g. "showing every 4th row"


def stride_for(n: int, cap: int) -> int:
    return max(1, -(-n // cap))  # ceil(n / cap)


def _f32(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32))


def _axis_values(values, n):
    return np.arange(n) if values is None else np.asarray(values)


def _base_layout(fig: go.Figure, title: str, x_title: str, y_title: str, height: int) -> go.Figure:
    fig.update_layout(template=template_name(), title=title, height=height,
                      xaxis_title=x_title, yaxis_title=y_title)
    return fig


def heatmap(z, *, title: str, x_title: str, y_title: str, alt: str, name: str, x=None, y=None,
            value_name: str = "value", signed: bool | None = None, zrange: tuple[float, float] | None = None,
            hover_format: str = ".4f", height: int = 420, colorscale=None, reverse_y: bool = True) -> Chart:
    """A matrix as a heatmap; signed data gets the diverging map centred at zero."""
    full = np.asarray(z)
    rows, cols = full.shape
    sr, sc = stride_for(rows, MAX_HEATMAP_ROWS), stride_for(cols, MAX_HEATMAP_COLS)
    shown = full[::sr, ::sc]
    xs, ys = _axis_values(x, cols)[::sc], _axis_values(y, rows)[::sr]
    finite = shown[np.isfinite(shown)] if np.issubdtype(shown.dtype, np.floating) else shown
    if signed is None:
        signed = bool(finite.size and finite.min() < 0 < finite.max())
    trace = dict(z=_f32(shown), x=xs, y=ys, colorscale=colorscale or (DIVERGING if signed else SEQUENTIAL),
                 hovertemplate=f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{value_name}: %{{z:{hover_format}}}"
                               "<extra></extra>", colorbar=dict(title=dict(text=value_name, side="right")))
    if signed and zrange is None and finite.size:
        bound = float(np.abs(finite).max()) or 1.0
        trace.update(zmin=-bound, zmax=bound)
    elif zrange is not None:
        trace.update(zmin=zrange[0], zmax=zrange[1])
    fig = _base_layout(go.Figure(go.Heatmap(**trace)), title, x_title, y_title, height)
    if reverse_y:
        fig.update_yaxes(autorange="reversed")
    note = ""
    if sr > 1 or sc > 1:
        note = f"Showing every {sr}th row and {sc}th column ({shown.shape[0]}x{shown.shape[1]} of {rows}x{cols}); " \
               "the download has every value."
    return Chart(fig, alt, name, matrix=full, note=note)


def lines(x, series: Mapping[str, np.ndarray], *, title: str, x_title: str, y_title: str, alt: str, name: str,
          markers: bool = False, vlines: Sequence[tuple[float, str]] = (), hlines: Sequence[tuple[float, str]] = (),
          log_x: bool = False, log_y: bool = False, height: int = 380, hover_format: str = ".4f",
          dashed: Sequence[str] = (), shade_x: tuple[float, float, str] | None = None,
          x_ticks: Sequence[float] | None = None, y_range: tuple[float, float] | None = None,
          legend_right: bool = False, margin: Mapping[str, int] | None = None) -> Chart:
    """One or more curves over a shared x axis; vertical markers for things like a training length.

    ``x_ticks`` puts ticks exactly at those x values (e.g. 64, 128, 256 on a log axis); ``y_range`` fixes
    the y axis (e.g. 0..1 for an accuracy). NaN values leave a gap in their curve. ``legend_right`` stacks
    the legend to the right of the plot (for many or long labels, which would cover the title on top).
    ``margin`` (pixels, e.g. ``dict(l=64, b=52)``) makes room for tick labels, since axes do not auto-expand.
    """
    x = np.asarray(x)
    step = stride_for(x.shape[0], MAX_LINE_POINTS)
    fig = go.Figure()
    for i, (label, values) in enumerate(series.items()):
        fig.add_trace(go.Scatter(
            x=_f32(x[::step]), y=_f32(np.asarray(values)[::step]), name=label,
            mode="lines+markers" if markers else "lines",
            line=dict(color=CATEGORICAL[i % len(CATEGORICAL)], width=2.2,
                      dash="dash" if label in dashed else "solid"),
            hovertemplate=f"{label}<br>{x_title}: %{{x}}<br>{y_title}: %{{y:{hover_format}}}<extra></extra>"))
    for xv, label in vlines:
        if log_x:  # annotations on a log axis take log10(x) (shapes take x itself), so place the label by hand
            fig.add_vline(x=xv, line=dict(color="#888888", dash="dot", width=1.5))
            fig.add_annotation(x=float(np.log10(xv)), y=0, xref="x", yref="paper", text=label, showarrow=False,
                               xanchor="left", yanchor="bottom", xshift=4, yshift=4)
        else:
            fig.add_vline(x=xv, line=dict(color="#888888", dash="dot", width=1.5), annotation_text=label,
                          annotation_position="top right")
    for yv, label in hlines:
        fig.add_hline(y=yv, line=dict(color="#888888", dash="dot", width=1.2), annotation_text=label,
                      annotation_position="bottom right")
    if shade_x is not None:
        fig.add_vrect(x0=shade_x[0], x1=shade_x[1], fillcolor="#999999", opacity=0.12, line_width=0,
                      annotation_text=shade_x[2], annotation_position="top left")
    _base_layout(fig, title, x_title, y_title, height)
    fig.update_xaxes(type="log" if log_x else "linear")
    fig.update_yaxes(type="log" if log_y else "linear")
    if x_ticks is not None:
        fig.update_xaxes(tickvals=list(x_ticks), ticktext=[f"{v:g}" for v in x_ticks])
    if y_range is not None:
        fig.update_yaxes(range=list(y_range))
    if legend_right:
        fig.update_layout(legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top"))
    if margin is not None:
        fig.update_layout(margin=dict(margin))
    table = {x_title: x, **{k: np.asarray(v) for k, v in series.items()}}
    note = f"Plotting every {step}th point of {x.shape[0]}; the download has all of them." if step > 1 else ""
    return Chart(fig, alt, name, table=table, note=note)


def bars(categories, series: Mapping[str, np.ndarray], *, title: str, x_title: str, y_title: str, alt: str,
         name: str, log_y: bool = False, height: int = 360, hover_format: str = ".4g") -> Chart:
    categories = np.asarray(categories)
    if categories.shape[0] > MAX_BARS:
        raise ValueError(f"A bar chart shows at most {MAX_BARS} bars.")
    fig = go.Figure()
    for i, (label, values) in enumerate(series.items()):
        fig.add_trace(go.Bar(x=categories, y=_f32(values), name=label, marker_color=CATEGORICAL[i % 8],
                             hovertemplate=f"{label}<br>{x_title}: %{{x}}<br>{y_title}: %{{y:{hover_format}}}"
                                           "<extra></extra>"))
    _base_layout(fig, title, x_title, y_title, height)
    fig.update_layout(barmode="group", bargap=0.15)
    fig.update_yaxes(type="log" if log_y else "linear")
    return Chart(fig, alt, name, table={x_title: categories, **{k: np.asarray(v) for k, v in series.items()}})


def vectors2d(vectors: Mapping[str, tuple[float, float]], *, title: str, alt: str, name: str,
              arcs: Sequence[tuple[float, float, float, str]] = (), height: int = 420) -> Chart:
    """Arrows from the origin in a square, equal-aspect plane; arcs are (radius, from, to angle, label)."""
    fig = go.Figure()
    extent = max([1.0] + [float(np.hypot(*v)) for v in vectors.values()]) * 1.15
    theta = np.linspace(0, 2 * np.pi, 181)
    fig.add_trace(go.Scatter(x=_f32(np.cos(theta)), y=_f32(np.sin(theta)), mode="lines", hoverinfo="skip",
                             line=dict(color="#aaaaaa", width=1, dash="dot"), showlegend=False))
    for i, (label, (vx, vy)) in enumerate(vectors.items()):
        color = CATEGORICAL[i % len(CATEGORICAL)]
        fig.add_trace(go.Scatter(x=[0, vx], y=[0, vy], mode="lines+markers", name=label,
                                 line=dict(color=color, width=3), marker=dict(size=[0, 10], color=color),
                                 hovertemplate=f"{label}<br>x: %{{x:.3f}}<br>y: %{{y:.3f}}<extra></extra>"))
    for radius, start, stop, label in arcs:
        t = np.linspace(start, stop, 60)
        fig.add_trace(go.Scatter(x=_f32(radius * np.cos(t)), y=_f32(radius * np.sin(t)), mode="lines",
                                 name=label, line=dict(width=1.5, dash="dash"), hoverinfo="name"))
    _base_layout(fig, title, "x (first of the pair)", "y (second of the pair)", height)
    fig.update_xaxes(range=[-extent, extent], zeroline=True)
    fig.update_yaxes(range=[-extent, extent], scaleanchor="x", scaleratio=1, zeroline=True)
    table = {"vector": np.array(list(vectors)), "x": np.array([v[0] for v in vectors.values()]),
             "y": np.array([v[1] for v in vectors.values()])}
    return Chart(fig, alt, name, table=table)


def small_multiples(grids: Sequence[np.ndarray], titles: Sequence[str], *, title: str, alt: str, name: str,
                    cols: int = 4, signed: bool | None = None, value_name: str = "value",
                    x_title: str = "key", y_title: str = "query", cell_px: int = 190,
                    hover_format: str = ".3f", max_side: int | None = None,
                    margin: Mapping[str, int] | None = None) -> Chart:
    """A grid of small heatmaps sharing one colour scale (so panels compare honestly).

    ``max_side`` lowers the per-panel cap on rows/columns shown (default: the screen width / cols), for many
    large panels; ``margin`` (pixels) makes room, e.g. a taller top between the title and the panel titles.
    """
    stack = np.stack([np.asarray(g, dtype=np.float64) for g in grids])  # (panels, rows, cols)
    n = stack.shape[0]
    cols = max(1, min(cols, n))
    nrows = -(-n // cols)
    cap = max(8, MAX_HEATMAP_COLS // cols)
    if max_side is not None:
        cap = max(8, min(cap, int(max_side)))
    step = stride_for(max(stack.shape[1:]), cap)
    shown = stack[:, ::step, ::step]
    finite = shown[np.isfinite(shown)]
    if signed is None:
        signed = bool(finite.size and finite.min() < 0 < finite.max())
    if signed and finite.size:
        bound = float(np.abs(finite).max()) or 1.0
        zmin, zmax = -bound, bound
    else:
        zmin, zmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    fig = make_subplots(rows=nrows, cols=cols, subplot_titles=list(titles), horizontal_spacing=0.03,
                        vertical_spacing=0.08 if nrows > 1 else 0.05)
    for i in range(n):
        fig.add_trace(go.Heatmap(
            z=_f32(shown[i]), coloraxis="coloraxis",
            hovertemplate=f"{titles[i]}<br>{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{value_name}: "
                          f"%{{z:{hover_format}}}<extra></extra>"), row=i // cols + 1, col=i % cols + 1)
    fig.update_layout(template=template_name(), title=title, height=int(nrows * cell_px + 90),
                      coloraxis=dict(colorscale=DIVERGING if signed else SEQUENTIAL, cmin=zmin, cmax=zmax,
                                     colorbar=dict(title=dict(text=value_name, side="right"))))
    fig.update_yaxes(autorange="reversed", showticklabels=False)
    fig.update_xaxes(showticklabels=False)
    if margin is not None:
        fig.update_layout(margin=dict(margin))
    note = f"Each panel shows every {step}th row and column." if step > 1 else ""
    return Chart(fig, alt, name, matrix=stack, note=note)
