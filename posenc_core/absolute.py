"""Absolute encodings added to token embeddings: the sinusoidal table of "Attention Is All You Need"."""

from __future__ import annotations

import numpy as np

from ._backend import to_backend
from ._checks import MAX_POSITIONS, as_base, as_choice, as_even_dim, as_int, check_size

__all__ = [
    "LAYOUTS",
    "sinusoidal",
    "sinusoidal_at",
    "sinusoidal_entry",
    "sinusoidal_frequencies",
    "sinusoidal_shift_error",
    "sinusoidal_shift_matrix",
]


LAYOUTS = ("interleaved", "concat")
_BLOCK_VALUES = 1 << 15


def sinusoidal_frequencies(dim, base=10000.0) -> np.ndarray:
    """omega_i = base^(-2i/dim) for i < dim/2, shape (dim/2,), float64."""
    dim = as_even_dim("dim", dim)
    return as_base(base) ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)


def sinusoidal_at(positions, dim, base=10000.0, layout="interleaved", *, dtype="float32", backend="numpy",
                  device=None):
    """Sinusoidal encodings of arbitrary (possibly fractional or negative) positions.

    ``dtype="float32"`` forms the angles in float32 as model code does; ``"float64"`` gives the exact
    values a hand calculation gets.

    Returns an array of shape (len(positions), dim).
    """
    layout = as_choice("layout", layout, LAYOUTS)
    if as_choice("dtype", dtype, ("float32", "float64")) == "float64":
        check_size(np.size(positions) * as_even_dim("dim", dim), "The sinusoidal table")
        return to_backend(_sinusoidal64(positions, dim, base, layout), backend, device)
    omega = sinusoidal_frequencies(dim, base).astype(np.float32)  # (d/2,)
    positions = np.asarray(positions, dtype=np.float32).reshape(-1)  # (n,)
    n, half = positions.shape[0], omega.shape[0]
    check_size(n * 2 * half, "The sinusoidal table")
    out = np.empty((n, 2 * half), dtype=np.float32)  # (n, d)
    sin_cols, cos_cols = (out[:, 0::2], out[:, 1::2]) if layout == "interleaved" else (out[:, :half], out[:, half:])
    # Fill in row blocks of about 32k values: the angle and scratch buffers stay in L2 cache, and sin/cos
    # run on contiguous memory (their fast path) before the strided copy into place. On a large table
    # this is ~1.5x faster than computing whole-table temporaries.
    rows = max(1, _BLOCK_VALUES // max(half, 1))
    angles = np.empty((min(rows, n), half), dtype=np.float32)
    scratch = np.empty_like(angles)
    for start in range(0, n, rows):
        k = min(rows, n - start)
        # angles in float32, as the PyTorch reference implementations form them
        np.multiply.outer(positions[start:start + k], omega, out=angles[:k])  # (k, d/2)
        np.sin(angles[:k], out=scratch[:k])
        sin_cols[start:start + k] = scratch[:k]
        np.cos(angles[:k], out=scratch[:k])
        cos_cols[start:start + k] = scratch[:k]
    return to_backend(out, backend, device)


def sinusoidal(num_positions, dim, base=10000.0, layout="interleaved", *, dtype="float32", backend="numpy",
               device=None):
    """The sinusoidal position table for positions 0 .. num_positions-1.

    Args:
        num_positions: number of rows (positions 0, 1, ...).
        dim: model dimension (even).
        base: wavelength base (10000 in the paper).
        layout: "interleaved" (sin, cos, sin, cos, ...; the paper) or "concat" (sines then cosines).
        dtype: "float32" (as models compute it) or "float64" (exact, for checking by hand).

    Returns:
        Array of shape (num_positions, dim).
    """
    n = as_int("num_positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    check_size(n * as_even_dim("dim", dim), "The sinusoidal table")
    return sinusoidal_at(np.arange(n), dim, base, layout, dtype=dtype, backend=backend, device=device)


def sinusoidal_shift_matrix(dim, offset, base=10000.0, layout="interleaved") -> np.ndarray:
    """The (dim, dim) matrix M with PE(p + offset) = M @ PE(p) for every position p.

    Each (sin, cos) pair at frequency omega is rotated by offset * omega, because
    sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b.
    M depends on the offset only, never on p: that is what lets attention read relative offsets.
    """
    layout = as_choice("layout", layout, LAYOUTS)
    omega = sinusoidal_frequencies(dim, base)  # (d/2,)
    half = omega.shape[0]
    c, s = np.cos(offset * omega), np.sin(offset * omega)
    sin_idx = np.arange(0, 2 * half, 2) if layout == "interleaved" else np.arange(half)
    cos_idx = sin_idx + 1 if layout == "interleaved" else sin_idx + half
    m = np.zeros((2 * half, 2 * half))
    m[sin_idx, sin_idx], m[sin_idx, cos_idx] = c, s
    m[cos_idx, sin_idx], m[cos_idx, cos_idx] = -s, c
    return m


def _sinusoidal64(positions, dim, base, layout) -> np.ndarray:
    """The same table in float64, for exact checks of identities."""
    layout = as_choice("layout", layout, LAYOUTS)
    omega = sinusoidal_frequencies(dim, base)
    angles = np.multiply.outer(np.asarray(positions, dtype=np.float64), omega)  # (n, d/2)
    sin, cos = np.sin(angles), np.cos(angles)
    if layout == "interleaved":
        return np.stack([sin, cos], axis=-1).reshape(angles.shape[0], -1)
    return np.concatenate([sin, cos], axis=1)


def sinusoidal_entry(position, column, dim, base=10000.0, layout="interleaved") -> dict:
    """Everything that goes into one cell PE(position, column): pair index, frequency, angle, value."""
    dim = as_even_dim("dim", dim)
    column = as_int("column", column, minimum=0, maximum=dim - 1)
    layout = as_choice("layout", layout, LAYOUTS)
    half = dim // 2
    pair, is_cos = (column // 2, column % 2 == 1) if layout == "interleaved" else (column % half, column >= half)
    omega = float(sinusoidal_frequencies(dim, base)[pair])
    angle = float(position) * omega
    return {"pair": pair, "function": "cos" if is_cos else "sin", "omega": omega, "angle": angle,
            "wavelength": 2 * np.pi / omega, "value": float(np.cos(angle) if is_cos else np.sin(angle))}


def sinusoidal_shift_error(num_positions, dim, offset, base=10000.0, layout="interleaved") -> float:
    """max over p < num_positions of |M_offset PE(p) - PE(p + offset)|, computed in float64."""
    n = as_int("num_positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    dim = as_even_dim("dim", dim)
    check_size(n * dim, "The shift check")
    layout = as_choice("layout", layout, LAYOUTS)
    positions = np.arange(n, dtype=np.float64)
    moved = _sinusoidal64(positions, dim, base, layout) @ sinusoidal_shift_matrix(dim, offset, base, layout).T
    return float(np.abs(moved - _sinusoidal64(positions + offset, dim, base, layout)).max())
