import streamlit as st

from lessons.encoders import words
from page_kit import classroom, controls, figures, formula, guard, header, notice, show, source, stage, why
from page_kit.lesson.config_words import fact_sentence, layer_table
from posenc_core.encoders import (
    MODERNBERT_PRESETS,
    ModernBertReading,
    modernbert_attention_cost,
    modernbert_cost_curve,
    modernbert_frequencies,
    modernbert_keys_seen,
    modernbert_masks,
    modernbert_pairs,
    modernbert_reading,
)

PRESET_NAMES = {key: spec.name for key, spec in MODERNBERT_PRESETS.items()}
PRESET_KEYS = {name: key for key, name in PRESET_NAMES.items()}  # the URL holds the model's name, as Layer by layer
KIND_LABELS = {"global": "global layers (full attention)", "local": "local layers (sliding window)"}


@st.cache_data(max_entries=4, show_spinner=False)
def pairs(preset: str):
    return modernbert_pairs(preset)


@st.cache_data(max_entries=16, show_spinner=False)
def masks(n: int, preset: str):
    return modernbert_masks(n, preset)


@st.cache_data(max_entries=16, show_spinner=False)
def costs(preset: str, longest: int):
    return modernbert_cost_curve(preset, longest)


header("ModernBERT: local and global layers",
       "An encoder that reads 8,192 tokens: every third layer attends to everything and rotates slowly (θ 160,000), "
       "the others see 64 tokens on each side and rotate fast (θ 10,000).")
WHY = ("ModernBERT (Warner et al., 2024) brought the decoders' recipe back to encoders: RoPE instead of a learned "
       "position table, and alternating attention. Its global layers must tell apart keys up to 8,191 tokens away "
       "on either side, so they use a large base: slow pairs that do not wrap around over the context. Its local "
       "layers only ever compare tokens at most 64 apart, so the usual base 10,000 is enough and their slowest "
       "pairs barely move inside the window: they carry content. Unlike a decoder, every layer looks both ways: "
       "there is no causal mask, so a local window is 64 keys before *and* 64 after, and the rotation has to "
       "tell a key 5 tokens ahead from one 5 behind (RoPE's angle has a sign; a learned table or T5's buckets "
       "need separate entries for each side). Because only one layer in three is global, reading 8,192 tokens "
       "costs far less than 8,192² scores per layer: that is what makes long-document retrieval and reranking "
       "affordable with an encoder.")


def pairs_tab(preset: str, reading: ModernBertReading) -> None:
    g_row, l_row = reading.layers["global"], reading.layers["local"]
    view = pairs(preset)
    reach, context = l_row.window - 1, reading.context
    show(figures.lines(
        view["global"].layer.pair, {KIND_LABELS[k]: view[k].layer.wavelength for k in KIND_LABELS}, log_y=True,
        title=f"{PRESET_NAMES[preset]}: pair wavelengths by layer kind", x_title="pair index",
        y_title="wavelength (tokens)", name="modernbert_wavelengths", markers=True,
        hlines=[(reach, f"local reach {reach}"), (context, f"context {context:,}")],
        alt=f"Wavelength per pair on a log axis for the global layers (θ {g_row.theta:,.0f}) and the "
            f"local layers (θ {l_row.theta:,.0f}), against the local reach of {reach} tokens and the "
            f"context of {context:,}."))
    classroom.snippet(f"freqs = {classroom.call('modernbert_frequencies', preset)}  # bit for bit the rotary module's",
                      f"view = {classroom.call('modernbert_pairs', preset)}",
                      "view['global'].layer.wavelength, view['local'].layer.wavelength  # (32,) each: the two curves")
    g, loc = view["global"].counts, view["local"].counts
    notice(f"Local layers: {loc['in_span']} of {view['local'].pairs} pairs turn at least once "
           f"within the {reach} tokens they see on each side; the other {view['local'].under_a_turn} turn less "
           "than once there and read mostly "
           f"content. Global layers: {g['in_context']} pairs turn within the {context:,}-token context and "
           f"{g['never']} never complete a turn, so far keys stay distinguishable without wrapping.")
    formula(r"\theta_k = $b^{-2k/$d}\ \text{(global)},\qquad \theta_k = $l^{-2k/$d}\ \text{(local)}",
            b=int(g_row.theta), l=int(l_row.theta), d=g_row.head_dim)


def masks_tab(page, preset: str, reading: ModernBertReading) -> None:
    l_row = reading.layers["local"]
    with page.side:
        n = controls.slider("Tokens in the mask", "n", 64, 512, 256, step=32)
    m = masks(n, preset)
    mid = n // 2

    def reveal() -> str:
        seen = modernbert_keys_seen(n, mid, preset)
        return (f"{seen}: {l_row.window - 1} keys on each side and itself (row {mid} of the right map). "
                f"The config says local_attention {seen - 1} and transformers stores sliding_window "
                f"{l_row.window - 1}: both count the window without the token, and it reaches both ways.")

    with classroom.predict("mb_window", "ModernBERT's config says local_attention: 128. How many keys does a token in "
                           "the middle of a long input see in a local layer?",
                           ["64", "128", "129", "all of them"], 2, reveal):
        show(figures.small_multiples(
            [m["global"].astype(float), m["local"].astype(float)], [KIND_LABELS["global"], KIND_LABELS["local"]],
            cols=2, cell_px=300, title=f"Which keys each query sees, {n} tokens", value_name="sees", signed=False,
            name="modernbert_masks",
            alt=f"Two {n} x {n} masks: the global layer sees every key; the local layer a band of "
                f"{l_row.window - 1} keys on each side of the diagonal."))
        classroom.snippet(f"m = {classroom.call('modernbert_masks', n, preset)}  # m['global'], m['local']: (n, n)")
    notice("No causal mask in either kind: the band is symmetric. transformers' code passes sliding_window + 1 to "
           "its attention function because flash attention counts the window's ends inclusively; the mask it "
           "builds on the CPU keeps |i − j| ≤ sliding_window.")


def cost_tab(page, preset: str, reading: ModernBertReading) -> None:
    with page.side:
        longest = controls.select_slider("Reading length", "len", [512, 1024, 2048, 4096, 8192], 8192)
    c = costs(preset, longest)
    share = float(c.share[-1])

    def reveal() -> str:
        cost = modernbert_attention_cost(longest, preset)
        return (f"About {share:.0%}: {cost.global_layers} global layers compute {longest:,}² scores each, the "
                f"other {cost.local_layers} only {cost.local_per_layer:,} each "
                f"({cost.local_per_token:.0f} per token instead of {longest:,}).")

    with classroom.predict("mb_cost", f"Reading {longest:,} tokens, how many attention scores does "
                           f"{PRESET_NAMES[preset]} compute, compared with full attention in every layer?",
                           ["the same: an encoder attends to everything", f"about {share:.0%}",
                            "half, as a causal decoder"], 1, reveal):
        show(figures.lines(c.tokens, {"full attention in every layer": c.all_global,
                                         PRESET_NAMES[preset]: c.modernbert, "causal decoder, full": c.causal},
                           log_x=True, log_y=True, markers=True, title="Query-key scores per forward pass",
                           x_title="tokens read", y_title="scores (all layers)", name="modernbert_cost",
                           alt=f"Scores against length on log axes: at {longest:,} tokens {PRESET_NAMES[preset]} "
                               f"computes {share:.0%} of what full attention in every layer would."))
        classroom.snippet(f"c = {classroom.call('modernbert_cost_curve', preset, longest)}",
                          "c.tokens, c.all_global, c.modernbert, c.causal")


def layers_tab(preset: str, reading: ModernBertReading) -> None:
    table = layer_table(reading.rows)
    show(figures.category_strip(table["layer"], {"mixer": table["mixer"], "sees": table["sees"],
                                                 "θ": table["θ"]},
                                title=f"{PRESET_NAMES[preset]}, layer by layer", x_title="layer",
                                name="modernbert_layers",
                                alt=f"{len(table['layer'])} layers: {reading.pattern} (G global, L local)."))
    st.caption(f"Read from {words.modernbert_source(reading)}, as Layer by layer reads it. Facts: "
               + "; ".join(fact_sentence(f) for kind in ("global", "local") for f in reading.facts[kind]) + ".")


@st.fragment
def lesson():
    page = stage(more_label=None)
    with page.side:
        preset = PRESET_KEYS[controls.select("Model", "model", list(PRESET_KEYS))]
    tabs = page.sections(["Pairs by layer kind", "Who sees whom", "Reading 8,192 tokens", "Layer pattern"])
    with guard():
        reading = modernbert_reading(preset)
        views = (lambda: pairs_tab(preset, reading), lambda: masks_tab(page, preset, reading),
                 lambda: cost_tab(page, preset, reading), lambda: layers_tab(preset, reading))
        for tab, view in zip(tabs, views, strict=True):
            if tab.open:
                with tab:
                    view()


lesson()
why(WHY)
source(modernbert_reading, modernbert_frequencies, modernbert_masks, modernbert_attention_cost)
