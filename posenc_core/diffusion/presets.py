"""Released diffusion transformers: the position settings of each, with the file each value comes from.

The model hub cannot be reached from this project's machines, so the values were taken from the
checkpoints' ``transformer/config.json`` as published (cited per preset), cross-checked with diffusers
0.42.1's class defaults and its conversion scripts (``scripts/convert_*_to_diffusers.py``); values that
are not in a config (θ where diffusers hard-codes it, scale_rope, the VAE's compression) cite the
diffusers source file that fixes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    cites: dict[str, str] = field(default_factory=dict)  # value -> where it comes from
    extra: dict = field(default_factory=dict)  # family-specific: pos_embed_max_size, base grid, ...


_CFG = "transformer/config.json"
_DIFF = "diffusers 0.42.1"

DIT_PRESETS: dict[str, DitPreset] = {p.name: p for p in (
    DitPreset("FLUX.1-dev", "black-forest-labs/FLUX.1-dev", "flux1", 128, 24, (16, 56, 56), 10000.0, 16, 1,
              (1024, 1024, 1),
              {"attention_head_dim, num_attention_heads, axes_dims_rope": f"black-forest-labs/FLUX.1-dev {_CFG}",
               "θ = 10,000": f"{_DIFF} models/transformers/transformer_flux.py (FluxPosEmbed(theta=10000, ...))",
               "16 px per token": f"{_DIFF} pipelines/flux/pipeline_flux.py (VAE 8x, 2x2 packing)"}),
    DitPreset("FLUX.2-dev", "black-forest-labs/FLUX.2-dev", "flux2", 128, 48, (32, 32, 32, 32), 2000.0, 16, 1,
              (1024, 1024, 1),
              {"attention_head_dim, num_attention_heads, axes_dims_rope, rope_theta":
               f"black-forest-labs/FLUX.2-dev {_CFG}",
               "ids (t, h, w, l)": f"{_DIFF} pipelines/flux2/pipeline_flux2.py "
               "(_prepare_text_ids, _prepare_latent_ids)"}),
    DitPreset("Stable Diffusion 3.5 Large", "stabilityai/stable-diffusion-3.5-large", "sd3", 64, 38, (1216, 1216),
              10000.0, 16, 1, (1024, 1024, 1),
              {"attention_head_dim, num_attention_heads, pos_embed_max_size, sample_size, patch_size":
               f"stabilityai/stable-diffusion-3.5-large {_CFG}",
               "2D sin-cos, centred crop": f"{_DIFF} models/embeddings.py (PatchEmbed.cropped_pos_embed)"},
              {"pos_embed_max_size": 192, "base_size": 64}),
    DitPreset("Stable Diffusion 3.5 Medium", "stabilityai/stable-diffusion-3.5-medium", "sd3", 64, 24, (768, 768),
              10000.0, 16, 1, (1024, 1024, 1),
              {"attention_head_dim, num_attention_heads, pos_embed_max_size, sample_size, patch_size":
               f"stabilityai/stable-diffusion-3.5-medium {_CFG}"},
              {"pos_embed_max_size": 384, "base_size": 64}),
    DitPreset("Wan2.1-T2V-14B", "Wan-AI/Wan2.1-T2V-14B-Diffusers", "wan", 128, 40, (44, 42, 42), 10000.0, 16, 4,
              (1280, 720, 81),
              {"attention_head_dim, num_attention_heads, patch_size, rope_max_seq_len":
               f"Wan-AI/Wan2.1-T2V-14B-Diffusers {_CFG}",
               "split h = w = 2·(d // 6), θ": f"{_DIFF} models/transformers/transformer_wan.py (WanRotaryPosEmbed)",
               "VAE 8x space, 4x time": f"{_DIFF} pipelines/wan/pipeline_wan.py"},
              {"rope_max_seq_len": 1024}),
    DitPreset("Wan2.1-T2V-1.3B", "Wan-AI/Wan2.1-T2V-1.3B-Diffusers", "wan", 128, 12, (44, 42, 42), 10000.0, 16, 4,
              (832, 480, 81),
              {"attention_head_dim, num_attention_heads, patch_size, rope_max_seq_len":
               f"Wan-AI/Wan2.1-T2V-1.3B-Diffusers {_CFG}"},
              {"rope_max_seq_len": 1024}),
    DitPreset("HunyuanVideo", "hunyuanvideo-community/HunyuanVideo", "hunyuan", 128, 24, (16, 56, 56), 256.0, 16, 4,
              (1280, 720, 129),
              {"attention_head_dim, num_attention_heads, patch_size, patch_size_t, rope_axes_dim, rope_theta":
               f"hunyuanvideo-community/HunyuanVideo {_CFG}",
               "VAE 8x space, 4x time": f"{_DIFF} pipelines/hunyuan_video/pipeline_hunyuan_video.py"}),
    DitPreset("CogVideoX-5b", "THUDM/CogVideoX-5b", "cogvideox", 64, 48, (16, 24, 24), 10000.0, 16, 4,
              (720, 480, 49),
              {"attention_head_dim, num_attention_heads, sample_width, sample_height, patch_size":
               f"THUDM/CogVideoX-5b {_CFG}",
               "split d/4, 3d/8, 3d/8; linspace grid": f"{_DIFF} models/embeddings.py (get_3d_rotary_pos_embed)"},
              {"base_rows": 30, "base_cols": 45, "patch_size_t": None}),
    DitPreset("CogVideoX1.5-5B", "THUDM/CogVideoX1.5-5B", "cogvideox", 64, 48, (16, 24, 24), 10000.0, 16, 8,
              (1360, 768, 81),
              {"sample_width = sample_height = 300, patch_size_t = 2": f"THUDM/CogVideoX1.5-5B {_CFG} (as "
               "diffusers' scripts/convert_cogvideox_to_diffusers.py writes it for version 1.5)",
               "slice grid": f"{_DIFF} pipelines/cogvideo/pipeline_cogvideox.py "
               "(_prepare_rotary_positional_embeddings)"},
              {"base_rows": 150, "base_cols": 150, "patch_size_t": 2}),
    DitPreset("Qwen-Image", "Qwen/Qwen-Image", "qwen", 128, 24, (16, 56, 56), 10000.0, 16, 1, (1328, 1328, 1),
              {"attention_head_dim, num_attention_heads, axes_dims_rope, patch_size": f"Qwen/Qwen-Image {_CFG}",
               "θ = 10,000, scale_rope=True": f"{_DIFF} models/transformers/transformer_qwenimage.py "
               "(QwenEmbedRope(theta=10000, ..., scale_rope=True))"}),
)}


def dit_preset(name: str) -> DitPreset:
    """The preset called ``name`` (a key of DIT_PRESETS)."""
    if name not in DIT_PRESETS:
        raise ValueError(f"The model must be one of {', '.join(DIT_PRESETS)}, but got {name!r}.")
    return DIT_PRESETS[name]
