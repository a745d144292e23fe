import streamlit as st

import posenc_core as pc
from lessons.rope import relative_views
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
from page_kit.chart import figure_control
from page_kit.lesson.code_lines import fold
from posenc_core.measures import diagonal_cells, toeplitz_deviation
from posenc_core.rope import ROPE_LAYOUTS, rope_decay_bound, rope_mean_abs_scores

DISTANCES = [64, 256, 1024, 4096, 16384, 65536]
# the layouts' names as the reader reads them (the core's codes, ROPE_LAYOUTS, stay in the code and the snippets)
LAYOUT_NAMES = {"half": N_("half"), "interleaved": N_("interleaved")}


@st.cache_data(max_entries=32, show_spinner=False)
def score_grid(n: int, dim: int, base: float, layout: str, seed: int):
    scores = pc.rope_score_matrix(n, dim, base, layout, seed)
    return scores, toeplitz_deviation(scores)


header(_("RoPE is relative, and decays"),
       _("The same query and key placed at every position: under RoPE their score only sees how far apart they "
         "are."))
WHY = _("Each token's query and key are turned by their own absolute position, yet a score only sees how far "
        "apart the two tokens are. Here is that claim checked on a whole score matrix, then the other promise "
        "from the RoFormer paper: that scores fade as the distance grows. That promise needs a careful reading.")


def score_chart(layout: str, n: int, off: int, seed: int, d: int, base) -> figures.Chart:
    off = max(-(n - 1), min(n - 1, off))  # a frame for fewer positions shows the diagonal where its slider will be
    name = _(LAYOUT_NAMES[layout])
    chart = figures.heatmap(
        score_grid(n, d, float(base), layout, seed)[0], title=_("q_m · k_n, {layout} layout").format(layout=name),
        x_title=_("key position n"), y_title=_("query position m"), value_name=_("score"),
        name=f"rope_scores_{layout}", height=430,
        alt=_("Score matrix of one random query and key placed at every position, {layout} layout: "
              "every diagonal has a single colour.").format(layout=name))
    # the chosen diagonal, dotted: the cells with m − n = offset
    return figure_control.pick(figures.mark_diagonal(chart, off), diagonal="off")


def toeplitz_tab(page, dim: int, base: float) -> None:
    with page.side:
        n = controls.slider(_("Positions"), "n", 16, 512, 96, step=16)
        seed = controls.number(_("Random seed"), "seed", 0, 9999, 0,
                               help=_("Draws the query vector q and the key vector k."))
        # a click on a cell picks its diagonal m − n; this slider is its twin
        offset = controls.slider(_("Diagonal m − n"), "off", -(n - 1), n - 1, 0)
    grids = {layout: score_grid(n, dim, float(base), layout, seed) for layout in ROPE_LAYOUTS}
    deviations = {layout: grids[layout][1] for layout in ROPE_LAYOUTS}

    view = {"n": n, "off": offset, "seed": seed, "d": dim, "base": base}
    def along(layout: str) -> str:
        cells = diagonal_cells(grids[layout][0], offset)
        return _("Along m − n = {offset}: {count} cells, scores {low:.6f} to {high:.6f}.").format(
            offset=offset, count=cells.count, low=cells.min, high=cells.max)

    first, second = ROPE_LAYOUTS
    first_name, second_name = _(LAYOUT_NAMES[first]), _(LAYOUT_NAMES[second])
    show(hero(score_chart, layout=first, **view))
    st.caption(along(first))
    st.metric(_("Largest spread along a diagonal ({layout})").format(layout=first_name), f"{deviations[first]:.1e}")

    def diagonal_reveal() -> str:
        return _("Along every diagonal the {layout} grid varies by at most {spread:.1e} "
                 "({other_spread:.1e} for {other}): float32 rounding of the angles. Its colours "
                 "differ, because it pairs other dimensions, but moving both tokens by the same step "
                 "still leaves m − n, and the score, as is.").format(
            layout=second_name, spread=deviations[second], other_spread=deviations[first], other=first_name)

    with classroom.predict("rr_diagonal", _("The {layout} layout rotates other pairs of dimensions of "
                                            "the same q and k. Along each diagonal of its score matrix (m − n "
                                            "fixed), the score ...").format(layout=second_name),
                           [_("stays the same"), _("grows"), _("fades"), _("oscillates")], 0,
                           diagonal_reveal):
        show(hero(score_chart, layout=second, **view))
        st.caption(along(second))
        st.metric(_("Largest spread along a diagonal ({layout})").format(layout=second_name),
                  f"{deviations[second]:.1e}")
        classroom.snippet(fold(f"scores = {{layout: pc.rope_score_matrix({n}, {dim}, {float(base)!r}, "
                               f"layout, {seed}) for layout in pc.rope.ROPE_LAYOUTS}}",
                               f"({n}, {n}) float64 each"))
        formula(r"\tilde q_m\cdot\tilde k_n = \sum_{j} \mathrm{Re}\big(q_j\,\bar k_j\,"
                r"e^{\mathrm{i}(m-n)\theta_j}\big)"
                r"\quad\Rightarrow\quad \max_{\text{diagonals}}(\max-\min) = $a\ \text{(half)},\ "
                r"$b\ \text{(interleaved)}", a=deviations["half"], b=deviations["interleaved"], digits=2)
        notice(_("The same q and k sit at every position, so any change across the matrix comes from "
                 "the rotation alone. Stripes run parallel to the main diagonal: the score depends on m − n "
                 "only, a Toeplitz matrix. The spread printed is float32 rounding of the angles (about 1e-7 "
                 "of the angle, which grows with the position), not a failure of the idea. The two layouts "
                 "pair different dimensions, so with the same q and k they give different, but equally "
                 "Toeplitz, grids."))


def decay_tab(page, dim: int, base: float) -> None:
    with page.side:
        max_distance = controls.select_slider(_("Largest distance"), "dist", DISTANCES, 4096,
                                              format_func=lambda v: f"{v:,}")
        log_distance = controls.toggle(_("Log distance axis"), "logd", True)
    curves = relative_views.decay(dim, max_distance, float(base), log_distance)

    def random_reveal() -> str:
        return _("It stays between {low:.2f} and {high:.2f} at every distance "
                 "shown (it is {at_zero:.2f} at distance 0): turning a random direction gives "
                 "another random direction. Only the q = k score falls, with the bound.").format(
            low=curves.random_low, high=curves.random_high, at_zero=curves.random_at_zero)

    with classroom.predict("rr_random", _("Independent random q and k: as the distance m − n grows, "
                                          "their mean |q·k| ..."),
                           [_("falls, like the bound"), _("stays about flat"), _("grows")],
                           1, random_reveal):
        show(hero(relative_views.decay_chart, dist=max_distance, logd=log_distance, d=dim, base=base))
        made = classroom.call("rope_decay_curves", dim, max_distance, float(base),
                              log_distance=log_distance, samples=2048)
        classroom.snippet(fold(f"curves = {made}", "a DecayCurves"),
                          "# curves.distance and the four curves, e.g. curves.random_score")
        formula(r"\Big|\sum_{j=0}^{d/2-1} h_j\,e^{\mathrm{i} r\theta_j}\Big| \le "
                r"\big(\max_j |h_{j+1}-h_j|\big)"
                r"\sum_{j=1}^{d/2} |S_j|,\quad S_j = \sum_{k<j} e^{\mathrm{i} r\theta_k},"
                r"\quad h_j = q_j\bar k_j,\ h_{d/2} = 0;\qquad \textstyle\sum_j |S_j| = $s0 "
                r"\text{ at } r = 0",
                s0=curves.partial_sums_at_zero)
        st.caption(_("Averages over 2,048 seeded standard-normal vectors. At distance 0 the mean |q·k| is "
                     "{same_at_zero:.1f} for q = k (that is |q|² ≈ d) and "
                     "{random_at_zero:.1f} for independent q, k; the content factor "
                     "max |h_(j+1) − h_j| averages {same_factor:.2f} and "
                     "{random_factor:.2f}.").format(
            same_at_zero=curves.identical_at_zero, random_at_zero=curves.random_at_zero,
            same_factor=curves.identical_bound_factor, random_factor=curves.random_bound_factor))
        notice(_("Each dashed bound stays above its solid score at every distance shown, by a factor of at "
                 "least {same_slack:,.1f} for q = k and {random_slack:,.1f} for "
                 "random q, k: the bound limits the score, loosely. It falls with distance, and so does the "
                 "score of a query with an identical key: the pairs start aligned and drift out of phase. "
                 "Independent random q and k do **not** decay: their pairs point in random directions "
                 "already, and turning a random direction gives another random direction. So the decay is "
                 "a statement about aligned content. Raise the base and the decay stretches out, which is "
                 "why long-context models use a large rope_theta.").format(
            same_slack=curves.identical_slack, random_slack=curves.random_slack))
        st.caption(_("A common misconception compares the bound with the score after dividing each by its "
                     "value at distance 0. The bound is loosest at distance 0, so divided that way it falls "
                     "below the q = k score at {below:,} of the "
                     "{distances:,} distances here, although in the score's units (above) it "
                     "never does.").format(below=curves.normalised_bound_below, distances=len(curves.distance)))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
# Labels are marked N_() and shown translated by page.walk.
TABS = [
    (N_("Scores are Toeplitz"), toeplitz_tab),
    (N_("Long-term decay"), decay_tab),
]


@st.fragment
def lesson():
    page = stage()
    with page.more:
        dim = controls.head_dim_slider(label=_("Head dimension d"), help=_("d/2 rotating pairs per head."))
        base = controls.base_slider(label=_("Base (rope_theta)"))
    with guard():
        page.walk(TABS, page, dim, base)


lesson()
why(WHY)
source(pc.rope_score_matrix, rope_mean_abs_scores, rope_decay_bound)
