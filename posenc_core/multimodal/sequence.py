"""Position ids of a mixed text / image / video / audio sequence, as each family's get_rope_index computes them.

A sequence is a list of ``Segment``s. ``mm_position_ids`` lays it out token by token the way the
family's processor does (every image, video and audio wrapped in start/end text tokens; for families
that write time as text, a time stamp between frames) and numbers the tokens with the rules of the
family's ``get_rope_index`` in transformers 5.23 (tests/test_multimodal.py checks them against it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .._checks import as_float, as_int, check_size
from .families import MMFamily, mm_family

__all__ = ["MAX_MM_TOKENS", "SEGMENT_KINDS", "MixedIds", "Segment", "mm_position_ids", "omni_audio_tokens",
           "parse_segments"]

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


def omni_audio_tokens(seconds, n_window=50) -> tuple[int, int]:
    """(mel frames, audio tokens) for ``seconds`` of sound, as Qwen3-Omni's _get_feat_extract_output_lengths counts.

    The encoder works on chunks of 2 · n_window mel frames; a full chunk gives 13 tokens, a partial
    chunk is downsampled by 2 three times.
    """
    seconds = as_float("seconds", seconds, minimum=0.0, maximum=600.0)
    frames = int(round(seconds * MEL_FRAMES_PER_SECOND))
    chunk = 2 * n_window
    leave = frames % chunk
    feat = (leave - 1) // 2 + 1
    return frames, ((feat - 1) // 2 + 1 - 1) // 2 + 1 + (frames // chunk) * 13


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


def mm_position_ids(family_key, segments, *, frame_text=None, n_window=50, tokens_per_second=None,
                    position_id_per_seconds=None) -> MixedIds:
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


def _omni_ids(family: MMFamily, segments, frame_text: int, n_window: int) -> MixedIds:
    """Qwen3-Omni's thinker: every block starts one past the last id written (its get_rope_index)."""
    out = _Builder(np.float32)
    images, videos, seconds_per_grid, audio_frames, layout = [], [], [], [], []
    use_audio_in_video = any(s.kind == "video" and s.audio for s in segments)
    if use_audio_in_video and any(s.kind == "video" and not s.audio for s in segments):
        raise ValueError("Qwen3-Omni reads the sound of every video in a prompt or of none "
                         "(use_audio_in_video is one switch); set it the same on every video.")
    for index, s in enumerate(segments):
        start = out.last_max()
        if s.kind == "text":
            out.text(s.tokens, start, index)
            layout += ["text"] * s.tokens
            continue
        wrap = 2 if s.kind == "video" and s.audio else 1  # <|vision_start|><|audio_start|> around sound+video
        out.text(wrap, start, index)
        layout += ["vision_start", "audio_start"][:wrap] if s.kind != "audio" else ["audio_start"]
        start += wrap
        if s.kind == "audio":
            mel, n_audio = omni_audio_tokens(s.seconds, n_window)
            audio_frames.append(mel)
            out.add(np.broadcast_to(np.arange(n_audio, dtype=np.float32) + np.float32(start), (3, n_audio)), AUDIO,
                    index)
            layout += ["audio"] * n_audio
        elif s.kind == "image":
            ids, cells = _grid(np.float32(start), np.zeros(1), s.h, s.w)
            images.append((1, s.h * family.spatial_merge, s.w * family.spatial_merge))
            out.add(ids, IMAGE, index, cells)
            layout += ["image"] * (s.h * s.w)
        else:
            groups = s.frames // family.temporal_patch
            videos.append((groups, s.h * family.spatial_merge, s.w * family.spatial_merge))
            seconds_per_grid.append(family.temporal_patch / s.fps)
            t_ids = _video_time(family, groups, s.fps)
            ids, cells = _grid(0, t_ids, s.h, s.w)
            ids = (ids.astype(np.float32) + np.float32(start)).astype(np.float64)  # float32, as the model adds
            if not s.audio:
                out.add(ids, VIDEO, index, cells)
                layout += ["video"] * ids.shape[1]
            else:
                mel, n_audio = omni_audio_tokens(s.frames / s.fps, n_window)
                audio_frames.append(mel)
                audio_ids = (np.arange(n_audio, dtype=np.float32) + np.float32(start)).astype(np.float64)
                _merge_by_time(out, ids, cells, audio_ids, index, layout)
        end = out.last_max()
        out.text(wrap, end, index)
        layout += (["audio_end", "vision_end"][:wrap] if s.kind != "audio" else ["audio_end"])
    inputs = {"layout": layout, "image_grid_thw": images, "video_grid_thw": videos,
              "second_per_grid_ts": seconds_per_grid, "audio_seqlens": audio_frames,
              "use_audio_in_video": use_audio_in_video}
    return out.result(out.last_max(), inputs)


def _merge_by_time(out: _Builder, video_ids, cells, audio_ids, index: int, layout: list) -> None:
    """TMRoPE: video and audio tokens in order of their time id (video first on a tie), as the model merges them."""
    v = a = 0
    n_v, n_a = video_ids.shape[1], audio_ids.shape[0]
    while v < n_v and a < n_a:
        if video_ids[0, v] <= audio_ids[a]:
            out.add(video_ids[:, v:v + 1], VIDEO, index, cells[v:v + 1])
            layout.append("video")
            v += 1
        else:
            out.add(np.full((3, 1), audio_ids[a], dtype=np.float64), AUDIO, index)
            layout.append("audio")
            a += 1
    if v < n_v:  # the model appends each tail as one chunk; the end token follows the last chunk's max
        out.add(video_ids[:, v:], VIDEO, index, cells[v:])
        layout += ["video"] * (n_v - v)
    if a < n_a:
        out.add(np.broadcast_to(audio_ids[a:], (3, n_a - a)), AUDIO, index)
        layout += ["audio"] * (n_a - a)
