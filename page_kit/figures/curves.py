"""Figures of series against an axis: lines, bars, banded and stacked lines, arrows in a plane, category strips."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from page_kit.figures import cache, label_layout
from page_kit.figures.chart import Chart, as_f32, base_layout, decade_ticks, ordinal, roomy, series_styles, stride_for
from page_kit.figures.theme import (
    CATEGORICAL,
    series_symbols,
)
from page_kit.i18n import _, number

MAX_LINE_POINTS = 1200
MAX_BARS = 1024


BAR_PATTERNS = ("", "/", ".", "x", "\\", "+", "-", "|")
SPARSE_MARKERS = 12  # shapes along a curve that only needs them to be told apart from its neighbours


def _series_marker(symbol: str, colour: str, *, every_point: bool, alone: bool) -> dict:
    """Each curve of a figure with several also differs by its marker shape, not only by colour (WCAG 1.4.1);
    curves drawn without points show a dozen of them, spread along the curve, in the legend too."""
    if alone:
        return dict(color=colour)
    marker = dict(color=colour, symbol=symbol, size=7)
    return marker if every_point else {**marker, "maxdisplayed": SPARSE_MARKERS}


def _value_axis(title: str, log: bool, arrays, marks: Sequence[tuple[float, str]]) -> dict:
    """An axis, linear or log; a log axis gets decade ticks over the data and the reference lines (the axis
    stretches to show them, and their ticks must read right)."""
    axis = dict(title=dict(text=title), type="log" if log else "linear")
    if log:
        span = np.concatenate([np.ravel(np.asarray(a, dtype=np.float64)) for a in arrays]
                              + [np.asarray([v for v, _ in marks], dtype=np.float64)])
        axis.update(decade_ticks(span))
    return axis


@cache.builder
def lines(x, series: Mapping[str, np.ndarray], *, title: str, x_title: str, y_title: str, alt: str, name: str,
          markers: bool = False, vlines: Sequence[tuple[float, str]] = (), hlines: Sequence[tuple[float, str]] = (),
          log_x: bool = False, log_y: bool = False, height: int = 380, hover_format: str = ".4f",
          dashed: Sequence[str] = (), shade_x: tuple[float, float, str] | None = None,
          x_ticks: Sequence[float] | None = None, y_range: tuple[float, float] | None = None,
          legend_right: bool = False, margin: Mapping[str, int] | None = None,
          colours: Mapping[str, int] | None = None) -> Chart:
    """One or more curves over a shared x axis; vertical markers for things like a training length.

    ``colours`` pins a series to a palette index (label -> index), so the same thing keeps its colour
    across the figures of a section; other series take their position in ``series``.

    ``x_ticks`` puts ticks exactly at those x values (e.g. 64, 128, 256 on a log axis); ``y_range`` fixes
    the y axis (e.g. 0..1 for an accuracy). NaN values leave a gap in their curve. ``legend_right`` stacks
    the legend to the right of the plot (for many or long labels, which would cover the title on top).
    ``margin`` (pixels, e.g. ``dict(l=64, b=52)``) makes room for tick labels, since axes do not auto-expand.
    """
    x = np.asarray(x)
    step = stride_for(x.shape[0], MAX_LINE_POINTS)
    styles = series_styles(list(series), colours, dashed)
    symbols = series_symbols(list(series))
    # wide reference curves (training, no scaling) first, so a method that coincides leaves them visible
    # drawn in layers: wide reference curves, then solid lines, then dashed ones on top, so where curves
    # coincide the dashes let the line beneath show; the legend keeps the page's order (legendrank)
    order = {label: i for i, label in enumerate(series)}
    layer = {label: 0 if styles[label][2] >= 3 else 1 if styles[label][1] == "solid" else 2 for label in series}
    traces = []
    for label in sorted(series, key=layer.get):
        colour, dash, width = styles[label]
        traces.append(go.Scatter(
            x=as_f32(x[::step]), y=as_f32(np.asarray(series[label])[::step]), name=label,
            legendrank=1000 + order[label],
            mode="lines+markers" if markers or len(series) > 1 else "lines",
            line=dict(color=colour, width=width, dash=dash),
            marker=_series_marker(symbols[label], colour, every_point=markers, alone=len(series) == 1),
            hovertemplate=f"{label}<br>{x_title}: %{{x}}<br>{y_title}: %{{y:{hover_format}}}<extra></extra>"))
    x_axis = _value_axis(x_title, log_x, [x], vlines)
    y_axis = _value_axis(y_title, log_y, series.values(), hlines)
    if x_ticks is not None:
        x_axis.update(tickvals=list(x_ticks), ticktext=[f"{v:g}" for v in x_ticks])
    if y_range is not None:
        y_axis.update(range=list(y_range))
    # the layout in one piece: each update_layout walks plotly's property tree (a fifth of a build's time)
    layout = dict(title=dict(text=title), height=height, xaxis=x_axis, yaxis=y_axis)
    if legend_right:
        layout.update(legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top"))
    if margin is not None:
        layout.update(margin=dict(margin))
    fig = go.Figure(data=traces, layout=layout)
    if shade_x is not None:
        fig.add_vrect(x0=shade_x[0], x1=shade_x[1], fillcolor="#999999", opacity=0.12, line_width=0,
                      annotation_text=shade_x[2], annotation_position="top left")
    table = {x_title: x, **{k: np.asarray(v) for k, v in series.items()}}
    note = (_("Plotting every {ordinal} point of {total}; the download has all of them.").format(
        ordinal=ordinal(step), total=number(x.shape[0], 0)) if step > 1 else "")
    # the shade's label keeps the top row; the lines' labels start one row lower (on a narrow phone chart a line
    # label on the same row ran into it)
    return reference_lines(Chart(fig, alt, name, table=table, note=note), hlines=hlines, vlines=vlines,
                           first_row=1 if shade_x is not None and shade_x[2] else 0)


@cache.builder
def bars(categories, series: Mapping[str, np.ndarray], *, title: str, x_title: str, y_title: str, alt: str,
         name: str, log_y: bool = False, height: int = 360, hover_format: str = ".4g",
         y_range: tuple[float, float] | None = None, horizontal: bool = False) -> Chart:
    """Grouped bars; ``y_range`` fixes the y axis (in log10 units on a log axis), e.g. for animation frames.

    ``horizontal`` lays the bars along the page, one row per category (the first at the bottom): a long list of
    categories reads on a phone, where upright bars' tick labels would crowd. ``x_title`` still names the
    categories and ``y_title`` the values, and ``log_y`` and ``y_range`` still apply to the values.
    """
    categories = np.asarray(categories)
    if categories.shape[0] > MAX_BARS:
        raise ValueError(f"A bar chart shows at most {MAX_BARS} bars.")
    styles = series_styles(list(series))
    cat, val = ("y", "x") if horizontal else ("x", "y")
    traces = []
    for i, (label, values) in enumerate(series.items()):
        marker = dict(color=styles[label][0])
        if len(series) > 1:  # grouped bars differ by fill pattern too, not only colour (WCAG 1.4.1)
            marker["pattern"] = dict(shape=BAR_PATTERNS[i % len(BAR_PATTERNS)], solidity=0.25)
        traces.append(go.Bar(**{cat: categories, val: as_f32(values)}, name=label, marker=marker,
                             orientation="h" if horizontal else "v",
                             hovertemplate=f"{label}<br>{x_title}: %{{{cat}}}<br>{y_title}: %{{{val}:{hover_format}}}"
                                           "<extra></extra>"))
    value_axis = dict(title=dict(text=y_title), type="log" if log_y else "linear",
                      **(decade_ticks(np.concatenate([np.ravel(np.asarray(v, dtype=np.float64))
                                                       for v in series.values()])) if log_y else {}),
                      **({"range": list(y_range)} if y_range else {}))
    category_axis = dict(title=dict(text=x_title), **({"automargin": True} if horizontal else {}))
    axes = {f"{cat}axis": category_axis, f"{val}axis": value_axis}
    fig = go.Figure(data=traces, layout=dict(title=dict(text=title), height=height, barmode="group", bargap=0.15,
                                             **axes))
    return Chart(fig, alt, name, table={x_title: categories, **{k: np.asarray(v) for k, v in series.items()}})


@cache.builder
def vectors2d(vectors: Mapping[str, tuple[float, float]], *, title: str, alt: str, name: str,
              arcs: Sequence[tuple[float, float, float, str]] = (), height: int = 420,
              dashed: Sequence[str] = (), guides: Sequence[tuple[tuple[float, float], tuple[float, float], str]] = (),
              x_title: str = "x (first of the pair)", y_title: str = "y (second of the pair)",
              colours: Mapping[str, int] | None = None, arc_colours: Sequence[int] = (),
              legend_right: bool = False, reach: float | None = None) -> Chart:
    """Arrows from the origin in a square, equal-aspect plane; arcs are (radius, from, to angle, label).

    The plane fits the longest arrow, or shows radius ``reach`` whatever the arrows: a plane whose arrows are
    dragged (page_kit.chart.figure_control) must keep its scale, or a redraw during the drag moves the point under the
    hand.

    Vectors named in ``dashed`` are drawn dashed (e.g. before a rotation); ``guides`` are dotted
    segments ((x0, y0), (x1, y1), label), e.g. a projection onto an axis. ``colours`` maps a vector's
    label to a palette index (so a vector and its rotated copy can share a colour), ``arc_colours``
    does the same for the arcs, in order; ``legend_right`` stacks the legend beside the plot.
    """
    fig = go.Figure()
    extent = (reach if reach is not None else max([1.0] + [float(np.hypot(*v)) for v in vectors.values()])) * 1.15
    theta = np.linspace(0, 2 * np.pi, 181)
    fig.add_trace(go.Scatter(x=as_f32(np.cos(theta)), y=as_f32(np.sin(theta)), mode="lines", hoverinfo="skip",
                             line=dict(color="#aaaaaa", width=1, dash="dot"), showlegend=False))
    for i, (label, (vx, vy)) in enumerate(vectors.items()):
        color = CATEGORICAL[(colours or {}).get(label, i) % len(CATEGORICAL)]
        fig.add_trace(go.Scatter(x=[0, vx], y=[0, vy], mode="lines+markers", name=label,
                                 line=dict(color=color, width=2 if label in dashed else 3,
                                           dash="dash" if label in dashed else "solid"),
                                 marker=dict(size=[0, 10], color=color),
                                 hovertemplate=f"{label}<br>x: %{{x:.3f}}<br>y: %{{y:.3f}}<extra></extra>"))
    for j, (radius, start, stop, label) in enumerate(arcs):
        t = np.linspace(start, stop, 60)
        arc_colour = CATEGORICAL[arc_colours[j] % len(CATEGORICAL)] if j < len(arc_colours) else None
        fig.add_trace(go.Scatter(x=as_f32(radius * np.cos(t)), y=as_f32(radius * np.sin(t)), mode="lines",
                                 name=label, line=dict(width=1.5, dash="dot", color=arc_colour), hoverinfo="name"))
    for (x0, y0), (x1, y1), label in guides:
        fig.add_trace(go.Scatter(x=[x0, x1], y=[y0, y1], mode="lines+markers", name=label,
                                 line=dict(color="#666666", width=1.5, dash="dot"),
                                 marker=dict(size=[0, 8], symbol="diamond", color="#666666"),
                                 hovertemplate=f"{label}<br>x: %{{x:.3f}}<br>y: %{{y:.3f}}<extra></extra>"))
    base_layout(fig, title, x_title, y_title, height)
    if legend_right:
        fig.update_layout(legend=dict(orientation="v", x=1.02, xanchor="left", y=1.0, yanchor="top"),
                          margin=dict(r=190))  # room for labels such as "q̃ = R(mθ) q"
    fig.update_xaxes(range=[-extent, extent], zeroline=True)
    fig.update_yaxes(range=[-extent, extent], scaleanchor="x", scaleratio=1, zeroline=True)
    table = {"vector": np.array(list(vectors)), "x": np.array([v[0] for v in vectors.values()]),
             "y": np.array([v[1] for v in vectors.values()])}
    return Chart(fig, alt, name, table=table)


BAND_COLORS = {"extrapolated": "#0072B2", "blended": "#E69F00", "interpolated": "#009E73"}  # Okabe & Ito


@cache.builder
def banded_lines(x, series: Mapping[str, np.ndarray], bands: Sequence[str], *, title: str, x_title: str,
                 y_title: str, alt: str, name: str, band_colors: Mapping[str, str] | None = None,
                 **line_options) -> Chart:
    """``lines`` over a categorical x (e.g. rotary pairs) with each run of equal band labels shaded.

    ``bands[i]`` labels x[i]; a run of equal labels becomes one translucent rectangle, labelled once
    per band in the legend, so "which pairs are kept, blended, divided" reads at a glance.
    """
    colors = dict(BAND_COLORS if band_colors is None else band_colors)
    chart = lines(x, series, title=title, x_title=x_title, y_title=y_title, alt=alt, name=name, **line_options)
    x = np.asarray(x, dtype=np.float64)
    labels = [str(b) for b in bands]
    if len(labels) != x.shape[0]:
        raise ValueError("banded_lines needs one band label per x value.")
    half = (x[1] - x[0]) / 2 if x.shape[0] > 1 else 0.5
    start = 0
    for i in range(1, len(labels) + 1):
        if i == len(labels) or labels[i] != labels[start]:
            chart.figure.add_vrect(x0=x[start] - half, x1=x[i - 1] + half, line_width=0, layer="below",
                                   fillcolor=colors.get(labels[start], "#999999"), opacity=0.13)
            start = i
    for label in dict.fromkeys(labels):  # legend entries for the bands, in order of appearance
        chart.figure.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=f"band: {label}",
                                          marker=dict(symbol="square", size=12, opacity=0.45,
                                                      color=colors.get(label, "#999999")),
                                          hoverinfo="skip"))
    chart.table["band"] = np.asarray(labels)
    return roomy(chart)


@cache.builder
def stacked_lines(x, series: Mapping[str, np.ndarray], **kwargs) -> Chart:
    """Line chart with its legend stacked at the bottom of the figure, one label per row: a horizontal legend
    can run into itself or the axis title, and one beside the plot leaves no room on a phone."""
    chart = lines(x, series, **kwargs)
    rows = len(series)
    chart.figure.update_layout(
        height=(chart.figure.layout.height or 380) + 24 * rows, margin=dict(l=84, b=72 + 24 * rows),
        legend=dict(orientation="v", x=0, xanchor="left", y=0.01, yref="container", yanchor="bottom"))
    chart.figure.update_yaxes(automargin=True)  # room for log-axis tick labels beside the axis title
    return chart


@cache.builder
def roomy_lines(*args, **kwargs) -> Chart:
    """``lines`` with the room of ``roomy`` (log-axis tick labels, legend below)."""
    return roomy(lines(*args, **kwargs))


@cache.step
def reference_lines(chart: Chart, *, hlines: Sequence[tuple[float, str]] = (),
                    vlines: Sequence[tuple[float, str]] = (), first_row: int = 0) -> Chart:
    """Labelled reference lines that also sit right on log axes, their labels never over each other.

    plotly places a shape's own annotation at the raw value even on a log axis (where annotation
    coordinates are log10), which puts the label in the wrong place and stretches the range; here the
    label is a separate annotation in the axis' own units, placed by ``label_layout`` (vertical lines' labels
    one row each from the top, ``first_row`` rows down; horizontal lines' labels at the right, moved left past
    each other where lines are close).
    """
    layout = chart.figure.layout
    log_x, log_y = layout.xaxis.type == "log", layout.yaxis.type == "log"
    # Labels sit inside the plot area on a translucent grey chip (legible on both themes): above the plot
    # is the legend row, where a label would collide with it.
    chip = dict(showarrow=False, bgcolor="rgba(128,128,128,0.16)", borderpad=2)
    # the lines as plotly's add_vline / add_hline write them, all added at once (each add_* call walked the
    # whole layout: three lines took 8 of a curve figure's 9 ms)
    shapes, labels = [], []
    for i, (value, label) in enumerate(vlines):
        shapes.append(dict(type="line", x0=value, x1=value, xref="x", y0=0, y1=1, yref="y domain",
                           line=dict(color="#888888", dash="dot", width=1.5)))
        labels.append(dict(y=1, yref="paper", yanchor="top", xanchor="left", xshift=3,
                           yshift=-label_layout.LABEL_PX * (i + first_row),
                           x=float(np.log10(value)) if log_x else value, text=label, **chip))
    if hlines:
        low, high = _y_extent(chart.figure, [v for v, _ in hlines], log_y)
        height = label_layout.plot_height(layout.height or 450)
        pixels = label_layout.axis_pixels([v for v, _ in hlines], low, high, height, log_y)
        rows = len(vlines) + first_row
        spots = label_layout.place_hlines(pixels, [label for _, label in hlines], height, rows)
        for (value, label), spot in zip(hlines, spots, strict=True):
            shapes.append(dict(type="line", x0=0, x1=1, xref="x domain", y0=value, y1=value, yref="y",
                               line=dict(color="#888888", dash="dot", width=1.2)))
            labels.append(dict(x=1, xref="paper", xanchor="right", xshift=spot["xshift"],
                               yanchor="top" if spot["below"] else "bottom", yshift=spot["yshift"], **chip,
                               y=float(np.log10(value)) if log_y else value, text=label))
    if shapes:
        layout.shapes = [shape.to_plotly_json() for shape in layout.shapes] + shapes
        layout.annotations = [note.to_plotly_json() for note in layout.annotations] + labels
    return chart


def _y_extent(fig: go.Figure, marks: Sequence[float], log: bool) -> tuple[float, float]:
    """The y axis' range in data units: as set, else what autorange covers (every trace's y and the lines)."""
    if fig.layout.yaxis.range is not None:
        low, high = fig.layout.yaxis.range
        return (10.0 ** low, 10.0 ** high) if log else (low, high)
    values = [np.asarray(marks, dtype=np.float64)]
    for trace in fig.data:
        if getattr(trace, "y", None) is not None and trace.type in ("scatter", "bar"):
            try:
                values.append(np.ravel(np.asarray(trace.y, dtype=np.float64)))
            except (TypeError, ValueError):  # a categorical axis has no numeric extent
                continue
    data = np.concatenate(values)
    data = data[np.isfinite(data) & ((data > 0) if log else True)]
    return float(data.min()), float(data.max())


@cache.builder
def category_strip(x, rows: Mapping[str, Sequence[str]], *, title: str, x_title: str, alt: str, name: str,
                   hover: Mapping[str, Sequence[str]] | None = None, height: int = 260) -> Chart:
    """Rows of coloured cells over a shared x (e.g. one cell per layer), one colour per category of a row.

    Each category of a row is one legend entry (grouped under the row's name), so "which layers are sliding,
    which rotate with which base" reads as bands of colour; hovering a cell shows ``hover[row][i]``.
    """
    x = np.asarray(x)
    fig = go.Figure()
    table: dict[str, np.ndarray] = {x_title: x}
    for level, (row, labels) in enumerate(rows.items()):
        labels = [str(v) for v in labels]
        if len(labels) != x.shape[0]:
            raise ValueError("category_strip needs one label per x value in every row.")
        texts = [str(v) for v in (hover or {}).get(row, labels)]
        for k, category in enumerate(dict.fromkeys(labels)):
            where = [i for i, v in enumerate(labels) if v == category]
            fig.add_trace(go.Bar(
                x=x[where], y=[0.86] * len(where), base=[level + 0.07] * len(where), width=0.92, name=category,
                legendgroup=row, legendgrouptitle_text=row, marker=dict(color=CATEGORICAL[k % len(CATEGORICAL)],
                                                                        line=dict(width=0)),
                customdata=[texts[i] for i in where],
                hovertemplate=f"{x_title} %{{x}}<br>%{{customdata}}<extra>{row}</extra>"))
        table[row] = np.asarray(labels)
    # The legend sits in its own band at the bottom of the figure (container coordinates), one entry per line,
    # so it never meets the axis title whatever the font size. plotly grows the bottom margin to the legend's
    # real height; a margin reserved here for projector fonts showed as a blank band between the axis and the
    # legend at normal sizes. The figure grows by the legend's height at normal fonts, so the plot keeps its own.
    entries = len(fig.data) + len(rows)
    legend_px = 22 * entries + 12
    fig.update_layout(title=dict(text=title), height=height + legend_px, barmode="overlay",
                      bargap=0, legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0,
                                            groupclick="toggleitem", tracegroupgap=8, entrywidth=1.0,
                                            entrywidthmode="fraction"),
                      margin=dict(b=20),
                      xaxis=dict(title=dict(text=x_title)),
                      yaxis=dict(tickvals=[i + 0.5 for i in range(len(rows))], ticktext=list(rows),
                                 range=[0, len(rows)], showgrid=False, zeroline=False, fixedrange=True))
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return Chart(fig, alt, name, table=table)
