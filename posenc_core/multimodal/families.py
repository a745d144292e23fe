"""The vision-language families whose multimodal RoPE transformers 5.23 implements, as data.

Each family is one row: how its ``get_rope_index`` numbers a video's time axis, which rotary pairs
each axis turns, and its published defaults. Functions elsewhere in the package take a family key
and read what they need from here (a registry, not an if-chain over model names).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ALLOCATIONS", "MM_FAMILIES", "TIME_RULES", "MMFamily", "mm_family"]

# How a video's temporal id is formed (read from each family's get_rope_index in transformers 5.23):
TIME_RULES = ("frame_index", "seconds", "text_timestamps", "omni_seconds")

# Which rotary pairs each axis turns (the text model's recomposition_frequencies):
ALLOCATIONS = ("chunked", "interleaved", "ernie3d")


@dataclass(frozen=True)
class MMFamily:
    key: str
    name: str
    model_type: str  # config.json's model_type (top level)
    time_rule: str  # a key of TIME_RULES
    allocation: str  # a key of ALLOCATIONS
    pair_layout: str  # "half": pair i is (i, i + r/2), rotate_half; "interleaved": (2i, 2i + 1), GPT-J style
    head_dim: int
    rope_theta: float
    mrope_section: tuple[int, int, int]
    partial_rotary_factor: float = 1.0
    temporal_merge: int = 1  # frames per temporal id inside get_rope_index (ERNIE merges 2 there)
    tokens_per_second: int = 0  # Qwen2.5-VL's vision_config.tokens_per_second
    position_id_per_seconds: int = 0  # Qwen3-Omni's thinker_config.position_id_per_seconds
    audio: bool = False
    # Text tokens the processor writes before each video frame when time is written as text: the
    # vision start/end tokens around the frame and the time stamp ("<1.5 seconds>" for Qwen3-VL,
    # "1" after <|end_of_image|> for GLM). The exact count depends on the tokenizer and the digits.
    frame_text: int = 0
    spatial_merge: int = 2  # 2 x 2 patches become one language-model token in every family here
    temporal_patch: int = 2  # frames per temporal patch of the vision tower


MM_FAMILIES: dict[str, MMFamily] = {
    "qwen2_vl": MMFamily("qwen2_vl", "Qwen2-VL", "qwen2_vl", "frame_index", "chunked", "half", 128, 1_000_000.0,
                         (16, 24, 24)),
    "qwen2_5_vl": MMFamily("qwen2_5_vl", "Qwen2.5-VL", "qwen2_5_vl", "seconds", "chunked", "half", 128,
                           1_000_000.0, (16, 24, 24), tokens_per_second=2),
    "qwen3_vl": MMFamily("qwen3_vl", "Qwen3-VL", "qwen3_vl", "text_timestamps", "interleaved", "half", 128,
                         5_000_000.0, (24, 20, 20), frame_text=8),
    "qwen3_5": MMFamily("qwen3_5", "Qwen3.5", "qwen3_5", "text_timestamps", "interleaved", "half", 256,
                        10_000_000.0, (11, 11, 10), partial_rotary_factor=0.25, frame_text=8),
    "glm4v": MMFamily("glm4v", "GLM-4.1V / GLM-4.6V", "glm4v", "text_timestamps", "chunked", "interleaved", 128,
                      10_000.0, (8, 12, 12), partial_rotary_factor=0.5, frame_text=3),
    "ernie4_5_vl": MMFamily("ernie4_5_vl", "ERNIE 4.5 VL", "ernie4_5_vl_moe", "frame_index", "ernie3d",
                            "interleaved", 128, 500_000.0, (22, 22, 20), temporal_merge=2),
    "qwen3_omni": MMFamily("qwen3_omni", "Qwen3-Omni", "qwen3_omni_moe", "omni_seconds", "interleaved", "half", 128,
                           1_000_000.0, (24, 20, 20), position_id_per_seconds=13, audio=True),
}


def mm_family(key: str) -> MMFamily:
    if key not in MM_FAMILIES:
        raise ValueError(f"Unknown model family {key!r}; choose one of {', '.join(MM_FAMILIES)}.")
    return MM_FAMILIES[key]
