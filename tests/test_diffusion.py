"""Diffusion transformers: the app's ids and rotary / sin-cos tables against diffusers' own code, bit for bit.

diffusers (requirements-models.txt) is the reference, as transformers is for language models. Its
position modules are built directly (they hold no weights) and its pipelines' id builders are static
methods, so no checkpoint is needed. Each family is checked at three or more sizes.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from lessons.diffusion import words

diffusers = pytest.importorskip("diffusers")
from diffusers.models.embeddings import PatchEmbed, get_1d_rotary_pos_embed, get_3d_rotary_pos_embed  # noqa: E402
from diffusers.models.transformers.transformer_flux import FluxPosEmbed  # noqa: E402
from diffusers.models.transformers.transformer_flux2 import Flux2PosEmbed  # noqa: E402
from diffusers.models.transformers.transformer_hunyuan_video import HunyuanVideoRotaryPosEmbed  # noqa: E402
from diffusers.models.transformers.transformer_qwenimage import QwenEmbedRope  # noqa: E402
from diffusers.models.transformers.transformer_wan import WanRotaryPosEmbed  # noqa: E402
from diffusers.pipelines.cogvideo.pipeline_cogvideox import get_resize_crop_region_for_grid  # noqa: E402
from diffusers.pipelines.flux.pipeline_flux import FluxPipeline  # noqa: E402
from diffusers.pipelines.flux2.pipeline_flux2 import Flux2Pipeline  # noqa: E402


def same_bits(a, b):
    a, b = torch.as_tensor(a), torch.as_tensor(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert torch.equal(a, b)


# ---- the shared one-axis table -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ntk,linear", [(1.0, 1.0), (4.0, 1.0), (1.0, 2.0), (2.5, 1.5)])
def test_rotary_1d_matches_get_1d_rotary_pos_embed(dtype, ntk, linear):
    pos = torch.arange(0, 97, dtype=torch.float32) * 0.75  # non-integer ids too, as interpolated grids make
    ours = pc.diffusion.dit_rotary_1d(56, pos, 10000.0, ntk_factor=ntk, linear_factor=linear, freqs_dtype=dtype)
    ref = get_1d_rotary_pos_embed(56, pos, 10000.0, use_real=True, ntk_factor=ntk, linear_factor=linear,
                                  freqs_dtype=getattr(torch, dtype))
    same_bits(ours[0], ref[0])
    same_bits(ours[1], ref[1])


def test_pair_wavelengths_known_values():
    w = pc.diffusion.dit_pair_wavelengths(4, 10000.0)
    assert w[0] == pytest.approx(2 * math.pi) and w[1] == pytest.approx(200 * math.pi)
    # ntk_factor raises the base: the first pair is untouched, the last slows by ntk^((dim-2)/dim)
    w_ntk = pc.diffusion.dit_pair_wavelengths(4, 10000.0, ntk_factor=16.0)
    assert w_ntk[0] == pytest.approx(w[0]) and w_ntk[1] == pytest.approx(w[1] * 4.0)
    # linear_factor slows every pair alike
    assert pc.diffusion.dit_pair_wavelengths(4, 10000.0, linear_factor=3.0) == pytest.approx(w * 3.0)


# ---- FLUX.1 / FLUX.2 -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("height,width", [(512, 512), (1024, 768), (1360, 768), (2048, 1024)])
def test_flux1_ids_and_rope(height, width):
    rows, cols = pc.diffusion.flux_token_grid(height, width)
    ref_ids = FluxPipeline._prepare_latent_image_ids(1, 2 * (height // 16) // 2, 2 * (width // 16) // 2,
                                                     "cpu", torch.float32)
    ids = pc.diffusion.flux_image_ids(rows, cols)
    same_bits(ids, ref_ids)
    seq = pc.diffusion.flux_sequence_ids(7, rows, cols)
    assert torch.all(seq[:7] == 0) and seq.shape == (7 + rows * cols, 3)
    ours = pc.diffusion.flux_rope(seq, (16, 56, 56), 10000)
    ref = FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])(seq)
    same_bits(ours[0], ref[0])
    same_bits(ours[1], ref[1])


@pytest.mark.parametrize("rows,cols,n_text", [(4, 4, 3), (16, 12, 9), (32, 48, 5)])
def test_flux2_ids_and_rope(rows, cols, n_text):
    same_bits(pc.diffusion.flux2_text_ids(n_text), Flux2Pipeline._prepare_text_ids(torch.zeros(1, n_text, 8))[0])
    same_bits(pc.diffusion.flux2_image_ids(rows, cols), Flux2Pipeline._prepare_latent_ids(torch.zeros(1, 2, rows,
                                                                                                      cols))[0])
    refs = [torch.zeros(1, 2, rows, cols), torch.zeros(1, 2, 3, 5)]
    same_bits(pc.diffusion.flux2_reference_ids([(rows, cols), (3, 5)]), Flux2Pipeline._prepare_image_ids(refs)[0])
    ids = torch.cat([pc.diffusion.flux2_text_ids(n_text), pc.diffusion.flux2_image_ids(rows, cols)])
    ours = pc.diffusion.flux_rope(ids, (32, 32, 32, 32), 2000)
    ref = Flux2PosEmbed(theta=2000, axes_dim=[32, 32, 32, 32])(ids)
    same_bits(ours[0], ref[0])
    same_bits(ours[1], ref[1])


# ---- SD3 -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("max_size,rows,cols", [(24, 24, 24), (24, 16, 16), (24, 10, 22), (30, 7, 13)])
def test_sd3_cropped_table_matches_patch_embed(max_size, rows, cols):
    embed, base = 64, 16  # small sizes with SD3's structure: sample_size 32, patch 2 -> base_size 16
    module = PatchEmbed(height=32, width=32, patch_size=2, in_channels=4, embed_dim=embed,
                        pos_embed_max_size=max_size)
    table = pc.diffusion.sd3_table(embed, max_size, base)
    same_bits(table, module.pos_embed[0])
    same_bits(pc.diffusion.sd3_cropped_table(table, max_size, rows, cols), module.cropped_pos_embed(rows * 2,
                                                                                                    cols * 2)[0])


def test_sd3_refuses_past_the_grid_like_diffusers():
    module = PatchEmbed(height=32, width=32, patch_size=2, in_channels=4, embed_dim=16, pos_embed_max_size=12)
    with pytest.raises(ValueError):
        module.cropped_pos_embed(26, 8)
    with pytest.raises(ValueError, match="larger than the position grid"):
        pc.diffusion.sd3_crop_window(12, 13, 4)


def test_sd3_grid_step_is_base_over_max():
    coords = pc.diffusion.sd3_grid_coordinates(192, 64)
    assert float(coords[3]) == pytest.approx(1.0)  # three patches per unit in SD3.5 Large


# ---- video: Wan, HunyuanVideo, CogVideoX ---------------------------------------------------------------------

@pytest.mark.parametrize("frames,rows,cols", [(1, 6, 8), (5, 6, 8), (21, 15, 26), (13, 30, 52)])
def test_wan_rope(frames, rows, cols):
    module = WanRotaryPosEmbed(128, (1, 2, 2), 1024)
    ref = module(torch.zeros(1, 1, frames, rows * 2, cols * 2))
    ours = pc.diffusion.wan_rope(128, frames, rows, cols)
    same_bits(ours[0], ref[0][0, :, 0])
    same_bits(ours[1], ref[1][0, :, 0])
    assert pc.diffusion.video_axis_split("wan", 128) == (module.t_dim, module.h_dim, module.w_dim) == (44, 42, 42)


@pytest.mark.parametrize("frames,rows,cols", [(1, 4, 6), (9, 6, 10), (33, 12, 20)])
def test_hunyuan_rope(frames, rows, cols):
    module = HunyuanVideoRotaryPosEmbed(2, 1, [16, 56, 56], 256.0)
    ref = module(torch.zeros(1, 1, frames, rows * 2, cols * 2))
    ours = pc.diffusion.hunyuan_rope(frames, rows, cols)
    same_bits(ours[0], ref[0])
    same_bits(ours[1], ref[1])


@pytest.mark.parametrize("frames,rows,cols", [(13, 30, 45), (7, 30, 45), (13, 24, 40), (4, 40, 30)])
def test_cogvideox_10_linspace(frames, rows, cols):
    crops = get_resize_crop_region_for_grid((rows, cols), 45, 30)
    assert pc.diffusion.cogvideox_crop_region(rows, cols, 30, 45) == crops
    ref = get_3d_rotary_pos_embed(64, crops, (rows, cols), frames)
    ours = pc.diffusion.cogvideox_rope(64, frames, rows, cols, 30, 45)
    same_bits(ours[0], ref[0])
    same_bits(ours[1], ref[1])


@pytest.mark.parametrize("frames,rows,cols", [(11, 48, 85), (6, 30, 45), (3, 150, 150)])
def test_cogvideox_15_slice(frames, rows, cols):
    ref = get_3d_rotary_pos_embed(64, None, (rows, cols), frames, grid_type="slice", max_size=(150, 150))
    ours = pc.diffusion.cogvideox_rope(64, frames, rows, cols, 150, 150, patch_size_t=2)
    same_bits(ours[0], ref[0])
    same_bits(ours[1], ref[1])


# ---- Qwen-Image --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rows,cols,n_text", [(7, 10, 3), (64, 48, 12), (83, 83, 4)])
@pytest.mark.parametrize("scale_rope", [True, False])
def test_qwen_rope(rows, cols, n_text, scale_rope):
    module = QwenEmbedRope(theta=10000, axes_dim=[16, 56, 56], scale_rope=scale_rope)
    ref_img, ref_txt = module([(1, rows, cols)], device=None, max_txt_seq_len=n_text)
    img, txt = pc.diffusion.qwen_rope(rows, cols, n_text, scale_rope=scale_rope)
    same_bits(img, ref_img)
    same_bits(txt, ref_txt)


def test_qwen_centred_ids_known_values():
    assert pc.diffusion.qwen_axis_ids(5).tolist() == [-3, -2, -1, 0, 1]
    assert pc.diffusion.qwen_axis_ids(4).tolist() == [-2, -1, 0, 1]
    assert pc.diffusion.qwen_axis_ids(4, scale_rope=False).tolist() == [0, 1, 2, 3]
    assert pc.diffusion.qwen_text_start(64, 48) == 32


# ---- properties ------------------------------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 40), cols=st.integers(1, 40))
def test_flux_ids_enumerate_the_grid(rows, cols):
    ids = pc.diffusion.flux_image_ids(rows, cols).long()
    assert ids[:, 0].eq(0).all()
    assert ids[:, 1].tolist() == np.repeat(np.arange(rows), cols).tolist()
    assert ids[:, 2].tolist() == np.tile(np.arange(cols), rows).tolist()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 300))
def test_qwen_centre_is_zero_and_ids_step_by_one(n):
    ids = pc.diffusion.qwen_axis_ids(n).numpy()
    assert (np.diff(ids) == 1).all()
    assert ids[0] == -(n - n // 2) and ids[-1] == n // 2 - 1  # the extra row of an odd size goes on top


@settings(max_examples=20, deadline=None)
@given(head=st.sampled_from([64, 96, 128, 192, 256]))
def test_video_splits_fill_the_head(head):
    for family in pc.diffusion.VIDEO_SPLITS:
        t, h, w = pc.diffusion.video_axis_split(family, head)
        assert t + h + w == head and h == w and t % 2 == 0 and h % 2 == 0


def test_presets_are_consistent():
    for p in pc.diffusion.DIT_PRESETS.values():
        assert sum(p.axes) == p.head_dim or p.family == "sd3"
        cites = words.CITES[p.name]  # the lesson cites where every value comes from
        assert cites and all(isinstance(v, str) and v for v in cites.values())
        if p.family in pc.diffusion.VIDEO_SPLITS:
            assert pc.diffusion.video_axis_split(p.family, p.head_dim) == p.axes
        if p.family == "sd3":
            assert sum(p.axes) == p.head_dim * p.heads


def test_frame_time_ids_follow_the_pipelines():
    wan, cog15 = pc.diffusion.dit_preset("Wan2.1-T2V-14B"), pc.diffusion.dit_preset("CogVideoX1.5-5B")
    # 81 frames -> 21 latents (frame 0 alone, then 4 per latent): frame 80 is in the last latent, id 20
    assert pc.diffusion.dit_frame_time_id(wan, 81, 80) == 20 and pc.diffusion.dit_frame_time_id(wan, 49, 4) == 1
    # CogVideoX 1.5: 45 frames -> 12 latents (even, no padding); 49 -> 13, padded to 14 with one in front
    assert pc.diffusion.dit_frame_time_id(cog15, 45, 44) == 5 and pc.diffusion.dit_frame_time_id(cog15, 49, 44) == 6
    extents = pc.diffusion.dit_axis_extents(cog15, 1360, 768, 81)
    assert extents == pc.diffusion.DitAxisExtents(time=11, height=48, width=85)


@pytest.mark.parametrize("call,field", [
    (lambda: pc.diffusion.sd3_crop_window(192, 200, 64), "pos_embed_max_size"),
    (lambda: pc.diffusion.wan_rope(128, 2, 4, 100, max_seq_len=64), "rope_max_seq_len"),
    (lambda: pc.diffusion.qwen_rope(64, 64, 4070), "4,096"),
    (lambda: pc.diffusion.flux_rope(torch.zeros(5, 2), (16, 56, 56), 10000), "axes_dims_rope"),
    (lambda: pc.diffusion.flux_token_grid(8, 1024), "height"),
    (lambda: pc.diffusion.cogvideox_rope(64, 3, 160, 10, 150, 150, patch_size_t=2), "trained grid"),
    (lambda: pc.diffusion.dit_rotary_1d(7, [0, 1], 10000.0), "dim"),
])
def test_errors_name_the_field(call, field):
    with pytest.raises(ValueError, match=field):
        call()


# ---- the numbers the pages state ------------------------------------------------------------------------------

def test_value_range_skips_the_cells_left_blank():
    assert pc.diffusion.dit_value_range(np.array([[3, -2], [0, 7]])) == (-2, 7)
    assert isinstance(pc.diffusion.dit_value_range(np.arange(4))[0], int)
    assert pc.diffusion.dit_value_range(np.array([np.nan, 0.25, 4.0])) == (0.25, 4.0)
    with pytest.raises(ValueError, match="no values"):
        pc.diffusion.dit_value_range(np.full(3, np.nan))


@pytest.mark.parametrize("method", pc.diffusion.RESOLUTION_METHODS)
def test_resolution_view_reads_the_turns(method):
    view = pc.diffusion.dit_resolution_view("FLUX.1-dev", 1024, 2048, method)
    preset = pc.diffusion.dit_preset("FLUX.1-dev")
    assert (view.trained, view.new, view.ratio, view.dim) == (64, 128, 2.0, preset.axes[2])
    series = pc.diffusion.dit_resolution_turns(preset.axes[2], preset.theta, 64, 128, method)
    for label, turns in series._asdict().items():
        np.testing.assert_array_equal(getattr(view.series, label), turns)
        assert (getattr(view.fastest, label), getattr(view.slowest, label)) == (turns[0], turns[-1])
    assert view.keeps_fastest == (method == "ntk_factor")  # NTK keeps the fastest pair, the others slow it


def test_sd3_window_facts():
    facts = pc.diffusion.sd3_window_facts(192, 64, 64,
                                          64)  # SD3.5 Large at its trained 1,024 px: the training window itself
    assert facts == pc.diffusion.Sd3WindowFacts(patches=4096, unseen=0, unseen_side=0, step=64 / 192, free=128)
    assert pc.diffusion.sd3_window_facts(192, 64, 128, 128).unseen_side == 1
    assert pc.diffusion.sd3_window_facts(192, 64, 16, 16).unseen == 0
    assert pc.diffusion.dit_preset("FLUX.1-dev").pairs == 64


def test_flux2_text_ids_of_an_empty_prompt_are_empty_as_in_diffusers():
    ref = Flux2Pipeline._prepare_text_ids(torch.zeros(1, 0, 8))[0]
    same_bits(pc.diffusion.flux2_text_ids(0), ref)
    assert tuple(pc.diffusion.flux2_text_ids(0).shape) == (0, 4)
