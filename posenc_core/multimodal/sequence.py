"""Position ids of a mixed text / image / video / audio sequence, as each family's get_rope_index computes them.

A sequence is a list of ``Segment``s. ``mm_position_ids`` lays it out token by token the way the
family's processor does (every image, video and audio wrapped in start/end text tokens; for families
that write time as text, a time stamp between frames) and numbers the tokens with the rules of the
family's ``get_rope_index`` in transformers 5.23 (tests/test_multimodal.py checks them against it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from .._checks import as_float, as_int, check_size
from ._blocks import (
    IMAGE,
    MAX_MM_TOKENS,
    MAX_SIDE,
    SEGMENT_KINDS,
    VIDEO,
    MixedIds,
    Segment,
    _Builder,
    _grid,
    _video_time,
)
from .families import MMFamily, mm_family
from .omni import _omni_ids, omni_audio_tokens

__all__ = ["MAX_MM_TOKENS", "SEGMENT_KINDS", "MixedIds", "Segment", "mm_position_ids", "omni_audio_tokens",
           "parse_segments"]


def parse_segments(spec: str) -> list[Segment]:
    """Read a compact prompt description, e.g. ``"text 4, image 3x4, text 2, video 4f 2x2 @2, audio 1.5s"``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("Describe the sequence, e.g. 'text 4, image 3x4, text 2'.")
    if len(spec) > 400:
        raise ValueError("The sequence description is longer than 400 characters; use fewer segments.")
    segments = []
    for part in (p.strip() for p in spec.split(",")):
        words = part.split()
        if not words or words[0] not in SEGMENT_KINDS:
            raise ValueError(f"'{part}' should start with one of {', '.join(SEGMENT_KINDS)}.")
        try:
            segments.append(_parse_one(words))
        except (IndexError, ValueError) as error:
            raise ValueError(f"Could not read '{part}': {error}") from None
    return segments


def _parse_one(words: list[str]) -> Segment:
    kind, rest = words[0], words[1:]
    if kind == "text":
        return Segment("text", tokens=int(rest[0]))
    if kind == "audio":
        return Segment("audio", seconds=float(rest[0].rstrip("s")))
    if kind == "image":
        h, w = rest[0].lower().split("x")
        return Segment("image", h=int(h), w=int(w))
    frames = int(rest[0].rstrip("f"))
    h, w = rest[1].lower().split("x")
    fps = float(rest[2].lstrip("@")) if len(rest) > 2 and rest[2].startswith("@") else 2.0
    return Segment("video", frames=frames, h=int(h), w=int(w), fps=fps, audio="+audio" in rest)


def _check(segment: Segment, family: MMFamily) -> Segment:
    kind = segment.kind
    if kind not in SEGMENT_KINDS:
        raise ValueError(f"A segment's kind must be one of {', '.join(SEGMENT_KINDS)}, but got {kind!r}.")
    if kind == "text":
        as_int("A text segment's length", segment.tokens, minimum=1, maximum=MAX_MM_TOKENS)
    elif kind in ("image", "video"):
        as_int(f"The {kind}'s height in tokens", segment.h, minimum=1, maximum=MAX_SIDE)
        as_int(f"The {kind}'s width in tokens", segment.w, minimum=1, maximum=MAX_SIDE)
    if kind == "video":
        frames = as_int("The number of frames", segment.frames, minimum=family.temporal_patch, maximum=512)
        if frames % family.temporal_patch:
            raise ValueError(f"The number of frames must be a multiple of {family.temporal_patch}: the vision tower "
                             f"packs {family.temporal_patch} frames into one temporal patch; got {frames}.")
        as_float("fps", segment.fps, minimum=0.1, maximum=60.0)
        if segment.audio and not family.audio:
            raise ValueError(f"{family.name} has no audio input; only Qwen3-Omni reads a video's sound.")
    if kind == "audio":
        if not family.audio:
            raise ValueError(f"{family.name} has no audio input; choose Qwen3-Omni for audio.")
        as_float("The audio's length in seconds", segment.seconds, minimum=0.1, maximum=600.0)
    return segment


def mm_position_ids(family_key: str, segments: Sequence[Segment], *, frame_text: int | None = None, n_window: int = 50,
                    tokens_per_second: int | None = None,
                    position_id_per_seconds: int | None = None) -> MixedIds:
    """The (3, n) position ids of a mixed sequence under ``family_key``'s get_rope_index.

    Args:
        family_key: a key of MM_FAMILIES.
        segments: Segments in prompt order; two images or videos need text between them (the
            processor's start/end tokens are added here, so any text length of 1 or more works).
        frame_text: text tokens between two frames for families that write time as text (default:
            the family's estimate; the real count depends on the tokenizer).
        n_window: Qwen3-Omni's audio_config.n_window.
        tokens_per_second, position_id_per_seconds: a config's values in place of the family's
            (Qwen2.5-VL's vision_config.tokens_per_second, Qwen3-Omni's thinker_config.position_id_per_seconds).

    Returns:
        MixedIds with the ids, each token's kind, segment and cell, the id the next text token gets and
        the inputs (mm_token_type_ids, grids, ...) to call the model's get_rope_index with.

    >>> from posenc_core.multimodal import parse_segments
    >>> mixed = pc.mm_position_ids('qwen2_vl', parse_segments('text 2, image 4x4, text 1'))
    >>> mixed.ids[:, -1].tolist()  # (time, height, width) of the last text token
    [8.0, 8.0, 8.0]
    """
    family = mm_family(family_key)
    if tokens_per_second is not None:
        family = replace(family, tokens_per_second=as_int("tokens_per_second", tokens_per_second, minimum=1,
                                                          maximum=1000))
    if position_id_per_seconds is not None:
        family = replace(family, position_id_per_seconds=as_int("position_id_per_seconds", position_id_per_seconds,
                                                                minimum=1, maximum=1000))
    n_window = as_int("n_window", n_window, minimum=1, maximum=10_000)
    segments = [_check(s, family) for s in segments]
    if not segments:
        raise ValueError("The sequence is empty: add at least one segment.")
    frame_text = family.frame_text if frame_text is None else as_int("frame_text", frame_text, minimum=1,
                                                                      maximum=64)
    total = _count_tokens(family, segments, frame_text, n_window)
    check_size(total * 3, "The position ids")
    if total > MAX_MM_TOKENS:
        raise ValueError(f"This sequence has {total:,} tokens; the page keeps to {MAX_MM_TOKENS:,}. Use a smaller "
                         "image, fewer frames or shorter text.")
    build = _omni_ids if family.time_rule == "omni_seconds" else _grid_ids
    return build(family, segments, frame_text, n_window)


def _count_tokens(family, segments, frame_text, n_window) -> int:
    total = 0
    for s in segments:
        if s.kind == "text":
            total += s.tokens
        elif s.kind == "image":
            total += 2 + s.h * s.w
        elif s.kind == "audio":
            total += 2 + omni_audio_tokens(s.seconds, n_window)[1]
        else:
            groups = s.frames // family.temporal_patch
            total += 2 + groups * s.h * s.w
            if family.time_rule == "text_timestamps":
                total += (groups - 1) * frame_text
            if s.audio:
                total += 2 + omni_audio_tokens(s.frames / s.fps, n_window)[1]
    return total


def _grid_ids(family: MMFamily, segments, frame_text: int, n_window: int) -> MixedIds:
    """Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5, GLM-4V, ERNIE 4.5 VL: one running position ``current``."""
    out, current = _Builder(), 0
    images, videos, seconds_per_grid = [], [], []
    for index, s in enumerate(segments):
        if s.kind == "text":
            out.text(s.tokens, current, index)
            current += s.tokens
            continue
        out.text(1, current, index)  # <|vision_start|> (or the family's begin-of-image token)
        current += 1
        if s.kind == "image":
            ids, cells = _grid(current, np.zeros(1), s.h, s.w)
            out.add(ids, IMAGE, index, cells)
            images.append((1, s.h * family.spatial_merge, s.w * family.spatial_merge))
            current += max(s.h, s.w)  # get_rope_index advances by the larger side, not by the id maximum
        else:
            groups = s.frames // family.temporal_patch
            videos.append((groups * family.temporal_merge, s.h * family.spatial_merge, s.w * family.spatial_merge))
            seconds_per_grid.append(family.temporal_patch / s.fps)
            if family.time_rule == "text_timestamps":  # each frame is its own grid; a time stamp in between
                for g in range(groups):
                    if g:
                        out.text(frame_text, current, index)
                        current += frame_text
                    ids, cells = _grid(current, np.zeros(1), s.h, s.w)
                    cells[:, 0] = g
                    out.add(ids, VIDEO, index, cells)
                    current += max(s.h, s.w)
            else:
                ids, cells = _grid(current, _video_time(family, groups, s.fps), s.h, s.w)
                out.add(ids, VIDEO, index, cells)
                current += max(s.h, s.w)
        out.text(1, current, index)  # <|vision_end|>
        current += 1
    inputs = {"mm_token_type_ids": [int(k) for k in out.kind], "image_grid_thw": images, "video_grid_thw": videos,
              "second_per_grid_ts": seconds_per_grid}
    return out.result(float(current), inputs)
