"""The words of the Multimodal positions pages: what the core's codes and keys mean, in sentences for the screen.

The core (posenc_core.multimodal) holds data and codes; these tables turn them into words. The presets' notes
say what is certain in each preset and what to check (written without network access, from the published files
as remembered and cross-checked against the defaults of transformers 5.23's configuration classes).
"""

from __future__ import annotations

# how a video's temporal id is formed, by time rule (pc.multimodal.TIME_RULES)
TIME_RULE_WORDS = {
    "frame_index": "one id per temporal group of frames: t = start + k",
    "seconds": "ids spaced by time: t = start + int(k · tokens_per_second · second_per_grid_t)",
    "text_timestamps": "every frame is its own grid with t = start; time is written as text between frames",
    "omni_seconds": "t = start + k · second_per_grid · position_id_per_seconds (float ids), audio on the same axis",
}

# which rotary pairs each axis turns, by allocation (pc.multimodal.ALLOCATIONS)
ALLOCATION_WORDS = {
    "chunked": "contiguous blocks of pairs: the first mrope_section[0] pairs for time, then height, then width",
    "interleaved": "pairs cycle t, h, w, t, h, w, ...; the last pairs past 3 · mrope_section[1] are time",
    "ernie3d": "height and width alternate over the fastest pairs, time takes the slowest mrope_section[2] pairs",
}

# what the processor writes between two video frames where time is written as text (family key -> example)
FRAME_TEXT_EXAMPLES = {
    "qwen3_vl": "<|vision_end|> <1.5 seconds> <|vision_start|>",
    "qwen3_5": "<|vision_end|> <1.5 seconds> <|vision_start|>",
    "glm4v": "<|end_of_image|> 1 <|begin_of_image|>",
}

# how close to the query a relative score is, by band (pc.multimodal.SCORE_BANDS): the options of a question
SCORE_BAND_WORDS = {"same_place": "above 0.99: almost the same place", "between": "between 0.5 and 0.99",
                    "elsewhere": "below 0.5: clearly elsewhere"}

# the vision towers (pc.multimodal.VISION_TOWERS): the picker's names (URL values) and where the numbers come from
TOWER_NAMES = {"qwen2_vl": "Qwen2-VL / Qwen2.5-VL ViT", "qwen3_vl": "Qwen3-VL / Qwen3.5 ViT",
               "glm4v": "GLM-4.1V ViT", "gemma4": "Gemma 4 vision tower"}
TOWER_SOURCES = {
    "qwen2_vl": "vision_config: embed_dim 1280 / 16 heads; Qwen2VLVisionRotaryEmbedding, theta 10,000",
    "qwen3_vl": "vision_config: hidden_size 1152 / 16 heads; Qwen3VLVisionRotaryEmbedding, theta 10,000",
    "glm4v": "vision_config: hidden_size 1536 / 12 heads; Glm4vVisionRotaryEmbedding, theta 10,000",
    "gemma4": "Gemma4VisionConfig: head_dim 64, rope theta 100 (default_theta), axial, [x, x, y, y]",
}

# the sections of config.json each preset's values come from, and its note (preset key -> words)
PRESET_SOURCES = {
    "qwen2-vl-7b": "config.json (top level and vision_config)",
    "qwen2.5-vl-7b": "config.json (top level and vision_config)",
    "qwen3-vl-8b": "config.json (text_config and vision_config)",
    "qwen3.5-397b-a17b": "config.json (text_config and vision_config)",
    "glm-4.1v-9b": "config.json (text_config and vision_config)",
    "ernie-4.5-vl-28b-a3b": "config.json (text_config and vision_config)",
    "qwen3-omni-30b-a3b": "config.json (thinker_config)",
}

PRESET_NOTES = {
    "qwen2-vl-7b": (
        "M-RoPE as first released: 64 pairs cut into 16 time, 24 height and 24 width pairs in contiguous blocks. "
        "The file says type 'mrope'; transformers reads that as the default rotary with mrope_section."
    ),
    "qwen2.5-vl-7b": (
        "The same split as Qwen2-VL; video time ids are spaced by seconds: tokens_per_second = 2 in the file "
        "(transformers' config class defaults to 4, so a file without the key reads differently)."
    ),
    "qwen3-vl-8b": (
        "Interleaved M-RoPE: pairs cycle time, height, width, so every axis gets fast and slow frequencies. Video"
        " time is written as text time stamps between frames. rope_theta 5,000,000 as remembered from the file "
        "(transformers' default is 500,000)."
    ),
    "qwen3.5-397b-a17b": (
        "Only a quarter of each 256-dimensional head rotates (64 dimensions, 32 pairs: 11 time, 11 height, 10 "
        "width, interleaved); three of every four layers are linear attention without positions. The rotary "
        "fields agree with transformers' Qwen3.5 defaults; the sizes (60 layers, 32 heads, 2 KV heads) agree with"
        " NVIDIA's description of the model in public code; rope_theta is from memory of the published file and "
        "worth checking against the hub."
    ),
    "glm-4.1v-9b": (
        "Half of each head rotates (64 dimensions, 32 pairs in 8 time, 12 height, 12 width contiguous blocks), "
        "with neighbouring dimensions as pairs. GLM-4.6V's model class (glm46v) has the same get_rope_index and "
        "builds its language model from its text_config."
    ),
    "ernie-4.5-vl-28b-a3b": (
        "3D RoPE: height and width alternate over the 44 fastest pairs, time takes the 20 slowest. The original "
        "Paddle checkpoint writes this as rope_3d: true and freq_allocation: 20; the transformers (-PT) layout "
        "lists mrope_section as (height, width, time) = [22, 22, 20]."
    ),
    "qwen3-omni-30b-a3b": (
        "TMRoPE: video time ids are spaced by seconds (position_id_per_seconds) and a video's sound sits on the "
        "same time axis, one id per audio token (about 13 per second). position_id_per_seconds = 13 as remembered"
        " from the released file, matching the audio token rate; transformers' config class defaults to 25 "
        "(Qwen2.5-Omni's value)."
    ),
}
