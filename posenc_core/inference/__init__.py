"""Positions at inference: what the cache holds, context shift, streaming with sinks, what the engine reads
(lessons/inference)."""

from .cache_bytes import (
    CACHE_KINDS,
    CACHE_LAYER_HOLDS,
    CACHE_LAYER_RULES,
    DTYPE_BYTES,
    ENTRY_FORMS,
    MAX_CONTEXT,
    CacheBytes,
    CacheEntry,
    CacheLayerPlan,
    CacheLayerRule,
    CacheLayout,
    MeasuredCache,
    cache_bytes,
    cache_layout,
    measured_cache_bytes,
)
from .cache_table import (
    NOT_RELEASED,
    TINY_CACHE_BUILDS,
    TINY_CACHE_SIZES,
    TINY_VISION_SIZES,
    CachePresets,
    PresetCacheBytes,
    PresetLeftOut,
    cache_presets,
    preset_cache_bytes,
    tiny_cache_config,
)
from .command_lines import MAX_FLAGS_CHARS
from .context_shift import (
    KSHIFT_ANGLES,
    KSHIFT_DTYPES,
    KSHIFT_HEADS,
    KShiftHead,
    context_shift_plan,
    kshift,
    kshift_angles,
    kshift_error_curve,
    kshift_scores,
)
from .engine_table import (
    ENGINE_NOTES,
    SOURCES,
    EngineCell,
    EngineRow,
    EngineTable,
    engine_frequencies,
    engine_rows,
    engine_table,
    engine_wavelengths,
    full_turns,
)
from .ggml_rope import MAX_CALLS, GGMLRopeCache, ggml_corr_dims, ggml_rope_cache, ggml_rope_rows, ggml_theta_scale
from .gguf_header import (
    ARRAY_KEPT,
    GGUF_LIMITS,
    HEADER_COMMAND,
    MAX_HEADER_BYTES,
    GGUFArray,
    GGUFHeader,
    GGUFLimits,
    gguf_header_bytes,
    read_gguf_header,
)
from .gguf_loader import GGUFLoadedConfig, GGUFLoaderTarget, gguf_loader_targets, gguf_transformers_config
from .gguf_rope_keys import LEGACY_SCALE_KEY, GGUFRopeKey, gguf_rope_keys, rope_key_templates
from .kv_cache import (
    MAX_CACHE_TOKENS,
    PREFILL_UPDATES,
    SCALING_ROPE_TYPES,
    TINY_CONTEXT,
    TINY_LLAMA,
    cache_contents,
    cache_rescaling_error,
    tiny_llama,
    tiny_rope_parameters,
)
from .llama_cpp import (
    FREQ_FACTOR_TENSORS,
    LLAMA_CPP_OPTIONS,
    LLAMA_CPP_SCALING_TYPES,
    LlamaCppFlags,
    LlamaCppRope,
    LlamaCppTrain,
    llama_cpp_flags,
    llama_cpp_inv_freq,
    llama_cpp_reading,
    llama_cpp_rope,
)
from .rope_readings import (
    DISAGREEMENT_KINDS,
    FREQ_FACTORS,
    READING_FIELDS,
    Disagreement,
    RopeReading,
    compare_readings,
    rope_reading,
    same_value,
)
from .streaming import (
    MAX_STREAM_TOKENS,
    MAX_STREAM_WINDOW,
    SHARE_TOKENS,
    SHIPPED_STREAMING,
    STREAM_CONTEXT,
    STREAM_POSITIONS,
    STREAM_VARIANTS,
    StreamPass,
    StreamVariant,
    cache_curves,
    load_streaming,
    merge_streaming,
    shipped_streaming,
    streaming_cache_layout,
    streaming_hidden,
    streaming_losses,
    streaming_pass,
    streaming_run,
    streaming_summary,
)
from .streaming_shares import FirstTokenShares, first_token_shares
from .vllm_context import (
    DEFAULT_LENGTH,
    LENGTH_KEYS,
    MAX_SERVABLE,
    MIN_TOKEN_BYTES,
    REFUSALS,
    ROPE_LENGTH_RULES,
    UNSCALED_MODEL_TYPES,
    VLLM_CONFIG_CLASSES,
    VllmContext,
    vllm_config,
    vllm_context,
)
from .vllm_flags import ALLOW_LONG_ENV, AUTO_FIT, VLLM_OPTIONS, VLLM_REMOVED, VllmFlags, vllm_flags

__all__ = [
    "CACHE_KINDS", "CACHE_LAYER_HOLDS", "CACHE_LAYER_RULES", "DTYPE_BYTES", "ENTRY_FORMS", "MAX_CONTEXT",
    "CacheBytes", "CacheEntry", "CacheLayerPlan", "CacheLayerRule", "CacheLayout", "MeasuredCache", "cache_bytes",
    "cache_layout", "measured_cache_bytes", "NOT_RELEASED", "TINY_CACHE_BUILDS", "TINY_CACHE_SIZES",
    "TINY_VISION_SIZES", "CachePresets", "PresetCacheBytes", "PresetLeftOut", "cache_presets", "preset_cache_bytes",
    "tiny_cache_config", "MAX_FLAGS_CHARS", "KSHIFT_ANGLES", "KSHIFT_DTYPES", "KSHIFT_HEADS", "KShiftHead",
    "context_shift_plan", "kshift", "kshift_angles", "kshift_error_curve", "kshift_scores", "ENGINE_NOTES", "SOURCES",
    "EngineCell", "EngineRow", "EngineTable", "engine_frequencies", "engine_rows", "engine_table",
    "engine_wavelengths", "full_turns", "MAX_CALLS", "GGMLRopeCache", "ggml_corr_dims", "ggml_rope_cache",
    "ggml_rope_rows", "ggml_theta_scale", "ARRAY_KEPT", "GGUF_LIMITS", "HEADER_COMMAND", "MAX_HEADER_BYTES",
    "GGUFArray", "GGUFHeader", "GGUFLimits", "gguf_header_bytes", "read_gguf_header", "GGUFLoadedConfig",
    "GGUFLoaderTarget", "gguf_loader_targets", "gguf_transformers_config", "LEGACY_SCALE_KEY", "GGUFRopeKey",
    "gguf_rope_keys", "rope_key_templates", "MAX_CACHE_TOKENS", "PREFILL_UPDATES", "SCALING_ROPE_TYPES",
    "TINY_CONTEXT", "TINY_LLAMA", "cache_contents", "cache_rescaling_error", "tiny_llama", "tiny_rope_parameters",
    "FREQ_FACTOR_TENSORS", "LLAMA_CPP_OPTIONS", "LLAMA_CPP_SCALING_TYPES", "LlamaCppFlags", "LlamaCppRope",
    "LlamaCppTrain", "llama_cpp_flags", "llama_cpp_inv_freq", "llama_cpp_reading", "llama_cpp_rope",
    "DISAGREEMENT_KINDS", "FREQ_FACTORS", "READING_FIELDS", "Disagreement", "RopeReading", "compare_readings",
    "rope_reading", "same_value", "MAX_STREAM_TOKENS", "MAX_STREAM_WINDOW", "SHARE_TOKENS", "SHIPPED_STREAMING",
    "STREAM_CONTEXT", "STREAM_POSITIONS", "STREAM_VARIANTS", "StreamPass", "StreamVariant", "cache_curves",
    "load_streaming", "merge_streaming", "shipped_streaming", "streaming_cache_layout", "streaming_hidden",
    "streaming_losses", "streaming_pass", "streaming_run", "streaming_summary", "FirstTokenShares",
    "first_token_shares", "DEFAULT_LENGTH", "LENGTH_KEYS", "MAX_SERVABLE", "MIN_TOKEN_BYTES", "REFUSALS",
    "ROPE_LENGTH_RULES", "UNSCALED_MODEL_TYPES", "VLLM_CONFIG_CLASSES", "VllmContext", "vllm_config", "vllm_context",
    "ALLOW_LONG_ENV", "AUTO_FIT", "VLLM_OPTIONS", "VLLM_REMOVED", "VllmFlags", "vllm_flags"
]
