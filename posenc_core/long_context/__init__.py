"""Long context: what a context-extension method does to each rotary pair, against L and L' (lessons/long_context).
The scaling types themselves are RoPE frequencies (``rope.frequencies``); config.json reading is ``configs``."""

from .extension import (
    BANDS,
    EXTENSION_METHODS,
    PHI35_LONG_FACTOR,
    PHI35_SHORT_FACTOR,
    AttentionFactorCurve,
    ExtensionAnalysis,
    ExtensionBandCounts,
    ExtensionMethod,
    FastestPair,
    attention_factor_curve,
    deepseek_softmax_mscale,
    dynamic_ntk_base,
    extension_analysis,
    extension_at_defaults,
    extension_band_counts,
    extension_scaling,
    fastest_pair_when_doubled,
    first_stale_call,
    ntk_stretched_base,
    resample_factors,
    score_vs_distance,
    yarn_code_bounds,
    yarn_paper_ramp,
    yarn_paper_ratio,
)

__all__ = [
    "BANDS", "fastest_pair_when_doubled", "EXTENSION_METHODS", "PHI35_LONG_FACTOR", "PHI35_SHORT_FACTOR",
    "attention_factor_curve", "deepseek_softmax_mscale", "dynamic_ntk_base", "extension_analysis",
    "extension_at_defaults", "extension_band_counts", "first_stale_call", "ntk_stretched_base", "extension_scaling",
    "resample_factors", "score_vs_distance", "yarn_code_bounds", "yarn_paper_ramp", "yarn_paper_ratio",
    "ExtensionMethod", "FastestPair", "AttentionFactorCurve", "ExtensionAnalysis", "ExtensionBandCounts",
]
