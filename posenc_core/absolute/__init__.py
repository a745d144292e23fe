"""Absolute encodings added to token embeddings: the sinusoidal table, learned tables read from files,
and token + position (lessons/absolute)."""

from .learned import (
    MAX_TABLE_ROWS,
    MAX_TABLE_VALUES,
    MAX_UPLOAD_BYTES,
    MINILM_PACKAGE,
    MINILM_TENSOR,
    PrincipalComponents,
    SampledSimilarity,
    TableSummary,
    learned_lookup,
    load_position_table,
    minilm_position_table,
    missing_rows,
    principal_components,
    sampled_similarity,
    table_summary,
)
from .sinusoidal import (
    LAYOUTS,
    VARIANTS,
    BaseDoubling,
    SinusoidalEntry,
    sinusoidal,
    sinusoidal_at,
    sinusoidal_base_doubling,
    sinusoidal_coverage,
    sinusoidal_entry,
    sinusoidal_frequencies,
    sinusoidal_full_circles,
    sinusoidal_shift_error,
    sinusoidal_shift_matrix,
    sinusoidal_variant_gap,
    sinusoidal_wavelength_step,
    sinusoidal_wavelengths,
)
from .token_position import (
    EMBEDDING_INITS,
    NormBalance,
    TokenPlusPosition,
    embedding_norm_balance,
    norm_ratio_doubling,
    token_plus_position,
)

__all__ = [
    "MAX_TABLE_ROWS", "MAX_TABLE_VALUES", "MAX_UPLOAD_BYTES", "MINILM_PACKAGE", "MINILM_TENSOR", "PrincipalComponents",
    "SampledSimilarity", "TableSummary", "learned_lookup", "load_position_table", "minilm_position_table",
    "missing_rows", "principal_components", "sampled_similarity", "table_summary", "LAYOUTS", "VARIANTS",
    "BaseDoubling", "SinusoidalEntry", "sinusoidal", "sinusoidal_at", "sinusoidal_base_doubling",
    "sinusoidal_coverage", "sinusoidal_entry", "sinusoidal_frequencies", "sinusoidal_full_circles",
    "sinusoidal_shift_error", "sinusoidal_shift_matrix", "sinusoidal_variant_gap", "sinusoidal_wavelength_step",
    "sinusoidal_wavelengths", "EMBEDDING_INITS", "NormBalance", "TokenPlusPosition", "embedding_norm_balance",
    "norm_ratio_doubling", "token_plus_position"
]
