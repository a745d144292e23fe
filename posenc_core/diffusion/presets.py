"""Released diffusion transformers: the position settings of each.

The model hub cannot be reached from this project's machines, so no checkpoint's own ``transformer/config.json``
was read; each value was checked against the nearest source that could be read (the model authors' reference
code or configs, diffusers' conversion scripts and diffusers 0.42.1 as installed here). The citations, value by
value, are the lessons' words (lessons/diffusion/words.py, keyed by preset name).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["DitPreset", "DIT_PRESETS", "dit_preset"]


@dataclass(frozen=True)
class DitPreset:
    name: str
    repo: str  # Hugging Face repo id of the checkpoint
    family: str  # 'flux1', 'flux2', 'sd3', 'wan', 'hunyuan', 'cogvideox', 'qwen'
    head_dim: int  # attention_head_dim
    heads: int  # num_attention_heads
    axes: tuple[int, ...]  # rotary dims per axis (t, h, w[, l]); for SD3 the (column, row) halves of the table
    theta: float
    pixels_per_token: int  # VAE spatial factor x patch size
    frames_per_token: int  # video frames per time id: VAE temporal factor x patch_size_t (1 for images)
    size: tuple[int, int, int]  # a released default (width px, height px, frames)
    extra: dict[str, Any] = field(default_factory=dict)  # family-specific: pos_embed_max_size, base grid, ...

    @property
    def pairs(self) -> int:
        """Rotary pairs in one head, all axes' blocks together."""
        return sum(self.axes) // 2


DIT_PRESETS: dict[str, DitPreset] = {p.name: p for p in (
    DitPreset("FLUX.1-dev", "black-forest-labs/FLUX.1-dev", "flux1", 128, 24, (16, 56, 56), 10000.0, 16, 1,
              (1024, 1024, 1)),
    DitPreset("FLUX.2-dev", "black-forest-labs/FLUX.2-dev", "flux2", 128, 48, (32, 32, 32, 32), 2000.0, 16, 1,
              (1024, 1024, 1)),
    DitPreset("Stable Diffusion 3.5 Large", "stabilityai/stable-diffusion-3.5-large", "sd3", 64, 38, (1216, 1216),
              10000.0, 16, 1, (1024, 1024, 1),
              {"pos_embed_max_size": 192, "base_size": 64}),
    DitPreset("Stable Diffusion 3.5 Medium", "stabilityai/stable-diffusion-3.5-medium", "sd3", 64, 24, (768, 768),
              10000.0, 16, 1, (1024, 1024, 1),
              {"pos_embed_max_size": 384, "base_size": 64}),
    DitPreset("Wan2.1-T2V-14B", "Wan-AI/Wan2.1-T2V-14B-Diffusers", "wan", 128, 40, (44, 42, 42), 10000.0, 16, 4,
              (1280, 720, 81),
              {"rope_max_seq_len": 1024}),
    DitPreset("Wan2.1-T2V-1.3B", "Wan-AI/Wan2.1-T2V-1.3B-Diffusers", "wan", 128, 12, (44, 42, 42), 10000.0, 16, 4,
              (832, 480, 81),
              {"rope_max_seq_len": 1024}),
    DitPreset("HunyuanVideo", "hunyuanvideo-community/HunyuanVideo", "hunyuan", 128, 24, (16, 56, 56), 256.0, 16, 4,
              (1280, 720, 129)),
    DitPreset("CogVideoX-5b", "THUDM/CogVideoX-5b", "cogvideox", 64, 48, (16, 24, 24), 10000.0, 16, 4,
              (720, 480, 49),
              {"base_rows": 30, "base_cols": 45, "patch_size_t": None}),
    DitPreset("CogVideoX1.5-5B", "THUDM/CogVideoX1.5-5B", "cogvideox", 64, 48, (16, 24, 24), 10000.0, 16, 8,
              (1360, 768, 81),
              {"base_rows": 150, "base_cols": 150, "patch_size_t": 2}),
    DitPreset("Qwen-Image", "Qwen/Qwen-Image", "qwen", 128, 24, (16, 56, 56), 10000.0, 16, 1, (1328, 1328, 1)),
)}


def dit_preset(name: str) -> DitPreset:
    """The preset called ``name`` (a key of DIT_PRESETS)."""
    if name not in DIT_PRESETS:
        raise ValueError(f"The model must be one of {', '.join(DIT_PRESETS)}, but got {name!r}.")
    return DIT_PRESETS[name]
