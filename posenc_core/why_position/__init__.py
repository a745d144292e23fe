"""Why position matters: attention without positions, and the first naive fixes (lessons/why_position)."""

from .binary import *  # noqa: F403
from .naive import *  # noqa: F403
from .order import *  # noqa: F403

__all__ = [
    "PERMUTATIONS", "POOLINGS", "demo_image", "order_experiment", "patch_experiment", "permutation", "pool",
    "self_attention", "shuffle_patches", "token_embeddings", "tokenize", "NAIVE_KINDS", "fraction_code_order",
    "fraction_codes", "naive_codes", "naive_inputs", "naive_norm_ratio", "MAX_BITS", "binary_codes", "binary_column",
    "binary_column_curve", "binary_period", "binary_waves",
]
