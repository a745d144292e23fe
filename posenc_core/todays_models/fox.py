"""Forgetting Transformer, FoX (Lin, Nikishin, He, Courville 2025, arXiv:2503.02130, section 2).

Each token t has a scalar forget gate per head, f_t = sigmoid(w_f . x_t + b_f). Query i sees key j through the
product of the gates of the tokens after j up to i, taken into the logits as a sum of logs:

    D_ij = sum_{l=j+1..i} log f_l = c_i - c_j,   c_i = sum_{l<=i} log f_l   (causal: j <= i)
    a_ij = softmax_j( q_i . k_j / sqrt(d) + D_ij )

A constant gate f = exp(-m) gives D_ij = -m (i - j): exactly ALiBi with slope m.
FoX lets the data choose the slope token by token. numpy only; flash-linear-attention's naive reference
``naive_forgetting_attn`` computes the same D as a difference of cumulative sums.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind
from .._checks import MAX_HEADS, as_float, as_int, check_size
from .._types import ArrayOrTensor
from ..attention_bias.biases import alibi_bias, alibi_slopes
from ._toy_inputs import toy_weight, toy_words

__all__ = ["FoxSentence", "fox_attention", "fox_bias", "fox_gate_logit_for_slope", "fox_sentence"]


@dataclass(frozen=True)
class FoxSentence:
    """FoX's bias for a sentence next to ALiBi's for the same head (``fox_sentence``).

    tokens: the sentence's words, L of them.
    gates: (L,) f_t, each word's forget gate, in (0, 1].
    log_forget: (L,) log f_t.
    fox: (L, L) FoX's bias D, -inf above the diagonal.
    alibi: (L, L) ALiBi's bias for the head (the app's float32 grid, as float64), -inf above the diagonal.
    slope: ALiBi's slope for the head.
    local_slope: (L,) -log f_t, the slope each word sets.
    slope_range: (min, max) of local_slope.
    effective_slope: the one slope that gives the last word the same total bias on the first word.
    fox_attention: (L,) the last word's attention from FoX's bias alone (equal content scores).
    alibi_attention: (L,) the same under ALiBi.
    alibi_gap: max |FoX - ALiBi| over the visible cells.
    """

    tokens: list[str]
    gates: np.ndarray
    log_forget: np.ndarray
    fox: np.ndarray
    alibi: np.ndarray
    slope: float
    local_slope: np.ndarray
    slope_range: tuple[float, float]
    effective_slope: float
    fox_attention: np.ndarray
    alibi_attention: np.ndarray
    alibi_gap: float


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)  # log(1 / (1 + e^-x)), stable for large |x|


@keeps_kind
def fox_bias(log_forget: ArrayLike) -> ArrayOrTensor:
    """FoX's decay bias D from the log forget gates.

    Args:
        log_forget: (..., L) log f_t, each <= 0 (a gate is in (0, 1]).

    Returns:
        (..., L, L) float64: D_ij = sum_{l=j+1..i} log f_l for j <= i, -inf for j > i (the causal mask).
    """
    log_f = np.asarray(log_forget, dtype=np.float64)
    if log_f.ndim < 1 or log_f.shape[-1] < 1:
        raise ValueError("log_forget needs one log gate per token (at least one token).")
    if not np.all(np.isfinite(log_f)) or np.any(log_f > 0):
        raise ValueError("log_forget holds log f_t for gates f_t in (0, 1], so every value must be finite and "
                         "at most 0.")
    length = log_f.shape[-1]
    check_size(log_f.size * length, "The FoX bias grid")
    c = np.cumsum(log_f, axis=-1)  # (..., L): c_i = sum_{l<=i} log f_l
    bias = c[..., :, None] - c[..., None, :]  # (..., L, L): c_i - c_j, the gates of j+1..i
    return np.where(np.tril(np.ones((length, length), bool)), bias, -np.inf)


@keeps_kind
def fox_attention(logits: ArrayLike, log_forget: ArrayLike) -> ArrayOrTensor:
    """softmax_j(logits_ij + D_ij) over the causal keys; ``logits`` (..., L, L), ``log_forget`` (..., L)."""
    bias = fox_bias(log_forget)
    z = np.asarray(logits, dtype=np.float64) + bias  # (..., L, L), -inf above the diagonal
    z = np.exp(z - z.max(-1, keepdims=True))
    return z / z.sum(-1, keepdims=True)


def fox_gate_logit_for_slope(slope: float) -> float:
    """The gate logit b with sigmoid(b) = exp(-slope): the constant gate that reproduces an ALiBi slope."""
    slope = as_float("slope", slope, above=0.0, maximum=50.0)
    return float(-np.log(np.expm1(slope)))  # sigmoid(b) = e^-m  <=>  e^-b = e^m - 1


def fox_sentence(text: str, n_heads: int = 8, head: int = 1, dependence: float = 1.0, seed: int = 0,
                 dim: int = 16) -> FoxSentence:
    """FoX's bias for a sentence next to ALiBi's for the same head.

    The gate logit of word t is b + dependence * (w . x_t): b is the constant gate that gives ALiBi's slope for
    ``head`` of ``n_heads`` (``alibi_slopes``), w a seeded toy weight (not a trained one) and x_t the word's
    seeded embedding. dependence = 0 reproduces ALiBi exactly; larger values let the words move the slope.

    Returns a ``FoxSentence``.
    """
    n_heads = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    head = as_int("head", head, minimum=1, maximum=n_heads)
    dependence = as_float("dependence", dependence, minimum=0.0, maximum=10.0)
    tokens, x = toy_words(text, dim)  # (L, d)
    length = len(tokens)
    slope = float(alibi_slopes(n_heads)[head - 1])
    gate_logits = fox_gate_logit_for_slope(slope) + dependence * (x @ toy_weight("fox-gate", seed, x.shape[1]))
    log_f = _log_sigmoid(gate_logits)  # (L,)
    fox = fox_bias(log_f)  # (L, L)
    alibi = alibi_bias(n_heads, length)[head - 1].astype(np.float64)  # (L, L), the app's ALiBi grid
    zeros = np.zeros((length, length))
    alibi_att = np.exp(alibi[-1] - alibi[-1].max())
    visible = np.isfinite(alibi)
    return FoxSentence(tokens=tokens, gates=np.exp(log_f), log_forget=log_f, fox=fox, alibi=alibi, slope=slope,
                       local_slope=-log_f, slope_range=(float(-log_f.max()), float(-log_f.min())),
                       effective_slope=float(-log_f[1:].mean()) if length > 1 else slope,
                       fox_attention=fox_attention(zeros, log_f)[-1], alibi_attention=alibi_att / alibi_att.sum(),
                       alibi_gap=float(np.abs(fox[visible] - alibi[visible]).max()))
