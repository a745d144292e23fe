"""XD-RoPE, HunYuan-VL's (HunyuanOCR's) rotary over four position axes: sequence, width, height, image.

transformers 5.23 (``models/hunyuan_vl/modeling_hunyuan_vl.py``) reads the four-part ``mrope_section``
(the checkpoints' ``xdrope_section``, renamed on load). ``HunYuanVLModel.get_rope_index`` gives every token
its sequence index on every axis, then overwrites the last three axes of an image's grid tokens with
(column, row, image ordinal); the grid has one extra column per row (the merger's row-end token).
``HunYuanVLRotaryEmbedding.recomposition_frequencies`` then picks each dimension's axis: it doubles the
half-head angles to the full head and splits that into blocks of 2·section, so the first half of the head
takes the first axes and the second half the last ones. Tencent's release code and vLLM's former
``XDRotaryEmbedding`` split the same doubled head by the section list repeated twice, one axis per rotary
pair in both halves. ``XD_LAYOUTS`` names both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import MAX_DIM, as_choice, as_int, check_size
from .sequence import MAX_MM_TOKENS

__all__ = ["XD_AXIS_NAMES", "XD_LAYOUTS", "XdIds", "xd_dim_axes", "xd_position_ids"]

XD_AXIS_NAMES = ("sequence", "width", "height", "image")  # the four axes of a four-part section, in order
XD_LAYOUTS = ("transformers", "release")  # transformers 5.23's split, and Tencent's / vLLM's


def _sections(mrope_section: Sequence[int]) -> tuple[int, ...]:
    section = tuple(mrope_section)
    if len(section) < 3:
        raise ValueError(f"mrope_section must list at least 3 parts (width, height, image, after any sequence "
                         f"axes), but got {list(section)}.")
    return tuple(as_int("Each mrope_section entry", s, minimum=0, maximum=MAX_DIM) for s in section)


def xd_dim_axes(mrope_section: Sequence[int], layout: str = "transformers") -> np.ndarray:
    """The axis that turns each dimension of the head: (2 · sum(mrope_section),) int8, axis i of the section list.

    Args:
        mrope_section: pairs per axis, e.g. HunyuanOCR's [16, 16, 16, 16] (sequence, width, height, image).
        layout: "transformers" (blocks of 2·s_i over the doubled head: dimension j and its partner j + d/2 may
            take different axes) or "release" (the list repeated: pair j takes one axis in both halves).

    Returns:
        (head_dim,) int8.

    >>> pc.multimodal.xd_dim_axes([1, 1, 1, 1]).tolist()
    [0, 0, 1, 1, 2, 2, 3, 3]
    """
    section = _sections(mrope_section)
    layout = as_choice("layout", layout, XD_LAYOUTS)
    axes = np.arange(len(section), dtype=np.int8)
    if layout == "transformers":  # freq.split([2·s_i]) over cat(freq, freq): block i takes axis i
        return np.repeat(axes, [2 * s for s in section]).astype(np.int8)
    return np.tile(np.repeat(axes, section), 2).astype(np.int8)  # split(section * 2): block i takes axis i % n


@dataclass(frozen=True)
class XdIds:
    """HunYuan-VL's position ids of text, one image, text (``xd_position_ids``).

    ids: (n_axes, n) int64, one row per axis in section order. grid_start, grid_end: ints, the image's grid tokens
    are [grid_start, grid_end). span_start, span_end: ints, the image's placeholder span (the grid, and the
    begin and end tokens when present). next_id: int, the id every axis gives the next token (max + 1).
    """

    ids: np.ndarray
    grid_start: int
    grid_end: int
    span_start: int
    span_end: int
    next_id: int


def xd_position_ids(text_before: int, rows: int, cols: int, text_after: int, *, n_axes: int = 4,
                    boundary: bool = True) -> XdIds:
    """Position ids per axis as ``HunYuanVLModel.get_rope_index`` builds them for text, one image, text.

    Every token starts with its sequence index on all axes. The image's grid tokens, ``rows`` × (``cols`` + 1) of
    them after the 2 × 2 merge (one row-end token per row), then take column, row and image ordinal 0 on the last
    three axes; any axes before those keep the sequence index.

    Args:
        text_before, text_after: text tokens around the image.
        rows, cols: the merged grid (image_grid_thw's height and width divided by spatial_merge_size).
        n_axes: the parts of mrope_section (at least 3).
        boundary: whether the span includes the image's begin and end tokens (the processor's prompt does).

    Returns:
        An ``XdIds``.
    """
    before = as_int("text_before", text_before, minimum=0, maximum=MAX_MM_TOKENS)
    after = as_int("text_after", text_after, minimum=0, maximum=MAX_MM_TOKENS)
    rows = as_int("rows", rows, minimum=1, maximum=1024)
    cols = as_int("cols", cols, minimum=1, maximum=1024)
    n_axes = as_int("n_axes", n_axes, minimum=3, maximum=16)
    grid = rows * (cols + 1)
    span = grid + 2 * bool(boundary)
    n = before + span + after
    if n > MAX_MM_TOKENS:
        raise ValueError(f"The sequence would have {n:,} tokens; at most {MAX_MM_TOKENS:,} are shown.")
    check_size(n_axes * n, "The position ids")
    ids = np.tile(np.arange(n, dtype=np.int64), (n_axes, 1))  # (n_axes, n) every axis counts the sequence
    start = before + bool(boundary)
    offset = n_axes - 3
    ids[offset, start:start + grid] = np.tile(np.arange(cols + 1), rows)  # width: column, row-end column last
    ids[offset + 1, start:start + grid] = np.repeat(np.arange(rows), cols + 1)  # height: row
    ids[offset + 2, start:start + grid] = 0  # image ordinal
    return XdIds(ids, start, start + grid, before, before + span, int(ids.max()) + 1)
