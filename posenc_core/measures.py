"""Measurements on position tables and score grids, shared by several lessons."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._backend import keeps_kind, to_numpy
from ._checks import as_choice, as_int, check_size
from ._types import ArrayOrTensor

__all__ = [
    "DiagonalCells",
    "similarity_matrix",
    "diagonal_cells",
    "toeplitz_deviation",
]


@keeps_kind
def similarity_matrix(table: ArrayOrTensor, metric: str = "dot") -> ArrayOrTensor:
    """Pairwise similarity of the rows of a (n, d) table: "dot" or "cosine". Shape (n, n), float32."""
    metric = as_choice("metric", metric, ("dot", "cosine"))
    rows: np.ndarray = np.asarray(to_numpy(table), dtype=np.float32)
    if rows.ndim != 2:
        raise ValueError(f"A position table must be 2D (positions x channels), but has shape {rows.shape}.")
    check_size(rows.shape[0] ** 2, "The similarity matrix")
    if metric == "cosine":
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        rows = rows / np.where(norms == 0, 1, norms)
    return rows @ rows.T


@dataclass(frozen=True)
class DiagonalCells:
    """The cells of one diagonal of a matrix (``diagonal_cells``).

    count: how many cells the diagonal holds, int. min, max: their smallest and largest value, float64.
    """

    count: int
    min: float
    max: float


def diagonal_cells(matrix: ArrayLike, offset: int) -> DiagonalCells:
    """The cells of a query x key matrix with m - n = ``offset`` (row minus column): their count and range."""
    m = np.asarray(to_numpy(matrix), dtype=np.float64)
    if m.ndim != 2:
        raise ValueError("diagonal_cells needs a 2D matrix.")
    offset = as_int("offset", offset)
    if not -(m.shape[1] - 1) <= offset <= m.shape[0] - 1:
        raise ValueError(f"The diagonal m - n = {offset} lies outside a {m.shape[0]} x {m.shape[1]} matrix.")
    cells = np.diagonal(m, offset=-offset)  # numpy's offset is column minus row
    return DiagonalCells(count=int(cells.size), min=float(cells.min()), max=float(cells.max()))


def toeplitz_deviation(matrix: ArrayLike) -> float:
    """Largest spread (max - min) along any diagonal: 0 when the matrix depends only on i - j.

    Non-finite entries are left out; a diagonal with no finite entry has no spread.
    """
    m = to_numpy(matrix)
    m = np.asarray(m, dtype=m.dtype if np.issubdtype(np.asarray(m).dtype, np.floating) else np.float64)
    if m.ndim != 2:
        raise ValueError("toeplitz_deviation needs a 2D matrix.")
    if m.shape[0] > m.shape[1]:  # walk the shorter side: a transpose has the same diagonals
        m = m.T
    rows, cols = m.shape
    # Row i holds diagonals j - i = -i .. cols - 1 - i; diagonal j - i sits at index j - i + rows - 1 below.
    # A loop over rows with whole-row fmax / fmin, not over the rows + cols - 1 diagonals: 2048 x 2048 in about
    # a sixth of the time. fmax and fmin skip NaN; max and min pick entries, so the spreads are the same bits.
    high = np.full(rows + cols - 1, -np.inf, dtype=m.dtype)  # (rows + cols - 1,) per diagonal
    low = np.full(rows + cols - 1, np.inf, dtype=m.dtype)  # (rows + cols - 1,)
    all_finite = bool(np.isfinite(m).all())
    for i in range(rows):
        row = m[i] if all_finite else np.where(np.isfinite(m[i]), m[i], np.nan)  # (cols,) infinities left out
        lo, hi = rows - 1 - i, rows - 1 - i + cols
        np.fmax(high[lo:hi], row, out=high[lo:hi])
        np.fmin(low[lo:hi], row, out=low[lo:hi])
    spread = high.astype(np.float64) - low.astype(np.float64)  # (rows + cols - 1,) -inf where no entry is finite
    return max(0.0, float(spread.max()))
