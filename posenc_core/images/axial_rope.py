"""Axial 2D RoPE on a grid of patches: the first half of each query and key turned by the patch's row, the second
half by its column, against 1D RoPE on the flattened index (the 2D RoPE tab of lessons/images/patches)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from .._backend import require_torch, to_numpy
from .._checks import MAX_POSITIONS, as_choice, as_even_dim, as_int, check_size
from .._types import ArrayOrTensor
from ..rope import ROPE_LAYOUTS, apply_rope
from ..rope.frequencies import rope_inv_freq
from ..rope.rotation import _is_torch
from .patch_grid import MAX_GRID

__all__ = ["AXIAL_QK", "RelativeCheck", "RopeNeighbour", "RopeScoreMaps", "rope_2d_axial", "rope_2d_relative_check",
           "rope_2d_score_maps"]

AXIAL_QK = ("ones", "random")


@dataclass(frozen=True)
class RopeNeighbour:
    """A neighbour of the query patch on the two RoPE score maps.

    label: where it sits from the query ("below" / "above" for the vertical one, "right" / "left" across).
    row, col: its patch on the grid.
    axial, flat: its score under axial 2D RoPE and under 1D RoPE of the raster index (float).
    raster_distance: how many raster numbers it is from the query (int).
    """

    label: Literal["below", "above", "right", "left"]
    row: int
    col: int
    axial: float
    flat: float
    raster_distance: int


@dataclass(frozen=True)
class RopeScoreMaps:
    """One query patch's RoPE score with every patch of the grid (``rope_2d_score_maps``).

    axial, flat: (grid_h, grid_w) float64 score maps, axial 2D RoPE and 1D RoPE of the raster index.
    query_index: the query's raster index r * grid_w + c.
    half: d/2, the size of each axis's half; frequencies: d/4, the frequencies per axis.
    vertical, horizontal: the nearest patch below (above on the last row) and to the right (left on the last
        column), or None when the grid has a single row / column.
    """

    axial: np.ndarray
    flat: np.ndarray
    query_index: int
    half: int
    frequencies: int
    vertical: RopeNeighbour | None
    horizontal: RopeNeighbour | None


@dataclass(frozen=True)
class RelativeCheck:
    """How far every patch-pair score is from a function of the offset alone (``rope_2d_relative_check``).

    patches: h * w (the check covers patches x patches pairs).
    axial, flat: largest absolute deviation under axial 2D RoPE and under 1D RoPE of the raster index.
    scale: largest |score| (d for all-ones vectors), to read the deviations against.
    """

    patches: int
    axial: float
    flat: float
    scale: float


def _axial_head_dim(head_dim) -> int:
    d = as_even_dim("head_dim", head_dim, minimum=4)  # at least one rotation pair for the row, one for the column
    if d % 4:
        raise ValueError(f"head_dim must be a multiple of 4 for axial 2D RoPE: it is cut into a row half and a "
                         f"column half, and each half is made of pairs; got {d}.")
    return d


def _coordinates(name, values) -> np.ndarray:
    coords = np.asarray(to_numpy(values), dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(coords)) or np.abs(coords).max(initial=0.0) > MAX_POSITIONS:
        raise ValueError(f"{name} must be finite grid coordinates no larger than {MAX_POSITIONS:,} in size.")
    return coords


def rope_2d_axial(x: ArrayOrTensor, rows: ArrayLike, cols: ArrayLike, base: float = 10000.0, *, layout: str = "half",
                  backend: str | None = None, device: str | None = None) -> ArrayOrTensor:
    """Axial 2D RoPE: turn the first half of each vector by its patch's row, the second half by its column.

    This is the axial form of 2D RoPE (EVA-02; RoPE-Axial in "Rotary Position Embedding for Vision
    Transformer", Heo et al. 2024). Each half is an ordinary RoPE of size d/2, turned by ``apply_rope``
    with the frequencies of a d/2-dimensional head, theta_i = base^(-2i/(d/2)) for i < d/4. A score
    between two patches is then a row-RoPE score plus a column-RoPE score, so it depends only on
    (Δrow, Δcol).

    Convention: row (y) half first, as EVA-02 and the Qwen2-VL vision encoder in transformers do;
    RoPE-ViT's code puts the column (x) half first. Inside each half the pairs follow ``layout``:
    EVA-02 and RoPE-ViT pair neighbouring dimensions (``"interleaved"``), the Qwen2-VL vision encoder
    pairs dimension j with j + d/2 across the whole head. These choices are the same rotation up to a
    fixed permutation of the dimensions. Qwen2-VL's M-RoPE in the language model (``mrope_section`` in
    transformers) is a related but different split: it cuts the frequencies of one head into temporal,
    height and width sections, so each axis turns a band of the frequencies instead of a full set.

    Args:
        x: (..., n, head_dim) array or tensor; head_dim a multiple of 4.
        rows, cols: (n,) row (y) and column (x) coordinates of the n vectors.
        layout: pair layout inside each half, "half" or "interleaved" (as in ``apply_rope``).
        backend: "numpy" or "torch"; by default the type of x decides.

    Returns:
        The rotated x: same shape, type and dtype (torch tensors stay on their device).

    >>> import numpy as np
    >>> pc.rope_2d_axial(np.ones((4, 8)), [0, 0, 1, 1], [0, 1, 0, 1]).shape
    (4, 8)
    """
    layout = as_choice("layout", layout, ROPE_LAYOUTS)
    if not _is_torch(x):
        x = np.asarray(x)
    d = _axial_head_dim(x.shape[-1])
    rows, cols = _coordinates("rows", rows), _coordinates("cols", cols)
    if rows.shape != cols.shape or (x.ndim >= 2 and rows.shape[0] != x.shape[-2]):
        raise ValueError(f"rows and cols need one coordinate per vector: x has {x.shape[-2] if x.ndim >= 2 else 0} "
                         f"vectors, rows has {rows.shape[0]} and cols has {cols.shape[0]}.")
    inv_freq, _ = rope_inv_freq(d // 2, base)  # (d/4,): a d/2-dimensional RoPE for each axis
    by_row = apply_rope(x[..., : d // 2], rows, inv_freq, layout, backend=backend, device=device)  # (..., n, d/2)
    by_col = apply_rope(x[..., d // 2:], cols, inv_freq, layout, backend=backend, device=device)  # (..., n, d/2)
    if _is_torch(by_row):
        return require_torch().cat((by_row, by_col), dim=-1)
    return np.concatenate((by_row, by_col), axis=-1)


def _axial_setup(grid_h, grid_w, head_dim, vectors, seed):
    """Validated sizes, raster coordinates and the fixed q, k content shared by every patch."""
    h = as_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    d = _axial_head_dim(head_dim)
    check_size(h * w * d, "The rotated keys of the grid")
    vectors = as_choice("vectors", vectors, AXIAL_QK)
    if vectors == "ones":
        q, k = np.ones(d), np.ones(d)
    else:
        q = k = np.random.default_rng(as_int("seed", seed, minimum=0, maximum=2**32 - 1)).standard_normal(d)
    rows, cols = np.divmod(np.arange(h * w), w)  # raster order, (h*w,) each
    return h, w, d, rows, cols, q, k


def _score_with_all(q, k, query_pos, key_pos, rotate):
    """(rotate(q at query_pos)) . (rotate(k at each key_pos)); rotate(x, pos) turns (n, d) rows."""
    keys = rotate(np.tile(k, (len(key_pos[0]), 1)), *key_pos)  # (n, d)
    return keys @ rotate(q[None, :], *query_pos)[0]  # (n,)


def rope_2d_score_maps(grid_h: int, grid_w: int, head_dim: int, query_row: int, query_col: int, base: float = 10000.0,
                       *, vectors: str = "ones", seed: int = 0,
                       layout: str = "half") -> RopeScoreMaps:
    """One query patch's RoPE score with every patch of the grid: axial 2D RoPE against 1D RoPE on the
    raster index r * grid_w + c (the grid flattened row by row), with the same head_dim and base.

    Every patch holds the same content, so the maps show position alone. ``vectors="ones"`` makes q and k
    all ones: each pair then adds 2 cos(angle), so the map reads as "how close does RoPE think this patch
    is", the same for rows and columns. ``"random"`` uses one seeded standard-normal vector as both q and k
    (a query meeting its own content): pair i adds |z_i|^2 cos(angle), so the map still peaks at the query,
    but the content weighs the frequencies, and the row and column halves, unequally.

    Returns:
        A ``RopeScoreMaps``: both maps, the query's raster index, the half and frequency counts, and the
        vertical and horizontal neighbours (``RopeNeighbour``, or None on a single row / column).
    """
    h, w, d, rows, cols, q, k = _axial_setup(grid_h, grid_w, head_dim, vectors, seed)
    row, col = as_int("query_row", query_row), as_int("query_col", query_col)
    if not (0 <= row < h and 0 <= col < w):
        raise ValueError(f"The query patch (row {row}, column {col}) is outside the {h} x {w} grid: rows run "
                         f"from 0 to {h - 1} and columns from 0 to {w - 1}.")
    index = row * w + col
    inv_freq_1d, _ = rope_inv_freq(d, base)  # (d/2,)

    def axial_rotate(x, r, c):
        return rope_2d_axial(x, r, c, base, layout=layout)

    def flat_rotate(x, p):
        return apply_rope(x, p, inv_freq_1d, layout)

    axial = _score_with_all(q, k, ([row], [col]), (rows, cols), axial_rotate).reshape(h, w)
    flat = _score_with_all(q, k, ([index],), (rows * w + cols,), flat_rotate).reshape(h, w)

    def neighbour(dr, dc, label, other_label) -> RopeNeighbour | None:
        r, c = row + dr, col + dc
        if not (0 <= r < h and 0 <= c < w):
            r, c, label = row - dr, col - dc, other_label
        if not (0 <= r < h and 0 <= c < w):
            return None
        return RopeNeighbour(label, r, c, float(axial[r, c]), float(flat[r, c]), abs((r * w + c) - index))

    return RopeScoreMaps(axial, flat, index, d // 2, d // 4, neighbour(1, 0, "below", "above"),
                         neighbour(0, 1, "right", "left"))


def rope_2d_relative_check(grid_h: int, grid_w: int, head_dim: int, base: float = 10000.0, *, vectors: str = "ones",
                           seed: int = 0,
                           layout: str = "half") -> RelativeCheck:
    """How far each patch-pair score is from a function of the offset alone, over all (h*w)^2 pairs.

    For patches p and j the score (R_p q) . (R_j k) should equal q . (R_{j-p} k): the key turned by the
    offset alone, with the query left in place. For axial 2D RoPE the offset is (Δrow, Δcol); for 1D RoPE
    on the raster index it is Δindex = Δrow * grid_w + Δcol, also fixed by (Δrow, Δcol). So both are
    "relative" on the grid; what differs is which offsets they treat as close. What remains is
    float32 rounding of the angles, which the RoPE code shares with transformers.

    Returns:
        A ``RelativeCheck``: ``patches`` (h * w), the largest deviations ``axial`` and ``flat``, and ``scale``.
    """
    h, w, d, rows, cols, q, k = _axial_setup(grid_h, grid_w, head_dim, vectors, seed)
    n = h * w
    check_size(n * n, "The all-pairs check")
    inv_freq_1d, _ = rope_inv_freq(d, base)  # (d/2,)
    q_all, k_all = np.tile(q, (n, 1)), np.tile(k, (n, 1))  # (n, d) each
    axial = rope_2d_axial(q_all, rows, cols, base, layout=layout) @ rope_2d_axial(k_all, rows, cols, base,
                                                                                  layout=layout).T  # (n, n)
    index = np.arange(n)
    flat = apply_rope(q_all, index, inv_freq_1d, layout) @ apply_rope(k_all, index, inv_freq_1d, layout).T

    dr, dc = np.subtract.outer(rows, rows).T, np.subtract.outer(cols, cols).T  # [p, j] = coordinate of j - of p
    offsets_r, offsets_c = np.divmod(np.arange((2 * h - 1) * (2 * w - 1)), 2 * w - 1)
    by_offset = rope_2d_axial(np.tile(k, (offsets_r.size, 1)), offsets_r - (h - 1), offsets_c - (w - 1), base,
                              layout=layout) @ q  # ((2h-1)(2w-1),)
    axial_reference = by_offset[(dr + h - 1) * (2 * w - 1) + (dc + w - 1)]  # (n, n)
    shifts = np.arange(-(n - 1), n)
    flat_by_offset = apply_rope(np.tile(k, (shifts.size, 1)), shifts, inv_freq_1d, layout) @ q  # (2n-1,)
    flat_reference = flat_by_offset[np.subtract.outer(index, index).T + n - 1]  # (n, n)
    return RelativeCheck(n, float(np.abs(axial - axial_reference).max()), float(np.abs(flat - flat_reference).max()),
                         float(max(np.abs(axial).max(), np.abs(flat).max())))
