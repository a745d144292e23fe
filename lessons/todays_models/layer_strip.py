import json

import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.todays_models import layer_questions_views as questions
from lessons.todays_models import layer_views
from page_kit import classroom, controls, guard, header, literal, notice, source, stage, why
from page_kit.controls.config_input import choose_config
from posenc_core.configs import (
    layer_contexts,
    layer_facts,
    layer_groups,
    layer_pairs,
    layer_scheme,
    layer_table,
    model_contexts,
    normalise_config,
    query_scale,
    query_scale_start,
)
from posenc_core.long_context import score_vs_distance

EXAMPLE = json.dumps(pc.preset_config("gpt-oss-20b"), indent=2)


@st.cache_data(max_entries=32, show_spinner="Reading the config through its transformers config class…")
def read(config_text: str):
    """The config read through its class, one row per layer (cache key: canonical JSON text)."""
    reading, rows = pc.read_layers(json.loads(config_text))
    groups = layer_groups(rows)
    try:
        original, target, _ = model_contexts(rows)  # the same L and L′ as Model presets states
    except ValueError:  # a scaling whose target length the config leaves open: draw against the declared one
        original, target = reading.get("max_position_embeddings") or 4096, None
    return (reading.class_name, reading.notes, reading.read, reading.ignored, target or original,
            rows, groups, layer_table(rows))


@st.cache_data(max_entries=64, show_spinner=False)
def layer_view(config_text: str, index: int, context: int):
    """One layer's pairs, its score against distance and its query scale (arrays for the figures)."""
    rows = read(config_text)[5]
    row = rows[index]
    out = dict.fromkeys(("pairs", "ends", "distances", "scores", "positions", "scale", "trained"))
    if row.rotates:
        out["pairs"] = layer_pairs(row, context)
        out["distances"], out["scores"] = score_vs_distance(out["pairs"]["inv_freq"],
                                                               out["pairs"]["attention_factor"],
                                                               min(2 * context, pc.MAX_POSITIONS * 64))
        # the score at distance 0 and at exactly the context, for the sentence under the figure
        _, out["ends"] = score_vs_distance(out["pairs"]["inv_freq"], out["pairs"]["attention_factor"], context,
                                              n_points=3)  # distances 0, 1, context
        out["trained"] = layer_contexts(row)[0]
    if row.query_scale:
        out["positions"] = np.unique(np.round(np.geomspace(1, 8 * context, 600))).astype(np.int64)
        out["scale"] = query_scale(row.query_scale, out["positions"])
    return out


header("Layer by layer: read any config",
       "One cell per layer of a real model: the top row is what it mixes tokens with, the bottom row what it "
       "does with positions. Pick a model or paste your own config.json.")
WHY = ("A model's config.json says, layer by layer, how each layer sees positions: some attend through a short "
       "sliding window with fast rotations, some see everything with slow ones, some rotate only part of each "
       "head, some use no positions at all, and some are not attention layers. Pick a model, or paste your own "
       "config: it is read through the model's own `transformers` config class, exactly as the model reads it.")


def _one_layer(config_text, row, context) -> None:
    facts = layer_facts(row)  # one sentence per feature this layer uses, each with its lesson below
    st.markdown(f"**Layer {row.index}** (`{row.layer_type}`): {row.mixer_name}. *Why:* {row.why}.\n"
                + "".join(f"\n- {sentence}" for _, sentence in facts))
    view = layer_view(config_text, row.index, context)
    if view["pairs"] is not None:
        layer_views.pairs_figure(view["pairs"], who=f"Layer {row.index}", context=context, name="layer_pairs",
                                 trained=view["trained"], window=row.window, chunk=row.chunk)
        layer_views.theta_formula(row, view["pairs"])
        layer_views.score_figure(view["distances"], view["scores"], who=f"layer {row.index}", context=context,
                                 name="layer_score", window=row.window, chunk=row.chunk)
        classroom.snippet(*questions.config_lines(config_text),
                          f"pairs = pc.configs.layer_pairs(rows[{row.index}], {context})  # \"wavelength\" (pairs,) "
                          "positions",
                          'distances, scores = pc.long_context.score_vs_distance(pairs["inv_freq"], '
                          'pairs["attention_factor"], '
                          f'{min(2 * context, pc.MAX_POSITIONS * 64)})  # the score curve above')
        near, far = float(view["ends"][0]), float(view["ends"][-1])
        notice(f"A key identical to the query scores {near:.3f} at distance 0 and {far:.3f} at distance {context:,}. "
               + (f"This layer never compares tokens more than {row.window or row.chunk:,} apart, so only the left "
                  "part of the curve is ever used." if row.window or row.chunk else
                  "This layer compares tokens across the whole context."))
    elif row.is_attention:
        notice("This layer adds no rotation: its score between two tokens is the same wherever they sit. It "
               "still knows order through the causal mask, and through what earlier layers wrote into each token.")
    else:
        notice(f"{row.mixer_name} is not attention: it carries a state (or a short convolution) from token to "
               "token in order, so it is order-aware by construction and needs no position encoding.")
    if view["scale"] is not None:
        layer_views.query_scale_figure(view["positions"], view["scale"], row, query_scale_start(row.query_scale),
                                       name="layer_query_scale")
    layer_views.lesson_links(key for key, _ in facts)


def _side_by_side(config_text, groups, context) -> None:
    rotating = [g for g in groups if g["row"].rotates]
    if not rotating:
        notice("No layer of this model rotates, so there are no wavelengths to compare.")
        return
    views, missing = {}, []
    for group in rotating:
        try:
            views[group["label"]] = layer_view(config_text, group["row"].index, context)["pairs"]
        except ValueError as error:  # one setting the core cannot compute must not hide the others
            missing.append(f"{group['label']}: {error}")
    if views:
        layer_views.compare_figure(views, context=context, name="layer_compare")
    for line in missing:
        st.warning(literal(line), icon=":material/info:")  # it quotes the pasted config


def strip_tab(page, model) -> None:
    rows, groups, table, config_text = model["rows"], model["groups"], model["table"], model["config_text"]
    layer_views.strip(rows, groups, table, name="layer_strip",
                      title=f"{len(rows)} layers: what each mixes with, and what it does with positions",
                      picks=("layer", "view", "One layer") if len(rows) > 1 else None)  # click a layer
    st.markdown(model["origin"])
    questions.ask_longer_prompt(rows, model["context"])  # about the strip's top row, after it: a what-if
    classroom.snippet(*questions.config_lines(config_text),
                      "labels = [pc.configs.layer_label(r) for r in rows]  # (layers,) the strip's bottom row")
    questions.strip_notice(rows, groups)
    st.dataframe(table, hide_index=True, height=300, width="stretch")
    layer_views.lesson_links(k for r in rows for k in layer_views.features(r))


def layer_tab(page, model) -> None:
    _one_layer(model["config_text"], model["rows"][model["index"]], model["context"])


def compare_tab(page, model) -> None:
    config_text, context = model["config_text"], model["context"]
    _side_by_side(config_text, model["groups"], context)
    classroom.snippet(*questions.config_lines(config_text),
                      f'wavelengths = {{g["label"]: pc.configs.layer_pairs(g["row"], {context})["wavelength"]',
                      '               for g in pc.configs.layer_groups(rows) if g["row"].rotates}  # (pairs,) each, '
                      'positions')


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


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Layer strip", strip_tab),
    ("One layer", layer_tab),
    ("Settings side by side", compare_tab),
    ("What was read", read_tab),
]


@st.fragment
def lesson():
    page = stage()
    with page.main, guard():  # an error shows in the figure column, where the figure would be
        with page.side:  # the model (or the pasted config) and the layer: the strip's own controls
            config_text, origin = choose_config("gemma3-27b", EXAMPLE)
        if config_text is None:
            st.markdown(origin)
            return
        class_name, notes, read_rows, ignored, context, rows, groups, table = read(config_text)
        default = next((r.index for r in rows if r.is_attention and r.mixer == "full attention"), 0)
        with page.side:
            index = 0 if len(rows) == 1 else controls.slider(  # a slider needs two ends
                "Layer", "layer", 0, len(rows) - 1, default, help="Pick a layer to see its own pairs, span and scores.")
        model = {"config_text": config_text, "origin": origin, "notes": notes, "read": read_rows, "ignored": ignored,
                 "context": context, "rows": rows, "groups": groups, "table": table, "index": index}
        page.walk(TABS, page, model)


lesson()
why(WHY)
source(layer_scheme, normalise_config)
