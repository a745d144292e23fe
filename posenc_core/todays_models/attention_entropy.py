"""What a query scale does to attention far down the sequence: the softmax's entropy and the weight it leaves on
one key that matters, as more and more keys compete (the NoPE layers lesson).

The rules themselves (``QUERY_SCALE_RULES``: Llama 4's and Ministral 3's query temperature) live in
``layer_rules``; here they are applied to seeded scores over up to 4 M keys.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._checks import MAX_POSITIONS, as_float, as_int
from .layer_rules import MAX_RULE_POSITION, query_temperature

__all__ = ["TemperatureEntropy", "temperature_entropy", "temperature_positions"]


@dataclass(frozen=True)
class TemperatureEntropy:
    """Attention of a query far down the sequence, with and without a rule's query scale (``temperature_entropy``).

    All float64 arrays of shape (n,), one entry per query position.
    positions: the query positions p (it sees keys 0..p).
    scale: the rule's query scale at each position.
    entropy: the attention's entropy without the scale, nats.
    entropy_scaled: the same with the scale, nats.
    uniform: log(p + 1), the entropy of uniform attention, nats.
    needle: the probability on key 0 (the key that matters) without the scale.
    needle_scaled: the same with the scale.
    """

    positions: np.ndarray
    scale: np.ndarray
    entropy: np.ndarray
    entropy_scaled: np.ndarray
    uniform: np.ndarray
    needle: np.ndarray
    needle_scaled: np.ndarray


def _row_stats(logits: np.ndarray) -> tuple[float, float]:
    """(entropy in nats, probability of key 0) of softmax(logits)."""
    shifted = logits - logits.max()
    weights = np.exp(shifted)
    total = weights.sum()
    probs = weights / total
    entropy = float(-(probs * shifted).sum() + math.log(total))  # -sum p log p, without log(0)
    return entropy, float(probs[0])


def temperature_positions(context: int, points: int = 64) -> np.ndarray:
    """Query positions for ``temperature_entropy``: ``points`` log-spaced positions from 1 to the context
    (capped below MAX_POSITIONS), as unique int64."""
    context = as_int("context", context, minimum=2, maximum=MAX_RULE_POSITION)
    points = as_int("points", points, minimum=2, maximum=512)
    return np.unique(np.geomspace(1, min(context, MAX_POSITIONS - 1), points).astype(np.int64))


# temperature_entropy's softmaxes run over up to 4M keys, for ~60 query positions, each with and without its
# scale: summing every row again took half a second. The keys' draws are binned once per seed and set of positions
# instead (_draw_sums, cached): each bin keeps the power sums of its draws' offsets from its centre, summed over
# every key a query sees. A row's sum of exp(a·z) at any multiplier a is then, bin by bin, exp(a·centre) times
# a Taylor series in a·offset, cut where the rest is below _TAYLOR_TAIL of the bin's sum: under float64's own
# rounding of the direct sum (2^-53 a term), so the result matches the direct softmax up to rounding.
_POWERS = 10  # power sums kept per bin (offset^0 .. offset^9): the series' 9 terms reach a·width/2 ~ 0.055
_TAYLOR_TAIL = 2.0**-56  # a quarter of float64's half-ulp
_BIN_BUDGET = 1 << 16  # runs × bins: 5 MB of power sums per cached set of positions
_BIN_BLOCK = 1 << 16  # draws binned per pass: the work arrays stay in the CPU cache


@functools.lru_cache(maxsize=4)  # ~5 MB each: a page's sliders (spread, margin, rule) reuse one set of positions
def _draw_sums(seed: int, positions: bytes) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """The keys' draws, binned for ``temperature_entropy``: ``(run_max (n,), centres (bins,), width, sums)``.

    Key j >= 1 draws z_j ~ N(0, 1) from ``seed`` (key 0's draw is never used: its score is the margin). Run k
    holds keys p[k-1] + 1 .. p[k] (run 0: keys 1 .. p[0]), the keys the query at p[k] sees that p[k-1]'s does
    not; run_max (n,) is each run's largest draw. sums (n, bins, _POWERS): sums[k, b, m] is the sum of
    (z - centres[b])^m over the keys of runs 0..k whose nearest centre is b. Read-only: every caller shares them.
    """
    p = np.frombuffer(positions, dtype=np.int64)  # (n,)
    draws = np.random.default_rng(seed).standard_normal(int(p[-1]) + 1)[1:]  # (max p,) keys 1..max p
    starts = np.concatenate([[0], p[:-1]])  # (n,) run k is draws[starts[k]:p[k]] (key = index + 1)
    run_max = np.maximum.reduceat(draws, starts)  # (n,)
    bins = int(np.clip(_BIN_BUDGET // p.size, 64, 1024))
    lo = float(draws.min())
    width = (float(draws.max()) - lo) / (bins - 1) or 1.0  # one key: one bin, any width
    sums = np.zeros((p.size, bins, _POWERS))  # (n, bins, _POWERS)
    for k, (first, end) in enumerate(zip(starts, p, strict=True)):
        for at in range(first, end, _BIN_BLOCK):
            z = draws[at:min(end, at + _BIN_BLOCK)]  # (block,)
            nearest = np.rint((z - lo) / width)  # (block,) the bin, as a float
            offset = z - (nearest * width + lo)  # (block,) within width / 2
            index = nearest.astype(np.intp)  # (block,)
            power = np.ones_like(offset)  # (block,)
            for m in range(_POWERS):
                sums[k, :, m] += np.bincount(index, power, minlength=bins)
                power *= offset
    np.cumsum(sums, axis=0, out=sums)  # a query sees its own run and every run before it
    centres = np.arange(bins) * width + lo  # (bins,) the same arithmetic as offset's
    for array in (run_max, centres, sums):
        array.flags.writeable = False
    return run_max, centres, width, sums


def _binned_stats(seed, p, rows, scales, spread, margin) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(entropy in nats, probability of key 0, done) of softmax(scale · scores[:p[row] + 1]) for each pair.

    ``rows``, ``scales`` (q,): the pairs. done (q,) is False where the series would need more than _POWERS
    power sums (scale · spread · width / 2 past ~0.055); those pairs' entropy and probability are NaN.
    """
    run_max, centres, width, sums = _draw_sums(seed, p.tobytes())
    reach = scales * spread * width / 2  # (q,) each pair's largest a·offset
    done = reach ** (_POWERS - 1) / math.factorial(_POWERS - 1) * np.exp(reach) <= _TAYLOR_TAIL  # (q,)
    entropy, needle = np.full(rows.size, np.nan), np.full(rows.size, np.nan)  # (q,)
    rows, scales = rows[done], scales[done]  # (d,)
    slope = scales * spread  # (d,) each pair's multiplier on the draws
    terms = np.arange(_POWERS - 1)  # (_POWERS - 1,)
    series = slope[:, None] ** terms / [math.factorial(m) for m in terms]  # (d, _POWERS - 1) a^m / m!
    seen = sums[rows]  # (d, bins, _POWERS) the power sums over the keys each row's query sees
    # numpy's own loops, not BLAS (matmul): the same bits in every process, as the snippet tests compare
    mass = np.einsum("dbm,dm->db", seen[..., :-1], series)  # (d, bins) sum of exp(a·offset) per bin
    lean = np.einsum("dbm,dm->db", seen[..., 1:], series)  # (d, bins) sum of offset·exp(a·offset) per bin
    top = np.maximum(margin, spread * np.maximum.accumulate(run_max)[rows])  # (d,) the row's largest score
    shift = scales * top  # (d,) the largest scaled score, which softmax subtracts
    # bins above the row's largest key are empty (mass 0); the cap keeps their exp finite, so 0·exp stays 0
    exponent = np.minimum(slope[:, None] * centres - shift[:, None], 1.0)  # (d, bins)
    weight = np.exp(exponent)  # (d, bins)
    first = np.exp(scales * margin - shift)  # (d,) key 0's term, as the direct softmax computes it
    total = first + (weight * mass).sum(axis=1)  # (d,) >= 1: the largest score adds exp(0)
    # each key adds w·(shift - its scaled score) = w·(shift - a·centre) - a·w·offset: all >= 0 but in the top bin
    gaps = first * (shift - scales * margin) + (weight * (-exponent * mass - slope[:, None] * lean)).sum(axis=1)
    entropy[done] = gaps / total + np.log(total)  # -sum p log p = sum w (shift - y) / total + log total
    needle[done] = first / total
    return entropy, needle, done


def temperature_entropy(rule: str, lengths: ArrayLike, *, scale: float | None = None, period: int | None = None,
                        spread: float = 1.0, margin: float = 4.0, seed: int = 0) -> TemperatureEntropy:
    """Attention entropy of a query far down the sequence, with and without the rule's query scale.

    The query at position p sees keys 0..p. Key 0 is the one that matters (its score is ``margin``); every
    other key scores spread · N(0, 1) (seeded, the same draws for every p). Scaling the query by s
    multiplies every score by s, so the rule is a softmax temperature of 1/s.

    Each softmax is summed from the draws binned once per seed and set of positions (``_binned_stats``), equal
    to the direct sum over the row up to float64 rounding; a scale · spread too large for the bins' series
    (beyond the lesson's sliders) sums the row directly.

    Returns:
        a ``TemperatureEntropy``.
    """
    p = np.unique(np.asarray(lengths, dtype=np.int64).reshape(-1))
    if p.size == 0 or p.min() < 1:
        raise ValueError("Query positions must be at least 1 (position 0 sees only itself).")
    if p.max() >= MAX_POSITIONS:
        raise ValueError(f"Query positions must be below {MAX_POSITIONS:,}, a size cap that keeps memory bounded.")
    if p.size > 512:
        raise ValueError("Ask for at most 512 query positions.")
    spread = as_float("score spread", spread, minimum=0.0, maximum=20.0)
    margin = as_float("needle score", margin, minimum=-50.0, maximum=50.0)
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    scales = query_temperature(rule, p, scale, period).astype(np.float64)  # (n,)
    sharp = np.flatnonzero(scales != 1.0)  # (k,) rows where the scale changes anything
    rows = np.concatenate([np.arange(p.size), sharp])  # (q,) every row unscaled, then the sharpened ones
    pair_scales = np.concatenate([np.ones(p.size), scales[sharp]])  # (q,)
    entropy, needle, done = _binned_stats(seed, p, rows, pair_scales, spread, margin)  # (q,) each
    if not done.all():  # scale · spread past the series' reach (not on the lesson's sliders): the direct softmax
        scores = spread * np.random.default_rng(seed).standard_normal(int(p.max()) + 1)  # (max p + 1,)
        scores[0] = margin
        for i in np.flatnonzero(~done):
            entropy[i], needle[i] = _row_stats(pair_scales[i] * scores[: p[rows[i]] + 1])
    scaled = {}
    for key, pairs in (("entropy_scaled", entropy), ("needle_scaled", needle)):
        scaled[key] = pairs[: p.size].copy()  # (n,) a scale of 1 is the unscaled softmax, bit for bit
        scaled[key][sharp] = pairs[p.size:]
    return TemperatureEntropy(positions=p.astype(np.float64), scale=scales, entropy=entropy[: p.size],
                              entropy_scaled=scaled["entropy_scaled"], uniform=np.log(p + 1.0),
                              needle=needle[: p.size], needle_scaled=scaled["needle_scaled"])
