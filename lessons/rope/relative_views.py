"""The decay tab's measured curves and their figure (lessons/rope/rope_relative)."""

import streamlit as st

from page_kit import _, figures
from posenc_core.rope import rope_decay_curves


@st.cache_data(max_entries=32, show_spinner=False)
def decay(dim: int, max_distance: int, base: float, log_distance: bool):
    return rope_decay_curves(dim, max_distance, base, log_distance=log_distance, samples=2048)


def decay_chart(dist: int, logd: bool, d: int, base) -> figures.Chart:
    curves = decay(d, dist, float(base), logd)
    bound_same, score_same = _("RoFormer's bound, q = k"), _("mean |q·k|, q = k")
    bound_random, score_random = _("RoFormer's bound, random q, k"), _("mean |q·k|, random q, k")
    return figures.lines(
        curves.distance, {bound_same: curves.identical_bound,
                             score_same: curves.identical_score,
                             bound_random: curves.random_bound,
                             score_random: curves.random_score},
        log_x=logd, log_y=True,
        title=_("Scores and their bound against relative distance (d = {d}, base {base:,})").format(d=d, base=base),
        x_title=_("relative distance m − n (positions)"), y_title=_("|q·k| (log scale)"),
        name="rope_decay", height=460, hover_format=".3g",
        dashed=[bound_same, bound_random],
        colours={bound_same: 0, score_same: 0, bound_random: 1, score_random: 1},
        alt=_("Log-scale lines in the score's own units: each dashed bound stays above its solid "
              "measured score; the q = k score falls with distance, the random one stays flat."))
