import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc


def reference_slopes(n):
    """The ALiBi authors' recursion, restated: power of two -> geometric; else fill from 2n'."""
    def power_of_two(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start * start ** i for i in range(m)]
    if math.log2(n).is_integer():
        return power_of_two(n)
    p = 2 ** math.floor(math.log2(n))
    return power_of_two(p) + reference_slopes(2 * p)[0::2][: n - p]


def test_eight_heads_are_halves():
    np.testing.assert_array_equal(pc.alibi_slopes(8), [1 / 2 ** k for k in range(1, 9)])


@pytest.mark.parametrize("n", list(range(1, 65)) + [96, 100, 128, 255])
def test_slopes_match_the_authors_code(n):
    np.testing.assert_allclose(pc.alibi_slopes(n), reference_slopes(n), rtol=1e-6)


def test_non_power_of_two_differs_from_the_paper_formula():
    assert not np.allclose(pc.alibi_slopes(12), pc.alibi_paper_slopes(12))
    np.testing.assert_allclose(pc.alibi_slopes(16), pc.alibi_paper_slopes(16))


@settings(max_examples=30, deadline=None)
@given(h=st.integers(1, 12), q=st.integers(1, 20), extra=st.integers(0, 10), causal=st.booleans())
def test_alibi_bias_formula(h, q, extra, causal):
    k = q + extra
    bias = pc.alibi_bias(h, q, k, causal)
    assert bias.shape == (h, q, k)
    slopes = pc.alibi_slopes(h)
    for i in range(q):
        qi = k - q + i  # queries are the last q positions
        for j in range(k):
            expected = -slopes * (qi - j) if qi >= j else (-np.inf if causal else -slopes * (j - qi))
            np.testing.assert_allclose(bias[:, i, j], expected, rtol=1e-6)


def test_alibi_bias_is_toeplitz():
    bias = pc.alibi_bias(4, 30, causal=False)
    for head in bias:
        assert pc.toeplitz_deviation(head) == 0.0


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets, max_distance", [(32, 128), (16, 64), (8, 20), (64, 1000), (4, 7)])
def test_t5_buckets_match_transformers(bidirectional, num_buckets, max_distance):
    torch = pytest.importorskip("torch")
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    rel = np.arange(-3000, 3001)
    expected = t5.T5Attention._relative_position_bucket(
        torch.tensor(rel), bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    got = pc.t5_relative_position_bucket(rel, bidirectional, num_buckets, max_distance)
    np.testing.assert_array_equal(got, expected.numpy())


def test_t5_known_values():
    b = pc.t5_relative_position_bucket(np.array([0, 1, -1, 7, 8, 127, 128, 5000, -5000]))
    # bidirectional, 32 buckets: 16 per direction, 8 exact; positive offsets use buckets 16..31
    assert b.tolist() == [0, 17, 1, 23, 24, 31, 31, 31, 15]
    grid = pc.t5_bucket_grid(5, bidirectional=False)
    assert grid[4].tolist() == [4, 3, 2, 1, 0] and grid[0, 1:].tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("call, message", [
    (lambda: pc.alibi_slopes(0), "at least 1"),
    (lambda: pc.alibi_slopes(2.5), "whole number"),
    (lambda: pc.alibi_bias(8, 10, 5), "at least q_len"),
    (lambda: pc.alibi_bias(64, 4096, 4096), "cap"),
    (lambda: pc.t5_relative_position_bucket([1.5]), "whole numbers"),
    (lambda: pc.t5_relative_position_bucket([1], num_buckets=32, max_distance=8), "larger than 8"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
