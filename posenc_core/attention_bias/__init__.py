"""Position as a bias on attention scores (ALiBi, T5), Shaw's relative vectors and NoPE, and every encoding side by side
(lessons/attention_bias)."""

from .biases import (
    alibi_attention,
    alibi_bias,
    alibi_bias_by_distance,
    alibi_distance_weights,
    alibi_gentlest_head,
    alibi_geometric_heads,
    alibi_mass_beyond,
    alibi_paper_slopes,
    alibi_receptive_field,
    alibi_receptive_field_limit,
    alibi_shown_heads,
    alibi_slope_table,
    alibi_slopes,
    t5_bias_grid,
    t5_bucket_grid,
    t5_bucket_layout,
    t5_bucket_spans,
    t5_bucket_values,
    t5_relative_position_bucket,
    t5_smallest_max_distance,
)
from .comparison import (
    CURVES,
    METHODS,
    ComparedMethod,
    CurveName,
    CurveSettings,
    Method,
    ModelShape,
    parameter_counts,
    score_curves,
)
from .relative import (
    masked_softmax,
    nope_outputs,
    nope_values,
    shaw_attention,
    shaw_clipped_distance,
    shaw_effective_keys,
    shaw_example,
    shaw_relative_index,
    shaw_scores,
    uniform_attention,
    uniform_attention_weights,
)

__all__ = [
    "alibi_attention", "alibi_bias", "alibi_bias_by_distance", "alibi_distance_weights", "alibi_geometric_heads",
    "alibi_gentlest_head", "alibi_mass_beyond", "alibi_paper_slopes", "alibi_receptive_field",
    "alibi_receptive_field_limit", "alibi_shown_heads", "alibi_slope_table", "alibi_slopes", "t5_bias_grid",
    "t5_bucket_grid", "t5_bucket_layout", "t5_bucket_spans", "t5_bucket_values", "t5_relative_position_bucket",
    "t5_smallest_max_distance", "CURVES", "METHODS", "ComparedMethod", "CurveName", "CurveSettings", "Method",
    "ModelShape", "parameter_counts", "score_curves", "masked_softmax", "nope_outputs", "nope_values", "shaw_attention",
    "shaw_clipped_distance", "shaw_effective_keys", "shaw_example", "shaw_relative_index", "shaw_scores",
    "uniform_attention", "uniform_attention_weights"
]
