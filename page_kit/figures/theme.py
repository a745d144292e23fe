"""Colours and plotly templates: explicit, colour-blind-safe, identical on screen and in exports."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio
from plotly.io.json import to_json_plotly

# ColorBrewer RdBu (11 classes), blue for negative, red for positive; readable with the common
# colour-vision deficiencies. Signed maps are always centred at zero (zmid=0).
DIVERGING = [
    [0.0, "#053061"], [0.1, "#2166ac"], [0.2, "#4393c3"], [0.3, "#92c5de"], [0.4, "#d1e5f0"],
    [0.5, "#f7f7f7"], [0.6, "#fddbc7"], [0.7, "#f4a582"], [0.8, "#d6604d"], [0.9, "#b2182b"],
    [1.0, "#67001f"],
]
# viridis: perceptually uniform and colour-blind safe, for magnitudes and counts.
SEQUENTIAL = [
    [0.0, "#440154"], [0.125, "#472d7b"], [0.25, "#3b528b"], [0.375, "#2c728e"], [0.5, "#21918c"],
    [0.625, "#28ae80"], [0.75, "#5ec962"], [0.875, "#addc30"], [1.0, "#fde725"],
]
# Twilight: a cyclic map whose two ends meet, for angles (0 and 2 pi are the same colour).
CYCLIC = [
    [0.0, "#e2d9e2"], [0.111, "#9ebbc9"], [0.222, "#6785be"], [0.333, "#5e43a5"], [0.444, "#421257"],
    [0.556, "#471340"], [0.667, "#8e2c50"], [0.778, "#ba6657"], [0.889, "#ceac94"], [1.0, "#e2d9e2"],
]
# Okabe & Ito's palette for categorical series (lines, bars).
CATEGORICAL = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

# Family names with spaces must be quoted: an unquoted "Source Sans 3" makes the browser reject the whole
# list (a name part may not start with a digit), and every figure falls back to the default serif font.
# Streamlit serves "Source Sans" to the page; an exported PNG cannot load page fonts, so it uses the next
# installed sans family in the list. Chinese characters come from the app's Noto Sans SC (page_kit/i18n/fonts.py).
FONT_FAMILY = '"Source Sans", "Noto Sans SC", "Source Sans Pro", "Source Sans 3", "DejaVu Sans", Arial, sans-serif'
FONT_NAMES = ("Source Sans", "Noto Sans SC", "Source Sans Pro", "Source Sans 3", "DejaVu Sans", "Arial", "sans-serif")


# The type scale of the screens the app is used on most, in one place (settings.screen_css hands them to the page
# as CSS variables, page_kit/chart/figure_fit.js raises any smaller figure text to them, tests/figure_check.js checks).
# A projector is read from the back of a room: nothing it shows is smaller than 16 px at 1,280 x 720; a phone is
# read at arm's length. FIRST_SCREEN is the share of the height a figure may take: the figure starts in the top
# 40% (tests/browser_views.FIRST_SCREEN_SHARE), so a figure of 60% less the phone's control dock ends on the
# first screen, above the dock.
MIN_TEXT_PX = {"present": 16, "phone": 10}
PHONE_DOCK_VH = 18
FIGURE_ROOM_VH = {"present": 60, "phone": 60 - PHONE_DOCK_VH}


@dataclass(frozen=True)
class SeriesStyle:
    """How one named thing (an encoding, a context-extension method, a reference curve) is drawn everywhere."""

    pattern: str  # regular expression searched in the lower-cased series label
    colour: str
    dash: str = "solid"  # plotly dash: solid, dash, dot, dashdot, longdash
    width: float = 2.2


# One registry for every figure: a series whose label names one of these things gets its colour and dash,
# whichever page draws it (and pages added later get them too). The first matching entry wins, so the more
# specific patterns come first ("dynamic ntk" before "ntk", "rope + yarn" matches YaRN, not RoPE).
# Okabe & Ito's colours for the encodings, solid; context-extension methods are never solid (each has its
# own dash) and take colours that stay apart from the encodings', so the Lab's nine models are nine distinct
# looks and "RoPE + a rule" reads as a variant of RoPE. Reference curves are grey and wide,
# drawn first, so a method that coincides with them leaves a visible halo.
SERIES_STYLES: tuple[SeriesStyle, ...] = (
    SeriesStyle(r"dynamic ntk", "#66A61E", "dot"),
    SeriesStyle(r"\bntk", "#A6761D", "longdash"),
    SeriesStyle(r"\byarn\b", "#7570B3", "dashdot", 2.6),
    SeriesStyle(r"llama ?3", "#E7298A", "longdashdot"),
    SeriesStyle(r"longrope", "#B15928", "6px,3px,2px,3px,2px,3px"),
    SeriesStyle(r"position interpolation|\bpi\b", "#56B4E9", "dash"),
    SeriesStyle(r"\bnope\b|^none\b|no positional encoding", "#7F7F7F", "dot"),
    SeriesStyle(r"\balibi\b", "#009E73"),
    SeriesStyle(r"\bt5\b", "#D55E00"),
    SeriesStyle(r"\bshaw\b", "#56B4E9", "dashdot"),
    SeriesStyle(r"sinusoidal", "#E69F00"),
    SeriesStyle(r"^learned absolute|^learned\b(?! scalar)", "#CC79A7"),
    SeriesStyle(r"^rope\b(?! \+)|^rope:|^rope \(", "#0072B2"),
    SeriesStyle(r"no scaling|^unscaled", "#9A9A9A", "dash", 3.4),
    SeriesStyle(r"^training\b", "#9A9A9A", "dot", 3.4),
    SeriesStyle(r"^target$", "#9A9A9A", "dash", 3.0),
)


# Marker shapes, so series differ by more than colour (WCAG 1.4.1; a grey print or a colour-blind reader):
# a registered series keeps the shape of its place in SERIES_STYLES on every page, other series take the next.
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "triangle-down", "cross", "star", "pentagon",
           "hexagon", "star-triangle-up", "hourglass", "bowtie", "triangle-left", "asterisk", "y-up")


def series_symbols(labels) -> dict[str, str]:
    """The marker shape of each series of one figure: a registered series keeps its own, the others take the
    shapes no series of this figure uses yet, in order."""
    def registered(label):
        text = str(label).lower()
        return next((i for i, style in enumerate(SERIES_STYLES) if re.search(style.pattern, text)), None)

    own = {label: registered(label) for label in labels}
    taken = {SYMBOLS[i % len(SYMBOLS)] for i in own.values() if i is not None}
    free = iter([s for s in SYMBOLS if s not in taken] or SYMBOLS)
    return {label: SYMBOLS[i % len(SYMBOLS)] if i is not None else next(free, SYMBOLS[0]) for label, i in own.items()}


def series_style(label: str) -> SeriesStyle | None:
    """The registered style of a named series, or None when the label names nothing in the registry."""
    text = str(label).lower()
    for style in SERIES_STYLES:
        if re.search(style.pattern, text):
            return style
    return None


def _template(dark: bool, presentation: bool) -> go.layout.Template:
    # Streamlit 1.67's own backgrounds, so figures sit flush on the page and exports look the same.
    ink = "#e8e6e3" if dark else "#262730"
    grid = "#3a3936" if dark else "#e5e7eb"
    paper = "#171614" if dark else "#ffffff"
    size = 19 if presentation else 13
    axis = dict(gridcolor=grid, zerolinecolor=grid, linecolor=grid, ticks="outside", tickcolor=grid,
                title=dict(font=dict(size=size + 1)), automargin=True)
    return go.layout.Template(layout=dict(
        font=dict(family=FONT_FAMILY, color=ink, size=size),
        # the title sits at the top of the figure and the legend row below it, above the plot, so they never overlap
        title=dict(font=dict(size=size + 3), x=0.0, xanchor="left", y=1.0, yanchor="top", yref="container",
                   pad=dict(t=8, l=10)),
        paper_bgcolor=paper, plot_bgcolor=paper, colorway=CATEGORICAL,
        xaxis=axis, yaxis=axis, margin=dict(l=10, r=10, t=78, b=10),
        hoverlabel=dict(font=dict(family=FONT_FAMILY, size=size)),
        legend=dict(bgcolor="rgba(0,0,0,0)", orientation="h", yanchor="bottom", y=1.02, x=0),
        coloraxis=dict(colorbar=dict(thickness=14, outlinewidth=0)),
    ))


for _dark in (False, True):
    for _present in (False, True):
        pio.templates[f"posenc_{'dark' if _dark else 'light'}{'_present' if _present else ''}"] = \
            _template(_dark, _present)


# Figures are built without a template and get the theme's when they are sent (figure_json): plotly copies and
# re-validates a whole template each time one is set, about 3 ms a figure, and a page built once is sent in
# four themes. No default template either, for the same reason.
pio.templates.default = None
_TOKEN = "__posenc_template__"


def template_name(dark: bool = False, presentation: bool = False) -> str:
    return f"posenc_{'dark' if dark else 'light'}{'_present' if presentation else ''}"


@functools.cache
def _template_json(name: str) -> str:
    return to_json_plotly(pio.templates[name].to_plotly_json())


def figure_json(figure: go.Figure, name: str) -> str:
    """The figure as the JSON plotly.js draws, with the template ``name`` (what ``pio.to_json`` gives for the
    figure with that template set, without building a template object per figure)."""
    spec = figure.to_dict()
    for trace in spec["data"]:
        trace.pop("uid", None)  # as pio.to_json(remove_uids=True)
    spec["layout"]["template"] = _TOKEN
    return to_json_plotly(spec).replace(f'"{_TOKEN}"', _template_json(name), 1)
