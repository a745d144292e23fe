"""Positions on an image grid: the 2D sin-cos embedding of MAE / ViT."""

from __future__ import annotations

import numpy as np

from ._backend import to_backend
from ._checks import as_base, as_int, check_size

__all__ = [
    "sincos_2d",
]



def _sincos_1d(dim: int, coords: np.ndarray, base: float) -> np.ndarray:
    """MAE's 1D helper: sines then cosines, omega_i = base^(-i/(dim/2)). (n,) -> (n, dim)."""
    omega = 1.0 / base ** (np.arange(dim // 2, dtype=np.float64) / (dim / 2.0))  # (dim/2,)
    angles = np.multiply.outer(coords.reshape(-1).astype(np.float64), omega)  # (n, dim/2)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def sincos_2d(grid_h, grid_w, dim, base=10000.0, *, backend="numpy", device=None):
    """2D sin-cos position embedding in MAE's convention.

    Patches are in raster order (row by row). The first dim/2 channels encode the column
    coordinate and the last dim/2 the row coordinate; each half is sines then cosines.

    Returns:
        Array of shape (grid_h * grid_w, dim), float32.
    """
    h = as_int("grid_h", grid_h, minimum=1, maximum=4096)
    w = as_int("grid_w", grid_w, minimum=1, maximum=4096)
    dim = as_int("dim", dim, minimum=4, maximum=16384)
    if dim % 4:
        raise ValueError(f"dim must be a multiple of 4 (two axes, each with sin and cos halves); got {dim}.")
    base = as_base(base)
    check_size(h * w * dim, "The 2D embedding")
    rows, cols = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")  # (h, w) each
    table = np.concatenate([_sincos_1d(dim // 2, cols, base), _sincos_1d(dim // 2, rows, base)], axis=1)
    return to_backend(table.astype(np.float32), backend, device)
