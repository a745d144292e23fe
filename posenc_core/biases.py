"""Position as a bias on attention scores: ALiBi's linear penalties and T5's learned buckets."""

from __future__ import annotations

import math

import numpy as np

from ._backend import to_backend
from ._checks import MAX_HEADS, MAX_POSITIONS, as_int, check_size

__all__ = [
    "alibi_bias",
    "alibi_paper_slopes",
    "alibi_slopes",
    "t5_bucket_grid",
    "t5_relative_position_bucket",
]



def alibi_slopes(n_heads, *, backend="numpy", device=None):
    """Per-head ALiBi slopes, exactly as the authors' ``get_slopes``.

    For a power of two n the slopes are the geometric sequence 2^(-8/n), 2^(-16/n), ..., 2^(-8).
    Otherwise the code (not the paper) takes the n' = 2^floor(log2 n) slopes for n' heads and
    fills the remaining n - n' heads with every other slope of the 2n'-head sequence, starting
    from its first: those interleave between the first ones, so no head duplicates another.

    Returns:
        Array of shape (n_heads,), float32, from the gentlest slope to the steepest of the first group.
    """
    n = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    p = 2 ** math.floor(math.log2(n))
    slopes = [2.0 ** (-8.0 * (i + 1) / p) for i in range(p)]
    # every other slope of the 2p-head sequence, 2^(-8(2k+1)/(2p)), for the leftover heads
    slopes += [2.0 ** (-8.0 * (2 * k + 1) / (2 * p)) for k in range(n - p)]
    return to_backend(np.asarray(slopes, dtype=np.float32), backend, device)


def alibi_paper_slopes(n_heads) -> np.ndarray:
    """The paper's plain geometric sequence 2^(-8h/n), h = 1..n, for comparison with the code."""
    n = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    return (2.0 ** (-8.0 * np.arange(1, n + 1) / n)).astype(np.float32)


def _query_key_distance(q_len: int, k_len: int) -> np.ndarray:
    """i - j for query i and key j, where the q_len queries are the last positions of k_len keys."""
    q_pos = np.arange(k_len - q_len, k_len)  # decoding with a cache: queries sit at the end
    return q_pos[:, None] - np.arange(k_len)[None, :]  # (q, k)


def alibi_bias(n_heads, q_len, k_len=None, causal=True, *, backend="numpy", device=None):
    """ALiBi bias grid, shape (n_heads, q_len, k_len), float32.

    bias[h, i, j] = -slope_h * (i - j) for keys at or before the query; -inf after it when causal,
    -slope_h * |i - j| when not. With k_len > q_len the queries are the last q_len positions.
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


def t5_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128, *,
                                backend="numpy", device=None):
    """T5's bucket index for each relative position (key position - query position).

    Half the buckets (per direction when bidirectional) hold exact small distances; the rest
    grow logarithmically up to max_distance, beyond which everything shares the last bucket.
    The arithmetic is done in float32 like the reference, so bucket edges land on the same integers.

    Returns:
        int64 array with the shape of relative_position.
    """
    num_buckets = as_int("num_buckets", num_buckets, minimum=2, maximum=4096)
    max_distance = as_int("max_distance", max_distance, minimum=1, maximum=MAX_POSITIONS)
    rel = np.asarray(relative_position)
    if rel.size and not np.issubdtype(rel.dtype, np.integer):
        if not np.all(np.isfinite(rel)) or not np.all(np.mod(rel, 1) == 0):
            raise ValueError("relative_position must hold whole numbers (key position - query position).")
        rel = rel.astype(np.int64)
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
    if max_exact < 1 or max_distance <= max_exact:
        raise ValueError(
            f"With num_buckets={num_buckets * (2 if bidirectional else 1)} the exact range is {max_exact} "
            f"positions, so max_distance must be larger than {max_exact} (got {max_distance})."
        )
    is_small = rel < max_exact
    safe = np.maximum(rel, 1).astype(np.float32)  # log(0) is never used: those positions are "small"
    scaled = (np.log(safe / np.float32(max_exact)) / np.float32(math.log(max_distance / max_exact))
              * np.float32(num_buckets - max_exact))
    if_large = np.minimum(max_exact + scaled.astype(np.int64), num_buckets - 1)
    buckets += np.where(is_small, rel, if_large)
    return to_backend(buckets, backend, device)


def t5_bucket_grid(q_len, k_len=None, bidirectional=True, num_buckets=32, max_distance=128, *,
                   backend="numpy", device=None):
    """Bucket of every (query, key) pair, shape (q_len, k_len), int64."""
    q_len = as_int("q_len", q_len, minimum=1, maximum=MAX_POSITIONS)
    k_len = q_len if k_len is None else as_int("k_len", k_len, minimum=1, maximum=MAX_POSITIONS)
    check_size(q_len * k_len, "The bucket grid")
    rel = np.arange(k_len)[None, :] - np.arange(q_len)[:, None]  # (q, k): key - query
    return t5_relative_position_bucket(rel, bidirectional, num_buckets, max_distance,
                                       backend=backend, device=device)
