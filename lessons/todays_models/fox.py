import streamlit as st

from lessons.todays_models import sentence_views
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
from posenc_core.todays_models import fox_bias, fox_gate_logit_for_slope, fox_sentence

TOY = ("The gates come from seeded toy weights (a random w and b on each word's seeded embedding), not from a "
       "trained model: they show what the mechanism can do, not what FoX learned.")


@st.cache_data(max_entries=32, show_spinner=False)
def sentence(text: str, n_heads: int, head: int, dependence: float, seed: int):
    return fox_sentence(text, n_heads, head, dependence, seed)


def code(view, *lines: str) -> None:
    args = (view["text"], view["heads"], view["head"], view["dep"], view["seed"])
    sentence_views.sentence_snippet("fox_sentence", args, *lines)


header("Forgetting Transformer (FoX)",
       "Every token has a forget gate, and the log of the gates between key and query joins the logits. One "
       "constant gate is ALiBi; gates read from the words change the slope word by word.")
WHY = ("The Forgetting Transformer (Lin, Nikishin, He and Courville 2025, arXiv:2503.02130) adds one scalar gate "
       "per head and token, f_t = σ(w·x_t + b), to ordinary softmax attention: the score of key j for query i "
       "gets D_ij = log f_{j+1} + … + log f_i, the log of the product of the gates of every token after j. "
       "A gate near 1 lets the past through; a gate near 0 makes the query forget everything before it. "
       "If every gate is the same number e^(−m), D_ij = −m(i − j): exactly ALiBi with slope m. "
       "The paper trains FoX without RoPE: this bias is its only source of order, and a trained model can learn "
       "to forget fast after some words and slowly after others. The released kernel is a GPU (Triton) kernel; "
       "this page computes the same equations in numpy, and the app's tests check them against the pure-PyTorch "
       "reference in flash-linear-attention (fla-core).")


def bias_chart(text, dep, heads, head, seed):
    ex = sentence(text, heads, head, float(dep), seed)
    tokens = ex.tokens
    fox, alibi = figures.blank_masked(ex.fox), figures.blank_masked(ex.alibi)
    return figures.small_multiples(
        [fox, alibi], [f"FoX, dependence {dep:g}", f"ALiBi, slope {ex.slope:.4g}"], cols=2,
        title=f"The bias added to each logit, head {head} of {heads}", value_name="bias",
        x_title="key j", y_title="query i", name="fox_bias",
        alt=f"Two lower-triangular heatmaps for {len(tokens)} words. ALiBi's bias falls by {ex.slope:.4g} per "
            f"step back; FoX's falls by the gates' logs, from {ex.slope_range[0]:.3g} to "
            f"{ex.slope_range[1]:.3g} per word. The last word's bias on the first is "
            f"{ex.fox[-1, 0]:.3f} under FoX and {ex.alibi[-1, 0]:.3f} under ALiBi.")


def bias_tab(page, view, ex) -> None:
    tokens = ex.tokens
    show(hero(bias_chart, **view))
    st.caption(TOY)
    code(view, f'ex.fox, ex.alibi  # ({len(tokens)}, {len(tokens)}) each, -inf above the diagonal')
    still = sentence(view["text"], view["heads"], view["head"], 0.0, view["seed"])
    gap = still.alibi_gap
    with classroom.predict("fox_zero", "Set the data dependence to 0, so every word gets the same gate. What does "
                           "FoX's bias become?", ["ALiBi's bias for this head", "All zeros", "Still different "
                           "along each diagonal"], 0,
                           lambda: f"With dependence 0 every gate is e^(−{still.slope:.4g}) = "
                                   f"{float(still.gates[0]):.4f}, and FoX's bias differs from ALiBi's by at most "
                                   f"{gap:.1e} (float32 rounding in ALiBi's grid)."):
        formula(r"\begin{gathered}f = \sigma(b) = e^{-m} = $g\\ D_{ij} = (i-j)\log f = -$m\,(i-j)\\ "
                r"\max|D - \text{ALiBi}| = $e\end{gathered}", g=float(still.gates[0]), m=still.slope, e=gap)
    notice(f"ALiBi's rows all fall at the same rate. FoX's fall faster after words whose gate is small: the "
           f"last word's bias on the first is {ex.fox[-1, 0]:.3f}, ALiBi's {ex.alibi[-1, 0]:.3f}, i.e. an "
           f"effective slope of {ex.effective_slope:.4g} instead of {ex.slope:.4g}.")


def slope_tab(page, view, ex) -> None:
    names = [f"{i}·{t}" for i, t in enumerate(ex.tokens)]
    show(figures.bars(names, {"−log f_t (this word's slope)": ex.local_slope},
                      title="How much each word makes the queries after it forget", x_title="word (index·text)",
                      y_title="−log f_t", name="fox_slopes",
                      alt=f"Bars per word of −log f_t, between {ex.slope_range[0]:.3g} and "
                          f"{ex.slope_range[1]:.3g}; ALiBi's constant slope is {ex.slope:.4g}."))
    st.caption(f"ALiBi's slope for this head: {ex.slope:.4g} for every word. {TOY}")
    code(view, f'ex.local_slope  # ({len(names)},) −log f_t, the bars; ex.gates f_t')
    formula(r"\begin{gathered}f_t = \sigma\big(b + \lambda\,w\cdot x_t\big)\\ b = -\log(e^{m}-1) = $b,\quad "
            r"\lambda = $l\end{gathered}",
            b=fox_gate_logit_for_slope(ex.slope), l=view["dep"])
    notice("A word's gate acts on every query after it: the bias of a key is the sum of the bars between the key "
           "(excluded) and the query (included). Word 0's gate is never used by anyone. The bias b is chosen so "
           "that a word with w·x = 0 gets exactly ALiBi's gate.")


def attention_tab(page, view, ex) -> None:
    names = [f"{i}·{t}" for i, t in enumerate(ex.tokens)]
    show(figures.bars(names, {"FoX": ex.fox_attention, "ALiBi": ex.alibi_attention},
                      title="The last word's attention from the bias alone (equal content scores)",
                      x_title="key (index·word)", y_title="attention", name="fox_attention",
                      alt=f"Grouped bars over {len(names)} keys: the last word's attention with equal content "
                          f"scores. FoX gives itself {ex.fox_attention[-1]:.3f}, ALiBi "
                          f"{ex.alibi_attention[-1]:.3f}."))
    code(view, f'ex.fox_attention, ex.alibi_attention  # ({len(names)},) each, the bars')
    notice("With every content score equal, softmax turns the bias into attention: both fall with distance, "
           "ALiBi geometrically, FoX in steps whose size the words set. A trained FoX adds q·k/√d, "
           "so content can still win over the forgetting.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        dep = controls.slider("Data dependence", "dep", 0.0, 3.0, 2.0, step=0.25,
                              help="How much each word moves its gate's logit; 0 gives every word ALiBi's gate.")
        heads = controls.select_slider("ALiBi heads", "heads", [4, 8, 12, 16], 8)
        head = controls.slider("Head", "head", 1, heads, 2, help="ALiBi's slope for this head sets the gate's bias.")
    with page.more:
        text = sentence_views.sentence_control()
        seed = controls.slider("Toy weight seed", "seed", 0, 9, 0)
    view = {"dep": float(dep), "heads": heads, "head": head, "text": text, "seed": seed}
    tabs = page.sections(["Bias for your sentence", "Slope per word", "Attention"])
    with guard():
        ex = sentence(text, heads, head, float(dep), seed)
        for tab, draw in zip(tabs, (bias_tab, slope_tab, attention_tab), strict=True):
            if tab.open:
                with tab:
                    draw(page, view, ex)


lesson()
why(WHY)
formula(r"\begin{gathered}f_t = \sigma(w_f^\top x_t + b_f)\\ D_{ij} = \sum_{l=j+1}^{i}\log f_l\\ "
        r"a_{ij} = \mathrm{softmax}_j\big(q_i^\top k_j/\sqrt{d} + D_{ij}\big)\end{gathered}")
see_also("alibi", "stick_breaking")
source(fox_bias, fox_sentence)
