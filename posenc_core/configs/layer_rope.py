"""One layer's frequencies: the call to ``rope_inv_freq`` that its row's RoPE setting stands for."""

from __future__ import annotations

from .._types import ArrayOrTensor
from ..rope.frequencies import ROPE_SCALING, rope_inv_freq
from .layer_row import LayerRow

__all__ = ["layer_inv_freq"]


def layer_inv_freq(row: LayerRow, seq_len: int | None = None, *, backend: str = "numpy",
                   device: str | None = None) -> tuple[ArrayOrTensor, float]:
    """``(inv_freq, attention_factor)`` of one layer, from ``rope_inv_freq`` (what transformers computes)."""
    if not row.rotates:
        raise ValueError(f"Layer {row.index} ({row.layer_type}) does not rotate, so it has no frequencies.")
    if row.head_dim is None:
        raise ValueError("The config gives neither head_dim nor hidden_size and num_attention_heads.")
    scaling, partial = rope_call(row)
    if scaling.get("rope_type", "default") not in ROPE_SCALING:
        raise ValueError(f"This layer's rope_type '{scaling.get('rope_type')}' is not one the app computes yet.")
    if row.theta is None:
        raise ValueError("The config gives this layer no rope_theta, so its frequencies are unknown.")
    return rope_inv_freq(row.head_dim, row.theta, scaling or None, partial_rotary_factor=partial,
                         seq_len=seq_len, max_position_embeddings=row.max_position_embeddings,
                         backend=backend, device=device)


def rope_call(row) -> tuple[dict, float]:
    """The ``scaling`` dict and ``partial_rotary_factor`` to hand ``rope_inv_freq`` for a layer's setting.

    Gemma 4's ``proportional`` type takes the rotated fraction inside the rule (exponents over the whole head,
    zeros for the rest), not as a shorter rotary_dim.
    """
    scaling = {k: v for k, v in row.scaling.items()
               if k not in ("mrope_section", "mrope_interleaved", "llama_4_scaling_beta")}
    partial = row.partial_rotary_factor
    if scaling.get("rope_type") == "proportional":
        scaling["partial_rotary_factor"], partial = partial, 1.0
    return scaling, partial
