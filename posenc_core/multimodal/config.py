"""Reading the multimodal fields of a vision-language config.json: which family, its rotary split, its vision tower.

The text model's settings sit in ``text_config`` (Qwen3-VL, Qwen3.5, GLM-4V, ERNIE), in
``thinker_config.text_config`` (Qwen3-Omni) or at the top level (Qwen2-VL, Qwen2.5-VL); the rotary block
is ``rope_parameters`` (transformers 5) or ``rope_scaling`` (older files). Every key that was read is
listed with where it came from; every other key is listed as not used here. Nothing raises for an
unknown key; a config of no known family gets one ValueError sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..configs.json_bounds import check_config_tree
from .families import mm_family
from .rotary import MRopeSettings, mm_rope_settings

__all__ = ["MMConfigReading", "read_multimodal_config"]

# model_type (top level) -> family key; the MoE and later releases share their family's code paths
MODEL_TYPES = {
    "qwen2_vl": "qwen2_vl", "qwen2_5_vl": "qwen2_5_vl", "qwen3_vl": "qwen3_vl", "qwen3_vl_moe": "qwen3_vl",
    "qwen3_5": "qwen3_5", "qwen3_5_moe": "qwen3_5", "glm4v": "glm4v", "glm4v_moe": "glm4v", "glm46v": "glm4v",
    "ernie4_5_vl_moe": "ernie4_5_vl", "ernie4_5_vl": "ernie4_5_vl", "qwen3_omni_moe": "qwen3_omni",
}


@dataclass
class MMConfigReading:
    family: str
    settings: MRopeSettings
    rows: list[tuple[str, str, str]]  # (setting, value, where it came from)
    unused: list[str]  # keys present in the file that these pages do not read
    time: dict = field(default_factory=dict)  # tokens_per_second / position_id_per_seconds / n_window overrides
    vision: dict = field(default_factory=dict)  # the vision tower's head_dim and rope theta
    notes: list[str] = field(default_factory=list)


def _section(config: Mapping, key: str) -> Mapping:
    value = config.get(key)
    return value if isinstance(value, Mapping) else {}


def _rotating_row(config: Mapping):
    """The first rotating layer of the one reading (``read_layers``) and the class that read it."""
    from ..configs.layers import read_layers  # the config reader imports transformers lazily too

    reading, rows = read_layers(config)
    row = next((r for r in rows if r.rotates and r.mrope_section), None)
    if row is None:
        raise ValueError(f"{reading.class_name or 'The reading'} finds no layer that rotates with multimodal RoPE "
                         "sections in this config, so there is no time / height / width split to show.")
    return row, reading.class_name


def read_multimodal_config(config) -> MMConfigReading:
    """The multimodal rotary settings of a parsed config.json (see ``parse_config_json``)."""
    if not isinstance(config, Mapping):
        raise ValueError(f"A model config must be a JSON object, but got {type(config).__name__}.")
    check_config_tree(config)  # depth, size and numbers, before anything below reads them
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or model_type not in MODEL_TYPES:  # a list is not hashable
        known = ", ".join(sorted(MODEL_TYPES))
        raise ValueError(f"model_type {model_type!r} is not one of the vision-language families these pages know "
                         f"({known}). For a text-only model use the 'Model presets and config.json' page.")
    family = mm_family(MODEL_TYPES[model_type])
    read: set[str] = {"model_type"}  # dotted paths of every key this reader used

    def take(source: Mapping, place: str, key: str):
        """(value, 'place.key') if the key is present and not null, else (None, None)."""
        if isinstance(source.get(key), (int, float, str, list, bool)):
            read.add(place + key)
            return source[key], place + key
        return None, None

    # Qwen3-Omni: the language model is the thinker's; the others keep it in text_config or at the top
    holder, where = (config["thinker_config"], "thinker_config.") if isinstance(config.get("thinker_config"),
                                                                                 Mapping) else (config, "")
    text, text_where = (holder["text_config"], f"{where}text_config.") if isinstance(holder.get("text_config"),
                                                                                      Mapping) else (holder, where)
    params, params_where = {}, ""
    for name in ("rope_parameters", "rope_scaling"):
        for source, place in ((text, text_where), (config, "")):
            if not params and isinstance(source.get(name), Mapping):
                params, params_where = source[name], f"{place}{name}"
                read.add(params_where)

    def rope_key(key: str):  # rope_parameters wins over a loose key, as in transformers' standardisation
        if params.get(key) is not None:
            return params[key], f"{params_where}['{key}']"
        value, place = take(text, text_where, key)
        return (value, place) if value is not None else take(config, "", key)

    # The numbers come from the one reading every page uses (the text model's config class, its rotary module's
    # code for the M-RoPE sections and layout); this function only says where in the file each was found.
    row, class_name = _rotating_row(config)
    default = f"not in the file: {class_name or family.name}'s default"
    head_dim = row.head_dim
    _, head_from = take(text, text_where, "head_dim")
    if head_from is None:
        hidden, _ = take(text, text_where, "hidden_size")
        heads, _ = take(text, text_where, "num_attention_heads")
        head_from = (f"{text_where}hidden_size / num_attention_heads = {hidden} / {heads}"
                     if isinstance(hidden, int) and isinstance(heads, int) and heads > 0 else default)
    theta = row.theta
    theta_from = rope_key("rope_theta")[1] or default
    factor_from = rope_key("partial_rotary_factor")[1] or (
        "not in the file: all dimensions rotate" if row.partial_rotary_factor == 1 else default)
    section = row.mrope_section
    section_from = f"{params_where}['mrope_section']" if params.get("mrope_section") is not None else \
        f"not in the file: the default in {class_name or family.name}'s rotary module code"
    settings = mm_rope_settings(family.key, head_dim=head_dim, rotary_dim=2 * row.rotated_pairs, rope_theta=theta,
                                mrope_section=tuple(section), allocation=row.mrope_layout)
    axes = "(height, width, time)" if settings.allocation == "ernie3d" else "(time, height, width)"
    rows = [("family", family.name, f"model_type = {model_type!r}"),
            ("head_dim", f"{settings.head_dim}", head_from),
            ("rope_theta", f"{settings.rope_theta:,.6g}", theta_from),
            ("partial_rotary_factor", f"{settings.rotary_dim / settings.head_dim:g}: {settings.rotary_dim} of "
                                      f"{settings.head_dim} dimensions rotate ({settings.n_pairs} pairs)", factor_from),
            ("mrope_section", f"{list(settings.mrope_section)} pairs {axes}", section_from),
            ("allocation", settings.allocation, f"{family.name}'s recomposition_frequencies (its code)")]
    for key in ("rope_type", "type", "interleaved", "mrope_interleaved"):
        if key in params:
            rows.append((key, repr(params[key]), f"{params_where}['{key}']"))
    notes = []
    if "mrope_interleaved" in params or "interleaved" in params:
        notes.append(f"The file's interleaved flag is not read by transformers 5.23: {family.name}'s code always uses "
                     f"the {settings.allocation} allocation.")

    time, vision = {}, {}
    vision_config, vision_where = (holder.get("vision_config"), f"{where}vision_config.")
    if isinstance(vision_config, Mapping):
        if family.time_rule == "seconds":
            tps, tps_from = take(vision_config, vision_where, "tokens_per_second")
            if tps is not None:
                time["tokens_per_second"] = int(tps)
                rows.append(("tokens_per_second", f"{int(tps)}", tps_from))
        for key in ("spatial_merge_size", "temporal_patch_size", "temporal_merge_size", "patch_size"):
            value, place = take(vision_config, vision_where, key)
            if value is not None:
                rows.append((key, repr(value), place))
        width = vision_config.get("embed_dim") or vision_config.get("hidden_size")
        heads = vision_config.get("num_heads") or vision_config.get("num_attention_heads")
        if isinstance(width, int) and isinstance(heads, int) and heads > 0:
            vision["head_dim"] = int(vision_config.get("head_dim") or width // heads)
            rows.append(("vision head_dim", f"{vision['head_dim']}", f"{vision_where}: width {width} / {heads} heads"))
    if family.time_rule == "omni_seconds":
        pips, pips_from = take(holder, where, "position_id_per_seconds")
        if pips is not None:
            time["position_id_per_seconds"] = int(pips)
            rows.append(("position_id_per_seconds", f"{int(pips)}", pips_from))
        audio = holder.get("audio_config")
        if isinstance(audio, Mapping):
            n_window, place = take(audio, f"{where}audio_config.", "n_window")
            if n_window is not None:
                time["n_window"] = int(n_window)
                rows.append(("n_window (audio)", f"{int(n_window)}", place))
    unused = sorted(f"{place}{key}" for place, source in {"": config, text_where: text}.items()
                    for key, value in source.items()
                    if not isinstance(value, Mapping) and f"{place}{key}" not in read)
    return MMConfigReading(family.key, settings, rows, unused, time, vision, notes)
