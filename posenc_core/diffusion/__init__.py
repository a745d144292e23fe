"""Diffusion transformers (image and video generators): where each patch is, as diffusers computes it.

One module per family: FLUX.1 / FLUX.2 rotary ids (``flux``), SD3's cropped 2D sin-cos table (``sd3``),
the 3D rotary of Wan, HunyuanVideo and CogVideoX (``video``), Qwen-Image's centred ids (``qwen``), the
one-axis rotary table they share with its resolution knobs (``rotary``), and released checkpoints
(``presets``).
"""

from .._backend import MissingExtraError, torch_installed

if not torch_installed():
    raise MissingExtraError('posenc_core.diffusion computes in torch as diffusers does; install it with '
                            '`pip install "posenc-core[torch]"` (or `pip install torch`).', name="torch")


from .flux import (
    FLUX_PIXELS_PER_TOKEN,
    flux2_image_ids,
    flux2_reference_ids,
    flux2_text_ids,
    flux_image_ids,
    flux_rope,
    flux_sequence_ids,
    flux_text_ids,
    flux_token_grid,
)
from .presets import DIT_PRESETS, DitPreset, dit_preset
from .qwen import qwen_axis_ids, qwen_rope, qwen_text_start, qwen_token_ids
from .rotary import dit_inv_freq, dit_pair_wavelengths, dit_rotary_1d, dit_turns_across
from .sd3 import (
    SD3_PIXELS_PER_PATCH,
    sd3_crop_window,
    sd3_cropped_table,
    sd3_grid_coordinates,
    sd3_patch_grid,
    sd3_sincos_1d,
    sd3_table,
    sd3_unseen_patches,
    sd3_window_only,
)
from .video import (
    VIDEO_SPLITS,
    cogvideox_axis_ids,
    cogvideox_crop_region,
    cogvideox_rope,
    hunyuan_rope,
    video_axis_split,
    video_latent_frames,
    video_token_ids,
    wan_rope,
)
from .views import (
    DIT_ID_AXES,
    RESOLUTION_METHODS,
    DitAxisExtents,
    PairTurns,
    ResolutionTurns,
    ResolutionView,
    Sd3WindowFacts,
    dit_axis_extents,
    dit_axis_series,
    dit_frame_time_id,
    dit_image_id_grids,
    dit_resolution_turns,
    dit_resolution_view,
    dit_sequence_ids,
    dit_value_range,
    sd3_similarity_grid,
    sd3_window_facts,
)

__all__ = [
    "FLUX_PIXELS_PER_TOKEN", "flux_token_grid", "flux_image_ids", "flux_text_ids", "flux_sequence_ids",
    "flux2_text_ids", "flux2_image_ids", "flux2_reference_ids", "flux_rope", "DitPreset", "DIT_PRESETS",
    "dit_preset", "qwen_axis_ids", "qwen_token_ids", "qwen_text_start", "qwen_rope", "dit_rotary_1d",
    "dit_inv_freq", "dit_pair_wavelengths", "dit_turns_across", "sd3_sincos_1d", "sd3_table", "sd3_crop_window",
    "sd3_cropped_table", "sd3_patch_grid", "sd3_grid_coordinates", "sd3_window_only", "sd3_unseen_patches",
    "SD3_PIXELS_PER_PATCH", "VIDEO_SPLITS", "video_axis_split", "video_latent_frames", "wan_rope", "hunyuan_rope",
    "cogvideox_crop_region", "cogvideox_axis_ids", "cogvideox_rope", "video_token_ids", "DIT_ID_AXES",
    "dit_image_id_grids", "dit_axis_series", "dit_axis_extents", "sd3_similarity_grid", "dit_resolution_turns",
    "dit_resolution_view", "RESOLUTION_METHODS", "dit_sequence_ids", "dit_frame_time_id", "dit_value_range",
    "sd3_window_facts", "PairTurns", "ResolutionTurns", "ResolutionView", "Sd3WindowFacts", "DitAxisExtents"
]
