"""Dynamic NTK over a series of forward calls: the rotary module's state, as transformers keeps it.

``rope_inv_freq`` (``frequencies``) gives the frequencies a fresh module computes for one length; a real module
caches them across calls, so the same length can run with different frequencies depending on what came before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._checks import MAX_POSITIONS, as_choice, as_float, as_int
from .frequencies import rope_inv_freq

__all__ = ["DYNAMIC_CALL_PATTERNS", "CallEvent", "CallPattern", "DynamicCalls", "dynamic_call_lengths",
           "rope_dynamic_calls"]

# What a dynamic-NTK module does at a call: recompute for a longer length and cache it, go back to the original
# frequencies, or keep what it has.
CallEvent = Literal["grow", "reset", "keep"]


@dataclass(frozen=True)
class DynamicCalls:
    """A dynamic-NTK rotary module's frequencies over a series of calls (``rope_dynamic_calls``).

    inv_freq: (n_calls, rotary_dim / 2) float32, the module's buffer at each call, bit-identical to it.
    cached: (n_calls,) int, the cached length after the call. event: (n_calls,) what the module did, a
    ``CallEvent`` each. fresh: (n_calls, rotary_dim / 2) float32, what a freshly built module uses at that length.
    length: (n_calls,) int, the calls' lengths. stale: (n_calls,) bool, True where the module differs from a
    fresh one. slowest_ratio, fresh_slowest_ratio: (n_calls,) float64, the slowest pair's frequency over its
    original value (1 = unscaled, 1/s = fully interpolated), stateful and fresh.
    """

    inv_freq: np.ndarray
    cached: np.ndarray
    event: list[CallEvent]
    fresh: np.ndarray
    length: np.ndarray
    stale: np.ndarray
    slowest_ratio: np.ndarray
    fresh_slowest_ratio: np.ndarray


def rope_dynamic_calls(head_dim: int, base: float = 10000.0, factor: float = 2.0, max_position_embeddings: int = 4096,
                       call_lengths: Sequence[int] = (),
                       *, partial_rotary_factor: float = 1.0) -> DynamicCalls:
    """The frequencies a dynamic-NTK rotary module uses at each of a series of forward calls.

    transformers' ``dynamic_rope_update`` is stateful: a call longer than any before recomputes the frequencies
    for its length and caches that length; a later call keeps the cached frequencies, however short, unless it
    is shorter than ``max_position_embeddings`` while the cache is past it, which resets them to the originals.
    So after a forward at 8,192 positions, a call at 5,000 still runs with the 8,192-position frequencies.

    Args:
        head_dim, base, factor, max_position_embeddings, partial_rotary_factor: the config.
        call_lengths: sequence lengths of the calls in order (max(position_ids) + 1 of each), at most 256.

    Returns:
        A ``DynamicCalls``: the module's frequencies at each call, what it did, and a fresh module's to compare.
    """
    lengths = list(call_lengths)
    if not 1 <= len(lengths) <= 256:
        raise ValueError(f"call_lengths must list between 1 and 256 calls, but has {len(lengths)}.")
    lengths = [as_int("a call length", n, minimum=1, maximum=MAX_POSITIONS * 64) for n in lengths]
    trained = as_int("max_position_embeddings", max_position_embeddings, minimum=1, maximum=MAX_POSITIONS * 64)
    scaling = {"rope_type": "dynamic", "factor": factor}

    def at(seq_len):
        return rope_inv_freq(head_dim, base, scaling, partial_rotary_factor=partial_rotary_factor,
                             seq_len=seq_len, max_position_embeddings=trained)[0]

    original = at(None)  # the buffer built at init
    current, cached = original, trained
    used, cached_after, fresh = [], [], []
    events: list[CallEvent] = []
    for n in lengths:
        event: CallEvent = "keep"
        if n > cached:  # growth: recompute for this length and remember it
            current, event = at(n), "grow"
        elif n < trained < cached:  # back inside the trained length: the original frequencies return
            current, event = original, "reset"
        cached = n if event == "grow" else trained if event == "reset" else cached
        used.append(current)
        cached_after.append(cached)
        events.append(event)
        fresh.append(at(n))
    used_table, fresh_table = np.stack(used), np.stack(fresh)  # (n_calls, r/2) each
    return DynamicCalls(inv_freq=used_table, cached=np.array(cached_after), event=events, fresh=fresh_table,
                        length=np.array(lengths),
                        # (n_calls,) the call runs with another length's frequencies
                        stale=np.any(used_table != fresh_table, axis=1),
                        # the slowest pair's frequency against the original one: 1 = unscaled, 1/s = interpolated
                        slowest_ratio=used_table[:, -1].astype(np.float64) / float(original[-1]),
                        fresh_slowest_ratio=fresh_table[:, -1].astype(np.float64) / float(original[-1]))


# A sequence of calls that shows dynamic NTK's state: a long prompt then shorter calls, a conversation that grows,
# long and short calls in turn.
CallPattern = Literal["long_then_shorter", "growing", "alternating"]

# Call sequences that show dynamic NTK's state, as multiples of the trained length L (s = the factor).
DYNAMIC_CALL_PATTERNS: dict[CallPattern, Callable[[float], list[float]]] = {
    "long_then_shorter": lambda s: [1.0, s, s / 2, 1.0, 0.5, s / 2],
    "growing": lambda s: [0.5, 1.0, 1 + (s - 1) / 4, 1 + (s - 1) / 2, s, 0.75],
    "alternating": lambda s: [s, 0.25, s, 1 + (s - 1) / 2, 0.25, 1 + (s - 1) / 2],
}


def dynamic_call_lengths(pattern: CallPattern, original: int, factor: float) -> list[int]:
    """The call lengths of a named pattern in DYNAMIC_CALL_PATTERNS for trained length L = ``original``."""
    as_choice("pattern", pattern, tuple(DYNAMIC_CALL_PATTERNS))
    multiples = DYNAMIC_CALL_PATTERNS[pattern]
    original = as_int("original", original, minimum=1, maximum=MAX_POSITIONS)
    factor = as_float("factor", factor, minimum=1.0, maximum=1024.0)
    return [max(1, int(round(m * original))) for m in multiples(factor)]
