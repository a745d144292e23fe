import streamlit as st

from lessons.todays_models import sentence_views
from lessons.todays_models.words import STICK_NAMES
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
from posenc_core.todays_models import stick_breaking_constant, stick_breaking_sentence, stick_breaking_weights

TOY = ("The logits come from seeded toy query and key weights on each word's seeded embedding, not from a trained "
       "model: they show what the mechanism does with scores, not what a trained model attends to.")


@st.cache_data(max_entries=32, show_spinner=False)
def sentence(text: str, level: float, n_heads: int, head: int, seed: int, current: bool):
    return stick_breaking_sentence(text, level, n_heads, head, seed, attend_current=current)


@st.cache_data(max_entries=32, show_spinner=False)
def constant(logit: float, length: int):
    return stick_breaking_constant(logit, length)


def code(view, *lines: str) -> None:
    args = (view["text"], view["level"], view["heads"], view["head"], view["seed"])
    sentence_views.sentence_snippet("stick_breaking_sentence", args, *lines, attend_current=view["current"])


header("Stick-breaking attention",
       "Each query walks back from its nearest key; every key breaks off a share of what is left of the stick. "
       "No position encoding, yet nearer keys come first, as with ALiBi.")
WHY = ("Stick-breaking attention (Tan, Shen, Peng, Courville and Panda 2024, arXiv:2410.17980) replaces softmax. "
       "For query i it turns each score into β_ij = σ(z_ij), then walks back from the nearest key: that key takes "
       "β of the whole stick, the next takes β of what is left, and so on. A far key gets something only if every "
       "nearer key left enough, so order is built into the weights and the model needs no position encoding. The "
       "weights need not add up to 1: what nobody took is dropped. With one constant score every key takes the "
       "same share of what is left, and the weights fall geometrically with distance, the shape softmax + ALiBi "
       "gives. The reference code leaves the query's own key out by default (attend_current=False); the "
       "kernels need a GPU, "
       "and this page computes the same equations in numpy, checked against flash-linear-attention's "
       "pure-PyTorch reference.")


def last_chart(level, heads, head, text, seed, current):
    ex = sentence(text, float(level), heads, head, seed, current)
    tokens = ex.tokens
    names = [f"{i}·{t}" for i, t in enumerate(tokens)]
    rows = {STICK_NAMES["stick_breaking"]: ex.stick[-1], STICK_NAMES["alibi"]: ex.alibi[-1],
            STICK_NAMES["softmax"]: ex.softmax[-1]}
    mean = ex.mean_distance
    return figures.bars(names, rows, title=f"What the last word '{tokens[-1]}' attends to",
                        x_title="key (index·word)", y_title="weight", name="sb_last",
                        alt=f"Grouped bars over {len(tokens)} keys. Stick-breaking hands out "
                            f"{ex.last_taken:.3f} of its stick (the rest, {ex.remainder[-1]:.3f}, goes "
                            f"nowhere), at a mean distance of {mean['stick_breaking']:.2f} words; softmax + ALiBi "
                            f"at {mean['alibi']:.2f}; softmax without positions at "
                            f"{mean['softmax']:.2f}.")


def last_tab(page, view, ex) -> None:
    tokens = ex.tokens
    mean = ex.mean_distance
    show(hero(last_chart, **view))
    st.caption(TOY)
    code(view, f'ex.stick[-1], ex.alibi[-1], ex.softmax[-1]  # ({len(tokens)},) each, the bars')
    up = min(view["level"] + 3.0, 10.0)
    higher = sentence(view["text"], up, view["heads"], view["head"], view["seed"], view["current"])
    before, after = mean["stick_breaking"], higher.mean_distance["stick_breaking"]
    answer = 0 if after < before - 1e-9 else 1 if after > before + 1e-9 else 2
    with classroom.predict("sb_level", f"Raise every logit by {up - view['level']:g} (level {up:g}). Where does "
                           "stick-breaking's weight move?", ["Nearer to the query", "Farther back", "Nowhere"],
                           answer, lambda: f"The mean distance goes from {before:.2f} to {after:.2f} words: higher "
                                           "scores let the nearest keys break off more of the stick, leaving less "
                                           "for the keys behind them. Softmax would not move at all: adding one "
                                           "number to every logit cancels in its normalisation."):
        formula(r"\bar t_{\text{level } $a} = $b,\qquad \bar t_{\text{level } $c} = $d", a=view["level"], b=before,
                c=up, d=after, digits=3)
    notice(f"Softmax without positions spreads over the whole sentence (mean distance "
           f"{mean['softmax']:.2f}). Stick-breaking ({mean['stick_breaking']:.2f}) and softmax + "
           f"ALiBi ({mean['alibi']:.2f}) both prefer the near keys, but stick-breaking gets there "
           "from the order of the walk alone.")


def constant_chart(z):
    out = constant(float(z), 24)
    return figures.lines(out.distance, {"stick-breaking": out.weights, "softmax + ALiBi": out.alibi},
                         title=f"Every key scores z = {z:g}: weight against distance",
                         x_title="distance to the query", y_title="weight (log)", log_y=True, markers=True,
                         dashed=["softmax + ALiBi"], name="sb_constant",
                         alt=f"Two straight lines on a log axis over distances 1 to 23: stick-breaking's weight "
                             f"σ(z)σ(−z)^(t−1) and softmax + ALiBi with slope {out.slope:.4g}; both fall by a "
                             f"factor {out.ratio:.4g} per step.")


def constant_tab(page, view, ex) -> None:
    with page.side:
        z = controls.slider("Constant logit z", "z", -3.0, 3.0, 0.0, step=0.25)
    out = constant(float(z), 24)
    show(hero(constant_chart, z=z))
    classroom.snippet(f"out = {classroom.call('stick_breaking_constant', float(z), 24)}",
                      'out.distance, out.weights, out.alibi  # (23,) each, the two lines')
    formula(r"\begin{gathered}A_t = \sigma(z)\,\sigma(-z)^{t-1}\\ \frac{A_{t+1}}{A_t} = \sigma(-z) = "
            r"e^{-\mathrm{softplus}(z)} = e^{-$m}\\ \text{left over: } 1 - \textstyle\sum_t A_t = $r\end{gathered}",
            m=out.slope, r=out.remainder)
    notice(f"Parallel straight lines on a log axis (one on top of the other when almost the whole stick is handed "
           f"out): the same decay as ALiBi with slope softplus(z) = {out.slope:.4g}. "
           "Only the normalisation differs: softmax makes its weights add up to 1, stick-breaking leaves "
           f"{out.remainder:.3g} of the stick untaken. With real scores each key's share varies, so the "
           "decay is no longer a straight line.")


def maps_chart(level, heads, head, text, seed, current):
    ex = sentence(text, float(level), heads, head, seed, current)
    grids = [ex.stick, ex.alibi, ex.softmax]
    # short panel titles: the three method names overlapped on a phone
    return figures.small_multiples(grids, ["stick-breaking", "+ ALiBi", "no positions"], cols=3,
                                   title="Every query's weights (stick-breaking; softmax + ALiBi; softmax)",
                                   value_name="weight",
                                   x_title="key j", y_title="query i", name="sb_maps", zrange=(0.0, 1.0),
                                   alt=f"Three lower-triangular heatmaps for {len(ex.tokens)} words: "
                                       "stick-breaking and softmax + ALiBi are bright near the diagonal, softmax "
                                       "without positions is spread out.")


def maps_tab(page, view, ex) -> None:
    show(hero(maps_chart, **view))
    code(view, f'ex.stick, ex.alibi, ex.softmax  # ({len(ex.tokens)}, {len(ex.tokens)}) each')
    notice("Stick-breaking's first row is empty when a query cannot take from its own key (the authors' default): "
           "the first word has nothing before it. Its rows add up to less than 1.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        level = controls.slider("Logit level", "level", -4.0, 4.0, 0.0, step=0.5,
                                help="Added to every score q·k/√d: higher scores break off more of the stick.")
        heads = controls.select_slider("ALiBi heads", "heads", [4, 8, 12, 16], 8)
        head = controls.slider("ALiBi head", "head", 1, heads, 2)
    with page.more:
        text = sentence_views.sentence_control()
        seed = controls.slider("Toy weight seed", "seed", 0, 9, 0)
        current = controls.toggle("Query takes from its own key", "current", False,
                                  help="attend_current in the authors' code; off by default there.")
    view = {"level": float(level), "heads": heads, "head": head, "text": text, "seed": seed, "current": current}
    tabs = page.sections(["The last word", "Constant scores", "All queries"])
    with guard():
        ex = sentence(text, float(level), heads, head, seed, current)
        for tab, draw in zip(tabs, (last_tab, constant_tab, maps_tab), strict=True):
            if tab.open:
                with tab:
                    draw(page, view, ex)


lesson()
why(WHY)
formula(r"\begin{gathered}\beta_{ij} = \sigma(q_i^\top k_j/\sqrt{d})\\ "
        r"A_{ij} = \beta_{ij}\prod_{j<l<i}(1-\beta_{il})\\ o_i = \sum_{j<i} A_{ij} v_j\\ "
        r"\sum_{j<i} A_{ij} = 1 - \prod_{j<i}(1-\beta_{ij}) \le 1\end{gathered}")
see_also("fox", "alibi")
source(stick_breaking_weights, stick_breaking_sentence)
