"""The Chart every figure builder returns, and the steps every kind of figure shares: axes, ticks, series styles,
room, reference lines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

from page_kit.figures import cache
from page_kit.figures.theme import (
    CATEGORICAL,
    series_style,
)
from page_kit.i18n import current


@dataclass(eq=False)
class Chart:
    """A built figure plus what the page shows around it.

    ``built`` is the plotly figure, or None while a chart that came from the shared cache (figures.cache) has
    not needed it: a page that only shows it sends the cached JSON. ``key`` and ``recipe`` say how it was made.
    """

    built: go.Figure | None
    alt: str
    name: str  # file stem for downloads
    table: dict[str, np.ndarray] = field(default_factory=dict)  # columns for the CSV
    matrix: np.ndarray | None = None  # full-resolution matrix for the .npy download
    note: str = ""  # e.g. "showing every 4th row"
    frames: dict | None = None  # precomputed frames for a scrub bar and Play (figures.animation.frames_payload)
    control: dict | None = None  # what a click or a drag on the figure sets (figure_control)
    key: str | None = None  # the recipe's digest: the view this figure shows (figures.cache)
    recipe: tuple = ()  # (function, args, kwargs): the builder, then each kit step
    ahead: object = None  # frames for the slider under the hand (page_kit.chart.hero_frames.Ahead)

    @property
    def figure(self) -> go.Figure:
        """The plotly figure, to change: the chart no longer matches its cached recipe, so it loses its key."""
        self.key = None
        return self.materialised()

    def materialised(self) -> go.Figure:
        """The plotly figure, built now if the chart came from the cache; for reading, it keeps the key."""
        if self.built is None:
            self.built = cache.rebuild(self.recipe)
        return self.built


def stride_for(n: int, cap: int) -> int:
    return max(1, -(-n // cap))  # ceil(n / cap)


def ordinal(n: int) -> str:
    """``n`` as an ordinal in the reader's language: 1st, 2nd, 3rd, 11th, 21st in English; 2.º in Spanish; the bare
    number in Chinese, whose sentence carries the counter word."""
    n = int(n)
    language = current().code
    if language == "es":
        return f"{n}.º"
    if language != "en":
        return str(n)
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


def as_f32(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32))


def axis_values(values, n):
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


def decade_ticks(values) -> dict:
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


def base_layout(fig: go.Figure, title: str, x_title: str, y_title: str, height: int) -> go.Figure:
    fig.update_layout(title=dict(text=title), height=height, xaxis=dict(title=dict(text=x_title)),
                      yaxis=dict(title=dict(text=y_title)))
    return fig


@cache.step
def hand_drags(chart: Chart) -> Chart:
    """A drag on the plot moves what the page lets the hand move (figure_control), not a zoom box."""
    chart.figure.update_layout(dragmode=False)
    return chart


@cache.step
def axis_settings(chart: Chart, axis: str, **settings) -> Chart:
    """Settings for every ``axis`` ("x" or "y") axis that the builders do not take (category ticks, a tick format),
    as a kit step: the chart keeps its place in the figure cache, where ``chart.figure`` would lose it."""
    if axis not in ("x", "y"):
        raise ValueError("Axis settings are for the x or the y axes.")
    getattr(chart.figure, f"update_{axis}axes")(**settings)
    return chart


@cache.step
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


@cache.step
def padded(chart: Chart, left: int = 64, bottom: int = 56, top: int | None = None) -> Chart:
    """Room for tick labels and axis titles (the template's 10 px margins with automargin off clip them);
    a larger `top` leaves room for a legend above a long title."""
    chart.figure.update_layout(margin=dict(l=left, b=bottom, **({} if top is None else {"t": top})))
    return chart
