"""Qwen3-Omni's thinker numbering (TMRoPE): its own get_rope_index, with audio and a video's sound on one time axis."""

from __future__ import annotations

import numpy as np

from .._checks import as_float
from ._blocks import AUDIO, IMAGE, MEL_FRAMES_PER_SECOND, VIDEO, MixedIds, _Builder, _grid, _video_time
from .families import MMFamily

__all__ = ["omni_audio_tokens"]


def omni_audio_tokens(seconds: float, n_window: int = 50) -> tuple[int, int]:
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
