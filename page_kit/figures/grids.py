"""Figures of a grid of values: heatmaps, small multiples, mosaics, and the marks drawn on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from page_kit.figures import cache
from page_kit.figures.chart import Chart, as_f32, axis_values, base_layout, padded, stride_for, wrap_label
from page_kit.figures.theme import (
    CATEGORICAL,
    DIVERGING,
    SEQUENTIAL,
)
from page_kit.i18n import _, number

MAX_HEATMAP_ROWS = 480  # about the plot's height in pixels
MAX_HEATMAP_COLS = 960  # about the plot's width in pixels
BLOCK_MEAN_BAND = 1 << 18  # values block_mean converts to float64 at a time
LARGE_MATRIX = 1 << 20  # above this many values a heatmap's colour range is taken in the matrix's own dtype


def blank_masked(grid) -> np.ndarray:
    """A copy of ``grid`` with masked entries (-inf from a causal mask, or any non-finite value) as NaN.

    Heatmaps draw NaN as an empty cell, which is what a masked pair is: not a very negative score, but
    no score at all. Use it on bias and logit grids before handing them to a builder.
    """
    grid = np.array(grid, dtype=np.float64)
    grid[~np.isfinite(grid)] = np.nan
    return grid


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


def _robust_range(full: np.ndarray, finite: np.ndarray, signed: bool, robust: float) -> tuple[tuple[float, float], str]:
    """The colour range at the ``robust`` percentile of the values, and the caption that says how many lie beyond."""
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
    caption = _("Colour range {low:.3g} to {high:.3g}: the {robust:g}th percentile of the values, so that {beyond} "
                "outlying values of {size} do not wash out the rest; they show in the end colours.")
    return zrange, caption.format(low=zrange[0], high=zrange[1], robust=robust, beyond=number(beyond, 0),
                                  size=number(values.size, 0))


@cache.builder
def heatmap(z, *, title: str, x_title: str, y_title: str, alt: str, name: str, x=None, y=None,
            value_name: str = "value", signed: bool | None = None, zrange: tuple[float, float] | None = None,
            hover_format: str = ".4f", height: int = 420, colorscale=None, reverse_y: bool = True,
            shade_cols: Sequence[tuple[float, float, str]] = (), robust: float | None = None,
            colorbar_ticks: Sequence[tuple[float, str]] = ()) -> Chart:
    """A matrix as a heatmap; signed data gets the diverging map centred at zero.

    ``colorbar_ticks`` names values on the colour bar (value, label), e.g. the codes of a categorical map.

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
    xs, ys = axis_values(x, cols)[::sc], axis_values(y, rows)[::sr]
    # the colour range comes from every value, not the block means: averaging shrinks the extremes, and the
    # colour bar should say what the data holds
    finite = full[np.isfinite(full)] if np.issubdtype(full.dtype, np.floating) else np.asarray(shown)
    hover_name = f"{value_name} (mean of {sr} x {sc})" if numeric and (sr > 1 or sc > 1) else value_name
    if signed is None:
        signed = bool(finite.size and finite.min() < 0 < finite.max())
    trace = dict(z=as_f32(shown), x=xs, y=ys, colorscale=colorscale or (DIVERGING if signed else SEQUENTIAL),
                 hovertemplate=f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{hover_name}: %{{z:{hover_format}}}"
                               "<extra></extra>", colorbar=dict(title=dict(text=value_name, side="right")))
    if colorbar_ticks:
        trace["colorbar"].update(tickvals=[v for v, _ in colorbar_ticks], ticktext=[t for _, t in colorbar_ticks])
    clipped_note = ""
    if robust is not None and zrange is None and finite.size:
        zrange, clipped_note = _robust_range(full, finite, signed, robust)
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
        note = _("Each cell is the mean of a block of {sr} x {sc} values ({cell_rows} x {cell_cols} cells for {rows} x "
                 "{cols} values; axes label each block's first row and column), so fast patterns finer than a cell "
                 "average out instead of showing false stripes; the download has every value.").format(
            sr=sr, sc=sc, cell_rows=shown.shape[0], cell_cols=shown.shape[1], rows=number(rows, 0),
            cols=number(cols, 0))
    note = " ".join(part for part in (note, clipped_note) if part)
    return Chart(fig, alt, name, matrix=full, note=note)


PANEL_TITLE = "panel_title"  # page_kit/chart/figure_fit.js fits these to their panel's width


def _shared_range(stack: np.ndarray, signed: bool | None, zrange: tuple[float, float] | None
                  ) -> tuple[bool, tuple[float, float]]:
    """Whether the panels are signed, and the one colour range they share: from every value, not the shrunken
    block means, or ``zrange`` where other figures of the same quantity share it."""
    finite = stack[np.isfinite(stack)]
    if signed is None:
        signed = bool(finite.size and finite.min() < 0 < finite.max())
    if zrange is not None:
        return signed, (float(zrange[0]), float(zrange[1]))
    if signed and finite.size:
        bound = float(np.abs(finite).max()) or 1.0
        return signed, (-bound, bound)
    return signed, ((float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0))


@cache.builder
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
    signed, (zmin, zmax) = _shared_range(stack, signed, zrange)
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
        traces.append(go.Heatmap(z=as_f32(shown[i]), x=np.arange(shown.shape[2]) * step,
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
    note = (_("Each panel cell is the mean of a {step} x {step} block of values (axes label each block's first "
              "row and column).").format(step=step) if step > 1 else "")
    return Chart(fig, alt, name, matrix=stack, note=note)


@cache.builder
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
    trace = dict(z=as_f32(canvas), x=xs, y=ys, hoverongaps=False, colorscale=DIVERGING if signed else SEQUENTIAL,
                 hovertemplate=f"%{{y}}<br>%{{x}}<br>{value_name}: %{{z:{hover_format}}}<extra></extra>",
                 colorbar=dict(title=dict(text=value_name, side="right")))
    if zrange is not None:
        trace.update(zmin=zrange[0], zmax=zrange[1])
    elif signed and finite.size:
        bound = float(np.abs(finite).max()) or 1.0
        trace.update(zmin=-bound, zmax=bound)
    fig = go.Figure(go.Heatmap(**trace))
    base_layout(fig, title, f"{outer} column (inside each panel: {inner} column)",
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


@cache.builder
def marked_heatmap(z, marks: Sequence[tuple[float, float, str]], **kwargs) -> Chart:
    """A heatmap with labelled markers (x, y, label) on top, e.g. the patch a similarity map is about."""
    chart = heatmap(z, **kwargs)
    for i, (mx, my, label) in enumerate(marks):
        chart.figure.add_trace(_cross(mx, my, label, CATEGORICAL[(i + 1) % len(CATEGORICAL)]))
    return padded(chart)


@cache.step
def mark_panels(chart: Chart, x: int, y: int, label: str) -> Chart:
    """The same labelled marker on cell (x = column, y = row) of every panel of a ``small_multiples`` chart,
    e.g. the query patch on several score maps; it follows the panels' decimation."""
    panels = [t for t in chart.figure.data if isinstance(t, go.Heatmap)]
    step = -(-chart.matrix.shape[1] // len(panels[0].z))  # rows kept per panel -> block size used
    for trace in panels:  # panels are drawn in data units, block starts when decimated
        chart.figure.add_trace(_cross(x // step * step, y // step * step, label, CATEGORICAL[1],
                                      xaxis=trace.xaxis, yaxis=trace.yaxis))
    return chart


@cache.step
def mark_diagonal(chart: Chart, offset: int) -> Chart:
    """A dotted line over the cells with row - column = ``offset`` of a square heatmap (query m, key n)."""
    n = chart.matrix.shape[0]
    chart.figure.add_shape(type="line", x0=max(0, -offset) - 0.5, y0=max(0, offset) - 0.5,
                           x1=n - 1 - max(0, offset) + 0.5, y1=n - 1 - max(0, -offset) + 0.5,
                           line=dict(color="#111111", width=2, dash="dot"))
    return chart


SQUARE_PLOT_PX = 520  # a laptop's figure column (about 700 px) less the axis margins and a colour bar
SQUARE_MAX_PX = 560


@cache.step
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
