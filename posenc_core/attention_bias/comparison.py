"""All the encodings side by side: what each costs in parameters, and what each adds to an attention score as a
function of the distance between query and key.

Each family is a code (``ComparedMethod``) with the formula of its parameter count, so a page can name and
describe the families in its own words and a test can check the counts; the curves come from a registry with
one function per family, all with the same signature, built from the family modules (this module only reads
them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._checks import MAX_DIM, MAX_HEADS, MAX_POSITIONS, as_base, as_choice, as_even_dim, as_int, check_size
from ..absolute.sinusoidal import sinusoidal_at, sinusoidal_frequencies
from ..rope import rope_decay_bound
from .biases import alibi_slopes, t5_bucket_values, t5_relative_position_bucket

__all__ = [
    "CURVES",
    "METHODS",
    "ComparedMethod",
    "CurveName",
    "CurveSettings",
    "Method",
    "ModelShape",
    "parameter_counts",
    "score_curves",
]

# The families compared: sinusoidal and learned absolute tables, RoPE, ALiBi, T5's buckets, Shaw's relative
# vectors, and no encoding at all.
ComparedMethod = Literal["sinusoidal", "learned", "rope", "alibi", "t5", "shaw", "nope"]


@dataclass(frozen=True)
class ModelShape:
    """The few sizes that parameter counts depend on.

    d_model: the model width. n_heads: attention heads. n_layers: layers. max_len: L_max, the longest input a
    learned table covers (positions). num_buckets: T5's buckets. max_rel: Shaw's clipping distance k (positions).
    """

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
    """One family of the comparison.

    key: its code. count: its position parameters for a model shape, the formula evaluated (an int).
    """

    key: ComparedMethod
    count: Callable[[ModelShape], int]


METHODS: tuple[Method, ...] = (
    Method("sinusoidal", lambda s: 0),
    Method("learned", lambda s: s.max_len * s.d_model),  # L_max x d_model
    Method("rope", lambda s: 0),
    Method("alibi", lambda s: 0),  # fixed slopes
    Method("t5", lambda s: s.num_buckets * s.n_heads),  # one table per stack, shared by its layers
    Method("shaw", lambda s: 2 * (2 * s.max_rel + 1) * s.d_head * s.n_layers),  # keys and values, every layer
    Method("nope", lambda s: 0),
)


def parameter_counts(d_model: int = 512, n_heads: int = 8, n_layers: int = 6, max_len: int = 512,
                     num_buckets: int = 32, max_rel: int = 16) -> dict[ComparedMethod, int]:
    """Position parameters of each family for one model shape: family code -> count, in ``METHODS`` order."""
    shape = _shape(d_model, n_heads, n_layers, max_len, num_buckets, max_rel)
    return {m.key: int(m.count(shape)) for m in METHODS}


def _shape(d_model, n_heads, n_layers, max_len, num_buckets, max_rel) -> ModelShape:
    d_model = as_int("d_model", d_model, minimum=1, maximum=MAX_DIM)
    n_heads = as_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    if d_model % n_heads:
        raise ValueError(f"d_model ({d_model}) must split evenly over n_heads ({n_heads}).")
    return ModelShape(d_model, n_heads, as_int("n_layers", n_layers, minimum=1, maximum=1024),
                      as_int("max_len", max_len, minimum=1, maximum=MAX_POSITIONS),
                      as_int("num_buckets", num_buckets, minimum=2, maximum=4096),
                      as_int("max_rel", max_rel, minimum=0, maximum=4096))


# ---------------------------------------------------------------------------------------------
# What each family adds to the score of a query and a key r positions apart.
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CurveSettings:
    """What the curves depend on: see ``score_curves``' arguments of the same names."""

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


# The curves: the sinusoidal dot product PE(0)·PE(r), RoPE's decay bound, ALiBi's −m·r, a T5 bucket's bias.
CurveName = Literal["sinusoidal", "rope", "alibi", "t5"]
CURVES: dict[CurveName, Callable[[np.ndarray, CurveSettings], np.ndarray]] = {
    "sinusoidal": _sinusoidal_curve,
    "rope": _rope_curve,
    "alibi": _alibi_curve,
    "t5": _t5_curve,
}


def score_curves(max_r: int = 256, dim: int = 64, base: float = 10000.0, alibi_heads: int = 8, alibi_head: int = 1,
                 num_buckets: int = 32, max_distance: int = 128,
                 seed: int = 0, scale: str = "raw") -> tuple[np.ndarray, dict[CurveName, np.ndarray]]:
    """The score contribution of each family against the distance r = query - key (keys behind the query).

    scale="raw" returns each in its own units (dot products, logits); scale="relative" returns
    (f(r) - f(0)) / max_r |f(r) - f(0)|: every curve starts at 0 and a drop of 1 is its largest change, so
    the shapes compare on one axis.

    Returns:
        ``r`` of shape (max_r + 1,) and a dict from curve code (``CURVES``' order) to an array of the same
        shape, float64.
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
