"""Position settings of open models of 2025-26, kept as data, each citing its config.json.

Written without network access, from the public config.json files as remembered and cross-checked
against the defaults and docstrings of ``transformers`` 5.23's configuration_<model>.py (whose
docstring checkpoints are these models). Where a value could not be cross-checked, the preset's note (the
pages' words) says so.
Each config holds the keys its model class needs to build the layer-by-layer reading; every other key
of the real file (vocabulary, MoE sizes, ...) is left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

__all__ = ["todays_presets"]


def _pattern(n_layers: int, period: int, special: str, other: str, offset: int = 0) -> list[str]:
    """layer_types where every ``period``-th layer (counting from 1, shifted by offset) is ``special``."""
    return [special if (i + 1 - offset) % period == 0 else other for i in range(n_layers)]


def _every(n_layers: int, period: int) -> list[int]:
    """no_rope_layers: 1 = rotates, 0 = NoPE on every ``period``-th layer (as the configs write it)."""
    return [0 if (i + 1) % period == 0 else 1 for i in range(n_layers)]


def _gemma(P: Callable[..., T]) -> dict[str, T]:
    """Gemma 3 and 4: sliding windows beside full layers, Gemma 4's proportional RoPE."""
    return {
        "gemma3-27b": P(
            "Gemma 3 27B", "google/gemma-3-27b-it", "config.json:text_config",
            {"model_type": "gemma3", "text_config": {
                "model_type": "gemma3_text", "hidden_size": 5376, "num_attention_heads": 32,
                "num_key_value_heads": 16, "head_dim": 128, "num_hidden_layers": 62,
                "max_position_embeddings": 131072, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
                "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024,
                "sliding_window_pattern": 6, "query_pre_attn_scalar": 168}}),
        "gemma4": P(
            "Gemma 4 (Gemma4TextConfig defaults)", "google/gemma-4-e2b-it", "class_defaults",  # a model's name
            {"model_type": "gemma4_text", "hidden_size": 2304, "num_attention_heads": 8, "num_key_value_heads": 4,
             "head_dim": 256, "global_head_dim": 512, "num_hidden_layers": 30, "max_position_embeddings": 131072,
             "sliding_window": 512, "layer_types": _pattern(30, 6, "full_attention", "sliding_attention"),
             "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                                 "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                                    "rope_theta": 1000000.0}}}),
        "gemma4-31b": P(
            "Gemma 4 31B", "google/gemma-4-31B-it", "config.json:text_config",
            {"model_type": "gemma4", "text_config": {
                "model_type": "gemma4_text", "hidden_size": 5376, "num_attention_heads": 32,
                "num_key_value_heads": 16, "head_dim": 256, "global_head_dim": 512, "num_global_key_value_heads": 4,
                "attention_k_eq_v": True, "num_hidden_layers": 60, "num_kv_shared_layers": 0,
                "max_position_embeddings": 262144, "sliding_window": 1024,
                "layer_types": _pattern(60, 6, "full_attention", "sliding_attention"),
                "rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0,
                                                       "rope_type": "proportional"},
                                    "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}}}),
        "gemma4-e2b": P(
            "Gemma 4 E2B", "google/gemma-4-E2B-it", "config.json:text_config",
            {"model_type": "gemma4", "text_config": {
                "model_type": "gemma4_text", "hidden_size": 1536, "num_attention_heads": 8, "num_key_value_heads": 1,
                "head_dim": 256, "global_head_dim": 512, "attention_k_eq_v": False, "num_hidden_layers": 35,
                "num_kv_shared_layers": 20, "hidden_size_per_layer_input": 256, "max_position_embeddings": 131072,
                "sliding_window": 512, "layer_types": _pattern(35, 5, "full_attention", "sliding_attention"),
                "rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0,
                                                       "rope_type": "proportional"},
                                    "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}}}),
    }


def _llama4_smollm3_gpt_oss(P: Callable[..., T]) -> dict[str, T]:
    """Llama 4 Scout, SmolLM3, GPT-OSS: chunks, NoPE layers and sinks."""
    return {
        "llama4-scout": P(
            "Llama 4 Scout 17B-16E", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "config.json:text_config",
            {"model_type": "llama4", "text_config": {
                "model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40,
                "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 48,
                "max_position_embeddings": 10485760, "rope_theta": 500000.0,
                "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                                 "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                "attention_chunk_size": 8192, "attn_temperature_tuning": True, "floor_scale": 8192,
                "attn_scale": 0.1, "no_rope_layer_interval": 4, "use_qk_norm": True}}),
        "smollm3-3b": P(
            "SmolLM3 3B", "HuggingFaceTB/SmolLM3-3B", "config.json",
            {"model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4,
             "num_hidden_layers": 36, "max_position_embeddings": 65536, "rope_theta": 5000000.0,
             "no_rope_layer_interval": 4, "no_rope_layers": _every(36, 4), "rope_scaling": None,
             "use_sliding_window": False, "sliding_window": None}),
        "gpt-oss-20b": P(
            "GPT-OSS 20B", "openai/gpt-oss-20b", "config.json",
            {"model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8,
             "head_dim": 64, "num_hidden_layers": 24, "max_position_embeddings": 131072, "sliding_window": 128,
             "layer_types": _pattern(24, 2, "full_attention", "sliding_attention"), "rope_theta": 150000.0,
             "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                              "truncate": False, "original_max_position_embeddings": 4096}}),
    }


def _olmo_exaone_cohere_mimo(P: Callable[..., T]) -> dict[str, T]:
    """Olmo 3, EXAONE 4, Command R7B, MiMo-V2-Flash: sliding windows beside full layers."""
    return {
        "olmo3-7b": P(
            "Olmo 3 7B", "allenai/Olmo-3-7B-Instruct", "config.json",
            {"model_type": "olmo3", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 32,
             "num_hidden_layers": 32,
             "max_position_embeddings": 65536, "sliding_window": 4096, "rope_theta": 500000.0,
             "layer_types": _pattern(32, 4, "full_attention", "sliding_attention"),
             "rope_scaling": {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192,
                              "beta_fast": 32, "beta_slow": 1, "attention_factor": 1.2079441541679836}}),
        "exaone4-32b": P(
            "EXAONE 4.0 32B", "LGAI-EXAONE/EXAONE-4.0-32B", "config.json",
            {"model_type": "exaone4", "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8,
             "head_dim": 128, "num_hidden_layers": 64, "max_position_embeddings": 131072, "sliding_window": 4096,
             "sliding_window_pattern": "LLLG", "layer_types": _pattern(64, 4, "full_attention", "sliding_attention"),
             "rope_theta": 1000000.0,
             "rope_scaling": {"factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                              "original_max_position_embeddings": 8192, "rope_type": "llama3"}}),
        "command-r7b": P(
            "Command R7B (Cohere2)", "CohereLabs/c4ai-command-r7b-12-2024", "config.json",
            {"model_type": "cohere2", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
             "head_dim": 128, "num_hidden_layers": 32, "max_position_embeddings": 132096, "sliding_window": 4096,
             "sliding_window_pattern": 4, "layer_types": _pattern(32, 4, "full_attention", "sliding_attention"),
             "rope_theta": 50000.0}),
        "mimo-v2-flash": P(
            "MiMo-V2-Flash", "XiaomiMiMo/MiMo-V2-Flash", "class_defaults",
            {"model_type": "mimo_v2_flash", "hidden_size": 4096, "num_attention_heads": 64, "head_dim": 192,
             "v_head_dim": 128, "num_hidden_layers": 48, "max_position_embeddings": 131072, "sliding_window": 129,
             "layer_types": ["full_attention"] + _pattern(47, 6, "full_attention", "sliding_attention"),
             "rope_parameters": {
                 "full_attention": {"rope_type": "default", "rope_theta": 5000000.0, "partial_rotary_factor": 0.334},
                 "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0,
                                       "partial_rotary_factor": 0.334}}}),
    }


def _qwen(P: Callable[..., T]) -> dict[str, T]:
    """Qwen3 and its hybrid successors."""
    return {
        "qwen3-8b": P(
            "Qwen3 8B", "Qwen/Qwen3-8B", "config.json",
            {"model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
             "head_dim": 128, "num_hidden_layers": 36, "max_position_embeddings": 40960, "rope_theta": 1000000.0,
             "rope_scaling": None, "sliding_window": None, "use_sliding_window": False, "max_window_layers": 36}),
        "qwen3-next-80b": P(
            "Qwen3-Next 80B-A3B", "Qwen/Qwen3-Next-80B-A3B-Instruct", "config.json",
            {"model_type": "qwen3_next", "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 2,
             "head_dim": 256, "num_hidden_layers": 48, "max_position_embeddings": 262144,
             "rope_theta": 10000000.0, "partial_rotary_factor": 0.25, "full_attention_interval": 4,
             "layer_types": _pattern(48, 4, "full_attention", "linear_attention")}),
        "qwen3.5-27b": P(
            "Qwen3.5 27B (text model)", "Qwen/Qwen3.5-27B", "config.json:text_config",  # a model's name
            {"model_type": "qwen3_5_text", "hidden_size": 5120, "num_attention_heads": 24, "num_key_value_heads": 4,
             "head_dim": 256, "num_hidden_layers": 64, "max_position_embeddings": 262144,
             "full_attention_interval": 4, "layer_types": _pattern(64, 4, "full_attention", "linear_attention"),
             "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128,
             "linear_value_head_dim": 128,
             "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25}}),
    }


def _deepseek_kimi(P: Callable[..., T]) -> dict[str, T]:
    """DeepSeek V3.2 and V4, Kimi K2: latent attention and long YaRN contexts."""
    return {
        "deepseek-v3.2": P(
            "DeepSeek V3.2-Exp", "deepseek-ai/DeepSeek-V3.2-Exp", "config.json",
            {"model_type": "deepseek_v32", "hidden_size": 7168, "num_attention_heads": 128, "num_hidden_layers": 61,
             "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
             "v_head_dim": 128, "index_head_dim": 128, "index_n_heads": 64, "index_topk": 2048,
             "max_position_embeddings": 163840, "rope_theta": 10000,
             "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                              "original_max_position_embeddings": 4096, "type": "yarn"}}),
        "deepseek-v4-flash": P(
            "DeepSeek V4 Flash (DeepseekV4Config defaults)",  # a model's name
            "deepseek-ai/DeepSeek-V4-Flash-Base", "class_defaults",
            {"model_type": "deepseek_v4", "hidden_size": 4096, "num_attention_heads": 64, "num_hidden_layers": 43,
             "head_dim": 512, "q_lora_rank": 1024, "o_lora_rank": 1024, "max_position_embeddings": 1048576,
             "sliding_window": 128, "rope_theta": 10000.0, "compress_rope_theta": 160000.0,
             "partial_rotary_factor": 0.125,
             "layer_types": ["heavily_compressed_attention"] * 3 + [
                 "compressed_sparse_attention" if i % 2 == 0 else "heavily_compressed_attention" for i in range(40)],
             "rope_scaling": {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 65536,
                              "beta_fast": 32, "beta_slow": 1}}),
        "kimi-k2": P(
            "Kimi K2 (text model of K2.5 / K2.6)", "moonshotai/Kimi-K2-Instruct", "config.json",  # a model's name
            {"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 64, "num_hidden_layers": 61,
             "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
             "v_head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 50000.0,
             "rope_scaling": {"beta_fast": 1.0, "beta_slow": 1.0, "factor": 32.0, "mscale": 1.0,
                              "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096, "type": "yarn"}}),
    }


def _mistral_glm(P: Callable[..., T]) -> dict[str, T]:
    """Ministral 3, Mistral Small 4, GLM-4.5: query temperature and partial rotation."""
    return {
        "ministral3-8b": P(
            "Ministral 3 8B", "mistralai/Ministral-3-8B-Base-2512", "config.json:text_config",
            {"model_type": "mistral3", "text_config": {
                "model_type": "ministral3", "hidden_size": 4096, "num_attention_heads": 32,
                "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 34,
                "max_position_embeddings": 262144,
                "rope_parameters": {"type": "yarn", "rope_theta": 1000000.0, "factor": 16.0,
                                    "original_max_position_embeddings": 16384, "max_position_embeddings": 262144,
                                    "beta_fast": 32.0, "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0,
                                    "llama_4_scaling_beta": 0.1}}}),
        "mistral-small4": P(
            "Mistral Small 4 119B", "mistralai/Mistral-Small-4-119B-2603", "class_defaults",
            {"model_type": "mistral4", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 36,
             "head_dim": 128, "q_lora_rank": 1024, "kv_lora_rank": 256, "qk_rope_head_dim": 64,
             "qk_nope_head_dim": 64, "v_head_dim": 128, "max_position_embeddings": 1048576,
             "rope_parameters": {"type": "yarn", "rope_theta": 10000.0, "factor": 128.0,
                                 "original_max_position_embeddings": 8192, "max_position_embeddings": 1048576,
                                 "beta_fast": 32.0, "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0,
                                 "llama_4_scaling_beta": 0.1, "partial_rotary_factor": 0.5}}),
        "glm-4.5": P(
            "GLM-4.5", "zai-org/GLM-4.5", "config.json",
            {"model_type": "glm4_moe", "hidden_size": 5120, "num_attention_heads": 96, "num_key_value_heads": 8,
             "head_dim": 128, "num_hidden_layers": 92, "max_position_embeddings": 131072,
             "rope_theta": 1000000, "partial_rotary_factor": 0.5, "rope_scaling": None}),
    }


def _hybrids(P: Callable[..., T]) -> dict[str, T]:
    """Kimi Linear, Granite 4.0-H, Nemotron, LFM2: attention among recurrent or convolution layers."""
    return {
        "kimi-linear-48b": P(
            "Kimi Linear 48B-A3B", "moonshotai/Kimi-Linear-48B-A3B-Instruct", "config.json",
            {"model_type": "kimi_linear", "hidden_size": 2304, "num_attention_heads": 32, "num_hidden_layers": 27,
             "q_lora_rank": None, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
             "v_head_dim": 128, "max_position_embeddings": 1048576,
             "linear_attn_config": {"full_attn_layers": [4, 8, 12, 16, 20, 24, 27], "head_dim": 128,
                                    "num_heads": 32, "short_conv_kernel_size": 4,
                                    "kda_layers": [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23,
                                                   25, 26]}}),
        "granite4-h-small": P(
            "Granite 4.0 H Small", "ibm-granite/granite-4.0-h-small", "config.json",
            {"model_type": "granitemoehybrid", "hidden_size": 4096, "num_attention_heads": 32,
             "num_key_value_heads": 8, "num_hidden_layers": 40, "max_position_embeddings": 131072,
             "position_embedding_type": "nope", "rope_theta": 10000,
             "layer_types": ["attention" if i in (5, 15, 25, 35) else "mamba" for i in range(40)]}),
        "nemotron3-nano": P(
            "Nemotron 3 Nano 30B-A3B", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "config.json",
            {"model_type": "nemotron_h", "hidden_size": 2688, "num_attention_heads": 32, "num_key_value_heads": 2,
             "head_dim": 128, "num_hidden_layers": 52, "max_position_embeddings": 262144,
             "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"}),
        "lfm2-1.2b": P(
            "LFM2 1.2B", "LiquidAI/LFM2-1.2B", "config.json",
            {"model_type": "lfm2", "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 8,
             "num_hidden_layers": 16, "max_position_embeddings": 128000, "rope_theta": 1000000.0,
             "full_attn_idxs": [2, 5, 8, 10, 12, 14]}),
    }


def _hunyuan_apertus(P: Callable[..., T]) -> dict[str, T]:
    """Hunyuan's NTK-alpha and Apertus' Llama 3 rule on a large base."""
    return {
        "hunyuan-7b": P(
            "Hunyuan 7B Instruct", "tencent/Hunyuan-7B-Instruct", "config.json",
            {"model_type": "hunyuan_v1_dense", "hidden_size": 4096, "num_attention_heads": 32,
             "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 32, "max_position_embeddings": 262144,
             "rope_theta": 10000.0,
             "rope_scaling": {"alpha": 1000.0, "beta_fast": 32, "beta_slow": 1, "factor": 1.0, "mscale": 1.0,
                              "mscale_all_dim": 1.0, "type": "dynamic"}}),
        "apertus-8b": P(
            "Apertus 8B", "swiss-ai/Apertus-8B-Instruct-2509", "config.json",
            {"model_type": "apertus", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
             "num_hidden_layers": 32, "max_position_embeddings": 65536,
             "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192,
                              "low_freq_factor": 1.0, "high_freq_factor": 4.0},
             "rope_theta": 12000000.0}),
    }


def todays_presets(preset_class: Callable[..., T]) -> dict[str, T]:
    """The presets as ``preset_class`` objects, by preset key (the class lives in presets.py; this keeps the data
    apart)."""
    P = preset_class
    return {key: preset for family in (_gemma, _llama4_smollm3_gpt_oss, _olmo_exaone_cohere_mimo, _qwen,
                                       _deepseek_kimi, _mistral_glm, _hybrids, _hunyuan_apertus)
            for key, preset in family(P).items()}
