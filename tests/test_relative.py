import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core.attention_bias import (
    masked_softmax,
    nope_outputs,
    nope_values,
    shaw_attention,
    shaw_clipped_distance,
    shaw_effective_keys,
    shaw_example,
    shaw_relative_index,
    shaw_scores,
    uniform_attention,
    uniform_attention_weights,
)


def brute_force_shaw(q, k, v, a_k, a_v, max_rel, causal):
    """Shaw et al. written the slow way: a key and a value vector for every (i, j) pair."""
    n, d = q.shape
    keys = np.empty((n, k.shape[0], d))
    vals = np.empty_like(keys)
    for i in range(n):
        for j in range(k.shape[0]):
            r = min(max(j - i, -max_rel), max_rel) + max_rel
            keys[i, j] = k[j] + a_k[r]
            vals[i, j] = v[j] + a_v[r]
    logits = np.einsum("id,ijd->ij", q, keys) / np.sqrt(d)
    if causal:
        logits[np.triu_indices(n, 1)] = -np.inf
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return logits, weights, np.einsum("ij,ijd->id", weights, vals)


def test_relative_index_known_values():
    idx = shaw_relative_index(5, max_rel=2)
    assert idx[0].tolist() == [2, 3, 4, 4, 4]
    assert idx[4].tolist() == [0, 0, 0, 1, 2]
    assert np.all(np.diag(idx) == 2)
    np.testing.assert_array_equal(shaw_clipped_distance(5, 7, 2), shaw_relative_index(5, 7, 2) - 2)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 12), d=st.integers(1, 8), k=st.integers(0, 6), seed=st.integers(0, 99),
       causal=st.booleans())
def test_shaw_matches_the_brute_force_form(n, d, k, seed, causal):
    e = shaw_example(n, d, k, seed)
    scores = shaw_scores(e.q, e.k, e.a_k, k)
    out = shaw_attention(e.q, e.k, e.v, e.a_k, e.a_v, k, causal)
    logits, weights, expected = brute_force_shaw(e.q, e.k, e.v, e.a_k, e.a_v, k, causal)
    finite = np.isfinite(logits)
    np.testing.assert_allclose(scores.total[finite], logits[finite], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(scores.total, scores.content + scores.relative)
    np.testing.assert_allclose(out.weights, weights, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(out.out, expected, rtol=1e-9, atol=1e-12)


def test_shaw_matches_torch_reference():
    torch = pytest.importorskip("torch")
    e = shaw_example(9, 6, 3, seed=1)
    idx = torch.from_numpy(shaw_relative_index(9, max_rel=3))
    q, k, v, a_k, a_v = (torch.from_numpy(x) for x in (e.q, e.k, e.v, e.a_k, e.a_v))
    logits = (q @ k.T + torch.einsum("id,ijd->ij", q, a_k[idx])) / 6 ** 0.5
    weights = torch.softmax(logits, dim=-1)
    out = weights @ v + torch.einsum("ij,ijd->id", weights, a_v[idx])
    got = shaw_attention(e.q, e.k, e.v, e.a_k, e.a_v, 3)
    np.testing.assert_allclose(got.out, out.numpy(), rtol=1e-10)


def test_relative_term_is_constant_beyond_the_clip_for_a_fixed_query():
    e = shaw_example(30, 4, 3, seed=2)
    rel = shaw_scores(e.q, e.k, e.a_k, 3).relative
    assert np.allclose(rel[20, :17], rel[20, 0]) and np.allclose(rel[5, 8:], rel[5, 29])


def test_zero_tables_reduce_to_plain_attention():
    e = shaw_example(7, 5, 2, seed=4)
    zero = np.zeros_like(e.a_k)
    out = shaw_attention(e.q, e.k, e.v, zero, zero, 2, causal=True)
    plain = masked_softmax(e.q @ e.k.T / np.sqrt(5), causal=True) @ e.v
    np.testing.assert_allclose(out.out, plain)
    assert np.all(out.relative_out == 0)


def test_effective_keys_change_until_the_clip():
    eff = shaw_effective_keys(20, 8, 3, key_position=4, seed=0)
    assert eff.queries.tolist() == list(range(4, 20))
    assert np.all(eff.change[1:4] > 0) and np.all(eff.change[4:] == 0)
    assert eff.changing_steps == 3  # the clip k = 3 holds from the fourth reading step on
    e = shaw_example(20, 8, 3, 0)
    np.testing.assert_allclose(eff.keys[0], e.k[4] + e.a_k[3])  # distance 0 row


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 30), d=st.integers(1, 6), seed=st.integers(0, 50))
def test_causal_uniform_attention_is_the_running_mean(n, d, seed):
    values = nope_values(n, d, "random", seed)
    causal = uniform_attention(values, causal=True)
    np.testing.assert_allclose(causal, np.cumsum(values, axis=0) / np.arange(1, n + 1)[:, None], atol=1e-12)
    both = uniform_attention(values, causal=False)
    np.testing.assert_allclose(both, np.broadcast_to(values.mean(axis=0), values.shape), atol=1e-12)
    # bidirectional uniform attention cannot see order: shuffling the tokens changes nothing
    perm = np.random.default_rng(seed).permutation(n)
    np.testing.assert_allclose(uniform_attention(values[perm], causal=False), both, atol=1e-12)


def test_nope_outputs_leak_position_only_with_the_mask():
    out = nope_outputs(16, 8, "start token", seed=0)
    assert np.all(out.bidirectional_spread < 1e-12)
    assert np.all(np.diff(out.causal_spread) < 0) and out.causal_spread[0] > 0
    np.testing.assert_allclose(out.start_weight_causal, 1 / np.arange(1, 17))
    np.testing.assert_allclose(uniform_attention_weights(4), np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None])
    np.testing.assert_allclose(out.start_weight_bidirectional, 1 / 16)
    values = nope_values(16, 8, "start token", 0)
    gap = np.linalg.norm(values[0] - values[1]) / (np.arange(1, 16) * np.arange(2, 17))  # |s - t| / (i (i + 1))
    np.testing.assert_allclose(out.neighbour_gap, gap, rtol=1e-9)
    assert np.all(values[1:] == values[1]) and not np.allclose(values[0], values[1])


@pytest.mark.parametrize("call, message", [
    (lambda: shaw_relative_index(0), "at least 1"),
    (lambda: shaw_relative_index(4, max_rel=-1), "clipping distance"),
    (lambda: shaw_example(4, 0, 2), "at least 1"),
    (lambda: shaw_example(4, 2, 2, seed=-3), "at least 0"),
    (lambda: shaw_scores(np.ones((3, 4)), np.ones((3, 5)), np.ones((5, 4)), 2), "same d"),
    (lambda: shaw_scores(np.ones((3, 4)), np.ones((3, 4)), np.ones((4, 4)), 2), r"\(5, 4\)"),
    (lambda: shaw_attention(np.ones((3, 4)), np.ones((3, 4)), np.ones((2, 4)), np.ones((5, 4)),
                               np.ones((5, 4)), 2), "same shape"),
    (lambda: shaw_effective_keys(10, 4, 2, key_position=10), "at most 9"),
    (lambda: masked_softmax(np.ones(3)), "2D"),
    (lambda: uniform_attention(np.ones(3)), "positions, d"),
    (lambda: uniform_attention(np.ones((10000, 1))), "cap"),
    (lambda: uniform_attention_weights(0), "at least 1"),
    (lambda: nope_values(4, 4, "sorted"), "start token"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_nope_summary_numbers():
    out = nope_outputs(16, 8)
    assert out.bidirectional_worst == float(out.bidirectional_spread.max()) < 1e-9
    gap = out.neighbour_gap
    assert out.gap_shrink == pytest.approx(gap[1] / gap[-1]) and out.gap_shrink > 1
    assert np.isnan(nope_outputs(3, 8).gap_shrink)
