"""The figure kit: every figure in the app is built here, one module per kind of figure.

``chart`` (the Chart every builder returns, and the steps all figures share), ``grids`` (heatmaps, small
multiples, mosaics), ``curves`` (lines, bars, arrows, strips), ``diagrams`` (flow diagrams); ``theme`` (colours
and templates), ``label_layout`` (labels that never meet) and ``animation`` (frames).
"""

from page_kit.figures import label_layout, theme
from page_kit.figures.chart import (
    Chart,
    axis_settings,
    hand_drags,
    ordinal,
    padded,
    roomy,
    series_styles,
    stride_for,
    tick_text,
    wrap_label,
)
from page_kit.figures.curves import (
    BAND_COLORS,
    BAR_PATTERNS,
    MAX_BARS,
    MAX_LINE_POINTS,
    SPARSE_MARKERS,
    banded_lines,
    bars,
    category_strip,
    lines,
    reference_lines,
    roomy_lines,
    stacked_lines,
    vectors2d,
)
from page_kit.figures.diagrams import (
    ARROW_HEAD_PX,
    FLOW_ARROW,
    FLOW_COLOURS,
    FLOW_KIND_LABELS,
    FlowNode,
    flow_diagram,
)
from page_kit.figures.grids import (
    BLOCK_MEAN_BAND,
    LARGE_MATRIX,
    MAX_HEATMAP_COLS,
    MAX_HEATMAP_ROWS,
    PANEL_TITLE,
    SQUARE_MAX_PX,
    SQUARE_PLOT_PX,
    blank_masked,
    block_mean,
    heatmap,
    mark_diagonal,
    mark_panels,
    marked_heatmap,
    mosaic,
    similarity_range,
    small_multiples,
    square_panels,
)
from page_kit.figures.theme import CATEGORICAL, CYCLIC, series_style

__all__ = [
    "ARROW_HEAD_PX", "BAND_COLORS", "BAR_PATTERNS", "BLOCK_MEAN_BAND", "CATEGORICAL", "CYCLIC", "Chart", "FLOW_ARROW",
    "FLOW_COLOURS", "FLOW_KIND_LABELS", "FlowNode", "LARGE_MATRIX", "MAX_BARS", "MAX_HEATMAP_COLS",
    "MAX_HEATMAP_ROWS", "MAX_LINE_POINTS", "PANEL_TITLE", "SPARSE_MARKERS", "SQUARE_MAX_PX", "SQUARE_PLOT_PX",
    "axis_settings", "banded_lines", "bars", "blank_masked", "block_mean", "category_strip", "flow_diagram",
    "hand_drags", "heatmap", "label_layout", "lines", "mark_diagonal", "mark_panels", "marked_heatmap", "mosaic",
    "ordinal", "padded", "reference_lines", "roomy", "roomy_lines", "series_style", "series_styles",
    "similarity_range", "small_multiples", "square_panels", "stacked_lines", "stride_for", "theme", "tick_text",
    "vectors2d", "wrap_label"
]

