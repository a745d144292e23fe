"""posenc_core: positional encodings computed as the code real models runs them.

Pure functions, numpy by default, torch on request (``backend="torch"``, ``device="cuda"``); nothing here knows
Streamlit, plotly or the words on a screen. The top level holds the calls most work starts from; everything else
lives in its section, a namespace of its own.

>>> import posenc_core as pc
>>> pc.base_inv_freq(10000.0, 8)
array([1.   , 0.1  , 0.01 , 0.001])

Start here, ten calls:

- ``base_inv_freq(base, dim)``: RoPE's frequencies, theta_i = base^(-2i/d).
- ``rope_inv_freq`` and the ``ROPE_SCALING`` registry: every rope type transformers has.
- ``apply_rope(x, positions, inv_freq, layout=...)``: a query or key rotated, half-split or interleaved.
- ``rope_angle_table(positions, dim, base)``: the angle, cos and sin a model caches.
- ``sinusoidal(n, d)``: the sine-cosine table, DistilBERT's bit for bit.
- ``alibi_slopes(heads)`` and ``alibi_bias``: ALiBi as its authors' code computes it.
- ``t5_relative_position_bucket(relative)`` and ``t5_bias_grid``: T5's buckets.
- ``read_rope_config(config)`` and ``rope_from_config(config, seq_len)``: a config.json read as transformers
  reads it, or refused.
- ``preset_config(key)`` and ``PRESETS``: released models' configs.
- ``sincos_2d(h, w, dim)`` and ``mm_position_ids``: 2D sin-cos for patches, multimodal position ids.

Sections: ``why_position``, ``absolute``, ``rope``, ``attention_bias``, ``long_context``, ``todays_models``,
``encoders``, ``images``, ``multimodal``, ``diffusion`` (needs the ``torch`` extra), ``inference``, ``lab``,
``real_models``, plus ``configs`` (reading config.json) and ``measures`` (what several sections measure).
A function that needs a package the installed extras lack raises ``MissingExtraError`` naming the extra.
"""

from importlib import import_module as _import_module

__version__ = "0.1.0"

from . import (
    absolute,
    attention_bias,
    configs,
    encoders,
    images,
    inference,
    lab,
    long_context,
    measures,
    multimodal,
    real_models,
    rope,
    todays_models,
    why_position,
)
from ._backend import (
    MissingExtraError,
    available_backends,
    cuda_available,
    default_device,
    to_numpy,
    torch_installed,
)
from ._checks import MAX_DIM, MAX_ELEMENTS, MAX_HEADS, MAX_POSITIONS
from .absolute import sinusoidal
from .attention_bias import alibi_bias, alibi_slopes, t5_bias_grid, t5_relative_position_bucket
from .configs import (
    PRESETS,
    Preset,
    RopeConfig,
    parse_config_json,
    preset_config,
    read_layers,
    read_rope_config,
    rope_from_config,
)
from .images import resample_pos_embed, rope_2d_axial, sincos_2d
from .multimodal import mm_position_ids
from .rope import (
    ROPE_SCALING,
    apply_rope,
    base_inv_freq,
    rope_angle_table,
    rope_inv_freq,
    rope_score_matrix,
    rotary_dim,
    yarn_mscale,
)

__all__ = [
    "__version__", "MissingExtraError", "available_backends", "cuda_available", "default_device", "to_numpy",
    "torch_installed", "MAX_DIM", "MAX_ELEMENTS", "MAX_HEADS", "MAX_POSITIONS",
    # the sections, each a namespace
    "why_position", "absolute", "rope", "attention_bias", "long_context", "todays_models", "encoders", "images",
    "multimodal", "diffusion", "inference", "lab", "real_models", "configs", "measures",
    # where most work starts
    "base_inv_freq", "rope_inv_freq", "ROPE_SCALING", "rotary_dim", "yarn_mscale", "apply_rope", "rope_angle_table",
    "rope_score_matrix", "sinusoidal", "alibi_slopes", "alibi_bias", "t5_relative_position_bucket", "t5_bias_grid",
    "read_rope_config", "rope_from_config", "RopeConfig", "parse_config_json", "preset_config", "PRESETS", "Preset",
    "read_layers", "sincos_2d", "rope_2d_axial", "resample_pos_embed", "mm_position_ids",
]


def __getattr__(name: str) -> object:
    """``pc.diffusion``, imported on first use: it computes in torch as diffusers does, and the rest of the core
    imports without torch. Without torch the attribute is absent (``hasattr`` says False) and
    ``import posenc_core.diffusion`` raises ``MissingExtraError`` naming the ``torch`` extra."""
    if name == "diffusion" and torch_installed():
        return _import_module(".diffusion", __name__)
    raise AttributeError(f"module 'posenc_core' has no attribute {name!r}"
                         + ("; the diffusion section needs torch: pip install \"posenc-core[torch]\""
                            if name == "diffusion" else ""))


def __dir__() -> list[str]:
    return sorted({*globals(), *(["diffusion"] if torch_installed() else [])})


# The multimodal and ModernBERT presets join the one preset registry, so the config pages and the layer strip list
# them too.
configs.add_presets(multimodal.MULTIMODAL_PRESETS)
configs.add_presets(encoders.MODERNBERT_PRESETS)
