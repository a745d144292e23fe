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
from typing import Any, Literal

from ..configs.json_bounds import check_config_tree
from .families import MMFamily, mm_family
from .rotary import MRopeSettings, mm_rope_settings

__all__ = ["ConfigRow", "MMConfigReading", "read_multimodal_config"]

# model_type (top level) -> family key; the MoE and later releases share their family's code paths
MODEL_TYPES = {
    "qwen2_vl": "qwen2_vl", "qwen2_5_vl": "qwen2_5_vl", "qwen3_vl": "qwen3_vl", "qwen3_vl_moe": "qwen3_vl",
    "qwen3_5": "qwen3_5", "qwen3_5_moe": "qwen3_5", "glm4v": "glm4v", "glm4v_moe": "glm4v", "glm46v": "glm4v",
    "ernie4_5_vl_moe": "ernie4_5_vl", "ernie4_5_vl": "ernie4_5_vl", "qwen3_omni_moe": "qwen3_omni",
}


@dataclass(frozen=True)
class ConfigRow:
    """One value of a multimodal config reading, and where it came from.

    setting: what was read: a config key ("head_dim", "rope_theta", "mrope_section", "tokens_per_second", ...),
        or "family", "allocation", "vision_head_dim" or "n_window" (the audio encoder's).
    value: the value: the family key, a number, a string, a list or a flag as read.
    origin: "file" (the key at ``path``), "model_type" (the family the file's model_type at ``path`` names),
        "ratio" (hidden width / heads at ``path``, ``detail`` = (width, heads)), "class_default" (not in the
        file: the default of the class named in ``detail``), "all_rotate" (not in the file: every dimension
        rotates), "module_default" (not in the file: the default in the rotary module code of the class named
        in ``detail``) or "code" (the family's recomposition_frequencies, its code).
    path: the dotted path in the file ("" where the value is not in it).
    detail: what the origin needs besides the path (see ``origin``).
    """

    setting: str
    value: Any
    origin: Literal["file", "model_type", "ratio", "class_default", "all_rotate", "module_default", "code"]
    path: str = ""
    detail: tuple[Any, ...] = ()


@dataclass(frozen=True)
class MMConfigReading:
    """The multimodal reading of one config.json (``read_multimodal_config``).

    family: the family key (of ``MM_FAMILIES``); settings: its rotary settings.
    rows: one ``ConfigRow`` per value read, with where it came from.
    unused: keys present in the file that these pages do not read.
    time: tokens_per_second / position_id_per_seconds / n_window overrides read from the file.
    vision: the vision tower's head_dim, when the file gives its width and heads.
    notes: codes of what the reading should say besides the rows: "interleaved_flag" (the file's interleaved
        flag is not read; the family's code always uses its own allocation).
    """

    family: str
    settings: MRopeSettings
    rows: list[ConfigRow]
    unused: list[str]
    time: dict[str, int] = field(default_factory=dict)
    vision: dict[str, int] = field(default_factory=dict)
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


def _rotary_rows(reader: _Reader, family: MMFamily) -> tuple[MRopeSettings, list[ConfigRow], list[str]]:
    """The rotary settings, a row per value saying where in the file it was found, and notes."""
    # The numbers come from the one reading every page uses (the text model's config class, its rotary module's
    # code for the M-RoPE sections and layout); this function only says where in the file each was found.
    row, class_name = _rotating_row(reader.config)
    text, text_where, params, params_where = reader.text, reader.text_where, reader.params, reader.params_where
    owner = (class_name or family.name,)
    settings = mm_rope_settings(family.key, head_dim=row.head_dim, rotary_dim=2 * row.rotated_pairs,
                                rope_theta=row.theta, mrope_section=tuple(row.mrope_section),
                                allocation=row.mrope_layout)

    def located(setting: str, value: Any, path: str | None, otherwise: ConfigRow | None = None) -> ConfigRow:
        if path is not None:
            return ConfigRow(setting, value, "file", path)
        return otherwise or ConfigRow(setting, value, "class_default", detail=owner)

    _, head_from = reader.take(text, text_where, "head_dim")
    ratio = None
    if head_from is None:
        hidden, _ = reader.take(text, text_where, "hidden_size")
        heads, _ = reader.take(text, text_where, "num_attention_heads")
        if isinstance(hidden, int) and isinstance(heads, int) and heads > 0:
            ratio = ConfigRow("head_dim", settings.head_dim, "ratio", text_where, (hidden, heads))
    fraction = settings.rotary_dim / settings.head_dim
    rows = [ConfigRow("family", family.key, "model_type", "model_type", (reader.config["model_type"],)),
            located("head_dim", settings.head_dim, head_from, ratio),
            located("rope_theta", settings.rope_theta, reader.rope_key("rope_theta")[1]),
            located("partial_rotary_factor", fraction, reader.rope_key("partial_rotary_factor")[1],
                    ConfigRow("partial_rotary_factor", fraction, "all_rotate")
                    if row.partial_rotary_factor == 1 else None),
            located("mrope_section", settings.mrope_section,
                    f"{params_where}['mrope_section']" if params.get("mrope_section") is not None else None,
                    ConfigRow("mrope_section", settings.mrope_section, "module_default", detail=owner)),
            ConfigRow("allocation", settings.allocation, "code", detail=(family.key,))]
    rows += [ConfigRow(key, params[key], "file", f"{params_where}['{key}']")
             for key in ("rope_type", "type", "interleaved", "mrope_interleaved") if key in params]
    notes = ["interleaved_flag"] if "mrope_interleaved" in params or "interleaved" in params else []
    return settings, rows, notes


def _vision_rows(reader: _Reader, family: MMFamily, rows: list[ConfigRow], time: dict[str, int]) -> dict[str, int]:
    """The vision tower's keys (and Qwen2.5-VL's tokens_per_second) into ``rows``; its head_dim returned."""
    vision: dict[str, int] = {}
    vision_config, vision_where = reader.holder.get("vision_config"), f"{reader.where}vision_config."
    if not isinstance(vision_config, Mapping):
        return vision
    if family.time_rule == "seconds":
        tps, tps_from = reader.take(vision_config, vision_where, "tokens_per_second")
        if tps is not None:
            time["tokens_per_second"] = int(tps)
            rows.append(ConfigRow("tokens_per_second", int(tps), "file", tps_from))
    for key in ("spatial_merge_size", "temporal_patch_size", "temporal_merge_size", "patch_size"):
        value, place = reader.take(vision_config, vision_where, key)
        if value is not None:
            rows.append(ConfigRow(key, value, "file", place))
    width = vision_config.get("embed_dim") or vision_config.get("hidden_size")
    heads = vision_config.get("num_heads") or vision_config.get("num_attention_heads")
    if isinstance(width, int) and isinstance(heads, int) and heads > 0:
        vision["head_dim"] = int(vision_config.get("head_dim") or width // heads)
        rows.append(ConfigRow("vision_head_dim", vision["head_dim"], "ratio", vision_where, (width, heads)))
    return vision


def _omni_time_rows(reader: _Reader, rows: list[ConfigRow], time: dict[str, int]) -> None:
    """Qwen3-Omni's position_id_per_seconds and the audio encoder's n_window into ``rows`` and ``time``."""
    pips, pips_from = reader.take(reader.holder, reader.where, "position_id_per_seconds")
    if pips is not None:
        time["position_id_per_seconds"] = int(pips)
        rows.append(ConfigRow("position_id_per_seconds", int(pips), "file", pips_from))
    audio = reader.holder.get("audio_config")
    if isinstance(audio, Mapping):
        n_window, place = reader.take(audio, f"{reader.where}audio_config.", "n_window")
        if n_window is not None:
            time["n_window"] = int(n_window)
            rows.append(ConfigRow("n_window", int(n_window), "file", place))


def read_multimodal_config(config: Mapping[str, Any]) -> MMConfigReading:
    """The multimodal rotary settings of a parsed config.json (see ``parse_config_json``)."""
    family = _family_of(config)
    reader = _Reader(config)
    settings, rows, notes = _rotary_rows(reader, family)
    time: dict[str, int] = {}
    vision = _vision_rows(reader, family, rows, time)
    if family.time_rule == "omni_seconds":
        _omni_time_rows(reader, rows, time)
    return MMConfigReading(family.key, settings, rows, reader.unused(), time, vision, notes)
