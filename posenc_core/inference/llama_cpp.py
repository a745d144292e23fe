"""llama.cpp's RoPE: the flags of its command line, and the parameters it runs with over a GGUF's keys.

Read from ``llama-model.cpp`` (load_hparams), ``llama-context.cpp`` (the context's constructor) and
``common/arg.cpp`` (the flags): llama.cpp reads the ``rope.scaling.*`` keys itself and lets each flag given
override its GGUF value. Llama 3's and LongRoPE's per-pair factors come as a ``rope_freqs`` tensor instead, whose
name the tensor list after the keys shows and whose values lie past the header. The angles are ggml's CPU
kernel's (``ggml_rope``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .._checks import MAX_DIM, as_float, as_int
from .command_lines import _number, _pairs, _tokens, _whole
from .ggml_rope import ggml_corr_dims, ggml_rope_cache
from .gguf_header import GGUFArray, GGUFHeader
from .rope_readings import FREQ_FACTORS, RopeReading

__all__ = ["FREQ_FACTOR_TENSORS", "LLAMA_CPP_OPTIONS", "LLAMA_CPP_SCALING_TYPES", "LlamaCppFlags", "LlamaCppRope",
           "LlamaCppTrain", "llama_cpp_flags", "llama_cpp_inv_freq", "llama_cpp_reading", "llama_cpp_rope"]

# the tensors that carry per-pair factors: Llama 3's (rope_freqs) and LongRoPE's (Phi-3: one set per context regime)
FREQ_FACTOR_TENSORS = ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight")
LLAMA_CPP_SCALING_TYPES = ("none", "linear", "yarn", "longrope")  # what load_hparams accepts in the GGUF


# ---------------------------------------------------------------- the flags


def _positive_inverse(flag: str, text: str) -> float:
    value = _number(flag, text)
    if value <= 0:
        raise ValueError(f"{flag} takes a factor above 0 (llama.cpp stores 1/N), but got {text!r}.")
    return 1.0 / value


def _not_negative(flag: str, text: str) -> float:
    value = _number(flag, text)
    if value < 0:
        raise ValueError(f"{flag} must be at least 0 (0 keeps the model's value), but got {text!r}.")
    return value


def _scaling_choice(flag: str, text: str) -> str:
    if text not in ("none", "linear", "yarn"):
        raise ValueError(f"{flag} takes none, linear or yarn, but got {text!r}.")
    return text


# common/arg.cpp's rope options: flag -> (the llama_context_params field it sets, how the text becomes its value).
# Later flags win, as each one sets its field again; --rope-scale and --rope-freq-scale set the same field.
LLAMA_CPP_OPTIONS: dict[str, tuple[str, Callable[[str, str], Any]]] = {
    "--rope-freq-base": ("rope_freq_base", _not_negative),
    "--rope-freq-scale": ("rope_freq_scale", _not_negative),
    "--rope-scale": ("rope_freq_scale", _positive_inverse),
    "--rope-scaling": ("rope_scaling_type", _scaling_choice),
    "--yarn-orig-ctx": ("yarn_orig_ctx", _whole),
    "--yarn-ext-factor": ("yarn_ext_factor", _number),
    "--yarn-attn-factor": ("yarn_attn_factor", _number),
    "--yarn-beta-slow": ("yarn_beta_slow", _number),
    "--yarn-beta-fast": ("yarn_beta_fast", _number),
    "--ctx-size": ("n_ctx", _whole),
    "-c": ("n_ctx", _whole),
}
_LLAMA_CPP_SKIPPED = ("-m", "--model")  # the model path: taken and not read


@dataclass(frozen=True)
class LlamaCppFlags:
    """The rope settings a llama.cpp command line gives (``llama_cpp_flags``); None where no flag set a field.

    Fields (llama_context_params' names):
        rope_freq_base: the RoPE base (``--rope-freq-base``; 0 keeps the GGUF's).
        rope_freq_scale: the frequency scale, 1/factor (``--rope-freq-scale``, or ``--rope-scale N`` as 1/N).
        rope_scaling_type: ``"none"``, ``"linear"`` or ``"yarn"`` (``--rope-scaling``).
        yarn_orig_ctx: YaRN's original context in tokens (``--yarn-orig-ctx``; 0 keeps the GGUF's).
        yarn_ext_factor: YaRN's mix of extrapolation (``--yarn-ext-factor``; negative: 1 for YaRN, else 0).
        yarn_attn_factor: the factor on cos and sin (``--yarn-attn-factor``).
        yarn_beta_slow: YaRN's beta_slow (``--yarn-beta-slow``).
        yarn_beta_fast: YaRN's beta_fast (``--yarn-beta-fast``).
        n_ctx: the context in tokens (``-c`` / ``--ctx-size``; 0 takes the trained one).
    """

    rope_freq_base: float | None = None
    rope_freq_scale: float | None = None
    rope_scaling_type: str | None = None
    yarn_orig_ctx: int | None = None
    yarn_ext_factor: float | None = None
    yarn_attn_factor: float | None = None
    yarn_beta_slow: float | None = None
    yarn_beta_fast: float | None = None
    n_ctx: int | None = None

    @property
    def given(self) -> tuple[str, ...]:
        """The fields a flag set, sorted by name."""
        return tuple(sorted(f.name for f in fields(self) if getattr(self, f.name) is not None))


def llama_cpp_flags(text: str) -> LlamaCppFlags:
    """The rope settings a llama.cpp command line gives (``llama-server`` / ``llama-cli`` flags), as text.

    Each flag is read through its entry of ``LLAMA_CPP_OPTIONS``. Raises ``ValueError`` naming a flag this reading
    does not know or a malformed value.
    """
    params: dict[str, Any] = {}
    for flag, value in _pairs(_tokens(text, "llama.cpp"), "llama.cpp"):
        if flag in _LLAMA_CPP_SKIPPED:
            continue
        if flag not in LLAMA_CPP_OPTIONS:
            raise ValueError(f"{flag} is not one of the llama.cpp rope flags read here: "
                             f"{', '.join(LLAMA_CPP_OPTIONS)} (and -m).")
        target, convert = LLAMA_CPP_OPTIONS[flag]
        params[target] = convert(flag, value)
    return LlamaCppFlags(**params)


# ---------------------------------------------------------------- the GGUF's keys, then the context


@dataclass(frozen=True)
class LlamaCppTrain:
    """What a GGUF's keys set in llama.cpp before any flag (load_hparams; ``LlamaCppRope.gguf``).

    Fields:
        n_ctx_train: the trained context in tokens (``<arch>.context_length``).
        rope_freq_base: the RoPE base (``rope.freq_base``; 10,000 where absent).
        rope_scaling_type: ``rope.scaling.type`` (``"linear"`` where absent), one of ``LLAMA_CPP_SCALING_TYPES``.
        rope_freq_scale: 1/factor (``rope.scaling.factor``, else ``rope.scale_linear``; 1 where neither).
        n_ctx_orig_yarn: ``rope.scaling.original_context_length`` in tokens (0 where absent).
        rope_attn_factor: ``rope.scaling.attn_factor`` (1 where absent).
        yarn_log_mul: ``rope.scaling.yarn_log_multiplier`` (0 where absent).
        n_rot: the rotated dimensions per head (``rope.dimension_count``, else the key length, else width/heads).
        arch: ``general.architecture``.
    """

    n_ctx_train: int
    rope_freq_base: float
    rope_scaling_type: str
    rope_freq_scale: float
    n_ctx_orig_yarn: int
    rope_attn_factor: float
    yarn_log_mul: float
    n_rot: int
    arch: str


def _gguf_number(header: GGUFHeader, key: str, default: Any = None) -> Any:
    value = header.fields.get(key, default)
    if isinstance(value, (GGUFArray, str, bool)):
        raise ValueError(f"{key} must be a number, but this header holds {value!r}.")
    return value


def _rotated(header: GGUFHeader, arch: str) -> int:
    """rope.dimension_count, else the key length, else the width over the heads."""
    heads = _gguf_number(header, f"{arch}.attention.head_count")
    width = _gguf_number(header, f"{arch}.embedding_length")
    key_length = _gguf_number(header, f"{arch}.attention.key_length",
                              width // heads if width and heads and isinstance(heads, int) else None)
    n_rot = _gguf_number(header, f"{arch}.rope.dimension_count", key_length)
    if n_rot is None:
        raise ValueError(f"The header gives neither {arch}.rope.dimension_count nor the head size, so the rotated "
                         "dimensions are unknown.")
    return as_int("rope.dimension_count", n_rot, minimum=2, maximum=MAX_DIM)


def _llama_cpp_train(header: GGUFHeader) -> LlamaCppTrain:
    """llama-model.cpp's load_hparams: what the GGUF keys set before any flag."""
    arch = header.architecture if isinstance(header, GGUFHeader) else None
    if arch is None:
        raise ValueError("The header has no general.architecture string, which llama.cpp reads first.")
    n_ctx_train = _gguf_number(header, f"{arch}.context_length")
    if n_ctx_train is None:
        raise ValueError(f"The header has no {arch}.context_length, which llama.cpp requires.")
    kind = header.fields.get(f"{arch}.rope.scaling.type", "linear")
    if kind not in LLAMA_CPP_SCALING_TYPES:
        raise ValueError(f"{arch}.rope.scaling.type is {kind!r}; llama.cpp knows none, linear, yarn and longrope "
                         "and refuses the file otherwise.")
    factor = _gguf_number(header, f"{arch}.rope.scaling.factor") or _gguf_number(header, f"{arch}.rope.scale_linear")
    return LlamaCppTrain(
        n_ctx_train=as_int("context_length", n_ctx_train, minimum=1, maximum=1 << 30),
        rope_freq_base=as_float("rope.freq_base", _gguf_number(header, f"{arch}.rope.freq_base", 10000.0), above=1.0),
        rope_scaling_type=kind, rope_freq_scale=1.0 / factor if factor else 1.0,
        n_ctx_orig_yarn=_gguf_number(header, f"{arch}.rope.scaling.original_context_length", 0) or 0,
        rope_attn_factor=_gguf_number(header, f"{arch}.rope.scaling.attn_factor", 1.0),
        yarn_log_mul=_gguf_number(header, f"{arch}.rope.scaling.yarn_log_multiplier", 0.0),
        n_rot=_rotated(header, arch), arch=arch)


@dataclass(frozen=True)
class LlamaCppRope:
    """The rope parameters llama.cpp runs with (``llama_cpp_rope``).

    Fields:
        n_ctx: the context in tokens (``-c``, else the trained one).
        n_ctx_train: the trained context in tokens (the GGUF's).
        freq_base: the RoPE base.
        freq_scale: the frequency scale, 1/factor (1 without scaling).
        scaling_type: ``"none"``, ``"linear"``, ``"yarn"`` or ``"longrope"``.
        n_ctx_orig_yarn: YaRN's original context in tokens (else the trained context).
        ext_factor: YaRN's mix of extrapolation (0: off).
        attn_factor: the context's attention factor.
        mscale: what multiplies cos and sin in the kernel.
        beta_fast: YaRN's beta_fast (32 unless a flag sets it).
        beta_slow: YaRN's beta_slow (1 unless a flag sets it).
        n_rot: the rotated dimensions per head.
        given: the ``LlamaCppFlags`` fields a flag set, sorted.
        gguf: what the file's keys set, before any flag (``LlamaCppTrain``).
        freq_factors: the file's tensors of per-pair factors (``FREQ_FACTOR_TENSORS`` it lists), in file order.
        tensors_read: whether the bytes held the whole tensor list (else a factor tensor may be missed).
    """

    n_ctx: int
    n_ctx_train: int
    freq_base: float
    freq_scale: float
    scaling_type: str
    n_ctx_orig_yarn: int
    ext_factor: float
    attn_factor: float
    mscale: float
    beta_fast: float
    beta_slow: float
    n_rot: int
    given: tuple[str, ...]
    gguf: LlamaCppTrain
    freq_factors: tuple[str, ...]
    tensors_read: bool


def _mscale(scale: float, mscale: float) -> float:
    return 1.0 if scale <= 1.0 else 0.1 * mscale * math.log(scale) + 1.0


def _yarn_attn_factor(train: LlamaCppTrain, scale: float) -> float:
    """llama_context's attention factor with YaRN on (before the GGUF's rope.scaling.attn_factor)."""
    factor = 1.0 / scale
    log_mul = train.yarn_log_mul
    # DeepSeek-V2 takes mscale = mscale_all_dim (llama-context.cpp's TAG_DEEPSEEK2_YARN_LOG_MUL_FIX)
    mscale = log_mul if train.arch == "deepseek2" and log_mul != 1.0 else 1.0
    attn = _mscale(factor, mscale) / _mscale(factor, log_mul) if log_mul else _mscale(factor, 1.0)
    return attn / (1.0 + 0.1 * math.log(factor)) if factor > 0 else attn


def llama_cpp_rope(header: GGUFHeader, flags: LlamaCppFlags | None = None) -> LlamaCppRope:
    """The rope parameters llama.cpp runs with: the GGUF's keys, each replaced by a flag that was given.

    Follows ``llama_context``'s constructor: a base or scale of 0 (not given) takes the GGUF's value; an
    unspecified scaling type takes the GGUF's (``linear`` where the file has none); ``none`` forces a scale of 1;
    ``yarn_ext_factor`` not given is 1 for YaRN and 0 otherwise; with YaRN on, the attention factor is computed
    (0.1 ln s + 1, over the kernel's own 1 + 0.1 ln s) and a ``--yarn-attn-factor`` is replaced.
    The GGUF's ``rope.scaling.yarn_*`` keys are read only by some architectures' loaders (Grok's, for one), so
    here the beta values come from the flags or the defaults 32 and 1.
    """
    flags = LlamaCppFlags() if flags is None else flags
    if not isinstance(flags, LlamaCppFlags):
        raise ValueError(f"flags must be llama_cpp_flags' LlamaCppFlags, but got {type(flags).__name__}.")
    train = _llama_cpp_train(header)
    kind = flags.rope_scaling_type or train.rope_scaling_type
    base = flags.rope_freq_base or train.rope_freq_base
    scale = 1.0 if kind == "none" else flags.rope_freq_scale or train.rope_freq_scale
    orig = flags.yarn_orig_ctx or train.n_ctx_orig_yarn or train.n_ctx_train
    ext = -1.0 if flags.yarn_ext_factor is None else flags.yarn_ext_factor
    ext = (1.0 if kind == "yarn" else 0.0) if ext < 0 else ext
    attn = -1.0 if flags.yarn_attn_factor is None else flags.yarn_attn_factor
    attn = _yarn_attn_factor(train, scale) if ext != 0 else 1.0 if attn < 0 else attn
    attn *= train.rope_attn_factor
    mscale = attn * (1.0 + 0.1 * math.log(1.0 / scale)) if ext != 0 else attn  # what multiplies cos and sin
    beta_fast = 32.0 if flags.yarn_beta_fast is None or flags.yarn_beta_fast < 0 else flags.yarn_beta_fast
    beta_slow = 1.0 if flags.yarn_beta_slow is None or flags.yarn_beta_slow < 0 else flags.yarn_beta_slow
    return LlamaCppRope(
        n_ctx=flags.n_ctx or train.n_ctx_train, n_ctx_train=train.n_ctx_train, freq_base=float(base),
        freq_scale=float(scale), scaling_type=kind, n_ctx_orig_yarn=int(orig), ext_factor=float(ext),
        attn_factor=float(attn), mscale=float(mscale), beta_fast=beta_fast, beta_slow=beta_slow, n_rot=train.n_rot,
        given=flags.given, gguf=train, freq_factors=tuple(n for n in header.tensor_names if n in FREQ_FACTOR_TENSORS),
        tensors_read=header.tensors_complete)


def llama_cpp_reading(rope: LlamaCppRope) -> RopeReading:
    """llama.cpp's parameters in ``rope_reading``'s fields (the same table as a config)."""
    scale = rope.freq_scale
    if rope.freq_factors:
        kind = FREQ_FACTORS
    elif rope.ext_factor != 0:
        kind = "yarn"
    elif scale != 1.0:
        kind = "linear"
    else:
        kind = "default"
    yarn = kind == "yarn"
    return RopeReading(model_type=None, rotary_dim=rope.n_rot, rope_theta=rope.freq_base, rope_type=kind,
                       factor=None if kind == "default" else 1.0 / scale,
                       original_max_position_embeddings=rope.n_ctx_orig_yarn if yarn else None,
                       beta_fast=rope.beta_fast if yarn else None, beta_slow=rope.beta_slow if yarn else None,
                       attention_factor=rope.mscale, context=rope.n_ctx)


def llama_cpp_inv_freq(rope: LlamaCppRope) -> np.ndarray:
    """Each rotary pair's angle per position in llama.cpp, shape (n_rot/2,): the float32 angles ggml's CPU kernel
    forms at position 1 (``ggml_rope.ggml_rope_cache``), as float64.

    ggml's ``rope_yarn``: θ_i = theta_scale^i by float32 products with theta_scale = ``powf(base, -2/n_rot)``; the
    angle is s·θ_i·(1 − mix_i) + θ_i·mix_i with mix_i = ext_factor·(1 − ramp over the correction dims of
    ``ggml_rope_yarn_corr_dims``), s = freq_scale. (At position p the kernel starts the products from p, so p
    times these angles may differ from its own in the last float32 bit.)
    """
    n_rot, base, scale, ext = rope.n_rot, rope.freq_base, rope.freq_scale, rope.ext_factor
    corr: tuple = (0.0, 0.0)
    if ext != 0:
        corr = ggml_corr_dims(n_rot, rope.n_ctx_orig_yarn, base, rope.beta_fast, rope.beta_slow)
    row = ggml_rope_cache(1.0, n_rot, base, freq_scale=scale, ext_factor=ext, corr_dims=corr)
    return row.theta.astype(np.float64)  # (n_rot/2,)
