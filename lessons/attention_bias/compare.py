import streamlit as st

from lessons.attention_bias.compare_views import COUNT, CURVE_LABELS, METHOD_WORDS, comparison_table
from page_kit import N_, _, classroom, controls, figures, formula, guard, header, notice, show, source, stage, why
from posenc_core.attention_bias import parameter_counts, score_curves, t5_bucket_layout

DISTANCES = [32, 64, 128, 256, 512, 1024, 2048, 4096]


@st.cache_data(max_entries=32, show_spinner=False)
def counts(d_model: int, n_heads: int, n_layers: int, max_len: int, num_buckets: int, max_rel: int):
    return parameter_counts(d_model, n_heads, n_layers, max_len, num_buckets, max_rel)


@st.cache_data(max_entries=32, show_spinner=False)
def curves(max_r: int, dim: int, heads: int, head: int, num_buckets: int, max_distance: int, seed: int,
           scale: str):
    return score_curves(max_r, dim, 10000.0, heads, head, num_buckets, max_distance, seed, scale)


header(_("Compare all encodings"),
       _("Every method on one page: where each puts position, what it costs, how it copes with longer inputs, and "
         "what it adds to a score as the distance grows."))
WHY = _("Every method on one page. The table says where each puts position, what it costs in parameters and how "
        "it behaves on inputs longer than training; the plot shows what each adds to an attention score as the "
        "distance between query and key grows, so the families can be seen on the same axes.")
COSTS = ("parameters", COUNT)
SCALES = {"relative": N_("relative"), "raw": N_("raw")}  # the columns that answer the length question, shown after it


def table_tab(page) -> None:
    with page.side:
        max_len = controls.select_slider("L_max", "lmax", [128, 512, 1024, 2048, 4096, 8192], 512,
                                         format_func=lambda v: f"{v:,}")
        d_model = controls.select_slider("d_model", "dm", [256, 512, 768, 1024, 2048, 4096], 512)
        n_heads = controls.select_slider(_("Heads"), "h", [4, 8, 16, 32], 8)
        n_layers = controls.slider(_("Layers"), "L", 1, 48, 6)
    methods = st.container()  # the table leads; the two sizes under it change only its T5 and Shaw counts
    with st.container(horizontal=True):
        num_buckets = controls.select_slider(_("T5 buckets"), "nb", [8, 16, 32, 64, 128], 32)
        max_rel = controls.slider(_("Shaw k"), "k", 1, 64, 16)
    now = counts(d_model, n_heads, n_layers, max_len, num_buckets, max_rel)
    data = comparison_table(now)
    methods.table({_(k): v for k, v in data.items() if k not in COSTS}, hide_index=True, border="horizontal")
    with ask_length_cost(now, d_model, n_heads, n_layers, max_len, num_buckets, max_rel):
        shown = [f"{c:,}" for c in data[COUNT]]  # thousands separators
        st.table({_("method"): data["method"], _("parameters"): data["parameters"], _(COUNT): shown},
                 hide_index=True, border="horizontal")
        counts_call = classroom.call("parameter_counts", d_model, n_heads, n_layers, max_len, num_buckets, max_rel)
        classroom.snippet(f"counts = {counts_call}  # position parameters, by method")
        notice(_("Only learned tables cost parameters, and only the learned absolute table grows with the maximum "
                 "length. The methods that act on the scores (ALiBi, T5) or on q and k (RoPE) are the ones that "
                 "cope with longer inputs; the ones added once at the input do not."))
    st.caption(_("The counts come from `posenc_core.attention_bias.parameter_counts`, which evaluates each family's "
                 "formula in `posenc_core.attention_bias.comparison.METHODS` for the sizes above. T5 keeps one "
                 "bucket table per stack, shared by its layers; Shaw et al. share their tables across heads but not "
                 "layers. ALiBi's penalty is subtracted in the paper's words and added as a negative bias in code: "
                 "the same number, so both descriptions in the table hold."))


def curves_tab(page) -> None:
    with page.side:
        max_r = controls.select_slider(_("Largest distance"), "r", DISTANCES, 256, format_func=lambda v: f"{v:,}")
        dim = controls.select_slider(_("Dimension (sin, RoPE)"), "d", [16, 32, 64, 128, 256], 64)
        head = controls.slider(_("ALiBi head (of 8)"), "ah", 1, 8, 8,
                               help=_("Head 1 has slope 1/2, head 8 slope 1/256."))
        scale = controls.choice(_("Scale"), "scale", list(SCALES), "relative",
                                help=_("relative: each curve's change from distance 0, divided by its largest "
                                       "change. raw: each in its own units."),
                                format_func=lambda s: _(SCALES[s]))
    r, values = curves(max_r, dim, 8, head, 32, 128, 0, scale)
    curves_call = classroom.call("score_curves", max_r, dim, 10000.0, 8, head, 32, 128, 0, scale)
    layout = t5_bucket_layout(False, 32, 128)
    show(figures.lines(
        r, {_(CURVE_LABELS[name]): curve for name, curve in values.items()},
        title=_("What each family adds to a score, by distance (keys behind the query)"),
        x_title=_("distance r = query − key (tokens)"),
        y_title=_("change from r = 0 (scaled)") if scale == "relative" else _("score contribution"),
        vlines=[(128, "T5 max_distance")] if max_r >= 128 else [], name="compare_curves",
        alt=_("Four curves against distances 0 to {max_r:,}: sinusoidal and RoPE fall with ripples, ALiBi (head "
              "{head}) falls in a straight line, T5 falls in steps and goes flat from {last}.").format(
            max_r=max_r, head=head, last=layout.last_bucket_from)))
    classroom.snippet(f"r, values = {curves_call}  # r: ({max_r + 1},) distances; values: one curve per family, "
                      "as plotted")
    notice(_("Sinusoidal and RoPE decay implicitly and ripple. RoPE's curve is RoFormer's relative bound: "
             "multiplied by a factor set by the content of q and k it limits |q·k|, so it shows how the ceiling on a "
             "score falls, not the score itself (the RoPE decay page draws both in the same units). ALiBi is the "
             "only straight line and never stops falling. T5 moves in steps and is flat from distance {last} on "
             "(its values here are a seeded illustration of learned biases, 32 causal buckets). Drag the largest "
             "distance to 4,096 to see which families still separate far keys.").format(
        last=layout.last_bucket_from))
    formula(r"\text{sin: } \sum_{i<d/2}\cos(r\,\omega_i)\qquad \text{RoPE: } \tfrac{1}{d/2}\sum_{j}"
            r"\Big|\sum_{i<j} e^{\mathrm{i} r \theta_i}\Big|")
    formula(r"\text{ALiBi: } -m\,r,\ m = 2^{-$h}\qquad \text{T5: } \beta_{b(r)}", h=head)
    st.caption(_("With q = k = the all-ones vector, a RoPE score equals 2 Σ cos(r θ_i): the same curve as the "
                 "sinusoidal dot product. The two share their frequencies; they differ in where the position enters "
                 "(input versus every q and k)."))


def ask_length_cost(now, d_model, n_heads, n_layers, max_len, num_buckets, max_rel) -> classroom.Prediction:
    """Which parameter counts grow with the maximum length: asked before the counts answer it."""
    doubled = parameter_counts(d_model, n_heads, n_layers, 2 * max_len, num_buckets, max_rel)
    grown = [m for m in now if doubled[m] != now[m]]
    answer = 2 if not grown else 0 if grown == ["learned"] else 1

    def reveal() -> str:
        changes = ("; ".join(f"{_(METHOD_WORDS[m].name)}: {now[m]:,} → {doubled[m]:,}" for m in grown)
                   or _("nothing changes"))
        return _("At L_max = {doubled:,} instead of {max_len:,}: {changes}. T5 ({t5:,}) and Shaw ({shaw:,}) learn "
                 "tables too, but theirs are indexed by (clipped or bucketed) distance, not by position, so they do "
                 "not grow with the input.").format(doubled=2 * max_len, max_len=max_len, changes=changes,
                                                     t5=now["t5"], shaw=now["shaw"])

    return classroom.predict("cmp_length", _("Double L_max from {max_len:,} to {doubled:,}: whose position "
                                             "parameters grow?").format(max_len=max_len, doubled=2 * max_len),
                             [_("only the learned absolute table's"),
                              _("every learned method's (absolute, T5, Shaw)"), _("nobody's")],
                             answer, reveal)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    (N_("The table"), table_tab),
    (N_("Score against distance"), curves_tab),
]


@st.fragment
def lesson():
    page = stage(more_label=None)  # each tab's controls sit beside its figure
    with guard():
        page.walk(TABS, page)


lesson()
why(WHY)
source(parameter_counts, score_curves)
