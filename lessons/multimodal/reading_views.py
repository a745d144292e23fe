"""What a multimodal config reading says, in words: each value read and where it came from, the reading's notes,
and the caption of a preset (lessons/multimodal/words.py holds the sentences)."""

from __future__ import annotations

import streamlit as st

from page_kit.lesson import preset_words
from posenc_core.multimodal import MM_FAMILIES, MULTIMODAL_PRESETS, ConfigRow, MMConfigReading

# the setting column's name for the settings the reading names by a code
SETTING_NAMES = {"vision_head_dim": "vision head_dim", "n_window": "n_window (audio)"}
PLAIN = ("head_dim", "tokens_per_second", "vision_head_dim", "position_id_per_seconds", "n_window")


def preset_caption(key: str) -> str:
    """Where a preset's values come from, and its note."""
    preset = MULTIMODAL_PRESETS[key]
    link = f"[`{preset.model_id}`](https://huggingface.co/{preset.model_id})"
    return f"Values from {link} {preset_words.preset_source(key)}. {preset_words.preset_note(key)}"


def _section_words(value, s) -> str:
    axes = "(height, width, time)" if s.allocation == "ernie3d" else "(time, height, width)"
    return f"{list(value)} pairs {axes}"


# setting -> the value column's words, from (value, the reading's settings); a setting not listed shows its repr
VALUE_WORDS = {
    **dict.fromkeys(PLAIN, lambda value, s: f"{value}"),
    "family": lambda value, s: MM_FAMILIES[value].name,
    "rope_theta": lambda value, s: f"{value:,.6g}",
    "partial_rotary_factor": lambda value, s: (f"{value:g}: {s.rotary_dim} of {s.head_dim} dimensions rotate "
                                               f"({s.n_pairs} pairs)"),
    "mrope_section": _section_words,
    "allocation": lambda value, s: str(value),
}
# origin code -> the "read from" column's words, from the row: a place in the file, or why the value is not in it
ORIGIN_WORDS = {
    "model_type": lambda row: f"model_type = {row.detail[0]!r}",
    "ratio": lambda row: (f"{row.path}hidden_size / num_attention_heads = {row.detail[0]} / {row.detail[1]}"
                          if row.setting == "head_dim"
                          else f"{row.path}: width {row.detail[0]} / {row.detail[1]} heads"),
    "class_default": lambda row: f"not in the file: {row.detail[0]}'s default",
    "all_rotate": lambda row: "not in the file: all dimensions rotate",
    "module_default": lambda row: f"not in the file: the default in {row.detail[0]}'s rotary module code",
    "code": lambda row: f"{MM_FAMILIES[row.detail[0]].name}'s recomposition_frequencies (its code)",
}


def row_value(row: ConfigRow, reading: MMConfigReading) -> str:
    """The value column of one row, as the reading shows it."""
    words = VALUE_WORDS.get(row.setting)
    return words(row.value, reading.settings) if words else repr(row.value)


def row_origin(row: ConfigRow) -> str:
    """The "read from" column of one row: a place in the file, or why the value is not in it."""
    words = ORIGIN_WORDS.get(row.origin)
    return words(row) if words else row.path


def note_text(note: str, reading: MMConfigReading) -> str:
    """A reading's note (a code) in words."""
    name = MM_FAMILIES[reading.family].name
    return {"interleaved_flag": f"The file's interleaved flag is not read by transformers 5.23: {name}'s code "
                                f"always uses the {reading.settings.allocation} allocation."}[note]


def show_reading(reading: MMConfigReading) -> None:
    """What was read from a pasted config, where from, and which keys these pages do not use."""
    with st.expander("What was read from your config.json", icon=":material/data_object:", expanded=True):
        st.dataframe({"setting": [SETTING_NAMES.get(r.setting, r.setting) for r in reading.rows],
                      "value": [row_value(r, reading) for r in reading.rows],
                      "read from": [row_origin(r) for r in reading.rows]}, hide_index=True, width="stretch")
        for note in reading.notes:
            st.caption(note_text(note, reading))
        if reading.unused:
            st.caption("Not used by these pages: " + ", ".join(f"`{k}`" for k in reading.unused[:40])
                       + (f" and {len(reading.unused) - 40} more." if len(reading.unused) > 40 else "."))
