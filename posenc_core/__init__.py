"""posenc_core: the numeric core of PosEnc Explorer.

Pure functions, numpy by default, torch on request (``backend="torch"``, ``device="cuda"``).
It knows nothing of Streamlit or plotly.
"""

from ._backend import available_backends, cuda_available, default_device, to_numpy, torch_installed
from ._checks import MAX_DIM, MAX_ELEMENTS, MAX_HEADS, MAX_POSITIONS
from .absolute import (
    LAYOUTS,
    sinusoidal,
    sinusoidal_at,
    sinusoidal_entry,
    sinusoidal_frequencies,
    sinusoidal_shift_error,
    sinusoidal_shift_matrix,
)
from .analysis import similarity_matrix, toeplitz_deviation
from .biases import alibi_bias, alibi_paper_slopes, alibi_slopes, t5_bucket_grid, t5_relative_position_bucket
from .rope import ROPE_LAYOUTS, apply_rope, half_to_interleaved_permutation, rope_angles, rope_decay_bound
from .scaling import (
    ROPE_SCALING,
    RopeConfig,
    read_rope_config,
    rope_from_config,
    rope_inv_freq,
    rotary_dim,
    yarn_mscale,
    yarn_ramp,
    yarn_ramp_bounds,
)
from .vision import sincos_2d

__all__ = [
    "LAYOUTS", "MAX_DIM", "MAX_ELEMENTS", "MAX_HEADS", "MAX_POSITIONS", "ROPE_LAYOUTS", "ROPE_SCALING",
    "RopeConfig", "alibi_bias", "alibi_paper_slopes", "alibi_slopes", "apply_rope", "available_backends",
    "cuda_available", "default_device", "half_to_interleaved_permutation", "read_rope_config",
    "rope_angles", "rope_decay_bound", "rope_from_config", "rope_inv_freq", "rotary_dim", "similarity_matrix",
    "sincos_2d", "sinusoidal", "sinusoidal_at", "sinusoidal_entry", "sinusoidal_frequencies",
    "sinusoidal_shift_error", "sinusoidal_shift_matrix",
    "t5_bucket_grid", "t5_relative_position_bucket", "to_numpy", "toeplitz_deviation", "torch_installed",
    "yarn_mscale", "yarn_ramp", "yarn_ramp_bounds",
]
