"""Where SmolLM2's attention goes while it streams: the share of each query's attention that lands on each of the
text's first SHARE_TOKENS tokens (StreamingLLM's ``start_size``), read from a ``streaming_run`` (its ``shares``),
per layer and averaged over layers and heads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._checks import as_choice

if TYPE_CHECKING:
    from .streaming import StreamingRun

__all__ = ["FirstTokenShares", "first_token_shares"]


@dataclass(frozen=True)
class FirstTokenShares:
    """The attention one cache's queries put on the text's first SHARE_TOKENS tokens.

    Fields:
        variant: the cache, a key of STREAM_VARIANTS; sinks: the first tokens it keeps.
        cache: S + W, the keys kept after each eviction; block: B, the tokens read per step.
        queries: (start, stop), half-open: the text tokens whose attention is averaged, from the first block read
            after an eviction to the end of the run (the rolling cache at work).
        queries_before: (start, stop): the queries from SINK_FROM to that block (nothing evicted yet).
        per_head: (layers, heads, SHARE_TOKENS) float64: the mean attention weight on text token i over
            ``queries`` (0 for a token the cache no longer holds).
        per_layer: (layers, SHARE_TOKENS): ``per_head`` averaged over the heads.
        mean: (SHARE_TOKENS,): averaged over the layers and the heads, each head weighing the same.
        before: (SHARE_TOKENS,): the same average over ``queries_before``.
        rest: 1 - mean.sum(): what the queries put on every other key they see (the window and their block).
        uniform: the weight of one key if each query spread its attention evenly over the keys it sees (after an
            eviction, S + W cached keys and its block up to itself), averaged over ``queries``.
        low_layer, high_layer: the layers (counted from 0) where token 0's head-averaged share is least and most.
    """

    variant: str
    sinks: int
    cache: int
    block: int
    queries: tuple[int, int]
    queries_before: tuple[int, int]
    per_head: np.ndarray
    per_layer: np.ndarray
    mean: np.ndarray
    before: np.ndarray
    rest: float
    uniform: float
    low_layer: int
    high_layer: int


def first_token_shares(result: StreamingRun, variant: str = "sink4") -> FirstTokenShares:
    """The attention shares of ``variant`` in a ``streaming_run`` result (or ``shipped_streaming()``).

    Args:
        result: a run with per-variant ``shares`` (2, layers, heads, SHARE_TOKENS) and ``share_queries``.
        variant: which cache (a key of the run's variants).

    Returns:
        FirstTokenShares.
    """
    variant = as_choice("variant", variant, tuple(result.variants))
    entry = result.variants[variant]
    if entry.shares is None or entry.share_queries is None:
        raise ValueError(f"The run of '{variant}' did not measure where the attention goes; make it again "
                         "with this version of posenc_core.")
    shares = np.asarray(entry.shares, dtype=np.float64)  # (2, layers, heads, SHARE_TOKENS)
    (b0, b1), (s0, s1) = (tuple(int(v) for v in r) for r in entry.share_queries)
    if s1 <= s0:
        raise ValueError(f"Nothing left the cache of {result.cache:,} keys in this run of {result.tokens:,} "
                         "tokens, so there is no streaming attention to average.")
    cache, block = int(result.cache), int(result.block)
    t = np.arange(s0, s1)  # (queries,) each reads a block whose first token follows an eviction
    uniform = float(np.mean(1.0 / (cache + t % block + 1)))
    per_layer = shares[1].mean(axis=1)  # (layers, SHARE_TOKENS)
    mean = shares[1].mean(axis=(0, 1))  # (SHARE_TOKENS,)
    return FirstTokenShares(
        variant=variant, sinks=int(entry.sinks), cache=cache, block=block,
        queries=(s0, s1), queries_before=(b0, b1), per_head=shares[1], per_layer=per_layer, mean=mean,
        before=shares[0].mean(axis=(0, 1)), rest=float(1.0 - mean.sum()), uniform=uniform,
        low_layer=int(np.argmin(per_layer[:, 0])), high_layer=int(np.argmax(per_layer[:, 0])))

