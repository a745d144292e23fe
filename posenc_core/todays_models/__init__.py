"""Position in today's models: per-layer rules, sinks, hybrids, latent attention, fewer frequencies, DroPE, CoPE,
and positions read from content: FoX, stick-breaking and PaTH attention (lessons/todays_models). The last three
have GPU-only released kernels; these are the papers' equations in numpy, small enough for a slide."""

from .attention_entropy import (
    temperature_entropy,
    temperature_positions,
)
from .cope import (
    COPE_UNITS,
    CopeAttention,
    CopeCountingExample,
    CopeInterpolation,
    CopeTokens,
    cope_attention,
    cope_counting_example,
    cope_interpolate,
    cope_interpolation_curve,
    cope_positions,
    cope_tokens,
)
from .drope import (
    DROPE_VARIANTS,
    SHIPPED_DROPE,
    DropeCurves,
    DropeHead,
    DropeResult,
    DropeVariant,
    DropeVariantName,
    TrainingCurve,
    drop_positions,
    drope_experiment,
    load_drope_result,
    recalibrate,
    shipped_drope_result,
)
from .fewer_frequencies import (
    FEWER_FREQUENCY_METHODS,
    FEWER_FREQUENCY_MODELS,
    dimension_frequencies,
    dimension_frequency_table,
    fewer_frequencies,
    fewer_frequency_summaries,
    frequency_score_curves,
    p_rope_inv_freq,
)
from .fox import (
    fox_attention,
    fox_bias,
    fox_gate_logit_for_slope,
    fox_sentence,
)
from .latent import (
    GQA_REFERENCE,
    KV_CACHE_DTYPES,
    MLA_CONFIGS,
    MLA_PRESETS,
    LatentConfig,
    kv_cache_per_token,
    latent_config,
    mla_demo_scores,
    mla_layout_gap,
    mla_random_weights,
    mla_scores,
    mla_shift_change,
    mla_softmax_scale,
    mla_tiny_config,
)
from .layer_rules import (
    LOCAL_GLOBAL_MODELS,
    NOPE_LAYER_MODELS,
    QUERY_SCALE_RULES,
    LayerRope,
    LocalGlobalModel,
    layer_kind_inv_freq,
    llama4_attn_temperature,
    llama_4_scaling_beta,
    local_global_model,
    local_global_scores,
    local_global_view,
    local_global_window_edge,
    nope_layer_counts,
    nope_layer_map,
    proportional_inv_freq,
    query_scale_first_steps,
    query_scale_positions,
    query_temperature,
)
from .mixers import (
    HYBRID_MODELS,
    MIXERS,
    ORDER_EXACT,
    HybridModel,
    causal_conv,
    gated_recurrence,
    nope_attention,
    order_test,
)
from .path_attention import (
    path_householder,
    path_rope_transform,
    path_scores,
    path_sentence,
    path_transform_scores,
    path_two_reflections,
)
from .sinks import (
    sink_attention_map,
    sink_mass_by_position,
    sink_mass_by_score,
    sink_softmax,
    streaming_eviction,
)
from .stick_breaking import (
    STICK_COMPARED,
    StickBreaking,
    StickBreakingConstant,
    StickBreakingSentence,
    StickCompared,
    stick_breaking_constant,
    stick_breaking_sentence,
    stick_breaking_weights,
)

__all__ = [
    "temperature_entropy", "temperature_positions", "COPE_UNITS", "CopeAttention", "CopeCountingExample",
    "CopeInterpolation", "CopeTokens", "cope_attention", "cope_counting_example", "cope_interpolate",
    "cope_interpolation_curve", "cope_positions", "cope_tokens", "DROPE_VARIANTS", "SHIPPED_DROPE", "DropeCurves",
    "DropeHead", "DropeResult", "DropeVariant", "DropeVariantName", "TrainingCurve", "drop_positions",
    "drope_experiment", "load_drope_result", "recalibrate", "shipped_drope_result", "FEWER_FREQUENCY_METHODS",
    "FEWER_FREQUENCY_MODELS", "dimension_frequencies", "dimension_frequency_table", "fewer_frequencies",
    "fewer_frequency_summaries", "frequency_score_curves", "p_rope_inv_freq", "fox_attention", "fox_bias",
    "fox_gate_logit_for_slope", "fox_sentence", "KV_CACHE_DTYPES", "MLA_PRESETS", "GQA_REFERENCE", "LatentConfig",
    "MLA_CONFIGS", "kv_cache_per_token", "latent_config", "mla_demo_scores", "mla_layout_gap", "mla_shift_change",
    "mla_random_weights", "mla_scores", "mla_softmax_scale", "mla_tiny_config", "LOCAL_GLOBAL_MODELS",
    "NOPE_LAYER_MODELS", "QUERY_SCALE_RULES", "LayerRope", "LocalGlobalModel", "layer_kind_inv_freq",
    "llama4_attn_temperature", "llama_4_scaling_beta", "local_global_model", "local_global_scores",
    "local_global_view", "local_global_window_edge", "nope_layer_counts", "nope_layer_map", "query_scale_first_steps",
    "proportional_inv_freq", "query_scale_positions", "query_temperature", "HYBRID_MODELS", "MIXERS", "HybridModel",
    "ORDER_EXACT", "causal_conv", "gated_recurrence", "nope_attention", "order_test", "path_householder",
    "path_rope_transform", "path_scores", "path_sentence", "path_transform_scores", "path_two_reflections",
    "sink_attention_map", "sink_mass_by_position", "sink_mass_by_score", "sink_softmax", "streaming_eviction",
    "STICK_COMPARED", "StickBreaking", "StickBreakingConstant", "StickBreakingSentence", "StickCompared",
    "stick_breaking_constant", "stick_breaking_sentence", "stick_breaking_weights"
]
