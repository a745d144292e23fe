"""The code next to each figure reproduces it: why-position, absolute and RoPE lessons.

Each page is opened as a visitor gets it (its default view, then one view set by a link), every snippet it
shows is run as a student would run it in a notebook, and the snippet's result is compared with the arrays
the figure itself was built from (the Chart's matrix or CSV table, recorded as the page shows it).
"""

import numpy as np
import pytest

import page_kit
from lessons.absolute import learned_views, sinusoidal_views
from lessons.attention_bias import alibi_views
from lessons.rope import fope_views, pair_views, rope_views
from lessons.why_position import order_views, why_views
from page_kit import registry
from posenc_core.rope import ANGLE_DTYPES, ROPE_LAYOUTS, ROPE_MODEL_PRESETS
from tests import apptest_pages

BY_URL = {p.url_path: p for p in registry.all_pages()}


@pytest.fixture
def charts(monkeypatch):
    """Every Chart a page run shows, by name: the figure's own numbers (full matrix, CSV columns)."""
    shown = {}
    show = page_kit.show

    def record(chart):
        shown[chart.name] = chart
        show(chart)

    monkeypatch.setattr(page_kit, "show", record)  # lessons import show from page_kit on every run
    # views call their own show
    for views in (why_views, order_views, sinusoidal_views, learned_views, pair_views, rope_views, alibi_views,
                  fope_views):
        monkeypatch.setattr(views, "show", record)
    return shown


def _open(url_path, charts, **link):
    """The page at the view a link gives, and one namespace holding what all its snippets computed."""
    charts.clear()
    at = apptest_pages.load(BY_URL[url_path], **link)
    namespace: dict = {}
    codes = apptest_pages.snippets(at)
    assert codes, f"{url_path} {link} shows no snippet"
    for code in codes:
        exec(compile(code, f"<{url_path} snippet>", "exec"), namespace)  # noqa: S102 (the page's own code)
    return at, namespace


def _widget(at, key):
    return next(w for kind in ("slider", "select_slider", "selectbox", "segmented_control", "toggle", "text_input",
                               "number_input") for w in at.get(kind) if w.key == key)


def _assert_link_applied(page, **values):
    for key, value in values.items():
        dragged = apptest_pages.drag_value(page, key)  # a drag slider shows the value's URL text
        shown = _widget(page, key).value if dragged is None else type(value)(dragged.replace(",", ""))
        assert shown == value, f"the link's {key} did not reach the page"


def test_order_snippets(charts):
    at, ns = _open("order", charts)
    np.testing.assert_array_equal(ns["out"], charts["order_outputs"].matrix)
    np.testing.assert_array_equal(ns["out_reordered"], charts["order_outputs_reordered"].matrix)

    at, ns = _open("order", charts, s="the cat sat on the mat", how="reverse", pe="true", pool="max",
                   view="The pooled summary")
    _assert_link_applied(at, how="reverse", pe=True, pool="max")
    assert ns["result"].reordered == ["mat", "the", "on", "sat", "cat", "the"]
    bars = charts["order_pooled"].table
    np.testing.assert_array_equal(ns["pooled"], bars["original"])
    np.testing.assert_array_equal(ns["pooled_reordered"], bars["reordered"])

    at, ns = _open("order", charts, view="Shuffle an image", patch="12", iseed="5", pe="true")
    _assert_link_applied(at, patch=12, iseed=5, pe=True)
    np.testing.assert_array_equal(np.stack([ns["image"], ns["shuffled"]]), charts["order_patches"].matrix)
    assert at.metric[0].value == f"{ns['shown'].pooled_gap:.1e}"


def test_naive_snippets(charts):
    at, ns = _open("naive", charts)
    curves = charts["naive_norm_ratio"].table
    for kind, label in zip(("integer", "fraction", "sinusoidal"),
                           ("integer p", "fraction p / n", "sinusoidal (for comparison)"), strict=True):
        np.testing.assert_array_equal(ns["ratio"][kind][1:], curves[label])
    np.testing.assert_array_equal(np.stack([ns["parts"].token, ns["parts"].sum]),
                                  charts["naive_inputs"].matrix)

    at, ns = _open("naive", charts, view="Divide by the length", short="7", long="30", p="6")
    _assert_link_applied(at, short=7, long=30, p=6)
    lines = charts["naive_fraction"].table
    np.testing.assert_array_equal(ns["table"][0], lines["length 7"])
    np.testing.assert_array_equal(ns["table"][1], lines["length 30"])


def test_binary_snippets(charts):
    at, ns = _open("binary", charts)
    np.testing.assert_array_equal(ns["codes"], charts["binary_bits"].matrix)
    np.testing.assert_array_equal(ns["waves"], charts["binary_waves"].matrix)

    at, ns = _open("binary", charts, bits="4", n="40", twin="the paper's sin/cos table")
    _assert_link_applied(at, bits=4, n=40, twin="paper")
    assert ns["codes"].shape == (40, 4)
    np.testing.assert_array_equal(ns["waves"], charts["binary_waves"].matrix)


def test_learned_snippets(charts):
    at, ns = _open("learned", charts)
    np.testing.assert_array_equal(ns["table"], charts["learned_table"].matrix)

    at, ns = _open("learned", charts, view="Past the last row", len="600", rows="256")
    _assert_link_applied(at, len=600, rows=256)
    np.testing.assert_array_equal(ns["rows_used"], charts["learned_lookup"].matrix)  # NaN rows included
    assert np.isnan(ns["rows_used"][512:]).all() and not np.isnan(ns["rows_used"][:512]).any()


def test_token_position_snippets(charts):
    at, ns = _open("token_position", charts)
    x = ns["x"]
    np.testing.assert_array_equal(np.stack([x.token, x.position, x.input]),
                                  charts["token_position_parts"].matrix)

    at, ns = _open("token_position", charts, view="Norm balance", s="a rose is a rose", d="128", scale="false")
    _assert_link_applied(at, d=128, scale=False)
    bars, curves = charts["token_position_norms"].table, charts["token_position_balance"].table
    for part in ("token", "position"):
        np.testing.assert_array_equal(getattr(ns["x"], f"{part}_norm"), bars[part])
    np.testing.assert_array_equal(ns["b"].measured, curves["measured (256 made-up words)"])
    np.testing.assert_array_equal(ns["b"].expected, curves["expected 1 / (s √2)"])


def test_rope_relative_snippets(charts):
    at, ns = _open("rope_relative", charts)
    for layout in ROPE_LAYOUTS:
        np.testing.assert_array_equal(ns["scores"][layout], charts[f"rope_scores_{layout}"].matrix)

    at, ns = _open("rope_relative", charts, view="Long-term decay", d="32", base="500,000", dist="1,024")
    _assert_link_applied(at, d=32, base=500000, dist=1024)
    curves = charts["rope_decay"].table
    np.testing.assert_array_equal(ns["curves"].random_score, curves["mean |q·k|, random q, k"])
    np.testing.assert_array_equal(ns["curves"].identical_bound, curves["RoFormer's bound, q = k"])


def test_rope_variants_snippets(charts):
    at, ns = _open("rope_variants", charts)
    np.testing.assert_array_equal(np.stack([ns["pairs"]["half"], ns["pairs"]["interleaved"]]),
                                  charts["rope_layout_pairs"].matrix)
    assert at.metric[0].value == f"{ns['check'].with_perm:.1e}"
    assert at.metric[1].value == f"{ns['check'].without_perm:.2f}"

    at, ns = _open("rope_variants", charts, view="Partial rotary", pct="0.5", layout="interleaved", pos="64")
    _assert_link_applied(at, pct=0.5, layout="interleaved", pos=64)
    np.testing.assert_array_equal(ns["table"].cos, charts["rope_partial"].matrix)

    at, ns = _open("rope_variants", charts, view="Precision", len="32,768", at="1,500", dtype="float16")
    _assert_link_applied(at, len=32768, at=1500, dtype="float16")
    curves = charts["rope_precision"].table
    for dtype in ANGLE_DTYPES:
        np.testing.assert_array_equal(ns["curves"][dtype].error, curves[dtype])
    np.testing.assert_array_equal(ns["zoom"].computed, charts["rope_precision_zoom"].table["float16"])
    shown = [m.value for m in at.metric]
    for dtype in ANGLE_DTYPES:
        first = ns["first_bad"][dtype]
        assert (f"> {32768:,}" if first is None else f"{first:,}") in shown


def test_rope_variants_fope_snippet(charts):
    at, ns = _open("rope_variants", charts, view="FoPE", train="4,096", gain="0.1", fseed="3")
    _assert_link_applied(at, train=4096, gain=0.1, fseed=3)
    curves = charts["fope_scores"].table
    np.testing.assert_array_equal(ns["scores"].rope_clipped[1:], curves["RoPE"])
    np.testing.assert_array_equal(ns["scores"].fope_clipped[1:], curves["FoPE"])
    assert ns["kept"].n_clipped == ns["scores"].n_clipped and ns["cos"].shape == (ns["scores"].distance.size, 4, 64)


def test_rope_model_snippets(charts):
    at, ns = _open("rope_model", charts)
    preset = _widget(at, "model").value
    assert ns["config"] == ROPE_MODEL_PRESETS[preset]
    notes = " ".join(a.text for a in charts["rope_flow"].figure.layout.annotations)
    assert f"head_dim {ns['config']['head_dim']}" in notes and f"{ns['config']['n_kv_heads']} key/value" in notes

    at, ns = _open("rope_model", charts, view="What it costs", model="GPT-NeoX 20B", seq="32,768")
    _assert_link_applied(at, model="GPT-NeoX 20B", seq=32768)
    out = ns["out"]
    np.testing.assert_array_equal([out.projection_macs_per_layer, out.rope_multiplies_per_layer],
                                  charts["rope_cost"].table["per token, per layer"])
    assert at.metric[1].value == f"{out.rotated_vectors_per_token:,}"
    assert at.metric[2].value == f"{out.table_values:,}"


@pytest.mark.parametrize("statement", [
    "result = pc.why_position.order_experiment('a, b (c)', 16, 'custom', seed=0, i=0, j=1, order='3,4,2,0,1', "
    "positions=False)",
    "scores = {layout: pc.rope_score_matrix(96, 64, 10000.0, layout, 0) for layout in pc.rope.ROPE_LAYOUTS}",
    "b = pc.absolute.embedding_norm_balance([8, 16, 32, 64, 128, 256, 512, 1024], 'normal(0, 1/sqrt(d))', True)",
    "x = pc.absolute.token_plus_position(pc.why_position.tokenize(\"it's, [odd]\"), 64, 'normal(0, 1)', False)",
    "config = pc.rope.ROPE_MODEL_PRESETS['Llama 3 8B']",
])
@pytest.mark.parametrize("comment", ["", "dict", "(96, 96) float64 each: a comment long enough to need its own line"])
def test_folded_snippet_lines_are_the_same_statement_and_short(statement, comment):
    import ast

    from page_kit.lesson.code_lines import WIDTH, fold

    folded = fold(statement, comment)
    assert ast.dump(ast.parse(folded)) == ast.dump(ast.parse(statement))
    assert all(len(line) <= WIDTH for line in folded.splitlines()), folded
    assert not comment or f"# {comment}" in folded
