"""What position alone lets a model see in an image or a video: scores of one token with the others.

Each probe builds a small prompt (text, the image or video, text), numbers it with the family's
get_rope_index rules and scores one query token against the tokens of interest with ``mm_scores``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import as_int
from .rotary import MRopeSettings, mm_scores
from .sequence import Segment, mm_position_ids

__all__ = ["SCORE_BANDS", "ImageAdvance", "ImageScores", "RowEndScore", "TimeIdTable", "TimeIds", "VideoScores",
           "WiderImage", "mm_image_advance", "mm_image_scores", "mm_row_end_score", "mm_score_band",
           "mm_time_id_table", "mm_time_ids", "mm_video_scores", "mm_wider_image"]

# how close to the query a relative score is: above 0.99 (almost the same place), 0.5 to 0.99, below 0.5
SCORE_BANDS = ("same_place", "between", "elsewhere")


@dataclass(frozen=True)
class ImageAdvance:
    """How far an image moves the position ids (``mm_image_advance``).

    start: the time id of the image's first token.
    next: the id of the text token right after the image.
    advance: next - start, what the image costs in ids (not in tokens).
    """

    start: float
    next: float
    advance: float


@dataclass(frozen=True)
class WiderImage:
    """The same image with twice the columns (``mm_wider_image``).

    now, wider: ``mm_image_advance``'s advance for grid_w and for 2 grid_w columns.
    columns: 2 grid_w; larger_side: max(grid_h, 2 grid_w); added_tokens: grid_h x grid_w.
    candidates: the sorted distinct values among now, now plus one id per added token, and wider.
    """

    now: float
    wider: float
    columns: int
    larger_side: int
    added_tokens: int
    candidates: list[float]


@dataclass(frozen=True)
class ImageScores:
    """Score of one image patch with every patch of the same image (``mm_image_scores``).

    map: (grid_h, grid_w) scores divided by the query's score with itself (1 at the query).
    self_score: the query's raw score with itself.
    right, below: the neighbours' relative scores, NaN at an edge.
    """

    map: np.ndarray
    self_score: float
    right: float
    below: float


@dataclass(frozen=True)
class VideoScores:
    """Score of a video token with the same patch in every temporal group (``mm_video_scores``).

    seconds: (groups,) each group's start time (2 frames per group).
    scores: (groups,) scores divided by the query's score with itself.
    time_ids: (groups,) the time id of that patch in each group.
    time_span: how far that time id moves over the clip (last group's minus first group's).
    """

    seconds: np.ndarray
    scores: np.ndarray
    time_ids: np.ndarray
    time_span: float


@dataclass(frozen=True)
class TimeIds:
    """Time ids of a 1 x 1 video's temporal groups (``mm_time_ids``).

    seconds: (groups,) each group's start time; time_ids: (groups,) relative to the first group's.
    """

    seconds: np.ndarray
    time_ids: np.ndarray


@dataclass(frozen=True)
class TimeIdTable:
    """Time ids of one clip length at several fps under several families (``mm_time_id_table``).

    seconds: (k,) every group start time of any clip, sorted.
    series: {(family key, fps): (k,) time ids, NaN at times where that clip has no group}.
    last: {(family key, fps): the time id of that clip's last group}.
    group_seconds: {fps: 2 / fps, the time one group of 2 frames spans}.
    last_start: {fps: when the last group starts, in seconds}.
    """

    seconds: np.ndarray
    series: dict[tuple[str, float], np.ndarray]
    last: dict[tuple[str, float], float]
    group_seconds: dict[float, float]
    last_start: dict[float, float]


@dataclass(frozen=True)
class RowEndScore:
    """The query scored with the last patch of its row in a wider image (``mm_row_end_score``).

    columns: the wider image's width; col: its last column; distance: columns from the query.
    score: relative to the query's score with itself.
    """

    columns: int
    col: int
    distance: int
    score: float


def mm_image_advance(family_key: str, grid_h: int, grid_w: int) -> ImageAdvance:
    """How far an image moves the position ids: the text token right after a ``grid_h`` x ``grid_w`` image,
    numbered by the family's get_rope_index rules, against the image's first token.

    Returns an ``ImageAdvance``: ``start`` (the time id of the image's first token), ``next`` (the id of the text
    token right after the image) and ``advance`` (``next - start``: what the image costs in ids, not in tokens).
    """
    h = as_int("image rows", grid_h, minimum=1, maximum=64)
    w = as_int("image columns", grid_w, minimum=1, maximum=64)
    result = mm_position_ids(family_key, [Segment("text", tokens=1), Segment("image", h=h, w=w),
                                          Segment("text", tokens=1)])
    image = np.flatnonzero(result.kind == 1)  # (h·w,) raster order; the end token follows the last one
    start, after = float(result.ids[0, image[0]]), float(result.ids[0, image[-1] + 1])
    return ImageAdvance(start, after, after - start)


def mm_wider_image(family_key: str, grid_h: int, grid_w: int) -> WiderImage:
    """A what-if on an image's cost in ids: the same image with twice the columns.

    Returns:
        A ``WiderImage``: ``now`` and ``wider``  (``mm_image_advance``'s advance for grid_w and 2 grid_w columns),
        ``columns`` (2 grid_w), ``larger_side`` (max(grid_h, 2 grid_w)), ``added_tokens`` (grid_h x grid_w),
        and ``candidates``: the sorted distinct values among now, now plus one id per added token, and wider
        (the options of the lesson's question).
    """
    h = as_int("image rows", grid_h, minimum=1, maximum=64)
    w = as_int("image columns", grid_w, minimum=1, maximum=32)
    now, wider = (mm_image_advance(family_key, h, cols).advance for cols in (w, 2 * w))
    return WiderImage(now, wider, 2 * w, max(h, 2 * w), h * w, sorted({now, now + h * w, wider}))


def mm_image_scores(family_key: str, settings: MRopeSettings, grid_h: int, grid_w: int, row: int, col: int, *,
                    vectors: str = "ones",
                    text_before: int = 4) -> ImageScores:
    """Score of the patch at (row, col) of an image with every patch of the same image.

    Returns an ``ImageScores``: ``map`` (grid_h, grid_w) of scores divided by the query's score with itself (1 at
    the query, comparable across head sizes), ``right`` / ``below`` (the neighbours' values, NaN at an edge)
    and ``self_score`` (the query's raw score with itself).
    """
    h = as_int("grid_h", grid_h, minimum=1, maximum=64)
    w = as_int("grid_w", grid_w, minimum=1, maximum=64)
    row = as_int("row", row, minimum=0, maximum=h - 1)
    col = as_int("col", col, minimum=0, maximum=w - 1)
    result = mm_position_ids(family_key, [Segment("text", tokens=text_before), Segment("image", h=h, w=w),
                                          Segment("text", tokens=2)])
    image = np.flatnonzero(result.kind == 1)  # (h·w,) raster order, as get_vision_position_ids lays them out
    raw = mm_scores(settings, result.ids, int(image[row * w + col]), vectors=vectors)[image].reshape(h, w)
    scores = raw / raw[row, col]
    return ImageScores(scores, float(raw[row, col]), float(scores[row, col + 1]) if col + 1 < w else float("nan"),
                       float(scores[row + 1, col]) if row + 1 < h else float("nan"))


def mm_video_scores(family_key: str, settings: MRopeSettings, frames: int, grid_h: int, grid_w: int, fps: float,
                    row: int, col: int, group: int, *,
                    vectors: str = "ones", frame_text: int | None = None, **time: Any) -> VideoScores:
    """Score of the video token at (group, row, col) with the same patch in every temporal group.

    Returns a ``VideoScores``: ``seconds`` (the group's start time, 2 frames per group), ``scores`` (divided by the
    query's score with itself) and ``time_ids`` (the time id of that patch in each group), each (groups,),
    and ``time_span``: how far that time id moves over the clip (last group's minus first group's).
    """
    video = Segment("video", frames=frames, h=grid_h, w=grid_w, fps=fps)
    result = mm_position_ids(family_key, [Segment("text", tokens=4), video, Segment("text", tokens=2)],
                             frame_text=frame_text, **time)
    groups = frames // 2
    row = as_int("row", row, minimum=0, maximum=grid_h - 1)
    col = as_int("col", col, minimum=0, maximum=grid_w - 1)
    group = as_int("group", group, minimum=0, maximum=groups - 1)
    same = np.flatnonzero((result.kind == 2) & (result.cell[:, 1] == row) & (result.cell[:, 2] == col))  # (groups,)
    raw = mm_scores(settings, result.ids, int(same[group]), vectors=vectors)[same]
    time_ids = result.ids[0, same]  # (groups,)
    return VideoScores(np.arange(groups) * 2.0 / video.fps, raw / raw[group], time_ids,
                       float(time_ids[-1] - time_ids[0]))


def mm_time_ids(family_key: str, frames: int, fps: float, *, frame_text: int | None = None,
                **time: Any) -> TimeIds:
    """Time ids of a 1 x 1 video's temporal groups, relative to the first: how a family spaces time.

    Returns a ``TimeIds``: ``seconds`` and ``time_ids`` (groups,).
    """
    result = mm_position_ids(family_key, [Segment("text", tokens=1), Segment("video", frames=frames, h=1, w=1,
                                                                                    fps=fps)],
                             frame_text=frame_text, **time)
    ids = result.ids[0, result.kind == 2]
    return TimeIds(np.arange(ids.size) * 2.0 / fps, ids - ids[0])


def mm_time_id_table(frames: int, fps_values: Sequence[float], family_keys: Sequence[str]) -> TimeIdTable:
    """Time ids of the same clip length at several fps under several families, on one axis of seconds.

    Returns a ``TimeIdTable``: ``seconds`` (every group start time of any clip, sorted), ``series``:
    {(family, fps): (len(seconds),) time ids, NaN at times where that clip has no group}, ``last``:
    {same keys: the time id of that clip's last group}, and per fps ``group_seconds`` {fps: 2 / fps, the
    time one group of 2 frames spans} and ``last_start`` {fps: when the last group starts, in seconds}.
    """
    runs = {(key, fps): mm_time_ids(key, frames, fps) for key in family_keys for fps in fps_values}
    seconds = np.unique(np.concatenate([r.seconds for r in runs.values()]))
    series = {}
    for clip, run in runs.items():
        column = np.full(seconds.shape, np.nan)
        column[np.searchsorted(seconds, run.seconds)] = run.time_ids
        series[clip] = column
    return TimeIdTable(seconds, series, {clip: float(run.time_ids[-1]) for clip, run in runs.items()},
                       {fps: 2.0 / fps for fps in fps_values},
                       {fps: float(runs[(family_keys[0], fps)].seconds[-1]) for fps in fps_values})


def mm_score_band(score: float) -> int:
    """The index in ``SCORE_BANDS`` of a relative score: above 0.99, 0.5 to 0.99, or below 0.5."""
    value = float(score)
    return 0 if value > 0.99 else 1 if value >= 0.5 else 2


def mm_row_end_score(family_key: str, settings: MRopeSettings, grid_h: int, grid_w: int, row: int, col: int, *,
                     widen: int = 2) -> RowEndScore:
    """A what-if on the image map: make the image ``widen`` times as wide and score the query patch with the
    last patch of its own row, same content everywhere (``mm_image_scores`` on the wider image).

    Returns:
        A ``RowEndScore``: ``columns`` (the wider image's width), ``col`` (its last column), ``distance`` (columns
        from the query) and ``score`` (relative to the query's score with itself).
    """
    w = as_int("grid_w", grid_w, minimum=1, maximum=64)
    widen = as_int("widen", widen, minimum=1, maximum=8)
    columns = min(64, w * widen)
    wider = mm_image_scores(family_key, settings, grid_h, columns, row, col).map  # (h, columns)
    return RowEndScore(columns, columns - 1, columns - 1 - int(col), float(wider[int(row), columns - 1]))
