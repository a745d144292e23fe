"""RoPE frequencies and their context-extension variants, following Hugging Face ``transformers``.

One function per ``rope_type``, all with the same signature, collected in ``ROPE_SCALING``
(the design of ``transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS``). Each returns the
inverse frequencies and the attention factor that multiplies cos/sin. The frequencies are formed with
transformers' own arithmetic (torch float32 on the CPU, the same operations in the same order, through
``_inv_freq`` / ``_exponents``), so they are bit-identical to the model's buffer; with ``ctx.ideal`` the same
formula runs in float64, the exact values a lesson compares them with. A new type should form its
frequencies with these helpers too. Where ``transformers`` has a quirk (``beta_fast`` of 0
meaning 32, ``truncate=None`` meaning "do not truncate", Phi-3's top-level
``original_max_position_embeddings`` winning over the one in ``rope_scaling``) we reproduce it,
because the point of this module is to show what the model actually computes.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._backend import require_torch, to_backend, to_numpy
from .._checks import MAX_DIM, MAX_POSITIONS, as_base, as_choice, as_even_dim, as_float, as_int
from .._types import ArrayOrTensor

__all__ = [
    "ROPE_SCALING",
    "ScalingContext",
    "base_freq_divisors",
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
    """What a scaling type may need besides its own parameters.

    ``ideal`` selects the arithmetic: False (the default) is transformers' own, torch float32 on the CPU in
    the same order of operations, so the result is bit-identical to the model's buffer; True evaluates the
    same formula in float64 (the exact value, to float64 rounding) for lessons that compare the two.
    """

    seq_len: int | None
    max_position_embeddings: int | None
    ideal: bool = False


def base_inv_freq(base: float, dim: int) -> np.ndarray:
    """theta_i = base^(-2i/dim) for i < dim/2, shape (dim/2,), float64: the exact frequencies of plain RoPE
    (and of the sinusoidal table's pairs). The one place the formula is written in float64; the float32 values
    a model holds come from ``rope_inv_freq``, in transformers' op order.

    ``base`` must be a finite number above 0 and ``dim`` an even whole number from 2 to ``MAX_DIM``; anything
    else raises a ValueError naming the field (an odd rotary size's extra frequency is ``rope_inv_freq``'s).

    >>> pc.base_inv_freq(10000.0, 8)
    array([1.   , 0.1  , 0.01 , 0.001])
    """
    # (dim/2,); -(2i/d) is (-2i)/d to the bit: division is sign-symmetric
    return _checked_base(base) ** -_pair_exponents(as_even_dim("dim", dim))


def base_freq_divisors(base: float, dim: int) -> np.ndarray:
    """base^(2i/dim) = 1/theta_i for i < dim/2, shape (dim/2,), float64, formed as code that divides by it
    (DistilBERT's sinusoidal table: pos / base^(2i/d)); the same exponents and checks as ``base_inv_freq``."""
    return _checked_base(base) ** _pair_exponents(as_even_dim("dim", dim))  # (dim/2,)


def _checked_base(base: float) -> float:
    """A base of the exponential frequency ladder: finite and above 0 (1 gives every pair the same frequency)."""
    return as_float("base", base, above=0.0)


def _pair_exponents(dim: int) -> np.ndarray:
    """2i/dim for i < dim/2 in float64: the exponent of theta_i = base^(-2i/d), written once."""
    return np.arange(0, dim, 2, dtype=np.float64) / dim  # (dim/2,)


def _torch():
    # RoPE frequencies are formed with torch because that is the arithmetic the models run: numpy's
    # float32 pow differs from torch's in the last bits.
    return require_torch("RoPE frequencies, formed with torch as transformers forms them,")


def _float(ctx: ScalingContext):
    torch = _torch()
    return torch.float64 if ctx.ideal else torch.float32


def _exponents(dim: int, ctx: ScalingContext, stop: int | None = None):
    """2i/dim for 2i < stop (default dim) as transformers forms it: arange(0, stop, 2) in int64, cast, divided."""
    torch = _torch()
    return torch.arange(0, dim if stop is None else stop, 2, dtype=torch.int64).to(_float(ctx)) / dim  # (stop/2,)


def _inv_freq(base, dim: int, ctx: ScalingContext, stop: int | None = None):
    """1 / base ** (2i/dim): transformers' line, float32 pow and division (float64 when ctx.ideal).

    ``stop`` ends the pairs early, as a model that rotates only some of them forms its vector. It is not the
    same as cutting the whole vector: torch's vectorised pow can round a value of a shorter vector one ulp
    apart (proportional RoPE, head_dim 128, three quarters of the pairs, base 1e6)."""
    return 1.0 / (base ** _exponents(dim, ctx, stop))  # (stop/2,)


def _param_float(params: Mapping, key: str, rope_type: str, *, required: bool = False, default=None,
                 above: float | None = None, minimum: float | None = None, maximum: float | None = None):
    if key not in params:
        if required:
            raise ValueError(f"rope_type '{rope_type}' needs the key '{key}' in rope_scaling, and it is missing.")
        return default
    value = params[key]
    if value is None:
        return default
    return as_float(f"rope_scaling['{key}']", value, above=above, minimum=minimum, maximum=maximum)


# The attention factor multiplies cos and sin, so a logit grows by its square; past this the scores of the
# figures overflow a float long before they mean anything (real configs: 1 to about 1.5).
MAX_ATTENTION_FACTOR = 1e6


def _checked_attention_factor(value: float, fields: tuple[str, ...]) -> float:
    """The attention factor where it is formed: positive and bounded, naming the rope_scaling fields it came from."""
    if not (math.isfinite(value) and 0.0 < value <= MAX_ATTENTION_FACTOR):
        given = f"rope_scaling['{fields[0]}']" + "".join(
            f"{' and' if i == len(fields) - 1 else ','} ['{name}']" for i, name in enumerate(fields[1:], 1))
        raise ValueError(f"The attention factor from {given} comes to {value:.4g}; it must be above 0 and at most "
                         f"{MAX_ATTENTION_FACTOR:g} (it scales every attention logit by its square).")
    return value


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
    return _inv_freq(base, dim, ctx), 1.0


def _linear(base, dim, params, ctx):
    # Position interpolation: dividing the frequencies by s is the same as dividing positions by s.
    factor = _param_float(params, "factor", "linear", required=True, above=0.0)
    return _inv_freq(base, dim, ctx) / factor, 1.0


def _ntk(base, dim, params, ctx):
    # Static NTK-aware scaling (bloc97): stretch the base so the slowest pair is interpolated by s
    # while the fastest pairs barely move. Not a transformers type; shown for comparison, formed with the
    # same arithmetic as the others (base stretched in float64, then the float32 pow).
    factor = _param_float(params, "factor", "ntk", required=True, above=0.0)
    return _inv_freq(base * factor ** _ntk_exponent(dim, "ntk"), dim, ctx), 1.0


def _dynamic_trained(params: Mapping, ctx: ScalingContext) -> int:
    trained = ctx.max_position_embeddings
    if trained is None:
        trained = params.get("original_max_position_embeddings")
    if trained is None:
        raise ValueError("rope_type 'dynamic' needs max_position_embeddings, the length up to which the "
                         "original frequencies are kept.")
    return as_int("max_position_embeddings", trained, minimum=1, maximum=MAX_POSITIONS * 64)


def _dynamic(base, dim, params, ctx):
    factor = _param_float(params, "factor", "dynamic", required=True, above=0.0)
    trained = _dynamic_trained(params, ctx)
    exponent = _ntk_exponent(dim, "dynamic")
    if ctx.seq_len is None or ctx.seq_len <= trained or ctx.ideal:
        # At init (and for any length within the trained one) transformers computes the new base with
        # Python floats.
        seq_len = trained if ctx.seq_len is None else max(ctx.seq_len, trained)
        new_base = base * ((factor * seq_len / trained) - (factor - 1)) ** exponent
        return _inv_freq(new_base, dim, ctx), 1.0
    # Past it, the forward pass (dynamic_rope_update) passes seq_len = max(position_ids) + 1 as an int64
    # tensor, so the new base is formed in float32 tensor arithmetic, a 0-d tensor raised to the exponents.
    torch = _torch()
    seq = torch.maximum(torch.tensor(ctx.seq_len), torch.tensor(trained))
    new_base = base * ((factor * seq / trained) - (factor - 1)) ** exponent  # 0-d float32
    return _inv_freq(new_base, dim, ctx), 1.0


def yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's attention temperature sqrt(1/t) = 0.1 * mscale * ln(s) + 1 (1 when s <= 1).

    >>> round(pc.yarn_mscale(4.0), 6)
    1.138629
    """
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_dim(num_rotations: float, dim: int, base: float, original: int) -> float:
    """The (fractional) pair index whose wavelength fits ``num_rotations`` turns into ``original``."""
    return (dim * math.log(original / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_ramp_bounds(params: Mapping, dim: int, base: float, original: int) -> tuple[float, float]:
    """Pair indices (low, high) where YaRN's ramp starts and ends, as transformers computes them."""
    # transformers: a 0 or None means 32 / 1. A negative count of turns (or one whose 2 pi multiple is no
    # longer a float) has no pair index: transformers' own log fails on it with "math domain error".
    beta_fast = _param_float(params, "beta_fast", "yarn", minimum=0.0, maximum=1e12) or 32
    beta_slow = _param_float(params, "beta_slow", "yarn", minimum=0.0, maximum=1e12) or 1
    low = yarn_correction_dim(beta_fast, dim, base, original)
    high = yarn_correction_dim(beta_slow, dim, base, original)
    if not (math.isfinite(low) and math.isfinite(high)):  # a base of 1 (or one whose log is no longer a float)
        raise ValueError(f"YaRN places its ramp by log(rope_theta), which is 0 or not a number for rope_theta = "
                         f"{base:g}: rope_theta must be a number above 1.")
    if params.get("truncate", True):  # an explicit None disables truncation in transformers too
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp(low: float, high: float, n_pairs: int) -> np.ndarray:
    """0 where a pair keeps its frequency (extrapolates), 1 where it is divided by s; linear in pair index.

    The paper defines the ramp on the number of rotations r(d) = L / lambda_d; the code (and every
    YaRN model) uses this ramp, linear in the pair index between the two correction dims. float64 (ideal).
    """
    if low == high:
        high += 0.001  # transformers' guard against a zero-width ramp
    return np.clip((np.arange(n_pairs, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def _ntk_alpha(base, dim, params, ctx):
    # Hunyuan (HunYuanDenseV1/MoEV1 compute_ntk_alpha_rope_parameters): a fixed alpha stretches the base to
    # base * alpha^(d/(d-2)) for every sequence length. Computed as the model does (a Python-float base, then
    # float32 torch), so the frequencies are bit-identical to it.
    alpha = _param_float(params, "alpha", "ntk_alpha", required=True, above=0.0)
    stretched = base * alpha ** _ntk_exponent(dim, "ntk_alpha")
    # numpy's float64 power rounded to float32 is within 1 ulp of the model's, not its bits: refuse without torch
    require_torch("Hunyuan's ntk_alpha frequencies (float32 torch, as the model computes them)")
    return _inv_freq(stretched, dim, ctx), 1.0


def _yarn_ramp_torch(low, high, n_pairs: int, ctx: ScalingContext):
    """transformers' linear_ramp_factor: the same ramp, in float32 (float64 when ctx.ideal)."""
    torch = _torch()
    if low == high:
        high += 0.001
    return torch.clamp((torch.arange(n_pairs, dtype=_float(ctx)) - low) / (high - low), 0, 1)  # (n_pairs,)


def _yarn(base, dim, params, ctx):
    if dim % 2:  # transformers' ramp has dim // 2 entries and its frequencies ceil(dim / 2): its own code fails
        raise ValueError(f"YaRN blends each rotary pair's frequency with a ramp, so the rotary dimension (head_dim x "
                         f"partial_rotary_factor) must be even; it is {dim}.")
    original = _original_context(params, "yarn", ctx)
    factor = _factor_or_ratio(params, "yarn", ctx, original)
    attention_factor = _param_float(params, "attention_factor", "yarn", above=0.0, maximum=MAX_ATTENTION_FACTOR)
    if attention_factor is None:
        mscale = _param_float(params, "mscale", "yarn")
        mscale_all_dim = _param_float(params, "mscale_all_dim", "yarn")
        if mscale and mscale_all_dim:  # DeepSeek's form; with only one of them transformers ignores both
            attention_factor = _checked_attention_factor(
                yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim),
                ("mscale", "mscale_all_dim", "factor"))
        else:
            attention_factor = _checked_attention_factor(yarn_mscale(factor), ("factor",))
    low, high = yarn_ramp_bounds(params, dim, base, original)
    # transformers' order of operations: both frequency sets from one pow, the ramp turned into an
    # "extrapolation factor" 1 - ramp, and the blend written with it.
    pos_freqs = base ** _exponents(dim, ctx)  # (dim/2,)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    keep = 1 - _yarn_ramp_torch(low, high, dim // 2, ctx)  # (dim/2,)
    return interpolation * (1 - keep) + extrapolation * keep, attention_factor


def _llama3(base, dim, params, ctx):
    torch = _torch()
    factor = _param_float(params, "factor", "llama3", required=True, above=0.0)
    low_ff = _param_float(params, "low_freq_factor", "llama3", required=True)
    high_ff = _param_float(params, "high_freq_factor", "llama3", required=True)
    original = _original_context(params, "llama3", ctx)
    inv_freq = _inv_freq(base, dim, ctx)  # (dim/2,)
    wavelen = 2 * math.pi / inv_freq
    low_freq_wavelen, high_freq_wavelen = original / low_ff, original / high_ff
    scaled = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (original / wavelen - low_ff) / (high_ff - low_ff)  # a tensor over 0.0 gives inf, no exception
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    out = torch.where(is_medium, smoothed, scaled)
    if not bool(torch.isfinite(out).all()):
        raise ValueError("llama3 scaling needs high_freq_factor > low_freq_factor; these values give "
                         "a zero-width smoothing band.")
    return out, 1.0


def _factor_list(params: Mapping, key: str, n_pairs: int) -> list[float]:
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
    if not all(math.isfinite(v) and v > 0 for v in values):
        raise ValueError(f"rope_scaling['{key}'] must hold positive, finite numbers.")
    return [float(v) for v in values]


def _longrope(base, dim, params, ctx):
    torch = _torch()
    original = _original_context(params, "longrope", ctx)
    short = _factor_list(params, "short_factor", dim // 2)
    long = _factor_list(params, "long_factor", dim // 2)
    factor = _factor_or_ratio(params, "longrope", ctx, original)
    attention_factor = _param_float(params, "attention_factor", "longrope", above=0.0,
                                    maximum=MAX_ATTENTION_FACTOR)
    if attention_factor is None:
        attention_factor = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
    # The long factors switch on only once the sequence is longer than the pretraining context (a
    # seq_len of 0 or None means "at init": the short ones, as in transformers).
    ext = torch.tensor(long if ctx.seq_len and ctx.seq_len > original else short, dtype=_float(ctx))
    return 1.0 / (ext * base ** _exponents(dim, ctx)), attention_factor


def _proportional(base, dim, params, ctx):
    # Gemma 4's global layers (transformers' _compute_proportional_rope_parameters, the idea of p-RoPE): the
    # fastest partial_rotary_factor of the head's pairs turn with exponents over the WHOLE head (dim = head_dim),
    # the slower rest get frequency 0 and never turn, so inv_freq keeps head_dim/2 entries. Computed in torch
    # float32 in transformers' op order so that the values are bit-identical with the model's buffer.
    torch = require_torch()
    factor = _param_float(params, "factor", "proportional", default=1.0, above=0.0)
    proportion = _param_float(params, "partial_rotary_factor", "proportional", default=1.0, above=0.0)
    rope_angles = int(proportion * dim // 2)
    inv_freq = _inv_freq(base, dim, ctx, stop=2 * rope_angles)  # the whole head's exponents, the first pairs
    if dim // 2 > rope_angles:
        inv_freq = torch.cat((inv_freq, torch.zeros(dim // 2 - rope_angles, dtype=inv_freq.dtype)))
    inv_freq /= factor
    return inv_freq.numpy().astype(np.float64), 1.0


ScalingFn = Callable[[float, int, Mapping, ScalingContext], tuple[object, float]]

# name -> fn(base, dim, params, ctx) -> (inv_freq (dim/2,), attention_factor). inv_freq may be a torch
# tensor (formed as transformers does) or a numpy array; rope_inv_freq returns it as float32 numpy.
ROPE_SCALING: dict[str, ScalingFn] = {
    "default": _default,
    "linear": _linear,
    "ntk": _ntk,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "llama3": _llama3,
    "longrope": _longrope,
    "proportional": _proportional,
    "ntk_alpha": _ntk_alpha,
}


def scaling_type(scaling: Mapping | None) -> str:
    """The rope type named by a rope_scaling dict (``rope_type``, or the legacy ``type``)."""
    if scaling is None:
        return "default"
    if not isinstance(scaling, Mapping):
        raise ValueError(f"rope_scaling must be a dictionary (JSON object), but got {type(scaling).__name__}.")
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    return as_choice("rope_type", rope_type, tuple(ROPE_SCALING))


def rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0, *, allow_odd: bool = False) -> int:
    """int(head_dim * partial_rotary_factor), the number of rotated dimensions, checked to be even.

    ``allow_odd``: accept an odd count as transformers' rotary modules do (GLM-4.5's 42 x 0.5 = 21 dims:
    ``arange(0, 21, 2)`` gives 11 frequencies, and the model's code rotates what its slicing keeps).

    >>> pc.rotary_dim(128, 0.25)
    32
    """
    head_dim = as_int("head_dim", head_dim, minimum=2, maximum=MAX_DIM)
    factor = as_float("partial_rotary_factor", partial_rotary_factor, above=0.0, maximum=1.0)
    dim = int(head_dim * factor)
    if dim < 2 or (dim % 2 and not allow_odd):
        raise ValueError(
            f"RoPE rotates dimensions in pairs, so head_dim x partial_rotary_factor must be an even number "
            f"of at least 2; {head_dim} x {factor:g} gives {dim}."
        )
    return dim


def rope_inv_freq(head_dim: int, base: float = 10000.0, scaling: Mapping[str, Any] | None = None, *,
                  partial_rotary_factor: float = 1.0, seq_len: int | None = None,
                  max_position_embeddings: int | None = None, ideal: bool = False, backend: str = "numpy",
                  device: str | None = None) -> tuple[ArrayOrTensor, float]:
    """Inverse frequencies of RoPE, with an optional context-extension method.

    By default the frequencies are bit-identical to the buffer transformers builds (its init function for the
    type, torch float32 on the CPU, the same order of operations); ``ideal=True`` gives the same formula in
    float64, the exact values a lesson can compare them with.

    Args:
        head_dim: size of one attention head.
        base: rope_theta.
        scaling: a Hugging Face ``rope_scaling`` / ``rope_parameters`` dict, or None.
        partial_rotary_factor: fraction of head_dim that is rotated (GPT-NeoX uses 0.25).
        seq_len: current sequence length (dynamic NTK and LongRoPE depend on it; 0 or None means at init).
            For dynamic NTK this is a fresh module's first forward at that length; ``rope_dynamic_calls``
            follows the module's state over several calls.
        max_position_embeddings: the config's value (dynamic's threshold, YaRN/LongRoPE defaults).
        ideal: float64 exact values instead of the model's float32 ones.

    Returns:
        ``(inv_freq, attention_factor)``: ``inv_freq`` has shape (ceil(rotary_dim / 2),), float32 (float64 if
        ideal); an odd rotary_dim gives the extra frequency transformers' ``arange(0, dim, 2)`` gives.

    >>> inv_freq, attention_factor = pc.rope_inv_freq(8, 10000.0, {'rope_type': 'linear', 'factor': 4.0})
    >>> inv_freq.tolist()[:2], attention_factor
    ([0.25, 0.02500000037252903], 1.0)
    """
    rope_type = scaling_type(scaling)
    dim = rotary_dim(head_dim, partial_rotary_factor, allow_odd=True)
    base = as_base(base)
    if seq_len is not None:
        seq_len = as_int("seq_len", seq_len, minimum=0, maximum=MAX_POSITIONS * 64)
    if max_position_embeddings is not None:
        max_position_embeddings = as_int("max_position_embeddings", max_position_embeddings, minimum=1,
                                         maximum=MAX_POSITIONS * 64)
    ctx = ScalingContext(seq_len=seq_len, max_position_embeddings=max_position_embeddings, ideal=bool(ideal))
    inv_freq, attention_factor = ROPE_SCALING[rope_type](base, dim, scaling or {}, ctx)
    inv_freq = to_numpy(inv_freq).astype(np.float64 if ideal else np.float32)
    return to_backend(inv_freq, backend, device), float(attention_factor)
