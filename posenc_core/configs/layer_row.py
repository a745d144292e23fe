"""What one layer is: the mixer a layer-type label stands for, and the row the pages draw for each layer.

``MIXER_KINDS`` maps a config's ``layer_types`` label to what the layer mixes tokens with; ``LayerRow`` holds what
one layer does with positions once ``layer_reading.layer_scheme`` has read it from a config.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["LayerRow", "MIXER_KINDS"]

# What a layer mixes tokens with, by the layer-type label the config uses.
MIXER_KINDS = {
    "full_attention": "full attention",
    "attention": "full attention",
    "global": "full attention",
    "indexed_attention": "full attention",  # DeepSeek V3.2 / Mistral Large 4: a sparse indexer picks the keys
    "compressed_sparse_attention": "full attention",
    "heavily_compressed_attention": "full attention",
    "sliding_attention": "sliding window",
    "local": "sliding window",
    "chunked_attention": "chunked attention",
    "linear_attention": "linear attention",
    "mamba": "state space",
    "mamba2": "state space",
    "conv": "convolution",
    "short_conv": "convolution",
    "hybrid": "attention + state space",
    "moe": "no mixer (MLP only)",
    "mlp": "no mixer (MLP only)",
}
ATTENTION_KINDS = ("full attention", "sliding window", "chunked attention", "attention + state space")

# The layer a model's code builds for a "linear_attention" label differs by family.
MIXER_NAMES = {
    "qwen3_next": "Gated DeltaNet (linear attention)",
    "qwen3_5_text": "Gated DeltaNet (linear attention)",
    "qwen3_5_moe_text": "Gated DeltaNet (linear attention)",
    "kimi_linear": "Kimi Delta Attention (linear attention)",
    "granitemoehybrid": "Mamba-2 (state space)",
    "nemotron_h": "Mamba-2 (state space)",
    "falcon_h1": "attention and Mamba-2 side by side",
    "lfm2": "short gated convolution",
}


@dataclass(frozen=True)
class LayerRow:
    """What one layer does with positions."""

    index: int
    layer_type: str  # the config's label
    mixer: str  # full attention / sliding window / chunked attention / linear attention / state space / ...
    mixer_name: str  # the family's name for it (Gated DeltaNet, Mamba-2, ...)
    # sliding-window width: the farthest key a query sees, plus one (a causal window: the keys it sees, itself
    # included; a bidirectional one sees window - 1 keys on each side and itself: 2 * window - 1 keys)
    window: int | None = None
    chunk: int | None = None  # chunked attention's chunk size
    rotates: bool = False
    why: str = ""  # why it rotates or not, in the model code's terms
    rope_label: str | None = None  # the key of rope_parameters this layer uses (None: flat dict)
    rope_type: str | None = None
    theta: float | None = None
    partial_rotary_factor: float = 1.0
    head_dim: int | None = None  # the head size RoPE is computed for (qk_rope_head_dim for latent attention)
    scaling: dict = field(default_factory=dict)  # the layer's RoPE dict without rope_theta / partial factor
    query_scale: dict | None = None  # {"rule": "llama4_temperature" | "llama4_beta", ...parameters}
    sink: bool = False
    latent: bool = False
    mrope: bool = False
    max_position_embeddings: int | None = None
    qk_nope_head_dim: int | None = None  # latent attention: the part of each query/key head that is not rotated
    mrope_section: tuple[int, ...] | None = None  # multimodal RoPE: pairs per axis, as the rotary module splits them
    mrope_layout: str | None = None  # how it hands pairs to the axes (a key of multimodal.ALLOCATIONS), from its code
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
        return (self.mixer, self.window, self.chunk, self.rotates, self.rope_label, self.rope_type, self.theta,
                self.partial_rotary_factor, self.head_dim, repr(sorted(self.scaling.items())),
                repr(self.query_scale), self.sink)
