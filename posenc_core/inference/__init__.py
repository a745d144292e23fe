"""Positions at inference: what the KV cache holds, context shift, streaming with attention sinks, and what the
engines read (lessons/inference)."""

from .kv_cache import *  # noqa: F403

__all__ = [
    "MAX_CACHE_TOKENS", "SCALING_ROPE_TYPES", "TINY_CONTEXT", "TINY_LLAMA", "cache_contents", "cache_rescaling_error",
    "tiny_llama", "tiny_rope_parameters",
]
