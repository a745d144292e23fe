import json

import streamlit as st

import posenc_core as pc
from lessons.todays_models import layer_questions_views as questions
from lessons.todays_models.layer_strip_views import layer_view, read, read_tab
from page_kit import classroom, controls, guard, header, literal, notice, source, stage, why
from page_kit.lesson import layer_views
from page_kit.lesson.config_input import choose_config
from page_kit.lesson.config_words import fact_sentence, layer_label, mixer_name, why_sentence
from posenc_core.configs import layer_facts, layer_scheme, normalise_config, query_scale_start

EXAMPLE = json.dumps(pc.preset_config("gpt-oss-20b"), indent=2)


header("Layer by layer: read any config",
       "One cell per layer of a real model: the top row is what it mixes tokens with, the bottom row what it "
       "does with positions. Pick a model or paste your own config.json.")
WHY = ("A model's config.json says, layer by layer, how each layer sees positions: some attend through a short "
       "sliding window with fast rotations, some see everything with slow ones, some rotate only part of each "
       "head, some use no positions at all, and some are not attention layers. Pick a model, or paste your own "
       "config: it is read through the model's own `transformers` config class, exactly as the model reads it.")


def _strip_notice(rows, groups) -> None:
    attention = [r for r in rows if r.is_attention]
    parts = [f"{len(g.layers)} × {layer_label(g.row)}" for g in groups]
    nope = sum(1 for r in attention if not r.rotates)
    notice(f"{len(rows)} layers, {len(attention)} of them attention ({nope} without positions). Settings: "
           + "; ".join(parts) + ". Hover a cell for the layer's reading; the table below lists every field and "
           "why the layer rotates or not.")


def _one_layer(config_text, row, context) -> None:
    facts = layer_facts(row)  # one fact per feature this layer uses, each with its lesson below
    st.markdown(f"**Layer {row.index}** (`{row.layer_type}`): {mixer_name(row)}. *Why:* {why_sentence(row)}.\n"
                + "".join(f"\n- {fact_sentence(fact)}" for fact in facts))
    view = layer_view(config_text, row.index, context)
    if view["pairs"] is not None:
        layer_views.pairs_figure(view["pairs"], who=f"Layer {row.index}", context=context, name="layer_pairs",
                                 trained=view["trained"], window=row.window, chunk=row.chunk)
        layer_views.theta_formula(row, view["pairs"])
        layer_views.score_figure(view["distances"], view["scores"], who=f"layer {row.index}", context=context,
                                 name="layer_score", window=row.window, chunk=row.chunk)
        classroom.snippet(*questions.config_lines(config_text),
                          f"pairs = pc.configs.layer_pairs(rows[{row.index}], {context})  # .wavelength (pairs,) "
                          "positions",
                          'distances, scores = pc.long_context.score_vs_distance(pairs.inv_freq, '
                          'pairs.attention_factor, '
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
        notice(f"{mixer_name(row)} is not attention: it carries a state (or a short convolution) from token to "
               "token in order, so it is order-aware by construction and needs no position encoding.")
    if view["scale"] is not None:
        layer_views.query_scale_figure(view["positions"], view["scale"], row, query_scale_start(row.query_scale),
                                       name="layer_query_scale")
    layer_views.lesson_links(fact.feature for fact in facts)


def _side_by_side(config_text, groups, context) -> None:
    rotating = [g for g in groups if g.row.rotates]
    if not rotating:
        notice("No layer of this model rotates, so there are no wavelengths to compare.")
        return
    views, missing = {}, []
    for group in rotating:
        try:
            views[layer_label(group.row)] = layer_view(config_text, group.row.index, context)["pairs"]
        except ValueError as error:  # one setting the core cannot compute must not hide the others
            missing.append(f"{layer_label(group.row)}: {error}")
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
                      "groups = pc.configs.layer_groups(rows)  # layers with one setting: the strip's bottom row")
    _strip_notice(rows, groups)
    st.dataframe(table, hide_index=True, height=300, width="stretch")
    layer_views.lesson_links(k for r in rows for k in layer_views.features(r))


def layer_tab(page, model) -> None:
    _one_layer(model["config_text"], model["rows"][model["index"]], model["context"])


def compare_tab(page, model) -> None:
    config_text, context = model["config_text"], model["context"]
    _side_by_side(config_text, model["groups"], context)
    classroom.snippet(*questions.config_lines(config_text),
                      f'wavelengths = {{tuple(g.layers): pc.configs.layer_pairs(g.row, {context}).wavelength',
                      '               for g in pc.configs.layer_groups(rows) if g.row.rotates}  # (pairs,) each, '
                      'positions')


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
        default = next((r.index for r in rows if r.is_attention and r.mixer == "full_attention"), 0)
        with page.side:
            index = 0 if len(rows) == 1 else controls.slider(  # a slider needs two ends
                "Layer", "layer", 0, len(rows) - 1, default, help="Pick a layer to see its own pairs, span and scores.")
        model = {"config_text": config_text, "origin": origin, "notes": notes, "read": read_rows, "ignored": ignored,
                 "context": context, "rows": rows, "groups": groups, "table": table, "index": index}
        page.walk(TABS, page, model)


lesson()
why(WHY)
source(layer_scheme, normalise_config)
