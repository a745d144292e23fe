"""The snippets of the attention-bias, long-context and image lessons reproduce what their pages draw.

Each page is opened at its default view and at one other view (set through the URL, as a shared link
would); the snippet shown next to the default tab's figure is run as a student would run it in a notebook,
and what it names is compared with the core call the page makes for that view: bit for bit, because the
page and the snippet make the same call.
"""

import numpy as np
import pytest

import posenc_core as pc
from page_kit import registry
from posenc_core.attention_bias import (
    nope_outputs,
    parameter_counts,
    shaw_clipped_distance,
    shaw_example,
    uniform_attention_weights,
)
from posenc_core.configs import config_contexts, config_view, describe_rope_config
from posenc_core.images import encoding_tables, patch_similarity_maps, vit_position_table
from posenc_core.long_context import (
    EXTENSION_METHODS,
    PHI35_LONG_FACTOR,
    PHI35_SHORT_FACTOR,
    deepseek_softmax_mscale,
    dual_chunk_grid,
    extension_analysis,
    extension_at_defaults,
    extension_scaling,
    score_vs_distance,
)
from tests import apptest_pages

BY_URL = {p.url_path: p for p in registry.all_pages()}


def _snippets(url_path: str, **query) -> list[dict]:
    """The namespaces left by running each snippet of the page's default view."""
    return apptest_pages.run_snippets(apptest_pages.load(BY_URL[url_path], **query), url_path)


def _named(spaces: list[dict], name: str):
    found = [s[name] for s in spaces if name in s]
    assert found, f"no snippet names {name!r}"
    return found[0]


@pytest.mark.parametrize("query, settings", [
    ({}, (True, 32, 128, 256)),
    ({"nb": "16", "mode": "causal", "md": "40", "span": "64"}, (False, 16, 40, 64)),
])
def test_t5_snippet_reproduces_the_bucket_curve(query, settings):
    bidirectional, buckets, max_distance, span = settings
    bucket = _named(_snippets("t5", **query), "bucket")
    expected = pc.t5_relative_position_bucket(list(range(-span, span + 1)), bidirectional, buckets, max_distance)
    np.testing.assert_array_equal(bucket, expected)


@pytest.mark.parametrize("query, settings", [
    ({}, (24, 16, "start token", 0)),
    ({"n": "40", "d": "8", "input": "random", "seed": "3"}, (40, 8, "random", 3)),
])
def test_nope_snippet_reproduces_the_weights_and_outputs(query, settings):
    n, dim, pattern, seed = settings
    spaces = _snippets("nope", **query)
    np.testing.assert_array_equal(_named(spaces, "weights"), uniform_attention_weights(n, causal=True))
    out, expected = _named(spaces, "out"), nope_outputs(n, dim, pattern, seed)
    for key in ("causal", "bidirectional"):
        np.testing.assert_array_equal(getattr(out, key), getattr(expected, key))


@pytest.mark.parametrize("query, settings", [({}, (16, 4, 8, 0)), ({"n": "10", "k": "2", "d": "6"}, (10, 2, 6, 0))])
def test_shaw_snippet_reproduces_the_clipped_grid_and_the_table(query, settings):
    n, k, dim, seed = settings
    spaces = _snippets("shaw", **query)
    np.testing.assert_array_equal(_named(spaces, "grid"), shaw_clipped_distance(n, None, k))
    table = _named(spaces, "table")
    assert table.shape == (2 * k + 1, dim)
    np.testing.assert_array_equal(table, shaw_example(n, dim, k, seed).a_k)


@pytest.mark.parametrize("query, shape", [
    ({}, (512, 8, 6, 512, 32, 16)),
    ({"dm": "1024", "h": "16", "L": "12", "lmax": "2,048", "nb": "64", "k": "8"}, (1024, 16, 12, 2048, 64, 8)),
])
def test_compare_snippet_reproduces_the_table(query, shape):
    counts = _named(_snippets("compare", **query), "counts")
    assert counts == parameter_counts(*shape)


@pytest.mark.parametrize("query, settings", [
    ({}, (["linear", "ntk", "yarn", "llama3"], 128, 10000.0, 4096, 8.0)),
    ({"s": "4", "L": "8,192", "d": "64", "base": "500,000", "ms": ["YaRN", "LongRoPE"]},
     (["yarn", "longrope"], 64, 500000.0, 8192, 4.0)),
])
def test_extension_compare_snippet_reproduces_each_methods_curve(query, settings):
    chosen, head_dim, base, original, factor = settings
    space = next(s for s in _snippets("extension_compare", **query) if "result" in s)
    assert space["method"] == chosen[-1]  # the loop ran through the chosen methods, this one last
    result, distances, scores = extension_at_defaults(chosen[-1], head_dim, base, original, factor)
    np.testing.assert_array_equal(space["result"].ratio, result.ratio)
    np.testing.assert_array_equal(space["scores"], scores)
    np.testing.assert_array_equal(space["distances"], distances)


@pytest.mark.parametrize("query, settings", [({}, (192, 80, 16)), ({"n": "64", "cs": "48", "ls": "0"}, (64, 48, 0))])
def test_dual_chunk_snippet_reproduces_the_distance_grid(query, settings):
    g = _named(_snippets("dual_chunk", **query), "g")
    expected = dual_chunk_grid(*settings)
    for key in ("distance", "plain", "kind"):
        np.testing.assert_array_equal(getattr(g, key), getattr(expected, key))


@pytest.mark.parametrize("preset", ["llama3.1-8b", "llama2-7b", "gemma4"])  # scaled, unscaled, p-RoPE
def test_model_configs_snippet_reproduces_what_was_read(preset):
    query = {} if preset == "llama3.1-8b" else {"model": pc.PRESETS[preset].name}  # the URL holds the label
    view = _named(_snippets("model_configs", **query), "view")
    expected = config_view(pc.preset_config(preset))
    assert (view.original, view.target, view.how) == (expected.original, expected.target, expected.how)
    assert view.read == expected.read
    for key in ("distances", "before"):
        np.testing.assert_array_equal(getattr(view, key), getattr(expected, key))


@pytest.mark.parametrize("query, settings", [
    ({}, (14, 14, 64, 10000.0)),
    ({"gh": "6", "gw": "9", "d": "32", "base": "100"}, (6, 9, 32, 100.0)),
])
def test_patches_snippet_reproduces_the_similarity_maps(query, settings):
    h, w, dim, base = settings
    sim = _named(_snippets("patches", **query), "sim")
    np.testing.assert_array_equal(sim, patch_similarity_maps(pc.sincos_2d(h, w, dim, base), h, w, "cosine"))


@pytest.mark.parametrize("query, settings", [
    ({}, ("sincos", 14, 24, 64, 1, "bicubic", True)),
    ({"src": "learned-like (seeded)", "mode": "nearest", "old": "8", "new": "12", "d": "32", "cls": "0"},
     ("learned", 8, 12, 32, 0, "nearest", True)),
])
def test_resize_snippet_reproduces_the_maps_before_and_after(query, settings):
    src, old, new, dim, prefix, mode, antialias = settings
    spaces = _snippets("resize", **query)
    table = vit_position_table(src, old, dim, prefix, seed=0)
    resized = pc.resample_pos_embed(table, (old, old), (new, new), prefix, mode, antialias)
    np.testing.assert_array_equal(_named(spaces, "resized"), resized)
    before = patch_similarity_maps(table, old, old, "cosine", prefix)
    np.testing.assert_array_equal(_named(spaces, "before"), before)
    after = patch_similarity_maps(resized, new, new, "cosine", prefix)
    np.testing.assert_array_equal(_named(spaces, "after"), after)


@pytest.mark.parametrize("query, settings", [({}, (4, 5.0, 32)), ({"L": "7", "s": "20", "m": "96"}, (7, 20.0, 96))])
def test_fourier_snippet_reproduces_the_encodings(query, settings):
    octaves, sigma, features = settings
    tables = _named(_snippets("fourier", **query), "tables")
    expected = encoding_tables(octaves, sigma, features, 0)
    for key in ("p", "nerf", "fourier", "frequency"):
        np.testing.assert_array_equal(getattr(tables, key), getattr(expected, key))


# The two core functions the snippets call, against the compositions they replace on the pages.

@pytest.mark.parametrize("method", [None, *EXTENSION_METHODS])
def test_extension_at_defaults_is_the_analysis_at_every_default_knob(method):
    head_dim, base, original, factor = 96, 10000.0, 4096, 8.0
    result, distances, scores = extension_at_defaults(method, head_dim, base, original, factor)
    if method is None:
        scaling, max_pos = None, None
    else:
        scaling, max_pos = extension_scaling(method, factor, original, short_factor=PHI35_SHORT_FACTOR,
                                                long_factor=PHI35_LONG_FACTOR)  # exact at head_dim 96
    expected = extension_analysis(head_dim, base, scaling, original=original, target=32768,
                                     max_position_embeddings=max_pos)
    np.testing.assert_array_equal(result.inv_freq_after, expected.inv_freq_after)
    assert result.attention_factor == expected.attention_factor
    frequencies = expected.inv_freq_before if method is None else expected.inv_freq_after
    want_d, want_s = score_vs_distance(frequencies, 1.0 if method is None else expected.attention_factor,
                                          4 * 32768)
    np.testing.assert_array_equal(distances, want_d)
    np.testing.assert_array_equal(scores, want_s)


def test_extension_at_defaults_rejects_bad_input_with_a_sentence():
    with pytest.raises(ValueError, match="head_dim"):
        extension_at_defaults("yarn", 7, 10000.0, 4096, 8.0)
    with pytest.raises(ValueError, match="must be one of"):
        extension_at_defaults("no-such-method", 128, 10000.0, 4096, 8.0)


@pytest.mark.parametrize("preset", list(pc.PRESETS))
def test_config_view_reads_each_preset_as_the_config_functions_do(preset):
    config = pc.preset_config(preset)
    try:
        read = pc.read_rope_config(config)
    except ValueError as error:  # e.g. a model whose every layer is NoPE: the page shows the same sentence
        with pytest.raises(ValueError, match=str(error)[:40]):
            config_view(config)
        return
    view = config_view(config)
    assert view.read == read
    assert (view.original, view.target, view.how) == config_contexts(read)
    assert view.rows == describe_rope_config(config)
    assert view.softmax_scale == deepseek_softmax_mscale(read.scaling)
    if view.target is None:
        assert view.after is None and view.distances.shape == view.before.shape
    else:
        np.testing.assert_array_equal(view.pairs.inv_freq_before, pc.rope_inv_freq(
            read.head_dim, read.base, None, partial_rotary_factor=read.partial_rotary_factor)[0].astype(np.float64))
        assert view.after.shape == view.before.shape == view.distances.shape
