import streamlit as st

import posenc_core as pc
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.chart import figure_control
from page_kit.lesson.code_lines import fold
from posenc_core.measures import diagonal_cells, toeplitz_deviation
from posenc_core.rope import ROPE_LAYOUTS, rope_decay_bound, rope_decay_curves, rope_mean_abs_scores

DISTANCES = [64, 256, 1024, 4096, 16384, 65536]


@st.cache_data(max_entries=32, show_spinner=False)
def score_grid(n: int, dim: int, base: float, layout: str, seed: int):
    scores = pc.rope_score_matrix(n, dim, base, layout, seed)
    return scores, toeplitz_deviation(scores)


@st.cache_data(max_entries=32, show_spinner=False)
def decay(dim: int, max_distance: int, base: float, log_distance: bool):
    return rope_decay_curves(dim, max_distance, base, log_distance=log_distance, samples=2048)


header("RoPE is relative, and decays",
       "The same query and key placed at every position: under RoPE their score only sees how far apart they are.")
WHY = ("Each token's query and key are turned by their own absolute position, yet a score only sees how far "
       "apart the two tokens are. Here is that claim checked on a whole score matrix, then the other promise "
       "from the RoFormer paper: that scores fade as the distance grows. That promise needs a careful reading.")


def score_chart(layout: str, n: int, off: int, seed: int, d: int, base) -> figures.Chart:
    off = max(-(n - 1), min(n - 1, off))  # a frame for fewer positions shows the diagonal where its slider will be
    chart = figures.heatmap(
        score_grid(n, d, float(base), layout, seed)[0], title=f"q_m · k_n, {layout} layout",
        x_title="key position n", y_title="query position m", value_name="score", name=f"rope_scores_{layout}",
        height=430, alt=f"Score matrix of one random query and key placed at every position, {layout} layout: "
                        "every diagonal has a single colour.")
    # the chosen diagonal, dotted: the cells with m − n = offset
    return figure_control.pick(figures.mark_diagonal(chart, off), diagonal="off")


def decay_chart(dist: int, logd: bool, d: int, base) -> figures.Chart:
    curves = decay(d, dist, float(base), logd)
    return figures.lines(
        curves.distance, {"RoFormer's bound, q = k": curves.identical_bound,
                             "mean |q·k|, q = k": curves.identical_score,
                             "RoFormer's bound, random q, k": curves.random_bound,
                             "mean |q·k|, random q, k": curves.random_score},
        log_x=logd, log_y=True,
        title=f"Scores and their bound against relative distance (d = {d}, base {base:,})",
        x_title="relative distance m − n (positions)", y_title="|q·k| (log scale)",
        name="rope_decay", height=460, hover_format=".3g",
        dashed=["RoFormer's bound, q = k", "RoFormer's bound, random q, k"],
        colours={"RoFormer's bound, q = k": 0, "mean |q·k|, q = k": 0,
                 "RoFormer's bound, random q, k": 1, "mean |q·k|, random q, k": 1},
        alt="Log-scale lines in the score's own units: each dashed bound stays above its solid "
            "measured score; the q = k score falls with distance, the random one stays flat.")


def toeplitz_tab(page, dim: int, base: float) -> None:
    with page.side:
        n = controls.slider("Positions", "n", 16, 512, 96, step=16)
        seed = controls.number("Random seed", "seed", 0, 9999, 0,
                               help="Draws the query vector q and the key vector k.")
        # a click on a cell picks its diagonal m − n; this slider is its twin
        offset = controls.slider("Diagonal m − n", "off", -(n - 1), n - 1, 0)
    grids = {layout: score_grid(n, dim, float(base), layout, seed) for layout in ROPE_LAYOUTS}
    deviations = {layout: grids[layout][1] for layout in ROPE_LAYOUTS}

    view = {"n": n, "off": offset, "seed": seed, "d": dim, "base": base}
    def along(layout: str) -> str:
        cells = diagonal_cells(grids[layout][0], offset)
        return (f"Along m − n = {offset}: {cells.count} cells, scores {cells.min:.6f} to "
                f"{cells.max:.6f}.")

    first, second = ROPE_LAYOUTS
    show(hero(score_chart, layout=first, **view))
    st.caption(along(first))
    st.metric(f"Largest spread along a diagonal ({first})", f"{deviations[first]:.1e}")

    def diagonal_reveal() -> str:
        return (f"Along every diagonal the {second} grid varies by at most {deviations[second]:.1e} "
                f"({deviations[first]:.1e} for {first}): float32 rounding of the angles. Its colours "
                "differ, because it pairs other dimensions, but moving both tokens by the same step "
                "still leaves m − n, and the score, as is.")

    with classroom.predict("rr_diagonal", f"The {second} layout rotates other pairs of dimensions of "
                           "the same q and k. Along each diagonal of its score matrix (m − n fixed), "
                           "the score ...", ["stays the same", "grows", "fades", "oscillates"], 0,
                           diagonal_reveal):
        show(hero(score_chart, layout=second, **view))
        st.caption(along(second))
        st.metric(f"Largest spread along a diagonal ({second})", f"{deviations[second]:.1e}")
        classroom.snippet(fold(f"scores = {{layout: pc.rope_score_matrix({n}, {dim}, {float(base)!r}, "
                               f"layout, {seed}) for layout in pc.rope.ROPE_LAYOUTS}}",
                               f"({n}, {n}) float64 each"))
        formula(r"\tilde q_m\cdot\tilde k_n = \sum_{j} \mathrm{Re}\big(q_j\,\bar k_j\,"
                r"e^{\mathrm{i}(m-n)\theta_j}\big)"
                r"\quad\Rightarrow\quad \max_{\text{diagonals}}(\max-\min) = $a\ \text{(half)},\ "
                r"$b\ \text{(interleaved)}", a=deviations["half"], b=deviations["interleaved"], digits=2)
        notice("The same q and k sit at every position, so any change across the matrix comes from "
               "the rotation alone. Stripes run parallel to the main diagonal: the score depends on m − n "
               "only, a Toeplitz matrix. The spread printed is float32 rounding of the angles (about 1e-7 "
               "of the angle, which grows with the position), not a failure of the idea. The two layouts "
               "pair different dimensions, so with the same q and k they give different, but equally "
               "Toeplitz, grids.")


def decay_tab(page, dim: int, base: float) -> None:
    with page.side:
        max_distance = controls.select_slider("Largest distance", "dist", DISTANCES, 4096,
                                              format_func=lambda v: f"{v:,}")
        log_distance = controls.toggle("Log distance axis", "logd", True)
    curves = decay(dim, max_distance, float(base), log_distance)

    def random_reveal() -> str:
        return (f"It stays between {curves.random_low:.2f} and {curves.random_high:.2f} at every distance "
                f"shown (it is {curves.random_at_zero:.2f} at distance 0): turning a random direction gives "
                "another random direction. Only the q = k score falls, with the bound.")

    with classroom.predict("rr_random", "Independent random q and k: as the distance m − n grows, "
                           "their mean |q·k| ...", ["falls, like the bound", "stays about flat", "grows"],
                           1, random_reveal):
        show(hero(decay_chart, dist=max_distance, logd=log_distance, d=dim, base=base))
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
        st.caption(f"Averages over 2,048 seeded standard-normal vectors. At distance 0 the mean |q·k| is "
                   f"{curves.identical_at_zero:.1f} for q = k (that is |q|² ≈ d) and "
                   f"{curves.random_at_zero:.1f} for independent q, k; the content factor "
                   f"max |h_(j+1) − h_j| averages {curves.identical_bound_factor:.2f} and "
                   f"{curves.random_bound_factor:.2f}.")
        notice(f"Each dashed bound stays above its solid score at every distance shown, by a factor of at "
               f"least {curves.identical_slack:,.1f} for q = k and {curves.random_slack:,.1f} for "
               "random q, k: the bound limits the score, loosely. It falls with distance, and so does the "
               "score of a query with an identical key: the pairs start aligned and drift out of phase. "
               "Independent random q and k do **not** decay: their pairs point in random directions "
               "already, and turning a random direction gives another random direction. So the decay is "
               "a statement about aligned content. Raise the base and the decay stretches out, which is "
               "why long-context models use a large rope_theta.")
        st.caption("A common misconception compares the bound with the score after dividing each by its "
                   "value at distance 0. The bound is loosest at distance 0, so divided that way it falls "
                   f"below the q = k score at {curves.normalised_bound_below:,} of the "
                   f"{len(curves.distance):,} distances here, although in the score's units (above) it "
                   "never does.")


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Scores are Toeplitz", toeplitz_tab),
    ("Long-term decay", decay_tab),
]


@st.fragment
def lesson():
    page = stage()
    with page.more:
        dim = controls.head_dim_slider()
        base = controls.base_slider()
    with guard():
        page.walk(TABS, page, dim, base)


lesson()
why(WHY)
source(pc.rope_score_matrix, rope_mean_abs_scores, rope_decay_bound)
