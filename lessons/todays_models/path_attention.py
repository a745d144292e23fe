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
from posenc_core.todays_models import path_scores, path_sentence, path_two_reflections

TOY = ("Every word gets the same probe query and key, so only the transforms make two cells differ. PaTH's w_t and "
       "β_t come from seeded toy weights on each word's seeded embedding, not from a trained model.")


@st.cache_data(max_entries=32, show_spinner=False)
def sentence(text: str, dim: int, seed: int, base: float, sharpness: float):
    return path_sentence(text, dim, seed, base, sharpness)


def code(view, *lines: str) -> None:
    args = (view["text"], view["dim"], view["seed"], view["base"], view["sharp"])
    sentence_views.sentence_snippet("path_sentence", args, *lines)


header("PaTH: transforms along the path",
       "Every token brings a Householder-like transform, and a query sees a key through all the transforms of the "
       "tokens in between. RoPE is the case where every token brings the same rotation.")
WHY = ("PaTH attention (Yang, Shen, Wen, Tan, Mishra, Ren, Panda and Kim 2025, arXiv:2505.16381) reads position "
       "from the path between two tokens. Each token t gives a transform H_t = I − β_t w_t w_tᵀ, with a unit "
       "direction w_t and a strength β_t = 2σ(·) in (0, 2), both computed from the token (in "
       "flash-linear-attention's layer, w_t through a low-rank projection, a short convolution and an L2 norm); "
       "query i scores key j as "
       "q_iᵀ H_i H_{i−1} ⋯ H_{j+1} k_j. RoPE has the same shape: q_iᵀ (Rᵀ)^(i−j) k_j, one fixed rotation per "
       "step, so the score can only depend on how many steps lie between. PaTH lets the words choose the steps, "
       "so 'three words back' depends on which three words: one token can turn the query away from "
       "everything before it. That layer can also add FoX's forget gate on top (use_forget_gate). "
       "β = 2 is a true reflection, and a rotation in a plane is two reflections, so a "
       "product of such steps can rotate as RoPE does. The released kernels (flash-linear-attention) need a GPU; "
       "this page computes the product directly, checked against that library's pure-PyTorch reference.")


def grids_chart(sharp, dim, text, seed, base):
    ex = sentence(text, dim, seed, float(base), float(sharp))
    spread = ex.largest_spread
    return figures.small_multiples(
        [figures.blank_masked(ex.rope), figures.blank_masked(ex.path)],
        ["RoPE: fixed steps", "PaTH: word's steps"], cols=2,  # short: two panels side by side on a phone
        title="Score of the same probe q and k at every query and key", value_name="q·k", x_title="key j",
        y_title="query i", name="path_grids",
        alt=f"Two lower-triangular heatmaps for {len(ex.tokens)} words. RoPE's is constant along every diagonal "
            f"(largest spread {spread['rope']:.2g}); PaTH's changes along them (largest spread "
            f"{spread['path']:.2f} at offset {ex.widest_offset}).")


def grids_tab(page, view, ex) -> None:
    tokens = ex.tokens
    spread = ex.largest_spread
    show(hero(grids_chart, **view))
    st.caption(TOY)
    code(view, f'ex.rope, ex.path  # ({len(tokens)}, {len(tokens)}) each, -inf above the diagonal')
    same = ex.wordless
    flat = spread["fixed"]
    with classroom.predict("path_fixed", "Now give every word the same w and β (word 0's): one fixed, "
                           "data-independent transform. What does PaTH's grid become?",
                           ["Constant along each diagonal, like RoPE", "Still changing along the diagonals",
                            "All zeros"], 0,
                           lambda: f"With one transform M for every step, the score is q·M^(i−j) k: a function of "
                                   f"the offset only. Its largest spread along a diagonal is {flat:.2g}."):
        show(figures.heatmap(figures.blank_masked(same), title="PaTH with one fixed transform for every word",
                             x_title="key j", y_title="query i", value_name="q·k", name="path_fixed", height=320,
                             alt=f"A lower-triangular heatmap constant along its diagonals (largest spread "
                                 f"{flat:.2g}): a fixed transform, like RoPE's, sees only the offset."))
    notice(f"RoPE's diagonals are constant: two words {len(tokens) // 2} apart score the same wherever they sit. "
           f"PaTH's are not, because the transforms in between differ from word to word (spread up to "
           f"{spread['path']:.2f}). Position has become a property of the path, not of the count.")


def spread_tab(page, view, ex) -> None:
    offsets = ex.offsets
    show(figures.bars([str(t) for t in offsets], {"RoPE": ex.spread["rope"], "PaTH": ex.spread["path"]},
                      title="How much the score at one offset depends on where the pair sits",
                      x_title="offset i − j", y_title="max − min along the diagonal", name="path_spread",
                      alt=f"Grouped bars per offset: RoPE's spread is 0 at every offset (at most "
                          f"{ex.largest_spread['rope']:.1e}); PaTH's reaches {ex.largest_spread['path']:.2f}."))
    code(view, f'ex.spread["rope"], ex.spread["path"]  # ({len(offsets)},) each, the bars')
    names = [f"{i}·{t}" for i, t in enumerate(ex.tokens)]
    show(figures.bars(names, {"β_t": ex.beta}, title="Each word's strength β_t (2: a full reflection)",
                      x_title="word (index·text)", y_title="β", height=300, name="path_beta",
                      alt=f"Bars of β per word, between {ex.beta_range[0]:.2f} and {ex.beta_range[1]:.2f}."))
    notice("Offset 0 is the diagonal, q·k with no transform, the same for every word. The last offset has a single "
           "pair, so nothing to compare. In between, PaTH's spread is what data dependence adds; β near 0 makes "
           "a word nearly transparent, β near 2 reflects the query.")


def reflections_chart(theta):
    out = path_two_reflections(float(theta))
    vectors = {"w₁": tuple(out.w1), "w₂": tuple(out.w2), "e₁ rotated": tuple(out.rotation[:, 0])}
    return figures.vectors2d(vectors, title=f"Two reflections make a rotation by θ = {theta:g}",
                             name="path_reflections",
                             alt=f"Unit vectors w1 at angle 0 and w2 at angle {theta / 2:.2f}; reflecting across "
                                 f"both turns e1 to ({out.rotation[0, 0]:.3f}, {out.rotation[1, 0]:.3f}), "
                                 f"the rotation by {theta:g}.")


def reflections_tab(page, view, ex) -> None:
    with page.side:
        theta = controls.slider("Rotation angle θ", "theta", -3.0, 3.0, 1.0, step=0.1)
    out = path_two_reflections(float(theta))
    show(hero(reflections_chart, theta=theta))
    classroom.snippet(f"out = {classroom.call('path_two_reflections', float(theta))}",
                      'out.rotation, out.target  # (2, 2) each: H(w2) H(w1) and R(θ)')
    formula(r"H(w_2)H(w_1) = \begin{pmatrix}$a & $b\\ $c & $d\end{pmatrix} = R($t)", a=out.rotation[0, 0],
            b=out.rotation[0, 1], c=out.rotation[1, 0], d=out.rotation[1, 1], t=float(theta), digits=3)
    notice("Reflecting across the line orthogonal to w₁, then across the one orthogonal to w₂, turns every vector "
           "by twice the angle between them. So RoPE's fixed rotation per pair is two fixed Householder steps with "
           "β = 2; PaTH uses one step per token and lets the token pick w and β.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        sharp = controls.slider("β sharpness", "sharp", 0.0, 4.0, 1.0, step=0.25,
                                help="Multiplies u·x_t in β_t = 2σ(u·x_t); 0 gives every word β = 1.")
        dim = controls.select_slider("Head dimension", "dim", [2, 4, 8, 16], 8)
    with page.more:
        text = sentence_views.sentence_control()
        base = controls.select_slider("RoPE base", "base", [10.0, 100.0, 1000.0, 10000.0], 100.0,
                                      help="A small base turns fast enough to show in a short sentence.")
        seed = controls.slider("Toy weight seed", "seed", 0, 9, 0)
    view = {"sharp": float(sharp), "dim": dim, "text": text, "seed": seed, "base": float(base)}
    tabs = page.sections(["Scores along the path", "Offsets", "Rotations from reflections"])
    with guard():
        ex = sentence(text, dim, seed, float(base), float(sharp))
        for tab, draw in zip(tabs, (grids_tab, spread_tab, reflections_tab), strict=True):
            if tab.open:
                with tab:
                    draw(page, view, ex)


lesson()
why(WHY)
formula(r"\begin{gathered}H_t = I - \beta_t w_t w_t^\top,\quad \beta_t = 2\sigma(u^\top x_t)\\ "
        r"s_{ij} = q_i^\top H_i H_{i-1}\cdots H_{j+1}\, k_j\\ \text{RoPE: } s_{ij} = q_i^\top (R^\top)^{i-j} k_j\\ "
        r"= (R^i q_i)^\top (R^j k_j)\end{gathered}")
see_also("rope_relative", "fox")
source(path_scores, path_sentence)
