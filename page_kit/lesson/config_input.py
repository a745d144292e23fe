"""Choosing a config on the config pages: a preset, or a config.json pasted or uploaded (one at a time)."""

from __future__ import annotations

import json

import streamlit as st

import posenc_core as pc
from page_kit import controls
from page_kit.lesson import literal
from page_kit.lesson.preset_words import preset_note, preset_source
from posenc_core.configs import MAX_CONFIG_BYTES

UPLOAD_MB = MAX_CONFIG_BYTES >> 20  # the uploader counts in MB; its label and the core's cap agree


# The paste box holds one character more than the cap, so a longer paste is cut to a length the core refuses
# by size, instead of being cut silently at the cap and then reported as broken JSON.
PASTE_CHARS = MAX_CONFIG_BYTES + 1


def uploaded_config_text(uploaded) -> str:
    """An uploaded config.json as canonical JSON text; the size is checked before the file is read.

    The server accepts uploads up to its one cap (the Learned page's tables), so this check is what holds a
    config upload to its own, smaller limit.
    """
    if uploaded.size > MAX_CONFIG_BYTES:
        raise ValueError(f"{uploaded.name} is {uploaded.size:,} bytes; the limit for a config.json here is "
                         f"{MAX_CONFIG_BYTES:,} bytes ({UPLOAD_MB} MB). Did you pick the weights or the "
                         "tokenizer instead?")
    return json.dumps(pc.parse_config_json(uploaded.getvalue()))


def pasted_config_text(text: str) -> str:
    """A pasted config.json as canonical JSON text (a paste that filled the box is refused by its size)."""
    if len(text) >= PASTE_CHARS:
        raise ValueError(f"The pasted text fills the box ({PASTE_CHARS - 1:,} characters or more), so it was "
                         f"probably cut; a config.json is a few kilobytes and the limit here is "
                         f"{MAX_CONFIG_BYTES:,} bytes. Did you paste the weights or the tokenizer instead?")
    return json.dumps(pc.parse_config_json(text))


def choose_config(default_preset: str, example: str, presets=None, *, stacked: bool = False
                  ) -> tuple[str | None, str]:
    """The config to read, as canonical JSON text (a cache key), and a sentence saying where it came from.

    Returns ``(None, message)`` while the user has chosen to upload but not uploaded yet. Raises
    ``ValueError`` (shown by the page's guard) for a config that cannot be parsed. ``stacked`` puts the
    source above the model, for the narrow control column beside a figure (side by side, "Source" wrapped).
    """
    presets = list(presets or pc.PRESETS)
    c1, c2 = (st.container(), st.container()) if stacked else st.columns([1, 2])
    with c1:
        # The options are shown as they are: a bound control puts the shown label in the URL, so ?src=json
        # stays a valid, stable link.
        origin = controls.choice("Source", "src", ["preset", "json"], "preset",
                                 help="preset: a well-known model kept here with its source; json: your own "
                                      "config.json, pasted or uploaded.")
    if origin == "preset":
        with c2:
            key = controls.select("Model", "model", presets, presets.index(default_preset),
                                  format_func=lambda k: pc.PRESETS[k].name)
        preset = pc.PRESETS[key]
        return json.dumps(preset.config), (
            f"**Source:** [`{preset.model_id}`](https://huggingface.co/{preset.model_id}), {preset_source(key)}. "
            f"{preset_note(key)}")
    with c2:
        how = controls.choice("Config from", "how", ["paste", "upload"], "paste",
                              help="One source at a time, so the page never silently ignores the other.")
    if how == "upload":
        uploaded = st.file_uploader(f"Upload config.json (at most {UPLOAD_MB} MB)", type=["json"], key="upload",
                                    max_upload_size=UPLOAD_MB)
        if uploaded is None:
            return None, "Upload a config.json to read it (pasted text is not used while *upload* is chosen)."
        return (uploaded_config_text(uploaded),  # the file's name is the user's text: drawn letter for letter
                f"Reading the uploaded file **{literal(uploaded.name)}** ({uploaded.size:,} bytes).")
    # Not bound to the URL: a config can be many kilobytes; share a preset link instead.
    text = st.text_area("Paste a config.json", example, height=220, key="cfg", max_chars=PASTE_CHARS)
    return pasted_config_text(text), "Reading the pasted text."
