"""Position inside attention without a bias table: Shaw et al.'s relative vectors, and no encoding at all.

Shaw, Uszkoreit & Vaswani (2018) learn one vector per clipped relative distance, a^K for the keys and
a^V for the values, and add them inside attention:

    e_ij = q_i . (k_j + a^K_{clip(j - i, k)}) / sqrt(d),   z_i = sum_j alpha_ij (v_j + a^V_{clip(j - i, k)}).

NoPE ("no positional encoding") leaves all of that out; with a causal mask the model still sees a
little order, because query i can only average over the first i + 1 values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind, to_numpy
from .._checks import MAX_DIM, MAX_POSITIONS, as_int, check_size
from .._types import ArrayOrTensor

__all__ = [
    "NopeOutputs",
    "ShawAttention",
    "ShawEffectiveKeys",
    "ShawExample",
    "ShawScores",
    "masked_softmax",
    "nope_outputs",
    "nope_values",
    "shaw_attention",
    "shaw_clipped_distance",
    "shaw_effective_keys",
    "shaw_example",
    "shaw_relative_index",
    "shaw_scores",
    "uniform_attention",
    "uniform_attention_weights",
]

MAX_REL = 4096  # clipping distances beyond this never fit on a page


def shaw_clipped_distance(q_len: int, k_len: int | None = None, max_rel: int = 4) -> np.ndarray:
    """clip(j - i, -k, k) for each (query i, key j): the relative distance as the model sees it.

    Returns:
        int64 array of shape (q_len, k_len), values in -k..k.
    """
    q_len = as_int("q_len", q_len, minimum=1, maximum=MAX_POSITIONS)
    k_len = q_len if k_len is None else as_int("k_len", k_len, minimum=1, maximum=MAX_POSITIONS)
    max_rel = as_int("max_rel (the clipping distance k)", max_rel, minimum=0, maximum=MAX_REL)
    check_size(q_len * k_len, "The relative-index grid")
    rel = np.arange(k_len)[None, :] - np.arange(q_len)[:, None]  # (q, k): key - query
    return np.clip(rel, -max_rel, max_rel)


def shaw_relative_index(q_len: int, k_len: int | None = None, max_rel: int = 4) -> np.ndarray:
    """Row of the relative table used by each (query i, key j): clip(j - i, -k, k) + k.

    Returns:
        int64 array of shape (q_len, k_len), values in 0..2k; row k of the table is distance 0.
    """
    return shaw_clipped_distance(q_len, k_len, max_rel) + int(max_rel)


@dataclass(frozen=True)
class ShawExample:
    """Seeded inputs for Shaw et al.'s attention, all float64 standard normal draws.

    Attributes:
        q, k, v: queries, keys and values, each of shape (n, dim).
        a_k, a_v: the relative tables for the keys and the values, each of shape (2 * max_rel + 1, dim); row
            max_rel is distance 0 (a trained model would have learned them).
    """

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    a_k: np.ndarray
    a_v: np.ndarray


def shaw_example(n: int, dim: int, max_rel: int, seed: int = 0) -> ShawExample:
    """Seeded queries, keys, values and relative tables for a small demonstration.

    Returns:
        A ``ShawExample``: ``q``, ``k``, ``v`` of shape (n, dim) and ``a_k``, ``a_v`` of shape
        (2 * max_rel + 1, dim), float64, all standard normal draws (a trained model would have learned the tables).
    """
    n = as_int("n", n, minimum=1, maximum=MAX_POSITIONS)
    dim = as_int("dim", dim, minimum=1, maximum=MAX_DIM)
    max_rel = as_int("max_rel (the clipping distance k)", max_rel, minimum=0, maximum=MAX_REL)
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    check_size((3 * n + 2 * (2 * max_rel + 1)) * dim, "The example")
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((n, dim)) for _ in range(3))
    a_k, a_v = (rng.standard_normal((2 * max_rel + 1, dim)) for _ in range(2))
    return ShawExample(q=q, k=k, v=v, a_k=a_k, a_v=a_v)


def _table_rows(table, max_rel: int, dim: int, name: str) -> np.ndarray:
    table = np.asarray(to_numpy(table), dtype=np.float64)
    if table.shape != (2 * max_rel + 1, dim):
        raise ValueError(f"{name} must have shape (2k+1, d) = ({2 * max_rel + 1}, {dim}) for k = {max_rel}, "
                         f"but has shape {table.shape}.")
    return table


def _qk(q, k) -> tuple[np.ndarray, np.ndarray]:
    q = np.asarray(to_numpy(q), dtype=np.float64)
    k = np.asarray(to_numpy(k), dtype=np.float64)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"q and k must be (positions, d) with the same d, but have shapes {q.shape} and {k.shape}.")
    check_size(q.shape[0] * k.shape[0], "The score grid")
    return q, k


@dataclass(frozen=True)
class ShawScores:
    """Shaw et al.'s attention logits split in two, each of shape (q_len, k_len), float64 (torch tensors when the
    inputs were).

    Attributes:
        content: q_i . k_j / sqrt(d), the logit without position.
        relative: q_i . a^K_{clip(j - i)} / sqrt(d), the position term.
        total: content + relative, the logit the softmax reads.
    """

    content: ArrayOrTensor
    relative: ArrayOrTensor
    total: ArrayOrTensor


@keeps_kind
def shaw_scores(q: ArrayOrTensor, k: ArrayOrTensor, a_k: ArrayLike, max_rel: int) -> ShawScores:
    """Split Shaw et al.'s attention logits into a content term and a relative term.

    content_ij = q_i . k_j / sqrt(d),  relative_ij = q_i . a^K_{clip(j - i)} / sqrt(d),  total = the sum.
    The relative term is computed as the paper suggests: q times all 2k+1 table rows once, then a gather,
    instead of materialising an (n, n, d) tensor of per-pair key vectors.

    Returns:
        A ``ShawScores``: ``content``, ``relative``, ``total``, each of shape (q_len, k_len), float64.
    """
    q, k = _qk(q, k)
    max_rel = as_int("max_rel (the clipping distance k)", max_rel, minimum=0, maximum=MAX_REL)
    a_k = _table_rows(a_k, max_rel, q.shape[1], "a_k")
    scale = 1.0 / math.sqrt(q.shape[1])
    content = q @ k.T * scale  # (q, k)
    per_distance = q @ a_k.T * scale  # (q, 2k+1): every query against every table row
    index = shaw_relative_index(q.shape[0], k.shape[0], max_rel)  # (q, k)
    relative = np.take_along_axis(per_distance, index, axis=1)  # (q, k)
    return ShawScores(content=content, relative=relative, total=content + relative)


@keeps_kind
def masked_softmax(scores: ArrayLike, causal: bool = True) -> ArrayOrTensor:
    """Row softmax of a (q, k) score grid; with ``causal`` keys after the query (j > i) get weight 0.

    Returns:
        float64 array of the same shape; every row sums to 1.
    """
    scores = np.array(to_numpy(scores), dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(f"scores must be a 2D grid (queries x keys), but has shape {scores.shape}.")
    if causal:
        scores[np.triu_indices(scores.shape[0], k=1, m=scores.shape[1])] = -np.inf
    shifted = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class ShawAttention:
    """Full Shaw et al. attention, float64 (torch tensors when the inputs were).

    Attributes:
        weights: the attention weights alpha_ij, shape (q_len, k_len); each row sums to 1.
        content_out: sum_j alpha_ij v_j, shape (q_len, d).
        relative_out: sum_j alpha_ij a^V_{clip(j - i)}, shape (q_len, d).
        out: content_out + relative_out, the layer's output, shape (q_len, d).
    """

    weights: ArrayOrTensor
    content_out: ArrayOrTensor
    relative_out: ArrayOrTensor
    out: ArrayOrTensor


@keeps_kind
def shaw_attention(q: ArrayOrTensor, k: ArrayOrTensor, v: ArrayLike, a_k: ArrayLike, a_v: ArrayLike, max_rel: int,
                   causal: bool = False) -> ShawAttention:
    """Full Shaw et al. attention: relative vectors on the keys (logits) and on the values (outputs).

    z_i = sum_j alpha_ij v_j + sum_j alpha_ij a^V_{clip(j - i)}; the second sum is formed by adding up
    the weights that fall on each clipped distance (n x (2k+1)) and multiplying by the table once.

    Returns:
        A ``ShawAttention``: ``weights`` (q_len, k_len), ``content_out`` and ``relative_out`` (q_len, d) and
        ``out`` (their sum).
    """
    q, k = _qk(q, k)
    v = np.asarray(to_numpy(v), dtype=np.float64)
    if v.shape != k.shape:
        raise ValueError(f"v must have the same shape as k {k.shape}, but has shape {v.shape}.")
    scores = shaw_scores(q, k, a_k, max_rel).total
    a_v = _table_rows(a_v, max_rel, v.shape[1], "a_v")
    weights = masked_softmax(scores, causal)  # (q, k)
    index = shaw_relative_index(q.shape[0], k.shape[0], max_rel)  # (q, k)
    per_distance = np.zeros((q.shape[0], 2 * max_rel + 1))  # (q, 2k+1): weight on each clipped distance
    np.add.at(per_distance, (np.arange(q.shape[0])[:, None], index), weights)
    content_out = weights @ v  # (q, d)
    relative_out = per_distance @ a_v  # (q, d)
    return ShawAttention(weights=weights, content_out=content_out, relative_out=relative_out,
                         out=content_out + relative_out)


@dataclass(frozen=True)
class ShawEffectiveKeys:
    """One cached key j as each later query i = j..n-1 sees it: k_j + a^K_{clip(j - i)}.

    Attributes:
        queries: the positions i = j..n-1 that read key j, int64 of shape (m,), m = n - j.
        keys: the effective key at each of those steps, float64 of shape (m, dim).
        change: |effective key at step i - effective key at the step before|, float64 (m,); 0 at the first step
            and once clipping holds the key still.
        changing_steps: how many steps after token j is written its effective key still changes (an int).
    """

    queries: np.ndarray
    keys: np.ndarray
    change: np.ndarray
    changing_steps: int


def shaw_effective_keys(n: int, dim: int, max_rel: int, key_position: int, seed: int = 0) -> ShawEffectiveKeys:
    """What one cached key looks like to each later query while decoding: k_j + a^K_{clip(j - i)}.

    For RoPE the cache holds R_j k_j, final the moment token j is written; here the position part depends
    on the reading query i, so the same cached token changes its effective key at every step until the
    distance passes the clipping limit.

    Returns:
        A ``ShawEffectiveKeys``: ``queries`` (the positions i = j..n-1 that read key j), ``keys`` of shape
        (len(queries), dim), and ``change``: |effective key at step i - effective key at the step before|, 0 once
        clipping holds it, and ``changing_steps``: how many steps after token j is written its effective key still
        changes.
    """
    n = as_int("n", n, minimum=1, maximum=MAX_POSITIONS)
    j = as_int("key_position", key_position, minimum=0, maximum=n - 1)
    example = shaw_example(n, dim, max_rel, seed)
    queries = np.arange(j, n)
    rows = np.clip(j - queries, -max_rel, max_rel) + max_rel  # (len(queries),)
    keys = example.k[j][None, :] + example.a_k[rows]  # (len(queries), d)
    change = np.r_[0.0, np.linalg.norm(np.diff(keys, axis=0), axis=1)]
    return ShawEffectiveKeys(queries=queries, keys=keys, change=change, changing_steps=int((change > 0).sum()))


def uniform_attention_weights(n: int, causal: bool = True) -> np.ndarray:
    """Attention weights when every score is equal: 1/(i+1) on keys 0..i (causal) or 1/n everywhere.

    Returns:
        float64 array of shape (n, n).
    """
    n = as_int("n", n, minimum=1, maximum=MAX_POSITIONS)
    check_size(n * n, "The attention grid")
    return masked_softmax(np.zeros((n, n)), causal)


@keeps_kind
def uniform_attention(values: ArrayLike, causal: bool = True) -> ArrayOrTensor:
    """Attention with every score equal and no positional encoding at all.

    Bidirectional: every position gets the mean of all values (order is invisible). Causal: position i
    gets the mean of values 0..i, a running mean, so the output depends on where a token sits.

    Returns:
        float64 array of shape (n, d).
    """
    values = np.asarray(to_numpy(values), dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"values must be (positions, d), but has shape {values.shape}.")
    return uniform_attention_weights(values.shape[0], causal) @ values  # (n, n) @ (n, d)


def nope_values(n: int, dim: int, pattern: str = "start token", seed: int = 0) -> np.ndarray:
    """Seeded value vectors for the NoPE demonstration.

    ``pattern``: "start token" = one distinct first token followed by the same token repeated (the content
    is identical everywhere except the start); "random" = independent standard normal tokens.

    Returns:
        float64 array of shape (n, dim).
    """
    n = as_int("n", n, minimum=1, maximum=MAX_POSITIONS)
    dim = as_int("dim", dim, minimum=1, maximum=MAX_DIM)
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    if pattern not in ("start token", "random"):
        raise ValueError(f"pattern must be 'start token' or 'random', but got {pattern!r}.")
    check_size(n * dim, "The value table")
    rng = np.random.default_rng(seed)
    if pattern == "random":
        return rng.standard_normal((n, dim))
    start, token = rng.standard_normal((2, dim))
    values = np.tile(token, (n, 1))
    values[0] = start
    return values


@dataclass(frozen=True)
class NopeOutputs:
    """Uniform attention over the same values with and without a causal mask (no positional encoding).

    Attributes:
        causal, bidirectional: the outputs, float64 of shape (n, dim).
        causal_spread, bidirectional_spread: distance of each output from the last position's output, (n,); 0
            everywhere when the outputs cannot tell positions apart.
        bidirectional_worst: the largest bidirectional spread, a float (float rounding only).
        gap_shrink: neighbour_gap[1] / neighbour_gap[-1], a float: how many times harder telling the last two
            positions apart is than telling 1 from 2 (NaN for n < 4).
        start_weight_causal, start_weight_bidirectional: the attention each position puts on token 0, (n,):
            1/(i+1) causal, 1/n bidirectional.
        neighbour_gap: |out_{i+1} - out_i| for the causal outputs, (n - 1,); it shrinks like 1/i^2 for the
            start-token pattern.
    """

    causal: np.ndarray
    bidirectional: np.ndarray
    causal_spread: np.ndarray
    bidirectional_spread: np.ndarray
    bidirectional_worst: float
    gap_shrink: float
    start_weight_causal: np.ndarray
    start_weight_bidirectional: np.ndarray
    neighbour_gap: np.ndarray


def nope_outputs(n: int, dim: int, pattern: str = "start token", seed: int = 0) -> NopeOutputs:
    """Uniform attention over the same values with and without a causal mask.

    Returns:
        A ``NopeOutputs``: ``causal`` and ``bidirectional`` outputs (n, dim); ``causal_spread`` and
        ``bidirectional_spread`` (n,): distance of each output from the last position's output, which is 0 everywhere
        when the outputs cannot tell positions apart; ``start_weight_causal`` / ``start_weight_bidirectional`` (n,): the
        attention each position puts on token 0 (1/(i+1) causal, 1/n bidirectional); ``neighbour_gap`` (n - 1,):
        |out_{i+1} - out_i| for the causal outputs, how far apart two neighbouring positions' outputs are (it shrinks
        like 1/i^2 for the start-token pattern); ``bidirectional_worst``: the largest bidirectional spread (float
        rounding only); ``gap_shrink``: neighbour_gap[1] / neighbour_gap[-1], how many times harder telling the last two
        positions apart is than telling 1 from 2 (NaN for n < 4).
    """
    values = nope_values(n, dim, pattern, seed)
    causal = uniform_attention(values, causal=True)
    both = uniform_attention(values, causal=False)
    gap = np.linalg.norm(np.diff(causal, axis=0), axis=1)  # (n - 1,)
    spread = np.linalg.norm(both - both[-1], axis=1)  # (n,)
    return NopeOutputs(
        causal=causal,
        bidirectional=both,
        causal_spread=np.linalg.norm(causal - causal[-1], axis=1),
        bidirectional_spread=spread,
        bidirectional_worst=float(spread.max()),
        gap_shrink=float(gap[1] / gap[-1]) if gap.size >= 3 else float("nan"),
        start_weight_causal=uniform_attention_weights(values.shape[0], causal=True)[:, 0],
        start_weight_bidirectional=uniform_attention_weights(values.shape[0], causal=False)[:, 0],
        neighbour_gap=gap,
    )
