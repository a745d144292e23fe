"""Released diffusion transformers: the position settings of each, with the file each value comes from.

The model hub cannot be reached from this project's machines, so no checkpoint's own
``transformer/config.json`` was read. Each value was instead checked against the nearest source that could
be read, and the citation says which: the model authors' reference code or configs (black-forest-labs/flux,
THUDM/CogVideo, Wan-Video/Wan2.1), diffusers' conversion scripts that write the published configs
(``scripts/convert_*_to_diffusers.py`` in huggingface/diffusers), and diffusers 0.42.1 as installed here
(class defaults, pipelines, single-file loader), cited by file and line. Where only third-party copies of a
published config were found, the citation says so.
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

    @property
    def pairs(self) -> int:
        """Rotary pairs in one head, all axes' blocks together."""
        return sum(self.axes) // 2


_DIFF = "diffusers 0.42.1"
_MT = f"{_DIFF} models/transformers/"
_PL = f"{_DIFF} pipelines/"
_CONV = "huggingface/diffusers scripts/"
_NOT_READ = "the checkpoint's own transformer/config.json not read (hub unreachable)"

DIT_PRESETS: dict[str, DitPreset] = {p.name: p for p in (
    DitPreset("FLUX.1-dev", "black-forest-labs/FLUX.1-dev", "flux1", 128, 24, (16, 56, 56), 10000.0, 16, 1,
              (1024, 1024, 1),
              {"24 heads x 128 (hidden 3072), axes (16, 56, 56), θ = 10,000":
               "black-forest-labs/flux src/flux/util.py (configs['flux-dev']: hidden_size=3072, num_heads=24, "
               f"axes_dim=[16, 56, 56], theta=10_000); the same as {_MT}transformer_flux.py:625 (class defaults) "
               f"and :631 (FluxPosEmbed(theta=10000)); {_NOT_READ}",
               "16 px per token": f"{_PL}flux/pipeline_flux.py:208, :211 (VAE 8x, then 2x2 packing)",
               "1024 x 1024": f"{_PL}flux/pipeline_flux.py:215 (default_sample_size 128 x VAE 8)"}),
    DitPreset("FLUX.2-dev", "black-forest-labs/FLUX.2-dev", "flux2", 128, 48, (32, 32, 32, 32), 2000.0, 16, 1,
              (1024, 1024, 1),
              {"48 heads x 128, axes (32, 32, 32, 32), rope_theta 2000, patch_size 1":
               f"{_CONV}convert_flux2_to_diffusers.py (get_flux2_transformer_config('flux2-dev'), "
               f"model_id black-forest-labs/FLUX.2-dev); the same as {_MT}transformer_flux2.py:1141-1155 "
               f"(class defaults) and :1164; {_NOT_READ}",
               "ids (t, h, w, l)": f"{_PL}flux2/pipeline_flux2.py:356, :375 (_prepare_text_ids, _prepare_latent_ids)",
               "16 px per token": f"{_PL}flux2/pipeline_flux2.py:291, :294 (VAE 8x, then 2x2 packing)",
               "1024 x 1024": f"{_PL}flux2/pipeline_flux2.py:296 (default_sample_size 128 x VAE 8)"}),
    DitPreset("Stable Diffusion 3.5 Large", "stabilityai/stable-diffusion-3.5-large", "sd3", 64, 38, (1216, 1216),
              10000.0, 16, 1, (1024, 1024, 1),
              {"38 heads x 64, pos_embed_max_size 192, sample_size 128, patch_size 2":
               f"{_NOT_READ}; these values agree in several independent third-party copies of that file in "
               f"public code; {_DIFF} loaders/single_file_utils.py:91-94, :679-680 tells this checkpoint by its "
               "38th joint block (38 layers)",
               "2D sin-cos table, centred crop": f"{_DIFF} models/embeddings.py:336 (PatchEmbed.cropped_pos_embed); "
               f"base_size = sample_size // patch_size at :312, built by {_MT}transformer_sd3.py:142-149"},
              {"pos_embed_max_size": 192, "base_size": 64}),
    DitPreset("Stable Diffusion 3.5 Medium", "stabilityai/stable-diffusion-3.5-medium", "sd3", 64, 24, (768, 768),
              10000.0, 16, 1, (1024, 1024, 1),
              {"pos_embed_max_size 384": f"{_DIFF} loaders/single_file_utils.py:676-677 (a pos_embed of "
               "147,456 = 384² rows is 'sd35_medium')",
               "24 heads x 64, sample_size 128, patch_size 2": f"{_NOT_READ}; these values agree in several "
               "independent third-party copies of that file in public code"},
              {"pos_embed_max_size": 384, "base_size": 64}),
    DitPreset("Wan2.1-T2V-14B", "Wan-AI/Wan2.1-T2V-14B-Diffusers", "wan", 128, 40, (44, 42, 42), 10000.0, 16, 4,
              (1280, 720, 81),
              {"40 heads x 128, patch_size (1, 2, 2)": f"{_CONV}convert_wan_to_diffusers.py "
               f"(get_transformer_config('Wan-T2V-14B')); {_NOT_READ}",
               "rope_max_seq_len 1024, θ, split t = 44, h = w = 42": "Wan-Video/Wan2.1 wan/modules/model.py "
               f"(rope_params(1024, ..., theta=10000), rope_apply's split); {_MT}transformer_wan.py:588 "
               "(default 1024, not set by the conversion script), :360, :368-369",
               "VAE 8x space, 4x time; 81 frames": f"{_PL}wan/pipeline_wan.py:154-155, :332",
               "1280 x 720": "Wan-Video/Wan2.1 wan/configs/__init__.py SUPPORTED_SIZES['t2v-14B'] "
               "(read in forks of that repo)"},
              {"rope_max_seq_len": 1024}),
    DitPreset("Wan2.1-T2V-1.3B", "Wan-AI/Wan2.1-T2V-1.3B-Diffusers", "wan", 128, 12, (44, 42, 42), 10000.0, 16, 4,
              (832, 480, 81),
              {"12 heads x 128, patch_size (1, 2, 2)": f"{_CONV}convert_wan_to_diffusers.py "
               f"(get_transformer_config('Wan-T2V-1.3B')); {_NOT_READ}",
               "rope_max_seq_len 1024": f"{_MT}transformer_wan.py:588 (default; not set by the conversion script)",
               "832 x 480 x 81": f"{_PL}wan/pipeline_wan.py:330-332 (call defaults)"},
              {"rope_max_seq_len": 1024}),
    DitPreset("HunyuanVideo", "hunyuanvideo-community/HunyuanVideo", "hunyuan", 128, 24, (16, 56, 56), 256.0, 16, 4,
              (1280, 720, 129),
              {"24 heads x 128, patch_size 2, patch_size_t 1, rope_axes_dim (16, 56, 56), rope_theta 256":
               f"{_CONV}convert_hunyuan_video_to_diffusers.py (TRANSFORMER_CONFIGS['HYVideo-T/2-cfgdistill']); "
               f"the same as {_MT}transformer_hunyuan_video.py:903-921 (class defaults); {_NOT_READ}",
               "VAE 8x space, 4x time; 1280 x 720 x 129":
               f"{_PL}hunyuan_video/pipeline_hunyuan_video.py:195-196, :391-393"}),
    DitPreset("CogVideoX-5b", "THUDM/CogVideoX-5b", "cogvideox", 64, 48, (16, 24, 24), 10000.0, 16, 4,
              (720, 480, 49),
              {"48 heads x 64, latent 90 x 60, patch_size 2, 49 frames, 4x time":
               "THUDM/CogVideo sat/configs/cogvideox_5b.yaml (num_attention_heads 48, hidden_size 3072, "
               "hidden_size_head 64, latent_width 90, latent_height 60, patch_size 2, num_frames 49, "
               f"time_compressed_rate 4); {_NOT_READ}",
               "split d/4, 3d/8, 3d/8; linspace grid": f"{_DIFF} models/embeddings.py:635, :692-694 "
               f"(get_3d_rotary_pos_embed); base grid from {_PL}cogvideo/pipeline_cogvideox.py:454-455"},
              {"base_rows": 30, "base_cols": 45, "patch_size_t": None}),
    DitPreset("CogVideoX1.5-5B", "THUDM/CogVideoX1.5-5B", "cogvideox", 64, 48, (16, 24, 24), 10000.0, 16, 8,
              (1360, 768, 81),
              {"sample 300 x 300, patch_size (2, 2, 2), 81 frames": "THUDM/CogVideo sat/configs/"
               "cogvideox1.5_5b.yaml (latent_width 300, latent_height 300, patch_size [2, 2, 2], num_frames 81, "
               f"48 heads, hidden_size_head 64); {_NOT_READ}",
               "slice grid, patch_size_t padding": f"{_PL}cogvideo/pipeline_cogvideox.py:441-455, :682-686",
               "1360 x 768": "THUDM/CogVideo inference/cli_demo.py (RESOLUTION_MAP['cogvideox1.5-5b'] = "
               "(768, 1360), height first)"},
              {"base_rows": 150, "base_cols": 150, "patch_size_t": 2}),
    DitPreset("Qwen-Image", "Qwen/Qwen-Image", "qwen", 128, 24, (16, 56, 56), 10000.0, 16, 1, (1328, 1328, 1),
              {"24 heads x 128, axes (16, 56, 56), patch_size 2": f"{_MT}transformer_qwenimage.py:816-827 "
               f"(class defaults); {_NOT_READ}; third-party copies of that file in public code agree",
               "θ = 10,000, scale_rope=True": f"{_MT}transformer_qwenimage.py:837 "
               "(QwenEmbedRope(theta=10000, ..., scale_rope=True), fixed in code)",
               "1328 x 1328": "the Qwen-Image model card's aspect-ratio table ('1:1': (1328, 1328)), read in "
               f"copies; {_PL}qwenimage/pipeline_qwenimage.py:177 would default to 1024"}),
)}


def dit_preset(name: str) -> DitPreset:
    """The preset called ``name`` (a key of DIT_PRESETS)."""
    if name not in DIT_PRESETS:
        raise ValueError(f"The model must be one of {', '.join(DIT_PRESETS)}, but got {name!r}.")
    return DIT_PRESETS[name]
