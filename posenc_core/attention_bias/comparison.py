"""All the encodings side by side: a comparison table kept as data, and what each adds to an attention
score as a function of the distance between query and key.

The table is data (one ``Method`` per family) so the page renders it and a test can check it; the
curves come from a registry with one function per family, all with the same signature, built from the
family modules (this module only reads them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._checks import MAX_DIM, MAX_HEADS, MAX_POSITIONS, as_base, as_choice, as_even_dim, as_int, check_size
from ..absolute.sinusoidal import sinusoidal_at, sinusoidal_frequencies
from ..rope import rope_decay_bound
from .biases import alibi_slopes, t5_bucket_values, t5_relative_position_bucket

__all__ = [
    "CURVES",
    "METHODS",
    "CurveSettings",
    "Method",
    "comparison_table",
    "parameter_counts",
    "score_curves",
]


@dataclass(frozen=True)
class ModelShape:
    """The few sizes that parameter counts depend on."""

    d_model: int
    n_heads: int
    n_layers: int
    max_len: int
    num_buckets: int
    max_rel: int

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads


@dataclass(frozen=True)
class Method:
    name: str
    injected: str  # where position enters the model
    parameters: str  # the count as a formula
    count: Callable[[ModelShape], int]  # the same formula, evaluated
    operation: str
    decay: str  # how the position signal changes with distance
    best_for: str
    extrapolation: str  # inputs longer than the training length


METHODS: tuple[Method, ...] = (
    Method("Sinusoidal", "added to the token embeddings, once, at the input", "0",
           lambda s: 0, "addition of a fixed vector",
           "implicit: PE(i)·PE(j) falls with |i − j| but ripples, and content terms mix in",
           "encoders with a known maximum length; the classic baseline",
           "weak: the table exists for any position, but the model never saw those vectors"),
    Method("Learned absolute", "added to the token embeddings, once, at the input", "L_max × d_model",
           lambda s: s.max_len * s.d_model, "addition of a trained vector (a table lookup)",
           "whatever training produced", "short, fixed-length inputs (BERT, GPT-2, ViT)",
           "none: positions at or past L_max have no row in the table"),
    Method("RoPE", "rotates the queries and keys in every attention layer", "0", lambda s: 0,
           "rotation (multiplication) of (q, k) pairs by position × frequency",
           "implicit: RoFormer's upper bound on |q·k| falls with distance, with ripples",
           "decoder LLMs (Llama, Mistral, Qwen); works with a plain KV cache",
           "degrades past the training length unless rescaled (PI, NTK, YaRN, …)"),
    Method("ALiBi", "added to the attention logits in every layer", "0 (fixed slopes)", lambda s: 0,
           "addition of −m_h × distance (subtracts a penalty)",
           "explicit: linear in distance, one slope per head",
           "long inputs at inference time (BLOOM, MPT)",
           "graceful: a longer input only meets larger penalties, so heads stay local"),
    Method("T5 buckets", "added to the attention logits (T5: one table per stack, shared by its layers)",
           "num_buckets × n_heads", lambda s: s.num_buckets * s.n_heads,
           "addition of a learned scalar per distance bucket",
           "learned; exact for short distances, log-spaced further out, flat past max_distance",
           "encoder-decoder models (T5, Flan-T5)",
           "fair: every far distance shares the last bucket's bias"),
    Method("Shaw relative", "added to the keys and values inside attention", "2 × (2k + 1) × d_head per layer",
           lambda s: 2 * (2 * s.max_rel + 1) * s.d_head * s.n_layers,
           "addition of a learned vector per clipped distance to k_j and v_j",
           "learned, clipped: every distance past k looks the same",
           "translation (the paper), music models; a KV cache is awkward",
           "length is fine, but order beyond k is invisible"),
    Method("NoPE", "nowhere: no encoding at all", "0", lambda s: 0, "none; a causal mask leaks some order",
           "none", "research on causal decoders",
           "mixed reports; trains more slowly and usually ends up worse"),
)


def parameter_counts(d_model: int = 512, n_heads: int = 8, n_layers: int = 6, max_len: int = 512,
                     num_buckets: int = 32, max_rel: int = 16) -> dict[str, int]:
    """Position parameters of each method for one model shape (a dict from method name to count)."""
    shape = _shape(d_model, n_heads, n_layers, max_len, num_buckets, max_rel)
    return {m.name: int(m.count(shape)) for m in METHODS}


def _shape(d_model, n_heads, n_layers, max_len, num_buckets, max_rel) -> ModelShape:
    d_model = as_int("d_model", d_model, minimum=1, maximum=MAX_DIM)
    n_heads = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    if d_model % n_heads:
        raise ValueError(f"d_model ({d_model}) must split evenly over n_heads ({n_heads}).")
    return ModelShape(d_model, n_heads, as_int("n_layers", n_layers, minimum=1, maximum=1024),
                      as_int("max_len", max_len, minimum=1, maximum=MAX_POSITIONS),
                      as_int("num_buckets", num_buckets, minimum=2, maximum=4096),
                      as_int("max_rel", max_rel, minimum=0, maximum=4096))


def comparison_table(d_model: int = 512, n_heads: int = 8, n_layers: int = 6, max_len: int = 512, num_buckets: int = 32,
                     max_rel: int = 16) -> dict[str, list]:
    """The comparison as columns (one entry per method), with parameter counts for the given shape."""
    counts = parameter_counts(d_model, n_heads, n_layers, max_len, num_buckets, max_rel)
    return {
        "method": [m.name for m in METHODS],
        "how position is injected": [m.injected for m in METHODS],
        "parameters": [m.parameters for m in METHODS],
        "count for this model": [counts[m.name] for m in METHODS],
        "operation": [m.operation for m in METHODS],
        "decay with distance": [m.decay for m in METHODS],
        "best for": [m.best_for for m in METHODS],
        "longer than training": [m.extrapolation for m in METHODS],
    }


# ---------------------------------------------------------------------------------------------
# What each family adds to the score of a query and a key r positions apart.
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CurveSettings:
    dim: int = 64  # head / model dimension for the sinusoidal and RoPE curves
    base: float = 10000.0
    alibi_heads: int = 8
    alibi_head: int = 1  # which head's slope (1-based)
    num_buckets: int = 32  # T5, causal (decoder) buckets
    max_distance: int = 128
    seed: int = 0  # for T5's illustrative bucket values


def _sinusoidal_curve(r: np.ndarray, s: CurveSettings) -> np.ndarray:
    origin = sinusoidal_at([0], s.dim, s.base, dtype="float64")[0]  # (d,): (sin 0, cos 0) = (0, 1) per pair
    # The sines only ever meet origin's zeros, so float64 sin (half the table's cost) is skipped; zeros stand in
    # for them and the table keeps its interleaved (n, d) layout, because the curve's bits depend on the order
    # in which the matmul sums the columns.
    table = np.zeros((r.shape[0], s.dim))  # (n, d)
    table[:, 1::2] = np.cos(np.multiply.outer(r, sinusoidal_frequencies(s.dim, s.base)))  # (n, d/2)
    return table @ origin  # PE(0) . PE(r) = sum_i cos(r w_i)


def _rope_curve(r: np.ndarray, s: CurveSettings) -> np.ndarray:
    return rope_decay_bound(s.dim, r, s.base).astype(np.float64)


def _alibi_curve(r: np.ndarray, s: CurveSettings) -> np.ndarray:
    slope = float(alibi_slopes(s.alibi_heads)[s.alibi_head - 1])
    return 0.0 - slope * r  # 0.0 - x, so distance 0 reads 0 rather than -0


def _t5_curve(r: np.ndarray, s: CurveSettings) -> np.ndarray:
    values = t5_bucket_values(s.num_buckets, False, s.seed).astype(np.float64)
    return values[t5_relative_position_bucket(-r, False, s.num_buckets, s.max_distance)]  # key r positions back


CURVES: dict[str, Callable[[np.ndarray, CurveSettings], np.ndarray]] = {
    "Sinusoidal: PE(0)·PE(r)": _sinusoidal_curve,
    "RoPE: decay bound": _rope_curve,
    "ALiBi: −m·r": _alibi_curve,
    "T5: bucket bias": _t5_curve,
}


def score_curves(max_r: int = 256, dim: int = 64, base: float = 10000.0, alibi_heads: int = 8, alibi_head: int = 1,
                 num_buckets: int = 32, max_distance: int = 128,
                 seed: int = 0, scale: str = "raw") -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The score contribution of each family against the distance r = query - key (keys behind the query).

    scale="raw" returns each in its own units (dot products, logits); scale="relative" returns
    (f(r) - f(0)) / max_r |f(r) - f(0)|: every curve starts at 0 and a drop of 1 is its largest change, so
    the shapes compare on one axis.

    Returns:
        ``r`` of shape (max_r + 1,) and a dict from curve name to an array of the same shape, float64.
    """
    max_r = as_int("max_r", max_r, minimum=1, maximum=MAX_POSITIONS)
    settings = CurveSettings(as_even_dim("dim", dim), as_base(base),
                             as_int("alibi_heads", alibi_heads, minimum=1, maximum=MAX_HEADS), 0,
                             as_int("num_buckets", num_buckets, minimum=2, maximum=4096),
                             as_int("max_distance", max_distance, minimum=1, maximum=MAX_POSITIONS),
                             as_int("seed", seed, minimum=0, maximum=2**32 - 1))
    settings = CurveSettings(**{**settings.__dict__, "alibi_head": as_int(
        "alibi_head", alibi_head, minimum=1, maximum=settings.alibi_heads)})
    scale = as_choice("scale", scale, ("raw", "relative"))
    check_size((max_r + 1) * settings.dim, "The curves")
    r = np.arange(max_r + 1, dtype=np.float64)
    curves = {name: fn(r, settings) for name, fn in CURVES.items()}
    if scale == "relative":
        for name, values in curves.items():
            change = values - values[0]
            peak = float(np.abs(change).max())
            curves[name] = change / peak if peak > 0 else change
    return r, curves
