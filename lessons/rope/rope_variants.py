import streamlit as st

from lessons.rope import fope_views, rope_views, variants_views
from page_kit import (
    N_,
    _,
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    hero,
    notice,
    show,
    source,
    stage,
    why,
)
from page_kit.lesson.code_lines import fold
from posenc_core.rope import (
    ROPE_LAYOUTS,
    half_rows_to_interleaved,
    half_to_interleaved_permutation,
    rope_angle_error_curve,
    rope_cos_table,
    rope_float32_pow_difference,
    rope_layout_check,
    round_to_dtype,
)

# the layouts' names as the reader reads them (the core's codes, ROPE_LAYOUTS, stay in the code and the snippets)
LAYOUT_NAMES = {"half": N_("half"), "interleaved": N_("interleaved")}


@st.cache_data(max_entries=16, show_spinner=False)
def layout_check(dim: int, base: float):
    check = rope_layout_check(8, dim, base)
    pairs = {layout: rope_cos_table(1, dim, base, layout=layout).pair for layout in ROPE_LAYOUTS}
    return check, pairs


@st.cache_data(max_entries=16, show_spinner=False)
def cos_table(n: int, dim: int, base: float, fraction: float, layout: str):
    return rope_cos_table(n, dim, base, partial_rotary_factor=fraction, layout=layout)


header(_("RoPE layouts, partial rotary and precision"),
       _("Implementations of RoPE pick different pairs, rotate different shares of a head and compute the angles "
         "in different precisions: details that decide whether a converted checkpoint works."))
WHY = _("Every RoPE implementation turns pairs of numbers, but they do not all pick the same pairs, they do not "
        "all rotate every dimension, and they do not all compute the angles with the same precision. These "
        "details are invisible in the paper and decide whether a converted checkpoint works and whether "
        "position 100,000 still means anything.")


def pairs_chart(d: int, base) -> figures.Chart:
    _check, pairs = layout_check(d, float(base))
    return figures.heatmap(
        [pairs["half"], pairs["interleaved"]], y=[_(LAYOUT_NAMES["half"]), _(LAYOUT_NAMES["interleaved"])],
        title=_("Which pair each dimension of a head belongs to"), x_title=_("dimension"), y_title=_("layout"),
        value_name=_("pair index"), name="rope_layout_pairs", height=260, hover_format=".0f",
        alt=_("Two rows of pair indices over {d} dimensions: the half layout counts 0 to {last} twice, the "
              "interleaved layout repeats each index in two neighbouring dimensions.").format(d=d, last=d // 2 - 1))


def partial_chart(pos: int, pct: float, layout: str, d: int, base) -> figures.Chart:
    table = cos_table(pos, d, float(base), float(pct), layout)
    r = table.rotary_dim
    shade = [(r - 0.5, d - 0.5, _("pass-through: not rotated"))] if r < d else []
    return figures.heatmap(
        table.cos, title=_("cos(mθ) applied to each dimension: {r} of {d} rotate ({layout})").format(
            r=r, d=d, layout=_(LAYOUT_NAMES[layout])),
        x_title=_("dimension"), y_title=_("position m"), value_name="cos", name="rope_partial", height=430,
        shade_cols=shade, zrange=(-1.0, 1.0), hover_format=".3f",
        alt=_("Over {pos} positions the first {r} dimensions oscillate with position; the remaining {rest} "
              "stay at cos = 1, unrotated.").format(pos=pos, r=r, rest=d - r))


def layouts_tab(page, dim: int, base: float) -> None:
    check, _pairs = layout_check(dim, float(base))
    show(hero(pairs_chart, d=dim, base=base))
    classroom.snippet(fold(f"check = {classroom.call('rope_layout_check', 8, dim, float(base))}", "a LayoutCheck"),
                      "# check.with_perm, check.without_perm: the two numbers below",
                      fold(f"pairs = {{layout: pc.rope.rope_cos_table(1, {dim}, {float(base)!r}, layout=layout)"
                           f".pair for layout in pc.rope.ROPE_LAYOUTS}}", f"({dim},) each: the two rows"))

    def layouts_reveal() -> str:
        return _("Reordered by the fixed permutation π they differ by at most {with_perm:.1e} "
                 "(rounding); applied to the same vector as it is, by up to {without_perm:.2f}. "
                 "The figure shows why: the two layouts put pair i in different dimensions.").format(
            with_perm=check.with_perm, without_perm=check.without_perm)

    with classroom.predict("rv_layouts", _("Both layouts turn pair i by the same angle θ_i. Rotate one vector "
                                           "with each layout: do the results agree?"),
                           [_("yes, exactly, as they are"), _("yes, once the dimensions are reordered"),
                            _("no, they can never agree")], 1, layouts_reveal):
        c = st.columns(2)
        # a formula of code names: the same in every language
        c[0].metric("max |RoPE_half(x)[perm] − RoPE_interleaved(x[perm])|", f"{check.with_perm:.1e}")
        c[1].metric(_("Same vector, other layout, no permutation"), f"{check.without_perm:.2f}")
        perm = ", ".join(str(v) for v in check.perm[:8])
        formula(r"x^{\text{interleaved}} = x^{\text{half}}[\pi],\quad \pi = ($perm,\dots)", perm=perm)
        formula(r"\mathrm{RoPE}_{\text{interleaved}}(x[\pi]) = \mathrm{RoPE}_{\text{half}}(x)[\pi]")
        notice(_("The half layout (transformers' `rotate_half`, GPT-NeoX) pairs dimension i with i + d/2; the "
                 "interleaved layout (Meta's Llama code, GPT-J, RoFormer) pairs 2i with 2i+1. Pair i turns at the "
                 "same speed θ_i in both. Reorder the dimensions with the fixed permutation π and the two agree "
                 "exactly (the first number is zero, or rounding); apply the other layout without reordering and "
                 "the result is simply different."))


def convert_tab(page, dim: int, base: float) -> None:
    with page.side:
        n = controls.slider(_("Positions"), "n", 8, 256, 48, step=8)
        seed = controls.number(_("Random seed"), "seed", 0, 9999, 0,
                               help=_("Draws the token vectors and the weights W_q, W_k."))
    conv = variants_views.conversion(n, dim, float(base), seed)
    left, right = st.columns(2)
    with left:  # both grids drawn ahead of the hand, so they move together
        show(hero(variants_views.convert_chart, side="half", n=n, seed=seed, d=dim, base=base))
    with right:
        show(hero(variants_views.convert_chart, side="naive", n=n, seed=seed, d=dim, base=base))
    made = classroom.call("rope_conversion_scores", n, dim, float(base), seed=seed)
    classroom.snippet(fold(f"conv = {made}", "a ConversionScores"),
                      f"# conv.half, conv.naive ({n}, {n}) float64: the two grids",
                      "# conv.converted_error, conv.naive_error: the numbers below")
    c = st.columns(2)
    c[0].metric(_("Rows of W_q, W_k permuted: largest score change"), f"{conv.converted_error:.1e}")
    c[1].metric(_("Weights left as they are: largest score change"), f"{conv.naive_error:.2f}")
    formula(r"W_q' = P\,W_q,\ W_k' = P\,W_k \;\Rightarrow")
    formula(r"\mathrm{RoPE}_{\text{inter}}(W_q' x_m)\cdot\mathrm{RoPE}_{\text{inter}}(W_k' x_n) = "
            r"\mathrm{RoPE}_{\text{half}}(W_q x_m)\cdot\mathrm{RoPE}_{\text{half}}(W_k x_n)")
    notice(_("A layout is baked into the trained weights: the rows of W_q and W_k that the model learned to use as "
             "partners must be the ones the rotation pairs up. Converting a checkpoint therefore permutes the rows "
             "of W_q and W_k inside every head (transformers' script that converts Meta's Llama weights does "
             "exactly this, row 2i to i and row 2i+1 to i + d/2). W_v and the output projection are untouched: "
             "values are never rotated. Forget the permutation and the model still runs, with scores that mean "
             "nothing."))


def partial_tab(page, dim: int, base: float) -> None:
    with page.side:
        fraction = controls.choice(_("Rotated fraction"), "pct", [0.25, 0.5, 1.0], 0.25,
                                   help=_("GPT-NeoX and Pythia: rotary_pct = 0.25. transformers calls it "
                                          "partial_rotary_factor."))
        layout = controls.choice(_("Layout"), "layout", list(ROPE_LAYOUTS), "half",
                                 format_func=lambda code: _(LAYOUT_NAMES[code]))
        npos = controls.slider(_("Positions"), "pos", 16, 1024, 128, step=16)
    r = cos_table(npos, dim, float(base), float(fraction), layout).rotary_dim
    show(hero(partial_chart, pos=npos, pct=fraction, layout=layout, d=dim, base=base))
    made = classroom.call("rope_cos_table", npos, dim, float(base), partial_rotary_factor=float(fraction),
                          layout=layout)
    classroom.snippet(fold(f"table = {made}", "a CosTable"), f"# table.cos ({npos}, {dim}) float32: the heatmap")
    formula(r"r = \lfloor d \cdot \text{fraction} \rfloor = \lfloor $d \cdot $f \rfloor = $r,\qquad"
            r"\theta_i = b^{-2i/r}\ (i < r/2)", d=dim, f=float(fraction), r=r)
    notice(_("Only the first r dimensions are rotated; the rest of the head passes through unchanged, so those "
             "dimensions give a position-free similarity of content. Note that θ_i uses r, not d, in the exponent: "
             "with a quarter of the dimensions rotated, the frequencies span the same range with four times fewer "
             "pairs. GPT-NeoX-20B rotates 24 of 96 dimensions; GPT-J 64 of 256 (interleaved); Phi-2 32 of 80."))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
# Labels are marked N_() and shown translated by page.walk.
TABS = [
    (N_("Two layouts"), layouts_tab),
    (N_("Converting a checkpoint"), convert_tab),
    (N_("Partial rotary"), partial_tab),
    (N_("Precision"), lambda page, dim, base: rope_views.precision_section(dim, base, page.side)),
    ("FoPE", fope_views.fope_tab),  # a method's name: the same in every language
]


@st.fragment
def lesson():
    page = stage()
    with page.more:  # every tab uses them; each tab's own controls sit beside its figure
        dim = controls.head_dim_slider(controls.CHECKPOINT_HEAD_DIMS, label=_("Head dimension d"),
                                       help=_("d/2 rotating pairs per head."))
        base = controls.base_slider(label=_("Base (rope_theta)"))
    with guard():
        page.walk(TABS, page, dim, base)


lesson()
why(WHY)
source(half_to_interleaved_permutation, half_rows_to_interleaved, rope_cos_table, round_to_dtype,
       rope_angle_error_curve, rope_float32_pow_difference)
