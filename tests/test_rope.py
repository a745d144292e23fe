import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc

dims = st.sampled_from([2, 4, 8, 16, 64])
layouts = st.sampled_from(pc.ROPE_LAYOUTS)


def _rand(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float64)


def rotation_matrix(position, inv_freq, head_dim, layout):
    """Block-diagonal R_m written out densely, as in RoFormer's equation."""
    r = 2 * len(inv_freq)
    mat = np.eye(head_dim)
    for i, theta in enumerate(inv_freq):
        a, b = (i, i + r // 2) if layout == "half" else (2 * i, 2 * i + 1)
        c, s = np.cos(position * theta), np.sin(position * theta)
        mat[a, a], mat[a, b], mat[b, a], mat[b, b] = c, -s, s, c
    return mat


@pytest.mark.parametrize("layout", pc.ROPE_LAYOUTS)
def test_apply_rope_equals_the_block_rotation_matrix(layout):
    inv = pc.rope_inv_freq(8)[0].astype(np.float64)
    x = _rand(0, 5, 8)
    out = pc.apply_rope(x, np.arange(5), inv, layout)
    for m in range(5):
        np.testing.assert_allclose(out[m], rotation_matrix(m, inv, 8, layout) @ x[m], atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(d=dims, layout=layouts, seed=st.integers(0, 10**6))
def test_rotation_preserves_norms(d, layout, seed):
    inv, _ = pc.rope_inv_freq(d)
    x = _rand(seed, 3, 17, d)
    out = pc.apply_rope(x, np.arange(17) * 13, inv, layout)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-6)


@settings(max_examples=40, deadline=None)
@given(d=dims, layout=layouts, seed=st.integers(0, 10**6), m=st.integers(0, 500), n=st.integers(0, 500),
       shift=st.integers(0, 500))
def test_score_depends_only_on_relative_position(d, layout, seed, m, n, shift):
    inv, _ = pc.rope_inv_freq(d)
    q, k = _rand(seed, 1, d), _rand(seed + 1, 1, d)

    def score(a, b):
        return float(pc.apply_rope(q, [a], inv, layout)[0] @ pc.apply_rope(k, [b], inv, layout)[0])

    assert score(m, n) == pytest.approx(score(m + shift, n + shift), abs=2e-3 * (1 + abs(score(m, n))))


@settings(max_examples=30, deadline=None)
@given(d=dims, seed=st.integers(0, 10**6))
def test_layouts_agree_up_to_a_fixed_permutation(d, seed):
    inv, _ = pc.rope_inv_freq(d)
    perm = pc.half_to_interleaved_permutation(d)
    x_half = _rand(seed, 9, d)
    rotated_half = pc.apply_rope(x_half, np.arange(9), inv, "half")
    rotated_inter = pc.apply_rope(x_half[:, perm], np.arange(9), inv, "interleaved")
    np.testing.assert_allclose(rotated_half[:, perm], rotated_inter, atol=1e-9)


def test_partial_rotary_passes_the_tail_through():
    inv, _ = pc.rope_inv_freq(64, partial_rotary_factor=0.25)
    assert inv.shape == (8,)
    x = _rand(3, 6, 64)
    for layout in pc.ROPE_LAYOUTS:
        out = pc.apply_rope(x, np.arange(6), inv, layout)
        np.testing.assert_array_equal(out[:, 16:], x[:, 16:])
        assert not np.allclose(out[1:, :16], x[1:, :16])


def test_position_zero_is_identity_and_attention_factor_scales():
    inv, _ = pc.rope_inv_freq(16)
    x = _rand(4, 1, 16)
    np.testing.assert_allclose(pc.apply_rope(x, [0], inv), x)
    np.testing.assert_allclose(pc.apply_rope(x, [0], inv, attention_factor=1.5), 1.5 * x)


def test_decay_bound_known_values():
    d = 128
    bound = pc.rope_decay_bound(d, [0, 1, 5000])
    assert bound[0] == pytest.approx((d / 2 + 1) / 2)  # all phases 1: mean of 1..d/2
    # brute force the definition for a few distances
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    for r, value in zip([0, 1, 5000], bound, strict=True):
        partial = [abs(np.exp(1j * r * theta[:j]).sum()) for j in range(1, d // 2 + 1)]
        assert value == pytest.approx(np.mean(partial), rel=1e-5)
    far = pc.rope_decay_bound(d, np.arange(0, 4096, 64))
    assert far[0] > 3 * far[-10:].mean()  # it decays


@pytest.mark.parametrize("call, message", [
    (lambda: pc.rope_inv_freq(63), "even"),
    (lambda: pc.rope_inv_freq(64, partial_rotary_factor=0.01), "even number"),
    (lambda: pc.rope_inv_freq(64, partial_rotary_factor=1.5), "at most 1"),
    (lambda: pc.rope_inv_freq(64, base=0.5), "greater than 1"),
    (lambda: pc.apply_rope(np.zeros((3, 8)), np.arange(3), np.ones(5)), "only head_dim"),
    (lambda: pc.apply_rope(np.zeros((3, 8)), np.arange(4), np.ones(4)), "positions has 4"),
    (lambda: pc.apply_rope(np.zeros((3, 8)), np.arange(3), np.ones(4), "diagonal"), "layout"),
    (lambda: pc.rope_decay_bound(7, [1]), "even"),
    (lambda: pc.rope_decay_bound(16384, np.arange(1 << 13)), "cap"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
