"""llama.cpp's context shift (posenc_core.inference.context_shift): the plan, the K-shift against transformers'
rotary, the rounding that builds up over many shifts, and every refused argument."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

import posenc_core as pc
from posenc_core._libm import c_powf
from posenc_core.inference import (
    KSHIFT_ANGLES,
    KSHIFT_DTYPES,
    KSHIFT_HEADS,
    context_shift_plan,
    kshift,
    kshift_angles,
    kshift_error_curve,
    kshift_scores,
)


def _rotary(head_dim: int, base: float) -> LlamaRotaryEmbedding:
    config = LlamaConfig(hidden_size=head_dim * 2, num_attention_heads=2, head_dim=head_dim,
                         rope_parameters={"rope_type": "default", "rope_theta": base})
    return LlamaRotaryEmbedding(config)


def _hf_rope(keys: torch.Tensor, positions, head_dim: int, base: float) -> torch.Tensor:
    """transformers' own rotary: the module's cos / sin at ``positions``, applied by apply_rotary_pos_emb."""
    ids = torch.as_tensor(positions, dtype=torch.int64).reshape(1, -1)
    x = keys[None, None]  # (1, 1, n, d): batch, heads, seq, head_dim
    cos, sin = _rotary(head_dim, base)(x, ids)
    _, k = apply_rotary_pos_emb(x, x, cos.to(keys.dtype), sin.to(keys.dtype))
    return k[0, 0]


def _keys(n: int, d: int, seed: int = 0, dtype=torch.float32) -> torch.Tensor:
    return torch.from_numpy(np.random.default_rng(seed).standard_normal((n, d))).to(dtype)


# --- the plan -------------------------------------------------------------------------------------------------

def test_plan_known_values_with_the_default_rule():
    plan = context_shift_plan(10, 2)
    assert plan.n_discard == 4 and plan.n_left == 8 and plan.default
    np.testing.assert_array_equal(plan.new, [0, 1, np.nan, np.nan, np.nan, np.nan, 2, 3, 4, 5])
    assert list(plan.status) == ["kept"] * 2 + ["dropped"] * 4 + ["shifted"] * 4
    np.testing.assert_array_equal(plan.delta, [0] * 6 + [-4] * 4)
    assert plan.next_position == 6 and plan.survived == 1 and plan.offset_change == -4


def test_plan_with_nothing_kept_moves_every_offset_together():
    plan = context_shift_plan(9, 0, 3)
    assert not plan.default and plan.offset_change == 0 and plan.survived == 2
    np.testing.assert_array_equal(plan.new[3:], np.arange(6))


@pytest.mark.parametrize("n_tokens,n_keep,n_discard", [(4096, 4, 0), (4096, 4, 4), (64, 0, 1), (33, 5, 7)])
def test_survived_counts_the_shifts_the_newest_token_lives_through(n_tokens, n_keep, n_discard):
    plan = context_shift_plan(n_tokens, n_keep, n_discard)
    position, shifts = n_tokens - 1, 0  # the newest token, followed shift after shift as the context refills
    while position >= n_keep + plan.n_discard:
        position -= plan.n_discard
        shifts += 1
    assert plan.survived == shifts


# --- the K-shift against transformers' rotary ------------------------------------------------------------------

@pytest.mark.parametrize("head_dim,base", [(64, 100000.0), (128, 10000.0)])
def test_one_shift_equals_transformers_rotary_at_the_new_positions(head_dim, base):
    """Keys rotated by transformers to p, shifted back by n_discard, match transformers' keys at p - n_discard
    (float32 throughout: the tolerance is float32 angles at positions up to 2,100)."""
    n_discard = 1000
    positions = np.arange(1100, 2100)
    raw = _keys(positions.shape[0], head_dim)
    shifted = kshift(_hf_rope(raw, positions, head_dim, base), -n_discard, base, dtype="float32")
    fresh = _hf_rope(raw, positions - n_discard, head_dim, base).numpy()
    np.testing.assert_allclose(shifted, fresh, rtol=0, atol=2100 * 2.0**-23 * 8)


def test_the_k_shift_is_apply_rotary_pos_emb_at_delta_bit_for_bit_in_float32():
    """In float32 with the transformers angle rule, a shift by delta is exactly transformers' apply_rotary_pos_emb
    with its rotary module's cos and sin at position delta, applied to the stored keys."""
    head_dim, base = 64, 100000.0
    keys = _hf_rope(_keys(300, head_dim, 1), np.arange(500, 800), head_dim, base)
    for delta in (-1, -4, -250, -2048, 3):
        mine = kshift(keys, delta, base, dtype="float32", rule="transformers")
        theirs = _hf_rope(keys, np.full(300, delta), head_dim, base).numpy()
        np.testing.assert_array_equal(mine, theirs)


def test_the_llama_cpp_angles_follow_ggml_and_stay_within_float32_of_transformers():
    angles = kshift_angles(-4, 64, 100000.0)
    scale = c_powf(100000.0, np.float32(-2.0) / np.float32(64))  # C's powf, as ggml calls it
    assert angles.dtype == np.float32 and angles[0] == np.float32(-4)
    np.testing.assert_array_equal(angles[1:], (angles[:-1] * scale).astype(np.float32))
    theirs = kshift_angles(-4, 64, 100000.0, rule="transformers")
    np.testing.assert_allclose(angles, theirs, rtol=32 * 2.0**-23)
    exact = -4 * pc.base_inv_freq(100000.0, 64)
    np.testing.assert_allclose(angles, exact, rtol=32 * 2.0**-23)


def test_float16_and_bfloat16_keys_stay_in_their_type():
    keys = _keys(16, 32, 2)
    for dtype, torch_dtype in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        out = kshift(keys, -8, 10000.0, dtype=dtype, times=3)
        assert out.dtype == np.float32
        assert torch.equal(torch.from_numpy(out).to(torch_dtype).float(), torch.from_numpy(out))


@settings(max_examples=25, deadline=None)
@given(a=st.integers(-500, 500), b=st.integers(-500, 500), rule=st.sampled_from(list(KSHIFT_ANGLES)))
def test_shifting_by_a_then_b_is_shifting_by_a_plus_b(a, b, rule):
    keys = _keys(8, 16, 3)
    twice = kshift(kshift(keys, a, 10000.0, dtype="float32", rule=rule), b, 10000.0, dtype="float32", rule=rule)
    once = kshift(keys, a + b, 10000.0, dtype="float32", rule=rule)
    np.testing.assert_allclose(twice, once, rtol=0, atol=1000 * 2.0**-23 * 16)


# --- many shifts -----------------------------------------------------------------------------------------------

def test_the_error_grows_with_shifts_in_float16_and_bfloat16():
    curves = {d: kshift_error_curve(64, 100000.0, 4, 1000, d, n_keys=32) for d in KSHIFT_DTYPES}
    for dtype in ("float16", "bfloat16"):
        c = curves[dtype]
        assert c.shifts[0] == 1 and c.shifts[-1] == 1000
        assert c.key_error[-1] > 20 * c.key_error[0]  # rounding piles up: one rounding per shift
        assert c.score_error[-1] > 10 * c.score_error[0]
        assert np.ptp(c.fresh_key_error) < 0.5 * c.fresh_key_error.mean()  # a fresh key is rounded once
    assert curves["bfloat16"].key_error[-1] > curves["float16"].key_error[-1] > curves["float32"].key_error[-1]
    # after one shift every type is within a few of its unit roundoff of the exact key
    for dtype, u in (("float16", 2.0**-11), ("bfloat16", 2.0**-8)):
        assert curves[dtype].key_error[0] < 4 * u


def test_the_error_curve_starts_where_the_keys_sit():
    c = kshift_error_curve(32, 10000.0, 3, 10, "float32", n_keys=5)
    assert c.first_position == 1 + 30 and c.last_position == 5 + 30


def test_scores_after_a_shift_keep_relative_offsets_and_move_the_kept_tokens():
    s = kshift_scores(64, 4, 0, 32, 10000.0, "float16")
    shifted = s.status == "shifted"
    np.testing.assert_allclose(s.moved[shifted], 0, atol=1e-12)  # same offsets to the query: same scores
    assert np.abs(s.moved[~shifted]).max() > 1e-3  # the kept tokens are n_discard positions nearer
    assert 0 < np.abs(s.rounding).max() < 0.05
    assert s.position.shape == (64 - 30,) and s.plan.n_discard == 30


# --- refused arguments -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args,match", [
    ((10, 2, 8), "n_keep \\+ n_discard must be below"),
    ((10, -1), "n_keep must be at least 0"),
    ((10, 10), "n_keep must be at most 9"),
    ((10, 2, -3), "n_discard must be at least 0"),
    ((1, 0), "n_tokens must be at least 2"),
    ((2**20 + 1, 0), "n_tokens must be at most"),
    ((3, 2), "default rule"),
    ((10.5, 2), "n_tokens must be a whole number"),
])
def test_plan_refuses(args, match):
    with pytest.raises(ValueError, match=match):
        context_shift_plan(*args)


@pytest.mark.parametrize("kwargs,match", [
    (dict(shifts=1001), "shifts must be at most"),
    (dict(shifts=0), "shifts must be at least 1"),
    (dict(n_discard=0), "n_discard must be at least 1"),
    (dict(n_keys=5000), "n_keys must be at most"),
    (dict(dtype="float64"), "dtype must be one of"),
    (dict(rule="vllm"), "rule must be one of"),
    (dict(head_dim=63), "head_dim must be even"),
    (dict(head_dim=4096), "head_dim must be at most"),
    (dict(base=1.0), "base must be greater than 1"),
    (dict(n_discard=pc.MAX_POSITIONS), "above the cap"),
    (dict(seed=-1), "seed must be at least 0"),
])
def test_error_curve_refuses(kwargs, match):
    args = dict(head_dim=32, base=10000.0, n_discard=4, shifts=10, dtype="float16") | kwargs
    with pytest.raises(ValueError, match=match):
        kshift_error_curve(**args)


def test_kshift_refuses():
    with pytest.raises(ValueError, match="float array"):
        kshift(np.ones((2, 4), dtype=np.int64), -1)
    with pytest.raises(ValueError, match="must be even"):
        kshift(np.ones((2, 5)), -1)
    with pytest.raises(ValueError, match="times must be at most"):
        kshift(np.ones((2, 4)), -1, times=1001)
    with pytest.raises(ValueError, match="delta must be at most"):
        kshift(np.ones((2, 4)), pc.MAX_POSITIONS + 1)
    with pytest.raises(ValueError, match="above the cap"):
        kshift(torch.zeros(pc.MAX_ELEMENTS // 64 + 1, 64), -1)
    with pytest.raises(ValueError, match="dtype must be one of"):
        kshift(np.ones((2, 4)), -1, dtype="int8")
    with pytest.raises(ValueError, match="rule must be one of"):
        kshift_angles(-1, 4, rule="exact")


def test_scores_refuse_a_cache_too_large():
    with pytest.raises(ValueError, match="The cache of keys"):
        kshift_scores(2**20, 4, 0, 128, 10000.0)
    with pytest.raises(ValueError, match="n_keep \\+ n_discard"):
        kshift_scores(16, 4, 12, 32, 10000.0)


def test_heads_come_from_public_configs():
    for head in KSHIFT_HEADS.values():
        assert head.head_dim % 2 == 0 and head.base > 1 and head.model_id.count("/") == 1
        assert head.hidden_size // head.heads == head.head_dim
    assert math.isclose(KSHIFT_HEADS["smollm2-135m"].base, 100000.0)


def test_fresh_keys_are_transformers_rotary_at_the_new_positions_stored_in_the_cache_type():
    """kshift_scores' 'fresh' scores are those of keys rotated by transformers' rotary module (float32, at the
    positions after the shift) and rounded to the cache's type; its 'shifted' ones start from transformers' keys
    at the old positions, stored in that type and shifted once by kshift."""
    n, keep, d, base = 40, 3, 32, 10000.0
    s = kshift_scores(n, keep, 0, d, base, "bfloat16", rule="transformers", seed=5)
    rng = np.random.default_rng(5)
    raw, q_raw = rng.standard_normal((n, d)), rng.standard_normal(d)
    alive = s.plan.status != "dropped"
    fresh = _hf_rope(torch.from_numpy(raw[alive]).float(), s.new_position, d, base).to(torch.bfloat16)
    stored = _hf_rope(torch.from_numpy(raw[alive]).float(), s.position, d, base).to(torch.bfloat16).float()
    moved = torch.from_numpy(s.status == "shifted")
    shifted = stored.clone()
    shifted[moved] = torch.from_numpy(kshift(stored[moved], -s.plan.n_discard, base, dtype="bfloat16",
                                                rule="transformers"))
    # scores are linear in the keys: equal keys give equal score differences against the same query
    scale = 1 / math.sqrt(d)
    inv = pc.base_inv_freq(base, d)
    h = d // 2
    angle = s.plan.next_position * inv
    q_after = np.concatenate((q_raw[:h] * np.cos(angle) - q_raw[h:] * np.sin(angle),
                              q_raw[h:] * np.cos(angle) + q_raw[:h] * np.sin(angle)))
    np.testing.assert_allclose(fresh.double().numpy() @ q_after * scale, s.fresh, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(shifted.double().numpy() @ q_after * scale, s.shifted, rtol=1e-12, atol=1e-12)
