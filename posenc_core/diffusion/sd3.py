"""SD3 / SD3.5: a fixed 2D sin-cos table, added to the patches, cropped from a larger square grid.

``SD3Transformer2DModel`` builds one ``pos_embed_max_size`` x ``pos_embed_max_size`` table when it is
made (``PatchEmbed``); an image of h x w patches takes the centred h x w window of it
(``cropped_pos_embed``). The grid's coordinates are not the patch indices: ``get_2d_sincos_pos_embed``
divides them by ``max_size / base_size`` (base_size = sample_size / patch_size = 64), so neighbouring
patches are 64/192 = 1/3 apart in SD3 medium and SD3.5 large. Half the width encodes the column, half the
row, each as [sin | cos] of 10,000^(-2i/(D/2)), computed in float64 and stored as float32.
An image wider than the grid has no table to crop from: diffusers raises an error.
"""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import ArrayLike

from .._checks import as_even_dim, as_int, check_size

__all__ = ["sd3_sincos_1d", "sd3_table", "sd3_crop_window", "sd3_cropped_table", "sd3_patch_grid",
           "sd3_grid_coordinates", "sd3_window_only",
           "sd3_unseen_patches", "SD3_PIXELS_PER_PATCH"]

SD3_PIXELS_PER_PATCH = 16  # VAE 8x, patch 2


def sd3_sincos_1d(embed_dim: int, pos: torch.Tensor) -> torch.Tensor:
    """(M, embed_dim) [sin | cos] of positions ``pos`` (``get_1d_sincos_pos_embed_from_grid``), float64."""
    embed_dim = as_even_dim("embed_dim", embed_dim)
    omega = torch.arange(embed_dim // 2, dtype=torch.float64)
    omega /= embed_dim / 2.0
    omega = 1.0 / 10000**omega  # (D/2,)
    out = torch.outer(pos.reshape(-1), omega)  # (M, D/2)
    return torch.concat([torch.sin(out), torch.cos(out)], dim=1)


def sd3_grid_coordinates(max_size: int, base_size: int, interpolation_scale: float = 1.0) -> torch.Tensor:
    """(max_size,) float32 coordinate of each grid row (and column): i / (max_size / base_size) / scale."""
    max_size = as_int("pos_embed_max_size", max_size, minimum=1, maximum=1024)
    base_size = as_int("base_size (sample_size / patch_size)", base_size, minimum=1, maximum=1024)
    return torch.arange(max_size, dtype=torch.float32) / (max_size / base_size) / interpolation_scale


def sd3_table(embed_dim: int, max_size: int, base_size: int, interpolation_scale: float = 1.0) -> torch.Tensor:
    """(max_size², embed_dim) float32 table, row-major over the grid: first half the column code, then the row."""
    embed_dim = as_even_dim("embed_dim", embed_dim, minimum=4)
    if embed_dim % 4:
        raise ValueError(f"embed_dim must be a multiple of 4 (half for rows, half for columns, each in sin/cos "
                         f"pairs), but got {embed_dim}.")
    check_size(as_int("pos_embed_max_size", max_size, minimum=1) ** 2 * embed_dim, "the SD3 position table")
    coord = sd3_grid_coordinates(max_size, base_size, interpolation_scale)
    grid = torch.stack(torch.meshgrid(coord, coord, indexing="xy"), dim=0)  # (2, max, max): [0] column, [1] row
    grid = grid.reshape([2, 1, max_size, max_size])
    emb_w = sd3_sincos_1d(embed_dim // 2, grid[0])  # diffusers calls this half emb_h; it holds the column
    emb_h = sd3_sincos_1d(embed_dim // 2, grid[1])
    return torch.concat([emb_w, emb_h], dim=1).float()


def sd3_crop_window(max_size: int, rows: int, cols: int) -> tuple[int, int]:
    """(top, left) of the centred rows x cols window, or a ValueError past the grid, as ``cropped_pos_embed``."""
    max_size = as_int("pos_embed_max_size", max_size, minimum=1)
    rows = as_int("rows of patches", rows, minimum=1)
    cols = as_int("columns of patches", cols, minimum=1)
    for name, n, px in (("height", rows, rows * SD3_PIXELS_PER_PATCH), ("width", cols, cols * SD3_PIXELS_PER_PATCH)):
        if n > max_size:
            raise ValueError(f"The image {name} of {n} patches ({px:,} px) is larger than the position grid "
                             f"(pos_embed_max_size = {max_size} patches, {max_size * SD3_PIXELS_PER_PATCH:,} px): "
                             "SD3 has no table rows for it, and diffusers refuses it too.")
    return (max_size - rows) // 2, (max_size - cols) // 2


def sd3_cropped_table(table: torch.Tensor, max_size: int, rows: int, cols: int) -> torch.Tensor:
    """(rows*cols, embed_dim): the window of ``table`` an image of rows x cols patches receives."""
    top, left = sd3_crop_window(max_size, rows, cols)
    spatial = table.reshape(max_size, max_size, -1)[top:top + rows, left:left + cols, :]
    return spatial.reshape(rows * cols, -1)


def sd3_window_only(grid: ArrayLike, max_size: int, rows: int, cols: int) -> np.ndarray:
    """A float copy of a (max_size, max_size) grid with NaN outside the image's window (the cells it never reads)."""
    top, left = sd3_crop_window(max_size, rows, cols)
    out = np.full((max_size, max_size), np.nan)
    out[top:top + rows, left:left + cols] = np.asarray(grid)[top:top + rows, left:left + cols]
    return out


def sd3_unseen_patches(max_size: int, rows: int, cols: int, base_size: int) -> int:
    """How many of a rows x cols image's patches read table cells outside the centred base_size² window
    (the window of a square image at the config's sample_size, e.g. 64 x 64 patches = 1,024 px)."""
    top, left = sd3_crop_window(max_size, rows, cols)
    t0, l0 = sd3_crop_window(max_size, base_size, base_size)
    inside_rows = max(0, min(top + rows, t0 + base_size) - max(top, t0))
    inside_cols = max(0, min(left + cols, l0 + base_size) - max(left, l0))
    return rows * cols - inside_rows * inside_cols


def sd3_patch_grid(height_px: int, width_px: int) -> tuple[int, int]:
    """(rows, columns) of 2x2 latent patches for an image of this many pixels (VAE 8x, patch 2)."""
    h = as_int("the image height (pixels)", height_px, minimum=SD3_PIXELS_PER_PATCH, maximum=16384)
    w = as_int("the image width (pixels)", width_px, minimum=SD3_PIXELS_PER_PATCH, maximum=16384)
    return h // SD3_PIXELS_PER_PATCH, w // SD3_PIXELS_PER_PATCH
