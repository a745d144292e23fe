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
from typing import Any

from ..configs.json_bounds import check_config_tree
from .families import MMFamily, mm_family
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
    from ..configs.layer_reading import read_layers  # the config reader imports transformers lazily too

    reading, rows = read_layers(config)
    row = next((r for r in rows if r.rotates and r.mrope_section), None)
    if row is None:
        raise ValueError(f"{reading.class_name or 'The reading'} finds no layer that rotates with multimodal RoPE "
                         "sections in this config, so there is no time / height / width split to show.")
    return row, reading.class_name


class _Reader:
    """Where each value of one config.json sits: the text model's block, its rotary block, and the keys read."""

    def __init__(self, config: Mapping):
        self.config = config
        self.read: set[str] = {"model_type"}  # dotted paths of every key this reader used
        # Qwen3-Omni: the language model is the thinker's; the others keep it in text_config or at the top
        thinker = config.get("thinker_config")
        self.holder, self.where = (thinker, "thinker_config.") if isinstance(thinker, Mapping) else (config, "")
        text = self.holder.get("text_config")
        self.text, self.text_where = ((text, f"{self.where}text_config.") if isinstance(text, Mapping)
                                      else (self.holder, self.where))
        self.params: Mapping = {}
        self.params_where = ""
        for name in ("rope_parameters", "rope_scaling"):
            for source, place in ((self.text, self.text_where), (config, "")):
                if not self.params and isinstance(source.get(name), Mapping):
                    self.params, self.params_where = source[name], f"{place}{name}"
                    self.read.add(self.params_where)

    def take(self, source: Mapping, place: str, key: str):
        """(value, 'place.key') if the key is present and not null, else (None, None)."""
        if isinstance(source.get(key), (int, float, str, list, bool)):
            self.read.add(place + key)
            return source[key], place + key
        return None, None

    def rope_key(self, key: str):
        """A rotary key: rope_parameters wins over a loose key, as in transformers' standardisation."""
        if self.params.get(key) is not None:
            return self.params[key], f"{self.params_where}['{key}']"
        value, place = self.take(self.text, self.text_where, key)
        return (value, place) if value is not None else self.take(self.config, "", key)

    def unused(self) -> list[str]:
        return sorted(f"{place}{key}" for place, source in {"": self.config, self.text_where: self.text}.items()
                      for key, value in source.items()
                      if not isinstance(value, Mapping) and f"{place}{key}" not in self.read)


def _family_of(config) -> MMFamily:
    if not isinstance(config, Mapping):
        raise ValueError(f"A model config must be a JSON object, but got {type(config).__name__}.")
    check_config_tree(config)  # depth, size and numbers, before anything below reads them
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or model_type not in MODEL_TYPES:  # a list is not hashable
        known = ", ".join(sorted(MODEL_TYPES))
        raise ValueError(f"model_type {model_type!r} is not one of the vision-language families these pages know "
                         f"({known}). For a text-only model use the 'Model presets and config.json' page.")
    return mm_family(MODEL_TYPES[model_type])


def _rotary_rows(reader: _Reader, family: MMFamily) -> tuple[MRopeSettings, list, list[str]]:
    """The rotary settings, a row per value saying where in the file it was found, and notes."""
    # The numbers come from the one reading every page uses (the text model's config class, its rotary module's
    # code for the M-RoPE sections and layout); this function only says where in the file each was found.
    row, class_name = _rotating_row(reader.config)
    text, text_where, params, params_where = reader.text, reader.text_where, reader.params, reader.params_where
    default = f"not in the file: {class_name or family.name}'s default"
    _, head_from = reader.take(text, text_where, "head_dim")
    if head_from is None:
        hidden, _ = reader.take(text, text_where, "hidden_size")
        heads, _ = reader.take(text, text_where, "num_attention_heads")
        head_from = (f"{text_where}hidden_size / num_attention_heads = {hidden} / {heads}"
                     if isinstance(hidden, int) and isinstance(heads, int) and heads > 0 else default)
    theta_from = reader.rope_key("rope_theta")[1] or default
    factor_from = reader.rope_key("partial_rotary_factor")[1] or (
        "not in the file: all dimensions rotate" if row.partial_rotary_factor == 1 else default)
    section_from = f"{params_where}['mrope_section']" if params.get("mrope_section") is not None else \
        f"not in the file: the default in {class_name or family.name}'s rotary module code"
    settings = mm_rope_settings(family.key, head_dim=row.head_dim, rotary_dim=2 * row.rotated_pairs,
                                rope_theta=row.theta, mrope_section=tuple(row.mrope_section),
                                allocation=row.mrope_layout)
    axes = "(height, width, time)" if settings.allocation == "ernie3d" else "(time, height, width)"
    rows = [("family", family.name, f"model_type = {reader.config['model_type']!r}"),
            ("head_dim", f"{settings.head_dim}", head_from),
            ("rope_theta", f"{settings.rope_theta:,.6g}", theta_from),
            ("partial_rotary_factor", f"{settings.rotary_dim / settings.head_dim:g}: {settings.rotary_dim} of "
                                      f"{settings.head_dim} dimensions rotate ({settings.n_pairs} pairs)", factor_from),
            ("mrope_section", f"{list(settings.mrope_section)} pairs {axes}", section_from),
            ("allocation", settings.allocation, f"{family.name}'s recomposition_frequencies (its code)")]
    rows += [(key, repr(params[key]), f"{params_where}['{key}']")
             for key in ("rope_type", "type", "interleaved", "mrope_interleaved") if key in params]
    notes = []
    if "mrope_interleaved" in params or "interleaved" in params:
        notes.append(f"The file's interleaved flag is not read by transformers 5.23: {family.name}'s code always uses "
                     f"the {settings.allocation} allocation.")
    return settings, rows, notes


def _vision_rows(reader: _Reader, family: MMFamily, rows: list, time: dict) -> dict:
    """The vision tower's keys (and Qwen2.5-VL's tokens_per_second) into ``rows``; its head_dim returned."""
    vision: dict[str, Any] = {}
    vision_config, vision_where = reader.holder.get("vision_config"), f"{reader.where}vision_config."
    if not isinstance(vision_config, Mapping):
        return vision
    if family.time_rule == "seconds":
        tps, tps_from = reader.take(vision_config, vision_where, "tokens_per_second")
        if tps is not None:
            time["tokens_per_second"] = int(tps)
            rows.append(("tokens_per_second", f"{int(tps)}", tps_from))
    for key in ("spatial_merge_size", "temporal_patch_size", "temporal_merge_size", "patch_size"):
        value, place = reader.take(vision_config, vision_where, key)
        if value is not None:
            rows.append((key, repr(value), place))
    width = vision_config.get("embed_dim") or vision_config.get("hidden_size")
    heads = vision_config.get("num_heads") or vision_config.get("num_attention_heads")
    if isinstance(width, int) and isinstance(heads, int) and heads > 0:
        vision["head_dim"] = int(vision_config.get("head_dim") or width // heads)
        rows.append(("vision head_dim", f"{vision['head_dim']}", f"{vision_where}: width {width} / {heads} heads"))
    return vision


def _omni_time_rows(reader: _Reader, rows: list, time: dict) -> None:
    """Qwen3-Omni's position_id_per_seconds and the audio encoder's n_window into ``rows`` and ``time``."""
    pips, pips_from = reader.take(reader.holder, reader.where, "position_id_per_seconds")
    if pips is not None:
        time["position_id_per_seconds"] = int(pips)
        rows.append(("position_id_per_seconds", f"{int(pips)}", pips_from))
    audio = reader.holder.get("audio_config")
    if isinstance(audio, Mapping):
        n_window, place = reader.take(audio, f"{reader.where}audio_config.", "n_window")
        if n_window is not None:
            time["n_window"] = int(n_window)
            rows.append(("n_window (audio)", f"{int(n_window)}", place))


def read_multimodal_config(config: Mapping[str, Any]) -> MMConfigReading:
    """The multimodal rotary settings of a parsed config.json (see ``parse_config_json``)."""
    family = _family_of(config)
    reader = _Reader(config)
    settings, rows, notes = _rotary_rows(reader, family)
    time: dict = {}
    vision = _vision_rows(reader, family, rows, time)
    if family.time_rule == "omni_seconds":
        _omni_time_rows(reader, rows, time)
    return MMConfigReading(family.key, settings, rows, reader.unused(), time, vision, notes)
