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

import numpy as np

from .._backend import keeps_kind
from .._checks import as_choice, as_float, as_int, check_size
from .._types import ArrayOrTensor
from ..why_position.order import permutation

__all__ = [
    "HYBRID_MODELS",
    "MIXERS",
    "HybridModel",
    "ORDER_EXACT",
    "causal_conv",
    "gated_recurrence",
    "nope_attention",
    "order_test",
]

MAX_MIX_TOKENS = 512
MAX_MIX_DIM = 256


@dataclass(frozen=True)
class HybridModel:
    mixers: str  # the non-attention layers
    attention: str  # how often attention appears
    rotates: str  # what the attention layers do with positions, per the modeling code
    module: str  # transformers.models.<module>


HYBRID_MODELS: dict[str, HybridModel] = {
    "Qwen3-Next / Qwen3.5": HybridModel("Gated DeltaNet", "1 layer in 4",
                                        "RoPE on 64 of 256 dims (partial_rotary_factor 0.25)", "qwen3_next"),
    "Kimi Linear": HybridModel("Kimi Delta Attention", "1 layer in 4 (latent attention)",
                               "none (KimiLinearAttention)", "kimi_linear"),
    "Granite 4.0-H": HybridModel("Mamba-2", "a few layers", "none unless position_embedding_type is 'rope'",
                                 "granitemoehybrid"),
    "Nemotron-H / Nemotron 3": HybridModel("Mamba-2", "a few layers", "none (NemotronHAttention)", "nemotron_h"),
    "Falcon-H1": HybridModel("Mamba-2, in parallel", "every layer", "RoPE (FalconH1Attention)", "falcon_h1"),
    "LFM2": HybridModel("short convolutions", "a few layers", "RoPE (Lfm2Attention)", "lfm2"),
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

MIXERS: dict[str, MixerFn] = {
    "causal convolution (K = 4)": causal_conv,
    "gated linear recurrence": gated_recurrence,
    "causal attention, no positions": nope_attention,
    "bidirectional attention, no positions": lambda x: nope_attention(x, causal=False),
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


def order_test(n: int = 24, dim: int = 16, kind: str = "swap", *, i: int = 3, j: int = 10, seed: int = 0) -> dict:
    """Reorder seeded input tokens and measure, per position, how far each mixer is from just reordering.

    For each mixer f and reordering P, the error at t is |f(P x)_t - (P f(x))_t| (Euclidean norm):
    0 at every t means the mixer cannot see the order; anything else means it can.

    Returns:
        ``{"perm": (n,), "errors": {mixer: (n,)}, "scale": {mixer: float}, "largest": {mixer: float},
        "changed_runs": {mixer: [(first, last), ...]}, "blind": [mixer, ...]}``; scale is the mean output norm
        of f(x), to read the errors against; ``changed_runs`` are the runs of positions whose error exceeds
        ``ORDER_EXACT`` (float64 rounding), and ``blind`` the mixers with no such position.
    """
    n = as_int("number of tokens", n, minimum=2, maximum=MAX_MIX_TOKENS)
    dim = as_int("dimension", dim, minimum=1, maximum=MAX_MIX_DIM)
    kind = as_choice("reordering", kind, ("swap", "reverse", "shuffle"))
    check_size(n * n * 4, "The attention grids")
    perm = permutation(n, kind, seed=seed, i=i, j=j)
    x = np.random.default_rng(as_int("seed", seed, minimum=0, maximum=2**32 - 1)).standard_normal((n, dim))
    errors, scale = {}, {}
    for name, mixer in MIXERS.items():
        y = mixer(x)  # (n, dim)
        errors[name] = np.linalg.norm(mixer(x[perm]) - y[perm], axis=1)
        scale[name] = float(np.linalg.norm(y, axis=1).mean())
    runs = {name: _runs(np.flatnonzero(e > ORDER_EXACT)) for name, e in errors.items()}
    return {"perm": perm, "errors": errors, "scale": scale,
            "largest": {name: float(e.max()) for name, e in errors.items()},
            "changed_runs": runs, "blind": [name for name, r in runs.items() if not r]}


def _runs(hit: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive indices as (first, last) runs: [3, 4, 5, 9] -> [(3, 5), (9, 9)]."""
    if hit.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(hit) != 1)  # (runs - 1,) where a run ends
    starts = np.concatenate([[hit[0]], hit[breaks + 1]])
    ends = np.concatenate([hit[breaks], [hit[-1]]])
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]
