"""The figure kit: every figure in the app is built here.

Builders return a ``Chart``: the plotly figure (explicit colour scale, axis titles, hover readouts; the
theme's template is added when the figure is sent, ``theme.figure_json``), the alt text, and the
full-resolution numbers for download. Figures never ship more values than a screen can show: heatmaps
keep at most MAX_HEATMAP_ROWS x MAX_HEATMAP_COLS cells and line traces at most MAX_LINE_POINTS points
(every k-th sample), and every array goes to the browser as float32.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

from . import figure_cache, label_layout
from .theme import (  # noqa: F401 (CYCLIC)
    CATEGORICAL,
    CYCLIC,
    DIVERGING,
    SEQUENTIAL,
    series_style,
    series_symbols,
    template_name,
)

MAX_HEATMAP_ROWS = 480  # about the plot's height in pixels
MAX_HEATMAP_COLS = 960  # about the plot's width in pixels
BLOCK_MEAN_BAND = 1 << 18  # values block_mean converts to float64 at a time
LARGE_MATRIX = 1 << 20  # above this many values a heatmap's colour range is taken in the matrix's own dtype
MAX_LINE_POINTS = 1200
MAX_BARS = 1024


@dataclass(eq=False)
class Chart:
    """A built figure plus what the page shows around it.

    ``built`` is the plotly figure, or None while a chart that came from the shared cache (figure_cache) has
    not needed it: a page that only shows it sends the cached JSON. ``key`` and ``recipe`` say how it was made.
    """

    built: go.Figure | None
    alt: str
    name: str  # file stem for downloads
    table: dict[str, np.ndarray] = field(default_factory=dict)  # columns for the CSV
    matrix: np.ndarray | None = None  # full-resolution matrix for the .npy download
    note: str = ""  # e.g. "showing every 4th row"
    frames: dict | None = None  # precomputed frames for a scrub bar and Play (plotly_element.frames_payload)
    control: dict | None = None  # what a click or a drag on the figure sets (figure_control)
    key: str | None = None  # the recipe's digest: the view this figure shows (figure_cache)
    recipe: tuple = ()  # (function, args, kwargs): the builder, then each kit step
    ahead: object = None  # frames for the slider under the hand (page_kit.hero_frames.Ahead)

    @property
    def figure(self) -> go.Figure:
        """The plotly figure, to change: the chart no longer matches its cached recipe, so it loses its key."""
        self.key = None
        return self.materialised()

    def materialised(self) -> go.Figure:
        """The plotly figure, built now if the chart came from the cache; for reading, it keeps the key."""
        if self.built is None:
            self.built = figure_cache.rebuild(self.recipe)
        return self.built


def blank_masked(grid) -> np.ndarray:
    """A copy of ``grid`` with masked entries (-inf from a causal mask, or any non-finite value) as NaN.

    Heatmaps draw NaN as an empty cell, which is what a masked pair is: not a very negative score, but
    no score at all. Use it on bias and logit grids before handing them to a builder.
    """
    grid = np.array(grid, dtype=np.float64)
    grid[~np.isfinite(grid)] = np.nan
    return grid


def stride_for(n: int, cap: int) -> int:
    return max(1, -(-n // cap))  # ceil(n / cap)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ..."""
    n = int(n)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def wrap_label(text: str, width: int) -> str:
    """Break a label into lines of at most ``width`` characters (plotly's <br>), at its " · " separators when
    it has them, else at spaces, so that panel titles of narrow small multiples stack instead of running into
    their neighbours. A single part longer than ``width`` stays whole."""
    text = str(text)
    sep = " · " if " · " in text else " "
    lines, line = [], ""
    for part in text.split(sep):
        if line and len(line) + len(sep) + len(part) > width:
            lines.append(line)
            line = part
        else:
            line = f"{line}{sep}{part}" if line else part
    return "<br>".join([*lines, line])


def block_mean(a: np.ndarray, sr: int, sc: int) -> np.ndarray:
    """Shrink the last two axes by averaging sr x sc blocks (NaN cells ignored; an all-NaN block stays NaN).

    Keeping every k-th cell of a fast wave aliases it into slow stripes (moire) that are not in the data;
    the block mean shows what a cell of that size really holds. Output shape (..., ceil(R/sr), ceil(C/sc)).
    A large 2D matrix is averaged in bands of whole blocks, so its float64 copies are one band at a time
    (a 4,096 x 1,536 upload needed 150 MB of them at once).
    """
    a = np.asarray(a)
    if sr == 1 and sc == 1:
        return np.asarray(a, dtype=np.float64)
    band = sr * max(1, BLOCK_MEAN_BAND // (sr * a.shape[-1]))  # rows per band: whole blocks, ~256K values
    if a.ndim != 2 or a.shape[0] <= band:
        return _block_mean(a, sr, sc)
    return np.concatenate([_block_mean(a[i:i + band], sr, sc) for i in range(0, a.shape[0], band)], axis=0)


def _block_mean(a: np.ndarray, sr: int, sc: int) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    *lead, rows, cols = a.shape
    pr, pc_ = -rows % sr, -cols % sc
    padded_ = np.pad(a, [(0, 0)] * len(lead) + [(0, pr), (0, pc_)], constant_values=np.nan)
    blocks = padded_.reshape(*lead, (rows + pr) // sr, sr, (cols + pc_) // sc, sc)
    finite = np.isfinite(blocks)
    counts = finite.sum(axis=(-3, -1))
    sums = np.where(finite, blocks, 0.0).sum(axis=(-3, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def _f32(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32))


def _axis_values(values, n):
    return np.arange(n) if values is None else np.asarray(values)


def series_styles(labels: Sequence[str], colours: Mapping[str, int] | None = None,
                  dashed: Sequence[str] = ()) -> dict[str, tuple[str, str, float]]:
    """(colour, dash, width) of each series: a label that names a registered thing (theme.SERIES_STYLES: an
    encoding, an extension method, a reference curve) gets its registered style, in every figure; the others
    take the page's palette index from ``colours`` or the next palette colour no registered series uses here,
    and are drawn dashed when listed in ``dashed``."""
    registered = {label: series_style(label) for label in labels}
    taken = {style.colour.lower() for style in registered.values() if style is not None}
    free = iter([c for c in CATEGORICAL if c.lower() not in taken] or CATEGORICAL)
    out = {}
    for i, label in enumerate(labels):
        style = registered[label]
        if style is not None:  # the registry decides, whatever the page asked for
            out[label] = (style.colour, style.dash, style.width)
            continue
        if colours and label in colours:
            colour = CATEGORICAL[colours[label] % len(CATEGORICAL)]
        else:
            colour = next(free, CATEGORICAL[i % len(CATEGORICAL)])
        out[label] = (colour, "dash" if label in dashed else "solid", 2.2)
    return out


def tick_text(value: float) -> str:
    """A log-axis tick label that reads as its whole value: 0.5, not plotly's lone minor-tick "5"."""
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.6g}"


def _decade_ticks(values) -> dict:
    """Axis settings for a log axis over ``values``: one labelled tick per power of ten when the data span two
    decades or more (plotly's default adds small '2' and '5' labels between them, which crowd the axis and its
    title); over a shorter span ticks at 1, 2 and 5 of each decade (1 to 9 when that leaves fewer than two),
    each labelled with its whole value. plotly's own minor labels ("D2") print only the leading digit, so an
    axis from 0.125 to 1 read "5 ... 1", and a student read the lone "5" as five, not 0.5."""
    data = np.asarray(values, dtype=np.float64)
    data = data[np.isfinite(data) & (data > 0)]
    if not data.size:
        return {}
    low, high = float(data.min()), float(data.max())
    if np.log10(high / low) >= 2:
        return dict(dtick=1, exponentformat="power" if high >= 1e6 or low < 1e-3 else "none")
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    for mantissas in ((1, 2, 5), tuple(range(1, 10))):
        # one tick past each end, so the axis' padding still shows a labelled tick where the data end
        ticks = sorted(m * 10.0 ** k for k in decades for m in mantissas)
        inside = [t for t in ticks if low <= t * (1 + 1e-9) and t <= high * (1 + 1e-9)]
        if len(inside) >= 2:
            break
    below = [t for t in ticks if t < low * (1 - 1e-9)][-1:]
    above = [t for t in ticks if t > high * (1 + 1e-9)][:1]
    shown = below + inside + above
    return dict(tickmode="array", tickvals=shown, ticktext=[tick_text(t) for t in shown])


def _base_layout(fig: go.Figure, title: str, x_title: str, y_title: str, height: int) -> go.Figure:
    fig.update_layout(title=dict(text=title), height=height, xaxis=dict(title=dict(text=x_title)),
                      yaxis=dict(title=dict(text=y_title)))
    return fig


@figure_cache.builder
def heatmap(z, *, title: str, x_title: str, y_title: str, alt: str, name: str, x=None, y=None,
            value_name: str = "value", signed: bool | None = None, zrange: tuple[float, float] | None = None,
            hover_format: str = ".4f", height: int = 420, colorscale=None, reverse_y: bool = True,
            shade_cols: Sequence[tuple[float, float, str]] = (), robust: float | None = None) -> Chart:
    """A matrix as a heatmap; signed data gets the diverging map centred at zero.

    ``shade_cols`` marks column ranges (x0, x1, label) in x-axis units, e.g. dimensions a layer leaves alone.
    ``robust`` (a percentile such as 99) sets the colour range from that percentile of |value| instead of
    the extreme values, so a few outliers cannot wash the rest out; the caption says how many values lie
    beyond it (they show in the end colours, and the hover and downloads keep their true values).
    """
    full = np.asarray(z)
    rows, cols = full.shape
    sr, sc = stride_for(rows, MAX_HEATMAP_ROWS), stride_for(cols, MAX_HEATMAP_COLS)
    numeric = np.issubdtype(full.dtype, np.number) and not np.issubdtype(full.dtype, np.complexfloating)
    shown = block_mean(full, sr, sc) if numeric else full[::sr, ::sc]  # (ceil(rows/sr), ceil(cols/sc))
    xs, ys = _axis_values(x, cols)[::sc], _axis_values(y, rows)[::sr]
    # the colour range comes from every value, not the block means: averaging shrinks the extremes, and the
    # colour bar should say what the data holds
    finite = full[np.isfinite(full)] if np.issubdtype(full.dtype, np.floating) else np.asarray(shown)
    hover_name = f"{value_name} (mean of {sr} x {sc})" if numeric and (sr > 1 or sc > 1) else value_name
    if signed is None:
        signed = bool(finite.size and finite.min() < 0 < finite.max())
    trace = dict(z=_f32(shown), x=xs, y=ys, colorscale=colorscale or (DIVERGING if signed else SEQUENTIAL),
                 hovertemplate=f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{hover_name}: %{{z:{hover_format}}}"
                               "<extra></extra>", colorbar=dict(title=dict(text=value_name, side="right")))
    clipped_note = ""
    if robust is not None and zrange is None and finite.size:
        # a large matrix keeps its own dtype (a float32 upload's copies stay float32); the percentile may then
        # partition its own copy in place: the counts below do not depend on the order
        large = full.size > LARGE_MATRIX
        values = finite if large else np.asarray(full, dtype=np.float64)[np.isfinite(full)]
        if signed:
            magnitudes = np.abs(values)
            bound = float(np.percentile(magnitudes, robust, overwrite_input=large)) or 1.0
            zrange, beyond = (-bound, bound), int(np.count_nonzero(magnitudes > bound))
        else:
            ranked = values.copy() if large else values
            low, high = (float(v) for v in np.percentile(ranked, [100 - robust, robust], overwrite_input=large))
            zrange, beyond = (low, high if high > low else low + 1.0), int(np.sum((values < low) | (values > high)))
        clipped_note = (f"Colour range {zrange[0]:.3g} to {zrange[1]:.3g}: the {robust:g}th percentile of the "
                        f"values, so that {beyond:,} outlying values of {values.size:,} do not wash out the rest; "
                        "they show in the end colours.")
    if signed and zrange is None and finite.size:
        bound = float(np.abs(finite).max()) or 1.0
        trace.update(zmin=-bound, zmax=bound)
    elif zrange is not None:
        trace.update(zmin=zrange[0], zmax=zrange[1])
    # One constructor call: plotly validates once, not once per update_* call.
    fig = go.Figure(data=[go.Heatmap(**trace)], layout=dict(
        title=dict(text=title), height=height, xaxis=dict(title=dict(text=x_title)),
        yaxis=dict(title=dict(text=y_title), autorange="reversed" if reverse_y else True)))
    for x0, x1, label in shade_cols:
        # a neutral grey veil: white would read as pink over a red map on a dark page; the label keeps the
        # template's ink on a translucent grey, legible on both themes
        fig.add_vrect(x0=x0, x1=x1, fillcolor="#808080", opacity=0.45, line=dict(color="#888888", width=1.5,
                      dash="dash"), annotation_text=label, annotation_position="top left",
                      annotation=dict(bgcolor="rgba(128,128,128,0.35)"))
    note = ""
    if sr > 1 or sc > 1:
        note = (f"Each cell is the mean of a block of {sr} x {sc} values ({shown.shape[0]} x {shown.shape[1]} "
                f"cells for {rows:,} x {cols:,} values; axes label each block's first row and column), so fast "
                "patterns finer than a cell average out instead of showing false stripes; the download has "
                "every value.")
    note = " ".join(part for part in (note, clipped_note) if part)
    return Chart(fig, alt, name, matrix=full, note=note)


BAR_PATTERNS = ("", "/", ".", "x", "\\", "+", "-", "|")
SPARSE_MARKERS = 12  # shapes along a curve that only needs them to be told apart from its neighbours


def _series_marker(symbol: str, colour: str, *, every_point: bool, alone: bool) -> dict:
    """Each curve of a figure with several also differs by its marker shape, not only by colour (WCAG 1.4.1);
    curves drawn without points show a dozen of them, spread along the curve, in the legend too."""
    if alone:
        return dict(color=colour)
    marker = dict(color=colour, symbol=symbol, size=7)
    return marker if every_point else {**marker, "maxdisplayed": SPARSE_MARKERS}


@figure_cache.builder
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
            x=_f32(x[::step]), y=_f32(np.asarray(series[label])[::step]), name=label, legendrank=1000 + order[label],
            mode="lines+markers" if markers or len(series) > 1 else "lines",
            line=dict(color=colour, width=width, dash=dash),
            marker=_series_marker(symbols[label], colour, every_point=markers, alone=len(series) == 1),
            hovertemplate=f"{label}<br>{x_title}: %{{x}}<br>{y_title}: %{{y:{hover_format}}}<extra></extra>"))

    # the reference lines count too: the axis stretches to show them, and their ticks must read right
    def span(arrays, marks):
        return np.concatenate([np.ravel(np.asarray(a, dtype=np.float64)) for a in arrays]
                              + [np.asarray([v for v, _ in marks], dtype=np.float64)])

    x_axis = dict(title=dict(text=x_title), type="log" if log_x else "linear",
                  **(_decade_ticks(span([x], vlines)) if log_x else {}))
    y_axis = dict(title=dict(text=y_title), type="log" if log_y else "linear",
                  **(_decade_ticks(span(series.values(), hlines)) if log_y else {}))
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
    note = (f"Plotting every {ordinal(step)} point of {x.shape[0]:,}; the download has all of them."
            if step > 1 else "")
    # the shade's label keeps the top row; the lines' labels start one row lower (on a narrow phone chart a line
    # label on the same row ran into it)
    return reference_lines(Chart(fig, alt, name, table=table, note=note), hlines=hlines, vlines=vlines,
                           first_row=1 if shade_x is not None and shade_x[2] else 0)


@figure_cache.builder
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
        traces.append(go.Bar(**{cat: categories, val: _f32(values)}, name=label, marker=marker,
                             orientation="h" if horizontal else "v",
                             hovertemplate=f"{label}<br>{x_title}: %{{{cat}}}<br>{y_title}: %{{{val}:{hover_format}}}"
                                           "<extra></extra>"))
    value_axis = dict(title=dict(text=y_title), type="log" if log_y else "linear",
                      **(_decade_ticks(np.concatenate([np.ravel(np.asarray(v, dtype=np.float64))
                                                       for v in series.values()])) if log_y else {}),
                      **({"range": list(y_range)} if y_range else {}))
    category_axis = dict(title=dict(text=x_title), **({"automargin": True} if horizontal else {}))
    axes = {f"{cat}axis": category_axis, f"{val}axis": value_axis}
    fig = go.Figure(data=traces, layout=dict(title=dict(text=title), height=height, barmode="group", bargap=0.15,
                                             **axes))
    return Chart(fig, alt, name, table={x_title: categories, **{k: np.asarray(v) for k, v in series.items()}})


@figure_cache.builder
def vectors2d(vectors: Mapping[str, tuple[float, float]], *, title: str, alt: str, name: str,
              arcs: Sequence[tuple[float, float, float, str]] = (), height: int = 420,
              dashed: Sequence[str] = (), guides: Sequence[tuple[tuple[float, float], tuple[float, float], str]] = (),
              x_title: str = "x (first of the pair)", y_title: str = "y (second of the pair)",
              colours: Mapping[str, int] | None = None, arc_colours: Sequence[int] = (),
              legend_right: bool = False, reach: float | None = None) -> Chart:
    """Arrows from the origin in a square, equal-aspect plane; arcs are (radius, from, to angle, label).

    The plane fits the longest arrow, or shows radius ``reach`` whatever the arrows: a plane whose arrows are
    dragged (page_kit.figure_control) must keep its scale, or a redraw during the drag moves the point under the hand.

    Vectors named in ``dashed`` are drawn dashed (e.g. before a rotation); ``guides`` are dotted
    segments ((x0, y0), (x1, y1), label), e.g. a projection onto an axis. ``colours`` maps a vector's
    label to a palette index (so a vector and its rotated copy can share a colour), ``arc_colours``
    does the same for the arcs, in order; ``legend_right`` stacks the legend beside the plot.
    """
    fig = go.Figure()
    extent = (reach if reach is not None else max([1.0] + [float(np.hypot(*v)) for v in vectors.values()])) * 1.15
    theta = np.linspace(0, 2 * np.pi, 181)
    fig.add_trace(go.Scatter(x=_f32(np.cos(theta)), y=_f32(np.sin(theta)), mode="lines", hoverinfo="skip",
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
        fig.add_trace(go.Scatter(x=_f32(radius * np.cos(t)), y=_f32(radius * np.sin(t)), mode="lines",
                                 name=label, line=dict(width=1.5, dash="dot", color=arc_colour), hoverinfo="name"))
    for (x0, y0), (x1, y1), label in guides:
        fig.add_trace(go.Scatter(x=[x0, x1], y=[y0, y1], mode="lines+markers", name=label,
                                 line=dict(color="#666666", width=1.5, dash="dot"),
                                 marker=dict(size=[0, 8], symbol="diamond", color="#666666"),
                                 hovertemplate=f"{label}<br>x: %{{x:.3f}}<br>y: %{{y:.3f}}<extra></extra>"))
    _base_layout(fig, title, x_title, y_title, height)
    if legend_right:
        fig.update_layout(legend=dict(orientation="v", x=1.02, xanchor="left", y=1.0, yanchor="top"),
                          margin=dict(r=190))  # room for labels such as "q̃ = R(mθ) q"
    fig.update_xaxes(range=[-extent, extent], zeroline=True)
    fig.update_yaxes(range=[-extent, extent], scaleanchor="x", scaleratio=1, zeroline=True)
    table = {"vector": np.array(list(vectors)), "x": np.array([v[0] for v in vectors.values()]),
             "y": np.array([v[1] for v in vectors.values()])}
    return Chart(fig, alt, name, table=table)


PANEL_TITLE = "panel_title"  # page_kit/figure_fit.js fits these to their panel's width


@figure_cache.builder
def small_multiples(grids: Sequence[np.ndarray], titles: Sequence[str], *, title: str, alt: str, name: str,
                    cols: int = 4, signed: bool | None = None, value_name: str = "value",
                    x_title: str = "key", y_title: str = "query", cell_px: int = 190,
                    hover_format: str = ".3f", max_side: int | None = None,
                    margin: Mapping[str, int] | None = None, zrange: tuple[float, float] | None = None) -> Chart:
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
    shown = block_mean(stack, step, step)  # (panels, ceil(rows/step), ceil(cols/step))
    finite = stack[np.isfinite(stack)]  # colour range from every value, not the shrunken block means
    if signed is None:
        signed = bool(finite.size and finite.min() < 0 < finite.max())
    if zrange is not None:  # shared with other figures of the same quantity
        zmin, zmax = float(zrange[0]), float(zrange[1])
    elif signed and finite.size:
        bound = float(np.abs(finite).max()) or 1.0
        zmin, zmax = -bound, bound
    else:
        zmin, zmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    # Axes laid out by hand: plotly's make_subplots plus per-panel add_trace costs ~5x more server time.
    # gaps shrink with the number of panels so that they never take more than a quarter of the figure
    h_gap, v_gap = min(0.03, 0.25 / max(cols - 1, 1)), min(0.08, 0.25 / max(nrows - 1, 1))
    width, height = (1 - h_gap * (cols - 1)) / cols, (1 - v_gap * (nrows - 1)) / nrows
    axes, annotations, traces = {}, [], []
    for i in range(n):
        r, c = divmod(i, cols)
        x0, top = c * (width + h_gap), 1 - r * (height + v_gap)
        suffix = "" if i == 0 else str(i + 1)
        axes[f"xaxis{suffix}"] = dict(domain=[max(0.0, x0), min(1.0, x0 + width)], anchor=f"y{suffix}")
        axes[f"yaxis{suffix}"] = dict(domain=[max(0.0, top - height), min(1.0, top)], anchor=f"x{suffix}")
        # named, so the chart element can break it again to the panel's width on a narrow screen
        annotations.append(dict(text=wrap_label(titles[i], 90 // cols), x=x0 + width / 2, y=top, xref="paper",
                                yref="paper", xanchor="center", yanchor="bottom", showarrow=False,
                                name=PANEL_TITLE))
        # every panel gets its axis title and a few ticks in data units (block starts when decimated),
        # so a small multiple reads on its own; titles only along the bottom row and the left column
        bottom = i + cols >= n  # nothing below this panel: its x labels cannot meet a panel title
        axes[f"xaxis{suffix}"].update(title=dict(text=x_title if bottom else "", standoff=2), nticks=5,
                                      tickfont=dict(size=10), showticklabels=bottom)
        axes[f"yaxis{suffix}"].update(title=dict(text=y_title if c == 0 else "", standoff=2), nticks=5,
                                      tickfont=dict(size=10), showticklabels=c == 0, autorange="reversed")
        traces.append(go.Heatmap(z=_f32(shown[i]), x=np.arange(shown.shape[2]) * step,
                                 y=np.arange(shown.shape[1]) * step,
                                 coloraxis="coloraxis", xaxis=f"x{suffix}", yaxis=f"y{suffix}",
                                 hovertemplate=f"{titles[i]}<br>{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>"
                                               f"{value_name}: %{{z:{hover_format}}}<extra></extra>"))
    # the whole layout at once: each update_layout walks plotly's property tree (a fifth of a build's time)
    fig = go.Figure(data=traces, layout=dict(
        **axes, annotations=annotations, title=dict(text=title), height=int(nrows * cell_px + 90),
        coloraxis=dict(colorscale=DIVERGING if signed else SEQUENTIAL, cmin=zmin, cmax=zmax,
                       colorbar=dict(title=dict(text=value_name, side="right"))),
        margin=dict(l=56, b=44) | dict(margin or {})))
    note = (f"Each panel cell is the mean of a {step} x {step} block of values (axes label each block's first "
            "row and column)." if step > 1 else "")
    return Chart(fig, alt, name, matrix=stack, note=note)


BAND_COLORS = {"extrapolated": "#0072B2", "blended": "#E69F00", "interpolated": "#009E73"}  # Okabe & Ito


@figure_cache.builder
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


@figure_cache.builder
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


@figure_cache.step
def hand_drags(chart: Chart) -> Chart:
    """A drag on the plot moves what the page lets the hand move (figure_control), not a zoom box."""
    chart.figure.update_layout(dragmode=False)
    return chart


@figure_cache.step
def axis_settings(chart: Chart, axis: str, **settings) -> Chart:
    """Settings for every ``axis`` ("x" or "y") axis that the builders do not take (category ticks, a tick format),
    as a kit step: the chart keeps its place in the figure cache, where ``chart.figure`` would lose it."""
    if axis not in ("x", "y"):
        raise ValueError("Axis settings are for the x or the y axes.")
    getattr(chart.figure, f"update_{axis}axes")(**settings)
    return chart


@figure_cache.step
def roomy(chart: Chart) -> Chart:
    """Room for log-axis tick labels and a legend below the plot, so long legends never cover the title."""
    chart.figure.update_xaxes(automargin=True)
    chart.figure.update_yaxes(automargin=True)
    # the legend sits at the bottom of the figure (container coordinates), and plotly grows the bottom margin
    # to fit it, so however many rows it wraps into it stays below the x-axis title
    chart.figure.update_layout(legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0,
                                           xref="container"),
                               height=max(chart.figure.layout.height or 380, 440), margin=dict(b=20))
    return chart


@figure_cache.builder
def roomy_lines(*args, **kwargs) -> Chart:
    """``lines`` with the room of ``roomy`` (log-axis tick labels, legend below)."""
    return roomy(lines(*args, **kwargs))


@figure_cache.step
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


@dataclass(frozen=True)
class FlowNode:
    """A box in a flow diagram: centre (x, y) in diagram units, its text, and a kind that picks its colour."""

    x: float
    y: float
    text: str
    kind: str = "data"  # "data", "weights" (learned), "fixed" (no parameters), "op"
    width: float = 1.5
    height: float = 0.62


FLOW_COLOURS = {"data": "#E8F1FA", "weights": "#FBE3C2", "fixed": "#D4EFE4", "op": "#EEEEEE"}
FLOW_KIND_LABELS = {"data": "activations", "weights": "learned weights", "fixed": "fixed, no parameters",
                    "op": "operation"}


ARROW_HEAD_PX = 11  # a flow diagram's arrowheads
# its arrows: a grey with at least 3:1 against both themes' paper (the notes beside them take the template's ink)
FLOW_ARROW = "#767676"


@figure_cache.builder
def flow_diagram(nodes: Mapping[str, FlowNode], edges: Sequence[tuple[str, str] | tuple[str, str, str]], *,
                 title: str, alt: str, name: str, height: int = 420,
                 notes: Sequence[tuple[float, float, str]] = (), design_px: int = 780) -> Chart:
    """Boxes joined by arrows (a small computation graph), drawn with shapes so it exports like any figure.

    ``edges`` are (from, to) or (from, to, label); ``notes`` are free text (x, y, text). Box colours
    say what a box is (learned weights, fixed maps, activations), with a legend.
    """
    # Shapes and annotations are collected as plain dicts and set once: plotly's add_shape/add_annotation
    # validate and copy the whole layout on every call, which costs about 30 ms per box here.
    shapes, annotations = [], []
    for node in nodes.values():
        shapes.append(dict(type="rect", x0=node.x - node.width / 2, x1=node.x + node.width / 2,
                           y0=node.y - node.height / 2, y1=node.y + node.height / 2, layer="below",
                           fillcolor=FLOW_COLOURS.get(node.kind, FLOW_COLOURS["op"]),
                           line=dict(color="#555555", width=1.2)))
        annotations.append(dict(x=node.x, y=node.y, text=node.text, showarrow=False, font=dict(color="#1a1a1a")))
    # The arrows are one line trace whose segment ends carry arrow markers turned along the segment
    # (angleref="previous"): Plotly draws an annotation arrow by measuring its SVG path, which made every redraw of
    # a 14-arrow diagram cost about 80 ms in the browser, against about 35 ms this way.
    arrow_x, arrow_y, arrow_size = [], [], []
    for edge in edges:
        start, end = nodes[edge[0]], nodes[edge[1]]
        dx, dy = end.x - start.x, end.y - start.y
        # leave each box through the side facing the other box
        if abs(dx) * start.height >= abs(dy) * start.width:
            x0, y0 = start.x + np.sign(dx) * start.width / 2, start.y
            x1, y1 = end.x - np.sign(dx) * end.width / 2, end.y
        else:
            x0, y0 = start.x, start.y + np.sign(dy) * start.height / 2
            x1, y1 = end.x, end.y - np.sign(dy) * end.height / 2
        arrow_x += [float(x0), float(x1), None]
        arrow_y += [float(y0), float(y1), None]
        arrow_size += [0, ARROW_HEAD_PX, 0]
        if len(edge) == 3 and edge[2]:
            annotations.append(dict(x=float(x0 + x1) / 2, y=float(y0 + y1) / 2, text=edge[2], showarrow=False,
                                    yshift=10, font=dict(size=11)))
    for x, y, text in notes:
        annotations.append(dict(x=x, y=y, text=text, showarrow=False, align="left", xanchor="left",
                                font=dict(size=12)))
    fig = go.Figure(layout=dict(shapes=shapes, annotations=annotations))
    fig.add_trace(go.Scatter(x=arrow_x, y=arrow_y, mode="lines+markers", line=dict(color=FLOW_ARROW, width=1.6),
                             marker=dict(symbol="arrow", size=arrow_size, angleref="previous", color=FLOW_ARROW,
                                         standoff=ARROW_HEAD_PX / 2),
                             hoverinfo="skip", showlegend=False, name="arrows"))
    for kind in dict.fromkeys(node.kind for node in nodes.values()):  # legend entries, in order of first use
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=FLOW_KIND_LABELS.get(kind, kind),
                                 marker=dict(symbol="square", size=14, color=FLOW_COLOURS.get(kind),
                                             line=dict(color="#555555", width=1))))
    # the boxes' own edges bound the drawing, and a note (written rightwards from its x) starts inside it
    left = min([n.x - n.width / 2 for n in nodes.values()] + [x for x, _, _ in notes]) - 0.3
    right = max([n.x + n.width / 2 + 0.3 for n in nodes.values()] + [n.x + 1.0 for n in nodes.values()])
    ys = [n.y for n in nodes.values()] + [y for _, y, _ in notes]
    _base_layout(fig, title, "", "", height)
    fig.update_xaxes(visible=False, range=[left, right])
    fig.update_yaxes(visible=False, range=[min(ys) - 0.7, max(ys) + 0.7])
    # meta.design_px: the chart width its boxes were sized for at 13 px text (page_kit/figure_fit.js scales
    # the text to wider charts and lets narrower ones scroll)
    fig.update_layout(plot_bgcolor="rgba(0,0,0,0)", margin=dict(l=10, r=10, t=56, b=40),  # no axes to label
                      legend=dict(orientation="h", x=0.0, y=-0.02, yanchor="top"), meta=dict(design_px=design_px))
    table = {"box": np.array(list(nodes)), "text": np.array([n.text for n in nodes.values()]),
             "kind": np.array([n.kind for n in nodes.values()])}
    return Chart(fig, alt, name, table=table)


@figure_cache.builder
def mosaic(maps, *, title: str, alt: str, name: str, value_name: str = "value", signed: bool | None = None,
           zrange: tuple[float, float] | None = None, gap: int = 1, highlight: int | None = None,
           height: int = 640, hover_format: str = ".3f", outer: str = "patch", inner: str = "patch") -> Chart:
    """Small multiples drawn as ONE heatmap: maps (P, h, w) with P = h * w (or any P = R * C laid out
    on the (h, w) grid) are tiled into one image with NaN gaps between panels, so the browser draws a
    single trace instead of P subplots (a 14 x 14 grid is 196 panels). Panel q sits at grid cell
    (q // w, q % w), like the ViT paper's figure of position-embedding similarities. Hover names both
    the panel (outer) and the cell inside it (inner); `highlight` outlines one panel."""
    stack = np.asarray(maps, dtype=np.float64)
    if stack.ndim != 3:
        raise ValueError("mosaic needs a (panels, rows, cols) stack of maps.")
    panels, h, w = stack.shape
    grid_rows, grid_cols = (h, w) if panels == h * w else (-(-panels // max(1, int(np.sqrt(panels)))),
                                                           max(1, int(np.sqrt(panels))))
    tile_h, tile_w = h + gap, w + gap
    canvas = np.full((grid_rows * tile_h - gap, grid_cols * tile_w - gap), np.nan)
    for q in range(panels):
        r, c = divmod(q, grid_cols)
        canvas[r * tile_h:r * tile_h + h, c * tile_w:c * tile_w + w] = stack[q]
    sr, sc = stride_for(canvas.shape[0], MAX_HEATMAP_ROWS), stride_for(canvas.shape[1], MAX_HEATMAP_COLS)
    if sr > 1 or sc > 1:
        raise ValueError(f"A mosaic shows at most {MAX_HEATMAP_ROWS} x {MAX_HEATMAP_COLS} cells; "
                         "use a smaller grid.")
    finite = canvas[np.isfinite(canvas)]
    if signed is None:
        signed = bool(finite.size and finite.min() < 0 < finite.max())
    # The hover readout names the panel and the cell inside it. Category labels on the axes carry it
    # (a few KB), where a per-cell customdata array would triple the payload.
    def labels(n_panels: int, size: int, tile: int, axis: str) -> list[str]:
        return [f"{outer} {axis} {i // tile}, {inner} {axis} {i % tile}" if i % tile < size else " " * (i + 1)
                for i in range(n_panels * tile - gap)]

    xs, ys = labels(grid_cols, w, tile_w, "col"), labels(grid_rows, h, tile_h, "row")
    trace = dict(z=_f32(canvas), x=xs, y=ys, hoverongaps=False, colorscale=DIVERGING if signed else SEQUENTIAL,
                 hovertemplate=f"%{{y}}<br>%{{x}}<br>{value_name}: %{{z:{hover_format}}}<extra></extra>",
                 colorbar=dict(title=dict(text=value_name, side="right")))
    if zrange is not None:
        trace.update(zmin=zrange[0], zmax=zrange[1])
    elif signed and finite.size:
        bound = float(np.abs(finite).max()) or 1.0
        trace.update(zmin=-bound, zmax=bound)
    fig = go.Figure(go.Heatmap(**trace))
    _base_layout(fig, title, f"{outer} column (inside each panel: {inner} column)",
                 f"{outer} row (inside each panel: {inner} row)", height)
    every = max(1, grid_cols // 16)
    fig.update_xaxes(type="category", tickvals=[xs[c * tile_w + w // 2] for c in range(0, grid_cols, every)],
                     ticktext=[str(c) for c in range(0, grid_cols, every)], showgrid=False, zeroline=False,
                     constrain="domain")
    fig.update_yaxes(type="category", tickvals=[ys[r * tile_h + h // 2] for r in range(0, grid_rows, every)],
                     ticktext=[str(r) for r in range(0, grid_rows, every)], showgrid=False, zeroline=False,
                     autorange="reversed", scaleanchor="x", scaleratio=1)
    if highlight is not None and 0 <= highlight < panels:
        r, c = divmod(highlight, grid_cols)
        fig.add_shape(type="rect", x0=c * tile_w - 0.5 - gap / 2, x1=c * tile_w + w - 0.5 + gap / 2,
                      y0=r * tile_h - 0.5 - gap / 2, y1=r * tile_h + h - 0.5 + gap / 2,
                      line=dict(color=CATEGORICAL[1], width=2.5))
    fig.update_layout(margin=dict(l=64, b=56))
    return Chart(fig, alt, name, matrix=stack)


def _cross(x, y, label: str, colour: str, **axes) -> go.Scatter:
    """A labelled cross on one cell, drawn over a heatmap (``axes``: xaxis/yaxis of a small-multiples panel)."""
    return go.Scatter(x=[x], y=[y], mode="markers", name=label, showlegend=False,
                      hovertemplate=f"{label}<extra></extra>",
                      marker=dict(symbol="x-thin", size=14, line=dict(width=3, color=colour)), **axes)


@figure_cache.builder
def marked_heatmap(z, marks: Sequence[tuple[float, float, str]], **kwargs) -> Chart:
    """A heatmap with labelled markers (x, y, label) on top, e.g. the patch a similarity map is about."""
    chart = heatmap(z, **kwargs)
    for i, (mx, my, label) in enumerate(marks):
        chart.figure.add_trace(_cross(mx, my, label, CATEGORICAL[(i + 1) % len(CATEGORICAL)]))
    return padded(chart)


@figure_cache.step
def mark_panels(chart: Chart, x: int, y: int, label: str) -> Chart:
    """The same labelled marker on cell (x = column, y = row) of every panel of a ``small_multiples`` chart,
    e.g. the query patch on several score maps; it follows the panels' decimation."""
    panels = [t for t in chart.figure.data if isinstance(t, go.Heatmap)]
    step = -(-chart.matrix.shape[1] // len(panels[0].z))  # rows kept per panel -> block size used
    for trace in panels:  # panels are drawn in data units, block starts when decimated
        chart.figure.add_trace(_cross(x // step * step, y // step * step, label, CATEGORICAL[1],
                                      xaxis=trace.xaxis, yaxis=trace.yaxis))
    return chart


@figure_cache.step
def mark_diagonal(chart: Chart, offset: int) -> Chart:
    """A dotted line over the cells with row - column = ``offset`` of a square heatmap (query m, key n)."""
    n = chart.matrix.shape[0]
    chart.figure.add_shape(type="line", x0=max(0, -offset) - 0.5, y0=max(0, offset) - 0.5,
                           x1=n - 1 - max(0, offset) + 0.5, y1=n - 1 - max(0, -offset) + 0.5,
                           line=dict(color="#111111", width=2, dash="dot"))
    return chart


@figure_cache.step
def padded(chart: Chart, left: int = 64, bottom: int = 56, top: int | None = None) -> Chart:
    """Room for tick labels and axis titles (the template's 10 px margins with automargin off clip them);
    a larger `top` leaves room for a legend above a long title."""
    chart.figure.update_layout(margin=dict(l=left, b=bottom, **({} if top is None else {"t": top})))
    return chart


SQUARE_PLOT_PX = 520  # a laptop's figure column (about 700 px) less the axis margins and a colour bar
SQUARE_MAX_PX = 560


@figure_cache.step
def square_panels(chart: Chart) -> Chart:
    """Keep every heatmap panel's cells square (images and grids should not look stretched).

    A square panel is as tall as it is wide, so a row of one or two panels needs more height than the kit's
    per-row default to use the column's width: the figure is made tall enough for panels as wide as their share
    of a laptop's figure column (up to SQUARE_MAX_PX). A projector or a phone then fits it to its room
    (figure_fit.js), where the panels fill what the screen has instead of a third of it."""
    fig = chart.figure
    layout = fig.layout
    shapes = {(t.xaxis or "x"): np.shape(t.z) for t in fig.data if getattr(t, "z", None) is not None}
    plot_px = 0.0  # the plot height that makes every panel as wide as its domain
    for name in [k for k in layout if k.startswith("yaxis")]:
        suffix = name[len("yaxis"):]
        layout[name].update(scaleanchor=f"x{suffix}", scaleratio=1, constrain="domain")
        layout[f"xaxis{suffix}"].update(constrain="domain")
        x_domain, y_domain = layout[f"xaxis{suffix}"].domain, layout[name].domain
        shape = shapes.get(f"x{suffix}")
        if x_domain and y_domain and shape and len(shape) == 2 and min(shape) > 0:
            wide = SQUARE_PLOT_PX * (x_domain[1] - x_domain[0])
            plot_px = max(plot_px, wide * shape[0] / shape[1] / (y_domain[1] - y_domain[0]))
    margin = layout.margin
    height = min(SQUARE_MAX_PX, int(plot_px + (margin.t if margin.t is not None else 100) + (margin.b or 44)))
    if height > (layout.height or 0):
        layout.height = height
    return chart


def similarity_range(*maps) -> tuple[tuple[float, float], bool]:
    """A shared colour range for similarity maps that compare honestly: up to 1, down to the lowest value;
    symmetric (-1, 1) with the diverging map when any value is negative."""
    low = min(float(np.nanmin(m)) for m in maps)
    return ((-1.0, 1.0), True) if low < 0 else ((low, 1.0), False)


@figure_cache.builder
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
