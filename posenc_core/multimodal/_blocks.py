"""Building blocks shared by the id rules: the prompt's segments, the result, and get_vision_position_ids."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .families import MMFamily

__all__ = ["MAX_MM_TOKENS", "MAX_SIDE", "MEL_FRAMES_PER_SECOND", "SEGMENT_KINDS", "MixedIds", "Segment", "padded_rows"]

SEGMENT_KINDS = ("text", "image", "video", "audio")
TEXT, IMAGE, VIDEO, AUDIO = range(4)
MAX_MM_TOKENS = 20_000  # a bounded page: a 32 x 32 image is 1,024 tokens
MAX_SIDE = 64  # language-model tokens per image side (a 1,792-pixel side at patch 14 and merge 2)
MEL_FRAMES_PER_SECOND = 100  # Whisper-style features: a 10 ms hop at 16 kHz


@dataclass(frozen=True)
class Segment:
    """One piece of the prompt. Sizes are in language-model tokens, after the vision tower's 2 x 2 merge.

    text: ``tokens``; image: ``h`` x ``w``; video: ``frames`` sampled frames (two frames make one
    temporal group) of ``h`` x ``w`` at ``fps``, ``audio=True`` for its sound track (Qwen3-Omni);
    audio: ``seconds`` of sound (Qwen3-Omni).
    """
    kind: str
    tokens: int = 0
    h: int = 0
    w: int = 0
    frames: int = 0
    fps: float = 2.0
    seconds: float = 0.0
    audio: bool = False


@dataclass
class MixedIds:
    ids: np.ndarray  # (3, n) float64: rows t, h, w (whole numbers except Qwen3-Omni's video time)
    kind: np.ndarray  # (n,) int8: 0 text, 1 image, 2 video, 3 audio
    segment: np.ndarray  # (n,) int: index of the Segment each token belongs to (wrappers included)
    cell: np.ndarray  # (n, 3) int: (frame group, row, column) of a vision token, -1 elsewhere
    next_text: float  # the id a text token written right after the prompt would get
    next_generated: float  # the id of the first generated token (max + 1, the model's rope delta)
    inputs: dict = field(default_factory=dict)  # what the model's get_rope_index is called with


class _Builder:
    """Collects tokens (kind, segment, cell) and their id columns in order.

    ``dtype`` is the arithmetic of the model's ids: Qwen3-Omni keeps them in a float32 tensor, so every
    start (max + 1) and every sum with it is rounded to float32 there; the others are whole numbers.
    """

    def __init__(self, dtype=np.float64):
        self.kind, self.segment, self.cell, self.chunks = [], [], [], []
        self.dtype = dtype

    def add(self, ids: np.ndarray, kind: int, segment: int, cells=None):  # ids: (3, n)
        n = ids.shape[1]
        self.chunks.append(np.asarray(ids).astype(self.dtype).astype(np.float64))
        self.kind += [kind] * n
        self.segment += [segment] * n
        self.cell += [(-1, -1, -1)] * n if cells is None else list(cells)

    def text(self, n: int, start, segment: int):
        self.add(np.broadcast_to(np.arange(n).astype(self.dtype) + self.dtype(start), (3, n)), TEXT, segment)

    def last_max(self) -> float:  # llm_pos_ids_list[-1].max() + 1 in the Omni code
        return float(self.dtype(self.chunks[-1].max()) + self.dtype(1)) if self.chunks else 0.0

    def result(self, next_text: float, inputs: dict) -> MixedIds:
        ids = np.concatenate(self.chunks, axis=1) if self.chunks else np.zeros((3, 0))
        return MixedIds(ids, np.array(self.kind, np.int8), np.array(self.segment, np.int64),
                        np.array(self.cell, np.int64).reshape(-1, 3), next_text,
                        float(ids.max()) + 1.0 if ids.size else 0.0, inputs)


def _grid(start, t_ids: np.ndarray, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """get_vision_position_ids: (3, t·h·w) ids in (frame, row, column) order, and each token's cell."""
    tt, hh, ww = np.meshgrid(np.arange(len(t_ids)), np.arange(h), np.arange(w), indexing="ij")
    cells = np.stack([tt.ravel(), hh.ravel(), ww.ravel()], axis=1)  # (t·h·w, 3)
    ids = np.stack([t_ids[cells[:, 0]] + start, cells[:, 1] + start, cells[:, 2] + start])  # (3, t·h·w)
    return ids, cells


def _video_time(family: MMFamily, groups: int, fps: float) -> np.ndarray:
    """Temporal ids of a video's groups before the start offset, as get_rope_index forms them (float32 math)."""
    k = np.arange(groups, dtype=np.float32)
    if family.time_rule == "seconds":  # Qwen2.5-VL: tokens_per_second · second_per_grid_t, truncated to int
        interval = np.float32(family.tokens_per_second) * np.float32(family.temporal_patch / fps)
        return np.trunc(k * interval).astype(np.float64)
    if family.time_rule == "omni_seconds":  # Qwen3-Omni keeps the fractional ids
        second_per_grid = np.float32(family.temporal_patch / fps)
        return ((k * second_per_grid) * np.float32(family.position_id_per_seconds)).astype(np.float64)
    return k.astype(np.float64)


def padded_rows(rows: list[np.ndarray]) -> np.ndarray:
    """Rows of different lengths stacked into one float64 table, NaN past each row's end. (rows, longest)."""
    width = max(r.size for r in rows)
    return np.stack([np.pad(np.asarray(r, dtype=np.float64), (0, width - r.size), constant_values=np.nan)
                     for r in rows])
