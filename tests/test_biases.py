import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from posenc_core.attention_bias import (
    alibi_attention,
    alibi_bias_by_distance,
    alibi_distance_weights,
    alibi_gentlest_head,
    alibi_geometric_heads,
    alibi_mass_beyond,
    alibi_paper_slopes,
    alibi_receptive_field,
    alibi_receptive_field_limit,
    alibi_shown_heads,
    alibi_slope_table,
    t5_bucket_grid,
    t5_bucket_layout,
    t5_bucket_spans,
    t5_bucket_values,
    t5_smallest_max_distance,
)
from posenc_core.measures import toeplitz_deviation


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
    assert not np.allclose(pc.alibi_slopes(12), alibi_paper_slopes(12))
    np.testing.assert_allclose(pc.alibi_slopes(16), alibi_paper_slopes(16))


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
        assert toeplitz_deviation(head) == 0.0


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
    grid = t5_bucket_grid(5, bidirectional=False)
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


# --- lesson helpers: slope table, bias-only attention, receptive fields, T5 layout and bias grids ---

@pytest.mark.parametrize("n", [1, 2, 5, 8, 12, 16, 24, 64])
def test_slope_table_groups_follow_the_code(n):
    table = alibi_slope_table(n)
    p = 2 ** math.floor(math.log2(n))
    assert (table.group == "geometric").sum() == p
    np.testing.assert_allclose(table.code, reference_slopes(n), rtol=1e-6)
    np.testing.assert_allclose(table.paper, [2 ** (-8 * h / n) for h in range(1, n + 1)], rtol=1e-6)
    # the filled heads sit halfway (in log2) between neighbouring slopes of the first group
    np.testing.assert_allclose(table.log2_code[p:], -8 * (2 * np.arange(n - p) + 1) / (2 * p), atol=1e-5)


def test_seed_sixteen_head_slopes_are_wrong_and_ours_are_right():
    # a seed note lists 1/2^1 .. 1/2^16 for 16 heads; the code (and the paper) give 2^-0.5 .. 2^-8
    slopes = pc.alibi_slopes(16)
    assert slopes[-1] == pytest.approx(2 ** -8) and slopes[0] == pytest.approx(2 ** -0.5)
    assert not np.allclose(slopes, [2.0 ** -k for k in range(1, 17)])


@settings(max_examples=25, deadline=None)
@given(h=st.integers(1, 16), q=st.integers(1, 24), causal=st.booleans())
def test_alibi_attention_is_softmax_of_the_bias(h, q, causal):
    weights = alibi_attention(h, q, causal)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-5)
    bias = pc.alibi_bias(h, q, q, causal).astype(np.float64)
    torch = pytest.importorskip("torch")
    expected = torch.softmax(torch.from_numpy(bias), dim=-1).numpy()
    np.testing.assert_allclose(weights, expected, rtol=1e-5, atol=1e-7)
    if causal:
        assert np.all(np.triu(weights[0], 1) == 0)


def test_receptive_field_matches_the_geometric_tail():
    # for long sequences the weights are geometric: D = ceil(ln(10) / m) - 1 holds 90 %
    slopes = pc.alibi_slopes(8).astype(np.float64)
    fields = alibi_receptive_field(8, 20000, 0.9)
    np.testing.assert_array_equal(fields, np.ceil(np.log(10) / slopes) - 1)
    np.testing.assert_array_equal(fields, alibi_receptive_field_limit(8, 0.9))
    by_distance = alibi_bias_by_distance(8, 40)
    np.testing.assert_allclose(by_distance, pc.alibi_bias(8, 1, 40)[:, 0, ::-1])  # last query, read backwards
    # a short sequence cuts the tail: every field fits inside it
    assert np.all(alibi_receptive_field(8, 64) <= 63)
    assert np.all(np.diff(alibi_receptive_field(8, 4096)) > 0)  # gentler heads see further
    # a uniform row (slope -> tiny) needs 90 % of the keys for 90 % of the mass
    assert alibi_receptive_field(1, 10, 1.0)[0] <= 9


def test_mass_beyond_training_length():
    beyond = alibi_mass_beyond(8, 512, 2048)
    slopes = pc.alibi_slopes(8).astype(np.float64)
    expected = (np.exp(-slopes * 512) - np.exp(-slopes * 2048)) / (1 - np.exp(-slopes * 2048))
    np.testing.assert_allclose(beyond, expected, rtol=1e-9)
    assert np.all(np.diff(beyond) > 0)  # gentler heads reach further
    assert np.all(alibi_mass_beyond(8, 512, 512) == 0)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets, max_distance", [(32, 128), (16, 64), (8, 20), (64, 1000)])
def test_t5_layout_agrees_with_the_bucket_function(bidirectional, num_buckets, max_distance):
    layout = t5_bucket_layout(bidirectional, num_buckets, max_distance)
    per = num_buckets // 2 if bidirectional else num_buckets
    assert layout.per_direction == per and layout.exact == per // 2
    back = pc.t5_relative_position_bucket(-np.arange(5 * max_distance), bidirectional, num_buckets, max_distance)
    start = layout.last_bucket_from
    assert np.all(back[start:] == per - 1) and back[start - 1] < per - 1 and start <= max_distance
    np.testing.assert_array_equal(back[: per // 2], np.arange(per // 2))  # the exact region


def test_t5_known_layout_and_spans():
    assert t5_bucket_layout().last_bucket_from == 91
    spans = t5_bucket_spans(True, 32, 128, span=256)
    assert spans.count.sum() == 513
    assert spans.count[16] == 0 and spans.nearest[16] == -1  # bucket 16 would be offset 0 from the right
    assert spans.nearest[15] == 91 and spans.farthest[15] == 256 and spans.count[15] == 256 - 91 + 1
    causal = t5_bucket_spans(False, 32, 128, span=300)
    assert causal.count.sum() == 301 and causal.farthest[31] == 300


def test_t5_bias_grid_looks_up_the_bucket_value():
    values = t5_bucket_values(32, True, seed=3)
    np.testing.assert_array_equal(values, t5_bucket_values(32, True, seed=3))  # seeded
    grid = pc.t5_bias_grid(values, 40, True, 128)
    np.testing.assert_array_equal(grid, values[t5_bucket_grid(40, None, True, 32, 128)])
    assert toeplitz_deviation(grid) == 0.0
    causal = pc.t5_bias_grid(t5_bucket_values(16, False, 0), 10, False, 32)
    assert np.isneginf(causal[0, 1]) and np.isfinite(np.tril(causal)).all()
    edited = t5_bucket_values(32, True, 0, edit_bucket=5, edit_value=4.5)
    assert edited[5] == 4.5 and np.array_equal(np.delete(edited, 5), np.delete(t5_bucket_values(32), 5))


@pytest.mark.parametrize("call, message", [
    (lambda: alibi_slope_table(0), "at least 1"),
    (lambda: alibi_receptive_field(8, 100, 0.0), "greater than 0"),
    (lambda: alibi_receptive_field(8, 0), "at least 1"),
    (lambda: alibi_mass_beyond(8, 0, 10), "at least 1"),
    (lambda: alibi_receptive_field_limit(8, 1.0), "at most"),
    (lambda: alibi_bias_by_distance(8, 0), "at least 1"),
    (lambda: alibi_distance_weights(1024, 1 << 16), "cap"),
    (lambda: t5_bucket_layout(True, 32, 8), "larger than 8"),
    (lambda: t5_bucket_spans(True, 32, 128, span=0), "at least 1"),
    (lambda: t5_bucket_values(32, True, seed=-1), "at least 0"),
    (lambda: t5_bucket_values(32, True, 0, edit_bucket=32), "at most 31"),
    (lambda: t5_bucket_values(32, True, 0, edit_bucket=1, edit_value=float("nan")), "finite"),
])
def test_lesson_helpers_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets", [4, 8, 16, 32, 64, 128])
def test_t5_smallest_max_distance_is_the_exact_boundary(bidirectional, num_buckets):
    smallest = t5_smallest_max_distance(num_buckets, bidirectional)
    assert smallest == (num_buckets // 4 if bidirectional else num_buckets // 2) + 1
    pc.t5_relative_position_bucket(np.arange(-300, 300), bidirectional, num_buckets, smallest)  # accepted
    with pytest.raises(ValueError, match="max_distance must be larger"):
        pc.t5_relative_position_bucket(np.arange(-3, 3), bidirectional, num_buckets, smallest - 1)


def test_t5_buckets_are_bit_identical_over_random_large_settings():
    """Hundreds of buckets and long distances, where a float32 log one ulp off moves a bucket edge."""
    torch = pytest.importorskip("torch")
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    rng = np.random.default_rng(13)
    for _ in range(30):
        bidirectional = bool(rng.integers(2))
        num_buckets = int(rng.integers(8, 1024))
        max_distance = int(rng.integers(num_buckets, 400_000))
        centre = int(rng.integers(-max_distance, max_distance))
        rel = np.arange(centre - 20_000, centre + 20_000)
        expected = t5.T5Attention._relative_position_bucket(torch.from_numpy(rel), bidirectional, num_buckets,
                                                            max_distance).numpy()
        np.testing.assert_array_equal(pc.t5_relative_position_bucket(rel, bidirectional, num_buckets, max_distance),
                                      expected)
    # the case where numpy's float32 log and torch's disagree
    rel = np.array([-53075])
    expected = t5.T5Attention._relative_position_bucket(torch.from_numpy(rel), False, 859, 173947).numpy()
    np.testing.assert_array_equal(pc.t5_relative_position_bucket(rel, False, 859, 173947), expected)


@given(st.integers(1, 1024))
@settings(max_examples=60, deadline=None)
def test_alibi_head_counts_the_page_states(heads):
    slopes = pc.alibi_slopes(heads)
    first = alibi_geometric_heads(heads)
    assert first == 2 ** math.floor(math.log2(heads)) and first <= heads < 2 * first
    assert int((alibi_slope_table(heads).group == "geometric").sum()) == first
    assert alibi_gentlest_head(heads) == int(np.argmin(slopes)) == first - 1  # the code's gentlest: 2^-8
    shown = alibi_shown_heads(heads)
    assert shown[0] == 0 and len(shown) <= 8 and shown == sorted(set(shown)) and shown[-1] < heads
    assert len(shown) == heads or heads > 8


@pytest.mark.parametrize("call", [lambda: alibi_geometric_heads(0), lambda: alibi_shown_heads(8, 0),
                                  lambda: alibi_shown_heads(2000)])
def test_alibi_head_counts_reject_bad_input(call):
    with pytest.raises(ValueError):
        call()


def _alibi_weights_reference(n_heads, length):
    """alibi_distance_weights as it was: one softmax over every head's whole row, exp on every entry."""
    slopes = pc.alibi_slopes(n_heads).astype(np.float64)
    scores = -slopes[:, None] * np.arange(length, dtype=np.float64)[None, :]
    weights = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


@settings(max_examples=30, deadline=None)
@given(heads=st.sampled_from([1, 2, 3, 8, 12, 17, 64]), length=st.sampled_from([1, 2, 7, 300, 1493, 3000, 16384]),
       mass=st.sampled_from([0.5, 0.9, 0.97, 0.99, 1.0]), train=st.integers(1, 16384))
def test_alibi_weights_and_their_summaries_match_the_whole_row_softmax_bit_for_bit(heads, length, mass, train):
    ref = _alibi_weights_reference(heads, length)
    weights = alibi_distance_weights(heads, length)
    assert weights.dtype == ref.dtype and np.array_equal(weights, ref)
    assert np.array_equal(np.signbit(weights), np.signbit(ref))  # the zeros past underflow are +0 as before
    field = np.argmax(np.cumsum(ref, axis=1) >= mass - 1e-12, axis=1).astype(np.int64)
    assert np.array_equal(alibi_receptive_field(heads, length, mass), field)
    assert np.array_equal(alibi_mass_beyond(heads, train, length), ref[:, train:].sum(axis=1))


def test_t5_buckets_keep_a_torch_tensor_a_tensor():
    torch = pytest.importorskip("torch")
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    rel = torch.arange(-300, 300)
    got = pc.t5_relative_position_bucket(rel, False, 32, 128)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.int64 and got.device == rel.device
    assert torch.equal(got, t5.T5Attention._relative_position_bucket(rel, False, 32, 128))
    assert isinstance(pc.t5_relative_position_bucket(rel, backend="numpy"), np.ndarray)


def test_t5_two_buckets_are_refused_when_bidirectional_and_match_the_model_when_causal():
    torch = pytest.importorskip("torch")
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    with pytest.raises(ValueError, match="bidirectional T5 bias needs num_buckets of at least 4"):
        pc.t5_relative_position_bucket([1], num_buckets=2, max_distance=4)
    rel = np.arange(-20, 20)
    expected = t5.T5Attention._relative_position_bucket(torch.from_numpy(rel), False, 2, 4).numpy()
    np.testing.assert_array_equal(pc.t5_relative_position_bucket(rel, False, 2, 4), expected)
