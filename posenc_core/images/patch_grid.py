"""A grid of image patches: similarity maps of every patch's code with every other, a learned-like stand-in for
trained ViT position embeddings, and the neighbours of a patch that the lessons compare."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from .._backend import to_numpy
from .._checks import as_choice, as_float, as_int, check_size
from .._types import ArrayOrTensor

__all__ = ["GridCell", "GridNeighbours", "grid_neighbours", "learned_like_grid", "patch_similarity_maps"]

MAX_GRID = 4096


@dataclass(frozen=True)
class GridCell:
    """One neighbour of a query patch on a map over the grid.

    label: where it sits from the query: "right" / "left" (across), "below" / "above" (vertical) or "diagonal".
    cell: its (row, col).
    value: the map there (float).
    """

    label: Literal["right", "left", "below", "above", "diagonal"]
    cell: tuple[int, int]
    value: float


@dataclass(frozen=True)
class GridNeighbours:
    """A map's values at a query patch and at its nearest neighbours (``grid_neighbours``).

    query: the map at the query (float).
    side, vertical, diagonal: the neighbour straight across, straight down (up on the last row) and diagonally.
    """

    query: float
    side: GridCell
    vertical: GridCell
    diagonal: GridCell


def learned_like_grid(grid_h: int, grid_w: int, dim: int, seed: int = 0, smoothness: float = 1.5) -> np.ndarray:
    """A seeded stand-in for a trained ViT's position embeddings: smooth random fields on the grid.

    Each channel is white noise blurred with a Gaussian of ``smoothness`` patches (separable, edges
    renormalised) and scaled to unit standard deviation, so neighbouring patches get similar vectors,
    as they do in trained ViTs, without any sine structure.

    Returns:
        (grid_h * grid_w, dim) float32, raster order.
    """
    h = as_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    dim = as_int("dim", dim, minimum=1, maximum=16384)
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    smoothness = as_float("smoothness", smoothness, minimum=0.0, maximum=64.0)
    check_size(h * w * dim, "The learned-like grid")
    noise = np.random.default_rng(seed).standard_normal((h, w, dim))

    def blur(n: int) -> np.ndarray:  # (n, n) row-normalised Gaussian weights
        if smoothness == 0:
            return np.eye(n)
        d = np.subtract.outer(np.arange(n), np.arange(n))
        k = np.exp(-0.5 * (d / smoothness) ** 2)
        return k / k.sum(axis=1, keepdims=True)

    field = np.einsum("ri,ijc->rjc", blur(h), noise)  # blur along rows: (h, w, dim)
    field = np.einsum("jk,rkc->rjc", blur(w), field)  # blur columns
    field = (field - field.mean(axis=(0, 1))) / np.maximum(field.std(axis=(0, 1)), 1e-12)
    return field.reshape(h * w, dim).astype(np.float32)


def patch_similarity_maps(table: ArrayOrTensor, grid_h: int, grid_w: int, metric: str = "cosine",
                          num_prefix_tokens: int = 0) -> np.ndarray:
    """For every patch, its similarity to every patch, laid out on the grid.

    Args:
        table: (num_prefix_tokens + grid_h * grid_w, C) embeddings in raster order; prefix rows
            ([CLS] and the like) are skipped.
        metric: "cosine" (as in the ViT paper's figure) or "dot".
    Returns:
        (grid_h * grid_w, grid_h, grid_w) float32: maps[q] is patch q's similarity map.
    """
    h = as_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=64)
    metric = as_choice("metric", metric, ("dot", "cosine"))
    rows = np.asarray(to_numpy(table), dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] != prefix + h * w:
        raise ValueError(f"The table must have {prefix} prefix rows plus {h} x {w} = {h * w} patch rows, "
                         f"but has shape {rows.shape}.")
    check_size((h * w) ** 2, "The similarity maps")
    patches = unit_rows(rows[prefix:]) if metric == "cosine" else rows[prefix:]
    return (patches @ patches.T).reshape(h * w, h, w).astype(np.float32)


def unit_rows(rows: np.ndarray) -> np.ndarray:
    """Each row divided by its length (an all-zero row stays zero): the rows cosine similarities are dot products of."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)  # (n, 1)
    return rows / np.where(norms == 0, 1, norms)


def grid_neighbours(grid_map: ArrayLike, row: int, col: int) -> GridNeighbours:
    """The values of a map over the patch grid at the query's nearest neighbours: straight across, straight
    down and diagonally, each on the far side (left, above) where the query sits on the last column or row.

    Args:
        grid_map: (grid_h, grid_w) values, e.g. one patch's similarity map (``patch_similarity_maps(...)[q]``).
        row, col: the query patch.
    Returns:
        A ``GridNeighbours``: ``query`` (the map at the query) and ``side``, ``vertical``, ``diagonal``, each a
        ``GridCell`` (label, cell, value).
    """
    values = np.asarray(to_numpy(grid_map), dtype=np.float64)
    if values.ndim != 2 or min(values.shape) < 2:
        raise ValueError(f"A neighbour needs a grid of at least 2 x 2 patches; the map has shape {values.shape}.")
    h, w = values.shape
    row = as_int("row", row, minimum=0, maximum=h - 1)
    col = as_int("col", col, minimum=0, maximum=w - 1)
    dr, dc = (1 if row + 1 < h else -1), (1 if col + 1 < w else -1)  # a neighbour that exists, even at an edge

    def at(r: int, c: int, label) -> GridCell:
        return GridCell(label, (r, c), float(values[r, c]))

    return GridNeighbours(float(values[row, col]), at(row, col + dc, "right" if dc > 0 else "left"),
                          at(row + dr, col, "below" if dr > 0 else "above"), at(row + dr, col + dc, "diagonal"))
