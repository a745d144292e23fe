"""Qwen-Image: rotary ids centred on the image, with negative indices (``QwenEmbedRope``, scale_rope=True).

The model keeps two tables per axis, one for ids 0..4095 and one for -4096..-1, and an image of h rows
takes ids -(h - h//2) .. h//2 - 1 for its rows (and the same for its columns): the centre of the image is
at id 0 whatever its size. The frame id is the image's index (0 for the image being made). The text comes
after: its tokens take ids max(h//2, w//2), max(h//2, w//2) + 1, ... on all three axes. The head splits
as ``axes_dims_rope`` = (16, 56, 56) at θ = 10,000; Qwen-Image's tables are complex64, computed in float32.
With scale_rope=False (not used by the released model) ids would start at 0 in the top-left corner.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .._checks import as_int, check_size

__all__ = ["qwen_axis_ids", "qwen_token_ids", "qwen_text_start", "qwen_rope"]


def _angles(index: torch.Tensor, dim: int, theta: float) -> torch.Tensor:
    """(len(index), dim/2) complex64 e^(i·index·θ^(-2j/dim)), as ``QwenEmbedRope.rope_params``.

    The model computes each table once over its whole index range (and looks ids up in it); row k holds
    the same bits as computing index k alone, since each entry is one product of k and a pair's frequency.
    """
    freqs = torch.outer(index, 1.0 / torch.pow(theta, torch.arange(0, dim, 2).to(torch.float32).div(dim)))
    return torch.polar(torch.ones_like(freqs), freqs)


def qwen_axis_ids(n: int, scale_rope: bool = True) -> torch.Tensor:
    """(n,) int64 ids along one image axis: centred (-(n - n//2) .. n//2 - 1) or from the corner (0 .. n-1)."""
    n = as_int("patches along the axis", n, minimum=1, maximum=4096)
    if scale_rope:
        return torch.cat([torch.arange(-(n - n // 2), 0), torch.arange(n // 2)])
    return torch.arange(n)


def qwen_token_ids(frame: int, rows: int, cols: int, scale_rope: bool = True, idx: int = 0) -> torch.Tensor:
    """(frame*rows*cols, 3) int64 (frame, row, column) ids of the image tokens, reading order."""
    frame = as_int("frames", frame, minimum=1, maximum=64)
    rows = as_int("rows of patches", rows, minimum=1, maximum=4096)
    cols = as_int("columns of patches", cols, minimum=1, maximum=4096)
    check_size(frame * rows * cols * 3, "the Qwen-Image ids")
    t = torch.arange(idx, idx + frame)
    return torch.cartesian_prod(t, qwen_axis_ids(rows, scale_rope), qwen_axis_ids(cols, scale_rope))


def qwen_text_start(rows: int, cols: int, scale_rope: bool = True) -> int:
    """The id of the first text token: just past the image's largest id (``max_vid_index``)."""
    rows = as_int("rows of patches", rows, minimum=1, maximum=4096)
    cols = as_int("columns of patches", cols, minimum=1, maximum=4096)
    return max(rows // 2, cols // 2) if scale_rope else max(rows, cols)


def qwen_rope(rows: int, cols: int, n_text: int, *, frame: int = 1, axes_dim: Sequence[int] = (16, 56, 56),
              theta: float = 10000.0,
              scale_rope: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """(image, text) complex64 tables, (frame*rows*cols, sum/2) and (n_text, sum/2), as QwenEmbedRope returns."""
    ids = qwen_token_ids(frame, rows, cols, scale_rope)  # (N, 3)
    n_text = as_int("the number of text tokens", n_text, minimum=0, maximum=4096)
    start = qwen_text_start(rows, cols, scale_rope)
    if start + n_text > 4096:
        raise ValueError(f"The text would reach id {start + n_text}, past Qwen-Image's table of 4,096 ids.")
    dims = [as_int(f"axes_dims_rope[{i}]", d, minimum=2) for i, d in enumerate(axes_dim)]
    image = torch.cat([_angles(ids[:, i], d, theta) for i, d in enumerate(dims)], dim=1)
    text_ids = torch.arange(start, start + n_text)
    text = torch.cat([_angles(text_ids, d, theta) for d in dims], dim=1)
    return image, text

