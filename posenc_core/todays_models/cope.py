"""CoPE, contextual position encoding (Golovneva, Wang, Weston, Sukhbaatar 2024, arXiv:2405.18719, section 3).

A position is not a token count but a sum of gates the query sets on the keys:

    g_ij = sigmoid(q_i . k_j)                 (which tokens count)
    p_ij = sum_{t=j..i} g_it                  (the key's position, counted back from the query; clipped at p_max)
    e[p] = (p - floor p) e[ceil p] + (1 - p + floor p) e[floor p]   (interpolated position embedding)
    a_ij = softmax_j( q_i . k_j + q_i . e[p_ij] )

With every gate at 1, p_ij = i - j + 1: ordinary relative positions, counting the query's own token as 1.
As in the paper's implementation, q_i . e[p] is computed once per integer p (z_i[p]) and then interpolated.
numpy only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind
from .._checks import as_choice, as_float, as_int, check_size
from .._types import ArrayOrTensor

__all__ = [
    "COPE_UNITS",
    "CopeAttention",
    "CopeCountingExample",
    "CopeInterpolation",
    "CopeTokens",
    "cope_attention",
    "cope_counting_example",
    "cope_interpolate",
    "cope_interpolation_curve",
    "cope_positions",
    "cope_tokens",
]

COPE_UNITS = ("tokens", "words", "sentences")
MAX_COPE_TOKENS = 256
PIECE = 4  # letters per sub-word piece in the toy tokenizer (long words become several tokens, as with BPE)


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # stable for large |x|


@keeps_kind
def cope_positions(gate_logits: ArrayLike, p_max: float | None = None) -> tuple[ArrayOrTensor, ArrayOrTensor]:
    """Gates and contextual positions from the gate logits q_i . k_j.

    Args:
        gate_logits: (..., L, L), row i holding q_i . k_j for every key j (entries above the diagonal are
            ignored: a causal query never sees later keys).
        p_max: clip positions at this value (the paper's p_max); None keeps them all.

    Returns:
        ``(gates, positions)``, both (..., L, L) float64 and zero above the diagonal.
    """
    logits = np.asarray(gate_logits, dtype=np.float64)
    if logits.ndim < 2 or logits.shape[-1] != logits.shape[-2]:
        raise ValueError(f"gate_logits must be a square (L, L) grid of q_i . k_j, but has shape {logits.shape}.")
    check_size(logits.size, "The gate grid")
    causal = np.tril(np.ones(logits.shape[-2:], bool))
    gates = np.where(causal, _sigmoid(logits), 0.0)
    positions = np.flip(np.cumsum(np.flip(gates, -1), -1), -1)  # p_ij = sum_{t >= j} g_it over t <= i
    positions = np.where(causal, positions, 0.0)
    if p_max is not None:
        positions = np.minimum(positions, as_float("p_max", p_max, minimum=0.0))
    return gates, positions


@keeps_kind
def cope_interpolate(z: ArrayLike, positions: ArrayOrTensor) -> ArrayOrTensor:
    """q_i . e[p_ij] by interpolating z_i[p] = q_i . e[p] between the integers around p_ij.

    Args:
        z: (..., L, P) with z[..., i, p] = q_i . e[p] for p = 0..P-1.
        positions: (..., L, L) positions in [0, P-1].

    Returns:
        (..., L, L): (p - floor p) z[ceil p] + (1 - p + floor p) z[floor p].
    """
    z, positions = np.asarray(z, dtype=np.float64), np.asarray(positions, dtype=np.float64)
    if positions.min() < 0 or positions.max() > z.shape[-1] - 1:
        raise ValueError(f"positions must lie between 0 and {z.shape[-1] - 1} (one embedding per integer "
                         "position); clip them with p_max.")
    low = np.floor(positions)
    high = np.ceil(positions)
    frac = positions - low
    take = lambda idx: np.take_along_axis(z, idx.astype(np.int64), axis=-1)  # noqa: E731  (..., L, L)
    return frac * take(high) + (1.0 - frac) * take(low)


@dataclass(frozen=True)
class CopeInterpolation:
    """The interpolated position score q . e[p] of one query, on a grid and at one fractional p.

    grid: (points,) float64, p values from 0 to p_max.
    curve: (points,) float64, the interpolated score at each grid value.
    p: the fractional position asked about.
    value: the score at p.
    low, high: floor(p) and ceil(p).
    w_low, w_high: their interpolation weights (summing to 1).
    """

    grid: np.ndarray
    curve: np.ndarray
    p: float
    value: float
    low: int
    high: int
    w_low: float
    w_high: float


def cope_interpolation_curve(target: int, strength: float, p: float, p_max: int = 8,
                             points: int = 161) -> CopeInterpolation:
    """The position score q . e[p] of a query whose embedding table picks ``target`` (z[target] = strength).

    Returns a CopeInterpolation: the curve over p from 0 to p_max, and the score at ``p`` with its two weights.
    """
    p_max = as_int("p_max", p_max, minimum=1, maximum=64)
    target = as_int("target position", target, minimum=0, maximum=p_max)
    strength = as_float("strength", strength, maximum=100.0)
    p = as_float("p", p, minimum=0.0, maximum=float(p_max))
    points = as_int("points", points, minimum=2, maximum=4096)
    z = np.zeros((1, p_max + 1))
    z[0, target] = strength  # (1, P): q . e[p] at the integers
    grid = np.linspace(0.0, p_max, points)  # (points,)
    low, high = float(np.floor(p)), float(np.ceil(p))
    return CopeInterpolation(grid=grid, curve=cope_interpolate(z, grid[None, :])[0], p=p,
                             value=float(cope_interpolate(z, np.array([[p]]))[0, 0]), low=int(low), high=int(high),
                             w_low=1.0 - p + low, w_high=p - low)


@dataclass(frozen=True)
class CopeAttention:
    """Causal CoPE attention and what goes into it, each (..., L, L) float64 (tensors for tensor inputs).

    gates: sigmoid(q_i . k_j), which keys count.
    positions: p_ij, the gates summed from key j to the query, clipped at p_max.
    position_logits: q_i . e[p_ij], interpolated.
    logits: content + position logits, -inf above the diagonal.
    attention: softmax of the logits, row by row.
    """

    gates: ArrayOrTensor
    positions: ArrayOrTensor
    position_logits: ArrayOrTensor
    logits: ArrayOrTensor
    attention: ArrayOrTensor


@keeps_kind
def cope_attention(content_logits: ArrayLike, gate_logits: ArrayLike, z: ArrayLike,
                   p_max: int | None = None) -> CopeAttention:
    """Causal CoPE attention: softmax_j(q_i . k_j + q_i . e[p_ij]).

    ``content_logits`` and ``gate_logits`` are (..., L, L); in the paper both are q_i . k_j (one dot product
    sets the gates and the content score). ``z`` is (..., L, P) and p_max defaults to P - 1.
    Returns a CopeAttention.
    """
    z = np.asarray(z, dtype=np.float64)
    gates, positions = cope_positions(gate_logits, z.shape[-1] - 1 if p_max is None else p_max)
    position_logits = cope_interpolate(z, positions)
    causal = np.tril(np.ones(positions.shape[-2:], bool))
    logits = np.where(causal, np.asarray(content_logits, dtype=np.float64) + position_logits, -np.inf)
    weights = np.exp(logits - logits.max(-1, keepdims=True))
    return CopeAttention(gates=gates, positions=positions, position_logits=position_logits, logits=logits,
                         attention=weights / weights.sum(-1, keepdims=True))


@dataclass(frozen=True)
class CopeTokens:
    """A text cut by the toy tokenizer.

    tokens: the L tokens kept.
    word_end: (L,) bool, the last piece of a word, or a punctuation mark.
    sentence_end: (L,) bool, a sentence mark (., ! or ?).
    dropped: how many tokens at the start were left out.
    """

    tokens: list[str]
    word_end: np.ndarray
    sentence_end: np.ndarray
    dropped: int


def cope_tokens(text: str) -> CopeTokens:
    """A toy tokenizer: words cut into pieces of at most 4 letters, punctuation on its own.

    Only the last MAX_COPE_TOKENS tokens are kept (the query is the last token, so a long text loses its start).

    Returns a CopeTokens.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("Type a few sentences: the example needs some text to count in.")
    tokens, word_end = [], []
    for match in re.finditer(r"[A-Za-z0-9']+|[^\sA-Za-z0-9']", text):
        word = match.group()
        pieces = [word[k:k + PIECE] for k in range(0, len(word), PIECE)]
        tokens += pieces
        word_end += [False] * (len(pieces) - 1) + [True]
    dropped = max(0, len(tokens) - MAX_COPE_TOKENS)
    tokens, word_end = tokens[dropped:], word_end[dropped:]
    return CopeTokens(tokens=tokens, word_end=np.array(word_end),
                      sentence_end=np.array([t in ".!?" for t in tokens]), dropped=dropped)


@dataclass(frozen=True)
class CopeCountingExample:
    """The counting example: the last token's query row, each (L,) unless said.

    tokens: the L tokens.
    dropped: how many tokens at the start were left out.
    counts: bool, the keys that end a unit (what the gates count).
    query: the query's index, L - 1.
    gates: the query's gates on each key.
    positions: the keys' CoPE positions from the query.
    token_positions: float64, the token-count positions i - j + 1.
    position_logits: the query's position logits.
    attention: the query's attention.
    position_grid: (L, L), every query's positions.
    at_target: bool, the keys whose position rounds to the target.
    target_mass: the attention those keys receive together.
    found: how many keys are at the target.
    open_gates: how many of the query's gates are above 0.5.
    """

    tokens: list[str]
    dropped: int
    counts: np.ndarray
    query: int
    gates: np.ndarray
    positions: np.ndarray
    token_positions: np.ndarray
    position_logits: np.ndarray
    attention: np.ndarray
    position_grid: np.ndarray
    at_target: np.ndarray
    target_mass: float
    found: int
    open_gates: int


def cope_counting_example(text: str, unit: str = "sentences", target: int = 3, sharpness: float = 8.0,
                          p_max: int = 16) -> CopeCountingExample:
    """The counting example: one query (the last token) looks for the key whose contextual position is ``target``.

    A hand-built query and key: the gate logit q . k_j is +sharpness on keys that end a ``unit`` (every token,
    the last piece of a word, or a sentence mark) and -sharpness elsewhere, so the gates count units. The query's
    position embedding picks ``target``: z[p] = sharpness where p = target, 0 elsewhere. No content score.

    Returns a CopeCountingExample: the tokens, the query's row of gates, CoPE positions, token-count positions
    (i - j + 1), position logits and attention, the full (L, L) position grid, and the keys at ``target``.
    """
    unit = as_choice("unit", unit, COPE_UNITS)
    p_max = as_int("p_max", p_max, minimum=1, maximum=64)
    target = as_int("target position", target, minimum=1, maximum=p_max)
    sharpness = as_float("sharpness", sharpness, above=0.0, maximum=50.0)
    toks = cope_tokens(text)
    length = len(toks.tokens)
    counts = {"tokens": np.ones(length, bool), "words": toks.word_end, "sentences": toks.sentence_end}[unit]
    gate_logits = np.tile(np.where(counts, sharpness, -sharpness), (length, 1))  # (L, L): q_i . k_j depends on j
    z = np.zeros((length, p_max + 1))
    z[:, target] = sharpness  # (L, P): q_i . e[p]
    out = cope_attention(np.zeros((length, length)), gate_logits, z)
    query = length - 1
    at_target = np.abs(out.positions[query] - target) < 0.5
    return CopeCountingExample(
        tokens=toks.tokens, dropped=toks.dropped, counts=counts, query=query, gates=out.gates[query],
        positions=out.positions[query], token_positions=np.arange(length, 0, -1, dtype=np.float64),
        position_logits=out.position_logits[query], attention=out.attention[query], position_grid=out.positions,
        at_target=at_target, target_mass=float(out.attention[query][at_target].sum()), found=int(at_target.sum()),
        open_gates=int(np.sum(out.gates[query] > 0.5)))
