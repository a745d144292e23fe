"""3D rotary of the video generators: Wan, HunyuanVideo and CogVideoX, as diffusers builds them.

Every latent patch of a clip has three ids (frame, row, column). Each model splits a head's dimensions
into a time block, a height block and a width block, and fills each from the one-axis rotary table:

- Wan (``WanRotaryPosEmbed``): h = w = 2·(head_dim // 6), t = the rest (128 -> 44, 42, 42); one table of
  ``rope_max_seq_len`` positions per axis at θ = 10,000 (float64 frequencies), sliced to the clip.
- HunyuanVideo (``HunyuanVideoRotaryPosEmbed``): ``rope_axes_dim`` = (16, 56, 56), θ = 256, float32
  frequencies over float32 id grids.
- CogVideoX (``get_3d_rotary_pos_embed``): t = head_dim / 4, h = w = 3·head_dim / 8 (64 -> 16, 24, 24),
  θ = 10,000. Version 1.0 spreads the rows and columns over the trained grid (``linspace``: ids need
  not be whole numbers); version 1.5 (``patch_size_t`` set) slices whole-number ids (``slice``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .._checks import as_int, check_size
from .rotary import dit_rotary_1d

__all__ = ["VIDEO_SPLITS", "video_axis_split", "video_latent_frames", "wan_rope", "hunyuan_rope",
           "cogvideox_crop_region", "cogvideox_axis_ids", "cogvideox_rope", "video_token_ids"]


def _wan_split(head_dim: int) -> tuple[int, int, int]:
    hw = 2 * (head_dim // 6)
    return head_dim - 2 * hw, hw, hw


def _cog_split(head_dim: int) -> tuple[int, int, int]:
    return head_dim // 4, head_dim // 8 * 3, head_dim // 8 * 3


# family -> how the head splits into (time, height, width) dims; HunyuanVideo reads its split from the config
VIDEO_SPLITS = {"wan": _wan_split, "cogvideox": _cog_split}


def video_axis_split(family: str, head_dim: int) -> tuple[int, int, int]:
    """(t, h, w) dimensions of a head of ``head_dim`` for ``family`` ('wan' or 'cogvideox')."""
    if family not in VIDEO_SPLITS:
        raise ValueError(f"family must be one of {', '.join(VIDEO_SPLITS)}, but got {family!r}.")
    return VIDEO_SPLITS[family](as_int("head_dim", head_dim, minimum=8, maximum=1024))


def video_latent_frames(num_frames: int, temporal_compression: int = 4) -> int:
    """Latent frames the VAE makes of ``num_frames`` video frames: (num_frames - 1) // 4 + 1 (first frame alone)."""
    n = as_int("the number of frames", num_frames, minimum=1, maximum=4096)
    return (n - 1) // as_int("the temporal compression", temporal_compression, minimum=1) + 1


def _grid(frames: int, rows: int, cols: int) -> tuple[int, int, int]:
    frames = as_int("latent frames (after patching)", frames, minimum=1, maximum=1024)
    rows = as_int("rows of patches", rows, minimum=1, maximum=1024)
    cols = as_int("columns of patches", cols, minimum=1, maximum=1024)
    return frames, rows, cols


def _combine(parts, frames: int, rows: int, cols: int) -> torch.Tensor:
    """(frames*rows*cols, sum of dims): time, height, width blocks broadcast over the clip, frame-major."""
    t, h, w = parts  # (frames, dt), (rows, dh), (cols, dw)
    t = t[:, None, None, :].expand(frames, rows, cols, -1)
    h = h[None, :, None, :].expand(frames, rows, cols, -1)
    w = w[None, None, :, :].expand(frames, rows, cols, -1)
    return torch.cat([t, h, w], dim=-1).reshape(frames * rows * cols, -1)


def wan_rope(head_dim: int, frames: int, rows: int, cols: int, *, max_seq_len: int = 1024,
             theta: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, sin), each (frames*rows*cols, head_dim) float32, for a clip of that many patches (Wan)."""
    frames, rows, cols = _grid(frames, rows, cols)
    max_seq_len = as_int("rope_max_seq_len", max_seq_len, minimum=1, maximum=1 << 16)
    if max(frames, rows, cols) > max_seq_len:
        raise ValueError(f"The clip has {max(frames, rows, cols)} patches along one axis, more than "
                         f"rope_max_seq_len = {max_seq_len}: Wan's table has no rows past that.")
    check_size(frames * rows * cols * head_dim, "the Wan rotary table")
    tables = [dit_rotary_1d(d, torch.arange(max_seq_len), theta, freqs_dtype="float64")
              for d in video_axis_split("wan", head_dim)]
    sizes = (frames, rows, cols)
    cos = _combine([c[:n] for (c, _), n in zip(tables, sizes, strict=True)], *sizes)
    sin = _combine([s[:n] for (_, s), n in zip(tables, sizes, strict=True)], *sizes)
    return cos, sin


def hunyuan_rope(frames: int, rows: int, cols: int, *, rope_dim: Sequence[int] = (16, 56, 56),
                 theta: float = 256.0) -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, sin), each (frames*rows*cols, sum(rope_dim)) float32 (HunyuanVideo): ids from an 'ij' meshgrid."""
    frames, rows, cols = _grid(frames, rows, cols)
    check_size(frames * rows * cols * sum(rope_dim), "the HunyuanVideo rotary table")
    axes = [torch.arange(0, n, dtype=torch.float32) for n in (frames, rows, cols)]
    grid = torch.stack(torch.meshgrid(*axes, indexing="ij"), dim=0)  # (3, frames, rows, cols)
    parts = [dit_rotary_1d(as_int(f"rope_axes_dim[{i}]", d, minimum=2), grid[i].reshape(-1), theta,
                           freqs_dtype="float32") for i, d in enumerate(rope_dim)]
    return torch.cat([c for c, _ in parts], dim=1), torch.cat([s for _, s in parts], dim=1)


def cogvideox_crop_region(rows: int, cols: int, base_rows: int, base_cols: int) -> tuple[tuple[int, int],
                          tuple[int, int]]:
    """((top, left), (bottom, right)): the clip's grid fitted inside the trained one, aspect kept.

    As the pipeline's ``get_resize_crop_region_for_grid``: the longer side fills the trained grid.
    """
    rows, cols = as_int("rows of patches", rows, minimum=1), as_int("columns of patches", cols, minimum=1)
    base_rows = as_int("the trained rows (sample_height / patch_size)", base_rows, minimum=1)
    base_cols = as_int("the trained columns (sample_width / patch_size)", base_cols, minimum=1)
    ratio = rows / cols
    if ratio > base_rows / base_cols:
        resize_h, resize_w = base_rows, int(round(base_rows / rows * cols))
    else:
        resize_w, resize_h = base_cols, int(round(base_cols / cols * rows))
    top, left = int(round((base_rows - resize_h) / 2.0)), int(round((base_cols - resize_w) / 2.0))
    return (top, left), (top + resize_h, left + resize_w)


def cogvideox_axis_ids(frames: int, rows: int, cols: int, base_rows: int, base_cols: int,
                       patch_size_t: int | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(time, row, column) float32 ids of CogVideoX: 1.0 stretches the grid over the trained one, 1.5 slices it."""
    frames, rows, cols = _grid(frames, rows, cols)
    if patch_size_t is not None:  # 1.5: whole-number ids; the table is made for the trained size, then sliced
        if rows > base_rows or cols > base_cols:
            raise ValueError(f"The clip has {rows} x {cols} patches, more than the trained grid "
                             f"{base_rows} x {base_cols}: CogVideoX 1.5 slices its table and has no ids past it.")
        return (torch.arange(frames, dtype=torch.float32), torch.arange(base_rows, dtype=torch.float32)[:rows],
                torch.arange(base_cols, dtype=torch.float32)[:cols])
    start, stop = cogvideox_crop_region(rows, cols, base_rows, base_cols)
    grid_h = torch.linspace(start[0], stop[0] * (rows - 1) / rows, rows, dtype=torch.float32)
    grid_w = torch.linspace(start[1], stop[1] * (cols - 1) / cols, cols, dtype=torch.float32)
    grid_t = torch.linspace(0, frames * (frames - 1) / frames, frames, dtype=torch.float32)
    return grid_t, grid_h, grid_w


def cogvideox_rope(head_dim: int, frames: int, rows: int, cols: int, base_rows: int, base_cols: int,
                   patch_size_t: int | None = None, theta: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, sin), each (frames*rows*cols, head_dim) float32, as the CogVideoX pipeline asks for them."""
    frames, rows, cols = _grid(frames, rows, cols)
    head_dim = as_int("head_dim", head_dim, minimum=8, maximum=1024)
    check_size(frames * rows * cols * head_dim, "the CogVideoX rotary table")
    ids = cogvideox_axis_ids(frames, rows, cols, base_rows, base_cols, patch_size_t)
    if patch_size_t is not None:  # the table covers the trained grid; the slice comes after the cos/sin
        ids = (ids[0], torch.arange(base_rows, dtype=torch.float32), torch.arange(base_cols, dtype=torch.float32))
    parts = [dit_rotary_1d(d, g, theta, freqs_dtype="float32")
             for d, g in zip(video_axis_split("cogvideox", head_dim), ids, strict=True)]
    sizes = (frames, rows, cols)
    cos = _combine([c[:n] for (c, _), n in zip(parts, sizes, strict=True)], *sizes)
    sin = _combine([s[:n] for (_, s), n in zip(parts, sizes, strict=True)], *sizes)
    return cos, sin


def video_token_ids(frames: int, rows: int, cols: int) -> torch.Tensor:
    """(frames*rows*cols, 3) int64 (frame, row, column) of each patch in the order all three models flatten it."""
    frames, rows, cols = _grid(frames, rows, cols)
    return torch.cartesian_prod(torch.arange(frames), torch.arange(rows), torch.arange(cols))
