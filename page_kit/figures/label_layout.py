"""Where the labels of reference lines go, so that no two of them are ever drawn over each other.

Plotly places an annotation where it is told and never moves it out of another's way: two horizontal lines
a tenth of a decade apart on a log axis ("L 32,768" and "context 40,960") had their labels printed on top of
each other. The kit therefore places every label itself, in pixels, from a conservative model of the plot:

- the plot area is at most ``PLOT_SHARE`` of the figure's height (margins, titles, a legend take the rest),
  so two lines are treated as close when they might be, never the other way round;
- a label is ``LABEL_PX`` pixels high and ``CHAR_PX`` pixels per character wide, at the projector's font
  size (19 px), the largest the app uses;
- a vertical line's label takes its own row at the top of the plot (rows of ``LABEL_PX``), so those never
  meet whatever the width of the screen;
- a horizontal line's label sits on its line at the right edge; where it would meet a label placed before
  it, it moves left past that label (so a cluster of close lines reads right to left, each label on its own
  line), and where its line runs through the top rows it goes under the line instead.

Horizontal offsets are counted from the right edge, so they hold at any screen width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

PLOT_SHARE = 0.55  # the plot area's share of the figure height, a lower bound (a roomy legend takes more)
LABEL_PX = 30  # one label row: 19 px text on a projector, its 2 px padding and a gap
CHAR_PX = 11.5  # a character of 19 px Source Sans, wide digits included, with room to spare
GAP_PX = 6


@dataclass(frozen=True)
class Box:
    """A label's box in pixels: x from the plot's right edge leftwards (right = 0 is the edge), y upwards."""

    left: float
    right: float
    bottom: float
    top: float


def label_width(text: str) -> float:
    return CHAR_PX * len(text) + 8


# The smallest height figure_fit.js draws a figure at (FIGURE_MIN_PX) when it fits one to its room on a phone or
# a projector: a figure drawn shorter brings its lines closer in pixels than its own height says
SMALLEST_ROOM_PX = 240


def plot_height(figure_height: float) -> float:
    return PLOT_SHARE * min(figure_height, SMALLEST_ROOM_PX)


def axis_pixels(values: Sequence[float], low: float, high: float, height: float, log: bool) -> list[float]:
    """Pixel heights (from the plot's bottom) of ``values`` on an axis running from ``low`` to ``high``."""
    def unit(v: float) -> float:
        return math.log10(v) if log else v

    lo, hi = unit(low), unit(high)
    span = (hi - lo) or 1.0
    return [height * (unit(v) - lo) / span for v in values]


def place_hlines(pixels: Sequence[float], texts: Sequence[str], height: float, top_rows: int) -> list[dict]:
    """For each horizontal line (its pixel height and label) where its label goes.

    Returns, per label in the given order, ``{"xshift": px (<= 0), "below": bool, "yshift": px}``: the label is
    anchored at the right edge, on its line (above it, or under it when ``below``), moved by the shifts.
    """
    band = height - LABEL_PX * top_rows  # the rows of the vertical lines' labels start here
    placed: list[Box] = []
    out: list[dict] = [{}] * len(pixels)
    for i in sorted(range(len(pixels)), key=lambda k: pixels[k]):
        y, width = pixels[i], label_width(texts[i])
        below = y + LABEL_PX > band  # above its line it would meet the top rows (or leave the plot)
        yshift = 0.0
        bottom = y - LABEL_PX if below else y
        if below and bottom + LABEL_PX > band:  # the line runs through the rows: go under them
            yshift = band - (bottom + LABEL_PX)
            bottom += yshift
        right = 0.0
        while True:
            box = Box(left=right + width, right=right, bottom=bottom, top=bottom + LABEL_PX)
            hits = [p for p in placed if _overlap(box, p)]
            if not hits:
                break
            right = max(p.left for p in hits) + GAP_PX
        placed.append(box)
        out[i] = {"xshift": -right, "below": below, "yshift": yshift}
    return out


def _overlap(a: Box, b: Box) -> bool:
    """Boxes in right-edge coordinates: x grows leftwards, so ``right`` < ``left``."""
    return min(a.left, b.left) > max(a.right, b.right) and min(a.top, b.top) > max(a.bottom, b.bottom)
