import contextlib
import json

import streamlit as st

import posenc_core as pc
from lessons.long_context import extension_views
from page_kit import classroom, controls, formula, guard, header, notice, source, stage, why
from page_kit.lesson import layer_views
from page_kit.lesson.config_input import choose_config
from page_kit.lesson.config_words import FEATURE_LINKS, fact_sentence, feature_sentence, how_words, setting_table
from posenc_core.configs import config_contexts, config_features, config_view, rope_layer_types

EXAMPLE = json.dumps(pc.preset_config("llama3.1-8b"), indent=2)
# The classic single-setting RoPE models first; every other preset is on the layer-by-layer page too.
PRESET_ORDER = list(pc.PRESETS)


@st.cache_data(max_entries=32, show_spinner="Reading the config through its transformers config class…")
def analyse(config_text: str, layer: str | None):
    """Everything the page draws for one config (given as canonical JSON text, so the cache key is a string)."""
    view = config_view(json.loads(config_text), layer)
    return (view.read, setting_table(view.rows, view.read.rope_type), how_words(view.how), view.original,
            view.target, view.pairs, view.distances, view.before, view.after, view.softmax_scale,
            [(fact.feature, fact_sentence(fact)) for fact in view.facts], view.layer,
            [(FEATURE_LINKS[f.code], feature_sentence(f)) for f in config_features(json.loads(config_text))])


@st.cache_data(max_entries=32, show_spinner=False)
def layer_types(config_text: str) -> list[str]:
    """The config's layer types with RoPE settings of their own (empty: one setting for every layer)."""
    return rope_layer_types(json.loads(config_text))


def config_lines(config_text: str, layer: str | None) -> list[str]:
    """The snippet's first lines: the preset by name when the text is one, else the JSON itself."""
    preset = next((k for k, p in pc.PRESETS.items() if json.dumps(p.config) == config_text), None)
    load = ([f"config = pc.preset_config({preset!r})"] if preset is not None else
            ["import json", f"config = json.loads({config_text!r})"])
    return [*load, f"view = pc.configs.config_view(config, {layer!r})"]


def ask_trained_length(config_text: str, layer: str | None, read, original: int,
                       how: str) -> contextlib.AbstractContextManager:
    """A what-if on a common misconception (max_position_embeddings is the training length): double the declared
    value; does L follow? The answer is the reading of the changed config, so it holds for every preset and paste."""
    declared = read.max_position_embeddings
    if declared is None:  # nothing to double; the caption says how L was chosen
        return contextlib.nullcontext()
    try:
        doubled = analyse(json.dumps(json.loads(config_text) | {"max_position_embeddings": 2 * declared}), layer)[3]
    except ValueError:  # the doubled value is past what the reading accepts: no question
        return contextlib.nullcontext()
    answer = 0 if doubled == original else 1 if doubled == 2 * original else 2

    def reveal() -> str:
        return (f"With max_position_embeddings = {2 * declared:,}, L = {doubled:,}; as the config stands, "
                f"L = {original:,}. How L is chosen here: {how}.")

    return classroom.predict("cfg_trained", f"This config declares max_position_embeddings = {declared:,}. Double it "
                             f"to {2 * declared:,}: what happens to the context L its rotation was trained for?",
                             ["L stays the same", "L doubles too", "L changes by another factor"], answer, reveal)


header("Model presets and config.json",
       "Everything on the previous pages, for a real model: pick a preset or paste any config.json, and see what "
       "its own transformers config class reads.")
WHY = ("Everything on the previous pages, for a real model. Pick a well-known model, whose RoPE settings are "
       "kept here with the config file they come from, or paste or upload any config.json: the page reads it "
       "through the model's own transformers config class, shows what it read, and draws the pair-by-pair picture.")


@st.fragment
def lesson():
    page = stage()
    with guard(), page.side:  # the chooser beside the figures; each tab writes into its own container
        config_text, origin = choose_config("llama3.1-8b", EXAMPLE, PRESET_ORDER, stacked=True)
        st.markdown(origin)
        if config_text is None:
            return
        layer = None
        layers = layer_types(config_text)
        if layers:
            default = layers.index("full_attention") if "full_attention" in layers else 0
            layer = controls.select("Layer type", "layer", layers, default,
                                    help="This config gives each kind of layer its own RoPE settings.")
        read, rows, how, original, target, result, distances, before, after, softmax, facts, index, features = \
            analyse(config_text, layer)
        label = read.rope_type
        tab_read, tab_pairs, tab_angle, tab_score = page.sections(
            ["What was read", "Per pair", "Angles reached", "Score vs distance"])
        if tab_read.open:
            with tab_read:
                st.dataframe({"setting": [r[0] for r in rows], "value": [r[1] for r in rows],
                              "read from": [r[2] for r in rows]}, hide_index=True, width="stretch")
                _features(features, read)
                with ask_trained_length(config_text, layer, read, original, how):
                    _read_numbers(read, how, original, target, result, softmax)
                    st.markdown(f"**Layer {index}, as Layer by layer reads it:**"  # one sentence per feature it uses
                                + "".join(f"\n- {sentence}" for _, sentence in facts))
                    layer_views.lesson_links(key for key, _ in facts)
                    classroom.snippet(*config_lines(config_text, layer),
                                      "read = view.read  # head_dim, base, rope_type, scaling, as the config "
                                      "class reads them",
                                      "print(view.original, view.target, view.how)  # L, L′ (None: no "
                                      "scaling)")
        if target is None:
            _unscaled(tab_pairs, tab_angle, tab_score, result, distances, before, original,
                      config_lines(config_text, layer))
            return
        if tab_pairs.open:
            with tab_pairs:
                extension_views.wavelengths(result, name="cfg_wavelengths", label=label)
                classroom.snippet(*config_lines(config_text, layer),
                                  "pairs = view.pairs  # ExtensionAnalysis: (pairs,) arrays, L to L′, per rotary pair",
                                  "print(pairs.wavelength_before, pairs.wavelength_after, pairs.ratio)")
                extension_views.ratio(result, name="cfg_ratio", label=label)
                extension_views.factor_table(result)
        if tab_angle.open:
            with tab_angle:
                extension_views.angles(result, name="cfg_angles", label=label)
                classroom.snippet(*config_lines(config_text, layer),
                                  "pairs = view.pairs  # angles in rad, (pairs,) each",
                                  "print(pairs.angle_train, pairs.angle_target, pairs.out_of_distribution)")
        if tab_score.open:
            with tab_score:
                extension_views.score(distances, before, after, result, name="cfg_score", label=label)
                classroom.snippet(*config_lines(config_text, layer),
                                  "print(view.distances, view.before, view.after)  # (n,): score by "
                                  "distance, unscaled and scaled")


def _features(features: list[tuple[str, str]], read) -> None:
    """The model's position features by name, read from all its layers and its config (``config_features``)."""
    st.markdown("**Position features of this model:**" + ("".join(f"\n- {sentence}" for _, sentence in features)
                if features else f" plain RoPE (θ {read.base:,.6g}) on every attention layer, nothing else."))
    layer_views.lesson_links(key for key, _ in features)


def _read_numbers(read, how: str, original: int, target: int | None, result, softmax: float) -> None:
    """L, L′ and the factors the reading gives, what to notice, and the frequencies' formula."""
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("L (trained)", f"{original:,}")
    if target is None:
        m2.metric("L′ (target)", "none", help="No scaling: the config does not extend its context.")
        m3.metric("Attention factor a", "1")
    else:
        m2.metric("L′ (target)", f"{target:,}", f"× {result.factor:g}")
        m3.metric("Attention factor a", f"{result.attention_factor:.4f}")
    m4.metric("Softmax scale × (DeepSeek)", f"{softmax:.4f}")
    st.caption(f"How L and L′ were chosen: {how}.")
    notice("These are the values the model's rotary code uses: head_dim, the base, the scaling type and "
           "its parameters, and how much of each head rotates, after the model's config class has "
           "filled in its defaults and translated legacy names (rotary_pct, rotary_emb_base, type, "
           "Phi-3's 'su', latent attention's qk_rope_head_dim).")
    formula(r"\theta_i = $b^{-2i/$r},\quad i = 0,\dots,$n", b=read.base, r=read.rotary_dim, n=read.rotary_dim // 2 - 1)
    info = layer_views.registry.page("layer_strip")
    if info is not None:
        st.page_link(info.path, label="Read this config layer by layer", icon=info.icon)


def _unscaled(tab_pairs, tab_angle, tab_score, pairs, distances, scores, original, lines) -> None:
    """A config without scaling: its pairs against L, and one score curve (there is no L′ to compare)."""
    if tab_pairs.open:
        with tab_pairs:
            layer_views.pairs_figure(pairs, who="No scaling", context=original, name="cfg_pairs")
            classroom.snippet(*lines, "pairs = view.pairs  # LayerPairs: (pairs,) arrays against L",
                              "print(pairs.inv_freq, pairs.wavelength)")
    if tab_angle.open:
        with tab_angle:
            notice(f"This config has no RoPE scaling: it runs its rotation unchanged up to L = {original:,} "
                   "positions, so there is no target length and nothing leaves its training range here. The "
                   "Extending RoPE's context page shows what running past L would do.")
    if tab_score.open:
        with tab_score:
            layer_views.score_figure(distances, scores, who="no scaling", context=original, name="cfg_score")
            classroom.snippet(*lines, "print(view.distances, view.before)  # (n,): score by distance")


lesson()
why(WHY)
source(pc.read_rope_config, config_contexts, pc.parse_config_json)
