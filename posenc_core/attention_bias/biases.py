"""Position as a bias on attention scores: ALiBi's linear penalties and T5's learned buckets."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import kind_of, require_torch, to_backend, to_numpy
from .._checks import MAX_HEADS, MAX_POSITIONS, as_float, as_int, check_size
from .._types import ArrayOrTensor

__all__ = [
    "AlibiSlopeTable",
    "T5BucketLayout",
    "T5BucketSpans",
    "alibi_attention",
    "alibi_bias",
    "alibi_bias_by_distance",
    "alibi_distance_weights",
    "alibi_geometric_heads",
    "alibi_gentlest_head",
    "alibi_mass_beyond",
    "alibi_paper_slopes",
    "alibi_receptive_field",
    "alibi_receptive_field_limit",
    "alibi_shown_heads",
    "alibi_slope_table",
    "alibi_slopes",
    "t5_bias_grid",
    "t5_bucket_grid",
    "t5_bucket_layout",
    "t5_bucket_spans",
    "t5_bucket_values",
    "t5_relative_position_bucket",
    "t5_smallest_max_distance",
]


def alibi_slopes(n_heads: int, *, backend: str = "numpy", device: str | None = None) -> ArrayOrTensor:
    """Per-head ALiBi slopes, exactly as the authors' ``get_slopes``.

    For a power of two n the slopes are the geometric sequence 2^(-8/n), 2^(-16/n), ..., 2^(-8).
    Otherwise the code (not the paper) takes the n' = 2^floor(log2 n) slopes for n' heads and
    fills the remaining n - n' heads with every other slope of the 2n'-head sequence, starting
    from its first: those interleave between the first ones, so no head duplicates another.

    Returns:
        Array of shape (n_heads,), float32, from the steepest slope (head 1) to the gentlest of the first group
        (head n'), then the filled heads.

    >>> pc.alibi_slopes(4).tolist()
    [0.25, 0.0625, 0.015625, 0.00390625]
    """
    n = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    p = alibi_geometric_heads(n)
    slopes = [2.0 ** (-8.0 * (i + 1) / p) for i in range(p)]
    # every other slope of the 2p-head sequence, 2^(-8(2k+1)/(2p)), for the leftover heads
    slopes += [2.0 ** (-8.0 * (2 * k + 1) / (2 * p)) for k in range(n - p)]
    return to_backend(np.asarray(slopes, dtype=np.float32), backend, device)


def alibi_paper_slopes(n_heads: int) -> np.ndarray:
    """The paper's plain geometric sequence 2^(-8h/n), h = 1..n, for comparison with the code."""
    n = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    return (2.0 ** (-8.0 * np.arange(1, n + 1) / n)).astype(np.float32)


def _query_key_distance(q_len: int, k_len: int) -> np.ndarray:
    """i - j for query i and key j, where the q_len queries are the last positions of k_len keys."""
    q_pos = np.arange(k_len - q_len, k_len)  # decoding with a cache: queries sit at the end
    return q_pos[:, None] - np.arange(k_len)[None, :]  # (q, k)


def alibi_bias(n_heads: int, q_len: int, k_len: int | None = None, causal: bool = True, *, backend: str = "numpy",
               device: str | None = None) -> ArrayOrTensor:
    """ALiBi bias grid, shape (n_heads, q_len, k_len), float32.

    bias[h, i, j] = -slope_h * (i - j) for keys at or before the query; -inf after it when causal,
    -slope_h * |i - j| when not. With k_len > q_len the queries are the last q_len positions.

    >>> pc.alibi_bias(2, 3, 3)[0].tolist()  # the first head's slope is 2^-4
    [[-0.0, -inf, -inf], [-0.0625, -0.0, -inf], [-0.125, -0.0625, -0.0]]
    """
    q_len = as_int("q_len", q_len, minimum=1, maximum=MAX_POSITIONS)
    k_len = q_len if k_len is None else as_int("k_len", k_len, minimum=1, maximum=MAX_POSITIONS)
    if k_len < q_len:
        raise ValueError(f"k_len ({k_len}) must be at least q_len ({q_len}): every query is also a key.")
    slopes = alibi_slopes(n_heads)  # (h,)
    check_size(slopes.shape[0] * q_len * k_len, "The ALiBi bias grid")
    dist = _query_key_distance(q_len, k_len).astype(np.float32)  # (q, k)
    bias = -slopes[:, None, None] * np.abs(dist)[None]  # (h, q, k)
    if causal:
        bias[:, dist < 0] = -np.inf
    return to_backend(bias, backend, device)


def t5_relative_position_bucket(relative_position: ArrayOrTensor, bidirectional: bool = True, num_buckets: int = 32,
                                max_distance: int = 128, *,
                                backend: str | None = None, device: str | None = None) -> ArrayOrTensor:
    """T5's bucket index for each relative position (key position - query position).

    Half the buckets (per direction when bidirectional) hold exact small distances; the rest
    grow logarithmically up to max_distance, beyond which everything shares the last bucket.
    The arithmetic is transformers' own, torch float32 included, so every bucket is bit-identical to
    ``T5Attention._relative_position_bucket``.

    Args:
        relative_position: whole numbers of any shape, a numpy array, a list or a torch tensor.
        backend: None (the default) returns the input's kind (a torch tensor stays a tensor, on its device);
            "numpy" or "torch" ask for one.

    Returns:
        int64 buckets with the shape of relative_position.

    >>> import numpy as np
    >>> pc.t5_relative_position_bucket(np.arange(-3, 4)).tolist()
    [3, 2, 1, 0, 17, 18, 19]
    """
    bidirectional = bool(bidirectional)
    num_buckets = as_int("num_buckets", num_buckets, minimum=2, maximum=4096)
    if bidirectional and num_buckets < 4:
        raise ValueError(f"A bidirectional T5 bias needs num_buckets of at least 4 (got {num_buckets}): each "
                         "direction gets half of them, and half of a direction's buckets hold its exact distances.")
    max_distance = as_int("max_distance", max_distance, minimum=1, maximum=MAX_POSITIONS)
    backend, device = kind_of(backend, device, relative_position)
    rel = np.asarray(to_numpy(relative_position))
    if rel.size and not np.issubdtype(rel.dtype, np.integer):
        if not np.all(np.isfinite(rel)) or not np.all(np.mod(rel, 1) == 0):
            raise ValueError("relative_position must hold whole numbers (key position - query position).")
    rel = rel.astype(np.int64)
    check_size(rel.size, "The relative-position array")
    buckets = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        num_buckets //= 2
        buckets += (rel > 0).astype(np.int64) * num_buckets
        rel = np.abs(rel)
    else:
        rel = -np.minimum(rel, 0)
    max_exact = num_buckets // 2
    if max_distance <= max_exact:
        raise ValueError(
            f"With num_buckets={num_buckets * (2 if bidirectional else 1)} the exact range is {max_exact} "
            f"positions, so max_distance must be larger than {max_exact} (got {max_distance})."
        )
    is_small = rel < max_exact
    # transformers' line, in torch float32: numpy's float32 log differs from torch's by an ulp at some
    # arguments, which moves a bucket edge when there are hundreds of buckets.
    torch = require_torch("T5's buckets, formed with torch as the model forms them,")
    safe = torch.from_numpy(np.maximum(rel, 1)).float()  # log(0) is never used: those positions are "small"
    scaled = (torch.log(safe / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact))
    if_large = np.minimum(max_exact + scaled.to(torch.long).numpy(), num_buckets - 1)
    buckets += np.where(is_small, rel, if_large)
    return to_backend(buckets, backend, device)


def t5_bucket_grid(q_len: int, k_len: int | None = None, bidirectional: bool = True, num_buckets: int = 32,
                   max_distance: int = 128, *,
                   backend: str = "numpy", device: str | None = None) -> ArrayOrTensor:
    """Bucket of every (query, key) pair, shape (q_len, k_len), int64."""
    q_len = as_int("q_len", q_len, minimum=1, maximum=MAX_POSITIONS)
    k_len = q_len if k_len is None else as_int("k_len", k_len, minimum=1, maximum=MAX_POSITIONS)
    check_size(q_len * k_len, "The bucket grid")
    rel = np.arange(k_len)[None, :] - np.arange(q_len)[:, None]  # (q, k): key - query
    return t5_relative_position_bucket(rel, bidirectional, num_buckets, max_distance,
                                       backend=backend, device=device)


# ---------------------------------------------------------------------------------------------
# ALiBi as a lesson: where the slopes come from and what attention a bias alone produces.
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AlibiSlopeTable:
    """Each head's ALiBi slope, a table of columns, each of shape (n_heads,).

    Attributes:
        head: the head number h, 1-based, int64.
        code: the slope the authors' code gives (``alibi_slopes``), float64.
        paper: the paper's formula 2^(-8h/n), float64.
        log2_code: log2 of the code's slope (its exponent), float64.
        group: "geometric" for the 2^floor(log2 n) heads of the plain sequence, "filled" for the heads taken from
            the 2n' sequence (str).
    """

    head: np.ndarray
    code: np.ndarray
    paper: np.ndarray
    log2_code: np.ndarray
    group: np.ndarray


def alibi_slope_table(n_heads: int) -> AlibiSlopeTable:
    """Each head's slope from the authors' code next to the paper's formula.

    Returns:
        An ``AlibiSlopeTable``, columns each of shape (n_heads,): ``head`` (1-based), ``code`` (``alibi_slopes``),
        ``paper`` (2^(-8h/n)), ``log2_code`` (the exponent of the code's slope) and ``group``: "geometric" for the
        2^floor(log2 n) heads of the plain sequence, "filled" for the heads taken from the 2n' sequence.
    """
    n = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    p = alibi_geometric_heads(n)
    code = alibi_slopes(n).astype(np.float64)
    return AlibiSlopeTable(
        head=np.arange(1, n + 1),
        code=code,
        paper=alibi_paper_slopes(n).astype(np.float64),
        log2_code=np.log2(code),
        group=np.array(["geometric"] * p + ["filled"] * (n - p)),
    )


def alibi_geometric_heads(n_heads: int) -> int:
    """n' = 2^floor(log2 n): how many heads take the plain geometric sequence 2^(-8h/n'); the rest are filled in.

    Args:
        n_heads: the model's head count, 1 to 1,024.
    Returns:
        n' (an int); equal to ``n_heads`` exactly when it is a power of two.
    """
    n = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    return 2 ** math.floor(math.log2(n))


def alibi_gentlest_head(n_heads: int) -> int:
    """The 0-based head with the smallest slope (the one that looks farthest back); head n' - 1 in the code."""
    return int(np.argmin(alibi_slopes(n_heads)))


def alibi_shown_heads(n_heads: int, most: int = 8) -> list[int]:
    """At most ``most`` 0-based heads spread evenly over all of them, the first always included (a grid per head).

    Args:
        n_heads: the model's head count.
        most: how many panels a figure has room for, 1 to 64.
    Returns:
        Sorted head indices, every ceil(n_heads / most)-th one from 0.
    """
    n = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    most = as_int("most", most, minimum=1, maximum=64)
    return list(range(0, n, -(-n // most)))  # ceil(n / most) apart


def _softmax_rows(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis in float64; rows that are all -inf cannot occur here (the diagonal is kept)."""
    shifted = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=-1, keepdims=True)


def alibi_attention(n_heads: int, q_len: int, causal: bool = True) -> np.ndarray:
    """The attention a bias alone produces: softmax of each ALiBi row when every content score is equal.

    Equal content scores (all q.k the same) cancel inside the softmax, so what is left is the pattern the
    bias imposes: exp(-m * distance), normalised over the keys a query may see.

    Returns:
        Array of shape (n_heads, q_len, q_len), float32; every row sums to 1.
    """
    bias = alibi_bias(n_heads, q_len, q_len, causal).astype(np.float64)  # (h, q, k)
    return _softmax_rows(bias).astype(np.float32)


_EXP_UNDERFLOW = 760.0  # exp(-x) is exactly 0.0 in float64 for x above ~745.2


def alibi_distance_weights(n_heads: int, length: int) -> np.ndarray:
    """Attention of the last query of a causal sequence of ``length`` tokens, by distance back 0..length-1.

    Returns:
        Array of shape (n_heads, length), float64: weight on the key ``d`` positions back, per head.
    """
    length = as_int("length", length, minimum=1, maximum=MAX_POSITIONS)
    slopes = alibi_slopes(n_heads).astype(np.float64)  # (h,)
    check_size(slopes.shape[0] * length, "The ALiBi weight table")
    distance = np.arange(length, dtype=np.float64)  # (L,)
    # exp(-m d) is exactly 0 once m d passes ~745 (below the smallest subnormal), so a steep head's row is zeros
    # from there on: exp runs on each head's nonzero prefix only (about 40% less at 64 heads and 16k tokens).
    ends = np.minimum(length, np.floor(_EXP_UNDERFLOW / slopes).astype(np.int64) + 1)  # (h,)
    weights = np.zeros((slopes.shape[0], length))  # (h, L)
    for h, end in enumerate(ends):
        # the row's max is e^0 at d = 0, so the softmax's shift by it changes no bit and is left out
        weights[h, :end] = np.exp(-slopes[h] * distance[:end])  # (end,)
    weights /= weights.sum(axis=1, keepdims=True)  # whole rows: the zeros keep the pairwise sum's order
    return weights  # (h, L)


def alibi_receptive_field(n_heads: int, length: int, mass: float = 0.9) -> np.ndarray:
    """Per head, the smallest distance D such that keys 0..D back hold at least ``mass`` of the attention.

    Measured for the last query of a causal sequence of ``length`` tokens with equal content scores.
    Without a length limit the weights are geometric, so D is about ln(1/(1-mass)) / m - 1; a finite
    sequence cuts the tail off, so a gentle head can reach the whole sequence.

    Returns:
        int64 array of shape (n_heads,).
    """
    mass = as_float("mass", mass, above=0.0, maximum=1.0)
    weights = alibi_distance_weights(n_heads, length)  # (h, L)
    reached = np.cumsum(weights, axis=1) >= mass - 1e-12  # (h, L)
    return np.argmax(reached, axis=1).astype(np.int64)


def alibi_receptive_field_limit(n_heads: int, mass: float = 0.9) -> np.ndarray:
    """The receptive field of ``alibi_receptive_field`` for an unlimited context, in closed form.

    The weights are geometric, w_d = (1 - e^-m) e^(-m d), so keys 0..D hold 1 - e^(-m (D + 1)); the
    smallest D with at least ``mass`` is ceil(ln(1 / (1 - mass)) / m) - 1.

    Returns:
        int64 array of shape (n_heads,).
    """
    mass = as_float("mass", mass, above=0.0, maximum=0.999999)
    slopes = alibi_slopes(n_heads).astype(np.float64)
    return (np.ceil(np.log(1.0 / (1.0 - mass)) / slopes) - 1).astype(np.int64)


def alibi_bias_by_distance(n_heads: int, length: int) -> np.ndarray:
    """The bias each head adds to a key d = 0..length-1 positions behind the query: -m_h * d.

    Returns:
        float64 array of shape (n_heads, length).
    """
    length = as_int("length", length, minimum=1, maximum=MAX_POSITIONS)
    slopes = alibi_slopes(n_heads).astype(np.float64)  # (h,)
    check_size(slopes.shape[0] * length, "The ALiBi bias table")
    return 0.0 - slopes[:, None] * np.arange(length, dtype=np.float64)[None, :]  # (h, L)


def alibi_mass_beyond(n_heads: int, train_len: int, eval_len: int) -> np.ndarray:
    """Share of the last query's attention on keys farther back than ``train_len`` - 1, at ``eval_len`` tokens.

    These are distances no query saw in training; with equal content scores this is how much attention
    a head hands to them. Steep heads hand almost none, so the penalty keeps long inputs local.

    Returns:
        float64 array of shape (n_heads,).
    """
    train_len = as_int("train_len", train_len, minimum=1, maximum=MAX_POSITIONS)
    eval_len = as_int("eval_len", eval_len, minimum=1, maximum=MAX_POSITIONS)
    weights = alibi_distance_weights(n_heads, eval_len)  # (h, L)
    return weights[:, train_len:].sum(axis=1)


# ---------------------------------------------------------------------------------------------
# T5 buckets as a lesson: the layout of the buckets and a bias from one scalar per bucket.
# ---------------------------------------------------------------------------------------------

def t5_smallest_max_distance(num_buckets: int = 32, bidirectional: bool = True) -> int:
    """The smallest ``max_distance`` T5's bucketing accepts: one more than its exact range.

    Half of a direction's buckets hold one offset each (offsets 0 .. exact-1); the log-spaced buckets
    after them need ``max_distance > exact``. Bidirectional models give each direction half of
    ``num_buckets``, so exact = num_buckets // 4 there and num_buckets // 2 when causal.
    """
    num_buckets = as_int("num_buckets", num_buckets, minimum=4 if bidirectional else 2, maximum=4096)
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    return per_direction // 2 + 1


@dataclass(frozen=True)
class T5BucketLayout:
    """The numbers that describe T5's bucketing, each an int.

    Attributes:
        per_direction: buckets for one sign of the offset (num_buckets / 2 bidirectional, num_buckets causal).
        exact: offsets 0..exact-1 get a bucket each.
        max_distance: the distance from which the formula's log buckets stop growing (tokens).
        last_bucket_from: the smallest distance (tokens) that lands in the last bucket of a direction.
    """

    per_direction: int
    exact: int
    max_distance: int
    last_bucket_from: int


def t5_bucket_layout(bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> T5BucketLayout:
    """The numbers that describe T5's bucketing.

    Returns:
        A ``T5BucketLayout``: ``per_direction`` (buckets for one sign of the offset), ``exact`` (offsets 0..exact-1 get
        a bucket each), ``max_distance``, and ``last_bucket_from``: the smallest distance that lands in the last bucket
        of a direction. Because the log buckets are floored, this is below max_distance: with 32 buckets and
        max_distance 128 (bidirectional) every distance from 91 on already shares one bucket.
    """
    num_buckets = as_int("num_buckets", num_buckets, minimum=2, maximum=4096)
    max_distance = as_int("max_distance", max_distance, minimum=1, maximum=MAX_POSITIONS)
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    distances = np.arange(max_distance + 1)
    buckets = t5_relative_position_bucket(-distances, bidirectional, num_buckets, max_distance)  # keys before
    return T5BucketLayout(
        per_direction=per_direction,
        exact=per_direction // 2,
        max_distance=max_distance,
        last_bucket_from=int(distances[np.argmax(buckets == per_direction - 1)]),
    )


@dataclass(frozen=True)
class T5BucketSpans:
    """Which relative positions share each T5 bucket: columns of shape (num_buckets,), int64.

    Attributes:
        bucket: the bucket index 0..num_buckets-1.
        count: offsets in the window that use it (0 for a bucket the formula never reaches).
        nearest, farthest: the smallest and largest |offset| (tokens) in it, -1 when empty.
    """

    bucket: np.ndarray
    count: np.ndarray
    nearest: np.ndarray
    farthest: np.ndarray


def t5_bucket_spans(bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128,
                    span: int = 256) -> T5BucketSpans:
    """Which relative positions (key - query) share each bucket, over offsets within +-``span``.

    Returns:
        A ``T5BucketSpans``, columns of shape (num_buckets,): ``bucket``, ``count`` (offsets in the window that use it;
        0 for a bucket the formula never reaches), ``nearest`` and ``farthest`` (smallest and largest |offset| in it, -1
        when empty). Causal buckets look only at keys at or before the query (offsets -span..0).
    """
    span = as_int("span", span, minimum=1, maximum=1 << 20)
    rel = np.arange(-span, span + 1) if bidirectional else np.arange(-span, 1)
    buckets = t5_relative_position_bucket(rel, bidirectional, num_buckets, max_distance)
    total = int(num_buckets)
    count = np.bincount(buckets, minlength=total)
    distance = np.abs(rel)
    nearest = np.full(total, np.iinfo(np.int64).max)
    farthest = np.full(total, -1)
    np.minimum.at(nearest, buckets, distance)
    np.maximum.at(farthest, buckets, distance)
    nearest[count == 0] = -1
    return T5BucketSpans(bucket=np.arange(total), count=count, nearest=nearest, farthest=farthest)


def t5_bucket_values(num_buckets: int = 32, bidirectional: bool = True, seed: int = 0, edit_bucket: int | None = None,
                     edit_value: float = 0.0) -> np.ndarray:
    """Illustrative 'learned' biases, one scalar per bucket, from a seed (a trained model learns its own).

    The draw falls off with the bucket's rank inside its direction (near buckets favoured, as trained T5
    heads mostly are) plus seeded noise; ``edit_bucket``/``edit_value`` overwrite one entry.

    Returns:
        float32 array of shape (num_buckets,).
    """
    num_buckets = as_int("num_buckets", num_buckets, minimum=2, maximum=4096)
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    rank = np.arange(num_buckets) % per_direction  # 0 = nearest bucket of its direction
    rng = np.random.default_rng(seed)
    values = -2.0 * rank / max(per_direction - 1, 1) + 0.2 * rng.standard_normal(num_buckets)
    if edit_bucket is not None:
        b = as_int("edit_bucket", edit_bucket, minimum=0, maximum=num_buckets - 1)
        values[b] = as_float("edit_value", edit_value, minimum=-100.0, maximum=100.0)
    return values.astype(np.float32)


def t5_bias_grid(values: ArrayLike, q_len: int, bidirectional: bool = True, max_distance: int = 128, *,
                 backend: str | None = None, device: str | None = None) -> ArrayOrTensor:
    """The bias of every (query, key) pair: the learned scalar of the pair's bucket, values[bucket(j - i)].

    ``values`` holds one scalar per bucket (its length is num_buckets). Causal grids are -inf above the
    diagonal, where the mask hides future keys.

    Returns:
        Array of shape (q_len, q_len), float32, of the kind ``backend`` names (by default that of ``values``).

    >>> import numpy as np
    >>> pc.t5_bias_grid(np.arange(32.0), 3).tolist()
    [[0.0, 17.0, 18.0], [1.0, 0.0, 17.0], [2.0, 1.0, 0.0]]
    """
    backend, device = kind_of(backend, device, values)
    values = np.asarray(to_numpy(values), dtype=np.float32).reshape(-1)  # (num_buckets,)
    grid = t5_bucket_grid(q_len, None, bidirectional, values.shape[0], max_distance)  # (q, k)
    bias = values[grid]
    if not bidirectional:
        bias[np.triu_indices(bias.shape[0], k=1)] = -np.inf
    return to_backend(bias, backend, device)
