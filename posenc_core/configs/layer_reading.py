"""Reading a normalised config layer by layer: one ``LayerRow`` per layer.

The rules follow ``transformers`` 5.23's modeling files: which layers call ``apply_rotary_pos_emb``, with
which RoPE dict (``rope_parameters[layer_type]``, DeepSeek V4's ``main``/``compress`` labels), which get a
window or a chunk, which scale their queries with position, which add a sink column to the softmax.
Model-specific rules live in registries keyed by ``model_type``; everything else is read generically.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .._checks import MAX_DIM, as_base, as_float, as_int
from .layer_row import (
    ATTENTION_KINDS,
    GENERIC_KINDS,
    MIXER_FAMILIES,
    MIXER_KINDS,
    LayerRow,
    MixerCode,
    MixerFamily,
    RotationReason,
)
from .query_scale import LayerQueryScale
from .reader import ConfigReading, normalise_config
from .rotation import layer_rotates, mrope_code

__all__ = ["layer_scheme", "read_layers"]

STATE_SPACE_FAMILIES = ("granitemoehybrid", "nemotron_h")

# Encoders attend both ways. ModernBERT's config class stores half its window (sliding_window = local_attention // 2)
# and its attention module passes sliding_window + 1, so a query sees keys up to sliding_window away on each side;
# the rule turns the config's value into the row's window (the farthest distance plus one, as for causal windows).
BIDIRECTIONAL_WINDOW_RULES: dict[str, Callable[[int], int]] = {
    "modernbert": lambda half: half + 1,
}


def _layer_types(reading: ConfigReading, n_layers: int) -> list[str]:
    labels = reading.get("layer_types")
    if isinstance(labels, (list, tuple)) and labels:
        if not all(isinstance(x, str) for x in labels):
            raise ValueError("config['layer_types'] must be a list of strings such as 'full_attention'.")
        return list(labels)
    if reading.model_type == "lfm2" and reading.get("full_attn_idxs") is not None:
        full = set(reading.get("full_attn_idxs"))
        return ["full_attention" if i in full else "conv" for i in range(n_layers)]
    window = reading.get("sliding_window")
    if window and reading.get("use_sliding_window", True) and not reading.is_per_layer("sliding_window"):
        # Mistral-style: one window for every layer, no layer_types.
        return ["sliding_attention"] * n_layers
    return ["full_attention"] * n_layers


def _rope_dict(reading: ConfigReading) -> Mapping:
    if reading.obj is not None:
        params = getattr(reading.obj, "rope_parameters", None)
    else:
        params = reading.fields.get("rope_scaling") or reading.fields.get("rope_parameters")
    if params is not None and not isinstance(params, Mapping):
        raise ValueError("rope_parameters / rope_scaling must be a JSON object.")
    return params or {}


def _nested_labels(reading: ConfigReading, params: Mapping, labels: list[str]) -> list[str]:
    declared = set(labels) | set(getattr(reading.obj, "_rope_type_labels", None) or ())
    if reading.obj is None:  # generic reading: a key naming a layer type, or any '*attention' key
        return [k for k, v in params.items()
                if (v is None or isinstance(v, Mapping)) and (k in declared or k.endswith("attention"))]
    return [k for k, v in params.items() if k in declared and (v is None or isinstance(v, Mapping))]


def _generic_params(reading: ConfigReading, params: Mapping | None) -> dict | None:
    """Fill a RoPE dict the way standardize_rope_params does (used only without a config class)."""
    if params is None:
        return None
    params = dict(params)
    params.setdefault("rope_type", params.get("type", "default"))
    if params.get("rope_type") == "su":
        params["rope_type"] = "longrope"  # Phi-3's first name for LongRoPE
    base = reading.get("rope_theta", reading.get("rotary_emb_base", 10000.0))
    params.setdefault("rope_theta", base)
    partial = reading.get("partial_rotary_factor", reading.get("rotary_pct"))
    if partial is not None:
        params.setdefault("partial_rotary_factor", partial)
    if params["rope_type"] in ("llama3", "yarn", "longrope"):
        top = reading.get("original_max_position_embeddings")
        if top is not None:
            params["original_max_position_embeddings"] = top
        else:
            params.setdefault("original_max_position_embeddings", reading.get("max_position_embeddings"))
    return params


def _head_dim(reading: ConfigReading, index: int) -> int | None:
    obj = reading.obj
    if obj is not None and getattr(obj, "is_heterogeneous", False):
        try:
            value = getattr(obj.per_layer_config[index], "head_dim", None)
        except (ValueError, IndexError, KeyError, TypeError):
            value = None
        if value:
            return as_int("head_dim", value, minimum=2, maximum=MAX_DIM)
    if obj is None and reading.get("qk_rope_head_dim") is not None and reading.get("kv_lora_rank") is not None:
        # Latent attention rotates only this slice; the DeepSeek config classes set head_dim to it themselves.
        return as_int("qk_rope_head_dim", reading.get("qk_rope_head_dim"), minimum=2, maximum=MAX_DIM)
    if reading.get("head_dim"):
        return as_int("head_dim", reading.get("head_dim"), minimum=2, maximum=MAX_DIM)
    hidden, heads = reading.get("hidden_size"), reading.get("num_attention_heads")
    if hidden and heads:
        return as_int("hidden_size", hidden, minimum=1) // as_int("num_attention_heads", heads, minimum=1)
    return None


def _mrope(reading: ConfigReading, params: Mapping) -> tuple[tuple[int, ...] | None, str | None]:
    """``(mrope_section, layout)`` as the model's text rotary module takes them: the config's sections, else the
    default its code writes (``config.rope_parameters.get("mrope_section", [16, 24, 24])`` in Qwen2-VL), laid out
    as its ``recomposition_frequencies`` does (the config's interleaved flag is not read by transformers)."""
    code = mrope_code(reading.model_type) if reading.obj is not None else None
    given = params.get("mrope_section")
    section: tuple[int, ...] | None
    if isinstance(given, (list, tuple)) and given and all(isinstance(v, int) and not isinstance(v, bool)
                                                          for v in given):
        section = tuple(given)
    elif given is not None:
        raise ValueError(f"rope_parameters['mrope_section'] must be a list of 3 whole numbers of pairs (time, height, "
                         f"width), not {given!r}.")
    else:
        section = code[0] if code else None
    if section is None:
        return None, None
    if code is not None:
        return section, code[1]
    return section, "interleaved" if params.get("mrope_interleaved") else "chunked"


# DeepSeek V4 keys its RoPE dicts by role, not by layer type: sliding layers use 'main', the others 'compress'.
ROPE_LABEL_RULES: dict[str, Callable[[str], str]] = {
    "deepseek_v4": lambda layer_type: "main" if layer_type == "sliding_attention" else "compress",
}


def _sink(reading: ConfigReading, layer_type: str) -> bool:
    model_type = reading.model_type
    if model_type in ("gpt_oss", "deepseek_v4"):
        return True
    if model_type == "mimo_v2_flash":
        return layer_type == "sliding_attention"
    return False


def _query_scale(reading: ConfigReading, rotates: bool, params: Mapping | None) -> LayerQueryScale | None:
    if reading.model_type == "llama4_text" and reading.get("attn_temperature_tuning") and not rotates:
        return LayerQueryScale.of({"rule": "llama4_temperature", "floor_scale": reading.get("floor_scale", 8192),
                                  "attn_scale": reading.get("attn_scale", 0.1)})
    if params and params.get("llama_4_scaling_beta") is not None and \
            reading.model_type in ("ministral3", "mistral4"):
        return LayerQueryScale.of({"rule": "llama4_beta", "beta": params["llama_4_scaling_beta"],
                                  "original": params.get("original_max_position_embeddings")})
    return None


def _layer_count(reading: ConfigReading, default_layers: int | None) -> int:
    n_layers = reading.get("num_hidden_layers")
    labels_given = reading.get("layer_types")
    if isinstance(labels_given, (list, tuple)) and labels_given and (
            n_layers is None or reading.model_type == "nemotron_h"):
        n_layers = len(labels_given)  # Nemotron-H ignores num_hidden_layers when it lists its blocks
    if n_layers is None:
        n_layers = default_layers
    if n_layers is None:
        raise ValueError("The config has neither num_hidden_layers nor layer_types, so its layers are unknown.")
    return as_int("num_hidden_layers", n_layers, minimum=1, maximum=1024)


def _mixer(model_type: str | None, layer_type: str) -> tuple[MixerCode, MixerFamily | None]:
    """``(mixer kind, the family whose layer it is)`` of a layer-type label (None: the kind says it all)."""
    mixer: MixerCode = MIXER_KINDS.get(layer_type, "full_attention" if "attention" in layer_type else "other")
    if mixer == "linear_attention" and model_type in STATE_SPACE_FAMILIES:
        mixer = "state_space"
    return mixer, None if mixer in GENERIC_KINDS else MIXER_FAMILIES.get(model_type or "")


def _span(reading: ConfigReading, index: int, mixer: MixerCode) -> tuple[int | None, int | None]:
    """``(window, chunk)`` of one layer: None where it sees the whole prompt."""
    model_type = reading.model_type
    window = chunk = None
    if mixer == "sliding_window" or (model_type == "deepseek_v4" and mixer == "full_attention"):
        window = reading.layer_get("sliding_window", index) or None  # 0 means unused (Qwen2-MoE's default)
        if window is not None and model_type in BIDIRECTIONAL_WINDOW_RULES:
            window = BIDIRECTIONAL_WINDOW_RULES[model_type](as_int("sliding_window", window, minimum=1))
    if mixer == "chunked_attention":
        chunk = reading.get("attention_chunk_size")
    return (None if window is None else as_int("sliding_window", window, minimum=1),
            None if chunk is None else as_int("attention_chunk_size", chunk, minimum=1))


def _layer_rope(reading: ConfigReading, params: Mapping, nested: list[str], index: int,
                layer_type: str) -> tuple[str | None, bool, tuple[RotationReason, ...], dict]:
    """``(rope label, rotates, reasons, RoPE dict)`` of one attention layer."""
    if nested:
        label = ROPE_LABEL_RULES.get(reading.model_type or "", lambda t: t)(layer_type)
        layer_params = params.get(label) if label in params else None
        default = ((True, RotationReason("rope_parameters_entry", label)) if layer_params is not None else
                   (False, RotationReason("rope_parameters_null" if label in params else "rope_parameters_missing",
                                          label)))
    else:
        label = None
        # Without a class, a config with no RoPE dict still rotates with transformers' defaults (base 10,000).
        layer_params = params if params or reading.obj is None else None
        default = (True, RotationReason("one_setting")) if layer_params is not None else \
            (False, RotationReason("no_settings"))
    rotates, why = layer_rotates(reading, index, layer_type, default)
    if reading.obj is None:
        layer_params = _generic_params(reading, layer_params)
    layer_params = dict(layer_params or {})
    top = reading.get("original_max_position_embeddings")
    if label is None and top is not None and layer_params.get("rope_type") in ("llama3", "yarn", "longrope"):
        # standardize_rope_params, which the rotary module runs before its init function, lets the
        # top-level value win over the one inside a flat rope_parameters / rope_scaling
        layer_params["original_max_position_embeddings"] = top
    if rotates and not layer_params:
        rotates, why = False, (*why, RotationReason("no_settings_given"))
    return label, rotates, why, layer_params


def _scaling(model_type: str | None, layer_params: Mapping) -> dict:
    """The layer's RoPE dict without rope_theta and the partial factor."""
    scaling = {k: v for k, v in layer_params.items() if k not in ("rope_theta", "partial_rotary_factor")}
    if str(model_type or "").startswith("hunyuan") and scaling.get("rope_type", scaling.get("type")) == "dynamic" \
            and scaling.get("alpha"):
        # Hunyuan's configs say "dynamic", but its rotary module switches to a fixed NTK-alpha on ``alpha``.
        scaling = {**{k: v for k, v in scaling.items() if k != "type"}, "rope_type": "ntk_alpha"}
    return scaling


def _attention_row(reading: ConfigReading, params: Mapping, nested: list[str], index: int, layer_type: str,
                   mixer: MixerCode, family: MixerFamily | None) -> LayerRow:
    label, rotates, why, layer_params = _layer_rope(reading, params, nested, index, layer_type)
    window, chunk = _span(reading, index, mixer)
    theta = layer_params.get("rope_theta")
    partial = layer_params.get("partial_rotary_factor", 1.0)
    scaling = _scaling(reading.model_type, layer_params)
    section, layout = _mrope(reading, layer_params)
    latent = reading.layer_get("kv_lora_rank", index) is not None
    return LayerRow(
        index, layer_type, mixer, family, window=window, chunk=chunk, rotates=rotates, reasons=why, rope_label=label,
        rope_type=scaling.get("rope_type", "default") if rotates else None,
        theta=as_base(theta) if rotates and theta is not None else None,
        partial_rotary_factor=as_float("partial_rotary_factor", 1.0 if partial is None else partial, above=0.0,
                                       maximum=1.0),
        head_dim=_head_dim(reading, index), scaling=scaling if rotates else {},
        query_scale=_query_scale(reading, rotates, layer_params), sink=_sink(reading, layer_type), latent=latent,
        mrope=bool(rotates and section), mrope_section=section if rotates else None,
        mrope_layout=layout if rotates and section else None,
        max_position_embeddings=reading.get("max_position_embeddings"),
        qk_nope_head_dim=reading.layer_get("qk_nope_head_dim", index) if latent else None,
        bidirectional=reading.model_type in BIDIRECTIONAL_WINDOW_RULES)


def layer_scheme(reading: ConfigReading, *, default_layers: int | None = None) -> list[LayerRow]:
    """One ``LayerRow`` per layer of the (text) model described by ``reading``.

    ``default_layers`` is used when the config gives neither num_hidden_layers nor layer_types (a
    RoPE-only snippet); without it such a config is refused.
    """
    n_layers = _layer_count(reading, default_layers)
    labels = _layer_types(reading, n_layers)
    if len(labels) != n_layers:
        raise ValueError(f"config['layer_types'] lists {len(labels)} layers but num_hidden_layers is {n_layers}.")
    params = _rope_dict(reading)
    nested = _nested_labels(reading, params, labels)
    rows = []
    for index, layer_type in enumerate(labels):
        mixer, family = _mixer(reading.model_type, layer_type)
        if mixer in ATTENTION_KINDS:
            rows.append(_attention_row(reading, params, nested, index, layer_type, mixer, family))
        else:
            rows.append(LayerRow(index, layer_type, mixer, family, reasons=(RotationReason("not_attention"),),
                                 max_position_embeddings=reading.get("max_position_embeddings")))
    return rows


def read_layers(config: Mapping) -> tuple[ConfigReading, list[LayerRow]]:
    """A config dict read through its class, and one row per layer: what the pages call for a paste.

    >>> reading, rows = pc.read_layers(pc.preset_config('llama2-7b'))
    >>> len(rows), all(row.rotates for row in rows)
    (32, True)
    """
    reading = normalise_config(config)
    return reading, layer_scheme(reading)
