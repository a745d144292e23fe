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


