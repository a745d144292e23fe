"""The 2D sin-cos code of MAE / ViT: half of each patch's vector is a sine/cosine code of its column, half of its
row, and, for comparison, the 1D code of the flattened (raster) index (lessons/images/patches)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import to_backend
from .._checks import as_base, as_int, check_size
from .._types import ArrayOrTensor
from .patch_grid import MAX_GRID, GridNeighbours, grid_neighbours, patch_similarity_maps

__all__ = ["SincosLayout", "SincosNeighbours", "flattened_sincos", "sincos_2d", "sincos_2d_at", "sincos_layout",
           "sincos_neighbours"]


@dataclass(frozen=True)
class SincosNeighbours:
    """A patch's nearest neighbours under two codes (``sincos_neighbours``).

    grid: ``grid_neighbours`` of the patch's cosine-similarity map under the 2D sin-cos code.
    flat: the same under the 1D code of the flattened (raster) index.
    index: the patch's raster number r * grid_w + c.
    raster_step: how many raster numbers apart the patch and the one below it are (grid_w).
    """

    grid: GridNeighbours
    flat: GridNeighbours
    index: int
    raster_step: int


@dataclass(frozen=True)
class SincosLayout:
    """Where things sit in MAE's 2D sin-cos table (``sincos_layout``).

    patches: grid_h * grid_w rows, patches in raster order.
    column_channels, row_channels: (first, last) channel of the column half and of the row half.
    frequencies: d/4 per axis (each half is d/4 sines, then d/4 cosines).
    """

    patches: int
    column_channels: tuple[int, int]
    row_channels: tuple[int, int]
    frequencies: int


def _sincos_1d(dim: int, coords: np.ndarray, base: float) -> np.ndarray:
    """MAE's 1D helper: sines then cosines, omega_i = base^(-i/(dim/2)). (n,) -> (n, dim)."""
    # The frequencies of base_inv_freq(base, dim), in MAE's own op order (i / (dim/2), then 1 / pow), so the
    # table keeps MAE's bits.
    omega = 1.0 / base ** (np.arange(dim // 2, dtype=np.float64) / (dim / 2.0))  # (dim/2,)
    angles = np.multiply.outer(coords.reshape(-1).astype(np.float64), omega)  # (n, dim/2)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def sincos_2d(grid_h: int, grid_w: int, dim: int, base: float = 10000.0, *, backend: str = "numpy",
              device: str | None = None) -> ArrayOrTensor:
    """2D sin-cos position embedding in MAE's convention.

    Patches are in raster order (row by row). The first dim/2 channels encode the column
    coordinate and the last dim/2 the row coordinate; each half is sines then cosines.

    Returns:
        Array of shape (grid_h * grid_w, dim), float32.

    >>> pc.sincos_2d(2, 2, 8).shape
    (4, 8)
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


def sincos_2d_at(rows: ArrayLike, cols: ArrayLike, dim: int, base: float = 10000.0) -> np.ndarray:
    """MAE's 2D sin-cos at arbitrary (fractional) grid coordinates.

    Args:
        rows, cols: 1D arrays of row and column coordinates; the grid is every (row, col) pair, in
            raster order (rows outer).
    Returns:
        (len(rows) * len(cols), dim) float64; for integer 0..h-1, 0..w-1 it equals ``sincos_2d``.
    """
    r = np.asarray(rows, dtype=np.float64).reshape(-1)
    c = np.asarray(cols, dtype=np.float64).reshape(-1)
    dim = as_int("dim", dim, minimum=4, maximum=16384)
    if dim % 4:
        raise ValueError(f"dim must be a multiple of 4 (two axes, each with sin and cos halves); got {dim}.")
    base = as_base(base)
    check_size(r.size * c.size * dim, "The 2D embedding")
    rr, cc = np.meshgrid(r, c, indexing="ij")  # (h, w) each
    return np.concatenate([_sincos_1d(dim // 2, cc, base), _sincos_1d(dim // 2, rr, base)], axis=1)


def flattened_sincos(grid_h: int, grid_w: int, dim: int, base: float = 10000.0) -> np.ndarray:
    """A 1D sin-cos code of each patch's raster index r * grid_w + c, with the same helper and dim as
    ``sincos_2d``: the only difference is that the grid was flattened first. Shape (h * w, dim), float32."""
    h = as_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    dim = as_int("dim", dim, minimum=4, maximum=16384)
    if dim % 2:
        raise ValueError(f"dim must be even (sine and cosine halves); got {dim}.")
    base = as_base(base)
    check_size(h * w * dim, "The flattened embedding")
    return _sincos_1d(dim, np.arange(h * w), base).astype(np.float32)


def sincos_neighbours(grid_h: int, grid_w: int, dim: int, base: float, row: int, col: int) -> SincosNeighbours:
    """Cosine similarity of patch (row, col) to its nearest neighbours under the 2D sin-cos code and under
    the 1D code of the flattened index: what the lesson's questions compare and its formulas print.

    Returns:
        A ``SincosNeighbours``: ``grid`` (2D code) and ``flat`` (1D code), each the ``grid_neighbours`` of that
        code's similarity map of the patch, ``index`` (r * grid_w + c) and ``raster_step`` (grid_w).
    """
    h = as_int("grid_h", grid_h, minimum=2, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=2, maximum=MAX_GRID)
    row = as_int("row", row, minimum=0, maximum=h - 1)
    col = as_int("col", col, minimum=0, maximum=w - 1)
    patch = row * w + col
    grid = patch_similarity_maps(sincos_2d(h, w, dim, base), h, w, "cosine")[patch]  # (h, w)
    flat = patch_similarity_maps(flattened_sincos(h, w, dim, base), h, w, "cosine")[patch]  # (h, w)
    return SincosNeighbours(grid_neighbours(grid, row, col), grid_neighbours(flat, row, col), patch, w)


def sincos_layout(grid_h: int, grid_w: int, dim: int) -> SincosLayout:
    """Where things sit in MAE's 2D sin-cos table: its rows (patches in raster order) and its channels.

    Returns:
        A ``SincosLayout``: ``patches``, ``column_channels``, ``row_channels`` and ``frequencies``.
    """
    h = as_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    dim = as_int("dim", dim, minimum=4, maximum=16384)
    if dim % 4:
        raise ValueError(f"dim must be a multiple of 4 (two axes, each with sin and cos halves); got {dim}.")
    return SincosLayout(h * w, (0, dim // 2 - 1), (dim // 2, dim - 1), dim // 4)
