"""What position alone lets a model see in an image or a video: scores of one token with the others.

Each probe builds a small prompt (text, the image or video, text), numbers it with the family's
get_rope_index rules and scores one query token against the tokens of interest with ``mm_scores``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._checks import as_int
from .rotary import MRopeSettings, mm_scores
from .sequence import Segment, mm_position_ids

__all__ = ["SCORE_BANDS", "mm_image_advance", "mm_image_scores", "mm_row_end_score", "mm_score_band",
           "mm_time_id_table", "mm_time_ids", "mm_video_scores", "mm_wider_image"]

# how close to the query a relative score is, in the words of the lesson's question
SCORE_BANDS = ("above 0.99: almost the same place", "between 0.5 and 0.99", "below 0.5: clearly elsewhere")


def mm_image_advance(family_key: str, grid_h: int, grid_w: int) -> dict:
    """How far an image moves the position ids: the text token right after a ``grid_h`` x ``grid_w`` image,
    numbered by the family's get_rope_index rules, against the image's first token.

    Returns dict with ``start`` (the time id of the image's first token), ``next`` (the id of the text token
    right after the image) and ``advance`` (``next - start``: what the image costs in ids, not in tokens).
    """
    h = as_int("image rows", grid_h, minimum=1, maximum=64)
    w = as_int("image columns", grid_w, minimum=1, maximum=64)
    result = mm_position_ids(family_key, [Segment("text", tokens=1), Segment("image", h=h, w=w),
                                          Segment("text", tokens=1)])
    image = np.flatnonzero(result.kind == 1)  # (h·w,) raster order; the end token follows the last one
    start, after = float(result.ids[0, image[0]]), float(result.ids[0, image[-1] + 1])
    return {"start": start, "next": after, "advance": after - start}


def mm_wider_image(family_key: str, grid_h: int, grid_w: int) -> dict:
    """A what-if on an image's cost in ids: the same image with twice the columns.

    Returns:
        dict with ``now`` and ``wider`` (``mm_image_advance``'s advance for grid_w and 2 grid_w columns),
        ``columns`` (2 grid_w), ``larger_side`` (max(grid_h, 2 grid_w)), ``added_tokens`` (grid_h x grid_w),
        and ``candidates``: the sorted distinct values among now, now plus one id per added token, and wider
        (the options of the lesson's question).
    """
    h = as_int("image rows", grid_h, minimum=1, maximum=64)
    w = as_int("image columns", grid_w, minimum=1, maximum=32)
    now, wider = (mm_image_advance(family_key, h, cols)["advance"] for cols in (w, 2 * w))
    return {"now": now, "wider": wider, "columns": 2 * w, "larger_side": max(h, 2 * w), "added_tokens": h * w,
            "candidates": sorted({now, now + h * w, wider})}


def mm_image_scores(family_key: str, settings: MRopeSettings, grid_h: int, grid_w: int, row: int, col: int, *,
                    vectors: str = "ones",
                    text_before: int = 4) -> dict:
    """Score of the patch at (row, col) of an image with every patch of the same image.

    Returns dict with ``map`` (grid_h, grid_w) of scores divided by the query's score with itself (1 at the
    query, comparable across head sizes), ``right`` / ``below`` (the neighbours' values, NaN at an edge)
    and ``self`` (the query's raw score with itself).
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
    return {"map": scores, "self": float(raw[row, col]),
            "right": float(scores[row, col + 1]) if col + 1 < w else float("nan"),
            "below": float(scores[row + 1, col]) if row + 1 < h else float("nan")}


def mm_video_scores(family_key: str, settings: MRopeSettings, frames: int, grid_h: int, grid_w: int, fps: float,
                    row: int, col: int, group: int, *,
                    vectors: str = "ones", frame_text: int | None = None, **time: Any) -> dict:
    """Score of the video token at (group, row, col) with the same patch in every temporal group.

    Returns dict with ``seconds`` (the group's start time, 2 frames per group), ``scores`` (divided by the
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
    return {"seconds": np.arange(groups) * 2.0 / video.fps, "scores": raw / raw[group], "time_ids": time_ids,
            "time_span": float(time_ids[-1] - time_ids[0])}


def mm_time_ids(family_key: str, frames: int, fps: float, *, frame_text: int | None = None, **time: Any) -> dict:
    """Time ids of a 1 x 1 video's temporal groups, relative to the first: how a family spaces time.

    Returns dict with ``seconds`` and ``time_ids`` (groups,).
    """
    result = mm_position_ids(family_key, [Segment("text", tokens=1), Segment("video", frames=frames, h=1, w=1,
                                                                                    fps=fps)],
                             frame_text=frame_text, **time)
    ids = result.ids[0, result.kind == 2]
    return {"seconds": np.arange(ids.size) * 2.0 / fps, "time_ids": ids - ids[0]}


def mm_time_id_table(frames: int, fps_values: Sequence[float], family_keys: Sequence[str]) -> dict:
    """Time ids of the same clip length at several fps under several families, on one axis of seconds.

    Returns dict with ``seconds`` (every group start time of any clip, sorted), ``series``:
    {"<family> at <fps> fps": (len(seconds),) time ids, NaN at times where that clip has no group}, ``last``:
    {same keys: the time id of that clip's last group}, and per fps ``group_seconds`` {fps: 2 / fps, the
    time one group of 2 frames spans} and ``last_start`` {fps: when the last group starts, in seconds}.
    """
    runs = {(key, fps): mm_time_ids(key, frames, fps) for key in family_keys for fps in fps_values}
    seconds = np.unique(np.concatenate([r["seconds"] for r in runs.values()]))
    series = {}
    for (key, fps), run in runs.items():
        column = np.full(seconds.shape, np.nan)
        column[np.searchsorted(seconds, run["seconds"])] = run["time_ids"]
        series[f"{key} at {fps:g} fps"] = column
    return {"seconds": seconds, "series": series,
            "last": {f"{key} at {fps:g} fps": float(run["time_ids"][-1]) for (key, fps), run in runs.items()},
            "group_seconds": {fps: 2.0 / fps for fps in fps_values},
            "last_start": {fps: float(runs[(family_keys[0], fps)]["seconds"][-1]) for fps in fps_values}}


def mm_score_band(score: float) -> int:
    """The index in ``SCORE_BANDS`` of a relative score: above 0.99, 0.5 to 0.99, or below 0.5."""
    value = float(score)
    return 0 if value > 0.99 else 1 if value >= 0.5 else 2


def mm_row_end_score(family_key: str, settings: MRopeSettings, grid_h: int, grid_w: int, row: int, col: int, *,
                     widen: int = 2) -> dict:
    """A what-if on the image map: make the image ``widen`` times as wide and score the query patch with the
    last patch of its own row, same content everywhere (``mm_image_scores`` on the wider image).

    Returns:
        dict with ``columns`` (the wider image's width), ``col`` (its last column), ``distance`` (columns
        from the query) and ``score`` (relative to the query's score with itself).
    """
    w = as_int("grid_w", grid_w, minimum=1, maximum=64)
    widen = as_int("widen", widen, minimum=1, maximum=8)
    columns = min(64, w * widen)
    wider = mm_image_scores(family_key, settings, grid_h, columns, row, col)["map"]  # (h, columns)
    return {"columns": columns, "col": columns - 1, "distance": columns - 1 - int(col),
            "score": float(wider[int(row), columns - 1])}
