"""Today's models lessons: each snippet, run as a student would paste it, gives the numbers its figure shows.

For each page, at its default view and at one view set by a link, the snippet on screen is executed and its
result compared with the core call behind the figure at those control values (bit-identical: the same call).
"""

import json

import numpy as np
import pytest

import posenc_core as pc
from lessons.todays_models.words import (
    HYBRID_ATTENTION,
    HYBRID_MIXERS,
    HYBRID_NAMES,
    HYBRID_POSITIONS,
    QUERY_SCALE_LABELS,
)
from page_kit import registry
from page_kit.lesson.config_words import layer_label
from posenc_core.configs import layer_groups, layer_pairs
from posenc_core.long_context import score_vs_distance
from posenc_core.todays_models import (
    DROPE_VARIANTS,
    FEWER_FREQUENCY_METHODS,
    LOCAL_GLOBAL_MODELS,
    MLA_PRESETS,
    QUERY_SCALE_RULES,
    cope_counting_example,
    cope_interpolation_curve,
    dimension_frequency_table,
    fewer_frequencies,
    fewer_frequency_summaries,
    frequency_score_curves,
    llama4_attn_temperature,
    llama_4_scaling_beta,
    local_global_scores,
    local_global_view,
    mla_demo_scores,
    mla_layout_gap,
    mla_random_weights,
    mla_scores,
    mla_tiny_config,
    nope_layer_map,
    order_test,
    query_scale_positions,
    shipped_drope_result,
    sink_attention_map,
    sink_mass_by_position,
    sink_mass_by_score,
    streaming_eviction,
    temperature_entropy,
    temperature_positions,
)
from tests import apptest_pages

BY_URL = {p.url_path: p for p in registry.all_pages()}


def _view(url_path: str, tab: str | None = None, **query):
    """The page (through app.py) with ``query`` in its link, on ``tab`` if given."""
    at = apptest_pages.load(BY_URL[url_path], **query)
    if tab is not None:
        key = next(k for k, labels in apptest_pages.tab_groups(at).items() if tab in labels)
        at = apptest_pages.open_tab(at, key, tab)
    return at


_snippets = apptest_pages.run_snippets


def _one(at) -> dict:
    (namespace,) = _snippets(at)
    return namespace


# --- layer_strip ---------------------------------------------------------------------------------------------

def _labels(config):
    _, rows = pc.read_layers(config)
    groups = layer_groups(rows)
    label_of = {i: layer_label(g.row) for g in groups for i in g.layers}
    return rows, [label_of[r.index] for r in rows]  # the strip's bottom row, as layer_views.strip colours it


def test_layer_strip_snippet_gives_the_strip():
    ns = _one(_view("layer_strip"))
    rows, labels = _labels(pc.preset_config("gemma3-27b"))  # the page's default preset
    label_of = {i: layer_label(g.row) for g in ns["groups"] for i in g.layers}
    assert [label_of[r.index] for r in ns["rows"]] == labels and len(ns["rows"]) == len(rows)


def test_layer_strip_snippet_gives_one_layers_pairs_and_scores():
    _, rows = pc.read_layers(pc.preset_config("gpt-oss-20b"))
    index = next(r.index for r in rows if r.rotates and r.window)  # a sliding-window layer
    ns = _one(_view("layer_strip", "One layer", model=pc.PRESETS["gpt-oss-20b"].name,
                          layer=str(index)))
    context = int(pc.read_layers(pc.preset_config("gpt-oss-20b"))[0].get("max_position_embeddings"))
    pairs = layer_pairs(rows[index], context)
    np.testing.assert_array_equal(ns["pairs"].wavelength, pairs.wavelength)
    distances, scores = score_vs_distance(pairs.inv_freq, pairs.attention_factor,
                                             min(2 * context, pc.MAX_POSITIONS * 64))
    np.testing.assert_array_equal(ns["distances"], distances)
    np.testing.assert_array_equal(ns["scores"], scores)


def test_layer_strip_snippet_reads_a_pasted_config():
    config = pc.preset_config("gpt-oss-20b")
    config |= {"num_hidden_layers": 6, "layer_types": config["layer_types"][:6]}  # no preset any more
    at = _view("layer_strip", src="json")
    at.text_area(key="cfg").set_value(json.dumps(config)).run()
    apptest_pages.assert_clean(at, "pasted config")
    ns = _one(at)
    assert "parse_config_json" in apptest_pages.snippets(at)[0]
    label_of = {i: layer_label(g.row) for g in ns["groups"] for i in g.layers}
    assert [label_of[r.index] for r in ns["rows"]] == _labels(config)[1] and len(ns["rows"]) == 6


@pytest.mark.parametrize("preset, pick, counted", [
    ("gemma3-27b", "some of them", "10 of the 62"),  # five 1,024-token windows per global layer: 10 global
    ("mistral-7b", "none of them", "0 of the 32"),  # every layer slides over 4,096 tokens of a 32,768 context
    ("llama2-7b", "all 32 of them", "32 of the 32"),  # no windows at all
])
def test_layer_strip_question_counts_the_layers_that_meet_farther_keys(preset, pick, counted):
    at = _view("layer_strip", model=pc.PRESETS[preset].name)
    at.radio(key="predict_strip_longer").set_value(pick).run()
    apptest_pages.assert_clean(at, "after answering")
    assert any(e.value.startswith(f"Right. {counted} attention layers") for e in at.success), \
        [e.value for e in [*at.success, *at.info]]


# --- local_global --------------------------------------------------------------------------------------------

def test_local_global_snippet_gives_the_wavelengths():
    model = list(LOCAL_GLOBAL_MODELS)[0]
    ns = _one(_view("local_global"))
    view = local_global_view(model)
    np.testing.assert_array_equal(ns["wl_local"], view.local.wavelength)
    np.testing.assert_array_equal(ns["wl_full"], view.full.wavelength)


def test_local_global_snippet_gives_the_score_curves():
    model = list(LOCAL_GLOBAL_MODELS)[1]
    ns = _one(_view("local_global", "Score against distance", model=model))
    distances, curves = local_global_scores(model)
    np.testing.assert_array_equal(ns["distances"], distances)
    for kind in ("local", "full"):
        np.testing.assert_array_equal(ns["curves"][kind], curves[kind])
    # the core function is the composition the lesson used to make itself: NaN past each kind's span
    view = local_global_view(model)
    _, local = score_vs_distance(view.local.inv_freq, view.local.attention_factor,
                                    view.context - 1)
    np.testing.assert_array_equal(curves["local"], np.where(distances <= view.local.span - 1, local, np.nan))


# --- nope_layers ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layers", [None, 20])
def test_nope_snippet_gives_the_layer_map(layers):
    ns = _one(_view("nope_layers", **({"layers": str(layers)} if layers else {})))
    names, grid = nope_layer_map(layers or 48)
    assert ns["names"] == names
    np.testing.assert_array_equal(ns["grid"], grid)


def test_nope_snippets_give_the_rules_and_the_entropy():
    ns = _one(_view("nope_layers", "The two temperature rules", ctx="65,536", beta="0.2", orig="8,192"))
    p = query_scale_positions(65536, (8192, 8192))
    np.testing.assert_array_equal(ns["p"], p)
    np.testing.assert_array_equal(ns["llama"], llama4_attn_temperature(p, 0.2, 8192))
    np.testing.assert_array_equal(ns["mistral"], llama_4_scaling_beta(p, 0.2, 8192))
    assert ns["p"][0] == 1 and ns["p"][-1] == 65535 and {8190, 8191, 16383, 16384} <= set(ns["p"].tolist())

    ns = _one(_view("nope_layers", "Entropy far away", rule=QUERY_SCALE_LABELS["llama_4_scaling_beta"],
                    margin="6.0"))
    expected = temperature_entropy("llama_4_scaling_beta", temperature_positions(1_048_576), scale=0.1,
                                      period=QUERY_SCALE_RULES["llama_4_scaling_beta"].period, spread=1.0,
                                      margin=6.0)
    for key in ("entropy", "entropy_scaled", "needle", "needle_scaled"):
        np.testing.assert_array_equal(getattr(ns["result"], key), getattr(expected, key))


# --- hybrids -------------------------------------------------------------------------------------------------

def test_hybrids_snippet_gives_the_table():
    at = _view("hybrids")
    mixers, positions = at.dataframe[0].value, at.dataframe[1].value  # the figure, then the answer it hides
    assert list(mixers["model"]) == list(positions["model"])
    rows = [(HYBRID_NAMES[code], HYBRID_MIXERS[m], HYBRID_ATTENTION[a], HYBRID_POSITIONS[code])
            for code, m, a, _ in _one(at)["rows"]]  # the snippet's codes, in the table's words
    assert rows == list(zip(mixers["model"], mixers["other layers"], mixers["attention"],
                            positions["positions in attention"], strict=True))


@pytest.mark.parametrize("query", [{}, {"n": "16", "kind": "reverse"}])
def test_hybrids_snippet_gives_the_order_errors(query):
    ns = _one(_view("hybrids", "Reorder the inputs", **query))
    n = int(query.get("n", 24))
    expected = order_test(n, 16, query.get("kind", "swap"), i=3, j=10, seed=0)  # i, j: the sliders' defaults
    for name, errors in expected.errors.items():
        np.testing.assert_array_equal(ns["errors"][name], errors)


# --- attention_sinks -----------------------------------------------------------------------------------------

def test_sinks_snippet_gives_the_map():
    ns = _one(_view("attention_sinks"))
    expected = sink_attention_map(32, 8, 2.0)
    np.testing.assert_array_equal(ns["result"].probs, expected.probs)
    np.testing.assert_array_equal(ns["result"].sink, expected.sink)


def test_sinks_snippets_give_the_other_figures():
    ns = _one(_view("attention_sinks", "Windows", sink="0.5", w="64"))
    expected = sink_mass_by_position(0.5, 256, 64)
    np.testing.assert_array_equal(ns["result"].window, expected.window)
    np.testing.assert_array_equal(ns["result"].full, expected.full)

    ns = _one(_view("attention_sinks", "Mass against scores", sink="0.5", w="64"))
    offsets = np.linspace(-6.0, 6.0, 121)
    for s in (-1.5, 0.5, 2.5):
        np.testing.assert_array_equal(ns["mass"][s], sink_mass_by_score(s, offsets, 64))

    ns = _one(_view("attention_sinks", "Streaming", sink="0.5", w="64"))
    assert ns["result"] == streaming_eviction(64, 0.5, 6.0)


# --- latent_attention ----------------------------------------------------------------------------------------

def test_latent_snippet_gives_the_three_panels():
    preset = list(MLA_PRESETS)[0]
    ns = _one(_view("latent_attention"))
    expected = mla_demo_scores(preset, 4, 12, 0, 0, MLA_PRESETS[preset].rope_interleave)
    for key in ("content", "position", "logits"):
        np.testing.assert_array_equal(getattr(ns["out"], key), getattr(expected, key))
    # mla_demo_scores is the composition the lesson used to make itself
    cfg = mla_tiny_config(preset, heads=4, hidden=256)
    hidden = np.random.default_rng(1).standard_normal((12, 256)).astype(np.float32)
    direct = mla_scores(hidden, mla_random_weights(cfg, 0), cfg, np.arange(12))
    np.testing.assert_array_equal(expected.logits, direct.logits)


def test_latent_snippet_gives_the_layout_gap():
    preset = list(MLA_PRESETS)[1]
    ns = _one(_view("latent_attention", "Interleaved pairs", model=preset, n="8", h="2", start="5000"))
    stored = MLA_PRESETS[preset].rope_interleave
    out = mla_demo_scores(preset, 2, 8, 5000, 0, stored)
    other = mla_demo_scores(preset, 2, 8, 5000, 0, not stored)
    np.testing.assert_array_equal(ns["other"].position, other.position)
    assert ns["gap"] == mla_layout_gap(out, other) > 0


# --- fewer_frequencies ---------------------------------------------------------------------------------------

def test_fewer_snippet_gives_the_dimension_table():
    ns = _one(_view("fewer_frequencies"))
    np.testing.assert_array_equal(ns["table"], dimension_frequency_table(128, 10000, 0.25))


def test_fewer_snippets_give_the_wavelengths_and_scores():
    query = {"d": "64", "p": "0.5", "base": "500,000", "ctx": "8,192"}
    ns = _one(_view("fewer_frequencies", "Wavelengths and the context", **query))
    expected = fewer_frequency_summaries(64, 500000.0, 0.5, 8192)
    for method in FEWER_FREQUENCY_METHODS:
        np.testing.assert_array_equal(ns["info"][method].wavelengths, expected[method].wavelengths)
        assert ns["info"][method].pairs == fewer_frequencies(method, 64, 500000.0,
                                                                  1.0 if method == "RoPE" else 0.5, 8192).pairs
    ns = _one(_view("fewer_frequencies", "Where the score stops seeing position", **query))
    expected = frequency_score_curves(64, 500000.0, 0.5, 8192, 800)
    np.testing.assert_array_equal(ns["data"].distance, expected.distance)
    for key in FEWER_FREQUENCY_METHODS:
        np.testing.assert_array_equal(ns["data"].scores[key], expected.scores[key])


# --- drope ---------------------------------------------------------------------------------------------------

def test_drope_snippet_gives_the_accuracy():
    ns = _one(_view("drope"))
    shipped = shipped_drope_result()
    assert ns["acc"] == {n: shipped.variants[n].accuracy for n in DROPE_VARIANTS}


def test_drope_snippet_gives_the_attention_maps_of_the_run_shown():
    # a seed not run yet: the page shows the shipped run, and so does its snippet
    ns = _one(_view("drope", "What the retrieval head does", seed="2"))
    shipped = shipped_drope_result()
    for name in DROPE_VARIANTS:
        np.testing.assert_array_equal(ns["maps"][name], shipped.attention[name])
    assert ns["mass"] == shipped.offset_mass


# --- cope ----------------------------------------------------------------------------------------------------

TEXT = "The cat sat. Then it slept on the warm mat. Birds sang outside the window. Everyone listened quietly."


def test_cope_snippet_gives_the_attention():
    ns = _one(_view("cope"))
    np.testing.assert_array_equal(ns["ex"].attention,
                                  cope_counting_example(TEXT, "sentences", 3, 8.0).attention)


def test_cope_snippets_give_gates_positions_and_interpolation():
    ns = _one(_view("cope", "Gates and positions", unit="words", target="2", s="2"))
    expected = cope_counting_example(TEXT, "words", 2, 2.0)
    for key in ("gates", "positions", "token_positions"):
        np.testing.assert_array_equal(getattr(ns["ex"], key), getattr(expected, key))
    ns = _one(_view("cope", "Fractional positions", unit="words", target="2", s="2", p="3.7"))
    expected = cope_interpolation_curve(2, 2.0, 3.7)
    np.testing.assert_array_equal(ns["interp"].curve, expected.curve)
    assert ns["interp"].value == expected.value
