"""Stick-breaking attention (Tan, Shen, Peng, Courville, Panda 2024, arXiv:2410.17980, section 2).

Query i walks back from its nearest key. Each key j breaks off a fraction beta_ij = sigmoid(z_ij) of what is
left of a stick of length 1, so a key gets only what the nearer keys left over:

    A_ij = beta_ij * prod_{j<l<i} (1 - beta_il)     (the authors' code: attend_current=False, j < i)
    log A_ij = log sigmoid(z_ij) + sum_{j<l<i} log sigmoid(-z_il)

The weights of a query sum to 1 - prod_l (1 - beta_il) <= 1; the rest (the remainder) goes to no value. There
is no position encoding, yet a constant logit z gives A at distance t = sigmoid(z) sigmoid(-z)^(t-1): a
geometric decay, the same shape as softmax + ALiBi with slope softplus(z). numpy, in log space as the
authors' kernels and flash-linear-attention's ``naive_stickbreaking_attn`` compute it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind
from .._checks import MAX_HEADS, as_float, as_int, check_size
from .._types import ArrayOrTensor
from ..attention_bias.biases import alibi_bias, alibi_slopes
from ._toy_inputs import toy_weight, toy_words

__all__ = [
    "STICK_COMPARED",
    "StickBreaking",
    "StickBreakingConstant",
    "StickBreakingSentence",
    "StickCompared",
    "stick_breaking_constant",
    "stick_breaking_sentence",
    "stick_breaking_weights",
]

StickCompared = Literal["stick_breaking", "alibi", "softmax"]
# what the sentence example compares: stick-breaking, softmax + ALiBi, softmax with no positions
STICK_COMPARED: tuple[StickCompared, ...] = ("stick_breaking", "alibi", "softmax")


@dataclass(frozen=True)
class StickBreaking:
    """Stick-breaking attention weights (tensors for tensor inputs).

    weights: (..., L, L), A_ij, zero on and above the diagonal (on it too unless attend_current).
    remainder: (..., L), the stick each query leaves unspent, 1 - sum_j A_ij.
    """

    weights: ArrayOrTensor
    remainder: ArrayOrTensor


@dataclass(frozen=True)
class StickBreakingConstant:
    """Stick-breaking with one logit z for every key, next to softmax + ALiBi of the same decay.

    distance: (L-1,) float64, 1 .. L-1.
    weights: (L-1,) float64, A at each distance, sigmoid(z) sigmoid(-z)^(t-1), for the last query.
    alibi: (L-1,) float64, softmax over the same keys with ALiBi's bias -slope * t and no content score.
    slope: softplus(z), the ALiBi slope with the same ratio between neighbours.
    ratio: sigmoid(-z) = e^-slope, the factor from one distance to the next.
    remainder: the stick the last query leaves.
    """

    distance: np.ndarray
    weights: np.ndarray
    alibi: np.ndarray
    slope: float
    ratio: float
    remainder: float


@dataclass(frozen=True)
class StickBreakingSentence:
    """Stick-breaking, softmax + ALiBi and plain softmax on the same toy logits of a sentence of L words.

    tokens: the L words.
    logits: (L, L) float64, z_ij.
    stick: (L, L) float64, the stick-breaking weights.
    remainder: (L,) float64, the stick each query leaves.
    alibi: (L, L) float64, softmax + ALiBi weights.
    softmax: (L, L) float64, softmax weights with no positions.
    slope: the ALiBi slope of the chosen head.
    mean_distance: {method: the last word's mean distance to what it attends to}, for each of STICK_COMPARED.
    last_taken: the share of the stick the last word hands out.
    """

    tokens: list[str]
    logits: np.ndarray
    stick: np.ndarray
    remainder: np.ndarray
    alibi: np.ndarray
    softmax: np.ndarray
    slope: float
    mean_distance: dict[StickCompared, float]
    last_taken: float


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def _softmax_rows(z):
    z = np.exp(z - z.max(-1, keepdims=True))
    return z / z.sum(-1, keepdims=True)


@keeps_kind
def stick_breaking_weights(logits: ArrayLike, attend_current: bool = False) -> StickBreaking:
    """Stick-breaking attention weights from the logits z_ij = q_i . k_j / sqrt(d).

    Args:
        logits: (..., L, L); entries a query cannot see (j > i, and j = i unless attend_current) are ignored.
        attend_current: whether query i may also take from its own key, as the authors' ``attend_current``.

    Returns:
        A StickBreaking: the (..., L, L) weights A_ij, zero where not visible, and the (..., L) remainder
        1 - sum_j A_ij, the stick no key took (1 for the first query when it cannot see itself).
    """
    z = np.asarray(logits, dtype=np.float64)
    if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
        raise ValueError(f"logits must be a square (L, L) grid of query-key scores, but has shape {z.shape}.")
    check_size(z.size, "The stick-breaking grid")
    length = z.shape[-1]
    i, j = np.arange(length)[:, None], np.arange(length)[None, :]
    visible = j <= i if attend_current else j < i  # (L, L)
    log_keep = np.where(visible, _log_sigmoid(-z), 0.0)  # (..., L, L): log(1 - beta), 0 where not visible
    # sum over the visible keys l > j: a reversed cumulative sum, minus key j's own term
    after = np.flip(np.cumsum(np.flip(log_keep, -1), -1), -1) - log_keep  # (..., L, L)
    weights = np.where(visible, np.exp(_log_sigmoid(z) + after), 0.0)
    return StickBreaking(weights=weights, remainder=np.exp(log_keep.sum(-1)))


def stick_breaking_constant(logit: float, length: int) -> StickBreakingConstant:
    """Stick-breaking with the same logit z for every key: what its weights do with distance alone.

    Returns a StickBreakingConstant: the weights at each distance (computed by ``stick_breaking_weights`` for the
    last query) next to softmax + ALiBi with the slope of the same decay.
    """
    logit = as_float("logit", logit, minimum=-20.0, maximum=20.0)
    length = as_int("length", length, minimum=2, maximum=4096)
    out = stick_breaking_weights(np.full((length, length), logit))
    last = out.weights[-1, :-1][::-1]  # (L-1,) keys at distance 1, 2, ...
    slope = float(np.logaddexp(0.0, logit))  # softplus(z) = -log sigmoid(-z)
    distance = np.arange(1, length, dtype=np.float64)
    return StickBreakingConstant(distance=distance, weights=last, alibi=_softmax_rows(-slope * distance), slope=slope,
                                 ratio=float(np.exp(-slope)), remainder=float(out.remainder[-1]))


def stick_breaking_sentence(text: str, level: float = 0.0, n_heads: int = 8, head: int = 1, seed: int = 0,
                            dim: int = 16, attend_current: bool = False) -> StickBreakingSentence:
    """Stick-breaking, softmax + ALiBi and plain softmax on the same toy logits for a sentence.

    z_ij = q_i . k_j / sqrt(d) + level, with q and k from seeded toy weights (not a trained model) on each word's
    seeded embedding. ``level`` shifts every logit: high values let the nearest keys take the whole stick.
    ALiBi uses the slope of ``head`` of ``n_heads`` (``alibi_slopes``, ``alibi_bias``).

    Returns a StickBreakingSentence.
    """
    level = as_float("level", level, minimum=-10.0, maximum=10.0)
    n_heads = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    head = as_int("head", head, minimum=1, maximum=n_heads)
    tokens, x = toy_words(text, dim)  # (L, d)
    length, d = x.shape
    q, k = x @ toy_weight("sb-query", seed, d, d), x @ toy_weight("sb-key", seed, d, d)  # (L, d) each
    logits = q @ k.T / np.sqrt(d) + level  # (L, L)
    sb = stick_breaking_weights(logits, attend_current)
    causal = np.tril(np.ones((length, length), bool))
    alibi = _softmax_rows(np.where(causal, logits, -np.inf) + alibi_bias(n_heads, length)[head - 1])
    plain = _softmax_rows(np.where(causal, logits, -np.inf))
    distance = np.arange(length - 1, -1, -1, dtype=np.float64)  # (L,) the last word's distance to each key
    maps: dict[StickCompared, np.ndarray] = {"stick_breaking": sb.weights, "alibi": alibi, "softmax": plain}
    # stick-breaking's mean is over the stick it handed out (its weights need not sum to 1)
    mean = {name: float(m[-1] @ distance / max(m[-1].sum(), 1e-300)) for name, m in maps.items()}
    return StickBreakingSentence(tokens=tokens, logits=logits, stick=sb.weights, remainder=sb.remainder,
                                 alibi=alibi, softmax=plain, slope=float(alibi_slopes(n_heads)[head - 1]),
                                 mean_distance=mean, last_taken=float(sb.weights[-1].sum()))
