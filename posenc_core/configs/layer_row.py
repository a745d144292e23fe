"""What one layer is: the mixer a layer-type label stands for, and the row the pages draw for each layer.

``MIXER_KINDS`` maps a config's ``layer_types`` label to a code for what the layer mixes tokens with;
``MIXER_FAMILIES`` names the family a model's non-attention layers belong to; ``LayerRow`` holds what one layer
does with positions once ``layer_reading.layer_scheme`` has read it from a config, and ``RotationReason`` why it
rotates or not. Codes only: the page kit words them (``page_kit.lesson.config_words``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .query_scale import LayerQueryScale

__all__ = ["ATTENTION_KINDS", "LayerRow", "MIXER_FAMILIES", "MIXER_KINDS", "MixerCode", "MixerFamily", "ReasonCode",
           "RotationReason"]

# What a layer mixes tokens with. "other": a label nobody maps (the row's layer_type says what it is).
MixerCode = Literal["full_attention", "sliding_window", "chunked_attention", "linear_attention", "state_space",
                    "convolution", "hybrid", "mlp_only", "other"]

# What a layer mixes tokens with, by the layer-type label the config uses.
MIXER_KINDS: dict[str, MixerCode] = {
    "full_attention": "full_attention",
    "attention": "full_attention",
    "global": "full_attention",
    "indexed_attention": "full_attention",  # DeepSeek V3.2 / Mistral Large 4: a sparse indexer picks the keys
    "compressed_sparse_attention": "full_attention",
    "heavily_compressed_attention": "full_attention",
    "sliding_attention": "sliding_window",
    "local": "sliding_window",
    "chunked_attention": "chunked_attention",
    "linear_attention": "linear_attention",
    "mamba": "state_space",
    "mamba2": "state_space",
    "conv": "convolution",
    "short_conv": "convolution",
    "hybrid": "hybrid",  # attention and a state-space mixer in one layer
    "moe": "mlp_only",
    "mlp": "mlp_only",
}
ATTENTION_KINDS: tuple[MixerCode, ...] = ("full_attention", "sliding_window", "chunked_attention", "hybrid")
GENERIC_KINDS: tuple[MixerCode, ...] = ("full_attention", "sliding_window", "chunked_attention")

# The layer a model's code builds for a non-attention (or hybrid) label differs by family.
MixerFamily = Literal["gated_deltanet", "kimi_delta_attention", "mamba2", "attention_mamba2_parallel",
                      "short_gated_convolution"]
MIXER_FAMILIES: dict[str, MixerFamily] = {
    "qwen3_next": "gated_deltanet",
    "qwen3_5_text": "gated_deltanet",
    "qwen3_5_moe_text": "gated_deltanet",
    "kimi_linear": "kimi_delta_attention",
    "granitemoehybrid": "mamba2",
    "nemotron_h": "mamba2",
    "falcon_h1": "attention_mamba2_parallel",
    "lfm2": "short_gated_convolution",
}

# Why a layer rotates or not, by the rule that decided it (the model code's condition, or the RoPE settings).
ReasonCode = Literal[
    "no_rope_layers_one",  # no_rope_layers[i] = 1 (the code rotates `if self.use_rope`)
    "no_rope_layers_zero",  # no_rope_layers[i] = 0: NoPE
    "no_rope_layers_missing",  # no no_rope_layers entry for the layer: it rotates
    "sliding_only",  # a sliding-window layer of code that rotates only sliding layers
    "sliding_only_not_sliding",  # not a sliding-window layer of such code: NoPE
    "force_rope",  # a dense prefix layer with prefix_dense_sliding_window_pattern = 1
    "sliding_window_null",  # `if self.sliding_window is None or self.is_sliding` with no window: every layer rotates
    "sliding_rotates",  # ... a sliding layer rotates
    "global_skips",  # ... a global layer skips the rotation
    "mem_rope_on", "mem_rope_off",  # Zamba2's use_mem_rope
    "rotary_type",  # position_embedding_type = 'rotary'
    "not_rotary_type",  # detail: the position_embedding_type that is not 'rotary'
    "no_rotary_embedding",  # detail: the position_embedding_type for which the model builds no rotary embedding
    "no_rotary_module",  # the model's code has no rotary module
    "unread_condition",  # detail: the code's condition this reading does not evaluate
    "rope_parameters_entry",  # detail: the rope_parameters key the layer uses
    "rope_parameters_null",  # detail: the rope_parameters key that is null
    "rope_parameters_missing",  # detail: the layer's key that rope_parameters lacks
    "one_setting",  # a flat RoPE dict for every layer
    "no_settings",  # no RoPE settings in the config
    "no_settings_given",  # follows a reason that rotates: but the config gives no RoPE settings
    "not_attention",  # not an attention layer
]


@dataclass(frozen=True)
class RotationReason:
    """One reason a layer rotates or not: its code and the value the code names (a key, a condition, a setting)."""

    code: ReasonCode
    detail: object = None


@dataclass(frozen=True)
class LayerRow:
    """What one layer does with positions."""

    index: int
    layer_type: str  # the config's label
    mixer: MixerCode  # what the layer mixes tokens with
    mixer_family: MixerFamily | None  # the family's own layer (Gated DeltaNet, Mamba-2, ...), None: the mixer alone
    # sliding-window width: the farthest key a query sees, plus one (a causal window: the keys it sees, itself
    # included; a bidirectional one sees window - 1 keys on each side and itself: 2 * window - 1 keys)
    window: int | None = None
    chunk: int | None = None  # chunked attention's chunk size
    rotates: bool = False
    reasons: tuple[RotationReason, ...] = ()  # why it rotates or not, in the model code's terms
    rope_label: str | None = None  # the key of rope_parameters this layer uses (None: flat dict)
    rope_type: str | None = None
    theta: float | None = None
    partial_rotary_factor: float = 1.0
    head_dim: int | None = None  # the head size RoPE is computed for (qk_rope_head_dim for latent attention)
    scaling: dict = field(default_factory=dict)  # the layer's RoPE dict without rope_theta / partial factor
    query_scale: LayerQueryScale | None = None  # how the layer scales its queries by position, if it does
    sink: bool = False
    latent: bool = False
    mrope: bool = False
    max_position_embeddings: int | None = None
    qk_nope_head_dim: int | None = None  # latent attention: the part of each query/key head that is not rotated
    mrope_section: tuple[int, ...] | None = None  # multimodal RoPE: pairs per axis, as the rotary module splits them
    # how it hands pairs to the axes, from its code: a key of multimodal.ALLOCATIONS, or "own_code" for a layout of
    # the model's own
    mrope_layout: str | None = None
    bidirectional: bool = False  # an encoder: queries see keys on both sides (no causal mask)

    @property
    def is_attention(self) -> bool:
        return self.mixer in ATTENTION_KINDS

    @property
    def scaling_factor(self) -> float | None:
        value = self.scaling.get("factor")
        return None if value is None else float(value)

    @property
    def rotated_pairs(self) -> int:
        """Pairs that turn: int(head_dim · factor) / 2, or for proportional, int(factor · head_dim // 2)."""
        if not self.rotates or not self.head_dim:
            return 0
        if self.rope_type == "proportional":
            return int(self.partial_rotary_factor * self.head_dim // 2)
        return int(self.head_dim * self.partial_rotary_factor) // 2

    def signature(self) -> tuple:
        """Rows with equal signatures draw the same figures (used to group layers)."""
        mixer = self.layer_type if self.mixer == "other" else self.mixer
        return (mixer, self.window, self.chunk, self.rotates, self.rope_label, self.rope_type, self.theta,
                self.partial_rotary_factor, self.head_dim, repr(sorted(self.scaling.items())),
                repr(self.query_scale), self.sink)
