"""Positions at inference: what the KV cache holds, context shift, streaming with attention sinks, and what the
engines read (lessons/inference)."""

from .kv_cache import *  # noqa: F403

__all__ = [
    "CACHE_LAYER_HOLDS", "DTYPE_BYTES", "MAX_CACHE_TOKENS", "MAX_CONTEXT", "SCALING_ROPE_TYPES", "TINY_CACHE_BUILDS",
    "TINY_CACHE_SIZES", "TINY_CONTEXT", "TINY_LLAMA", "cache_bytes", "cache_contents", "cache_layout", "cache_presets",
    "cache_rescaling_error", "measured_cache_bytes", "preset_cache_bytes", "tiny_cache_config", "tiny_llama",
    "tiny_rope_parameters",
]
