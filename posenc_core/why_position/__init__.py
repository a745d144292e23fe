"""Why position matters: attention without positions, and the first naive fixes (lessons/why_position)."""

from .binary import (
    MAX_BITS,
    BinaryColumn,
    binary_codes,
    binary_column,
    binary_column_curve,
    binary_period,
    binary_waves,
)
from .naive import (
    NAIVE_KINDS,
    NaiveInputs,
    fraction_code_order,
    fraction_codes,
    naive_codes,
    naive_inputs,
    naive_norm_ratio,
)
from .order import (
    PERMUTATIONS,
    POOLINGS,
    OrderExperiment,
    PatchExperiment,
    demo_image,
    order_experiment,
    patch_experiment,
    permutation,
    pool,
    self_attention,
    shuffle_patches,
    token_embeddings,
    tokenize,
)

__all__ = [
    "MAX_BITS", "BinaryColumn", "binary_codes", "binary_column", "binary_column_curve", "binary_period",
    "binary_waves", "NAIVE_KINDS", "NaiveInputs", "fraction_code_order", "fraction_codes", "naive_codes",
    "naive_inputs", "naive_norm_ratio", "PERMUTATIONS", "POOLINGS", "OrderExperiment", "PatchExperiment", "demo_image",
    "order_experiment", "patch_experiment", "permutation", "pool", "self_attention", "shuffle_patches",
    "token_embeddings", "tokenize"
]
