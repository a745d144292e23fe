import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from posenc_core.todays_models import (
    FEWER_FREQUENCY_METHODS,
    dimension_frequencies,
    fewer_frequencies,
    fewer_frequency_summaries,
    frequency_score_curves,
    p_rope_inv_freq,
)

torch = pytest.importorskip("torch")


def test_proportional_is_bit_identical_with_gemma4_for_each_layer_type():
    from transformers import Gemma4TextConfig
    from transformers.models.gemma4.modeling_gemma4 import Gemma4TextRotaryEmbedding

    config = Gemma4TextConfig()
    rotary = Gemma4TextRotaryEmbedding(config)
    for layer_type, params in config.rope_parameters.items():
        if params["rope_type"] != "proportional":
            continue
        head_dim = config.per_layer_config[layer_type].head_dim
        scaling = {k: v for k, v in params.items() if k != "rope_theta"}
        ours, factor = pc.rope_inv_freq(head_dim, params["rope_theta"], scaling)
        theirs = getattr(rotary, f"{layer_type}_inv_freq").numpy()
        assert ours.dtype == theirs.dtype == np.float32
        np.testing.assert_array_equal(ours, theirs)
        assert factor == getattr(rotary, f"{layer_type}_attention_scaling")
    assert "proportional" in {p["rope_type"] for p in config.rope_parameters.values()}


def test_proportional_is_bit_identical_with_rope_init_functions():
    # every combination, not a sample: one of them (head_dim 128, three quarters, base 1e6) once differed by an
    # ulp, and 30 random draws found it in about one run of three
    from transformers import PreTrainedConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    for head_dim, p, base, factor in itertools.product([8, 64, 96, 128, 256, 512], [0.125, 0.25, 0.3, 0.5, 0.75, 1.0],
                                                       [10000.0, 1e6, 500000.0], [1.0, 2.0, 8.0]):
        params = {"rope_type": "proportional", "rope_theta": base, "partial_rotary_factor": p, "factor": factor}
        config = PreTrainedConfig()
        config.head_dim, config.hidden_size, config.num_attention_heads = head_dim, head_dim, 1
        config.rope_parameters = dict(params)
        theirs, _ = ROPE_INIT_FUNCTIONS["proportional"](config)
        ours, _ = pc.rope_inv_freq(head_dim, base, {k: v for k, v in params.items() if k != "rope_theta"})
        np.testing.assert_array_equal(ours, theirs.numpy(), err_msg=str((head_dim, p, base, factor)))


def _x(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("model", ["gpt_neox", "glm"])
def test_partial_rotary_matches_gpt_neox_and_glm_modules(model):
    import importlib

    mod = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    if model == "gpt_neox":
        from transformers import GPTNeoXConfig as Config
        config = Config(hidden_size=64, num_attention_heads=2, rotary_pct=0.25, rotary_emb_base=10000)
        rotary = mod.GPTNeoXRotaryEmbedding(config)
        layout = "half"
    else:
        from transformers import GlmConfig as Config
        config = Config(hidden_size=64, num_attention_heads=2, head_dim=32, partial_rotary_factor=0.5)
        rotary = mod.GlmRotaryEmbedding(config)
        layout = "interleaved"
    head_dim = 32
    factor = config.rope_parameters.get("partial_rotary_factor", getattr(config, "partial_rotary_factor", None))
    q, k = _x(0, 1, 2, 7, head_dim), _x(1, 1, 2, 7, head_dim)
    positions = np.arange(100, 107)
    cos, sin = rotary(torch.from_numpy(q), torch.from_numpy(positions)[None])
    tq, tk = mod.apply_rotary_pos_emb(torch.from_numpy(q), torch.from_numpy(k), cos, sin)
    inv_freq, _ = pc.rope_inv_freq(head_dim, config.rope_parameters["rope_theta"], partial_rotary_factor=factor)
    np.testing.assert_allclose(pc.apply_rope(q, positions, inv_freq, layout), tq.numpy(), atol=2e-5)
    np.testing.assert_allclose(pc.apply_rope(k, positions, inv_freq, layout), tk.numpy(), atol=2e-5)
    rotated = 2 * inv_freq.shape[0]
    np.testing.assert_array_equal(tq.numpy()[..., rotated:], q[..., rotated:])  # the tail passes through


@settings(max_examples=30, deadline=None)
@given(head_dim=st.sampled_from([2, 8, 64, 256]), base=st.sampled_from([100.0, 10000.0, 1e6]))
def test_p_rope_at_fraction_one_equals_rope(head_dim, base):
    np.testing.assert_array_equal(p_rope_inv_freq(head_dim, base, 1.0), pc.base_inv_freq(base, head_dim))
    np.testing.assert_allclose(dimension_frequencies("p-RoPE", head_dim, base, 1.0),
                               dimension_frequencies("RoPE", head_dim, base), rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(head_dim=st.sampled_from([8, 64, 128, 512]), p=st.floats(0.05, 1.0))
def test_p_rope_keeps_the_fastest_pairs_and_zeroes_the_rest(head_dim, p):
    inv = p_rope_inv_freq(head_dim, 10000.0, p)
    kept = int(np.floor(p * head_dim / 2))
    assert (inv[:kept] > 0).all() and (inv[kept:] == 0).all()
    # the kept ones are exactly RoPE's, so a kept pair's wavelength does not depend on p
    np.testing.assert_array_equal(inv[:kept], pc.base_inv_freq(10000.0, head_dim)[:kept])


def test_partial_keeps_the_wavelength_range_and_p_rope_cuts_it():
    partial = fewer_frequencies("partial rotary", 128, 10000.0, 0.25, 4096)
    p_rope = fewer_frequencies("p-RoPE", 128, 10000.0, 0.25, 4096)
    full = fewer_frequencies("RoPE", 128, 10000.0, 1.0, 4096)
    assert partial.rotated_dims == p_rope.rotated_dims == 32 and partial.still_dims == 96
    assert partial.shortest_wavelength == pytest.approx(2 * np.pi)
    # partial: exponents over r = 32, so its slowest pair is 10000^(30/32); p-RoPE stops at 10000^(30/128)
    assert partial.longest_wavelength == pytest.approx(2 * np.pi * 10000 ** (30 / 32), rel=1e-6)
    assert p_rope.longest_wavelength == pytest.approx(2 * np.pi * 10000 ** (30 / 128), rel=1e-6)
    assert full.still_share == 0 and p_rope.still_share == 0.75


def test_score_curves_start_at_one_and_still_dims_set_the_floor():
    curves = frequency_score_curves(64, 10000.0, 0.25, 2000, 300)
    for method in FEWER_FREQUENCY_METHODS:
        assert curves.scores[method][0] == pytest.approx(1.0)
    # three quarters of the dimensions never turn: the score never falls below 0.75 - 0.25
    assert curves.scores["p-RoPE"].min() >= 0.5 - 1e-9 and curves.scores["partial rotary"].min() >= 0.5 - 1e-9


def _score_curves_per_method(head_dim, base, fraction, max_distance, points):
    """frequency_score_curves before it took each distinct frequency's cosines once: a whole table per method."""
    distance = np.unique(np.concatenate([[0.0], np.round(np.geomspace(1, max_distance, points - 1))]))
    curves = {"distance": distance}
    for method in FEWER_FREQUENCY_METHODS:
        omega = dimension_frequencies(method, head_dim, base, fraction)
        curves[method] = np.cos(np.multiply.outer(distance, omega)).mean(axis=1)
    far = distance > max_distance / 2
    curves["far_mean"] = {m: float(curves[m][far].mean()) for m in FEWER_FREQUENCY_METHODS}
    return curves


@settings(max_examples=40, deadline=None)
@given(head_dim=st.sampled_from([2, 4, 6, 10, 64, 96, 128, 256, 512]),
       base=st.sampled_from([10.0, 10000.0, 500000.0, 1e7]),
       fraction=st.sampled_from([0.125, 0.25, 0.3, 0.5, 0.75, 1.0]),
       max_distance=st.sampled_from([1, 7, 2048, 32768, 1048576]), points=st.sampled_from([2, 3, 37, 300, 800]))
def test_score_curves_match_a_table_per_method_bit_for_bit(head_dim, base, fraction, max_distance, points):
    try:
        expected = _score_curves_per_method(head_dim, base, fraction, max_distance, points)
    except ValueError as error:  # too few dimensions for the fraction: the same refusal
        with pytest.raises(ValueError, match=str(error).split(",")[0]):
            frequency_score_curves(head_dim, base, fraction, max_distance, points)
        return
    curves = frequency_score_curves(head_dim, base, fraction, max_distance, points)
    assert ["distance", *curves.scores, "far_mean"] == list(expected)
    assert np.array_equal(curves.distance, expected["distance"])
    for key in FEWER_FREQUENCY_METHODS:
        assert np.array_equal(curves.scores[key], expected[key]), key
    far, far_expected = curves.far_mean, expected["far_mean"]
    assert list(far) == list(far_expected)  # NaN for max_distance 1: no distance lies in the far half
    assert np.array_equal(list(far.values()), list(far_expected.values()), equal_nan=True)


def test_errors_are_sentences():
    with pytest.raises(ValueError, match="no pair"):
        fewer_frequencies("p-RoPE", 64, 10000.0, 0.01)
    with pytest.raises(ValueError, match="method"):
        dimension_frequencies("xpos", 64)
    with pytest.raises(ValueError, match="even"):
        p_rope_inv_freq(63)
    with pytest.raises(ValueError, match="at most 1"):
        p_rope_inv_freq(64, p=1.5)


def test_an_odd_rotary_dim_rotates_what_transformers_rotates():
    # int(10 * 0.3) = 3: transformers' arange(0, 3, 2) gives two frequencies, and apply_rotary_pos_emb rotates
    # cos.shape[-1] = 4 dims, so four dims turn and six stay still.
    odd = fewer_frequencies("partial rotary", 10, 10000.0, 0.3)
    assert (odd.pairs, odd.rotated_dims, odd.still_dims) == (2, 4, 6)


def test_summaries_give_rope_the_whole_head_and_the_others_the_fraction():
    summaries = fewer_frequency_summaries(128, 10000.0, 0.25, 4096)
    assert list(summaries) == list(FEWER_FREQUENCY_METHODS)
    assert summaries["RoPE"].rotated_dims == 128
    assert {summaries[m].rotated_dims for m in FEWER_FREQUENCY_METHODS if m != "RoPE"} == {32}
