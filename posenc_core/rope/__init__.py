"""Rotary position embedding (RoPE): its frequencies, and one module per lesson of the RoPE section.

``rotation`` (apply_rope, one pair, the angle table), ``relative`` (score grids, decay), ``layouts`` (half
against interleaved pairs, checkpoint conversion, partial rotary), ``precision`` (angles in low-precision
dtypes), ``model_costs`` (what RoPE costs in a model), and ``frequencies``: theta_i = base^(-2i/d) once
(``base_inv_freq``) and every scaling type transformers has (``rope_inv_freq``, the ``ROPE_SCALING`` registry);
``dynamic_calls``: what a dynamic-NTK module uses call after call (its cached state); ``fope``: FoPE's
clipped, coefficient-mixed cos/sin as vLLM serves Intern-S1-Pro.
"""

from .dynamic_calls import (
    DYNAMIC_CALL_PATTERNS,
    CallEvent,
    CallPattern,
    DynamicCalls,
    dynamic_call_lengths,
    rope_dynamic_calls,
)
from .fope import (
    FOPE_SIN_PADS,
    FopeCoefficients,
    FopeFrequencies,
    FopeScores,
    fope_cos_sin,
    fope_demo_coefficients,
    fope_distance_scores,
    fope_inv_freq,
    fope_mix_by_pair,
    fope_rotate,
)
from .frequencies import (
    ROPE_SCALING,
    ScalingContext,
    base_freq_divisors,
    base_inv_freq,
    rope_inv_freq,
    rotary_dim,
    scaling_type,
    yarn_correction_dim,
    yarn_mscale,
    yarn_ramp,
    yarn_ramp_bounds,
)
from .layouts import (
    ConversionScores,
    CosTable,
    LayoutCheck,
    half_rows_to_interleaved,
    half_to_interleaved_permutation,
    interleaved_rows_to_half,
    rope_conversion_scores,
    rope_cos_table,
    rope_layout_check,
)
from .model_costs import ROPE_MODEL_PRESETS, ModelCosts, rope_model_costs
from .precision import (
    ANGLE_DTYPES,
    AngleErrorCurve,
    AnglesInDtype,
    PowDifference,
    rope_angle_error_curve,
    rope_angles_in_dtype,
    rope_first_bad_position,
    rope_float32_pow_difference,
    rope_inv_freq_float32_pow,
    round_to_dtype,
)
from .relative import (
    DecayCurves,
    MeanAbsScores,
    rope_decay_bound,
    rope_decay_curves,
    rope_mean_abs_scores,
    rope_score_matrix,
)
from .rotation import (
    ROPE_LAYOUTS,
    PairRotation,
    PairShiftScores,
    PairTurns,
    apply_rope,
    rope_angle_table,
    rope_angles,
    rope_pair,
    rope_pair_shift_scores,
    rope_pair_theta,
    rope_turns,
)

__all__ = [
    "DYNAMIC_CALL_PATTERNS", "dynamic_call_lengths", "rope_dynamic_calls", "ROPE_SCALING", "ScalingContext",
    "base_freq_divisors", "base_inv_freq", "rope_inv_freq", "rotary_dim", "scaling_type", "yarn_correction_dim",
    "yarn_mscale", "yarn_ramp", "yarn_ramp_bounds", "half_rows_to_interleaved", "half_to_interleaved_permutation",
    "interleaved_rows_to_half", "rope_conversion_scores", "rope_cos_table", "rope_layout_check",
    "ROPE_MODEL_PRESETS", "rope_model_costs", "ANGLE_DTYPES", "rope_angle_error_curve", "rope_angles_in_dtype",
    "rope_first_bad_position", "rope_float32_pow_difference", "rope_inv_freq_float32_pow", "round_to_dtype",
    "rope_decay_bound", "rope_decay_curves", "rope_mean_abs_scores", "rope_score_matrix", "ROPE_LAYOUTS",
    "apply_rope", "rope_angle_table", "rope_angles", "rope_pair", "rope_pair_shift_scores", "rope_pair_theta",
    "rope_turns", "CallEvent", "CallPattern", "DynamicCalls", "ConversionScores", "CosTable", "LayoutCheck",
    "ModelCosts", "AngleErrorCurve", "AnglesInDtype", "PowDifference", "DecayCurves", "MeanAbsScores",
    "PairRotation", "PairShiftScores", "PairTurns", "FOPE_SIN_PADS", "FopeCoefficients", "FopeFrequencies",
    "FopeScores", "fope_cos_sin", "fope_demo_coefficients", "fope_distance_scores", "fope_inv_freq", "fope_mix_by_pair",
    "fope_rotate",
]
