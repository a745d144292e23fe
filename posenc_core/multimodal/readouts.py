"""What the lessons read off a numbered mixed sequence (``mm_position_ids``): where each segment starts, what
the image and the video cost in tokens and ids, and how the video's time ids step from one group to the next."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import as_float
from ._blocks import AUDIO, IMAGE, TEXT, VIDEO, MixedIds

__all__ = ["mm_segment_starts", "mm_sequence_summary", "mm_video_groups"]


def mm_segment_starts(result: MixedIds) -> list[int]:
    """For each segment of the sequence, the index of its first own token: past the start token that wraps an
    image, a video or a sound, the first token of a text."""
    starts = []
    for index in range(int(result.segment.max()) + 1):
        tokens = np.flatnonzero(result.segment == index)
        content = tokens[result.kind[tokens] != TEXT]  # (image, video or audio tokens,) or empty for a text
        starts.append(int(content[0] if content.size else tokens[0]))
    return starts


def mm_sequence_summary(result: MixedIds) -> dict:
    """The counts and ids the position-ids lesson states about a sequence.

    Returns:
        dict with ``image_tokens``; ``first_image`` ((t, h, w) ids of the first image token, or None);
        ``video_top_time`` (the largest time id of a video token) and ``after_video`` (the time id of the
        token right after the first video's last frame token), both None without a video; ``frame_times``
        ((lowest, highest) time id of that video's frame tokens) and ``video_audio`` (None, or a dict with
        ``count``, ``first`` and ``last`` id of the audio tokens inside the video: Qwen3-Omni's sound track).
    """
    image, video = np.flatnonzero(result.kind == IMAGE), np.flatnonzero(result.kind == VIDEO)
    summary: dict[str, Any] = {"image_tokens": int(image.size), "video_top_time": None, "after_video": None,
                               "frame_times": None, "video_audio": None,
               "first_image": tuple(float(v) for v in result.ids[:, image[0]]) if image.size else None}
    if not video.size:
        return summary
    in_video = result.segment == result.segment[video[0]]
    frames = np.flatnonzero(in_video & (result.kind == VIDEO))  # (frame tokens,)
    sound = np.flatnonzero(in_video & (result.kind == AUDIO))  # the video's own audio tokens (Qwen3-Omni)
    after = int(frames[-1]) + 1  # a video is always followed by its end token
    summary.update(video_top_time=float(result.ids[0, video].max()), after_video=float(result.ids[0, after]),
                   frame_times=(float(result.ids[0, frames].min()), float(result.ids[0, frames].max())))
    if sound.size:
        summary["video_audio"] = {"count": int(sound.size), "first": float(result.ids[0, sound[0]]),
                                  "last": float(result.ids[0, sound[-1]])}
    return summary


def mm_video_groups(result: MixedIds, fps: float) -> dict:
    """The time id of each temporal group (2 frames) of the sequence's first video and its start in seconds.

    Returns:
        dict with ``seconds`` and ``time_ids`` (groups,), ``steps`` (groups - 1,): how far the time id
        moves from one group to the next, and ``group_seconds`` (2 / fps: how far apart two groups are).
    """
    fps = as_float("fps", fps, above=0.0, maximum=1e4)
    video = np.flatnonzero(result.kind == VIDEO)
    if not video.size:
        raise ValueError("The sequence has no video to read time ids from.")
    video = video[result.segment[video] == result.segment[video[0]]]  # the first video only
    groups = result.cell[video, 0]
    first_of_group = video[np.r_[True, np.diff(groups) != 0]]  # first token of each temporal group
    time_ids = result.ids[0, first_of_group]
    return {"seconds": np.arange(time_ids.size) * 2.0 / fps, "time_ids": time_ids, "steps": np.diff(time_ids),
            "group_seconds": 2.0 / fps}
