"""The figure kit's promises: bounded, float32 payloads; honest colour scales; downloadable numbers."""

import io
import json

import numpy as np
import plotly.io as pio
import pytest

from page_kit import figures
from page_kit.chart import render
from page_kit.figures import curves, theme


def _arrays(fig):
    """Every numeric array a figure would ship to the browser."""
    for trace in fig.data:
        for attr in ("x", "y", "z"):
            value = getattr(trace, attr, None)
            if isinstance(value, np.ndarray):
                yield attr, value


def test_heatmap_is_decimated_to_the_screen_and_float32():
    z = np.random.default_rng(0).standard_normal((5000, 3000))
    chart = figures.heatmap(z, title="t", x_title="x", y_title="y", alt="a", name="big")
    shown = chart.figure.data[0].z
    assert shown.shape[0] <= figures.MAX_HEATMAP_ROWS and shown.shape[1] <= figures.MAX_HEATMAP_COLS
    assert shown.dtype == np.float32
    assert chart.matrix.shape == (5000, 3000)  # the download keeps every value
    assert "every" in chart.note
    assert len(pio.to_json(chart.figure, validate=False)) < 6 * figures.MAX_HEATMAP_ROWS * figures.MAX_HEATMAP_COLS


def test_signed_heatmaps_use_the_diverging_scale_centred_at_zero():
    chart = figures.heatmap(np.array([[-1.0, 3.0], [0.5, 2.0]]), title="t", x_title="x", y_title="y",
                            alt="a", name="s")
    trace = chart.figure.data[0]
    assert [tuple(c) for c in trace.colorscale] == [tuple(c) for c in theme.DIVERGING]
    assert trace.zmin == -trace.zmax == -3.0
    unsigned = figures.heatmap(np.array([[0.0, 1.0]]), title="t", x_title="x", y_title="y", alt="a", name="u")
    assert [tuple(c) for c in unsigned.figure.data[0].colorscale] == [tuple(c) for c in theme.SEQUENTIAL]


def test_lines_are_capped_per_trace_and_keep_full_data_for_download():
    x = np.arange(100_000)
    chart = figures.lines(x, {"a": np.sin(x / 50.0), "b": np.cos(x / 50.0)}, title="t", x_title="x",
                          y_title="y", alt="a", name="l", vlines=[(500, "T")])
    for _, values in _arrays(chart.figure):
        assert values.shape[0] <= figures.MAX_LINE_POINTS and values.dtype == np.float32
    assert chart.table["a"].shape == (100_000,)
    csv = render._table_csv(chart.table)
    assert csv.splitlines()[0] == '"x","a","b"' and len(csv.splitlines()) == 100_001


def test_every_builder_sets_the_template_titles_and_hover():
    charts = [
        figures.heatmap(np.eye(3), title="h", x_title="x", y_title="y", alt="a", name="h"),
        figures.lines([0, 1], {"s": [0, 1]}, title="l", x_title="x", y_title="y", alt="a", name="l"),
        figures.bars(["a", "b"], {"s": [1, 2]}, title="b", x_title="x", y_title="y", alt="a", name="b"),
        figures.vectors2d({"q": (1.0, 0.5)}, title="v", alt="a", name="v", arcs=[(0.5, 0, 1, "angle")]),
        figures.small_multiples([np.eye(4), -np.eye(4)], ["one", "two"], title="m", alt="a", name="m"),
    ]
    for chart in charts:
        layout = chart.figure.layout
        for dark in (False, True):  # the template is added as the figure is sent, in the page's theme
            sent = json.loads(theme.figure_json(chart.figure, theme.template_name(dark)))
            assert sent["layout"]["template"]["layout"]["font"]["family"] == theme.FONT_FAMILY
            assert sent["layout"]["template"]["layout"]["paper_bgcolor"] == ("#171614" if dark else "#ffffff")
        assert layout.title.text
        assert chart.alt
        assert any(getattr(t, "hovertemplate", None) or getattr(t, "hoverinfo", None) for t in chart.figure.data)


def test_small_multiples_share_one_colour_scale():
    chart = figures.small_multiples([np.eye(4) * 3, -np.eye(4)], ["a", "b"], title="m", alt="a", name="m")
    coloraxis = chart.figure.layout.coloraxis
    assert coloraxis.cmin == -3 and coloraxis.cmax == 3
    assert all(trace.coloraxis == "coloraxis" for trace in chart.figure.data)


def test_npy_download_round_trips_without_pickle():
    matrix = np.arange(12, dtype=np.float32).reshape(3, 4)
    restored = np.load(io.BytesIO(render._npy(matrix)), allow_pickle=False)
    np.testing.assert_array_equal(restored, matrix)
    assert render._matrix_csv(matrix).splitlines()[1] == "4,5,6,7"


def test_bars_refuse_more_than_the_cap():
    with pytest.raises(ValueError, match="at most"):
        figures.bars(np.arange(figures.MAX_BARS + 1), {"s": np.zeros(figures.MAX_BARS + 1)}, title="t",
                     x_title="x", y_title="y", alt="a", name="b")


@pytest.mark.parametrize("panels, cols", [(1, 4), (3, 4), (16, 4), (64, 4), (64, 16)])
def test_small_multiples_lays_out_any_number_of_panels(panels, cols):
    grids = [np.full((4, 4), float(i)) for i in range(panels)]
    chart = figures.small_multiples(grids, [f"p{i}" for i in range(panels)], title="m", alt="a", name="m", cols=cols)
    assert len(chart.figure.data) == panels
    assert [a.text for a in chart.figure.layout.annotations] == [f"p{i}" for i in range(panels)]
    domains = [chart.figure.layout[f"yaxis{'' if i == 0 else i + 1}"].domain for i in range(panels)]
    assert all(0 <= low < high <= 1 for low, high in domains)


def test_mark_panels_puts_one_marker_on_each_panel_at_the_decimated_cell():
    chart = figures.small_multiples([np.eye(4), -np.eye(4)], ["a", "b"], title="m", alt="a", name="m")
    figures.mark_panels(chart, 3, 1, "query")
    marks = [t for t in chart.figure.data if t.type == "scatter"]
    assert [(m.xaxis, m.yaxis, m.x, m.y) for m in marks] == [("x", "y", (3,), (1,)), ("x2", "y2", (3,), (1,))]
    big = figures.small_multiples([np.zeros((1000, 1000))] * 2, ["a", "b"], title="m", alt="a", name="m", cols=2)
    figures.mark_panels(big, 999, 500, "query")
    # panels are in data units: the marker sits on the first row/column of the 3 x 3 block holding the cell
    assert big.figure.data[-1].x == (999 // 3 * 3,) and big.figure.data[-1].y == (500 // 3 * 3,)


@pytest.mark.parametrize("n, text", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"),
                                     (13, "13th"), (21, "21st"), (102, "102nd"), (111, "111th")])
def test_ordinals_read_as_english(n, text):
    assert figures.ordinal(n) == text


def test_decimated_heatmaps_average_blocks_so_fast_waves_do_not_alias():
    # a column that alternates +1/-1 kept every 2nd row would look constant (+1): a false pattern
    wave = np.tile(np.array([[1.0], [-1.0]]), (480, 1200))  # (960, 1200), rows alternate
    chart = figures.heatmap(wave, title="t", x_title="x", y_title="y", alt="a", name="w")
    z = np.asarray(chart.figure.data[0].z)
    assert z.shape == (480, 600)  # 2 x 2 blocks
    assert list(chart.figure.data[0].y[:3]) == [0, 2, 4]  # each block labelled by its first row
    np.testing.assert_allclose(z, 0.0, atol=1e-6)  # each block holds equal +1 and -1
    assert "mean of a block of 2 x 2" in chart.note
    blocks = figures.block_mean(np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 5.0]]), 2, 2)
    np.testing.assert_allclose(blocks, [[1.0, 4.0]])


def test_named_series_keep_one_colour_and_dash_in_every_figure():
    import posenc_core as pc
    labels = [m.label for m in pc.lab.LAB_METHODS.values()]
    lab = figures.lines([0, 1], {k: np.zeros(2) for k in labels}, title="t", x_title="x", y_title="y", alt="a",
                        name="lab")
    styles = {tr.name: (tr.line.color, tr.line.dash) for tr in lab.figure.data}
    assert len(set(styles.values())) == len(labels)  # nine models, nine distinct looks
    # YaRN alone, or among other methods, or as "RoPE + YaRN", is drawn the same way
    from lessons.long_context.extension_views import METHOD_LABELS

    methods = [METHOD_LABELS[m] for m in pc.long_context.EXTENSION_METHODS]
    for subset in (methods, methods[::-1], methods[3:4]):
        chart = figures.lines([0, 1], {"no scaling": np.zeros(2), **{m: np.zeros(2) for m in subset}}, title="t",
                              x_title="x", y_title="y", alt="a", name="m")
        for trace in chart.figure.data:
            style = figures.series_style(trace.name)
            assert (trace.line.color, trace.line.dash) == (style.colour, style.dash)
    assert figures.series_style("RoPE + YaRN") == figures.series_style("YaRN")
    assert figures.series_style("mean |q·k|, q = k") is None


def test_panel_titles_wrap_at_their_separators():
    assert figures.wrap_label("sinusoidal · L2 H4 · 0.95 at -k", 30) == "sinusoidal · L2 H4<br>0.95 at -k"
    assert figures.wrap_label("head 5: m = 0.03125", 22) == "head 5: m = 0.03125"
    assert figures.wrap_label("one two three four", 9) == "one two<br>three<br>four"


def test_decimated_heatmaps_keep_the_colour_range_of_the_full_data():
    wave = np.tile(np.array([[1.0], [-1.0]]), (480, 1200))  # block means are all 0, the data spans -1..1
    chart = figures.heatmap(wave, title="t", x_title="x", y_title="y", alt="a", name="w")
    trace = chart.figure.data[0]
    assert (trace.zmin, trace.zmax) == (-1.0, 1.0)
    assert "mean of 2 x 2" in trace.hovertemplate


# --- reference-line labels, log-axis ticks, legends: the classes of figure faults found on the lessons ---

CHIP = "rgba(128,128,128,0.16)"  # the reference-line labels' chip (figures.reference_lines)


def _label_boxes(fig, plot_px: float) -> list[tuple[str, float, float, float, float]]:
    """(text, left, right, bottom, top) of every reference-line label in pixels, read back from the annotations
    the kit wrote: x from the plot's right edge leftwards, y up from the plot's bottom. A vertical line's label
    spans the whole width (where it sits along x depends on the screen), so it must own its row."""
    from page_kit.figures.label_layout import CHAR_PX, LABEL_PX

    layout = fig.layout
    log = layout.yaxis.type == "log"
    labels = [a for a in layout.annotations if a.bgcolor == CHIP]
    low, high = curves._y_extent(fig, [float(10 ** a.y if log else a.y) for a in labels if a.yref != "paper"], log)
    lo, hi = (np.log10(low), np.log10(high)) if log else (low, high)
    boxes = []
    for a in labels:
        if a.yref == "paper":  # a vertical line's label, hanging from the top
            top = plot_px + (a.yshift or 0)
            boxes.append((a.text, float("inf"), float("-inf"), top - LABEL_PX, top))
            continue
        y = plot_px * (a.y - lo) / ((hi - lo) or 1.0) + (a.yshift or 0)
        bottom = y - LABEL_PX if a.yanchor == "top" else y
        right = -(a.xshift or 0)
        boxes.append((a.text, right + CHAR_PX * len(a.text) + 8, right, bottom, bottom + LABEL_PX))
    return boxes


def _collisions(fig, plot_px: float) -> list[str]:
    boxes = _label_boxes(fig, plot_px)
    found = []
    for i, (ta, la, ra, ba, tpa) in enumerate(boxes):
        for tb, lb, rb, bb, tpb in boxes[i + 1:]:
            # boxes that only touch (to floating-point rounding, 1e-6 px) do not meet
            if min(la, lb) > max(ra, rb) + 1e-6 and min(tpa, tpb) > max(ba, bb) + 1e-6:
                found.append(f"{ta!r} meets {tb!r}")
    return found


def test_layer_by_layer_labels_no_longer_print_over_each_other():
    # the case seen on Layer by layer: L 32,768 and context 40,960 are a tenth of a decade apart
    wavelengths = np.geomspace(1.0, 5e5, 64)
    chart = figures.lines(np.arange(64), {"wavelength": wavelengths}, title="t", x_title="pair", y_title="λ",
                          alt="a", name="n", log_y=True,
                          hlines=[(1024, "window 1,024"), (32768, "L 32,768"), (40960, "context 40,960")])
    from page_kit.figures.label_layout import plot_height

    assert _collisions(chart.figure, plot_height(chart.figure.layout.height)) == []
    shifts = {a.text: a.xshift for a in chart.figure.layout.annotations}
    assert shifts["window 1,024"] == 0 and shifts["context 40,960"] != shifts["L 32,768"]


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(1.0, 1e6), min_size=1, max_size=6), n_vlines=st.integers(0, 3),
       log=st.booleans(), height=st.integers(260, 700), grow=st.floats(1.0, 1.6))
def test_reference_labels_never_meet(values, n_vlines, log, height, grow):
    """Any lines, on either axis type: every pair of label boxes is disjoint in the kit's model of the plot,
    and stays so on a taller plot area than the model assumes (the real one is at least as tall)."""
    from page_kit.figures.label_layout import plot_height

    x = np.arange(10.0)
    chart = figures.lines(x, {"s": np.geomspace(1.0, 1e6, 10)}, title="t", x_title="x", y_title="y", alt="a",
                          name="n", log_y=log, height=height,
                          hlines=[(v, f"line {v:,.0f}") for v in values],
                          vlines=[(float(i + 1), f"mark {i}") for i in range(n_vlines)])
    model = plot_height(height)
    assert _collisions(chart.figure, model) == []
    assert _collisions(chart.figure, model * grow) == []


def _log_axes(fig):
    for name in [k for k in fig.layout if k.startswith(("xaxis", "yaxis"))]:
        if fig.layout[name].type == "log":
            yield name, fig.layout[name]


@pytest.mark.parametrize("low, high", [(0.125, 1.0), (1 / 64, 1.0), (0.03, 0.05), (3.0, 4.0), (700.0, 9000.0)])
def test_short_log_axes_label_every_tick_with_its_whole_value(low, high):
    """Model presets' ratio axis read "1" and then a lone "5" meaning 0.5: every labelled tick on a log axis
    spanning less than two decades must read as the number it marks."""
    chart = figures.lines(np.arange(5), {"r": np.geomspace(low, high, 5)}, title="t", x_title="x", y_title="y",
                          alt="a", name="n", log_y=True, hlines=[(high, "top")])
    (_, axis), = _log_axes(chart.figure)
    assert axis.dtick is None, "plotly's D1/D2 minor labels print the leading digit only"
    inside = [v for v in axis.tickvals if low <= v * (1 + 1e-9) and v <= high * (1 + 1e-9)]
    assert len(inside) >= 2
    for value, text in zip(axis.tickvals, axis.ticktext, strict=True):
        assert float(text.replace(",", "")) == pytest.approx(value, rel=1e-9), (value, text)


def test_the_layer_strip_leaves_no_blank_band_for_its_legend():
    """The strip reserved 30 px per legend entry under the plot, more than an entry takes, and the rest showed
    as a blank gap; plotly sizes the bottom margin to the legend itself (container coordinates)."""
    chart = figures.category_strip(np.arange(8), {"positions": ["a", "b"] * 4, "mixer": ["full"] * 8},
                                   title="t", x_title="layer", alt="a", name="n")
    layout = chart.figure.layout
    assert layout.legend.yref == "container" and layout.legend.y == 0
    assert layout.margin.b is None or layout.margin.b <= 80


# pages that draw reference lines (directly or through their section's views), every tab of each
REFERENCE_PAGES = ["layer_strip", "model_configs", "extension", "extension_compare", "local_global", "rope",
                   "sinusoidal", "fewer_frequencies", "alibi", "t5"]


@pytest.mark.parametrize("url_path", REFERENCE_PAGES)
@pytest.mark.usefixtures("empty_figure_cache")  # a cached view would skip the kit steps this test records
def test_no_reference_labels_meet_on_any_tab(monkeypatch, url_path):
    """Every figure with reference lines that a page builds, on every tab: no two label boxes intersect, with
    the label positions the kit assigned (the page-level check of the Layer by layer collision)."""
    from page_kit import registry
    from page_kit.figures.label_layout import plot_height
    from tests.apptest_pages import load, open_tab, tab_groups

    built = []
    original = figures.reference_lines

    def recording(chart, **kwargs):
        built.append(chart)
        return original(chart, **kwargs)

    monkeypatch.setattr(figures, "reference_lines", recording)
    monkeypatch.setattr(curves, "reference_lines", recording)  # the kit's own builders call it there
    info = next(p for p in registry.all_pages() if p.url_path == url_path)
    at = load(info)
    for key, labels in tab_groups(at).items():
        for label in labels:
            open_tab(at, key, label)
    assert built, f"{url_path} drew no reference lines"
    for chart in built:
        found = _collisions(chart.figure, plot_height(chart.figure.layout.height or 450))
        assert not found, f"{url_path}, {chart.name}: {found}"


def test_shown_numbers_are_the_downloaded_ones_cut_to_a_readable_table():
    x = np.arange(80)
    chart = figures.lines(x, {"RoPE": np.sin(x / 7.0), "ALiBi": -0.5 * x}, title="t", x_title="position",
                          y_title="score", alt="a", name="numbers")
    header, rows, note = render.numbers_table(chart)
    assert header == ["position", "RoPE", "ALiBi"]
    assert len(rows) == render.MAX_TABLE_ROWS and rows[7] == ["7", f"{np.sin(1.0):.4g}", "-3.5"]
    assert note == f"Showing the first {render.MAX_TABLE_ROWS} of 80 rows; the download has all of them."
    grid = np.arange(6 * 30, dtype=np.float64).reshape(6, 30)
    heat = figures.heatmap(grid, title="t", x_title="key", y_title="query", alt="a", name="grid")
    header, rows, note = render.numbers_table(heat)
    assert header[0] == "query / key" and header[1:] == [str(j) for j in range(render.MAX_TABLE_COLUMNS)]
    assert rows[2][:3] == ["2", "60", "61"] and len(rows) == 6
    assert note == f"Showing the first {render.MAX_TABLE_COLUMNS} of 30 columns; the download has all of them."


def test_series_differ_by_marker_shape_not_only_colour():
    x = np.arange(50)
    series = {"RoPE": x, "RoPE + YaRN": x, "ALiBi": x, "my curve": x, "another": x}
    chart = figures.lines(x, series, title="t", x_title="x", y_title="y", alt="a", name="shapes")
    symbols = {trace.name: trace.marker.symbol for trace in chart.figure.data}
    assert len(set(symbols.values())) == len(series), symbols
    # a registered series keeps its shape in every figure, whatever else the figure holds
    alone = figures.lines(x, {"my curve": x, "RoPE": x}, title="t", x_title="x", y_title="y", alt="a", name="two")
    assert {t.name: t.marker.symbol for t in alone.figure.data}["RoPE"] == symbols["RoPE"]
    assert all(trace.marker.maxdisplayed == figures.SPARSE_MARKERS for trace in chart.figure.data)
    bars = figures.bars(["a", "b"], {"RoPE": [1, 2], "ALiBi": [2, 1]}, title="t", x_title="x", y_title="y",
                        alt="a", name="b")
    assert len({trace.marker.pattern.shape for trace in bars.figure.data}) == 2


def _contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours."""
    def luminance(colour):
        channels = [int(colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("dark", [False, True])
@pytest.mark.parametrize("presenting", [False, True])
def test_figure_text_meets_aa_contrast(dark, presenting):
    """Titles, tick labels, legends and annotations take the template's ink on its paper (axe cannot read the
    SVG's text), and the flow diagram's box labels are dark on its light box colours, in both themes."""
    layout = pio.templates[theme.template_name(dark, presenting)].layout
    assert _contrast(layout.font.color, layout.paper_bgcolor) >= 4.5
    assert _contrast(layout.font.color, layout.plot_bgcolor) >= 4.5
    assert layout.xaxis.tickfont.color in (None, layout.font.color)
    for box in figures.FLOW_COLOURS.values():
        assert _contrast("#1a1a1a", box) >= 4.5
    assert _contrast(figures.FLOW_ARROW, layout.paper_bgcolor) >= 3  # a graphical object (WCAG 1.4.11)


def test_flow_diagram_arrows_are_one_trace_with_a_head_per_edge():
    """The arrows are one line trace whose segment ends carry arrow markers, turned along each segment: Plotly
    measures every annotation arrow's SVG path on each redraw (twice as slow for a 14-arrow diagram)."""
    nodes = {"a": figures.FlowNode(0.0, 0.0, "a", "data"), "b": figures.FlowNode(3.0, 0.0, "b", "weights"),
             "c": figures.FlowNode(3.0, 2.0, "c", "op")}
    chart = figures.flow_diagram(nodes, [("a", "b"), ("a", "c", "mix"), ("b", "c")], title="t", alt="a", name="f")
    fig = chart.figure
    assert not [a for a in fig.layout.annotations if a.showarrow]
    arrows = [t for t in fig.data if t.name == "arrows"]
    assert len(arrows) == 1 and arrows[0].marker.symbol == "arrow" and arrows[0].marker.angleref == "previous"
    (trace,) = arrows
    heads = [(x, y) for x, y, size in zip(trace.x, trace.y, trace.marker.size, strict=True) if size]
    assert len(heads) == 3 and trace.hoverinfo == "skip" and trace.showlegend is False
    # each head sits on the edge of the box the arrow points at: b's left side, c's bottom (twice)
    under_c = (3.0, 2.0 - nodes["c"].height / 2)
    assert heads == [(3.0 - nodes["b"].width / 2, 0.0), under_c, under_c]
    assert [a.text for a in fig.layout.annotations if a.text == "mix"] == ["mix"]
    # an edge's label and the notes are not on a box: they take the template's ink, readable in both themes
    assert fig.layout.annotations[-1].font.color is None
