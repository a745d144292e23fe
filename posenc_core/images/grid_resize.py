"""Resizing a grid of position embeddings the way timm does when a ViT is fine-tuned at a new resolution, and
what the resize gets wrong against the exact 2D sin-cos (lessons/images/resize)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from .._backend import require_torch
from .._checks import as_choice, as_int, check_size
from .._types import ArrayOrTensor
from .patch_grid import MAX_GRID, learned_like_grid, patch_similarity_maps
from .sincos_grid import sincos_2d, sincos_2d_at

__all__ = [
    "RESIZE_MODES",
    "ResizeNeighbour",
    "ResizePlan",
    "ResizeProfile",
    "SincosResizeErrors",
    "matching_cell",
    "prefix_change",
    "resample_pos_embed",
    "resample_sincos_error",
    "resample_source_coords",
    "resize_neighbour",
    "resize_plan",
    "resize_profile",
    "resize_what_if_size",
    "sincos_resize_errors",
    "vit_position_table",
]

RESIZE_MODES = ("bicubic", "bilinear", "nearest")


@dataclass(frozen=True)
class ResizePlan:
    """The bookkeeping of one square resize (``resize_plan``).

    new_cell: (row, col) of the query patch on the new grid (``matching_cell``).
    index_before, index_after: the patch's raster index on each grid, prefix rows not counted.
    stretch: new / old, how much every distance stretches.
    patches_before, patches_after: grid cells before and after.
    rows_before, rows_after: table rows before and after, prefix rows included.
    """

    new_cell: tuple[int, int]
    index_before: int
    index_after: int
    stretch: float
    patches_before: int
    patches_after: int
    rows_before: int
    rows_after: int


@dataclass(frozen=True)
class ResizeNeighbour:
    """A patch's cosine similarity to the patch one step across, before and after a resize (``resize_neighbour``).

    side: "right", or "left" where the patch or its new cell sits on the last column.
    new_cell: (row, col) of the patch on the new grid.
    before, after: the similarity on the old grid and on the resized one (float).
    """

    side: Literal["right", "left"]
    new_cell: tuple[int, int]
    before: float
    after: float


@dataclass(frozen=True)
class ResizeProfile:
    """One channel of the resized grid along one new row (``resize_profile``).

    coords: (new,) the old-grid column each new cell samples.
    series: {mode: (new,) the channel after resizing with that mode}, every mode of ``RESIZE_MODES``.
    exact: (new,) 2D sin-cos at those coordinates for a sin-cos source, else None.
    """

    coords: np.ndarray
    series: dict[str, np.ndarray]
    exact: np.ndarray | None


@dataclass(frozen=True)
class SincosResizeErrors:
    """What resizing a sin-cos grid gets wrong, per mode (``sincos_resize_errors``).

    by_mode: {mode: (dim,) float64 largest error per channel (``resample_sincos_error``)}.
    first_channel: {mode: the error at channel 0, the fastest column wave}.
    """

    by_mode: dict[str, np.ndarray]
    first_channel: dict[str, float]


def resample_source_coords(old_size: int, new_size: int) -> np.ndarray:
    """Where each new grid cell samples the old grid, with align_corners=False (timm's default):
    x_old = (i + 0.5) * old / new - 0.5 for i < new. Shape (new,), float64."""
    old = as_int("old grid size", old_size, minimum=1, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    return (np.arange(new) + 0.5) * old / new - 0.5


def resample_pos_embed(table: ArrayOrTensor, old_size: tuple[int, int], new_size: tuple[int, int],
                       num_prefix_tokens: int = 0,
                       mode: str = "bicubic",
                       antialias: bool = True) -> ArrayOrTensor:
    """Resize a grid of absolute position embeddings, following timm's ``resample_abs_pos_embed``.

    The prefix rows ([CLS], register or distillation tokens) are set aside; the patch rows are
    reshaped (H*W, C) -> (1, C, H, W), resized with ``torch.nn.functional.interpolate`` (float32,
    align_corners=False), flattened back in raster order, and the prefix rows re-attached in front.
    timm's defaults are mode="bicubic", antialias=True. torch's antialiased bicubic uses PIL's kernel
    (a = -0.5) while the plain one uses a = -0.75, so the switch changes the result even when upsampling.
    "nearest" ignores ``antialias`` (torch only antialiases bilinear and bicubic).

    Args:
        table: (num_prefix_tokens + H * W, C) array or tensor of any floating dtype (bfloat16 included).
        old_size, new_size: (H, W) and (H', W') grid sizes.
    Returns:
        (num_prefix_tokens + H' * W', C): timm's result, computed in float32 and rounded to the table's dtype as
        timm does. A tensor gives a tensor in its dtype on its device; an array gives float32 numpy, which holds
        those values exactly (a bfloat16 table's bfloat16 values too).

    >>> import numpy as np
    >>> pc.resample_pos_embed(np.zeros((4, 8)), (2, 2), (3, 3)).shape
    (9, 8)
    """
    mode = as_choice("mode", mode, RESIZE_MODES)
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=64)
    try:
        old_h, old_w = (as_int("old grid size", v, minimum=1, maximum=MAX_GRID) for v in old_size)
        new_h, new_w = (as_int("new grid size", v, minimum=1, maximum=MAX_GRID) for v in new_size)
    except TypeError:
        raise ValueError("Grid sizes must be (height, width) pairs of whole numbers.") from None
    torch = require_torch("Resizing a position grid, with torch's interpolate as timm does,")
    import torch.nn.functional as F

    if isinstance(table, torch.Tensor):
        source = table.detach().cpu()
    else:
        array = np.asarray(table)
        source = torch.from_numpy(np.array(array if array.dtype.kind == "f" else array.astype(np.float32)))
    if not source.is_floating_point():
        source = source.float()
    if source.ndim != 2 or source.shape[0] != prefix + old_h * old_w:
        raise ValueError(f"The table must have {prefix} prefix rows plus {old_h} x {old_w} = {old_h * old_w} "
                         f"patch rows, but has shape {tuple(source.shape)}.")
    check_size((prefix + new_h * new_w) * source.shape[1], "The resized grid")
    # timm: interpolate in float32 (posemb.float()), then cast back to the table's own dtype (.to(orig_dtype)).
    prefix_rows, grid = source[:prefix], source[prefix:].float()
    grid = grid.reshape(1, old_h, old_w, -1).permute(0, 3, 1, 2)  # (1, C, H, W)
    options = {} if mode == "nearest" else {"align_corners": False, "antialias": bool(antialias)}
    grid = F.interpolate(grid, size=(new_h, new_w), mode=mode, **options)  # (1, C, H', W')
    grid = grid.permute(0, 2, 3, 1).reshape(new_h * new_w, -1).to(source.dtype)  # (H'W', C)
    resized = torch.cat([prefix_rows, grid], dim=0)  # (prefix + H'W', C) in the table's dtype, as timm returns it
    if isinstance(table, torch.Tensor):
        return resized.to(table.device)
    # Every patch value timm returns, in any floating dtype, is a float32 value, so float32 numpy holds it
    # exactly (the prefix rows, which timm leaves untouched, are rounded to float32 here as well).
    return resized.float().numpy()


def matching_cell(index: int, old_size: int, new_size: int) -> int:
    """The cell of a resized axis whose centre lies closest to the centre of cell ``index`` of the
    old axis (align_corners=False geometry: cell i covers [i, i + 1) / size of the image)."""
    old = as_int("old grid size", old_size, minimum=1, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    index = as_int("cell index", index, minimum=0, maximum=old - 1)
    return int(min(new - 1, max(0, np.floor((index + 0.5) * new / old))))


def resample_sincos_error(old_size: int, new_size: int, dim: int, base: float = 10000.0,
                          mode: str = "bicubic", antialias: bool = True) -> np.ndarray:
    """Per channel, the largest gap between a resized sin-cos grid and the exact sin-cos at the
    coordinates the new cells sample (``resample_source_coords``): what interpolation gets wrong.

    Returns:
        (dim,) float64, channels in MAE order (x sines, x cosines, y sines, y cosines).
    """
    old = as_int("old grid size", old_size, minimum=2, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    table = sincos_2d(old, old, dim, base)
    resized = resample_pos_embed(table, (old, old), (new, new), 0, mode, antialias).astype(np.float64)
    coords = resample_source_coords(old, new)
    exact = sincos_2d_at(coords, coords, dim, base)
    return np.abs(resized - exact).max(axis=0)


def vit_position_table(source: str, grid_size: int, dim: int, num_prefix_tokens: int = 0,
                       seed: int = 0) -> np.ndarray:
    """A ViT-style position table: ``num_prefix_tokens`` rows for [CLS]-like tokens, then the grid's rows.

    ``source`` is "sincos" (MAE's 2D sin-cos) or "learned" (a seeded, smooth learned-like grid). The prefix
    rows are seeded random stand-ins: resizing must set them aside and put them back unchanged.

    Returns:
        Array of shape (num_prefix_tokens + grid_size**2, dim), float32.
    """
    source = as_choice("source", source, ("sincos", "learned"))
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=64)
    grid = sincos_2d(grid_size, grid_size, dim) if source == "sincos" else learned_like_grid(grid_size, grid_size,
                                                                                              dim, seed=seed)
    cls = np.random.default_rng(seed + 1).standard_normal((prefix, grid.shape[1])).astype(np.float32)  # (p, dim)
    return np.concatenate([cls, np.asarray(grid, dtype=np.float32)], axis=0)


def prefix_change(before: ArrayLike, after: ArrayLike, num_prefix_tokens: int) -> float:
    """Largest absolute change of the prefix rows between two tables (0 when there are none)."""
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    if prefix == 0:
        return 0.0
    return float(np.abs(np.asarray(after)[:prefix] - np.asarray(before)[:prefix]).max())


def resize_plan(old_size: int, new_size: int, num_prefix_tokens: int, row: int,
                col: int) -> ResizePlan:
    """The bookkeeping of one square resize that the lesson states: where the query patch goes, how much every
    distance stretches, and how many rows the table has before and after.

    Returns:
        A ``ResizePlan``: the new cell, the raster index on each grid, the stretch, and cells and rows before
        and after.
    """
    old = as_int("old grid size", old_size, minimum=1, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=64)
    new_row, new_col = matching_cell(row, old, new), matching_cell(col, old, new)
    return ResizePlan((new_row, new_col), int(row) * old + int(col), new_row * new + new_col, new / old,
                      old * old, new * new, prefix + old * old, prefix + new * new)


def resize_what_if_size(new_size: int, largest: int = 32) -> int:
    """The other grid size a what-if asks about: twice ``new_size``, or half of it when twice passes ``largest``."""
    largest = as_int("largest grid size", largest, minimum=2, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=largest)
    return 2 * new if 2 * new <= largest else max(1, new // 2)


def resize_neighbour(source: str, old_size: int, new_size: int, dim: int,
                     num_prefix_tokens: int,
                     mode: str, antialias: bool, row: int, col: int, *,
                     seed: int = 0) -> ResizeNeighbour:
    """Cosine similarity of a patch to the patch one step across, before and after resizing the grid.

    The step goes right unless the patch, or its matching cell on the new grid, sits on the last column;
    then it goes left on both grids. Values are read from ``patch_similarity_maps`` of the table and of the
    resized table, the maps the lesson draws.

    Returns:
        A ``ResizeNeighbour``: ``side``, ``new_cell``, ``before`` and ``after``.
    """
    old = as_int("old grid size", old_size, minimum=2, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=2, maximum=MAX_GRID)
    plan = resize_plan(old, new, num_prefix_tokens, row, col)
    new_row, new_col = plan.new_cell
    step = 1 if col + 1 < old and new_col + 1 < new else -1  # a neighbour that exists on both grids
    table = vit_position_table(source, old, dim, num_prefix_tokens, seed)
    resized = resample_pos_embed(table, (old, old), (new, new), num_prefix_tokens, mode, antialias)
    before = patch_similarity_maps(table, old, old, "cosine", num_prefix_tokens)[plan.index_before]  # (old, old)
    after = patch_similarity_maps(resized, new, new, "cosine", num_prefix_tokens)[plan.index_after]  # (new, new)
    return ResizeNeighbour("right" if step > 0 else "left", (new_row, new_col), float(before[row, col + step]),
                           float(after[new_row, new_col + step]))


def resize_profile(source: str, old_size: int, new_size: int, dim: int, num_prefix_tokens: int,
                   antialias: bool, new_row: int, channel: int, *,
                   seed: int = 0) -> ResizeProfile:
    """One channel of the resized grid along one new row, for every interpolation mode.

    Returns:
        A ``ResizeProfile``: ``coords``, ``series`` {mode: (new,)} and ``exact`` (None for a learned source).
    """
    old = as_int("old grid size", old_size, minimum=1, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    dim = as_int("dim", dim, minimum=1, maximum=16384)
    new_row = as_int("new row", new_row, minimum=0, maximum=new - 1)
    channel = as_int("channel", channel, minimum=0, maximum=dim - 1)
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=64)
    table = vit_position_table(source, old, dim, prefix, seed)
    coords = resample_source_coords(old, new)  # (new,)
    series = {mode: resample_pos_embed(table, (old, old), (new, new), prefix, mode, antialias)[prefix:]
              .reshape(new, new, dim)[new_row, :, channel] for mode in RESIZE_MODES}  # (new,) each
    exact = sincos_2d_at([coords[new_row]], coords, dim)[:, channel] if source == "sincos" else None
    return ResizeProfile(coords, series, exact)


def sincos_resize_errors(old_size: int, new_size: int, dim: int, base: float = 10000.0,
                         antialias: bool = True) -> SincosResizeErrors:
    """``resample_sincos_error`` for every mode, and the error at channel 0 (the fastest column wave).

    Returns:
        A ``SincosResizeErrors``: ``by_mode`` {mode: (dim,) float64} and ``first_channel`` {mode: float}.
    """
    by_mode = {mode: resample_sincos_error(old_size, new_size, dim, base, mode, antialias) for mode in RESIZE_MODES}
    return SincosResizeErrors(by_mode, {mode: float(e[0]) for mode, e in by_mode.items()})
