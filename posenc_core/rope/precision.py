"""How far RoPE's angles m * theta_i drift in bfloat16, float16 and float32, against exact float64 ones.

The precision part of the lesson *RoPE layouts, partial rotary and precision*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._backend import keeps_kind, require_torch
from .._checks import MAX_POSITIONS, as_base, as_choice, as_even_dim, as_float, as_int, check_size
from .._types import ArrayOrTensor
from .frequencies import base_inv_freq, rope_inv_freq
from .rotation import rope_pair_theta

__all__ = [
    "ANGLE_DTYPES",
    "AngleErrorCurve",
    "AnglesInDtype",
    "PowDifference",
    "rope_angle_error_curve",
    "rope_angles_in_dtype",
    "rope_first_bad_position",
    "rope_float32_pow_difference",
    "rope_inv_freq_float32_pow",
    "round_to_dtype",
]


ANGLE_DTYPES = ("bfloat16", "float16", "float32")
_UNIT_ROUNDOFF = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 2.0**-24}
_FLOAT16_MAX = 65504.0
_FLOAT16_OVERFLOW = 65520.0  # the least value that rounds to inf in float16 (half a step past its largest)


@keeps_kind
def round_to_dtype(x: ArrayOrTensor, dtype: str) -> ArrayOrTensor:
    """Round float values to bfloat16, float16 or float32 (nearest, ties to even); float64 out.

    bfloat16 keeps the top 16 bits of a float32 (8 significant bits), which is what torch does when
    it casts float32 to bfloat16. float16 overflows to inf above 65504.
    """
    dtype = as_choice("dtype", dtype, ANGLE_DTYPES)
    x = np.asarray(x, dtype=np.float64)
    if dtype == "float16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float64)
    x32 = x.astype(np.float32)
    if dtype == "float32":
        return x32.astype(np.float64)
    bits = x32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # round to nearest even on the low 16 bits
    out = rounded.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(np.isfinite(x32), out, x32)  # inf / nan stay as they are


def rope_inv_freq_float32_pow(head_dim: int, base: float = 10000.0) -> np.ndarray:
    """inv_freq as transformers builds it: 1 / base ** (arange(0, d, 2) / d) with torch's float32 pow.

    The same bits as ``rope_inv_freq(head_dim, base)``, which forms every rope type this way.
    Shape (head_dim / 2,), float32.
    """
    d = as_even_dim("head_dim", head_dim)
    return rope_inv_freq(d, base)[0]


@dataclass(frozen=True)
class PowDifference:
    """transformers' float32 frequencies and angles against the exact ones (``rope_float32_pow_difference``).

    n_pairs: d/2, int. pairs_differing: how many theta_i differ from the correctly rounded float32 value, int.
    max_ulp: the largest |theta_model - theta_exact| in float32 ulps of theta_exact. angle_shift: the largest
    |m theta_model - m theta_exact| at the position, exact products (the frequency error alone), radians.
    angle_error: the largest |fl32(m * theta_model) - m theta_exact|, the true error of the angle transformers
    forms, radians. rounded_angle_error: the same with the correctly rounded theta (what the float32
    multiplication alone costs), radians. Floats unless said.
    """

    n_pairs: int
    pairs_differing: int
    max_ulp: float
    angle_shift: float
    angle_error: float
    rounded_angle_error: float


def rope_float32_pow_difference(head_dim: int, base: float = 10000.0, position: int = 1500) -> PowDifference:
    """The measured gap between the float32 angles transformers forms and the exact ones.

    transformers forms theta_i with a float32 pow and a float32 division, which can land a few units in the
    last place (ulp) away from the exact value, and then the angle m * theta_i with one more float32
    rounding. Both are measured here against float64.

    Returns:
        A ``PowDifference``, its angles measured at ``position``.
    """
    d = as_even_dim("head_dim", head_dim)
    position = as_int("position", position, minimum=0, maximum=MAX_POSITIONS * 64)
    model = rope_inv_freq(d, base)[0]  # (d/2,) float32, transformers' bits
    exact = rope_inv_freq(d, base, ideal=True)[0]  # (d/2,) float64
    rounded = exact.astype(np.float32)  # correctly rounded theta
    ulp = np.spacing(rounded).astype(np.float64)
    m32 = np.float32(position)  # position_ids.float()
    exact_angle = position * exact
    return PowDifference(
        n_pairs=d // 2,
        pairs_differing=int(np.count_nonzero(model != rounded)),
        max_ulp=float(np.max(np.abs(model.astype(np.float64) - exact) / ulp)),
        angle_shift=float(np.max(np.abs(position * model.astype(np.float64) - exact_angle))),
        angle_error=float(np.max(np.abs((m32 * model).astype(np.float64) - exact_angle))),
        rounded_angle_error=float(np.max(np.abs((m32 * rounded).astype(np.float64) - exact_angle))),
    )


def _model_inv_freq(head_dim, base, dtype) -> np.ndarray:
    """The inv_freq a model holds in ``dtype`` (float64 values): transformers' float32 buffer, then cast."""
    inv_freq, _ = rope_inv_freq(head_dim, base)  # float32, bit-identical to transformers
    return round_to_dtype(inv_freq, dtype)


def _angle_errors(positions, theta_exact, theta_model, dtype) -> np.ndarray:
    """|m theta computed in dtype - m theta exact|, shape (len(positions), d/2), inf on overflow.

    The same bits as rounding the float64 product to ``dtype`` with ``round_to_dtype``, done in float32: a
    bfloat16 or float16 product has at most 22 significant bits, so its float32 product is exact and one
    rounding to ``dtype`` is the model's multiply; in float32 the float32 multiply is that rounding itself.
    """
    m = np.asarray(positions, dtype=np.float64)
    m_dtype = round_to_dtype(m, dtype).astype(np.float32)  # (n,) exact: dtype values are float32 values
    with np.errstate(invalid="ignore"):  # float16: positions from 65,520 round to inf; inf * a 0 theta is NaN
        computed = np.multiply.outer(m_dtype, theta_model.astype(np.float32))  # (n, d/2) float32
        if dtype != "float32":
            # torch's casts round to nearest even as round_to_dtype does, and are several times faster than
            # numpy's float16 cast or round_to_dtype's bfloat16 bit trick; from_numpy and .numpy() share memory.
            torch = require_torch()
            computed = torch.from_numpy(computed).to(getattr(torch, dtype)).float().numpy()  # (n, d/2)
        # |exact - computed| has the bits of |computed - exact|; subtracting the float32 values directly
        # skips a float64 copy of them.
        errors = np.multiply.outer(m, theta_exact)  # (n, d/2)
        errors -= computed
        return np.abs(errors, out=errors)


def _bin_samples(edges, per_bin) -> tuple[np.ndarray, np.ndarray]:
    """Every bin's sample positions, concatenated, and the index where each bin's run starts.

    Bin (lo, hi] gets np.linspace(lo + 1, hi, n).round() with n = min(per_bin, hi - lo), built with
    linspace's own float steps (k * step + start, last point = hi) so rounding ties fall the same way.
    """
    lo, hi = edges[:-1], edges[1:]  # (bins,)
    n = np.minimum(per_bin, hi - lo)  # (bins,) at least 1: edges are unique
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])  # (bins,)
    step = np.zeros(n.shape[0])  # (bins,) linspace multiplies a one-point bin by 0 and adds lo + 1
    np.divide((hi - lo - 1).astype(np.float64), n - 1, out=step, where=n > 1)
    k = (np.arange(int(n.sum())) - np.repeat(starts, n)).astype(np.float64)  # (samples,) index in its bin
    sample = k * np.repeat(step, n) + np.repeat(lo + 1, n)  # (samples,)
    sample[(starts + n - 1)[n > 1]] = hi[n > 1]
    return sample.round(), starts


@dataclass(frozen=True)
class AnglesInDtype:
    """One pair's angles in a low-precision dtype (``rope_angles_in_dtype``), each (count,) float64.

    position: m. exact: m theta, radians. computed: the angle as a model computing in the dtype holds it,
    radians (inf where float16 overflows).
    """

    position: np.ndarray
    exact: np.ndarray
    computed: np.ndarray


def rope_angles_in_dtype(start: int, count: int, head_dim: int, base: float = 10000.0, *, pair: int = 0,
                         dtype: str = "bfloat16") -> AnglesInDtype:
    """m * theta_pair for positions start..start+count-1, exact (float64) and as computed in ``dtype``.

    In dtype, the position is cast, theta is cast, and their product is rounded, as when a model's
    position ids and inv_freq live in that dtype.

    Returns:
        An ``AnglesInDtype``: ``position``, ``exact`` and ``computed``.
    """
    dtype = as_choice("dtype", dtype, ANGLE_DTYPES)
    d = as_even_dim("head_dim", head_dim)
    pair = as_int("pair index", pair, minimum=0, maximum=d // 2 - 1)
    start = as_int("start", start, minimum=0, maximum=MAX_POSITIONS * 64)
    count = as_int("count", count, minimum=1, maximum=1 << 16)
    m = np.arange(start, start + count, dtype=np.float64)
    theta_exact = rope_pair_theta(pair, d, base)
    theta_model = _model_inv_freq(d, base, dtype)[pair]
    with np.errstate(invalid="ignore", over="ignore"):
        computed = round_to_dtype(round_to_dtype(m, dtype) * theta_model, dtype)
    return AnglesInDtype(position=m, exact=m * theta_exact, computed=computed)


@dataclass(frozen=True)
class AngleErrorCurve:
    """The worst angle error against position in one dtype (``rope_angle_error_curve``).

    position: (bins,) float64, the right edge of each bin. error: (bins,) float64, the largest error in the bin
    over every pair, radians, NaN where the angle overflows. overflow_from: the first overflowing bin's position,
    or None when nothing overflows. worst: the largest finite error, radians (NaN when none is finite).
    """

    position: np.ndarray
    error: np.ndarray
    overflow_from: float | None
    worst: float


def rope_angle_error_curve(max_position: int, head_dim: int, base: float = 10000.0, dtype: str = "bfloat16", *,
                           bins: int = 240,
                           per_bin: int = 48) -> AngleErrorCurve:
    """The worst angle error (over all pairs) of m * theta_i in ``dtype`` against float64, up to max_position.

    Positions 1..max_position are cut into ``bins`` log-spaced bins; in each bin ``per_bin`` evenly
    spread integer positions are measured (every position while a bin is small) and the largest
    error is kept, so the curve shows the worst case a model meets around that length.

    Returns:
        An ``AngleErrorCurve``: ``position`` (right edge of each bin) and ``error`` (radians), shape (bins,);
        where the angle overflows (float16 above 65,504) the error is NaN and ``overflow_from`` gives the
        first such bin's position (None if nothing overflows); ``worst`` is the largest finite error.
        The model's theta is transformers' own float32 inv_freq (cast to ``dtype``), so the curve includes
        the error of its float32 pow, not only that of the multiplication.
    """
    dtype = as_choice("dtype", dtype, ANGLE_DTYPES)
    d = as_even_dim("head_dim", head_dim)
    max_position = as_int("max_position", max_position, minimum=2, maximum=MAX_POSITIONS)
    bins = as_int("bins", bins, minimum=2, maximum=2000)
    per_bin = as_int("per_bin", per_bin, minimum=1, maximum=1024)
    check_size(bins * per_bin * d // 2, "The error curve")
    theta_exact = base_inv_freq(as_base(base), d)
    theta_model = _model_inv_freq(d, base, dtype)
    edges = np.unique(np.geomspace(1, max_position, bins + 1).round().astype(np.int64))
    sample, starts = _bin_samples(edges, per_bin)  # (samples,), (bins,)
    worst = np.empty(sample.shape[0])  # (samples,) largest error over the pairs
    rows = max(1, (1 << 15) // (d // 2))  # chunks whose work arrays stay in cache
    for i in range(0, sample.shape[0], rows):
        worst[i:i + rows] = _angle_errors(sample[i:i + rows], theta_exact, theta_model, dtype).max(axis=1)
    errors = np.maximum.reduceat(worst, starts)  # (bins,) NaN and inf carry through as np.max's did
    positions = edges[1:].astype(np.float64)  # (bins,)
    overflow = ~np.isfinite(errors)
    finite = errors[~overflow]
    return AngleErrorCurve(position=positions, error=np.where(overflow, np.nan, errors),
                           overflow_from=float(positions[overflow][0]) if overflow.any() else None,
                           worst=float(finite.max()) if finite.size else math.nan)


def rope_first_bad_position(head_dim: int, base: float = 10000.0, dtype: str = "bfloat16", *, threshold: float = 1.0,
                            max_position: int = 1 << 20) -> int | None:
    """The first position whose angle error (any pair) reaches ``threshold`` radians in ``dtype``.

    Scans every position 0..max_position (in chunks, stopping at the first hit). None if none does.
    A chunk is skipped when a rounding-error bound proves no position in it can reach the threshold
    (the error is at most hi * |theta_model - theta| + two roundings of at most u * hi * theta each), unless
    float16 overflows in it (an infinite error reaches every threshold).
    """
    dtype = as_choice("dtype", dtype, ANGLE_DTYPES)
    d = as_even_dim("head_dim", head_dim)
    threshold = as_float("threshold", threshold, above=0.0)
    max_position = as_int("max_position", max_position, minimum=1, maximum=MAX_POSITIONS)
    theta_exact = base_inv_freq(as_base(base), d)
    theta_model = _model_inv_freq(d, base, dtype)
    chunk = max(1, (1 << 20) // (d // 2))
    rows = max(1, (1 << 15) // (d // 2))  # a chunk is measured in cache-sized runs, stopping at the first hit
    drift, u = float(np.abs(theta_model - theta_exact).max()), _UNIT_ROUNDOFF[dtype]
    for start in range(0, max_position + 1, chunk):
        m = np.arange(start, min(start + chunk, max_position + 1), dtype=np.float64)  # (chunk,)
        hi = float(m[-1])
        # the bound holds for finite products only: from 65,520 a float16 position rounds to inf, an error of inf
        overflows = dtype == "float16" and hi >= _FLOAT16_OVERFLOW
        if not overflows and hi * drift + 2.5 * u * hi * float(theta_model.max()) < threshold:
            continue
        for run in range(0, m.shape[0], rows):
            errors = _angle_errors(m[run:run + rows], theta_exact, theta_model, dtype)  # (rows, d/2)
            bad = np.nonzero((errors >= threshold).any(axis=1))[0]
            if bad.size:
                return int(m[run + bad[0]])
    return None
