"""ggml's CPU rope kernel in its own float32 arithmetic: the angles, cos and sin, and one rotation of a row.

llama.cpp rotates queries, keys and (on a context shift) cached keys with ggml's rope op; on the CPU
(``ggml/src/ggml-cpu/ops.cpp``, ``ggml_compute_forward_rope_flt``) every step is a float32 operation of C:

- ``theta_scale = powf(freq_base, -2.0f/n_dims)``, the C library's ``powf``;
- ``ggml_rope_cache_init``: ``theta`` starts at the position ``p`` (as a float) and is multiplied by
  ``theta_scale`` once per pair, so pair i's angle is p·theta_scale^i formed by i float32 products from p (not
  p times a table of powers); a per-pair frequency factor divides it (``theta/ff``);
- ``rope_yarn``: ``theta_interp = freq_scale*theta``; with YaRN on (``ext_factor != 0``) the angle mixes
  interpolation and extrapolation over the ramp of ``rope_yarn_ramp`` between ``ggml_rope_yarn_corr_dims``
  (``ggml/src/ggml.c``, ``logf``, ``floorf``, ``ceilf``), and ``mscale *= 1.0f + 0.1f*logf(1.0f/freq_scale)``;
  ``cos = cosf(theta)*mscale``, ``sin = sinf(theta)*mscale``, the C library's ``cosf`` / ``sinf``;
- ``rotate_pairs``: each pair is read into float32, ``x0*cos - x1*sin`` and ``x0*sin + x1*cos`` are formed, and the
  results are written back in the tensor's type (float16 by round-to-nearest-even).

Every float32 step here is the same IEEE operation (numpy's float32 multiply, divide, add) or the same C
library call (``posenc_core._libm``), so the numbers are the kernel's as built without contracting ``a*b - c*d``
into a fused multiply-add (``-ffp-contract=off``; MSVC's default). A build that fuses may differ in the last
float32 bit of a rotated value; the angles, cos and sin do not depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._checks import MAX_POSITIONS, as_base, as_even_dim, as_float, as_int
from .._libm import c_cosf, c_logf, c_powf, c_sinf

__all__ = ["MAX_CALLS", "GGMLRopeCache", "ggml_corr_dims", "ggml_rope_cache", "ggml_rope_rows", "ggml_theta_scale"]

_F = np.float32
_LONGEST = MAX_POSITIONS * 64  # positions and original contexts up to 268M tokens


def ggml_theta_scale(n_dims: int, base: float) -> np.float32:
    """``powf(base, -2.0f/n_dims)``: the ratio of one pair's angle to the one before, as ggml forms it."""
    n_dims = as_even_dim("n_dims", n_dims)
    return c_powf(_F(as_base(base)), _F(-2.0) / _F(n_dims))


def ggml_corr_dims(n_dims: int, n_ctx_orig: int, base: float, beta_fast: float = 32.0,
                   beta_slow: float = 1.0) -> tuple[np.float32, np.float32]:
    """YaRN's correction range ``ggml_rope_yarn_corr_dims``: (start, end) dims, float32, floor / ceil'd and
    clipped to [0, n_dims - 1]."""
    n_dims = as_even_dim("n_dims", n_dims)
    n_ctx_orig = as_int("n_ctx_orig", n_ctx_orig, minimum=1, maximum=_LONGEST)
    base = _F(as_base(base))
    two_log_base = _F(2) * c_logf(base)

    def corr_dim(n_rot: float) -> np.float32:
        ratio = _F(n_ctx_orig) / (_F(n_rot) * _F(2) * _F(np.pi))
        return _F(n_dims) * c_logf(ratio) / two_log_base

    start = np.floor(corr_dim(as_float("beta_fast", beta_fast, above=0.0)))
    end = np.ceil(corr_dim(as_float("beta_slow", beta_slow, above=0.0)))
    return _F(max(_F(0), start)), _F(min(_F(n_dims - 1), end))


@dataclass(frozen=True)
class GGMLRopeCache:
    """One position's row of ggml's rope cache.

    Attributes:
        theta: (n_dims/2,) float32 angle of each pair, after frequency factors, freq_scale and YaRN's mix.
        cos: (n_dims/2,) float32 ``cosf(theta) * mscale``.
        sin: (n_dims/2,) float32 ``sinf(theta) * mscale``.
        mscale: the float32 factor that multiplies cos and sin.
    """

    theta: np.ndarray
    cos: np.ndarray
    sin: np.ndarray
    mscale: np.float32


def _yarn_mix(theta_extrap: np.ndarray, theta_interp: np.ndarray, corr_dims, ext_factor: np.float32) -> np.ndarray:
    """``rope_yarn``'s mix for every pair: ramp_mix = rope_yarn_ramp(low, high, i0) * ext_factor."""
    low, high = _F(corr_dims[0]), _F(corr_dims[1])
    half_i0 = np.arange(theta_extrap.shape[0]).astype(_F)  # i0 / 2 in C's integer division, then a float
    y = (half_i0 - low) / max(_F(0.001), _F(high - low))  # (n_dims/2,)
    ramp = _F(1) - np.minimum(_F(1), np.maximum(_F(0), y))
    mix = (ramp * ext_factor).astype(_F)
    return (theta_interp * (_F(1) - mix) + theta_extrap * mix).astype(_F)


def ggml_rope_cache(position: float, n_dims: int, base: float = 10000.0, *, freq_scale: float = 1.0,
                    ext_factor: float = 0.0, attn_factor: float = 1.0, corr_dims: tuple[float, float] = (0.0, 0.0),
                    freq_factors: ArrayLike | None = None) -> GGMLRopeCache:
    """ggml's rope cache row for one position (``ggml_rope_cache_init`` with ``rope_yarn``), in float32.

    Args:
        position: the token's position ``p`` (a shift's delta on a context shift), made a float32.
        n_dims: rotated dimensions (even).
        base: freq_base.
        freq_scale: 1 / the linear or YaRN factor (1: none).
        ext_factor: YaRN's extrapolation mix (0: off).
        attn_factor: the mscale given to the kernel.
        corr_dims: YaRN's correction range (``ggml_corr_dims``); read only when ext_factor is not 0.
        freq_factors: (n_dims/2,) per-pair divisors (a ``rope_freqs`` tensor), or None.

    Returns:
        a ``GGMLRopeCache`` of float32 arrays.
    """
    n_dims = as_even_dim("n_dims", n_dims)
    position = as_float("position", position, minimum=-_LONGEST, maximum=_LONGEST)
    scale = ggml_theta_scale(n_dims, base)
    theta = np.empty(n_dims // 2, dtype=_F)  # (n_dims/2,)
    t = _F(position)
    for i in range(n_dims // 2):  # one float32 product per pair, from the position on
        theta[i] = t
        t = _F(t * scale)
    if freq_factors is not None:
        factors = np.asarray(freq_factors, dtype=_F)
        if factors.shape != theta.shape or not np.all(np.isfinite(factors)) or np.any(factors == 0):
            raise ValueError(f"freq_factors must be {n_dims // 2} finite, non-zero numbers, one per pair.")
        theta = (theta / factors).astype(_F)
    fs = _F(as_float("freq_scale", freq_scale, above=0.0))
    ext = _F(as_float("ext_factor", ext_factor, minimum=0.0))
    mscale = _F(as_float("attn_factor", attn_factor))
    interp = (fs * theta).astype(_F)
    if ext != 0:
        interp = _yarn_mix(theta, interp, corr_dims, ext)
        mscale = _F(mscale * (_F(1) + _F(0.1) * c_logf(_F(1) / fs)))
    cos = (c_cosf(interp) * mscale).astype(_F)
    sin = (c_sinf(interp) * mscale).astype(_F)
    return GGMLRopeCache(interp, cos, sin, mscale)


MAX_CALLS = 1 << 21  # C calls of cosf and sinf one request may make (2M: about a second)


def ggml_rope_rows(rows: ArrayLike, positions: ArrayLike, base: float = 10000.0) -> np.ndarray:
    """Rows of float32 values rotated to their positions as ggml's CPU kernel rotates a NEOX head (pairs i and
    i + n_dims/2), with no scaling: the angles, cosf and sinf of ``ggml_rope_cache`` and ``rotate_pairs``' float32
    products and sums.

    Args:
        rows: (n, n_dims) values, made float32.
        positions: (n,) integer positions, one per row.
        base: freq_base.

    Returns:
        (n, n_dims) float32 rotated rows.
    """
    x = np.asarray(rows, dtype=_F)
    if x.ndim != 2:
        raise ValueError(f"rows must be a (n, n_dims) array, but got shape {x.shape}.")
    n_dims = as_even_dim("n_dims (the rows' last axis)", x.shape[1])
    pos = np.asarray(positions)
    if pos.shape != (x.shape[0],) or not np.issubdtype(pos.dtype, np.integer):
        raise ValueError(f"positions must be {x.shape[0]} integers, one per row.")
    if pos.size and np.abs(pos).max() > _LONGEST:
        raise ValueError(f"positions must be within ±{_LONGEST:,}.")
    if x.size > MAX_CALLS:
        raise ValueError(f"rows holds {x.size:,} values; ggml's rotation is reproduced here for at most "
                         f"{MAX_CALLS:,}.")
    scale = ggml_theta_scale(n_dims, base)
    half = n_dims // 2
    theta = np.empty((x.shape[0], half), dtype=_F)  # (n, n_dims/2)
    t = pos.astype(_F)
    for i in range(half):  # each row's angles: float32 products from its own position
        theta[:, i] = t
        t = (t * scale).astype(_F)
    cos, sin = c_cosf(theta), c_sinf(theta)  # (n, n_dims/2) each
    x0, x1 = x[:, :half], x[:, half:]
    return np.concatenate((x0 * cos - x1 * sin, x0 * sin + x1 * cos), axis=1).astype(_F)
