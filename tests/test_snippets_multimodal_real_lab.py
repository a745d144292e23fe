"""The class features of the Multimodal, Inside real models and lab pages: each page's snippet, run as a student
would run it in a notebook, gives the arrays the page draws, and the numbers the page prints (its 'what to
notice' text, its metrics and the answer of its predict question) come from those same arrays.

Each page is checked at its default view and at one other view set by a link (query parameters).
"""

import numpy as np
import pytest

import posenc_core as pc
from page_kit import registry
from posenc_core.lab import (
    LAB_METHODS,
    TRAINED_METHODS,
    lab_attention_panels,
    lab_series,
    load_lab_results,
    select_methods,
    shipped_lab_results,
)
from posenc_core.multimodal import (
    MM_FAMILIES,
    MULTIMODAL_PRESETS,
    VISION_TOWERS,
    factorized_learned_table,
    mm_image_scores,
    mm_pair_axes,
    mm_pair_wavelengths,
    mm_rope_settings,
    mm_row_end_score,
    mm_time_id_table,
    parse_segments,
    read_multimodal_config,
    vision_tower_score_map,
    xd_dim_axes,
    xd_position_ids,
)
from tests import apptest_pages

BY_URL = {p.url_path: p for p in registry.all_pages()}
real = pc.real_models
needs_minilm = pytest.mark.skipif(real.MINILM_NAME in real.missing_models() or "torch" in real.missing_models(),
                                  reason="all-MiniLM-L6-v2 is not installed")


def _page(url_path: str, **query):
    return apptest_pages.load(BY_URL[url_path], **query)


_snippets = apptest_pages.run_snippets


def _snippet_with(at, name: str) -> dict:
    return next(ns for ns in _snippets(at) if name in ns)


def _text(at) -> str:
    return " ".join(m.value for m in at.markdown)


def _reveal(at, key: str) -> str:
    """Answer the predict question ``key`` with its first option; the sentence it reveals."""
    radio = at.radio(key=f"predict_{key}")
    radio.set_value(radio.options[0]).run()
    apptest_pages.assert_clean(at, f"after answering {key}")
    return next(e.value for e in [*at.success, *at.info] if e.value.startswith(("Right. ", "Not quite")))


# ---------------------------------------------------------------- Multimodal positions

MIXED = "text 4, image 3x4, text 3, video 6f 2x2 @2, text 3"  # the sequence controls' defaults


@pytest.mark.parametrize("preset, query, spec", [
    ("qwen2-vl-7b", {}, MIXED),
    ("glm-4.1v-9b", {"ih": "5", "iw": "2", "ft": "7"}, "text 4, image 5x2, text 3, video 6f 2x2 @2, text 3"),
])
def test_position_ids_snippet_gives_the_ids_the_page_draws(preset, query, spec):
    p = MULTIMODAL_PRESETS[preset]
    at = _page("mm_position_ids", model=p.name, **query)
    result = _snippet_with(at, "result")["result"]
    expected = pc.mm_position_ids(result_family(preset), parse_segments(spec), frame_text=int(query.get("ft", 1)))
    np.testing.assert_array_equal(result.ids, expected.ids)
    assert f"A token appended now gets id {result.next_text:g}" in _text(at)
    h, w = (int(v) for v in spec.split("image ")[1].split(",")[0].split("x"))
    # the what-if question: twice the columns; its reveal names the advance from the same numbering
    wider = pc.mm_position_ids(result_family(preset), parse_segments(spec.replace(f"image {h}x{w}",
                                                                                     f"image {h}x{2 * w}")),
                               frame_text=int(query.get("ft", 1)))
    image = np.flatnonzero(wider.kind == 1)
    advance = wider.ids[0, image[-1] + 1] - wider.ids[0, image[0]]
    assert advance == max(h, 2 * w)
    assert f"The text after a {h} × {2 * w} image starts {advance:g} ids after the image's first id" in \
        _reveal(at, "mm_ids_wider")


def result_family(preset: str) -> str:
    return read_multimodal_config(MULTIMODAL_PRESETS[preset].config).family


@pytest.mark.parametrize("preset", ["qwen2-vl-7b", "ernie-4.5-vl-28b-a3b"])
def test_pair_axes_snippet_gives_the_wavelengths_and_the_answer(preset):
    at = _page("mm_pair_axes", model=MULTIMODAL_PRESETS[preset].name)
    ns = _snippet_with(at, "waves")
    settings = read_multimodal_config(MULTIMODAL_PRESETS[preset].config).settings
    assert ns["settings"] == settings
    for axis, values in mm_pair_wavelengths(settings).items():
        np.testing.assert_array_equal(ns["waves"][axis], values)
    slow = int(np.sum(mm_pair_wavelengths(settings)["width"] > 64))
    assert f"{slow} of the {int(np.sum(mm_pair_axes(settings) == 2))} width pairs have a wavelength over 64" \
        in _reveal(at, "mm_axes_wide")
    families = apptest_pages.open_tab(at, "view", "All families side by side")
    axes = _snippet_with(families, "axes")["axes"]
    assert list(axes) == list(MM_FAMILIES)
    np.testing.assert_array_equal(axes["qwen2_vl"], mm_pair_axes(mm_rope_settings("qwen2_vl")))


def test_xd_rope_snippet_gives_the_ids_and_the_dimension_axes():
    at = _page("mm_pair_axes", view="XD-RoPE (HunYuan-VL)", xr="2", xc="5")
    ns = _snippet_with(at, "r")
    np.testing.assert_array_equal(ns["r"].ids, xd_position_ids(4, 2, 5, 3).ids)
    np.testing.assert_array_equal(ns["axes"]["transformers"], xd_dim_axes([16, 16, 16, 16]))
    np.testing.assert_array_equal(ns["axes"]["release"], xd_dim_axes([16, 16, 16, 16], "release"))
    assert "The same axis for 0 of 64 pairs" in _reveal(at, "mm_axes_xd_halves")


def test_pair_axes_snippet_follows_a_pasted_config():
    at = _page("mm_pair_axes", src="Your config.json")  # the text box holds Qwen3-VL 8B's config.json
    ns = _snippet_with(at, "waves")
    settings = read_multimodal_config(MULTIMODAL_PRESETS["qwen3-vl-8b"].config).settings
    assert ns["settings"] == settings
    for axis, values in mm_pair_wavelengths(settings).items():
        np.testing.assert_array_equal(ns["waves"][axis], values)


@pytest.mark.parametrize("preset, query, h, w, row, col", [
    ("qwen2-vl-7b", {}, 12, 16, 5, 7),
    ("ernie-4.5-vl-28b-a3b", {"sh": "6", "sw": "3", "qr": "5", "qc": "2"}, 6, 3, 5, 2),  # query on the right edge
])
def test_image_scores_snippet_gives_the_maps_and_the_printed_neighbours(preset, query, h, w, row, col):
    at = _page("mm_scores", model=MULTIMODAL_PRESETS[preset].name, **query)
    ns = _snippet_with(at, "own")
    reading = read_multimodal_config(MULTIMODAL_PRESETS[preset].config)
    expected = mm_image_scores(reading.family, reading.settings, h, w, row, col)
    np.testing.assert_array_equal(ns["own"].map, expected.map)
    assert f"right {ns['own'].right:.4f}, below {ns['own'].below:.4f}" in _text(at)
    for key, scores in ns["others"].items():
        assert f"{MM_FAMILIES[key].name}" in _text(at)
        assert f"right {scores.right:.4f}, below {scores.below:.4f}" in _text(at)
    # the what-if: the same query in an image twice as wide, scored with the last patch of its row
    far = mm_row_end_score(reading.family, reading.settings, h, w, row, col)
    wider = mm_image_scores(reading.family, reading.settings, h, 2 * w, row, col).map
    assert far.score == wider[row, 2 * w - 1]
    assert f"column {2 * w - 1} ({2 * w - 1 - col} columns from the query) {far.score:.4f}" in \
        _reveal(at, "mm_scores_wider")


def test_fps_snippet_gives_the_time_ids_and_the_answer():
    at = _page("mm_scores", view="Frame index or seconds", ff="12", fa="0.5", fb="8")
    table = _snippet_with(at, "table")["table"]
    expected = mm_time_id_table(12, (0.5, 8.0), ("qwen2_vl", "qwen2_5_vl", "qwen3_omni"))
    np.testing.assert_array_equal(table.seconds, expected.seconds)
    for name, values in expected.series.items():
        np.testing.assert_array_equal(table.series[name], values)
    last = [v[np.isfinite(v)][-1] for (family, _), v in table.series.items() if family == "qwen2_vl"]
    assert f"the last group id {last[0]:g} at 0.5 fps and {last[1]:g} at 8 fps" in _reveal(at, "mm_scores_fps")


@pytest.mark.parametrize("query, row, col", [({}, 8, 12), ({"gh": "10", "gw": "20", "r": "3", "c": "19"}, 3, 19)])
def test_vision_snippet_gives_the_relative_maps(query, row, col):
    at = _page("vision_rope", **query)
    ns = _snippet_with(at, "qwen")
    h, w = ns["qwen"].shape
    tower = next(k for k, t in VISION_TOWERS.items() if t.layout == "hwhw")  # the select's default
    raw = vision_tower_score_map(tower, h, w, row, col)
    np.testing.assert_array_equal(ns["qwen"], raw / raw[row, col])
    np.testing.assert_array_equal(ns["gemma"], vision_tower_score_map("gemma4", h, w, row, col, relative=True))
    np.testing.assert_array_equal(ns["learned"], factorized_learned_table(h, w, 64, query=(row, col)))
    far = min(w - 1, col + 16) if col < w - 1 else max(0, col - 16)
    shown = f"scores {ns['qwen'][row, far]:.3f} and Gemma 4 {ns['gemma'][row, far]:.3f}"
    assert shown in _text(at).replace("still scores", "scores")
    # the what-if: the Qwen tower with Gemma 4's theta, at the same far patch
    swapped = vision_tower_score_map(tower, h, w, row, col, theta=100.0, relative=True)[row, far]
    assert f"{abs(far - col)} columns along {swapped:.3f}" in _reveal(at, "vision_theta")


# ---------------------------------------------------------------- Inside real models

@needs_minilm
@pytest.mark.parametrize("query, text, seed", [({}, "the dog bit the man", 0),
                                               ({"text": "a cat chased the red ball home", "seed": "3"},
                                                "a cat chased the red ball home", 3)])
def test_encoder_snippet_gives_the_shuffle_change_and_the_metrics(query, text, seed):
    at = _page("real_encoder", **query)
    ns = _snippet_with(at, "with_rows")
    r = real.encoder_order_experiment(text, seed)
    np.testing.assert_array_equal(ns["with_rows"], r.embeddings[(True, True)] - r.embeddings[(True, False)])
    np.testing.assert_array_equal(ns["without"], r.embeddings[(False, True)] - r.embeddings[(False, False)])
    shown = [m.value for m in at.metric][:2]
    assert shown[0] == f"{ns['r'].cosine[True]:.6f}"
    # without rows the cosine is 1 to float32 rounding: the model's float32 sums land within about 1e-13 of each
    # other from one call to the next, which moves the twelfth decimal the page prints (0.999999999999 or 1.0)
    assert abs(float(shown[1]) - ns["r"].cosine[False]) <= 2e-12, (shown, ns["r"].cosine[False])
    assert f"cosine {ns['r'].cosine[False]:.10f}" in _reveal(at, "encoder_no_rows")


@needs_minilm
def test_encoder_heads_snippet_gives_the_panels_and_the_answer():
    at = _page("real_encoder", view="Positional heads")
    ns = _snippet_with(at, "grids")
    h = real.positional_heads()
    for got, expected in zip(ns["grids"], [h.previous[True], h.next[True], h.previous[False],
                                           h.next[False]], strict=True):
        np.testing.assert_array_equal(got, expected)
    layer, head, kept = ns["h"].top["previous"]
    removed = ns["h"].previous[False][layer - 1, head - 1]
    assert f"{kept:.3f} of its weight on the previous token with the rows and {removed:.3f} without" in \
        _reveal(at, "encoder_prev_head")


@pytest.mark.parametrize("query", [{}, {"layer": "7"}])
def test_frequency_snippets_give_the_energy_curves_and_the_head_grid(query):
    at = _page("real_frequencies", **query)
    found = real.attention_findings(real.shipped_attention_summary(), real.SMOLLM2_CONTEXT)
    ns = _snippet_with(at, "queries")
    np.testing.assert_array_equal(ns["queries"], found.q_pairs)
    np.testing.assert_array_equal(ns["keys"], found.k_pairs)
    layer = int(query.get("layer", 1))
    view = real.layer_findings(real.shipped_attention_summary(), layer)
    np.testing.assert_array_equal(_snippet_with(at, "grid")["grid"],
                                  real.shipped_attention_summary().q_share[layer - 1])
    assert f"context, hold {100 * found.q_slow:.0f}% of the query energy" in _text(at)  # the hero's notice
    revealed = _reveal(at, "real_freq_layer")
    assert f"hold {100 * view.q_slow:.0f}% of its query energy, against {100 * found.q_slow:.0f}%" in revealed


@pytest.mark.parametrize("query, layers", [({}, (1, 8, 15, 22, 30)), ({"layers": ["3", "29"]}, (3, 29))])
def test_distance_snippet_gives_the_curves_the_page_draws(query, layers):
    at = _page("real_distance", **query)
    ns = _snippet_with(at, "weights")
    profile = real.distance_profile(real.shipped_attention_summary(), layers)
    assert list(ns["weights"]) == [f"layer {layer}" for layer in layers]
    for layer in layers:
        np.testing.assert_array_equal(ns["weights"][f"layer {layer}"], profile.layer_weight[layer - 1, 1:])
    assert f"{ns['profile'].far_ratio:.2f} times the uniform share" in _reveal(at, "real_distance_far")


@pytest.mark.parametrize("query, bins", [({}, 256), ({"bin": "1024"}, 1024)])
def test_long_context_snippet_gives_the_binned_losses(query, bins):
    at = _page("real_long_context", **query)
    ns = _snippet_with(at, "losses")
    s = real.long_context_summary(real.shipped_long_context(), bins)
    np.testing.assert_array_equal(ns["start"], s.start)
    assert list(ns["losses"]) == list(real.LONG_METHODS)  # keyed by method name
    for name, values in s.loss.items():
        np.testing.assert_array_equal(ns["losses"][name], values)
    assert f"to {ns['s'].past['none']:.3f} past it" in _reveal(at, "real_long_past")


@pytest.mark.parametrize("query, bug", [({}, "permute"), ({"bug": "YaRN factor dropped"}, "yarn_mscale")])
def test_porting_bug_snippet_gives_the_curves_and_the_answer(query, bug):
    at = _page("porting_bugs", **query)
    ns = _snippet_with(at, "buggy")
    s = real.porting_bug_summary(real.shipped_porting_bugs(), bug)
    np.testing.assert_array_equal(ns["correct"], s.correct_curve)
    np.testing.assert_array_equal(ns["buggy"], s.buggy_curve)
    np.testing.assert_array_equal(ns["weight_buggy"], s.weight_buggy)
    assert f"{s.buggy:.4f} with the bug" in _text(at)
    assert f"{ns['weight_buggy'][1]:.4f} with the bug" in _reveal(at, "bugs_previous")


# ---------------------------------------------------------------- Extrapolation lab

@pytest.mark.parametrize("methods", [None, ["sinusoidal", "rope", "alibi", "rope_pi"]])
def test_lab_snippet_gives_the_shipped_curves_and_the_answers(methods):
    query = {} if methods is None else {"methods": [LAB_METHODS[m].label for m in methods]}
    at = _page("lab", **query)
    ns = _snippet_with(at, "accuracy")
    result = select_methods(shipped_lab_results(), methods or list(LAB_METHODS))
    lengths, accuracy = lab_series(result, "accuracy")
    np.testing.assert_array_equal(ns["lengths"], lengths)
    assert list(ns["accuracy"]) == list(accuracy)
    for label, values in accuracy.items():
        np.testing.assert_array_equal(ns["accuracy"][label], values)
    revealed = _reveal(at, "lab_longest")
    for label in (LAB_METHODS[m].label for m in ("sinusoidal", "rope", "alibi")):
        assert f"{label} {accuracy[label][-1]:.3f}" in revealed
    loss_view = apptest_pages.open_tab(at, "view", "Loss vs length")
    _, loss = lab_series(result, "loss")
    np.testing.assert_array_equal(_snippet_with(loss_view, "loss")["loss"][LAB_METHODS["rope_pi"].label],
                                  loss[LAB_METHODS["rope_pi"].label])
    assert f"{loss[LAB_METHODS['rope_pi'].label][1]:.3g} nats" in _reveal(loss_view, "lab_pi")
    maps_view = apptest_pages.open_tab(at, "view", "Attention maps")
    ns = _snippet_with(maps_view, "grids")
    panels = lab_attention_panels(result, "T", [m for m in result.attention if m in TRAINED_METHODS])
    assert [p.method for p in ns["panels"]] == [p.method for p in panels]
    for got, expected in zip(ns["grids"], panels, strict=True):
        np.testing.assert_array_equal(got, expected.grid)


# ---------------------------------------------------------------- the core helpers the snippets call

def test_shipped_results_load_the_files_the_pages_name():
    import dataclasses

    from posenc_core.lab.results import SHIPPED_LAB_JSON
    from posenc_core.real_models.attention_stats import SHIPPED_ATTENTION as ATTENTION_NPZ
    from posenc_core.real_models.long_context import SHIPPED_LONG_CONTEXT

    shipped, by_path = real.shipped_attention_summary(), real.load_summary(ATTENTION_NPZ)
    for field in dataclasses.fields(shipped):
        np.testing.assert_array_equal(getattr(shipped, field.name), getattr(by_path, field.name))
    long = real.shipped_long_context()
    assert long == real.load_long_context(SHIPPED_LONG_CONTEXT)
    lab = shipped_lab_results()
    assert lab.methods == load_lab_results(SHIPPED_LAB_JSON).methods
    assert set(lab.attention) <= set(lab.methods)  # the maps came with it


@pytest.mark.parametrize("key", list(VISION_TOWERS))
def test_relative_score_map_is_one_at_the_query(key):
    raw = vision_tower_score_map(key, 5, 7, 2, 6)
    relative = vision_tower_score_map(key, 5, 7, 2, 6, relative=True)
    assert relative[2, 6] == 1.0
    np.testing.assert_array_equal(relative, raw / raw[2, 6])


@needs_minilm
def test_shuffle_change_is_the_difference_of_the_embeddings():
    r = real.encoder_order_experiment("she gave him the book before he left", 4)
    for rows in (True, False):
        np.testing.assert_array_equal(r.shuffle_change[rows],
                                      r.embeddings[(rows, True)] - r.embeddings[(rows, False)])
        assert np.abs(r.shuffle_change[rows]).max() == r.max_abs_diff[rows]
    assert r.max_abs_diff[False] < 1e-5 < r.max_abs_diff[True]  # no rows: order is invisible
