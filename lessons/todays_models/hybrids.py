import numpy as np
import streamlit as st

from lessons.todays_models import layer_questions_views as questions
from lessons.todays_models.words import HYBRID_ATTENTION, HYBRID_MIXERS, HYBRID_NAMES, HYBRID_POSITIONS, MIXER_NAMES
from page_kit import (
    classroom,
    controls,
    figures,
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
    HYBRID_MODELS,
    MIXERS,
    ORDER_EXACT,
    causal_conv,
    gated_recurrence,
    nope_attention,
    order_test,
)

KINDS = ["swap", "reverse", "shuffle"]
CONV, RECURRENCE, CAUSAL, BIDIRECTIONAL = list(MIXERS)


@st.cache_data(max_entries=32, show_spinner=False)
def experiment(n: int, kind: str, i: int, j: int, seed: int):
    return order_test(n, 16, kind, i=i, j=j, seed=seed)


def _where(runs) -> str:
    """Runs of positions as compact ranges ('3-6, 10-13')."""
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs) or "none"


header("Hybrids: attention among recurrent layers",
       "Many 2025 models use attention in only some layers and fill the rest with cheaper mixers that read the "
       "sequence in order. Reorder the inputs and measure which mixers notice.")
WHY = ("Many 2025 models use attention in only some layers and fill the rest with cheaper mixers: linear "
       "attention (Gated DeltaNet, Kimi Delta Attention), state-space layers (Mamba-2) or short convolutions. "
       "Those mixers read the sequence in order by construction, so some hybrids give their attention layers no "
       "position encoding at all, and others keep a slice of RoPE. Reorder the inputs and measure which "
       "mixers notice.")


def models_tab(page) -> None:
    st.dataframe([{"model": HYBRID_NAMES[code], "other layers": HYBRID_MIXERS[m.mixers],
                   "attention": HYBRID_ATTENTION[m.attention]} for code, m in HYBRID_MODELS.items()], hide_index=True)
    with questions.ask_all_drop():
        nope_only = controls.toggle("Only hybrids whose attention has no positions", "nope")
        st.dataframe([{"model": HYBRID_NAMES[code], "positions in attention": HYBRID_POSITIONS[code]}
                      for code, m in HYBRID_MODELS.items() if not nope_only or m.rotates == "none"], hide_index=True)
        classroom.snippet("rows = [(code, m.mixers, m.attention, m.rotates)  # the tables above as codes, one row "
                          "per model", "        for code, m in pc.todays_models.HYBRID_MODELS.items()]")
        notice("A common misconception is that every hybrid drops positions from its attention. In "
               "transformers' modeling code Kimi Linear and Nemotron-H never rotate q or k, Granite 4.0-H "
               "rotates only when its config says position_embedding_type 'rope' (its released configs "
               "say 'nope'), but Qwen3-Next / Qwen3.5 rotate a quarter of "
               "each head, and Falcon-H1 and LFM2 apply full RoPE in their attention layers. The app "
               "follows the code; a test reads each attention class's forward to keep this table honest.")


def _order_notice(kind: str, i: int, j: int, result) -> None:
    largest, runs = result.largest, result.changed_runs
    if kind == "swap":
        notice(f"Swap tokens {i} and {j}. Bidirectional attention with no positions differs nowhere "
               f"(largest difference {largest[BIDIRECTIONAL]:.0e}, rounding): it is permutation-"
               f"equivariant and cannot see order. Causal attention differs only at positions "
               f"{_where(runs[CAUSAL])}: before {i} nothing changed, and from {j + 1} on each query "
               "sees the same set of tokens, so the same output. The convolution differs at "
               f"{_where(runs[CONV])}, exactly where its 4-token kernel covers a swapped token, and "
               f"the recurrence from {i} onwards, fading as its gates forget. Those two read order by "
               "construction; a NoPE attention layer between them receives tokens that already carry it.")
    else:
        notice(f"Under a {kind}, bidirectional attention without positions still only reorders its "
               f"outputs (largest difference {largest[BIDIRECTIONAL]:.0e}), while the convolution "
               f"({largest[CONV]:.2f}), the recurrence ({largest[RECURRENCE]:.2f}) and causal attention "
               f"({largest[CAUSAL]:.2f}, through its mask alone) all change their outputs: they are "
               "order-aware, and only the first two in a way that depends on distances.")


def order_chart(n: int, i: int, j: int, kind: str):
    if not i + 1 <= j <= n - 1 or i > n - 3:
        # one stop from the hand, the page would move the other sliders first: that move takes its round trip
        raise ValueError("Token i must come before token j, both inside the sequence.")
    result = experiment(n, kind, i, j, 0)
    chart = figures.stacked_lines(
        np.arange(n), {MIXER_NAMES[code]: np.maximum(e, 1e-17) for code, e in result.errors.items()},
        title="|f(reordered x)_t − (reordered f(x))_t| at each position t",
        x_title="position t", y_title="difference (log; 1e-17 = none)", log_y=True, markers=True,
        hover_format=".3g", name="hybrid_order", hlines=[(ORDER_EXACT, "float64 rounding below")],
        alt=f"Per-position difference ({kind}) between mixing the reordered tokens and reordering the mixed "
            "tokens, one line per mixer; largest differences: "
            + ", ".join(f"{MIXER_NAMES[code]} {v:.1e}" for code, v in result.largest.items()) + ".")
    return figures.axis_settings(chart, "y", tickformat=".0e")  # 1e-12 reads better here than SI prefixes (1p)


def order_tab(page) -> None:
    with page.side:
        n = controls.slider("Tokens", "n", 8, 64, 24)
        kind = controls.choice("Reordering", "kind", KINDS, "swap")
        i = controls.slider("Swap token i", "i", 0, n - 3, min(3, n - 3), help="Used by 'swap' only.")
        j = controls.slider("with token j", "j", i + 1, n - 1, min(max(10, i + 1), n - 1), help="Used by 'swap' only.")
    result = experiment(n, kind, i, j, 0)
    errors = result.errors
    largest = result.largest
    # short rows: one row per mixer ran past the figure column of a projector, and past a phone's width
    formula(r"\begin{gathered}\text{conv: } y_t = \sum_{k<4} w_k \odot x_{t-k}\\ \text{recurrence: } "
            r"h_t = g_t \odot h_{t-1} + x_t\\ g_t = 0.9\,\sigma(x_t W_g)\\ "
            r"\text{attention: } y_t = \sum_{s \in S_t} a_{ts}\,v_s\\ a_{ts} = "
            r"\mathrm{softmax}_s\big(q_t\cdot k_s/\sqrt{d}\big)\\ S_t = \{0..t\}\ \text{(causal)}\\ "
            r"\text{or all (bidirectional)}\end{gathered}")
    with questions.ask_blind(result, kind):
        show(hero(order_chart, n=n, i=i, j=j, kind=kind))
        classroom.snippet(f"result = {classroom.call('order_test', n, 16, kind, i=i, j=j, seed=0)}",
                          'errors = result.errors  # {mixer code: (tokens,)} difference at each position')
        cols = st.columns(2)
        for k, code in enumerate(errors):
            cols[k % 2].metric(MIXER_NAMES[code], f"{largest[code]:.1e}",
                               help=f"Largest difference; outputs have norm {result.scale[code]:.2f} on average.")
        _order_notice(kind, i, j, result)
        formula(r"\begin{gathered}e_t = \big\|f(Px)_t - (P f(x))_t\big\|\\ \max_t e_t:\ \text{conv } $c,\ "
                r"\text{recurrence } $r,\ \text{causal } $a,\ \text{bidirectional } $b\end{gathered}",
                c=largest[CONV], r=largest[RECURRENCE], a=largest[CAUSAL], b=largest[BIDIRECTIONAL], digits=3)


@st.fragment
def lesson():
    page = stage()
    tabs = page.sections(["Who mixes what", "Reorder the inputs"])
    with guard():
        for tab, draw in zip(tabs, (models_tab, order_tab), strict=True):
            if tab.open:
                with tab:
                    draw(page)


lesson()
why(WHY)
see_also('order', 'nope', 'nope_layers')
source(order_test, causal_conv, gated_recurrence, nope_attention)
