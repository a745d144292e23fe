"""vLLM's context length: the length ``vllm serve`` derives from a model's config, and the ``--max-model-len`` it
runs with or refuses.

Read from vLLM's source (the ``vllm/foundation/`` layout of vLLM 0.24 or later, which requires transformers v5):

- ``vllm/foundation/config/model.py`` at commit ad5b1a8e25c349f7be6d5c803414c1fad89d0d09:
  ``ModelConfig.__post_init__``, ``_apply_dict_overrides``, ``_update_nested``, ``_get_and_verify_max_len``;
- at commit 055e47c28003156421365af985d676fc921cb075, in ``vllm/foundation/integrations/transformers_utils/``:
  ``model_arch_config_convertor.py`` (``ModelArchConfigConvertorBase.derive_max_model_len_and_key``,
  ``get_per_layer_hf_configs``) and ``config.py`` (``HFConfigParser.parse``, ``get_config``,
  ``patch_rope_parameters``, ``patch_legacy_rope_type``, ``is_rope_parameters_nested``, ``get_hf_text_config``,
  ``_CONFIG_REGISTRY``);
- ``vllm/foundation/config/utils.py`` (``getattr_iter``) at commit aedcda890b813c2a68618ce6b7547d2e5881dbde.

What vLLM does, in order:

1. ``--hf-overrides``: a key whose value is a JSON object is set after the config is built (``_apply_dict_overrides``:
   into a sub-config such as ``text_config`` key by key, otherwise the attribute is replaced whole); every other key
   goes through ``config.update`` first. The config's RoPE fields are then patched (``patch_rope_parameters``: the
   legacy ``type`` key and ``su`` become ``rope_type`` / ``longrope``, then transformers' ``standardize_rope_params``
   and ``validate_rope``) on the config and its text config, before the dict-valued overrides.
2. The text config is ``config.get_text_config()``; a nested one without ``num_attention_heads`` stops vLLM.
3. The length: the smallest of the text config's ``LENGTH_KEYS`` that are set, then ``model_max_length`` (Cohere)
   in its place whenever it is set, larger or not. A per-layer (heterogeneous) text config is read layer by layer.
4. No key at all: a ``--max-model-len`` is taken as it is, unchecked; without one the length is 2,048.
5. RoPE: ``rope_parameters`` (one dict, or one per layer type) scales the length unless the text config's
   ``model_type`` contains ``gemma3`` (its length is already the scaled one). Per entry, ``su`` / ``longrope`` /
   ``llama3`` leave it; ``yarn`` restarts it from the entry's ``original_max_position_embeddings``; every type
   (and these) leaves the last ``factor`` seen, which multiplies the length after the loop (1 when none).
6. Without ``--max-model-len``: a LongRoPE model is served at the text config's ``original_max_position_embeddings``
   attribute (Phi-3 keeps it at the top level; else the derived length), any other at the derived length
   (``Platform.check_max_model_len`` returns it unchanged on CUDA).
7. A larger ``--max-model-len`` stops vLLM, unless ``model_max_length`` is set and not smaller, or the environment
   has ``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` set to ``1`` or ``true`` (then it runs, with a warning).

Not modelled (not on the page): ``--disable-sliding-window`` (caps the length at ``sliding_window``), a pooling
model's tokenizer ``model_max_length``, a sentence-transformers ``max_seq_length``, a speculative draft model's
target length, how far ``--max-model-len auto`` lowers the length (it depends on the GPU's free memory), and
model-specific updates after the check (``NomicBertModel``'s, a remote-code model). Model types in
``VLLM_CONFIG_CLASSES`` are read by vLLM through its own config class; here every config is read through
transformers' class (``configs.config_object``).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..configs.reader import _quiet_transformers, config_object
from .vllm_flags import AUTO_FIT, VllmFlags

__all__ = [
    "DEFAULT_LENGTH", "LENGTH_KEYS", "MAX_SERVABLE", "MIN_TOKEN_BYTES", "REFUSALS", "ROPE_LENGTH_RULES",
    "UNSCALED_MODEL_TYPES", "VLLM_CONFIG_CLASSES", "VllmContext", "vllm_config", "vllm_context",
]

# derive_max_model_len_and_key's keys, in its order (the smallest set one wins, then model_max_length)
LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
               "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")
DEFAULT_LENGTH = 2048  # _get_and_verify_max_len's length for a config that sets none of LENGTH_KEYS
UNSCALED_MODEL_TYPES = ("gemma3",)  # matched inside the text config's model_type: gemma3, gemma3_text, gemma3n...
# transformers_utils/config.py _CONFIG_REGISTRY: model types vLLM builds with its own config class
VLLM_CONFIG_CLASSES = (
    "afmoe", "axk1", "bagel", "chatglm", "modernvbert", "colpali", "colqwen3", "ops_colqwen3",
    "qwen3_vl_nemotron_embed", "cosmos3_omni", "cosmos3_edge", "diffusion_gemma", "deepseek_vl_v2", "deepseek_v32",
    "deepseek_v4", "dots3_note", "k3_dspark", "funaudiochat", "granite4_vision", "hyperclovax", "hy_v3", "hy_v4",
    "isaac", "kimi_k2", "kimi_linear", "kimi_vl", "kimi_k25", "muse_glimmer", "muse_glimmer_text",
    "muse_glimmer_vision", "muse_glimmer_assistant", "kimi_k3", "RefinedWeb", "RefinedWebModel", "mlp_speculator",
    "medusa", "mellum", "midashenglm", "minimax_m3_vl", "minimax_m3_mtp", "moondream3", "moss_transcribe_diarize",
    "eagle", "speculators", "nemotron", "olmo_hybrid", "openvla", "ovis", "ultravox", "step3_vl", "step3_text",
    "step3p5", "qianfan_ocr", "qwen3_asr", "qwen3_next", "qwen4_exp", "qwen4_exp_text", "qwen3_5", "qwen3_5_text",
    "qwen3_5_moe", "qwen3_5_moe_text", "laguna", "lfm2_moe", "unlimited-ocr", "inkling_mm_model", "inkling_model",
)

# Why vLLM does not start (or, for no_config_class, why its length is not computed here): the codes of
# VllmContext.refusal. The lesson's views say each in words.
REFUSALS = (
    "above_derived",  # --max-model-len above the derived length (ValueError in _get_and_verify_max_len)
    "no_config_class",  # transformers has no config class for the model_type: not computed here
    "legacy_rope_type",  # patch_legacy_rope_type: rope_type and type disagree, or mrope without mrope_section
    "rope_patch",  # transformers' standardize_rope_params / validate_rope refuses the patched RoPE fields
    "text_config_ambiguous",  # get_text_config finds more than one text config
    "text_config_heads",  # the nested text config has no num_attention_heads (get_hf_text_config)
    "per_layer_attribute",  # a field vLLM reads globally is per-layer in this config class
    "layers_disagree",  # a per-layer config whose layers derive different lengths (ModelArchitectureConfig.from_layers)
    "rope_entry_null",  # a rope_parameters entry is null where vLLM reads its rope_type
    "rope_type_missing",  # a rope_parameters entry without rope_type (KeyError)
    "original_missing",  # a yarn entry without original_max_position_embeddings (KeyError)
    "original_null",  # LongRoPE default: original_max_position_embeddings is null (int(None))
    "length_overflow",  # no --max-model-len and an infinite derived length: int(inf) raises OverflowError
    "kv_cache_cannot_hold",  # a length past MAX_SERVABLE: vLLM stops when it sizes the KV cache for one request
)
# A length no GPU's KV cache holds: one request of 2^40 tokens needs over 2.8e14 bytes at the smallest cache a
# token can have (one layer, one KV head of 64 dims in 16 bits: 256 bytes), and vLLM's start-up check
# (kv_cache_utils.check_enough_kv_cache_memory) refuses a max_model_len the cache cannot hold.
MAX_SERVABLE = 1 << 40
MIN_TOKEN_BYTES = 256


@dataclass(frozen=True)
class VllmContext:
    """The context length vLLM starts a model with, and how it got there (``vllm_context``).

    Fields:
        model_type: the text config's model_type (None when no config class read the config).
        config_class: ``"transformers"`` (vLLM builds this model type with transformers' class, as here) or
            ``"vllm"`` (vLLM registers its own class for it, ``VLLM_CONFIG_CLASSES``; read here through
            transformers'); ``"none"`` when no class read it.
        key: the text config attribute the length came from (vLLM's ``max_len_key``); None when none is set.
        key_length: that attribute's value; None when no key is set (the 2,048 default applies).
        rope_types: the ``rope_type`` of each rope_parameters entry vLLM read, in order.
        rope_rule: how RoPE changed the length: ``"none"`` (no rope_parameters), ``"model_type"`` (skipped for
            ``UNSCALED_MODEL_TYPES``), ``"yarn"`` (restarted from ``yarn_original``, times ``factor``),
            ``"factor"`` (times ``factor``), ``"unchanged"`` (read, and the length kept).
        factor: what multiplied the length (1.0 when nothing did).
        yarn_original: the ``original_max_position_embeddings`` a yarn entry restarted the length from.
        derived: the length a ``--max-model-len`` is checked against (a float where a factor made it one); None
            when vLLM stops before it is known.
        default: the length vLLM serves without ``--max-model-len``; None where that start stops.
        default_rule: ``"derived"`` or ``"longrope_original"`` (the text config's original_max_position_embeddings).
        asked: the ``--max-model-len`` given (None: not given; ``AUTO_FIT``: ``-1`` or ``auto``).
        served: the max_model_len vLLM runs with, or with ``auto`` the most it starts from; None when it stops
            (``refusal``) or when ``auto`` has no bound from the config.
        served_rule: ``"default"`` (no flag), ``"asked"`` (within the derived length), ``"unchecked"`` (no
            length key: the flag is taken as it is), ``"model_max_length"`` (above it, allowed by
            model_max_length), ``"allow_long"`` (above it, allowed by VLLM_ALLOW_LONG_MAX_MODEL_LEN),
            ``"auto_fit"`` (``auto``: the default, lowered at start-up to what the KV-cache memory holds,
            ``kv_cache_utils._auto_fit_max_model_len``), ``"auto_fit_unbounded"`` (``auto`` and no length key);
            None when it stops.
        refusal: why vLLM stops, one of ``REFUSALS``; None when it starts.
        model_max_length: the text config's model_max_length (None when unset).
    """

    model_type: str | None
    config_class: str
    key: str | None
    key_length: float | None
    rope_types: tuple[str, ...]
    rope_rule: str
    factor: float
    yarn_original: int | None
    derived: float | None
    default: int | None
    default_rule: str | None
    asked: int | None
    served: int | None
    served_rule: str | None
    refusal: str | None
    model_max_length: int | None


class _Stop(Exception):
    """vLLM stops at start-up; ``code`` is one of REFUSALS."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def vllm_config(config: Mapping[str, Any], flags: VllmFlags) -> tuple[dict[str, Any], VllmContext]:
    """The config.json with vLLM's overrides on top, as the frequency readings take it, and ``vllm_context``.

    An override of ``rope_parameters`` or ``rope_scaling`` replaces the file's RoPE dict under either name.
    """
    overrides = {**flags.legacy, **flags.overrides}
    merged = dict(config)
    if "rope_parameters" in overrides or "rope_scaling" in overrides:
        merged.pop("rope_parameters", None)
        merged.pop("rope_scaling", None)
    merged.update(overrides)
    return merged, vllm_context(config, flags)


# ---------------------------------------------------------------- the config object vLLM builds


def _ambiguous():
    from transformers.integrations.heterogeneity.configuration_utils import AmbiguousGlobalPerLayerAttributeError

    return AmbiguousGlobalPerLayerAttributeError


def _refused_values() -> tuple[type[Exception], ...]:
    """What a config class raises for a value it refuses (its strict dataclass validators included)."""
    from huggingface_hub.errors import StrictDataclassError

    return ValueError, TypeError, StrictDataclassError


def _first_attr(cfg, names: tuple[str, ...]):
    """vLLM's getattr_iter: the first of ``names`` the object has (its value, None included), else None."""
    return next((getattr(cfg, name) for name in names if hasattr(cfg, name)), None)


def _legacy_rope_type(params) -> None:
    """patch_legacy_rope_type on one rope_parameters dict (a null entry stops it: ``"rope_type" in None``)."""
    if params is None:
        raise _Stop("rope_entry_null")
    if "rope_type" in params and "type" in params:
        pair = (params["type"], params["rope_type"])
        if pair not in (("su", "longrope"), ("mrope", "default")) and pair[0] != pair[1]:
            raise _Stop("legacy_rope_type")
    if "rope_type" not in params and "type" in params:
        params["rope_type"] = params["type"]
    if "rope_type" not in params:
        return
    kind = params["rope_type"]
    if kind == "mrope" and "mrope_section" not in params:
        raise _Stop("legacy_rope_type")
    params["rope_type"] = {"su": "longrope", "mrope": "default"}.get(kind, kind)


def _nested(params) -> bool:
    """is_rope_parameters_nested: a non-empty dict keyed only by layer types transformers allows."""
    from transformers.configuration_utils import ALLOWED_LAYER_TYPES

    return bool(params) and set(params.keys()).issubset(ALLOWED_LAYER_TYPES)


def _patch_rope(cfg) -> None:
    """patch_rope_parameters: names, legacy rope types, then transformers' own standardize and validate."""
    theta = _first_attr(cfg, ("rope_theta", "rotary_emb_base"))
    partial = _first_attr(cfg, ("partial_rotary_factor", "rotary_pct", "rotary_emb_fraction"))
    if theta is None and not getattr(cfg, "rope_parameters", None):
        return
    if theta is not None:
        cfg.rope_theta = theta
    if partial is not None:
        cfg.partial_rotary_factor = partial
    params = getattr(cfg, "rope_parameters", None)
    if isinstance(params, dict):
        for entry in (params.values() if _nested(params) else [params]):
            _legacy_rope_type(entry)
    try:
        cfg.standardize_rope_params()
        cfg.validate_rope()
    except KeyError as error:
        raise _Stop("rope_patch") from error
    except _refused_values() as error:
        raise _Stop("rope_patch") from error


def _update_nested(target, updates: Mapping) -> None:
    for key, value in updates.items():
        inner = (target.get(key) if isinstance(target, dict) else getattr(target, key, None)) \
            if isinstance(value, dict) else None
        if inner is not None and (isinstance(inner, dict) or hasattr(inner, "__dict__")):
            _update_nested(inner, value)
        elif isinstance(target, dict):
            target[key] = value
        else:
            _set(target, key, value)


def _set(target, key: str, value) -> None:
    try:
        setattr(target, key, value)
    except _refused_values() as error:
        raise ValueError(f"--hf-overrides: transformers' {type(target).__name__} refuses {key!r}: "
                         f"{str(error).splitlines()[0][:300]}") from None


def _text_config(root):
    try:
        return root.get_text_config()
    except ValueError:
        raise _Stop("text_config_ambiguous") from None


def _overridden(root, flags: VllmFlags):
    """The config object after vLLM's config parser, get_config and _apply_dict_overrides, and its text config
    (get_hf_text_config)."""
    from transformers import PretrainedConfig

    if hasattr(root, "llm_config") and not hasattr(root, "text_config"):  # _maybe_remap_hf_config_attrs
        root.update({"text_config": root.llm_config})
    overrides = dict(flags.overrides)
    flat = {**flags.legacy, **{k: v for k, v in overrides.items() if not isinstance(v, dict)}}
    for key, value in flat.items():
        _set(root, key, copy.deepcopy(value))
    _patch_rope(root)
    _patch_rope(_text_config(root))
    for name in getattr(root, "sub_configs", None) or {}:
        _patch_rope(getattr(root, name, None))
    for key, value in overrides.items():
        if isinstance(value, dict):
            inner = getattr(root, key, None)
            if isinstance(inner, PretrainedConfig):
                _update_nested(inner, copy.deepcopy(value))
            else:
                _set(root, key, copy.deepcopy(value))
    text = _text_config(root)
    if text is not root and not hasattr(text, "num_attention_heads"):
        raise _Stop("text_config_heads")
    return text


# ---------------------------------------------------------------- the length


def _length_key(text) -> tuple[float, str | None]:
    """derive_max_model_len_and_key: the smallest set key, then model_max_length whenever it is set."""
    length, key = math.inf, None
    for name in LENGTH_KEYS:
        value = getattr(text, name, None)
        if value is not None:
            if value < length:
                key = name
            length = min(length, value)
    if model_max_length := getattr(text, "model_max_length", None):
        length, key = model_max_length, "model_max_length"
    return length, key


def _layer_length_key(text) -> tuple[float, str | None]:
    """A per-layer text config is converted layer by layer; the layers must agree on the length."""
    if not getattr(text, "is_heterogeneous", False):
        return _length_key(text)
    found = {_length_key(layer) for layer in text.per_layer_config}
    if len(found) != 1:
        raise _Stop("layers_disagree")
    return found.pop()


def _rope_entries(text) -> list | None:
    """rope_parameters as _get_and_verify_max_len walks it: one entry, or one per layer type."""
    params = getattr(text, "rope_parameters", None)
    if params is None:
        return None
    if params and not _nested(params):
        return [params]
    return list(params.values())


def _rope_type(entry) -> str:
    if entry is None:
        raise _Stop("rope_entry_null")
    if "rope_type" not in entry:
        raise _Stop("rope_type_missing")
    return entry["rope_type"]


# How one rope_parameters entry acts on the length: ``(factor, restart)`` from the factor so far, where restart is
# the length the loop restarts from (None: kept). A registry by rope_type; every other type reads "factor" too.
def _kept(entry, factor):
    return factor, None


def _factor(entry, factor):
    return entry.get("factor", factor), None


def _yarn(entry, factor):
    if "original_max_position_embeddings" not in entry:
        raise _Stop("original_missing")
    return entry.get("factor", factor), entry["original_max_position_embeddings"]


ROPE_LENGTH_RULES = {"su": _kept, "longrope": _kept, "llama3": _kept, "yarn": _yarn}


def _scaled(text, entries, length) -> tuple[float, float, int | None, str]:
    """``(length, factor, yarn original, rope_rule)`` after the RoPE step of _get_and_verify_max_len."""
    if entries is None:
        return length, 1.0, None, "none"
    if any(part in text.model_type for part in UNSCALED_MODEL_TYPES):
        return length, 1.0, None, "model_type"
    factor, yarn = 1.0, None
    for entry in entries:
        factor, restart = ROPE_LENGTH_RULES.get(_rope_type(entry), _factor)(entry, factor)
        if restart is not None:
            length = yarn = restart
    factor = 1.0 if factor is None else factor
    rule = "yarn" if yarn is not None else "factor" if factor != 1.0 else "unchanged"
    return length * factor, factor, yarn, rule


def _default(text, entries, derived) -> tuple[int, str]:
    """The length served without --max-model-len: LongRoPE's original context, else the derived length."""
    if entries is not None and any(_rope_type(entry) == "longrope" for entry in entries):
        value = getattr(text, "original_max_position_embeddings", derived)
        if value is None:
            raise _Stop("original_null")
        return int(value), "longrope_original" if hasattr(text, "original_max_position_embeddings") else "derived"
    if not math.isfinite(derived):
        raise _Stop("length_overflow")
    return int(derived), "derived"


def _served(derived, key, model_max_length, asked, allow_long) -> tuple[int | None, str | None, str | None]:
    """``(served, served_rule, refusal)`` for a --max-model-len that was given."""
    if key is None:
        return asked, "unchecked", None
    if asked <= derived:
        return asked, "asked", None
    if model_max_length is not None and asked <= model_max_length:
        return asked, "model_max_length", None
    return (asked, "allow_long", None) if allow_long else (None, None, "above_derived")


def _stopped(code: str, model_type, config_class: str, asked) -> VllmContext:
    return VllmContext(model_type, config_class, None, None, (), "none", 1.0, None, None, None, None, asked, None,
                       None, code, None)


def _derived(text, asked):
    """The derive step: ``(key_length, key, model_max_length, entries, scaled)``; scaled is None when no key is
    set and --max-model-len was given (vLLM returns the flag before anything else)."""
    key_length, key = _layer_length_key(text)
    model_max_length = getattr(text, "model_max_length", None)
    if key is None and asked is not None:
        return None, None, model_max_length, None, None
    entries = _rope_entries(text)
    return key_length, key, model_max_length, entries, _scaled(text, entries, DEFAULT_LENGTH if key is None
                                                                else key_length)


def vllm_context(config: Mapping[str, Any], flags: VllmFlags) -> VllmContext:
    """The context length ``vllm serve`` starts this model with, following ``_get_and_verify_max_len``.

    Args:
        config: the model's config.json dict (read through its transformers config class).
        flags: ``vllm_flags``' ``VllmFlags`` (``--max-model-len``, ``--hf-overrides``, the removed RoPE flags, read as
            ``config.update`` as vLLM before PR #28006 applied them, and VLLM_ALLOW_LONG_MAX_MODEL_LEN).

    Returns:
        a ``VllmContext``; ``refusal`` names why vLLM stops, ``served`` is None then.

    Raises ``ValueError`` for a config transformers' class refuses, or an override it refuses (naming it).
    """
    if not isinstance(flags, VllmFlags):
        raise ValueError(f"flags must be vllm_flags' VllmFlags, but got {type(flags).__name__}.")
    asked = flags.max_model_len
    built = config_object(config)
    if built.obj is None:
        return _stopped("no_config_class", built.model_type, "none", asked)
    config_class = "vllm" if built.model_type in VLLM_CONFIG_CLASSES else "transformers"
    model_type = getattr(built.obj, "model_type", built.model_type)
    try:
        with _quiet_transformers():  # validate_rope logs what the page says in its own words
            text = _overridden(built.obj, flags)
        model_type = getattr(text, "model_type", model_type)
        key_length, key, model_max_length, entries, scaled = _derived(text, asked)
        if scaled is None:  # vLLM returns the flag as it is; -1 then fits to memory with no bound from the config
            served, rule = (None, "auto_fit_unbounded") if asked == AUTO_FIT else (asked, "unchecked")
            return VllmContext(model_type, config_class, None, None, (), "none", 1.0, None, None, None, None, asked,
                               served, rule, None, model_max_length)
        try:
            default, default_rule, late = *_default(text, entries, scaled[0]), None
        except _Stop as stop:
            default, default_rule, late = None, None, stop.code
    except _Stop as stop:
        return _stopped(stop.code, model_type, config_class, asked)
    except _ambiguous():
        return _stopped("per_layer_attribute", model_type, config_class, asked)
    derived, factor, yarn, rule = scaled
    if asked is None or asked == AUTO_FIT:  # -1 takes the default, and later lowers it to what memory holds
        served, served_rule, refusal = default, None if late else ("default" if asked is None else "auto_fit"), late
    else:
        served, served_rule, refusal = _served(derived, key, model_max_length, asked, flags.allow_long)
    if served is not None and served > MAX_SERVABLE and served_rule != "auto_fit":  # auto lowers it to memory
        served, served_rule, refusal = None, None, "kv_cache_cannot_hold"
    types = tuple(e["rope_type"] for e in entries or () if isinstance(e, Mapping) and "rope_type" in e)
    return VllmContext(model_type, config_class, key, None if key is None else key_length, types, rule,
                       float(factor), yarn, derived, default, default_rule, asked, served, served_rule, refusal,
                       model_max_length)
