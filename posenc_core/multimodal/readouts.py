"""What the lessons read off a numbered mixed sequence (``mm_position_ids``): where each segment starts, what
the image and the video cost in tokens and ids, and how the video's time ids step from one group to the next."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import as_float
from ._blocks import AUDIO, IMAGE, TEXT, VIDEO, MixedIds

__all__ = ["SequenceSummary", "VideoAudio", "VideoGroups", "mm_segment_starts", "mm_sequence_summary",
           "mm_video_groups"]


@dataclass(frozen=True)
class VideoAudio:
    """The audio tokens inside a video (Qwen3-Omni's sound track).

    count: how many; first, last: the time id of the first and of the last.
    """

    count: int
    first: float
    last: float


@dataclass(frozen=True)
class SequenceSummary:
    """The counts and ids the position-ids lesson states about a sequence (``mm_sequence_summary``).

    image_tokens: how many image tokens the sequence holds.
    first_image: (t, h, w) ids of the first image token, or None without an image.
    video_top_time: the largest time id of a video token, or None without a video.
    after_video: the time id of the token right after the first video's last frame token, or None.
    frame_times: (lowest, highest) time id of that video's frame tokens, or None.
    video_audio: the audio tokens inside that video, or None.
    """

    image_tokens: int
    first_image: tuple[float, ...] | None
    video_top_time: float | None = None
    after_video: float | None = None
    frame_times: tuple[float, float] | None = None
    video_audio: VideoAudio | None = None


@dataclass(frozen=True)
class VideoGroups:
    """The temporal groups (2 frames each) of a sequence's first video (``mm_video_groups``).

    seconds: (groups,) each group's start in seconds; time_ids: (groups,) each group's time id.
    steps: (groups - 1,) how far the time id moves from one group to the next.
    group_seconds: 2 / fps, how far apart two groups are in seconds.
    """

    seconds: np.ndarray
    time_ids: np.ndarray
    steps: np.ndarray
    group_seconds: float


def mm_segment_starts(result: MixedIds) -> list[int]:
    """For each segment of the sequence, the index of its first own token: past the start token that wraps an
    image, a video or a sound, the first token of a text."""
    starts = []
    for index in range(int(result.segment.max()) + 1):
        tokens = np.flatnonzero(result.segment == index)
        content = tokens[result.kind[tokens] != TEXT]  # (image, video or audio tokens,) or empty for a text
        starts.append(int(content[0] if content.size else tokens[0]))
    return starts


def mm_sequence_summary(result: MixedIds) -> SequenceSummary:
    """The counts and ids the position-ids lesson states about a sequence.

    Returns:
        A ``SequenceSummary``: ``image_tokens``; ``first_image`` ((t, h, w) ids of the first image token, or None);
        ``video_top_time`` (the largest time id of a video token) and ``after_video`` (the time id of the
        token right after the first video's last frame token), both None without a video; ``frame_times``
        ((lowest, highest) time id of that video's frame tokens) and ``video_audio`` (None, or a ``VideoAudio``:
        ``count``, ``first`` and ``last`` id of the audio tokens inside the video: Qwen3-Omni's sound track).
    """
    image, video = np.flatnonzero(result.kind == IMAGE), np.flatnonzero(result.kind == VIDEO)
    first_image = tuple(float(v) for v in result.ids[:, image[0]]) if image.size else None
    if not video.size:
        return SequenceSummary(int(image.size), first_image)
    in_video = result.segment == result.segment[video[0]]
    frames = np.flatnonzero(in_video & (result.kind == VIDEO))  # (frame tokens,)
    sound = np.flatnonzero(in_video & (result.kind == AUDIO))  # the video's own audio tokens (Qwen3-Omni)
    after = int(frames[-1]) + 1  # a video is always followed by its end token
    audio = (VideoAudio(int(sound.size), float(result.ids[0, sound[0]]), float(result.ids[0, sound[-1]]))
             if sound.size else None)
    return SequenceSummary(int(image.size), first_image, float(result.ids[0, video].max()),
                           float(result.ids[0, after]),
                           (float(result.ids[0, frames].min()), float(result.ids[0, frames].max())), audio)


def mm_video_groups(result: MixedIds, fps: float) -> VideoGroups:
    """The time id of each temporal group (2 frames) of the sequence's first video and its start in seconds.

    Returns:
        A ``VideoGroups``: ``seconds`` and ``time_ids`` (groups,), ``steps`` (groups - 1,): how far the time id
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
    return VideoGroups(np.arange(time_ids.size) * 2.0 / fps, time_ids, np.diff(time_ids), 2.0 / fps)
