"""Where RoPE lives in a model: what it costs next to the projections, for published configs.

The lesson *Where RoPE lives in a model*.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._checks import MAX_DIM, MAX_POSITIONS, as_even_dim, as_int
from .frequencies import rotary_dim

__all__ = [
    "ModelCosts",
    "ROPE_MODEL_PRESETS",
    "rope_model_costs",
]


@dataclass(frozen=True)
class ModelCosts:
    """What RoPE costs in a decoder (``rope_model_costs``); counts are ints.

    parameters: the weights RoPE adds (always 0). rotated_vectors_per_token: the queries and keys of every head in
    every layer (values are not rotated). rotations_per_token: 2D rotations, one per pair of each. table_values:
    the cos and sin tables' values for seq_len positions, shared by every layer. learned_table_parameters: what
    a learned absolute table of seq_len x d_model would cost. rotary_dim: the rotated dimensions of a head.
    projection_macs_per_layer: multiply-adds of x W_q, x W_k, x W_v per token and layer.
    rope_multiplies_per_layer: the rotations' multiplies per token and layer (4 per pair).
    rope_share_per_layer: the rotations' fraction of the two together, a float in [0, 1).
    """

    parameters: int
    rotated_vectors_per_token: int
    rotations_per_token: int
    table_values: int
    learned_table_parameters: int
    rotary_dim: int
    projection_macs_per_layer: int
    rope_multiplies_per_layer: int
    rope_share_per_layer: float


def rope_model_costs(n_layers: int, n_heads: int, n_kv_heads: int, head_dim: int, seq_len: int, *,
                     partial_rotary_factor: float = 1.0,
                     d_model: int | None = None) -> ModelCosts:
    """What RoPE adds to a decoder: no parameters, and a few rotations per token (a ``ModelCosts``)."""
    n_layers = as_int("n_layers", n_layers, minimum=1, maximum=1024)
    n_heads = as_int("n_heads", n_heads, minimum=1, maximum=4096)
    n_kv_heads = as_int("n_kv_heads", n_kv_heads, minimum=1, maximum=n_heads)
    if n_heads % n_kv_heads:
        raise ValueError(f"n_heads ({n_heads}) must be a multiple of n_kv_heads ({n_kv_heads}): each group of "
                         "query heads shares one key head.")
    d = as_even_dim("head_dim", head_dim)
    seq_len = as_int("seq_len", seq_len, minimum=1, maximum=MAX_POSITIONS * 64)
    r = rotary_dim(d, partial_rotary_factor)
    d_model = n_heads * d if d_model is None else as_int("d_model", d_model, minimum=1, maximum=MAX_DIM * 64)
    vectors = n_layers * (n_heads + n_kv_heads)
    # per token and layer: x W_q, x W_k, x W_v as multiply-adds; each 2D rotation is 4 multiplies
    projection, rotation = d_model * (n_heads + 2 * n_kv_heads) * d, 4 * (n_heads + n_kv_heads) * r // 2
    return ModelCosts(parameters=0, rotated_vectors_per_token=vectors, rotations_per_token=vectors * r // 2,
                      table_values=2 * seq_len * r // 2, learned_table_parameters=seq_len * d_model,
                      rotary_dim=r, projection_macs_per_layer=projection, rope_multiplies_per_layer=rotation,
                      rope_share_per_layer=rotation / (rotation + projection))


# Published configs (config.json on the Hugging Face Hub), for the "where it lives" lesson: preset -> its values.
ROPE_MODEL_PRESETS: dict[str, dict[str, Any]] = {
    "Llama 2 7B": dict(n_layers=32, n_heads=32, n_kv_heads=32, head_dim=128, d_model=4096, base=10000.0,
                       context=4096, partial_rotary_factor=1.0),
    "Llama 3 8B": dict(n_layers=32, n_heads=32, n_kv_heads=8, head_dim=128, d_model=4096, base=500000.0,
                       context=8192, partial_rotary_factor=1.0),
    "Qwen2 7B": dict(n_layers=28, n_heads=28, n_kv_heads=4, head_dim=128, d_model=3584, base=1000000.0,
                     context=32768, partial_rotary_factor=1.0),
    "GPT-NeoX 20B": dict(n_layers=44, n_heads=64, n_kv_heads=64, head_dim=96, d_model=6144, base=10000.0,
                         context=2048, partial_rotary_factor=0.25),
}
