"""Positions on an image grid: the 2D sin-cos embedding of MAE / ViT, patch similarity maps, and
resizing a grid of position embeddings the way timm does when a ViT is fine-tuned at a new resolution."""

from __future__ import annotations

import numpy as np

from ._backend import require_torch, to_backend, to_numpy
from ._checks import as_base, as_choice, as_float, as_int, check_size

__all__ = [
    "RESIZE_MODES",
    "flattened_sincos",
    "learned_like_grid",
    "matching_cell",
    "patch_similarity_maps",
    "prefix_change",
    "resample_pos_embed",
    "resample_sincos_error",
    "resample_source_coords",
    "sincos_2d",
    "sincos_2d_at",
    "vit_position_table",
]

RESIZE_MODES = ("bicubic", "bilinear", "nearest")
MAX_GRID = 4096



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


def sincos_2d_at(rows, cols, dim, base=10000.0) -> np.ndarray:
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


def flattened_sincos(grid_h, grid_w, dim, base=10000.0) -> np.ndarray:
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


def learned_like_grid(grid_h, grid_w, dim, seed=0, smoothness=1.5) -> np.ndarray:
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


def patch_similarity_maps(table, grid_h, grid_w, metric="cosine", num_prefix_tokens=0) -> np.ndarray:
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
    patches = rows[prefix:]
    if metric == "cosine":
        norms = np.linalg.norm(patches, axis=1, keepdims=True)
        patches = patches / np.where(norms == 0, 1, norms)
    return (patches @ patches.T).reshape(h * w, h, w).astype(np.float32)


def resample_source_coords(old_size, new_size) -> np.ndarray:
    """Where each new grid cell samples the old grid, with align_corners=False (timm's default):
    x_old = (i + 0.5) * old / new - 0.5 for i < new. Shape (new,), float64."""
    old = as_int("old grid size", old_size, minimum=1, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    return (np.arange(new) + 0.5) * old / new - 0.5


def resample_pos_embed(table, old_size, new_size, num_prefix_tokens=0, mode="bicubic",
                       antialias=True) -> np.ndarray:
    """Resize a grid of absolute position embeddings, following timm's ``resample_abs_pos_embed``.

    The prefix rows ([CLS], register or distillation tokens) are set aside; the patch rows are
    reshaped (H*W, C) -> (1, C, H, W), resized with ``torch.nn.functional.interpolate`` (float32,
    align_corners=False), flattened back in raster order, and the prefix rows re-attached in front.
    timm's defaults are mode="bicubic", antialias=True. torch's antialiased bicubic uses PIL's kernel
    (a = -0.5) while the plain one uses a = -0.75, so the switch changes the result even when upsampling.
    "nearest" ignores ``antialias`` (torch only antialiases bilinear and bicubic).

    Args:
        table: (num_prefix_tokens + H * W, C) array or tensor.
        old_size, new_size: (H, W) and (H', W') grid sizes.
    Returns:
        (num_prefix_tokens + H' * W', C) float32 numpy array.
    """
    mode = as_choice("mode", mode, RESIZE_MODES)
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=64)
    try:
        old_h, old_w = (as_int("old grid size", v, minimum=1, maximum=MAX_GRID) for v in old_size)
        new_h, new_w = (as_int("new grid size", v, minimum=1, maximum=MAX_GRID) for v in new_size)
    except TypeError:
        raise ValueError("Grid sizes must be (height, width) pairs of whole numbers.") from None
    rows = np.asarray(to_numpy(table), dtype=np.float32)
    if rows.ndim != 2 or rows.shape[0] != prefix + old_h * old_w:
        raise ValueError(f"The table must have {prefix} prefix rows plus {old_h} x {old_w} = {old_h * old_w} "
                         f"patch rows, but has shape {rows.shape}.")
    check_size((prefix + new_h * new_w) * rows.shape[1], "The resized grid")
    try:
        torch = require_torch()
    except ValueError:
        raise ValueError("Resizing a position grid uses torch's interpolate (as timm does); install torch "
                         "with `pip install torch`.") from None
    import torch.nn.functional as F

    prefix_rows, grid = rows[:prefix], torch.from_numpy(np.ascontiguousarray(rows[prefix:]))
    grid = grid.reshape(1, old_h, old_w, -1).permute(0, 3, 1, 2)  # (1, C, H, W)
    options = {} if mode == "nearest" else {"align_corners": False, "antialias": bool(antialias)}
    grid = F.interpolate(grid, size=(new_h, new_w), mode=mode, **options)  # (1, C, H', W')
    grid = grid.permute(0, 2, 3, 1).reshape(new_h * new_w, -1).numpy()  # (H'W', C)
    return np.concatenate([prefix_rows, grid], axis=0).astype(np.float32)


def matching_cell(index, old_size, new_size) -> int:
    """The cell of a resized axis whose centre lies closest to the centre of cell ``index`` of the
    old axis (align_corners=False geometry: cell i covers [i, i + 1) / size of the image)."""
    old = as_int("old grid size", old_size, minimum=1, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    index = as_int("cell index", index, minimum=0, maximum=old - 1)
    return int(min(new - 1, max(0, np.floor((index + 0.5) * new / old))))


def resample_sincos_error(old_size, new_size, dim, base=10000.0, mode="bicubic", antialias=True) -> np.ndarray:
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


def vit_position_table(source, grid_size, dim, num_prefix_tokens=0, seed=0) -> np.ndarray:
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


def prefix_change(before, after, num_prefix_tokens) -> float:
    """Largest absolute change of the prefix rows between two tables (0 when there are none)."""
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    if prefix == 0:
        return 0.0
    return float(np.abs(np.asarray(after)[:prefix] - np.asarray(before)[:prefix]).max())
