"""Measurements on position tables and score grids, shared by several lessons."""

from __future__ import annotations

import numpy as np

from ._backend import to_numpy
from ._checks import as_choice, check_size

__all__ = [
    "similarity_matrix",
    "diagonal_cells",
    "toeplitz_deviation",
]



def similarity_matrix(table, metric="dot") -> np.ndarray:
    """Pairwise similarity of the rows of a (n, d) table: "dot" or "cosine". Shape (n, n), float32."""
    metric = as_choice("metric", metric, ("dot", "cosine"))
    rows = np.asarray(to_numpy(table), dtype=np.float32)
    if rows.ndim != 2:
        raise ValueError(f"A position table must be 2D (positions x channels), but has shape {rows.shape}.")
    check_size(rows.shape[0] ** 2, "The similarity matrix")
    if metric == "cosine":
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        rows = rows / np.where(norms == 0, 1, norms)
    return rows @ rows.T


def diagonal_cells(matrix, offset: int) -> dict:
    """The cells of a query x key matrix with m - n = ``offset`` (row minus column): their count and range."""
    m = np.asarray(to_numpy(matrix), dtype=np.float64)
    if m.ndim != 2:
        raise ValueError("diagonal_cells needs a 2D matrix.")
    if not -(m.shape[1] - 1) <= int(offset) <= m.shape[0] - 1:
        raise ValueError(f"The diagonal m - n = {offset} lies outside a {m.shape[0]} x {m.shape[1]} matrix.")
    cells = np.diagonal(m, offset=-int(offset))  # numpy's offset is column minus row
    return {"count": int(cells.size), "min": float(cells.min()), "max": float(cells.max())}


def toeplitz_deviation(matrix) -> float:
    """Largest spread (max - min) along any diagonal: 0 when the matrix depends only on i - j."""
    m = np.asarray(to_numpy(matrix), dtype=np.float64)
    if m.ndim != 2:
        raise ValueError("toeplitz_deviation needs a 2D matrix.")
    finite = np.where(np.isfinite(m), m, np.nan)
    worst = 0.0
    for k in range(-m.shape[0] + 1, m.shape[1]):
        diag = np.diagonal(finite, offset=k)
        diag = diag[~np.isnan(diag)]
        if diag.size > 1:
            worst = max(worst, float(diag.max() - diag.min()))
    return worst
