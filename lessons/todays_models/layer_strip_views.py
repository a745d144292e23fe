"""Layer by layer's reading of a config: the cached reading, one layer's arrays, and the "What was read" tab."""

from __future__ import annotations

import json

import numpy as np
import streamlit as st

import posenc_core as pc
from page_kit import notice
from page_kit.lesson.config_words import FIELD_MEANINGS, ignored_why, layer_table, reading_notes
from posenc_core.configs import layer_contexts, layer_groups, layer_pairs, model_contexts, query_scale
from posenc_core.long_context import score_vs_distance


@st.cache_data(max_entries=32, show_spinner="Reading the config through its transformers config class…")
def read(config_text: str):
    """The config read through its class, one row per layer (cache key: canonical JSON text)."""
    reading, rows = pc.read_layers(json.loads(config_text))
    groups = layer_groups(rows)
    try:
        original, target, _ = model_contexts(rows)  # the same L and L′ as Model presets states
    except ValueError:  # a scaling whose target length the config leaves open: draw against the declared one
        original, target = reading.get("max_position_embeddings") or 4096, None
    read_rows = [(key, value, FIELD_MEANINGS.get(key, "")) for key, value in reading.read]
    ignored = [(key, ignored_why(reading, reason)) for key, reason in reading.ignored]
    return (reading.class_name, reading_notes(reading), read_rows, ignored, target or original, rows, groups,
            layer_table(rows))


@st.cache_data(max_entries=64, show_spinner=False)
def layer_view(config_text: str, index: int, context: int):
    """One layer's pairs, its score against distance and its query scale (arrays for the figures)."""
    rows = read(config_text)[5]
    row = rows[index]
    out = dict.fromkeys(("pairs", "ends", "distances", "scores", "positions", "scale", "trained"))
    if row.rotates:
        pairs = out["pairs"] = layer_pairs(row, context)
        out["distances"], out["scores"] = score_vs_distance(pairs.inv_freq, pairs.attention_factor,
                                                               min(2 * context, pc.MAX_POSITIONS * 64))
        # the score at distance 0 and at exactly the context, for the sentence under the figure
        _, out["ends"] = score_vs_distance(pairs.inv_freq, pairs.attention_factor, context,
                                              n_points=3)  # distances 0, 1, context
        out["trained"] = layer_contexts(row).original
    if row.query_scale:
        out["positions"] = np.unique(np.round(np.geomspace(1, 8 * context, 600))).astype(np.int64)
        out["scale"] = query_scale(row.query_scale, out["positions"])
    return out


def read_tab(page, model) -> None:
    st.markdown(model["origin"])
    for note in model["notes"]:
        st.markdown(f"- {note}")
    read_rows, ignored = model["read"], model["ignored"]
    st.dataframe({"field": [r[0] for r in read_rows], "value": [r[1] for r in read_rows],
                  "what it sets": [r[2] for r in read_rows]}, hide_index=True, width="stretch")
    if ignored:
        st.markdown("**Not used for positions**")
        st.dataframe({"field": [r[0] for r in ignored], "why": [r[1] for r in ignored]}, hide_index=True,
                     width="stretch")
    notice("Every field the reading uses is listed with what it sets; every other field is listed with the reason "
           "it is not used. A field the model's class does not know is never an error: the model's code would "
           "ignore it too.")
