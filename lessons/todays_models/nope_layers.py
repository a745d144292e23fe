import numpy as np
import streamlit as st

import posenc_core as pc
from page_kit import (
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    notice,
    sections,
    see_also,
    show,
    source,
    todays_class,
)

RULES = list(pc.QUERY_SCALE_RULES)
LABELS = {rule: pc.QUERY_SCALE_RULES[rule][1] for rule in RULES}
# a two-colour map for a yes/no grid: orange = no positions (0), blue = RoPE (1)
TWO_COLOURS = [[0.0, figures.CATEGORICAL[1]], [0.5, figures.CATEGORICAL[1]], [0.5, figures.CATEGORICAL[0]],
               [1.0, figures.CATEGORICAL[0]]]
CONTEXTS = [65_536, 131_072, 262_144, 1_048_576, 4_194_304, 10_485_760]  # the last: Llama 4 Scout's 10M



@st.cache_data(max_entries=8, show_spinner=False)
def layer_map(n_layers: int):
    return pc.nope_layer_map(n_layers)


@st.cache_data(max_entries=32, show_spinner=False)
def rule_curves(context: int, scale: float, llama_period: int, mistral_period: int):
    # every integer position is too many to draw (the kit draws at most 1,200 points): a log grid plus the stairs
    grid = pc.query_scale_positions(context, (llama_period, mistral_period))
    return grid, {LABELS["llama4"]: pc.llama4_attn_temperature(grid, scale, llama_period),
                  LABELS["llama_4_scaling_beta"]: pc.llama_4_scaling_beta(grid, scale, mistral_period)}


@st.cache_data(max_entries=32, show_spinner=False)
def entropy(rule: str, context: int, scale: float, period: int, margin: float, spread: float):
    return pc.temperature_entropy(rule, pc.temperature_positions(context), scale=scale, period=period,
                                  spread=spread, margin=margin)


header(
    "Layers without positions, and query temperature",
    "Several 2025 models leave some attention layers without any position encoding (NoPE): Llama 4 and "
    "SmolLM3 skip RoPE in every fourth layer, Cohere2 and EXAONE 4 rotate only in their sliding-window layers. "
    "A NoPE layer matches content anywhere in the context, but with more and more keys its softmax spreads "
    "thin. Llama 4 answers with a query temperature that grows with the log of the position; Ministral 3 and "
    "Mistral Small 4 put a similar factor on every layer. Both rules below are transformers' code, constants "
    "included."
)


@st.fragment
def lesson():
    tab_map, tab_rule, tab_entropy = sections(["Which layers rotate", "The two temperature rules",
                                               "Entropy far away"])
    with guard():
        if tab_map.open:
            with tab_map:
                shown = controls.slider("Layers shown", "layers", 8, 64, 48,
                                        help="The first layers of each model; blank cells are past its last layer.")
                names, grid = layer_map(shown)
                _, whole = layer_map(64)  # every model's full depth, whatever is shown
                todays_class.ask_scout(names, whole)
                show(figures.padded(figures.heatmap(
                    grid, x=np.arange(grid.shape[1]), y=names, title="RoPE (1) or no positions (0), layer by layer",
                    x_title="layer", y_title="", value_name="rotates", zrange=(0.0, 1.0), height=320,
                    hover_format=".0f", colorscale=TWO_COLOURS, name="nope_layer_map",
                    alt="One row per model, one cell per layer: rotated layers in one colour, NoPE layers in "
                        "the other, blank past a model's last layer."), left=130))
                classroom.snippet(f"names, grid = {classroom.call('nope_layer_map', shown)}",
                                  f"# grid ({len(names)}, {shown}): 1 = RoPE, 0 = no positions, NaN past the last "
                                  "layer")
                counts = {name: (int(np.nansum(row == 0)), int(np.count_nonzero(np.isfinite(row))))
                          for name, row in zip(names, whole, strict=True)}
                st.dataframe([{"model": name, "NoPE layers": f"{counts[name][0]} of {counts[name][1]}",
                               "the rule": pc.NOPE_LAYER_MODELS[name][1]} for name in names], hide_index=True)
                notice(f"Llama 4 Scout leaves {counts['Llama 4 Scout'][0]} of its {counts['Llama 4 Scout'][1]} "
                       "layers unrotated (layers 3, 7, 11, ...: no_rope_layer_interval 4), and those are the "
                       "layers that see the whole context, while its RoPE layers attend within chunks of 8,192 "
                       "tokens. Cohere2 and EXAONE 4 do the mirror image with windows: the local layers rotate, "
                       "the global ones do not. Layer counts are each transformers config class's default.")
        if tab_rule.open:
            with tab_rule:
                c1, c2, c3 = st.columns(3)
                with c1:
                    context = controls.select_slider("Positions up to", "ctx", CONTEXTS, 10_485_760,
                                                     format_func=lambda v: f"{v:,}")
                with c2:
                    scale = controls.slider("attn_scale / beta", "beta", 0.0, 0.5, 0.1, step=0.01,
                                            help="0.1 in Llama 4 (attn_scale) and in Ministral 3 "
                                                 "(llama_4_scaling_beta).")
                with c3:
                    period = controls.select_slider(
                        "Mistral's original_max_position_embeddings", "orig", [4096, 8192, 16384, 32768], 16384,
                        format_func=lambda v: f"{v:,}", help="16,384 in Ministral3Config, 8,192 in Mistral4Config.")
                grid, curves = rule_curves(context, float(scale), 8192, period)
                todays_class.ask_first_step(grid, period)
                show(figures.stacked_lines(
                    grid, curves, title="Query multiplier against position", x_title="position p (log)",
                    y_title="query scale", log_x=True, hover_format=".4f", name="nope_rules",
                    vlines=[(8191, "Llama 4's first step")],
                    alt="Both rules are 1 until their first step, then climb like a staircase in log position."))
                classroom.snippet(
                    f"p = {classroom.call('query_scale_positions', context, (8192, period))}  # positions drawn",
                    f"llama = pc.llama4_attn_temperature(p, {float(scale)!r}, 8192)  # (positions,) Llama 4's",
                    f"mistral = pc.llama_4_scaling_beta(p, {float(scale)!r}, {period})  # (positions,) Mistral's")
                p_last = int(grid[-1])
                llama_last = float(curves[LABELS['llama4']][-1])
                mistral_last = float(curves[LABELS['llama_4_scaling_beta']][-1])
                formula(r"\text{Llama 4: } 1 + $s\cdot\ln\!\Big(1 + \Big\lfloor\frac{p+1}{8192}\Big\rfloor\Big)"
                        r"\qquad \text{Mistral: } 1 + $s\cdot\ln\!\Big(1 + \Big\lfloor\frac{p}{$L}\Big\rfloor\Big)",
                        s=scale, L=period)
                formula(r"p = $p:\quad \text{Llama 4} = $a,\qquad \text{Mistral} = $b", p=p_last, a=llama_last,
                        b=mistral_last)
                notice("The two rules look alike but differ in the code: Llama 4 adds 1 to the position before "
                       "dividing (its first step is at p = 8,191) and applies the factor only on its NoPE layers; "
                       "Ministral 3 / Mistral Small 4 divide the raw position by the original "
                       "context (the first step is at p = original_max_position_embeddings) and scale every "
                       "layer's query after RoPE. Within the first period both are exactly 1: short prompts are "
                       "untouched.")
        if tab_entropy.open:
            with tab_entropy:
                rule = controls.choice("Rule", "rule", RULES, "llama4", format_func=lambda r: LABELS[r])
                c2, c3, c4 = st.columns(3)
                with c2:
                    context = controls.select_slider("Context", "ectx", CONTEXTS[:5], 1_048_576,
                                                     format_func=lambda v: f"{v:,}")
                with c3:
                    margin = controls.slider("Score of the relevant key", "margin", 0.0, 10.0, 4.0, step=0.5,
                                             help="Key 0 scores this much; the others score spread · N(0, 1).")
                with c4:
                    spread = controls.slider("Spread of other scores", "spread", 0.0, 3.0, 1.0, step=0.1)
                period = pc.QUERY_SCALE_RULES[rule][3]  # the released values: 0.1 and 8,192 / 16,384
                result = entropy(rule, context, 0.1, period, float(margin), float(spread))
                p = result["positions"]
                show(figures.stacked_lines(
                    p, {"without the temperature": result["entropy"], "with it": result["entropy_scaled"],
                        "uniform attention, ln(p + 1)": result["uniform"]},
                    title=f"Attention entropy of the query at position p ({LABELS[rule]})",
                    x_title="query position p (log)", y_title="entropy (nats)", log_x=True, hover_format=".3f",
                    dashed=["uniform attention, ln(p + 1)"], name="nope_entropy",
                    alt="Entropy grows with the log of the number of keys; with the temperature it grows more "
                        "slowly once the scale exceeds 1."))
                show(figures.stacked_lines(
                    p, {"without the temperature": result["needle"], "with it": result["needle_scaled"]},
                    title="Probability on the one relevant key (key 0, the farthest)", x_title="query position p (log)",
                    y_title="probability (log)", log_x=True, log_y=True, hover_format=".3g", name="nope_needle",
                    alt="The relevant key's share falls as the keys multiply; the temperature slows the fall."))
                classroom.snippet(
                    f"positions = {classroom.call('temperature_positions', context)}  # query positions drawn",
                    f"result = pc.temperature_entropy({rule!r}, positions, scale=0.1, period={period}, "
                    f"spread={float(spread)!r}, margin={float(margin)!r})",
                    'result["entropy"], result["entropy_scaled"], result["needle"], result["needle_scaled"]  '
                    '# (positions,) nats and probabilities')
                gain = result["needle_scaled"][-1] / result["needle"][-1]
                if abs(result["entropy"][-1] - result["entropy_scaled"][-1]) < 1e-9:
                    effect = ("every score is the same here, and multiplying equal scores leaves attention "
                              "uniform: a temperature needs differences to sharpen.")
                else:
                    effect = (f"every score grows by that factor, the entropy goes from {result['entropy'][-1]:.3f} "
                              f"to {result['entropy_scaled'][-1]:.3f} nats and the relevant key keeps {gain:.2f}× "
                              f"more probability ({result['needle'][-1]:.2e} → {result['needle_scaled'][-1]:.2e}). "
                              "The temperature slows the dilution; it does not stop it.")
                notice(f"With no positions every key competes with every other, so as p grows the softmax "
                       f"spreads out and its entropy follows ln(p + 1). At p = {int(p[-1]):,} the rule multiplies "
                       f"the query by {result['scale'][-1]:.3f}: {effect}")
                formula(r"H = -\sum_{j\le p} a_j \ln a_j,\quad a_j = \mathrm{softmax}_j(\tau(p)\,z_j),\quad "
                        r"\tau($p) = $t", p=int(p[-1]), t=float(result["scale"][-1]))




lesson()
see_also('nope', 'layer_strip', 'drope')
source(pc.llama4_attn_temperature, pc.llama_4_scaling_beta, pc.temperature_entropy)
