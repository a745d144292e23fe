"""RoPE frequencies and their context-extension variants, following Hugging Face ``transformers``.

One function per ``rope_type``, all with the same signature, collected in ``ROPE_SCALING``
(the design of ``transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS``). Each returns the
inverse frequencies (float64 here; the public API casts to float32 as the models do) and the
attention factor that multiplies cos/sin. Where ``transformers`` has a quirk (``beta_fast`` of 0
meaning 32, ``truncate=None`` meaning "do not truncate", Phi-3's top-level
``original_max_position_embeddings`` winning over the one in ``rope_scaling``) we reproduce it,
because the point of this module is to show what the model actually computes.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ._backend import to_backend
from ._checks import MAX_DIM, MAX_POSITIONS, as_base, as_choice, as_float, as_int

__all__ = [
    "ROPE_SCALING",
    "RopeConfig",
    "ScalingContext",
    "base_inv_freq",
    "rope_inv_freq",
    "rotary_dim",
    "scaling_type",
    "yarn_correction_dim",
    "yarn_mscale",
    "yarn_ramp",
    "yarn_ramp_bounds",
]



@dataclass(frozen=True)
class ScalingContext:
    """What a scaling type may need besides its own parameters."""

    seq_len: int | None
    max_position_embeddings: int | None


def base_inv_freq(base: float, dim: int) -> np.ndarray:
    """theta_i = base^(-2i/dim) for i < dim/2, shape (dim/2,), float64."""
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def _param_float(params: Mapping, key: str, rope_type: str, *, required: bool = False, default=None,
                 above: float | None = None):
    if key not in params:
        if required:
            raise ValueError(f"rope_type '{rope_type}' needs the key '{key}' in rope_scaling, and it is missing.")
        return default
    value = params[key]
    if value is None:
        return default
    return as_float(f"rope_scaling['{key}']", value, above=above)


def _original_context(params: Mapping, rope_type: str, ctx: ScalingContext) -> int:
    value = params.get("original_max_position_embeddings")
    if value is None:
        # transformers fills this in from max_position_embeddings when the config lacks it.
        value = ctx.max_position_embeddings
    if value is None:
        raise ValueError(
            f"rope_type '{rope_type}' needs original_max_position_embeddings (the context length the model "
            "was pretrained with); give it in rope_scaling or pass max_position_embeddings."
        )
    return as_int("original_max_position_embeddings", value, minimum=1, maximum=MAX_POSITIONS * 64)


def _factor_or_ratio(params: Mapping, rope_type: str, ctx: ScalingContext, original: int) -> float:
    """YaRN and LongRoPE: an absent/None factor means max_position_embeddings / original."""
    if "factor" not in params and rope_type == "yarn":
        raise ValueError("rope_type 'yarn' needs the key 'factor' in rope_scaling, and it is missing.")
    factor = _param_float(params, "factor", rope_type, above=0.0)
    if factor is None:
        if ctx.max_position_embeddings is None:
            raise ValueError(
                f"rope_type '{rope_type}' has no factor, so it needs max_position_embeddings to derive one "
                "as max_position_embeddings / original_max_position_embeddings."
            )
        factor = ctx.max_position_embeddings / original
    return factor


def _ntk_exponent(dim: int, rope_type: str) -> float:
    if dim <= 2:
        raise ValueError(f"rope_type '{rope_type}' rescales the base by factor^(d/(d-2)), so the rotary "
                         f"dimension must be at least 4 (got {dim}).")
    return dim / (dim - 2)


def _default(base, dim, params, ctx):
    return base_inv_freq(base, dim), 1.0


def _linear(base, dim, params, ctx):
    # Position interpolation: dividing the frequencies by s is the same as dividing positions by s.
    factor = _param_float(params, "factor", "linear", required=True, above=0.0)
    return base_inv_freq(base, dim) / factor, 1.0


def _ntk(base, dim, params, ctx):
    # Static NTK-aware scaling (bloc97): stretch the base so the slowest pair is interpolated by s
    # while the fastest pairs barely move. Not a transformers type; shown for comparison.
    factor = _param_float(params, "factor", "ntk", required=True, above=0.0)
    return base_inv_freq(base * factor ** _ntk_exponent(dim, "ntk"), dim), 1.0


def _dynamic(base, dim, params, ctx):
    factor = _param_float(params, "factor", "dynamic", required=True, above=0.0)
    trained = ctx.max_position_embeddings
    if trained is None:
        trained = params.get("original_max_position_embeddings")
    if trained is None:
        raise ValueError("rope_type 'dynamic' needs max_position_embeddings, the length up to which the "
                         "original frequencies are kept.")
    trained = as_int("max_position_embeddings", trained, minimum=1)
    seq_len = trained if ctx.seq_len is None else max(ctx.seq_len, trained)
    new_base = base * ((factor * seq_len / trained) - (factor - 1)) ** _ntk_exponent(dim, "dynamic")
    return base_inv_freq(new_base, dim), 1.0


def yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's attention temperature sqrt(1/t) = 0.1 * mscale * ln(s) + 1 (1 when s <= 1)."""
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_dim(num_rotations: float, dim: int, base: float, original: int) -> float:
    """The (fractional) pair index whose wavelength fits ``num_rotations`` turns into ``original``."""
    return (dim * math.log(original / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_ramp_bounds(params: Mapping, dim: int, base: float, original: int) -> tuple[float, float]:
    """Pair indices (low, high) where YaRN's ramp starts and ends, as transformers computes them."""
    beta_fast = _param_float(params, "beta_fast", "yarn") or 32  # transformers: a 0 or None means 32
    beta_slow = _param_float(params, "beta_slow", "yarn") or 1
    low = yarn_correction_dim(beta_fast, dim, base, original)
    high = yarn_correction_dim(beta_slow, dim, base, original)
    if params.get("truncate", True):  # an explicit None disables truncation in transformers too
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp(low: float, high: float, n_pairs: int) -> np.ndarray:
    """0 where a pair keeps its frequency (extrapolates), 1 where it is divided by s; linear in pair index.

    The paper defines the ramp on the number of rotations r(d) = L / lambda_d; the code (and every
    YaRN model) uses this ramp, linear in the pair index between the two correction dims.
    """
    if low == high:
        high += 0.001  # transformers' guard against a zero-width ramp
    return np.clip((np.arange(n_pairs, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def _yarn(base, dim, params, ctx):
    original = _original_context(params, "yarn", ctx)
    factor = _factor_or_ratio(params, "yarn", ctx, original)
    attention_factor = _param_float(params, "attention_factor", "yarn")
    if attention_factor is None:
        mscale = _param_float(params, "mscale", "yarn")
        mscale_all_dim = _param_float(params, "mscale_all_dim", "yarn")
        if mscale and mscale_all_dim:  # DeepSeek's form; with only one of them transformers ignores both
            attention_factor = yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim)
        else:
            attention_factor = yarn_mscale(factor)
    low, high = yarn_ramp_bounds(params, dim, base, original)
    interpolate = yarn_ramp(low, high, dim // 2)  # (dim/2,)
    inv_freq = base_inv_freq(base, dim)
    return inv_freq / factor * interpolate + inv_freq * (1 - interpolate), attention_factor


def _llama3(base, dim, params, ctx):
    factor = _param_float(params, "factor", "llama3", required=True, above=0.0)
    low_ff = _param_float(params, "low_freq_factor", "llama3", required=True)
    high_ff = _param_float(params, "high_freq_factor", "llama3", required=True)
    original = _original_context(params, "llama3", ctx)
    inv_freq = base_inv_freq(base, dim)
    wavelen = 2 * math.pi / inv_freq
    low_freq_wavelen, high_freq_wavelen = original / low_ff, original / high_ff
    scaled = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    with np.errstate(divide="ignore", invalid="ignore"):
        smooth = (original / wavelen - low_ff) / (high_ff - low_ff)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    is_medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    out = np.where(is_medium, smoothed, scaled)
    if not np.all(np.isfinite(out)):
        raise ValueError("llama3 scaling needs high_freq_factor > low_freq_factor; these values give "
                         "a zero-width smoothing band.")
    return out, 1.0


def _factor_list(params: Mapping, key: str, n_pairs: int) -> np.ndarray:
    if key not in params:
        raise ValueError(f"rope_type 'longrope' needs the key '{key}' in rope_scaling, and it is missing.")
    values = params[key]
    if not isinstance(values, (list, tuple)) or not all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values
    ):
        raise ValueError(f"rope_scaling['{key}'] must be a list of numbers.")
    if len(values) != n_pairs:
        raise ValueError(f"rope_scaling['{key}'] must have one entry per rotary pair ({n_pairs}), "
                         f"but has {len(values)}.")
    array = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"rope_scaling['{key}'] must hold positive, finite numbers.")
    return array


def _longrope(base, dim, params, ctx):
    original = _original_context(params, "longrope", ctx)
    short = _factor_list(params, "short_factor", dim // 2)
    long = _factor_list(params, "long_factor", dim // 2)
    factor = _factor_or_ratio(params, "longrope", ctx, original)
    attention_factor = _param_float(params, "attention_factor", "longrope")
    if attention_factor is None:
        attention_factor = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
    # The long factors switch on only once the sequence is longer than the pretraining context.
    ext = long if ctx.seq_len and ctx.seq_len > original else short
    return base_inv_freq(base, dim) / ext, attention_factor


ScalingFn = Callable[[float, int, Mapping, ScalingContext], tuple[np.ndarray, float]]

ROPE_SCALING: dict[str, ScalingFn] = {
    "default": _default,
    "linear": _linear,
    "ntk": _ntk,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "llama3": _llama3,
    "longrope": _longrope,
}


def scaling_type(scaling: Mapping | None) -> str:
    """The rope type named by a rope_scaling dict (``rope_type``, or the legacy ``type``)."""
    if scaling is None:
        return "default"
    if not isinstance(scaling, Mapping):
        raise ValueError(f"rope_scaling must be a dictionary (JSON object), but got {type(scaling).__name__}.")
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    return as_choice("rope_type", rope_type, tuple(ROPE_SCALING))


def rotary_dim(head_dim, partial_rotary_factor=1.0) -> int:
    """int(head_dim * partial_rotary_factor), the number of rotated dimensions, checked to be even."""
    head_dim = as_int("head_dim", head_dim, minimum=2, maximum=MAX_DIM)
    factor = as_float("partial_rotary_factor", partial_rotary_factor, above=0.0, maximum=1.0)
    dim = int(head_dim * factor)
    if dim < 2 or dim % 2:
        raise ValueError(
            f"RoPE rotates dimensions in pairs, so head_dim x partial_rotary_factor must be an even number "
            f"of at least 2; {head_dim} x {factor:g} gives {dim}."
        )
    return dim


def rope_inv_freq(head_dim, base=10000.0, scaling=None, *, partial_rotary_factor=1.0, seq_len=None,
                  max_position_embeddings=None, backend="numpy", device=None):
    """Inverse frequencies of RoPE, with an optional context-extension method.

    Args:
        head_dim: size of one attention head.
        base: rope_theta.
        scaling: a Hugging Face ``rope_scaling`` / ``rope_parameters`` dict, or None.
        partial_rotary_factor: fraction of head_dim that is rotated (GPT-NeoX uses 0.25).
        seq_len: current sequence length (dynamic NTK and LongRoPE depend on it).
        max_position_embeddings: the config's value (dynamic's threshold, YaRN/LongRoPE defaults).

    Returns:
        ``(inv_freq, attention_factor)``: ``inv_freq`` has shape (rotary_dim / 2,), float32.
    """
    rope_type = scaling_type(scaling)
    dim = rotary_dim(head_dim, partial_rotary_factor)
    base = as_base(base)
    if seq_len is not None:
        seq_len = as_int("seq_len", seq_len, minimum=1, maximum=MAX_POSITIONS * 64)
    if max_position_embeddings is not None:
        max_position_embeddings = as_int("max_position_embeddings", max_position_embeddings, minimum=1,
                                         maximum=MAX_POSITIONS * 64)
    ctx = ScalingContext(seq_len=seq_len, max_position_embeddings=max_position_embeddings)
    inv_freq, attention_factor = ROPE_SCALING[rope_type](base, dim, scaling or {}, ctx)
    return to_backend(inv_freq.astype(np.float32), backend, device), float(attention_factor)


@dataclass(frozen=True)
class RopeConfig:
    """What ``rope_from_config`` read from a model's config.json."""

    head_dim: int
    base: float
    rope_type: str
    scaling: dict = field(default_factory=dict)
    partial_rotary_factor: float = 1.0
    max_position_embeddings: int | None = None
    layer_type: str | None = None

    @property
    def rotary_dim(self) -> int:
        return rotary_dim(self.head_dim, self.partial_rotary_factor)
