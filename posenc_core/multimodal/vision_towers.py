"""The 2D RoPE inside the vision towers, with each model's real head size, theta and dimension layout.

Both towers here are axial (the row turns one half of the pairs, the column the other, at the same
frequencies θ_i = θ^(-4i/d), i < d/4) and differ in where the halves sit:

* Qwen2-VL / Qwen2.5-VL / Qwen3-VL / GLM-4V (``Qwen2VLVisionRotaryEmbedding``): cos = [h, w, h, w] and
  rotate_half over the whole head, so pair j (dimensions j and j + d/2) is turned by the row for
  j < d/4 and by the column after. θ = 10,000.
* Gemma 4 (``Gemma4VisionRotaryEmbedding`` + ``apply_multidimensional_rope``): cos = [x, x, y, y] and
  each half rotated on its own, so the first half of the head is a whole RoPE of the patch's column x
  and the second half one of its row y (the code calls them h and w, but ``pixel_position_ids`` holds
  (x, y)). θ = 100. Gemma 4 also adds a learned table per axis (x row + y row) to the patch embeddings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from .._backend import require_torch, torch_installed
from .._checks import as_base, as_choice, as_int, check_size
from .._types import ArrayOrTensor
from ..images.patch_grid import learned_like_grid, patch_similarity_maps, unit_rows
from ..rope import rope_inv_freq_float32_pow
from ._blocks import padded_rows

__all__ = ["VISION_TOWERS", "TowerWavelengths", "VisionFarScore", "VisionTower", "WavelengthSummary",
           "factorized_learned_table", "vision_dimension_axes", "vision_far_score",
           "vision_layout_table", "vision_rope_cos_sin", "vision_tower_score_map", "vision_wavelength_summary",
           "vision_wavelength_table", "vision_wavelengths"]


@dataclass(frozen=True)
class VisionTower:
    """One vision tower's 2D rotary.

    key: its key in ``VISION_TOWERS``.
    head_dim: dimensions per head; theta: the rotary base.
    layout: "hwhw", Qwen-style [h, w, h, w] over the head, or "xxyy", Gemma 4's [x, x, y, y] with the halves apart.
    """

    key: str
    head_dim: int
    theta: float
    layout: Literal["hwhw", "xxyy"]


# head_dim and theta from each model's vision config and rotary module (the lessons' words cite them):
# Qwen2-VL embed_dim 1280 / 16 heads, Qwen3-VL hidden_size 1152 / 16 heads, GLM-4.1V hidden_size 1536 / 12 heads,
# each theta 10,000; Gemma4VisionConfig head_dim 64, rope theta 100 (default_theta)
VISION_TOWERS = {
    "qwen2_vl": VisionTower("qwen2_vl", 80, 10_000.0, "hwhw"),
    "qwen3_vl": VisionTower("qwen3_vl", 72, 10_000.0, "hwhw"),
    "glm4v": VisionTower("glm4v", 128, 10_000.0, "hwhw"),
    "gemma4": VisionTower("gemma4", 64, 100.0, "xxyy"),
}


@dataclass(frozen=True)
class VisionFarScore:
    """A patch along the query's row and its relative score (``vision_far_score``).

    col: the far patch's column; distance: columns from the query.
    score: ``vision_tower_score_map(..., relative=True)`` there (1: scored like the query itself).
    """

    col: int
    distance: int
    score: float


@dataclass(frozen=True)
class TowerWavelengths:
    """One tower's wavelengths against an image (in ``WavelengthSummary``).

    shortest, longest: its shortest and longest wavelength, in patches.
    frequencies: how many frequencies an axis has (d/4).
    over_four_sides: how many have a wavelength over four times the image's longer side.
    """

    shortest: float
    longest: float
    frequencies: int
    over_four_sides: int


@dataclass(frozen=True)
class WavelengthSummary:
    """What the wavelength chart says in numbers (``vision_wavelength_summary``).

    side: the grid's longer side, in patches.
    towers: {tower key: its ``TowerWavelengths``}.
    """

    side: int
    towers: dict[str, TowerWavelengths]


def _tower(key) -> VisionTower:
    return VISION_TOWERS[as_choice("tower", key, tuple(VISION_TOWERS))]


def vision_rope_cos_sin(key: str, rows: ArrayLike, cols: ArrayLike, *, head_dim: int | None = None,
                        theta: float | None = None, backend: str | None = None) -> tuple[ArrayOrTensor, ArrayOrTensor]:
    """cos, sin of shape (n, head_dim) float32 for patches at (rows, cols), laid out as the tower's code does."""
    tower = _tower(key)
    d = as_int("head_dim", tower.head_dim if head_dim is None else head_dim, minimum=4, maximum=1024)
    if d % 4:
        raise ValueError(f"A 2D rotary head needs a multiple of 4 dimensions (two axes of pairs); got {d}.")
    theta = as_base(tower.theta if theta is None else theta)
    rows, cols = np.asarray(rows, dtype=np.float32).ravel(), np.asarray(cols, dtype=np.float32).ravel()
    check_size(rows.size * d * 2, "The vision cos/sin table")
    inv_freq = rope_inv_freq_float32_pow(d // 2, theta)  # (d/4,): spatial_dim = d/2 in the models
    first, second = (rows, cols) if tower.layout == "hwhw" else (cols, rows)  # Gemma: position_ids are (x, y)
    coords = np.stack([first, second], axis=-1)  # (n, 2)
    if (backend or ("torch" if torch_installed() else "numpy")) == "torch":
        torch = require_torch()
        freqs = torch.from_numpy(coords)[..., None] * torch.from_numpy(inv_freq)  # (n, 2, d/4)
        cos2, sin2 = freqs.cos().numpy(), freqs.sin().numpy()
    else:
        freqs = coords[..., None] * inv_freq
        cos2, sin2 = np.cos(freqs), np.sin(freqs)

    def arrange(f):  # (n, 2, d/4) -> (n, d)
        a, b = f[:, 0], f[:, 1]
        return np.concatenate([a, b, a, b] if tower.layout == "hwhw" else [a, a, b, b], axis=-1)
    return arrange(cos2), arrange(sin2)


def _rotate_tower(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, layout: str) -> np.ndarray:
    def rotate_half(v):
        half = v.shape[-1] // 2
        return np.concatenate([-v[..., half:], v[..., :half]], axis=-1)
    if layout == "hwhw":
        return x * cos + rotate_half(x) * sin
    half = x.shape[-1] // 2  # Gemma 4: each half is its own RoPE
    return np.concatenate([x[..., :half] * cos[..., :half] + rotate_half(x[..., :half]) * sin[..., :half],
                           x[..., half:] * cos[..., half:] + rotate_half(x[..., half:]) * sin[..., half:]], axis=-1)


def vision_tower_score_map(key: str, grid_h: int, grid_w: int, row: int, col: int, *, head_dim: int | None = None,
                           theta: float | None = None, vectors: str = "ones", seed: int = 0,
                           relative: bool = False) -> np.ndarray:
    """Score of a query patch with every patch of an h x w grid under the tower's rotary, same content everywhere.

    Returns (grid_h, grid_w) float64; with ``relative`` divided by the query's score with itself (1 at the query).
    """
    tower = _tower(key)
    h = as_int("grid_h", grid_h, minimum=1, maximum=256)
    w = as_int("grid_w", grid_w, minimum=1, maximum=256)
    row = as_int("row", row, minimum=0, maximum=h - 1)
    col = as_int("col", col, minimum=0, maximum=w - 1)
    vectors = as_choice("vectors", vectors, ("ones", "random"))
    # Each dimension turns with the row or with the column only, and the content is the same everywhere, so
    # a rotated dimension is a function of one coordinate: rotate one column of patches and one row of them
    # (h + w patches, not h·w) and lay them out; every value is the same elementwise arithmetic as rotating every patch.
    down = vision_rope_cos_sin(key, np.arange(h), np.zeros(h), head_dim=head_dim, theta=theta, backend="numpy")
    d = down[0].shape[-1]
    check_size(h * w * d * 2, "The vision cos/sin table")  # the whole grid's table, as the map once built it
    across = vision_rope_cos_sin(key, np.zeros(w), np.arange(w), head_dim=d, theta=theta, backend="numpy")
    content = np.ones(d) if vectors == "ones" else np.random.default_rng(seed).standard_normal(d)

    def rotate(cos_sin):  # (n, d) float32 cos, sin -> (n, d) float64 rotated content
        cos, sin = cos_sin
        return _rotate_tower(np.broadcast_to(content, cos.shape), cos.astype(np.float64), sin.astype(np.float64),
                             tower.layout)
    by_col = _axes(tower.layout, d) == 1  # (d,)
    rotated = np.empty((h, w, d))  # (h, w, d)
    rotated[:, :, ~by_col] = rotate(down)[:, None, ~by_col]
    rotated[:, :, by_col] = rotate(across)[None, :, by_col]
    flat = rotated.reshape(h * w, d)  # (h·w, d)
    scores = (flat @ flat[row * w + col]).reshape(h, w)
    return scores / scores[row, col] if relative else scores


def factorized_learned_table(grid_h: int, grid_w: int, dim: int, seed: int = 0, *,
                             query: tuple[int, int] | None = None) -> np.ndarray:
    """A learned-like 2D table built as Gemma 4 builds its own: a row of an x table plus a row of a y table.

    Each 1D table is a seeded smooth random field (``learned_like_grid``), standing in for trained
    weights. Returns its (grid_h, grid_w, grid_h, grid_w) cosine-similarity maps, or with ``query=(row, col)``
    that patch's map alone, (grid_h, grid_w): the same cosines from one matrix-vector product instead of all
    (h·w)² (a 48 x 48 grid's maps are 5.3 M values; a page shows one map).
    """
    h = as_int("grid_h", grid_h, minimum=1, maximum=256)
    w = as_int("grid_w", grid_w, minimum=1, maximum=256)
    x_table = learned_like_grid(1, w, dim, seed=seed)  # (w, dim)
    y_table = learned_like_grid(h, 1, dim, seed=seed + 1)  # (h, dim)
    table = (y_table[:, None, :] + x_table[None, :, :]).reshape(h * w, dim)  # (h·w, dim)
    if query is None:
        return patch_similarity_maps(table, h, w, "cosine")
    row = as_int("query row", query[0], minimum=0, maximum=h - 1)
    col = as_int("query column", query[1], minimum=0, maximum=w - 1)
    rows = unit_rows(np.asarray(table, dtype=np.float64))  # (h·w, dim) as patch_similarity_maps' cosine
    return (rows @ rows[row * w + col]).reshape(h, w).astype(np.float32)  # (h, w)


def vision_dimension_axes(key: str) -> np.ndarray:
    """For each dimension of a head: 0 if the patch's row turns it, 1 if its column does. Shape (head_dim,)."""
    tower = _tower(key)
    return _axes(tower.layout, tower.head_dim)


def _axes(layout: str, head_dim: int) -> np.ndarray:
    blocks = [0, 1, 0, 1] if layout == "hwhw" else [1, 1, 0, 0]  # Gemma 4: x (column) first
    return np.repeat(np.array(blocks, dtype=np.int8), head_dim // 4)  # (head_dim,)


def vision_wavelengths(key: str, theta: float | None = None) -> np.ndarray:
    """Wavelength 2π/θ_i in patches of each of the d/4 frequencies an axis turns at. Shape (head_dim / 4,)."""
    tower = _tower(key)
    theta = as_base(tower.theta if theta is None else theta)
    return 2 * np.pi / rope_inv_freq_float32_pow(tower.head_dim // 2, theta).astype(np.float64)


def vision_layout_table(keys: Sequence[str]) -> np.ndarray:
    """``vision_dimension_axes`` of several towers, one row each, NaN past a tower's head_dim. (towers, max d)."""
    return padded_rows([vision_dimension_axes(k) for k in keys])


def vision_wavelength_table(keys: Sequence[str]) -> np.ndarray:
    """``vision_wavelengths`` of several towers, one row each, NaN past a tower's d/4. (towers, max d/4)."""
    return padded_rows([vision_wavelengths(k) for k in keys])


def vision_far_score(key: str, grid_h: int, grid_w: int, row: int, col: int, *, reach: int = 16,
                     theta: float | None = None) -> VisionFarScore:
    """The relative score of the patch ``reach`` columns along the query's row (fewer at the grid's edge;
    to the left when the query is on the last column), same content everywhere, under tower ``key``'s
    rotary with its own θ or ``theta``.

    Returns:
        A ``VisionFarScore``: ``col`` (the far patch's column), ``distance`` (columns from the query) and ``score``
        (``vision_tower_score_map(..., relative=True)`` there: 1 means scored like the query itself).
    """
    w = as_int("grid_w", grid_w, minimum=2, maximum=256)
    col = as_int("col", col, minimum=0, maximum=w - 1)
    reach = as_int("reach", reach, minimum=1, maximum=256)
    far = min(w - 1, col + reach) if col < w - 1 else max(0, col - reach)
    scores = vision_tower_score_map(key, grid_h, w, row, col, theta=theta, relative=True)  # (h, w)
    return VisionFarScore(far, abs(far - col), float(scores[row, far]))


def vision_wavelength_summary(keys: Sequence[str], grid_h: int, grid_w: int) -> WavelengthSummary:
    """What the wavelength chart says in numbers: the grid's longer side, and per tower its shortest and longest
    wavelength in patches, how many frequencies an axis has (d/4), and how many of them have a wavelength over
    four times that side (they barely turn across the image).

    Returns:
        A ``WavelengthSummary``: ``side`` and ``towers`` {key: ``TowerWavelengths``}.
    """
    side = max(as_int("grid_h", grid_h, minimum=1, maximum=256), as_int("grid_w", grid_w, minimum=1, maximum=256))
    towers = {}
    for key in keys:
        waves = vision_wavelengths(key)  # (d/4,)
        towers[key] = TowerWavelengths(float(waves.min()), float(waves.max()), int(waves.size),
                                       int(np.sum(waves > 4 * side)))
    return WavelengthSummary(side, towers)
