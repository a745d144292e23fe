"""Attention sinks: a learned logit per head that takes part in the softmax and is then thrown away.

GPT-OSS (transformers' ``gpt_oss`` ``eager_attention_forward``) appends one column holding the head's
``sinks`` parameter to every row of scores, subtracts the row maximum, takes the softmax and drops that
column. The kept probabilities sum to less than 1: the sink absorbed the rest, and it multiplies no value
vector, so it is a way for a head to say "nothing here" without piling attention on a real token.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind
from .._checks import MAX_POSITIONS, as_float, as_int, check_size
from .._types import ArrayOrTensor

__all__ = [
    "EvictionCase",
    "ParkingShare",
    "SinkAttentionMap",
    "SinkMassByPosition",
    "StreamingEviction",
    "sink_attention_map",
    "sink_mass_by_position",
    "sink_mass_by_score",
    "sink_softmax",
    "streaming_eviction",
]


@dataclass(frozen=True)
class SinkMassByPosition:
    """Mass the sink absorbs for the query at each position (``sink_mass_by_position``); float64 arrays.

    full: (n,) the sink's share with full causal attention.
    window: (n,) the sink's share with the sliding window.
    keys_full: (n,) how many keys each query sees with full attention (p + 1).
    keys_window: (n,) how many keys each query sees in the window.
    """

    full: np.ndarray
    window: np.ndarray
    keys_full: np.ndarray
    keys_window: np.ndarray


@dataclass(frozen=True)
class SinkAttentionMap:
    """One head's causal sliding-window attention with a sink (``sink_attention_map``).

    probs: (n, n) query x key probabilities, NaN where masked.
    sink: (n,) what the sink column took in each row.
    kept: (n,) each row's total on the real keys (1 - sink).
    """

    probs: np.ndarray
    sink: np.ndarray
    kept: np.ndarray


@dataclass(frozen=True)
class ParkingShare:
    """Where one query's attention goes: parking + tokens = 1.

    parking: the mass on the parking place (token 0 or the sink).
    tokens: the mass on the other tokens.
    """

    parking: float
    tokens: float


@dataclass(frozen=True)
class EvictionCase:
    """One way of parking attention, before and after token 0 leaves the cache.

    before: the shares while token 0 is in the cache.
    after: the shares once it is evicted.
    growth: the largest factor by which one kept token's weight grew.
    growth_bound: 1 / (1 - a_0), the most evicting a parking place that held a_0 can grow a kept weight.
    """

    before: ParkingShare
    after: ParkingShare
    growth: float
    growth_bound: float


@dataclass(frozen=True)
class StreamingEviction:
    """What a streaming cache's eviction of token 0 does to attention (``streaming_eviction``).

    first_token: no sink logit, attention parked on token 0.
    learned_sink: a learned sink logit, token 0 an ordinary token.
    """

    first_token: EvictionCase
    learned_sink: EvictionCase


@keeps_kind
def sink_softmax(logits: ArrayLike, sink: ArrayLike) -> tuple[ArrayOrTensor, ArrayOrTensor]:
    """Softmax over each row of ``logits`` plus one sink logit, as GPT-OSS computes it.

    Args:
        logits: (..., n) scores (already scaled by 1/sqrt(d)); -inf marks a masked key.
        sink: the sink logit, a number or an array broadcastable to logits.shape[:-1] (one per head).

    Returns:
        ``(probs, sink_mass)``: probs (..., n), the attention kept on the keys (each row sums to
        1 - sink_mass), and sink_mass (...), the probability the sink absorbed.
    """
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim < 1 or logits.shape[-1] < 1:
        raise ValueError("sink_softmax needs at least one key per row.")
    if np.any(np.isnan(logits)) or np.any(logits == np.inf):
        raise ValueError("Scores must be finite numbers (or -inf for a masked key).")
    check_size(logits.size, "The score grid")
    sink = np.broadcast_to(np.asarray(sink, dtype=np.float64), logits.shape[:-1])
    if not np.all(np.isfinite(sink)):
        raise ValueError("The sink logit must be a finite number.")
    combined = np.concatenate([logits, sink[..., None]], axis=-1)  # (..., n + 1)
    combined = combined - combined.max(axis=-1, keepdims=True)  # the code's overflow guard
    weights = np.exp(combined)
    probs = weights / weights.sum(axis=-1, keepdims=True)
    return probs[..., :-1], probs[..., -1]


def _softmax(logits: np.ndarray) -> np.ndarray:
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


def _scores(n: int, spread: float, seed: int) -> np.ndarray:
    return spread * np.random.default_rng(seed).standard_normal(n)


def sink_mass_by_score(sink: float, offsets: ArrayLike, n_keys: int = 128, *, spread: float = 1.0,
                       seed: int = 0) -> np.ndarray:
    """Mass the sink absorbs as every key's score moves by an offset (keys score offset + spread·N(0,1)).

    Returns:
        (len(offsets),) float64.
    """
    offsets = np.asarray(offsets, dtype=np.float64).reshape(-1)
    if offsets.size == 0 or offsets.size > 4096 or not np.all(np.isfinite(offsets)):
        raise ValueError("Offsets must be 1 to 4,096 finite numbers.")
    n_keys = as_int("number of keys", n_keys, minimum=1, maximum=MAX_POSITIONS)
    check_size(offsets.size * n_keys, "The score grid")
    row = _scores(n_keys, as_float("score spread", spread, minimum=0.0, maximum=20.0),
                  as_int("seed", seed, minimum=0))  # (n_keys,)
    _, mass = sink_softmax(offsets[:, None] + row[None, :], as_float("sink logit", sink))
    return mass


def sink_mass_by_position(sink: float, n: int, window: int | None = None, *, offset: float = 0.0, spread: float = 1.0,
                          seed: int = 0) -> SinkMassByPosition:
    """Mass the sink absorbs for the query at each position 0..n-1, with a sliding window and without.

    Key j scores offset + spread·N(0,1), the same for every query. With a window of W keys (itself
    included, as transformers' sliding_window) the query at p sees keys max(0, p - W + 1)..p.

    Returns:
        a ``SinkMassByPosition``.
    """
    n = as_int("number of positions", n, minimum=1, maximum=MAX_POSITIONS)
    window = n if window is None else as_int("window", window, minimum=1, maximum=MAX_POSITIONS)
    sink = as_float("sink logit", sink)
    scores = as_float("score offset", offset, minimum=-50, maximum=50) + _scores(
        n, as_float("score spread", spread, minimum=0.0, maximum=20.0), as_int("seed", seed, minimum=0))
    shift = max(float(scores.max()), sink)  # one shift for every row keeps exp() in range
    prefix = np.concatenate([[0.0], np.cumsum(np.exp(scores - shift))])  # (n + 1,)
    positions = np.arange(n)
    start = np.maximum(0, positions - window + 1)
    sink_weight = np.exp(sink - shift)
    full = prefix[positions + 1]
    windowed = prefix[positions + 1] - prefix[start]
    return SinkMassByPosition(full=sink_weight / (sink_weight + full), window=sink_weight / (sink_weight + windowed),
                              keys_full=positions + 1.0, keys_window=(positions - start + 1).astype(np.float64))


def sink_attention_map(n: int, window: int, sink: float, *, spread: float = 1.0, seed: int = 0) -> SinkAttentionMap:
    """One head's causal sliding-window attention with a sink, on seeded scores.

    Returns:
        a ``SinkAttentionMap``.
    """
    n = as_int("number of positions", n, minimum=1, maximum=1024)
    window = as_int("window", window, minimum=1, maximum=n)
    spread = as_float("score spread", spread, minimum=0.0, maximum=20.0)
    logits = spread * np.random.default_rng(as_int("seed", seed, minimum=0)).standard_normal((n, n))
    q, k = np.indices((n, n))
    visible = (k <= q) & (q - k < window)  # transformers' sliding window: q - k < sliding_window
    logits[~visible] = -np.inf
    probs, mass = sink_softmax(logits, as_float("sink logit", sink))
    kept = np.where(visible, probs, 0.0).sum(axis=1)  # (n,)
    probs[~visible] = np.nan
    return SinkAttentionMap(probs=probs, sink=mass, kept=kept)


def streaming_eviction(window: int, sink: float, first_score: float = 6.0, *, spread: float = 1.0,
                       seed: int = 0) -> StreamingEviction:
    """What a streaming cache's eviction of token 0 does to attention, with and without a learned sink.

    The cache holds ``window`` tokens. Before eviction the query sees tokens 0..W-1; after it, 1..W (token W
    is new). Without a sink, models learn to park attention on token 0 (score ``first_score``); with a
    learned sink logit, token 0 is an ordinary token (spread·N(0,1)) and the sink stays in every row.

    Returns:
        a ``StreamingEviction``: for each case the shares ``before`` and ``after`` and the growth of the kept
        tokens' weights with its bound.
    """
    window = as_int("cache size", window, minimum=2, maximum=MAX_POSITIONS)
    spread = as_float("score spread", spread, minimum=0.0, maximum=20.0)
    first_score = as_float("score of token 0", first_score, minimum=-50, maximum=50)
    sink = as_float("sink logit", sink)
    scores = _scores(window + 1, spread, as_int("seed", seed, minimum=0))  # tokens 0..W
    parked = scores.copy()
    parked[0] = first_score

    def stats(before, after, parking_before, parking_after):
        shared = slice(1, window)  # tokens 1..W-1 are in the cache both times
        growth = float(np.max(after[0][: window - 1] / before[0][shared]))
        return EvictionCase(before=ParkingShare(parking_before, 1.0 - parking_before),
                            after=ParkingShare(parking_after, 1.0 - parking_after), growth=growth,
                            # evicting a parking place that held a_0 can grow a kept weight by at most 1 / (1 - a_0)
                            growth_bound=1.0 / (1.0 - parking_before))

    b, a = _softmax(parked[None, :window]), _softmax(parked[None, 1:])  # plain softmax: no sink column
    first = stats(b, a, float(b[0, 0]), 0.0)
    b_probs, b_sink = sink_softmax(scores[None, :window], sink)
    a_probs, a_sink = sink_softmax(scores[None, 1:], sink)
    learned = stats(b_probs, a_probs, float(b_sink[0]), float(a_sink[0]))
    return StreamingEviction(first_token=first, learned_sink=learned)
