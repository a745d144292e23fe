"""The presets whose cache bytes the lesson shows (``preset_cache_bytes``), why the others are not shown, and the
tiny random builds of their models that check the count (``cache_bytes``) against what transformers'
``DynamicCache`` holds: each preset's config with its sizes shrunk and its layer pattern kept.

torch and transformers are imported inside the functions, so ``import posenc_core`` stays numpy-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .cache_bytes import CacheBytes, cache_bytes

__all__ = [
    "NOT_RELEASED",
    "TINY_CACHE_BUILDS",
    "TINY_CACHE_SIZES",
    "TINY_VISION_SIZES",
    "CachePresets",
    "PresetCacheBytes",
    "PresetLeftOut",
    "cache_presets",
    "preset_cache_bytes",
    "tiny_cache_config",
]

_LINEAR_HEADS = {"linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 8,
                 "linear_value_head_dim": 8}
# The text model types whose count a test checks against a tiny random build (a preset of another type is left
# out of the table); per type, what the tiny build changes besides TINY_CACHE_SIZES.
TINY_CACHE_BUILDS: dict[str, dict[str, Any]] = {
    "smollm3": {}, "gpt_oss": {}, "exaone4": {}, "cohere2": {}, "qwen3": {}, "glm4_moe": {}, "hunyuan_v1_dense": {},
    "apertus": {}, "llama": {}, "mistral": {}, "ministral3": {}, "qwen2": {}, "qwen3_vl_text": {}, "olmo3": {},
    "gemma3_text": {},
    "phi3": {"hidden_size": 384},  # 4 heads of 96: the 48 pairs LongRoPE's factor lists are written for
    "lfm2": {"block_ff_dim": 64, "conv_L_cache": 3},
    "qwen3_next": _LINEAR_HEADS, "qwen3_5_text": _LINEAR_HEADS, "qwen3_5_moe_text": _LINEAR_HEADS,
    "nemotron_h": {"mamba_num_heads": 4, "mamba_head_dim": 16, "ssm_state_size": 8, "n_groups": 1,
                   "moe_shared_expert_intermediate_size": 32},
    "granitemoehybrid": {"mamba_n_heads": 4, "mamba_d_head": 32, "mamba_d_state": 8, "mamba_n_groups": 1},
    "deepseek_v3": {"num_key_value_heads": 4},
    "deepseek_v32": {"num_key_value_heads": 4, "index_head_dim": 16, "index_n_heads": 2, "index_topk": 4},
    "kimi_linear": {"num_key_value_heads": 4},
    "mistral4": {"num_key_value_heads": 4},
    # full layers with their own head size and KV heads than the sliding ones, as the released Gemma 4 has
    "gemma4_text": {"global_head_dim": 32, "num_global_key_value_heads": 1, "vocab_size_per_layer_input": 128,
                    "hidden_size_per_layer_input": 8},
    "llama4_text": {"attention_chunk_size": 4, "intermediate_size_mlp": 64},
    # small compression rates, so that 9 tokens close compressed windows of both kinds and leave buffers
    "deepseek_v4": {"index_head_dim": 8, "index_n_heads": 2, "index_topk": 4, "o_groups": 2, "o_lora_rank": 16,
                    "compress_rates": {"compressed_sparse_attention": 2, "heavily_compressed_attention": 4}},
}
TINY_CACHE_SIZES: dict[str, Any] = {  # the shrunk sizes (applied where the model's config class has the field)
    "hidden_size": 64, "intermediate_size": 64, "vocab_size": 128, "pad_token_id": 0, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "sliding_window": 4, "max_position_embeddings": 256,
    "moe_intermediate_size": 32, "shared_intermediate_size": 32, "shared_expert_intermediate_size": 32,
    "num_experts": 4, "num_local_experts": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
    "num_experts_per_token": 2, "top_k_experts": 2, "n_group": 1, "topk_group": 1, "n_shared_experts": 1,
    "kv_lora_rank": 16, "q_lora_rank": 32, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8, "v_head_dim": 8,
}
TINY_VISION_SIZES: dict[str, Any] = {  # a multimodal config's vision tower, one small block
    "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "depth": 1, "num_attention_heads": 2,
    "num_heads": 2, "num_key_value_heads": 2, "head_dim": 16, "global_head_dim": 16, "out_hidden_size": 64,
    "vision_output_dim": 32, "projector_input_dim": 32, "projector_output_dim": 64, "deepstack_visual_indexes": [],
}
# Presets whose sizes are a config class's defaults rather than a released model's: not in the table.
NOT_RELEASED = ("gemma4",)


# window sizes: shrunk only where the preset sets one, so that a model without windows does not gain them
_WINDOWS = ("sliding_window", "attention_chunk_size")


def _shrink(part: dict, model_type: str, sizes: dict) -> dict:
    """``part`` with ``sizes`` applied where its config class (``model_type``) has the field or the part has it."""
    from transformers import AutoConfig

    fields = set(AutoConfig.for_model(model_type).to_dict())
    keep = {k for k in _WINDOWS if part.get(k) is None}
    return {**part, **{k: v for k, v in sizes.items() if (k in fields or k in part) and k not in keep}}


def tiny_cache_config(key: str) -> dict[str, Any]:
    """A preset's config with its sizes shrunk (``TINY_CACHE_SIZES``, ``TINY_CACHE_BUILDS``; a multimodal config's
    vision tower ``TINY_VISION_SIZES``) and its layer pattern kept, for a random build whose ``DynamicCache`` can be
    measured in a fraction of a second.

    Args:
        key: a preset key whose text model type is in ``TINY_CACHE_BUILDS``.

    Returns:
        The config dict, nested as the preset is.
    """
    from ..configs.presets import PRESETS, preset_config

    shown = cache_presets().keys
    if key not in PRESETS or key not in shown:
        raise ValueError(f"preset {key!r} has no tiny build; choose one of {', '.join(shown)}.")
    from transformers import AutoConfig

    config = preset_config(key)
    nested = "text_config" in config
    text = config["text_config"] if nested else config
    text_type = text.get("model_type") or AutoConfig.for_model(config["model_type"]).get_text_config().model_type
    sizes = {**TINY_CACHE_SIZES, **TINY_CACHE_BUILDS[text_type]}
    if "kv_lora_rank" in text and "head_dim" not in text:
        sizes.pop("head_dim")  # latent attention sizes its heads from the qk_*/v_head_dim fields
    text = _shrink(text, text_type, sizes)
    if "linear_attn_config" in text:  # Kimi Linear: the linear layers' own heads
        text["linear_attn_config"] = {**text["linear_attn_config"], "head_dim": 8, "num_heads": 4}
    if not nested:
        return text
    config["text_config"] = text
    top = AutoConfig.for_model(config["model_type"])  # the class's vision tower, also where its default is none
    vision_type = (top.vision_config or top.sub_configs["vision_config"]).model_type
    config["vision_config"] = _shrink(config.get("vision_config") or {}, vision_type, TINY_VISION_SIZES)
    return config


# ---- The presets counted -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PresetLeftOut:
    """Why a preset is not in the table: ``reason`` "keys" (the preset keeps only the RoPE keys: ``missing``),
    "no_build" (no tiny build of its text ``model_type`` checks the count) or "not_released" (its sizes are a
    config class's defaults, not a released model's)."""

    reason: str
    missing: tuple[str, ...] = ()
    model_type: str | None = None


def _text_dict(config: Mapping) -> Mapping:
    """The text model's part of a config.json as published (a multimodal config nests it)."""
    if "thinker_config" in config:
        config = config["thinker_config"]
    return config.get("text_config", config)


def _text_type(config: Mapping) -> str:
    """The model type of a config's text model (a multimodal config's text_config may leave it to its class)."""
    text = _text_dict(config)
    if "model_type" in text:
        return str(text["model_type"])
    from transformers import AutoConfig

    return AutoConfig.for_model(config["model_type"]).get_text_config().model_type


def _missing_keys(config: Mapping) -> tuple[str, ...]:
    """Keys a preset must hold for its bytes to be the model's, not a config class's defaults."""
    text = _text_dict(config)
    need = ["num_hidden_layers"]
    if "index_topk" in text:  # sparse attention (DeepSeek V3.2, V4): the indexer keeps keys too
        need.append("index_head_dim")
    if text.get("kv_lora_rank"):
        need.append("qk_rope_head_dim")
    elif text.get("model_type") != "deepseek_v4":  # V4: one shared KV head by design (num_key_value_heads 1)
        need.append("num_key_value_heads")
        if "head_dim" not in text:
            need += ["hidden_size", "num_attention_heads"]
    return tuple(k for k in need if k not in text)


class CachePresets(NamedTuple):
    """The presets counted (``keys``, in registry order) and those left out, with why (``left_out``)."""

    keys: list[str]
    left_out: dict[str, PresetLeftOut]


def cache_presets() -> CachePresets:
    """The presets whose cache bytes are shown: a model type with a tiny build (``TINY_CACHE_BUILDS``), a config
    that holds every key the count reads, and the sizes of a released model.

    Returns:
        A ``CachePresets``.
    """
    from ..configs.presets import PRESETS

    keys, left_out = [], {}
    for key, preset in PRESETS.items():
        missing = _missing_keys(preset.config)
        if missing:
            left_out[key] = PresetLeftOut("keys", missing, _text_type(preset.config))
        elif key in NOT_RELEASED:
            left_out[key] = PresetLeftOut("not_released", (), _text_type(preset.config))
        elif _text_type(preset.config) not in TINY_CACHE_BUILDS:
            left_out[key] = PresetLeftOut("no_build", (), _text_type(preset.config))
        else:
            keys.append(key)
    return CachePresets(keys, left_out)


@dataclass(frozen=True)
class PresetCacheBytes:
    """``cache_bytes`` of every preset in ``cache_presets()`` (``preset_cache_bytes``).

    Attributes:
        keys: the preset keys, in registry order.
        names: each preset's model name.
        kinds: each preset's ``CACHE_KINDS`` name.
        per_token: (presets,) bytes per further token once windows and buffers are full.
        next_token: (presets,) bytes per further token at the context (``CacheBytes.next_token``).
        gb: (presets,) GB (1e9 bytes) at the context for one sequence.
        rows: the ``CacheBytes`` of each preset.
        left_out: {preset key: ``PresetLeftOut``}.
    """

    keys: list[str]
    names: list[str]
    kinds: list[str]
    per_token: np.ndarray
    next_token: np.ndarray
    gb: np.ndarray
    rows: list[CacheBytes]
    left_out: dict[str, PresetLeftOut]


def preset_cache_bytes(tokens: int, dtype: str = "bfloat16") -> PresetCacheBytes:
    """``cache_bytes`` of every preset in ``cache_presets()``.

    Args:
        tokens: the context length, 1 ≤ tokens ≤ ``MAX_CONTEXT``.
        dtype: the cache's element type (``DTYPE_BYTES``).

    Returns:
        A ``PresetCacheBytes``.
    """
    from ..configs.presets import PRESETS

    keys, left_out = cache_presets()
    rows = [cache_bytes(PRESETS[k].config, tokens, dtype) for k in keys]
    return PresetCacheBytes(keys, [PRESETS[k].name for k in keys], [r.layout.kind for r in rows],
                            np.array([r.per_token for r in rows], dtype=np.float64),
                            np.array([r.next_token for r in rows], dtype=np.float64),
                            np.array([r.total for r in rows], dtype=np.float64) / 1e9, rows, left_out)

