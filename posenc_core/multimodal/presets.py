"""Vision-language presets: the position-relevant keys of public config.json files, nested as published.

Written without network access, from the published files as remembered and cross-checked against the
defaults of transformers 5.23's configuration classes; what is certain and what to check, and which sections of
each file the values come from, the lessons say (lessons/multimodal/words.py, keyed by preset key).
``posenc_core/__init__.py`` merges this dict into the preset registry; the keys are stable.
"""

from __future__ import annotations

from ..configs.presets import Preset

__all__ = ["MULTIMODAL_PRESETS", "MULTIMODAL_PRESET_FAMILY"]

_QWEN_VISION = {"spatial_merge_size": 2, "temporal_patch_size": 2}

MULTIMODAL_PRESETS: dict[str, Preset] = {
    "qwen2-vl-7b": Preset(
        "Qwen2-VL 7B Instruct", "Qwen/Qwen2-VL-7B-Instruct", "config.json",
        {"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
         "max_position_embeddings": 32768, "rope_theta": 1000000.0,
         "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
         "vision_config": {"depth": 32, "embed_dim": 1280, "num_heads": 16, "hidden_size": 3584, "patch_size": 14,
                           **_QWEN_VISION}}),
    "qwen2.5-vl-7b": Preset(
        "Qwen2.5-VL 7B Instruct", "Qwen/Qwen2.5-VL-7B-Instruct", "config.json",
        {"model_type": "qwen2_5_vl", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
         "max_position_embeddings": 128000, "rope_theta": 1000000.0,
         "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
         "vision_config": {"depth": 32, "hidden_size": 1280, "num_heads": 16, "out_hidden_size": 3584,
                           "patch_size": 14, "window_size": 112, "tokens_per_second": 2,
                           "fullatt_block_indexes": [7, 15, 23, 31], **_QWEN_VISION}}),
    "qwen3-vl-8b": Preset(
        "Qwen3-VL 8B Instruct", "Qwen/Qwen3-VL-8B-Instruct", "config.json",
        {"model_type": "qwen3_vl",
         "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096, "num_attention_heads": 32,
                         "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 36,
                         "max_position_embeddings": 262144,
                         "rope_theta": 5000000,
                         "rope_scaling": {"mrope_interleaved": True, "mrope_section": [24, 20, 20],
                                          "rope_type": "default"}},
         "vision_config": {"depth": 27, "hidden_size": 1152, "num_heads": 16, "patch_size": 16,
                           "out_hidden_size": 4096, "deepstack_visual_indexes": [8, 16, 24], **_QWEN_VISION}}),
    "qwen3.5-397b-a17b": Preset(
        "Qwen3.5 397B-A17B", "Qwen/Qwen3.5-397B-A17B", "config.json",
        {"model_type": "qwen3_5_moe",
         "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 4096, "num_attention_heads": 32,
                         "num_key_value_heads": 2, "head_dim": 256, "num_hidden_layers": 60,
                         "max_position_embeddings": 262144, "full_attention_interval": 4,
                         "rope_parameters": {"rope_type": "default", "rope_theta": 10000000,
                                             "partial_rotary_factor": 0.25, "mrope_interleaved": True,
                                             "mrope_section": [11, 11, 10]}},
         "vision_config": {"depth": 27, "hidden_size": 1152, "num_heads": 16, "patch_size": 16, **_QWEN_VISION}}),
    "glm-4.1v-9b": Preset(
        "GLM-4.1V 9B Thinking", "zai-org/GLM-4.1V-9B-Thinking", "config.json",
        {"model_type": "glm4v",
         "text_config": {"model_type": "glm4v_text", "hidden_size": 4096, "num_attention_heads": 32,
                         "num_key_value_heads": 2, "head_dim": 128, "partial_rotary_factor": 0.5,
                         "max_position_embeddings": 65536, "rope_theta": 10000,
                         "rope_scaling": {"type": "default", "mrope_section": [8, 12, 12]}},
         "vision_config": {"depth": 24, "hidden_size": 1536, "num_heads": 12, "patch_size": 14,
                           "out_hidden_size": 4096, **_QWEN_VISION}}),
    "ernie-4.5-vl-28b-a3b": Preset(
        "ERNIE 4.5 VL 28B-A3B", "baidu/ERNIE-4.5-VL-28B-A3B-PT", "config.json",
        {"model_type": "ernie4_5_vl_moe",
         "text_config": {"hidden_size": 2560, "num_attention_heads": 20, "num_key_value_heads": 4,
                         "head_dim": 128, "max_position_embeddings": 131072,
                         "rope_parameters": {"rope_type": "default", "rope_theta": 500000,
                                             "mrope_section": [22, 22, 20]}},
         "vision_config": {"depth": 32, "hidden_size": 1280, "num_heads": 16, "patch_size": 14,
                           "spatial_merge_size": 2, "temporal_merge_size": 2}}),
    "qwen3-omni-30b-a3b": Preset(
        "Qwen3-Omni 30B-A3B Instruct", "Qwen/Qwen3-Omni-30B-A3B-Instruct", "config.json",
        {"model_type": "qwen3_omni_moe",
         "thinker_config": {
             "position_id_per_seconds": 13,
             "audio_config": {"n_window": 50},
             "text_config": {"hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 4,
                             "head_dim": 128, "max_position_embeddings": 65536, "rope_theta": 1000000,
                             "rope_scaling": {"interleaved": True, "mrope_interleaved": True,
                                              "mrope_section": [24, 20, 20], "rope_type": "default"}},
             "vision_config": {"depth": 27, "hidden_size": 1152, "num_heads": 16, "patch_size": 16,
                               **_QWEN_VISION}}}),
}

# which family each preset opens (read_multimodal_config finds the same from model_type)
MULTIMODAL_PRESET_FAMILY = {key: {"qwen2_vl": "qwen2_vl", "qwen2_5_vl": "qwen2_5_vl", "qwen3_vl": "qwen3_vl",
                                  "qwen3_5_moe": "qwen3_5", "glm4v": "glm4v", "ernie4_5_vl_moe": "ernie4_5_vl",
                                  "qwen3_omni_moe": "qwen3_omni"}[p.config["model_type"]]
                            for key, p in MULTIMODAL_PRESETS.items()}
