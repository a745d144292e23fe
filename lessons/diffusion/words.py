"""The words of the diffusion pages: where each preset's values come from, by preset name and value.

The model hub cannot be reached from this project's machines, so no checkpoint's own ``transformer/config.json``
was read. Each value of ``pc.diffusion.DIT_PRESETS`` was instead checked against the nearest source that could be
read, and the citation says which: the model authors' reference code or configs (black-forest-labs/flux,
THUDM/CogVideo, Wan-Video/Wan2.1), diffusers' conversion scripts that write the published configs
(``scripts/convert_*_to_diffusers.py`` in huggingface/diffusers), and diffusers 0.42.1 as installed here (class
defaults, pipelines, single-file loader), cited by file and line. Where only third-party copies of a published
config were found, the citation says so.
"""

from __future__ import annotations

# preset name -> {the value cited: where it comes from}, shown under each page's figures
CITES: dict[str, dict[str, str]] = {
    "FLUX.1-dev": {
        "24 heads x 128 (hidden 3072), axes (16, 56, 56), θ = 10,000":
            "black-forest-labs/flux src/flux/util.py (configs['flux-dev']: hidden_size=3072, num_heads=24, "
            "axes_dim=[16, 56, 56], theta=10_000); the same as diffusers 0.42.1 "
            "models/transformers/transformer_flux.py:625 (class defaults) and :631 (FluxPosEmbed(theta=10000)); "
            "the checkpoint's own transformer/config.json not read (hub unreachable)",
        "16 px per token":
            "diffusers 0.42.1 pipelines/flux/pipeline_flux.py:208, :211 (VAE 8x, then 2x2 packing)",
        "1024 x 1024":
            "diffusers 0.42.1 pipelines/flux/pipeline_flux.py:215 (default_sample_size 128 x VAE 8)",
    },
    "FLUX.2-dev": {
        "48 heads x 128, axes (32, 32, 32, 32), rope_theta 2000, patch_size 1":
            "huggingface/diffusers scripts/convert_flux2_to_diffusers.py "
            "(get_flux2_transformer_config('flux2-dev'), model_id black-forest-labs/FLUX.2-dev); the same as "
            "diffusers 0.42.1 models/transformers/transformer_flux2.py:1141-1155 (class defaults) and :1164; the "
            "checkpoint's own transformer/config.json not read (hub unreachable)",
        "ids (t, h, w, l)":
            "diffusers 0.42.1 pipelines/flux2/pipeline_flux2.py:356, :375 (_prepare_text_ids, "
            "_prepare_latent_ids)",
        "16 px per token":
            "diffusers 0.42.1 pipelines/flux2/pipeline_flux2.py:291, :294 (VAE 8x, then 2x2 packing)",
        "1024 x 1024":
            "diffusers 0.42.1 pipelines/flux2/pipeline_flux2.py:296 (default_sample_size 128 x VAE 8)",
    },
    "Stable Diffusion 3.5 Large": {
        "38 heads x 64, pos_embed_max_size 192, sample_size 128, patch_size 2":
            "the checkpoint's own transformer/config.json not read (hub unreachable); these values agree in "
            "several independent third-party copies of that file in public code; diffusers 0.42.1 "
            "loaders/single_file_utils.py:91-94, :679-680 tells this checkpoint by its 38th joint block (38 "
            "layers)",
        "2D sin-cos table, centred crop":
            "diffusers 0.42.1 models/embeddings.py:336 (PatchEmbed.cropped_pos_embed); base_size = sample_size //"
            " patch_size at :312, built by diffusers 0.42.1 models/transformers/transformer_sd3.py:142-149",
    },
    "Stable Diffusion 3.5 Medium": {
        "pos_embed_max_size 384":
            "diffusers 0.42.1 loaders/single_file_utils.py:676-677 (a pos_embed of 147,456 = 384² rows is "
            "'sd35_medium')",
        "24 heads x 64, sample_size 128, patch_size 2":
            "the checkpoint's own transformer/config.json not read (hub unreachable); these values agree in "
            "several independent third-party copies of that file in public code",
    },
    "Wan2.1-T2V-14B": {
        "40 heads x 128, patch_size (1, 2, 2)":
            "huggingface/diffusers scripts/convert_wan_to_diffusers.py (get_transformer_config('Wan-T2V-14B')); "
            "the checkpoint's own transformer/config.json not read (hub unreachable)",
        "rope_max_seq_len 1024, θ, split t = 44, h = w = 42":
            "Wan-Video/Wan2.1 wan/modules/model.py (rope_params(1024, ..., theta=10000), rope_apply's split); "
            "diffusers 0.42.1 models/transformers/transformer_wan.py:588 (default 1024, not set by the conversion"
            " script), :360, :368-369",
        "VAE 8x space, 4x time; 81 frames":
            "diffusers 0.42.1 pipelines/wan/pipeline_wan.py:154-155, :332",
        "1280 x 720":
            "Wan-Video/Wan2.1 wan/configs/__init__.py SUPPORTED_SIZES['t2v-14B'] (read in forks of that repo)",
    },
    "Wan2.1-T2V-1.3B": {
        "12 heads x 128, patch_size (1, 2, 2)":
            "huggingface/diffusers scripts/convert_wan_to_diffusers.py (get_transformer_config('Wan-T2V-1.3B')); "
            "the checkpoint's own transformer/config.json not read (hub unreachable)",
        "rope_max_seq_len 1024":
            "diffusers 0.42.1 models/transformers/transformer_wan.py:588 (default; not set by the conversion "
            "script)",
        "832 x 480 x 81":
            "diffusers 0.42.1 pipelines/wan/pipeline_wan.py:330-332 (call defaults)",
    },
    "HunyuanVideo": {
        "24 heads x 128, patch_size 2, patch_size_t 1, rope_axes_dim (16, 56, 56), rope_theta 256":
            "huggingface/diffusers scripts/convert_hunyuan_video_to_diffusers.py "
            "(TRANSFORMER_CONFIGS['HYVideo-T/2-cfgdistill']); the same as diffusers 0.42.1 "
            "models/transformers/transformer_hunyuan_video.py:903-921 (class defaults); the checkpoint's own "
            "transformer/config.json not read (hub unreachable)",
        "VAE 8x space, 4x time; 1280 x 720 x 129":
            "diffusers 0.42.1 pipelines/hunyuan_video/pipeline_hunyuan_video.py:195-196, :391-393",
    },
    "CogVideoX-5b": {
        "48 heads x 64, latent 90 x 60, patch_size 2, 49 frames, 4x time":
            "THUDM/CogVideo sat/configs/cogvideox_5b.yaml (num_attention_heads 48, hidden_size 3072, "
            "hidden_size_head 64, latent_width 90, latent_height 60, patch_size 2, num_frames 49, "
            "time_compressed_rate 4); the checkpoint's own transformer/config.json not read (hub unreachable)",
        "split d/4, 3d/8, 3d/8; linspace grid":
            "diffusers 0.42.1 models/embeddings.py:635, :692-694 (get_3d_rotary_pos_embed); base grid from "
            "diffusers 0.42.1 pipelines/cogvideo/pipeline_cogvideox.py:454-455",
    },
    "CogVideoX1.5-5B": {
        "sample 300 x 300, patch_size (2, 2, 2), 81 frames":
            "THUDM/CogVideo sat/configs/cogvideox1.5_5b.yaml (latent_width 300, latent_height 300, patch_size [2,"
            " 2, 2], num_frames 81, 48 heads, hidden_size_head 64); the checkpoint's own transformer/config.json "
            "not read (hub unreachable)",
        "slice grid, patch_size_t padding":
            "diffusers 0.42.1 pipelines/cogvideo/pipeline_cogvideox.py:441-455, :682-686",
        "1360 x 768":
            "THUDM/CogVideo inference/cli_demo.py (RESOLUTION_MAP['cogvideox1.5-5b'] = (768, 1360), height first)",
    },
    "Qwen-Image": {
        "24 heads x 128, axes (16, 56, 56), patch_size 2":
            "diffusers 0.42.1 models/transformers/transformer_qwenimage.py:816-827 (class defaults); the "
            "checkpoint's own transformer/config.json not read (hub unreachable); third-party copies of that file"
            " in public code agree",
        "θ = 10,000, scale_rope=True":
            "diffusers 0.42.1 models/transformers/transformer_qwenimage.py:837 (QwenEmbedRope(theta=10000, ..., "
            "scale_rope=True), fixed in code)",
        "1328 x 1328":
            "the Qwen-Image model card's aspect-ratio table ('1:1': (1328, 1328)), read in copies; diffusers "
            "0.42.1 pipelines/qwenimage/pipeline_qwenimage.py:177 would default to 1024",
    },
}
