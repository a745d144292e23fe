"""Positions at inference: what a served model caches, shifts and reads about positions (lessons/inference)."""

from .streaming import *  # noqa: F403

__all__ = [
    "MAX_STREAM_TOKENS", "MAX_STREAM_WINDOW", "STREAM_CONTEXT", "STREAM_POSITIONS", "STREAM_VARIANTS",
    "StreamVariant", "cache_curves", "cache_layout", "load_streaming", "merge_streaming", "shipped_streaming",
    "streaming_hidden", "streaming_losses", "streaming_run", "streaming_summary",
]
