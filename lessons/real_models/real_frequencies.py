import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.real_models.real_views import attention_summary, layer_head_map, summary_code
from page_kit import classroom, controls, figures, formula, guard, header, notice, show, source, stage, why

real = pc.real_models
PAIR_COLOURS = {"queries": 0, "keys": 1, "even spread": 7}

header("Which rotary pairs SmolLM2 uses",
       "A real model reading real text: how much of each head's query and key sits in each rotary pair, from the "
       "fastest to the slowest?")
WHY = (
    "SmolLM2-135M rotates each 64-number query and key as 32 pairs, pair i turning by θᵢ = 100000^(−2i/64) per "
    "position: pair 0 every 6.3 tokens, pair 31 once in 438,000. The RoPE pages treat every pair alike. Here the "
    "real model runs on real text, and we measure how much of each head's query and key sits in each pair, "
    "whether its scores follow the offset between tokens, and how much it attends to the first token."
)


def energy_tab(page, summary: dict, found: dict):
    waves = summary.wavelengths
    series = {"queries": found.q_pairs, "keys": found.k_pairs,
              "even spread": np.full(waves.shape, found.uniform_pair)}
    show(figures.lines(waves, series, title="Query and key energy per rotary pair (all layers and heads)",
                       x_title="pair wavelength 2π/θᵢ (tokens, log scale)", y_title="share of energy", log_x=True,
                       name="real_pair_energy", markers=True, dashed=["even spread"], colours=PAIR_COLOURS,
                       legend_right=True,
                       vlines=[(real.SMOLLM2_CONTEXT, "context 8,192")], hover_format=".4f",
                       alt="Share of energy per rotary pair against the pair's wavelength: low for the fast pairs, "
                           f"a peak at pair {found.peak_pair} ({found.peak_wavelength:,.0f} tokens), past the "
                           f"context length; an even spread gives {found.uniform_pair:.4f} per pair."))
    energy_numbers(summary, found)
    with page.side:
        layer = controls.slider("Layer (per-head view)", "layer", 1, summary.q_share.shape[0], 1)
    view = real.layer_findings(summary, layer, found.context)
    low, high = view.slow_band

    def layer_share() -> str:
        return (f"Layer {layer}'s {found.slow_pairs} slowest pairs hold {100 * view.q_slow:.0f}% of its query "
                f"energy, against {100 * view.all_q_slow:.0f}% over all layers; its largest single share is "
                f"{view.largest_share:.3f} (the brightest cell below).")

    with classroom.predict("real_freq_layer", f"Over all layers the {found.slow_pairs} slowest pairs hold "
                           f"{100 * view.all_q_slow:.0f}% of the query energy. Layer {layer} alone: what part "
                           "of its query energy sits in those pairs?",
                           [f"more than {100 * high:.0f}%", f"{100 * low:.0f}% to {100 * high:.0f}%, about the same",
                            f"less than {100 * low:.0f}%"], view.slow_side, layer_share):
        layer_numbers(summary, view)
    source(real.attention_stats, real.layer_findings)


def energy_numbers(summary: dict, found: dict):
    """What the hero curve says, in numbers: the code of the curves, the sums, the formula."""
    classroom.snippet(summary_code(), f"found = pc.real_models.attention_findings(summary, {found.context})",
                      "# (32,) each: the share of energy in each pair, and each pair's wavelength (the x axis)",
                      "queries, keys = found.q_pairs, found.k_pairs", "waves = summary.wavelengths")
    notice(f"An even spread would give each pair {found.uniform_pair:.4f}. Measured, the {found.slow_pairs} "
           f"slowest pairs, whose wavelength is longer than the whole {found.context:,}-token context, hold "
           f"{100 * found.q_slow:.0f}% of the query energy and {100 * found.k_slow:.0f}% of the key energy; "
           f"the {found.fast_pairs} fastest (wavelength up to {found.fast_wavelength:.0f} tokens) hold "
           f"{100 * found.q_fast:.0f}% and {100 * found.k_fast:.0f}%. The peak is pair "
           f"{found.peak_pair} (one turn per {found.peak_wavelength:,.0f} tokens). A common misconception is "
           "that RoPE's pairs share the work evenly: this model keeps most of its query and key in pairs that turn "
           "less than once across its whole context, so within it they change little with position.")
    formula(r"\text{share}_i = \frac{\mathbb{E}_t\,[q_{t,i}^2 + q_{t,i+32}^2]}{\mathbb{E}_t\,\lVert q_t\rVert^2}")
    formula(r"\theta_i = 100000^{-2i/64},\quad \sum_{\lambda_i > 8192}\text{share}_i = $s", s=found.q_slow)


def layer_numbers(summary: dict, view: dict):
    """One layer's heads, pair by pair: what answers the layer question."""
    layer, grid = view.layer, view.q_share  # (9, 32)
    show(figures.heatmap(grid, title=f"Layer {layer}: each query head's energy per pair", x_title="rotary pair i",
                         y_title="query head", value_name="share", x=np.arange(grid.shape[1]),
                         y=np.arange(1, grid.shape[0] + 1), name="real_pair_heads", height=330,
                         alt=f"Share of energy per rotary pair for the 9 query heads of layer {layer}; the largest "
                             f"share is {view.largest_share:.3f}."))
    classroom.snippet(summary_code(), f"view = pc.real_models.layer_findings(summary, {layer})",
                      "grid = view.q_share  # (9 query heads, 32 pairs)",
                      "print(view.q_slow, view.all_q_slow)  # this layer's slow share, and all layers'")
    formula(r"\sum_{\lambda_i > 8192}\overline{\text{share}}^{(l)}_i = $s\quad(l = $l)", s=view.q_slow, l=layer)
    formula(r"\text{all layers: } $a", a=view.all_q_slow)


def relative_tab(page, summary: dict, found: dict):
    r2 = summary.relative_r2
    layer_head_map(r2, "How much of each head's score the offset m − n explains (R²)", "R²", "real_relative_r2",
                   f"R squared of each head's scores against the offset, {r2.shape[0]} layers by {r2.shape[1]} "
                   f"heads; {found.r2_high} heads above 0.5, {found.r2_low} below 0.1.")
    classroom.snippet(summary_code(), "# (30 layers, 9 heads): R² of each head's scores against the offset",
                      "r2 = summary.relative_r2")
    best, worst = found.r2_best, found.r2_worst
    notice(f"With one fixed q and k, RoPE's score depends on m − n alone (R² = 1: the Toeplitz grid of the RoPE "
           f"pages). Real queries and keys change with every token, so the offset explains only part: "
           f"{found.r2_high} of {found.heads} heads have R² above 0.5, {found.r2_low} below 0.1. The most "
           f"relative head is layer {best[0]} head {best[1]} (R² = {best[2]:.2f}); the least, layer {worst[0]} "
           f"head {worst[1]} (R² = {worst[2]:.3f}), scores by content almost regardless of distance.")
    with page.side:
        layer = controls.slider("Layer", "rl", 1, r2.shape[0], best[0])
        head = controls.slider("Head", "rh", 1, r2.shape[1], best[1])
    offsets = np.arange(summary.mean_score.shape[-1])
    value = float(r2[layer - 1, head - 1])
    show(figures.lines(offsets, {"mean q·k at this offset": summary.mean_score[layer - 1, head - 1]},
                       title=f"Layer {layer}, head {head}: mean raw score by offset (R² = {value:.2f})",
                       x_title="offset m − n (tokens)", y_title="mean q·k", name="real_relative_head",
                       alt=f"Mean score of layer {layer}, head {head} at each offset from 0 to {offsets[-1]} "
                           f"(R² = {value:.2f})."))
    formula(r"R^2 = \frac{\sum_r N_r(\bar s_r - \bar s)^2}{\sum_{m\ge n}(s_{mn}-\bar s)^2},\quad "
            r"\bar s_r = \text{mean score at offset } r")
    formula(r"R^2 = $v", v=value)


def sink_tab(page, summary: dict, found: dict):
    sink = summary.sink
    layer_head_map(sink, "Mean attention on the first token, queries from 32 on", "weight", "real_sink",
                   f"Mean attention weight on the first token for each of {sink.shape[0]} layers and "
                   f"{sink.shape[1]} heads; the first two layers give it {found.sink_first_layers:.3f}, "
                   f"the last ten {found.sink_last_layers:.3f}.")
    classroom.snippet(summary_code(), "# (30 layers, 9 heads): mean weight on the first token",
                      "sink = summary.sink")
    with page.side:
        pick = controls.slider("Layer (per-head view)", "sl", 1, sink.shape[0], found.sink_top[0])
    view = real.layer_findings(summary, pick, found.context)
    heads = np.arange(1, sink.shape[1] + 1)
    show(figures.bars(heads, {"first token": view.sink, "uniform": np.full(sink.shape[1], found.sink_uniform)},
                      title=f"Layer {pick}: each head's mean weight on the first token", x_title="head",
                      y_title="mean weight", name="real_sink_layer",
                      alt=f"Mean weight on the first token for the 9 heads of layer {pick}, from "
                          f"{view.sink_min:.3f} to {view.sink_max:.3f}, next to uniform "
                          f"({found.sink_uniform:.4f})."))
    layer, head, value = found.sink_top
    notice(f"Spread evenly, a query at position 32 or later would give the first token {found.sink_uniform:.4f} "
           f"on average. The first two layers give it {found.sink_first_layers:.3f}; the last ten give it "
           f"{found.sink_last_layers:.3f}, and in {found.sink_layers} layers it takes more than half of all "
           f"attention. Layer {layer} head {head} puts {value:.2f} there. Here the first token is whatever word "
           "the stretch happens to start with: no special token is added. A common "
           "explanation: softmax weights must sum to one, so a head with nothing to add parks its weight "
           "somewhere, and the first token, seen by every query, is where training put it.")
    formula(r"\text{sink}(l,h) = \frac{1}{n-32}\sum_{m=32}^{n-1} A^{(l,h)}_{m,0}")
    formula(r"\max = $v,\quad \text{even: } $u", v=value, u=found.sink_uniform)
    source(real.summarise_stats, real.attention_findings)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Energy per rotary pair", energy_tab),
    ("Relative or not", relative_tab),
    ("The attention sink", sink_tab),
]


@st.fragment
def lesson():
    page = stage()
    with guard():
        with page.side:
            summary, where = attention_summary()
            st.caption(where)
        found = real.attention_findings(summary, real.SMOLLM2_CONTEXT)
        page.walk(TABS, page, summary, found)


lesson()
why(WHY)
