import streamlit as st

import posenc_core as pc
from lessons.todays_models import layer_questions_views as questions
from lessons.todays_models import nope_views as views
from lessons.todays_models.words import NOPE_RULES
from page_kit import (
    classroom,
    controls,
    formula,
    guard,
    header,
    hero,
    notice,
    see_also,
    show,
    source,
    stage,
    why,
)
from posenc_core.todays_models import (
    QUERY_SCALE_RULES,
    llama4_attn_temperature,
    llama_4_scaling_beta,
    nope_layer_counts,
    temperature_entropy,
)

CONTEXTS = [65_536, 131_072, 262_144, 1_048_576, 4_194_304, 10_485_760]  # the last: Llama 4 Scout's 10M


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
    names, _ = views.layer_map(shown)
    counts = nope_layer_counts()  # every model's full depth, whatever is shown
    show(hero(views.map_chart, layers=shown))
    classroom.snippet(f"names, grid = {classroom.call('nope_layer_map', shown)}",
                      f"# grid ({len(names)}, {shown}): 1 = RoPE, 0 = no positions, NaN past the last layer")
    with questions.ask_scout(scout_rows()):
        st.dataframe([{"model": name, "NoPE layers": f"{counts[name][0]} of {counts[name][1]}",
                       "the rule": NOPE_RULES[name]} for name in names], hide_index=True)
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
    grid, curves = views.rule_curves(context, float(scale), views.LLAMA_PERIOD, period)
    p_last = int(grid[-1])
    llama_last = float(curves[views.LABELS['llama4']][-1])
    mistral_last = float(curves[views.LABELS['llama_4_scaling_beta']][-1])
    formula(r"\begin{gathered}\text{Llama 4: } 1 + $s\cdot\ln\!\Big(1 + \Big\lfloor\frac{p+1}{8192}\Big\rfloor\Big)"
            r"\\ \text{Mistral: } 1 + $s\cdot\ln\!\Big(1 + \Big\lfloor\frac{p}{$L}\Big\rfloor\Big)\end{gathered}",
            s=scale, L=period)
    with questions.ask_first_step(grid, period):
        show(hero(views.rule_chart, ctx=context, beta=scale, orig=period))
        classroom.snippet(
            f"p = {classroom.call('query_scale_positions', context, (8192, period))}  # positions drawn",
            f"llama = pc.todays_models.llama4_attn_temperature(p, {float(scale)!r}, 8192)  # (positions,) Llama 4's",
            f"mistral = pc.todays_models.llama_4_scaling_beta(p, {float(scale)!r}, {period})  # (positions,) Mistral's")
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
        rule = controls.choice("Rule", "rule", views.RULES, "llama4", format_func=lambda r: views.LABELS[r])
        context = controls.select_slider("Context", "ectx", CONTEXTS[:5], 1_048_576, format_func=lambda v: f"{v:,}")
        margin = controls.slider("Relevant key's score", "margin", 0.0, 10.0, 4.0, step=0.5,
                                 help="Key 0 scores this much; the others score spread · N(0, 1).")
        spread = controls.slider("Other keys' spread", "spread", 0.0, 3.0, 1.0, step=0.1)
    period = QUERY_SCALE_RULES[rule].period  # the released values: 0.1 and 8,192 / 16,384
    result = views.entropy_for(rule, context, margin, spread)
    last = int(result.positions[-1])
    hands = {"ectx": context, "margin": margin, "spread": spread, "rule": rule}
    show(hero(views.entropy_chart, **hands))
    show(hero(views.needle_chart, **hands))
    classroom.snippet(
        f"positions = {classroom.call('temperature_positions', context)}  # query positions drawn",
        f"result = pc.todays_models.temperature_entropy({rule!r}, positions, scale=0.1, period={period}, "
        f"spread={float(spread)!r}, margin={float(margin)!r})",
        'result.entropy, result.entropy_scaled, result.needle, result.needle_scaled  '
        '# (positions,) nats and probabilities')
    gain = result.needle_scaled[-1] / result.needle[-1]
    if abs(result.entropy[-1] - result.entropy_scaled[-1]) < 1e-9:
        effect = ("every score is the same here, and multiplying equal scores leaves attention "
                  "uniform: a temperature needs differences to sharpen.")
    else:
        effect = (f"every score grows by that factor, the entropy goes from {result.entropy[-1]:.3f} "
                  f"to {result.entropy_scaled[-1]:.3f} nats and the relevant key keeps {gain:.2f}× "
                  f"more probability ({result.needle[-1]:.2e} → {result.needle_scaled[-1]:.2e}). "
                  "The temperature slows the dilution; it does not stop it.")
    notice(f"With no positions every key competes with every other, so as p grows the softmax "
           f"spreads out and its entropy follows ln(p + 1). At p = {last:,} the rule multiplies "
           f"the query by {result.scale[-1]:.3f}: {effect}")
    formula(r"\begin{gathered}H = -\sum_{j\le p} a_j \ln a_j\\ a_j = \mathrm{softmax}_j(\tau(p)\,z_j)"
            r"\\ \tau($p) = $t\end{gathered}", p=last, t=float(result.scale[-1]))


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
source(llama4_attn_temperature, llama_4_scaling_beta, temperature_entropy)
