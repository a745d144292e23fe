"""Reading a config.json the way the model's own ``transformers`` config class reads it.

Where ``transformers`` is installed and knows the ``model_type``, the user's dict is passed through
``AutoConfig.for_model(model_type, **config)`` (never ``trust_remote_code``), so class defaults, legacy
names (``rope_scaling``, ``rotary_pct``, Phi-3's top-level ``original_max_position_embeddings``) and
per-layer-type RoPE dicts are resolved exactly as the model resolves them. Multimodal configs are read
through their ``text_config``. Otherwise a generic reading of the three RoPE forms is used, with a note.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from .._backend import MissingExtraError
from .._checks import MAX_DIM, MAX_POSITIONS, as_int
from .json_bounds import check_config_tree, decode_special_float, parse_json_int

__all__ = [
    "MAX_CONFIG_BYTES",
    "ConfigObject",
    "ConfigReading",
    "IgnoredReason",
    "POSITION_KEYS",
    "ReadingSource",
    "config_object",
    "normalise_config",
    "parse_config_json",
    "require_class_reading",
    "require_transformers",
    "transformers_available",
]

MAX_CONFIG_BYTES = 1 << 20  # 1 MB as the uploader counts it; a config.json is a few KB, refuse more before parsing

# The keys the per-layer reading takes (besides the RoPE dict): the "read" table lists each one the config holds.
POSITION_KEYS = frozenset({
    "model_type", "layer_types", "rope_parameters", "rope_scaling", "rope_theta", "rope_local_base_freq",
    "rotary_emb_base", "rotary_pct", "partial_rotary_factor", "head_dim", "global_head_dim",
    "num_global_key_value_heads", "per_layer_config", "hidden_size", "num_attention_heads", "num_hidden_layers",
    "max_position_embeddings", "original_max_position_embeddings", "sliding_window", "use_sliding_window",
    "sliding_window_pattern", "attention_chunk_size", "no_rope_layers", "no_rope_layer_interval",
    "attn_temperature_tuning", "floor_scale", "attn_scale", "position_embedding_type", "kv_lora_rank", "q_lora_rank",
    "qk_rope_head_dim", "qk_nope_head_dim", "rope_interleave", "text_config", "linear_attn_config",
    "hybrid_override_pattern", "full_attn_idxs", "mrope_section", "global_attn_every_n_layers", "global_rope_theta",
    "local_rope_theta", "local_attention", "dual_chunk_attention_config",
})
# keys no position reading looks at, whatever the class
_NOT_POSITIONS = frozenset({"architectures", "torch_dtype", "dtype", "transformers_version", "auto_map",
                            "vision_config", "audio_config", "quantization_config", "_name_or_path"})

# How a config was read: through the model type's transformers class, or generically (the three RoPE forms, no
# class defaults) because the config names no model_type, transformers has no class for it, or transformers is not
# installed (then a full install could read it differently: the readings that return numbers refuse).
ReadingSource = Literal["class", "no_model_type", "unknown_model_type", "transformers_missing"]
# Why a key of the config is not used: it is not about positions, the class does not know it (the model's code
# never reads it), or the generic reading does not know it.
IgnoredReason = Literal["not_positions", "not_class_field", "not_generic_field"]


def transformers_available() -> bool:
    try:
        import transformers  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class ConfigReading:
    """One config as read: the text model's fields, how they were read, and which keys were not used.

    Fields:
        model_type: the text model's ``model_type`` (None when the config names none).
        class_name: the transformers config class that read it; None for the generic reading.
        fields: the text model's config after the class's normalisation (a plain JSON-able dict), or the raw dict.
        obj: the transformers config object (None for the generic reading).
        source: how it was read (``ReadingSource``): ``"class"``, or a generic reading and why
            (``"no_model_type"``, ``"unknown_model_type"``, ``"transformers_missing"``: the one a full install
            could read differently).
        read: ``(key, value as shown)`` for each key of the config that sets positions (``POSITION_KEYS``).
        ignored: ``(key, reason)`` for each other key the reading does not use (``IgnoredReason``).
        nested_from: ``"text_config"`` when a multimodal config was unwrapped, else None.
    """

    model_type: str | None
    class_name: str | None
    fields: dict[str, Any]
    obj: Any = None
    source: ReadingSource = "class"
    read: list[tuple[str, str]] = field(default_factory=list)
    ignored: list[tuple[str, IgnoredReason]] = field(default_factory=list)
    nested_from: str | None = None

    @property
    def generic(self) -> bool:
        """Whether the fields were read without a transformers class (no class defaults, no legacy names)."""
        return self.source != "class"

    def get(self, key: str, default: Any = None) -> Any:
        """A field of the normalised config (attribute of the class instance when there is one).

        On a per-layer config (``per_layer_config``: DeepSeek-style dots3, NeoMME) transformers refuses a global
        read of a per-layer field (``AmbiguousGlobalPerLayerAttributeError``, a RuntimeError); the global value
        the class stores is returned then, and ``layer_get`` gives the value one layer's code reads.
        """
        if self.obj is not None:
            try:
                value = getattr(self.obj, key, default)
            except RuntimeError:  # AmbiguousGlobalPerLayerAttributeError: the field varies from layer to layer
                value = self.fields.get(key, default)
            return default if value is None else value
        value = self.fields.get(key, default)
        return default if value is None else value

    def is_per_layer(self, key: str) -> bool:
        """Whether the class keeps ``key`` per layer (its code reads ``config.per_layer_config[i].key``)."""
        if self.obj is None or not getattr(self.obj, "is_heterogeneous", False):
            return False
        try:
            getattr(self.obj, key)
        except RuntimeError:
            return True
        except AttributeError:
            return False
        return False

    def layer_get(self, key: str, index: int, default: Any = None) -> Any:
        """``key`` as layer ``index``'s code reads it: its per-layer value where the class keeps one, else global."""
        if self.is_per_layer(key):
            try:
                value = getattr(self.obj.per_layer_config[index], key, default)
            except (IndexError, KeyError, TypeError, AttributeError):
                value = None
            return default if value is None else value
        return self.get(key, default)


def parse_config_json(data: str | bytes, max_bytes: int = MAX_CONFIG_BYTES) -> dict[str, Any]:
    """Parse the text (or bytes) of a config.json, with one clear sentence for each way it can fail.

    The size is checked before anything is decoded or parsed, and the tree's depth, size and numbers
    (``check_config_tree``) before anything copies it. ``Infinity`` / ``NaN`` tokens parse (Python's JSON writer
    emits them), and so does transformers' own tagged form ``{"__float__": "Infinity"}``, decoded as
    ``PreTrainedConfig`` decodes it.

    >>> pc.parse_config_json('{"rope_theta": 10000.0}')
    {'rope_theta': 10000.0}
    """
    if isinstance(data, str):
        size = len(data.encode("utf-8", errors="replace"))
    elif isinstance(data, (bytes, bytearray)):
        size = len(data)
    else:
        raise ValueError(f"A config must be given as text, but got {type(data).__name__}.")
    if size > max_bytes:
        raise ValueError(f"This file is {size:,} bytes; a config.json is a few kilobytes, and the limit here is "
                         f"{max_bytes:,} bytes. Did you pick the weights or the tokenizer instead?")
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ValueError(f"The file is not UTF-8 text (byte {error.start} cannot be decoded); "
                             "a config.json is plain JSON text.") from None
    if not data.strip():
        raise ValueError("The config is empty: paste the contents of a config.json or upload the file.")
    try:
        config = json.loads(data, parse_int=parse_json_int, object_hook=decode_special_float)
    except json.JSONDecodeError as error:
        raise ValueError(f"This is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}. "
                         "(Python-style None/True/False or a trailing comma are common causes.)") from None
    except RecursionError:
        raise ValueError("The JSON is nested too deeply to be a model config.") from None
    if not isinstance(config, dict):
        raise ValueError(f"A config.json holds one JSON object {{...}}, but this is a JSON {_json_kind(config)}.")
    check_config_tree(config)
    return config


def _json_kind(value) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


@contextlib.contextmanager
def _quiet_transformers():
    """transformers logs advice while it normalises old configs; the page shows its own notes instead."""
    logger = logging.getLogger("transformers")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _check_sizes(config: Mapping) -> None:
    """Bound the sizes a config may declare before any class or array is built from them."""
    limits = {"num_hidden_layers": 1024, "head_dim": MAX_DIM, "hidden_size": MAX_DIM * 64,
              "num_attention_heads": 16384, "max_position_embeddings": MAX_POSITIONS * 64,
              "sliding_window": MAX_POSITIONS * 64, "attention_chunk_size": MAX_POSITIONS * 64,
              "qk_rope_head_dim": MAX_DIM, "global_head_dim": MAX_DIM}
    for key, maximum in limits.items():
        if config.get(key) is not None:
            as_int(f"config['{key}']", config[key], minimum=1, maximum=maximum)
    layer_types = config.get("layer_types")
    if isinstance(layer_types, list) and len(layer_types) > 1024:
        raise ValueError(f"config['layer_types'] lists {len(layer_types):,} layers; at most 1,024 are read here.")


def _class_fields(obj) -> set[str]:
    names = set()
    for klass in type(obj).__mro__:
        if dataclasses.is_dataclass(klass):
            names |= {f.name for f in dataclasses.fields(klass)}
        names |= set(getattr(klass, "attribute_map", {}) or {})
    return names


def _plain(value):
    """A JSON-able copy of a config value (config objects become dicts)."""
    return json.loads(json.dumps(value, default=lambda o: o.to_dict() if hasattr(o, "to_dict") else str(o)))


def _rotated_pairs(config: Mapping) -> tuple[int, float, int | None, int | None] | None:
    """``(head_dim, partial_rotary_factor, hidden_size, heads)`` behind the number of rotated pairs (hidden_size and
    heads where head_dim is derived from them), or None where the config does not give them."""
    text: Mapping = config["text_config"] if isinstance(config.get("text_config"), Mapping) else config
    params = text.get("rope_scaling") or text.get("rope_parameters") or {}
    partial = text.get("partial_rotary_factor", params.get("partial_rotary_factor", 1.0) if
                       isinstance(params, Mapping) else 1.0)
    head_dim, hidden, heads = text.get("head_dim"), None, None
    if not head_dim and text.get("hidden_size") and text.get("num_attention_heads"):
        hidden, heads = text["hidden_size"], text["num_attention_heads"]
        head_dim = hidden // heads
    if not isinstance(head_dim, int) or not isinstance(partial, (int, float)):
        return None
    return head_dim, partial, hidden, heads


def _refusal(model_type: str, detail: str, config: Mapping) -> ValueError:
    """transformers' validation message, with the config's numbers behind a wrong LongRoPE list length."""
    match = re.search(LONGROPE_LENGTH, detail)
    if match:
        key, wanted, got = match.group(1), int(match.group(2)), int(match.group(3))
        pairs = _rotated_pairs(config)
        if pairs is None:
            return ValueError(f"transformers' config class for model_type '{model_type}' refuses this config: "
                              f"rope_scaling['{key}'] lists {got} values, but LongRoPE needs {wanted}, one per "
                              "rotated pair of each head.")
        head_dim, partial, hidden, heads = pairs
        dims = int(head_dim * partial)
        return ValueError(f"transformers' config class for model_type '{model_type}' refuses this config: "
                          f"rope_scaling['{key}'] lists {got} values, but LongRoPE needs {wanted}, one per rotated "
                          "pair: " + ("head_dim" if hidden is None else
                                      f"hidden_size {hidden:,} / num_attention_heads {heads}")
                          + f" = {head_dim} dimensions per head x partial_rotary_factor {partial:g} = "
                          f"{dims} rotated dimensions, in {dims // 2} pairs.")
    match = re.search(CLASS_VALIDATION, detail)
    return ValueError(f"transformers' config class for model_type '{model_type}' refuses this config: "
                      + (match.group(1).strip() if match else detail))


# transformers' validation messages, read for the numbers and the reason inside them
LONGROPE_LENGTH = r"`?rope_parameters`?'s (\w+) field must have length (\d+), got (\d+)"
CLASS_VALIDATION = r"Class validation error for validator '\w+': \w+Error: (.+)"


def _built(config: Mapping, model_type: str) -> Any:
    """The whole config object ``AutoConfig.for_model`` builds (multimodal configs included), or a ``ValueError``
    with the class's reason."""
    from transformers import AutoConfig

    kwargs = {k: copy.deepcopy(v) for k, v in config.items() if k not in ("model_type", "auto_map")}
    try:
        with _quiet_transformers():
            obj = AutoConfig.for_model(model_type, **kwargs)
    except Exception as error:  # noqa: BLE001 (every failure of the class becomes one sentence)
        message = str(error).strip().splitlines()
        detail = " ".join(line.strip() for line in message[:3])[:400]
        if re.search(LONGROPE_LENGTH, detail) or re.search(CLASS_VALIDATION, detail):
            raise _refusal(model_type, detail, config) from None
        raise ValueError(f"transformers' config class for model_type '{model_type}' refuses this config: "
                         f"{type(error).__name__}: {detail}") from None
    return obj


def _through_class(config: Mapping, model_type: str) -> tuple[Any, str | None]:
    obj = _built(config, model_type)
    text = obj.get_text_config(decoder=True) if hasattr(obj, "get_text_config") else obj
    if not hasattr(text, "to_dict"):
        raise ValueError(f"transformers' config class for model_type '{model_type}' found no language-model config "
                         "in it (text_config is not a config object).")
    nested = "text_config" if text is not obj else None
    return text, nested


def _sort_keys(reading: ConfigReading, config: Mapping, source: Mapping, class_fields: set) -> None:
    """Each key of the config into ``reading.read`` (it sets positions) or ``reading.ignored`` (with the reason)."""
    obj, nested = reading.obj, reading.nested_from
    for key in sorted(config if nested is None else {**config, **source}):
        value = source.get(key, config.get(key))
        if key in POSITION_KEYS:
            reading.read.append((key, _short(value)))
        elif obj is not None and key in class_fields:
            continue  # a field the class knows and the position reading does not need
        elif key in _NOT_POSITIONS:
            reading.ignored.append((key, "not_positions"))
        else:
            reading.ignored.append((key, "not_class_field" if obj is not None else "not_generic_field"))


def _checked(config: Mapping) -> str | None:
    """Refuse what no config class should be handed; returns the config's ``model_type``."""
    if not isinstance(config, Mapping):
        raise ValueError(f"A model config must be a JSON object (a dict), but got {type(config).__name__}.")
    # depth, size and numbers, before the copies and the class below. Infinity / NaN outside the fields that set
    # positions go to the class unchanged, as transformers passes them (Granite 4.0-H's time_step_limit is
    # (0.0, inf) by default); a class that refuses one says so in its own sentence.
    check_config_tree(config)
    if config.get("text_config") is not None and not isinstance(config["text_config"], Mapping):
        raise ValueError("config['text_config'] must be a JSON object (the language model's config).")
    _check_sizes(_without_unused_window(config))
    if isinstance(config.get("text_config"), Mapping):
        _check_sizes(_without_unused_window(config["text_config"]))
    model_type = config.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise ValueError(f"config['model_type'] must be a string, but got {model_type!r}.")
    return model_type


class ConfigObject(NamedTuple):
    """A config.json as its model's transformers config class builds it, whole (a multimodal config not unwrapped).

    Fields:
        obj: the config instance ``AutoConfig.for_model(model_type, **config)`` returns; ``None`` where no class
            reads it (no ``model_type``, one transformers does not know, or transformers not installed).
        model_type: the config's ``model_type`` (``None`` when it has none).
        known: whether transformers has a config class for ``model_type``.
    """

    obj: Any
    model_type: str | None
    known: bool


def config_object(config: Mapping[str, Any]) -> ConfigObject:
    """Build a config.json through its model's transformers config class, after the same checks as
    ``normalise_config``; the object is the caller's own (a fresh instance on every call).

    Raises ``ValueError`` for a config the checks or the class refuse (the class's reason in one sentence), and
    ``MissingExtraError`` for a config with a ``model_type`` when transformers is not installed (a full install
    may have a class for it).
    """
    model_type = _checked(config)
    if not model_type:
        return ConfigObject(None, model_type, False)
    require_transformers("Building a config through its transformers class")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    if model_type not in CONFIG_MAPPING:
        return ConfigObject(None, model_type, False)
    return ConfigObject(copy.deepcopy(_built_once(json.dumps(config, sort_keys=True), model_type)), model_type, True)


def require_transformers(what: str) -> None:
    """Refuse, naming the ``transformers`` extra, where a reading needs a transformers config class that is absent:
    ``what`` names what needs it, as a sentence's subject."""
    if not transformers_available():
        raise MissingExtraError(f'{what} needs transformers, whose config class for the model type sets defaults '
                                'and resolves legacy names; install it with '
                                '`pip install "posenc-core[transformers]"`.', name="transformers")


def require_class_reading(reading: ConfigReading, what: str) -> None:
    """Refuse a reading a full install would make differently: a config with a ``model_type`` read without
    transformers (its class could set other defaults). A config with no ``model_type``, or one transformers has no
    class for, is read the same way everywhere."""
    if reading.source == "transformers_missing":
        require_transformers(what)


@functools.lru_cache(maxsize=64)
def _built_once(text: str, model_type: str) -> Any:
    """One build per distinct config (a class builds in milliseconds, a deep copy of it in microseconds)."""
    return _built(json.loads(text), model_type)


def normalise_config(config: Mapping[str, Any]) -> ConfigReading:
    """Read a config dict through its model's transformers config class where possible.

    Returns a ``ConfigReading`` whose ``fields``/``get`` give the language model's settings after the
    class's own normalisation (or the raw dict, for the generic reading), with how it was read (``source``:
    a generic reading says so, and why), the position-related keys it found, and the keys that nothing here reads.
    Without transformers a config with a ``model_type`` is read generically with ``source ==
    "transformers_missing"``: its numbers may differ from a full install's, and the readings that return numbers
    (``read_rope_config``, ``rope_from_config``, ``config_view``, ...) refuse it with ``MissingExtraError``.
    """
    model_type = _checked(config)
    obj, nested, class_name = None, None, None
    source_kind: ReadingSource = "no_model_type"
    if model_type and transformers_available():
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING

        source_kind = "class" if model_type in CONFIG_MAPPING else "unknown_model_type"
        if source_kind == "class":
            obj, nested = _through_class(config, model_type)
            class_name = type(obj).__name__
    elif model_type:
        source_kind = "transformers_missing"

    if obj is not None:
        fields = _plain(obj.to_dict())
        fields["model_type"] = getattr(obj, "model_type", model_type)
        source = config["text_config"] if nested and isinstance(config.get("text_config"), Mapping) else config
        class_fields = _class_fields(obj)
    else:
        source = config["text_config"] if isinstance(config.get("text_config"), Mapping) else config
        if source is not config:
            nested = "text_config"  # only the language model is read
        fields = copy.deepcopy(dict(source))
        fields.setdefault("model_type", model_type)
        class_fields = set()

    reading = ConfigReading(model_type=fields.get("model_type"), class_name=class_name, fields=fields, obj=obj,
                            source=source_kind, nested_from=nested)
    _sort_keys(reading, config, source, class_fields)
    return reading


def _without_unused_window(config: Mapping) -> Mapping:
    """``sliding_window`` 0 means "no window" to transformers (Qwen2-MoE's class default), so it is no size to bound."""
    return {k: v for k, v in config.items() if not (k == "sliding_window" and v == 0 and not isinstance(v, bool))}


def _short(value) -> str:
    text = json.dumps(_plain(value))
    if isinstance(value, list) and len(text) > 80:
        distinct = list(dict.fromkeys(json.dumps(v) for v in value))
        if len(distinct) <= 4:
            return f"{len(value)} entries: " + ", ".join(f"{v} ×{sum(json.dumps(x) == v for x in value)}"
                                                         for v in distinct)
        return f"{len(value)} entries"
    return text if len(text) <= 120 else text[:117] + "..."

