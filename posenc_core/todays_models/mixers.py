"""Hybrid models: why attention can drop positions when convolutions or recurrences sit between its layers.

A causal convolution weights its neighbours by their offset and a (gated) linear recurrence decays its
state a little at every step: both know order by construction. Attention without positions compares
contents only: bidirectional, it is permutation-equivariant (reorder the inputs and the outputs reorder
the same way); causal, the output at t is a function of the *set* of tokens 0..t, so swapping two earlier
tokens leaves it unchanged. ``order_test`` measures this on seeded inputs, in float64.

``HYBRID_MODELS`` lists which mixers real hybrids interleave and whether their attention layers rotate,
as transformers 5.23's modeling code does (a test reads the code).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._backend import keeps_kind
from .._checks import as_choice, as_float, as_int, check_size
from .._types import ArrayOrTensor
from ..why_position.order import permutation

__all__ = [
    "HYBRID_MODELS",
    "MIXERS",
    "HybridModel",
    "HybridRotation",
    "OrderTest",
    "ORDER_EXACT",
    "causal_conv",
    "gated_recurrence",
    "nope_attention",
    "order_test",
]

MAX_MIX_TOKENS = 512
MAX_MIX_DIM = 256


HybridRotation = Literal["rope", "partial_rope", "rope_if_configured", "none"]


@dataclass(frozen=True)
class HybridModel:
    """A hybrid model's layers, as transformers' modeling code builds them (codes the pages word).

    mixers: the non-attention layers: "gated_deltanet", "kimi_delta", "mamba2", "mamba2_parallel" or
        "short_conv".
    attention: how often attention appears: "one_in_four", "one_in_four_latent", "few" or "every".
    rotates: what the attention layers do with positions: "rope", "partial_rope", "rope_if_configured" (only
        when the config asks for it) or "none".
    module: transformers.models.<module>.
    """

    mixers: str
    attention: str
    rotates: HybridRotation
    module: str


# keyed by the transformers module
HYBRID_MODELS: dict[str, HybridModel] = {
    "qwen3_next": HybridModel("gated_deltanet", "one_in_four", "partial_rope", "qwen3_next"),
    "kimi_linear": HybridModel("kimi_delta", "one_in_four_latent", "none", "kimi_linear"),
    "granitemoehybrid": HybridModel("mamba2", "few", "rope_if_configured", "granitemoehybrid"),
    "nemotron_h": HybridModel("mamba2", "few", "none", "nemotron_h"),
    "falcon_h1": HybridModel("mamba2_parallel", "every", "rope", "falcon_h1"),
    "lfm2": HybridModel("short_conv", "few", "rope", "lfm2"),
}


def _weights(name: str, *shape) -> np.ndarray:
    seed = sum((i + 1) * ord(c) for i, c in enumerate(name))  # a fixed seed per name
    return np.random.default_rng(seed).standard_normal(shape)


@keeps_kind
def causal_conv(x: ArrayOrTensor, kernel_size: int = 4) -> ArrayOrTensor:
    """Depthwise causal convolution, y_t = sum_{i < K} w_i ⊙ x_{t-i} (zeros before the start); fixed seeded w.

    The short convolution of LFM2 and the one in front of every Mamba / Gated DeltaNet layer.
    x: (n, d) -> (n, d).
    """
    x = _tokens(x)
    kernel_size = as_int("kernel size", kernel_size, minimum=1, maximum=64)
    w = _weights("conv", kernel_size, x.shape[1])  # (K, d)
    y = np.zeros_like(x)
    for i in range(kernel_size):
        y[i:] += w[i] * x[: x.shape[0] - i]
    return y


@keeps_kind
def gated_recurrence(x: ArrayOrTensor, decay: float = 0.9) -> ArrayOrTensor:
    """A gated linear recurrence, h_t = g_t ⊙ h_{t-1} + x_t with g_t = decay · sigmoid(x_t W_g) ∈ (0, decay).

    The state-update shape shared by Mamba-2, gated linear attention and the gated delta rule (without
    their projections): the gate depends on the input, and every step shrinks the older tokens' share.
    x: (n, d) -> (n, d), the states h_t.
    """
    x = _tokens(x)
    decay = as_float("decay", decay, minimum=0.0, maximum=1.0)
    gate = decay / (1.0 + np.exp(-x @ _weights("gate", x.shape[1], x.shape[1]) / np.sqrt(x.shape[1])))  # (n, d)
    h = np.zeros(x.shape[1])
    out = np.empty_like(x)
    for t in range(x.shape[0]):
        h = gate[t] * h + x[t]
        out[t] = h
    return out


@keeps_kind
def nope_attention(x: ArrayOrTensor, causal: bool = True) -> ArrayOrTensor:
    """One head of softmax attention with no position information, fixed seeded W_q, W_k, W_v. (n, d) -> (n, d)."""
    x = _tokens(x)
    d = x.shape[1]
    q, k, v = (x @ _weights(name, d, d) / np.sqrt(d) for name in ("W_q", "W_k", "W_v"))  # (n, d) each
    scores = q @ k.T / np.sqrt(d)  # (n, n)
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape, dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return (weights / weights.sum(axis=1, keepdims=True)) @ v


MixerFn = Callable[[np.ndarray], np.ndarray]

# keyed by code: a causal convolution (K = 4), a gated linear recurrence, attention without positions
MIXERS: dict[str, MixerFn] = {
    "conv": causal_conv,
    "recurrence": gated_recurrence,
    "causal": nope_attention,
    "bidirectional": lambda x: nope_attention(x, causal=False),
}


def _tokens(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"A mixer needs a (tokens, dim) matrix, but got shape {x.shape}.")
    if x.shape[0] > MAX_MIX_TOKENS or x.shape[1] > MAX_MIX_DIM:
        raise ValueError(f"The mixers take at most {MAX_MIX_TOKENS} tokens of at most {MAX_MIX_DIM} dimensions.")
    if not np.all(np.isfinite(x)):
        raise ValueError("Token vectors must hold finite numbers.")
    return x


ORDER_EXACT = 1e-12  # float64: below this a difference is rounding, not order


@dataclass(frozen=True)
class OrderTest:
    """How far each mixer is from just reordering when its inputs are reordered (``order_test``).

    Each mapping is keyed by the mixer's code in ``MIXERS``.
    perm: (n,) the reordering P.
    errors: {mixer: (n,)} |f(P x)_t - (P f(x))_t| at each position t.
    scale: {mixer: float} the mean output norm of f(x), to read the errors against.
    largest: {mixer: float} the largest error.
    changed_runs: {mixer: [(first, last), ...]} the runs of positions whose error exceeds ``ORDER_EXACT``.
    blind: the mixers with no such position, in ``MIXERS`` order.
    """

    perm: np.ndarray
    errors: dict[str, np.ndarray]
    scale: dict[str, float]
    largest: dict[str, float]
    changed_runs: dict[str, list[tuple[int, int]]]
    blind: list[str]


def order_test(n: int = 24, dim: int = 16, kind: str = "swap", *, i: int = 3, j: int = 10, seed: int = 0) -> OrderTest:
    """Reorder seeded input tokens and measure, per position, how far each mixer is from just reordering.

    For each mixer f and reordering P, the error at t is |f(P x)_t - (P f(x))_t| (Euclidean norm):
    0 at every t means the mixer cannot see the order; anything else means it can.

    Returns:
        an ``OrderTest``.
    """
    n = as_int("number of tokens", n, minimum=2, maximum=MAX_MIX_TOKENS)
    dim = as_int("dimension", dim, minimum=1, maximum=MAX_MIX_DIM)
    kind = as_choice("reordering", kind, ("swap", "reverse", "shuffle"))
    check_size(n * n * 4, "The attention grids")
    perm = permutation(n, kind, seed=seed, i=i, j=j)
    x = np.random.default_rng(as_int("seed", seed, minimum=0, maximum=2**32 - 1)).standard_normal((n, dim))
    errors: dict[str, np.ndarray] = {}
    scale: dict[str, float] = {}
    for name, mixer in MIXERS.items():
        y = mixer(x)  # (n, dim)
        errors[name] = np.linalg.norm(mixer(x[perm]) - y[perm], axis=1)
        scale[name] = float(np.linalg.norm(y, axis=1).mean())
    runs = {name: _runs(np.flatnonzero(e > ORDER_EXACT)) for name, e in errors.items()}
    largest = {name: float(e.max()) for name, e in errors.items()}
    blind = [name for name, r in runs.items() if not r]
    return OrderTest(perm=perm, errors=errors, scale=scale, largest=largest, changed_runs=runs, blind=blind)


def _runs(hit: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive indices as (first, last) runs: [3, 4, 5, 9] -> [(3, 5), (9, 9)]."""
    if hit.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(hit) != 1)  # (runs - 1,) where a run ends
    starts = np.concatenate([[hit[0]], hit[breaks + 1]])
    ends = np.concatenate([hit[breaks], [hit[-1]]])
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]
