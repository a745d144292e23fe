import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.todays_models import layer_questions_views as questions
from page_kit import (
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    notice,
    see_also,
    show,
    source,
    stage,
    why,
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


@st.cache_data(max_entries=1, show_spinner=False)
def scout_rows():
    return pc.read_layers(pc.preset_config("llama4-scout"))[1]


header("Layers without positions, and query temperature",
       "Some layers have no positions at all (NoPE); a query temperature keeps their attention from spreading "
       "thin far away.")
WHY = ("Several 2025 models leave some attention layers without any position encoding (NoPE): Llama 4 and "
       "SmolLM3 skip RoPE in every fourth layer, Cohere2 and EXAONE 4 rotate only in their sliding-window layers. "
       "A NoPE layer matches content anywhere in the context, but with more and more keys its softmax spreads "
       "thin. Llama 4 answers with a query temperature that grows with the log of the position; Ministral 3 and "
       "Mistral Small 4 put a similar factor on every layer. Both rules are transformers' code, constants "
       "included.")


def map_tab(page) -> None:
    with page.side:
        shown = controls.slider("Layers shown", "layers", 8, 64, 48,
                                help="The first layers of each model; blank cells are past its last layer.")
    names, grid = layer_map(shown)
    counts = pc.nope_layer_counts()  # every model's full depth, whatever is shown
    show(figures.padded(figures.heatmap(
        grid, x=np.arange(grid.shape[1]), y=names, title="RoPE (1) or no positions (0), layer by layer",
        x_title="layer", y_title="", value_name="rotates", zrange=(0.0, 1.0), height=320,
        hover_format=".0f", colorscale=TWO_COLOURS, name="nope_layer_map",
        alt=f"One row per model, one cell per layer for the first {shown} layers: value 1 where the layer "
            "rotates, 0 where it has no positions, blank past a model's last layer. Layers without positions: "
            + "; ".join(f"{name} {k} of {depth}" for name, (k, depth) in counts.items()) + "."), left=130))
    classroom.snippet(f"names, grid = {classroom.call('nope_layer_map', shown)}",
                      f"# grid ({len(names)}, {shown}): 1 = RoPE, 0 = no positions, NaN past the last layer")
    with questions.ask_scout(scout_rows()):
        st.dataframe([{"model": name, "NoPE layers": f"{counts[name][0]} of {counts[name][1]}",
                       "the rule": pc.NOPE_LAYER_MODELS[name][1]} for name in names], hide_index=True)
        notice(f"Llama 4 Scout leaves {counts['Llama 4 Scout'][0]} of its {counts['Llama 4 Scout'][1]} "
               "layers unrotated (layers 3, 7, 11, ...: no_rope_layer_interval 4), and those are the "
               "layers that see the whole context, while its RoPE layers attend within chunks of 8,192 "
               "tokens. Cohere2 and EXAONE 4 do the mirror image with windows: the local layers rotate, "
               "the global ones do not. Layer counts are each transformers config class's default.")


def rule_tab(page) -> None:
    with page.side:
        context = controls.select_slider("Positions up to", "ctx", CONTEXTS, 10_485_760,
                                         format_func=lambda v: f"{v:,}")
        scale = controls.slider("attn_scale / beta", "beta", 0.0, 0.5, 0.1, step=0.01,
                                help="0.1 in Llama 4 (attn_scale) and in Ministral 3 (llama_4_scaling_beta).")
        period = controls.select_slider(
            "Mistral's original L", "orig", [4096, 8192, 16384, 32768], 16384, format_func=lambda v: f"{v:,}",
            help="original_max_position_embeddings: 16,384 in Ministral3Config, 8,192 in Mistral4Config.")
    grid, curves = rule_curves(context, float(scale), 8192, period)
    p_last = int(grid[-1])
    llama_last = float(curves[LABELS['llama4']][-1])
    mistral_last = float(curves[LABELS['llama_4_scaling_beta']][-1])
    formula(r"\begin{gathered}\text{Llama 4: } 1 + $s\cdot\ln\!\Big(1 + \Big\lfloor\frac{p+1}{8192}\Big\rfloor\Big)"
            r"\\ \text{Mistral: } 1 + $s\cdot\ln\!\Big(1 + \Big\lfloor\frac{p}{$L}\Big\rfloor\Big)\end{gathered}",
            s=scale, L=period)
    with questions.ask_first_step(grid, period):
        show(figures.stacked_lines(
            grid, curves, title="Query multiplier against position", x_title="position p (log)",
            y_title="query scale", log_x=True, hover_format=".4f", name="nope_rules",
            vlines=[(8191, "Llama 4's first step")],
            alt=f"Both rules are 1 until their first step, then climb like a staircase in log position; at "
                f"p = {p_last:,} Llama 4's multiplier is {llama_last:.4f} and Mistral's {mistral_last:.4f}."))
        classroom.snippet(
            f"p = {classroom.call('query_scale_positions', context, (8192, period))}  # positions drawn",
            f"llama = pc.llama4_attn_temperature(p, {float(scale)!r}, 8192)  # (positions,) Llama 4's",
            f"mistral = pc.llama_4_scaling_beta(p, {float(scale)!r}, {period})  # (positions,) Mistral's")
        formula(r"p = $p:\quad \text{Llama 4} = $a,\qquad \text{Mistral} = $b", p=p_last, a=llama_last,
                b=mistral_last)
        notice("The two rules look alike but differ in the code: Llama 4 adds 1 to the position before "
               "dividing (its first step is at p = 8,191) and applies the factor only on its NoPE layers; "
               "Ministral 3 / Mistral Small 4 divide the raw position by the original "
               "context (the first step is at p = original_max_position_embeddings) and scale every "
               "layer's query after RoPE. Within the first period both are exactly 1: short prompts are "
               "untouched.")


def entropy_tab(page) -> None:
    with page.side:
        rule = controls.choice("Rule", "rule", RULES, "llama4", format_func=lambda r: LABELS[r])
        context = controls.select_slider("Context", "ectx", CONTEXTS[:5], 1_048_576, format_func=lambda v: f"{v:,}")
        margin = controls.slider("Relevant key's score", "margin", 0.0, 10.0, 4.0, step=0.5,
                                 help="Key 0 scores this much; the others score spread · N(0, 1).")
        spread = controls.slider("Other keys' spread", "spread", 0.0, 3.0, 1.0, step=0.1)
    period = pc.QUERY_SCALE_RULES[rule][3]  # the released values: 0.1 and 8,192 / 16,384
    result = entropy(rule, context, 0.1, period, float(margin), float(spread))
    p = result["positions"]
    last = int(p[-1])
    show(figures.stacked_lines(
        p, {"without the temperature": result["entropy"], "with it": result["entropy_scaled"],
            "uniform attention, ln(p + 1)": result["uniform"]},
        title=f"Attention entropy of the query at position p ({LABELS[rule]})",
        x_title="query position p (log)", y_title="entropy (nats)", log_x=True, hover_format=".3f",
        dashed=["uniform attention, ln(p + 1)"], name="nope_entropy",
        alt=f"Entropy grows with the log of the number of keys; at p = {last:,} it is "
            f"{result['entropy'][-1]:.3f} nats without the temperature, {result['entropy_scaled'][-1]:.3f} with "
            f"it and {result['uniform'][-1]:.3f} for uniform attention (dashed)."))
    show(figures.stacked_lines(
        p, {"without the temperature": result["needle"], "with it": result["needle_scaled"]},
        title="Probability on the one relevant key (key 0, the farthest)", x_title="query position p (log)",
        y_title="probability (log)", log_x=True, log_y=True, hover_format=".3g", name="nope_needle",
        alt=f"The relevant key's share falls as the keys multiply: at p = {last:,} it is "
            f"{result['needle'][-1]:.2e} without the temperature and {result['needle_scaled'][-1]:.2e} with it."))
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
           f"spreads out and its entropy follows ln(p + 1). At p = {last:,} the rule multiplies "
           f"the query by {result['scale'][-1]:.3f}: {effect}")
    formula(r"\begin{gathered}H = -\sum_{j\le p} a_j \ln a_j\\ a_j = \mathrm{softmax}_j(\tau(p)\,z_j)"
            r"\\ \tau($p) = $t\end{gathered}", p=last, t=float(result["scale"][-1]))


@st.fragment
def lesson():
    page = stage()
    tabs = page.sections(["Which layers rotate", "The two temperature rules", "Entropy far away"])
    with guard():
        for tab, draw in zip(tabs, (map_tab, rule_tab, entropy_tab), strict=True):
            if tab.open:
                with tab:
                    draw(page)


lesson()
why(WHY)
see_also('nope', 'layer_strip', 'drope')
source(pc.llama4_attn_temperature, pc.llama_4_scaling_beta, pc.temperature_entropy)
