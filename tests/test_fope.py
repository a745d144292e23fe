"""FoPE (posenc_core.rope.fope) against vLLM's arithmetic, bit for bit in float32.

The reference below is written from vLLM's ``vllm/model_executor/layers/rotary_embedding/fope.py``
(``FourierRotaryEmbedding._compute_inv_freq``, ``_compute_cos_sin_cache``, ``forward_native``), which is not
installed here: the same torch float32 operations in the same order.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core.rope import (
    fope_cos_sin,
    fope_demo_coefficients,
    fope_distance_scores,
    fope_inv_freq,
    fope_mix_by_pair,
    fope_rotate,
)

torch = pytest.importorskip("torch")
F = torch.nn.functional


def vllm_inv_freq(rotary_dim, base, max_position, num_inv_freq=None):
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float) / rotary_dim))
    selected = torch.ones_like(inv_freq, dtype=torch.bool)
    if num_inv_freq is not None:
        selected[num_inv_freq:] = False
    else:
        selected = inv_freq > (2.0 * torch.pi / max_position)
    return inv_freq[selected]


def vllm_cache(t, head_size, rotary_dim, base, max_position, cos_coef, sin_coef, num_inv_freq=None, sin_pad=1):
    """The cache rows for float32 positions ``t`` (vLLM: t = arange(max_position)), fope_sep_head = True."""
    inv_freq = vllm_inv_freq(rotary_dim, base, max_position, num_inv_freq)
    heads = cos_coef.shape[0]
    freqs = torch.einsum("j,i -> ji", t, inv_freq)
    pos_cos = freqs.cos().unsqueeze(0).expand(heads, -1, -1)
    pos_sin = freqs.sin().unsqueeze(0).expand(heads, -1, -1)
    sin = torch.einsum("htD, hDd -> thd", pos_sin, sin_coef.float())
    cos = torch.einsum("htD, hDd -> thd", pos_cos, cos_coef.float())
    sin = F.pad(input=sin, pad=(0, head_size // 2 - sin.size(-1)), mode="constant", value=sin_pad)
    cos = F.pad(input=cos, pad=(0, head_size // 2 - cos.size(-1)), mode="constant", value=1)
    return torch.cat((torch.cat((cos, cos), dim=-1), torch.cat((sin, sin), dim=-1)), dim=-1)


def vllm_forward(cache, positions, query, head_size):
    """forward_native for FoPE's 3-D cache: each KV head's row turns its group of query heads."""
    cos, sin = cache.index_select(0, positions).chunk(2, dim=-1)  # (t, h_kv, hs)
    query = query.unflatten(-1, (-1, head_size))
    shape = query.shape
    cos, sin = cos.flatten(0, 1).unsqueeze(1), sin.flatten(0, 1).unsqueeze(1)
    query = query.view(cos.size(0), -1, head_size)
    half = head_size // 2
    rotated = torch.cat((-query[..., half:], query[..., :half]), dim=-1)
    return ((query * cos) + (rotated * sin)).view(shape)


INTERN = {"head_size": 128, "rotary_dim": 128, "base": 5e6, "max_position_embeddings": 262144}


def test_intern_s1_pro_keeps_45_of_64_frequencies():
    f = fope_inv_freq(128, 5e6, 262144)
    assert (f.n_kept, f.n_clipped) == (45, 19)
    assert f.threshold == 2 * math.pi / 262144
    assert np.array_equal(f.inv_freq, vllm_inv_freq(128, 5e6, 262144).numpy())
    assert f.all_inv_freq[0] == 1.0 and f.all_inv_freq.dtype == np.float32
    assert fope_inv_freq(128, 5e6, 262144, num_inv_freq=32).n_kept == 32


@pytest.mark.parametrize(("head_size", "rotary_dim", "base", "length", "num_inv_freq", "sin_pad"), [
    (128, 128, 5e6, 262144, None, 1.0), (64, 48, 10000.0, 4096, None, 0.0), (32, 32, 500.0, 64, 5, 1.0)])
def test_cos_sin_equal_vllm_bit_for_bit(head_size, rotary_dim, base, length, num_inv_freq, sin_pad):
    n_freq = fope_inv_freq(rotary_dim, base, length, num_inv_freq).n_kept
    coef = fope_demo_coefficients(2, n_freq, 0.5, seed=3)
    positions = np.unique(np.rint(np.geomspace(1, length - 1, 50))).astype(np.int64)
    cos, sin = fope_cos_sin(positions, head_size, rotary_dim, base, length, coef.cos_coef, coef.sin_coef,
                            num_inv_freq=num_inv_freq, sin_pad=sin_pad)
    ref = vllm_cache(torch.from_numpy(positions.astype(np.float32)), head_size, rotary_dim, base, length,
                     torch.from_numpy(coef.cos_coef), torch.from_numpy(coef.sin_coef), num_inv_freq, sin_pad)
    assert cos.dtype == np.float32 and cos.shape == (positions.size, 2, head_size)
    assert np.array_equal(np.concatenate((cos, sin), axis=-1), ref.numpy())


def test_a_prefix_of_the_table_and_the_rotation_equal_vllm():
    length, hs = 256, 64
    n_freq = fope_inv_freq(hs, 10000.0, length).n_kept
    coef = fope_demo_coefficients(2, n_freq, 0.1, seed=1)
    cos, sin = fope_cos_sin(np.arange(40), hs, hs, 10000.0, length, coef.cos_coef, coef.sin_coef)
    cache = vllm_cache(torch.arange(length, dtype=torch.float), hs, hs, 10000.0, length,
                       torch.from_numpy(coef.cos_coef), torch.from_numpy(coef.sin_coef))
    positions = torch.arange(7, 40, 5)
    query = torch.randn(positions.numel(), 4 * hs, generator=torch.Generator().manual_seed(0))  # 2 heads per KV head
    ours = fope_rotate(query.numpy().reshape(-1, 2, 2, hs), cos[7:40:5, :, None], sin[7:40:5, :, None])
    assert np.array_equal(ours.reshape(positions.numel(), 4, hs), vllm_forward(cache, positions, query, hs).numpy())


def test_identity_coefficients_give_plain_rope_on_the_kept_pairs():
    f = fope_inv_freq(64, 10000.0, 2048)
    eye = np.eye(f.n_kept, dtype=np.float32)[None]
    cos, sin = fope_cos_sin(np.array([0, 5, 2047]), 64, 64, 10000.0, 2048, eye, eye, sin_pad=0.0)
    angles = np.float32([0, 5, 2047])[:, None] * f.inv_freq[None]
    np.testing.assert_allclose(cos[:, 0, :f.n_kept], np.cos(angles), atol=2e-6)
    assert (cos[:, :, f.n_kept:32] == 1).all() and (sin[:, :, f.n_kept:32] == 0).all()


def test_demo_coefficients_have_xtuners_xavier_scale():
    coef = fope_demo_coefficients(4, 45, 0.5, seed=0)
    assert coef.std == pytest.approx(0.5 * math.sqrt(2 / (45 * 45 + 4 * 45)))
    tensor = torch.empty(4, 45, 45)
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(tensor)
    assert coef.std == pytest.approx(0.5 * math.sqrt(2 / (fan_in + fan_out)))
    noise = coef.cos_coef - np.eye(45, dtype=np.float32)
    assert noise.std() == pytest.approx(coef.std, rel=0.05)
    assert np.array_equal(coef.sin_coef, fope_demo_coefficients(4, 45, 0.5, seed=0).sin_coef)


def test_intern_s1_pro_scores():
    s = fope_distance_scores(**{k: v for k, v in INTERN.items() if k not in ("rotary_dim",)}, points=200)
    assert (s.n_kept, s.n_clipped, s.distance[0], s.distance[-1]) == (45, 19, 0, 262143)
    assert s.fope_clipped_spread == 0.0 and s.rope_clipped_spread > 1.0
    assert s.fope_clipped[0] == pytest.approx(2 * s.rope_clipped[0], rel=1e-5)  # the 1, 1 pad: √2 on q and on k


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([16, 32, 64]), st.sampled_from([100.0, 10000.0, 1e6]), st.integers(16, 50000),
       st.sampled_from([1.0, 0.0]), st.integers(0, 50))
def test_clipped_pairs_do_not_depend_on_position(d, base, length, pad, seed):
    f = fope_inv_freq(d, base, length) if 2 * math.pi / length < 1 else None
    if f is None:
        return
    coef = fope_demo_coefficients(2, f.n_kept, 0.5, seed)
    cos, sin = fope_cos_sin(np.array([0, length // 2, length - 1]), d, d, base, length, coef.cos_coef, coef.sin_coef,
                            sin_pad=pad)
    half = d // 2
    assert (cos[..., f.n_kept:half] == 1).all() and (sin[..., f.n_kept:half] == pad).all()
    assert np.array_equal(cos[..., :half], cos[..., half:]) and np.array_equal(sin[..., :half], sin[..., half:])
    kept = f.inv_freq.astype(np.float64)
    assert (kept > 2 * math.pi / length).all() and f.n_kept + f.n_clipped == half


@pytest.mark.parametrize(("call", "match"), [
    (lambda: fope_inv_freq(7, 10000.0, 100), "rotary_dim"),
    (lambda: fope_inv_freq(8, 10000.0, 0), "max_position_embeddings"),
    (lambda: fope_inv_freq(8, 10000.0, 100, num_inv_freq=5), "num_inv_freq"),
    (lambda: fope_inv_freq(8, 10000.0, 3), "keep nothing"),
    (lambda: fope_inv_freq(8, 1.0, 100), "base"),
    (lambda: fope_demo_coefficients(0, 4), "n_kv_heads"),
    (lambda: fope_demo_coefficients(1, 0), "n_freq"),
    (lambda: fope_demo_coefficients(1, 4, -1.0), "fope_init_factor"),
    (lambda: fope_demo_coefficients(1, 4, seed=-1), "seed"),
    (lambda: fope_cos_sin([0], 8, 10, 100.0, 64, np.ones((1, 1, 1)), np.ones((1, 1, 1))), "rotary_dim"),
    (lambda: fope_cos_sin([0], 8, 8, 100.0, 64, np.ones((1, 2, 2)), np.ones((1, 2, 2)), sin_pad=0.5), "sin_pad"),
    (lambda: fope_cos_sin([0], 8, 8, 100.0, 64, np.ones((2, 2)), np.ones((2, 2))), "cos_coef"),
    (lambda: fope_cos_sin([0], 8, 8, 100.0, 64, np.ones((1, 3, 3)), np.ones((2, 3, 3))), "same shape"),
    (lambda: fope_cos_sin([0], 8, 8, 100.0, 64, np.full((1, 3, 3), np.nan), np.ones((1, 3, 3))), "finite"),
    (lambda: fope_cos_sin([64], 8, 8, 100.0, 64, np.ones((1, 3, 3)), np.ones((1, 3, 3))), "positions"),
    (lambda: fope_cos_sin([0.5], 8, 8, 100.0, 64, np.ones((1, 3, 3)), np.ones((1, 3, 3))), "positions"),
    (lambda: fope_rotate(np.ones(3), np.ones(3), np.ones(3)), "even head size"),
    (lambda: fope_distance_scores(64, 10000.0, 4096, points=1), "points"),
])
def test_refusals_name_the_field(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_the_mix_by_pair_lays_a_head_over_its_pairs_and_leaves_the_clipped_ones_empty():
    freqs = fope_inv_freq(128, 5e6, 262144)
    coef = fope_demo_coefficients(4, freqs.n_kept, 0.5, 0).cos_coef[0]
    grid = fope_mix_by_pair(coef, 128)
    assert grid.shape == (freqs.n_kept, 64)
    np.testing.assert_array_equal(grid[:, :freqs.n_kept], coef.astype(np.float64))
    assert np.isnan(grid[:, freqs.n_kept:]).all() and freqs.n_clipped == 64 - freqs.n_kept
    for bad, field in (((np.eye(2)[:1], 8), "coef"), ((np.eye(5), 8), "coef"), ((np.eye(2), 7), "rotary_dim")):
        with pytest.raises(ValueError, match=field):
            fope_mix_by_pair(*bad)
