import contextlib

import streamlit as st

from lessons.long_context import extension_views
from page_kit import classroom, controls, figures, guard, header, hero, notice, show, source, stage, why
from posenc_core.long_context import (
    EXTENSION_METHODS,
    extension_analysis,
    extension_at_defaults,
    extension_band_counts,
    extension_scaling,
    fastest_pair_when_doubled,
)

LABELS = extension_views.METHOD_LABELS


@st.cache_data(max_entries=128, show_spinner=False)
def analyse(method: str | None, head_dim: int, base: float, original: int, factor: float):
    return extension_at_defaults(method, head_dim, base, original, factor)


FAST_PAIR_METHODS = ("linear", "ntk", "yarn", "llama3")  # the question's options, in the default selection's order


@st.cache_data(max_entries=64, show_spinner=False)
def doubling(head_dim: int, base: float, original: int, factor: float):
    return fastest_pair_when_doubled(FAST_PAIR_METHODS, head_dim, base, original, factor)

header("Compare extension methods",
       "Same model, same target length L′ = s·L, different recipes: overlaid, the methods split into those that "
       "slow every rotary pair and those that leave the fast pairs alone.")
WHY = ("Same model, same target length, different recipes. Overlaid, the methods separate into two families: "
       "those that slow every pair (position interpolation) and those that leave the fast pairs alone and "
       "concentrate the slowing on pairs that never completed a turn in training (NTK-aware, YaRN, Llama 3, "
       "LongRoPE). Default knobs throughout: YaRN β = 32/1, Llama 3 low/high = 1/4, dynamic NTK at L′.")


def _snippet(view, what: str) -> None:
    """The page's loop: one call per method at its default knobs (None = no scaling, the dashed reference)."""
    classroom.snippet(
        f"for method in {[None, *view['chosen']]!r}:",
        f"    result, distances, scores = pc.long_context.extension_at_defaults(method, {view['head_dim']}, "
        f"{float(view['base'])!r}, {view['original']}, {float(view['factor'])!r})",
        f"    print(method, {what})")


def ask_doubled(view):
    """What if s doubles: whose fastest pair (pair 0, the left end of each line) changes? Read from the core."""
    factor, twice = float(view["factor"]), 2.0 * float(view["factor"])
    doubled = doubling(view["head_dim"], float(view["base"]), view["original"], factor)
    ratio, changed = {factor: doubled.before, twice: doubled.after}, doubled.changed
    options = [LABELS[m] for m in FAST_PAIR_METHODS] + ["every one of them", "none of them"]
    if len(changed) not in (0, 1, len(FAST_PAIR_METHODS)):
        return contextlib.nullcontext(), ratio  # no single right option at this setting: no question
    answer = (list(FAST_PAIR_METHODS).index(changed[0]) if len(changed) == 1 else
              len(FAST_PAIR_METHODS) if changed else len(FAST_PAIR_METHODS) + 1)

    def reveal() -> str:
        moves = ", ".join(f"{LABELS[m]} {ratio[factor][m]:.4g} → {ratio[twice][m]:.4g}"
                          for m in FAST_PAIR_METHODS)
        return (f"θ′/θ of pair 0 from s = {factor:g} to s = {twice:g}: {moves}. Only a method that divides every "
                "pair by s moves the pair that tells neighbouring tokens apart.")

    asked = classroom.predict("cmp_fast", f"Double the stretch from s = {factor:g} to s = {twice:g}. Whose fastest "
                              "pair (pair 0, the left end of each line) changes its θ′/θ?", options, answer, reveal)
    return asked, ratio


def ratio_figure(s, L, base, d, ms) -> figures.Chart:
    """θ′/θ per pair of each chosen method at the factor ``s`` (the hero's frames are built here too)."""
    results = {LABELS[m]: analyse(m, d, float(base), L, float(s)) for m in ms}
    return figures.roomy_lines(analyse(None, d, float(base), L, float(s))[0].pair,
                               {k: r[0].ratio for k, r in results.items()},
                               title=f"θ′/θ per pair, s = {s:g}", x_title="rotary pair i",
                               y_title="θ′/θ (log scale)", log_y=True, hover_format=".4g",
                               hlines=[(1.0, "1: kept"), (1 / s, "1/s")], name="cmp_ratio",
                               alt=f"New over old frequency per rotary pair at s = {s:g} for "
                                   + ", ".join(f"{k} (pair 0: {r[0].ratio[0]:.3g}, last pair: "
                                               f"{r[0].ratio[-1]:.3g})" for k, r in results.items()) + ".")


def ratio_tab(view) -> None:
    factor = view["factor"]
    show(hero(ratio_figure, s=factor, L=view["original"], base=view["base"], d=view["head_dim"], ms=view["chosen"]))
    _snippet(view, "result.ratio)  # (head_dim/2,): θ′/θ per pair")
    asked, ratio = ask_doubled(view)
    with asked:
        twice = 2.0 * float(factor)
        st.dataframe({"method": [LABELS[m] for m in FAST_PAIR_METHODS],
                      f"pair 0 θ′/θ at s = {factor:g}": [ratio[float(factor)][m] for m in FAST_PAIR_METHODS],
                      f"pair 0 θ′/θ at s = {twice:g}": [ratio[twice][m] for m in FAST_PAIR_METHODS]},
                     hide_index=True, width="content")
        notice("Position interpolation is flat at 1/s: even the fastest pairs, which distinguish neighbouring "
               "tokens, are slowed, which blurs local order. The others start at 1 (fast pairs kept) and "
               "reach 1/s only for the slowest pairs; YaRN and Llama 3 do it with a plateau at each end, "
               "NTK with a smooth geometric slide.")


def wavelength_tab(view, results, none, pairs) -> None:
    original, target = view["original"], view["target"]
    series = {"no scaling": none.wavelength_before}
    series.update({k: r[0].wavelength_after for k, r in results.items()})
    show(figures.roomy_lines(pairs, series, title="Wavelength of each pair after scaling",
                             x_title="rotary pair i", y_title="wavelength (positions, log)", log_y=True,
                             dashed=("no scaling",), hover_format=",.1f", name="cmp_wavelength",
                             hlines=[(original, f"L = {original:,}"), (target, f"L′ = {target:,}")],
                             alt=f"Wavelength per pair with no scaling (dashed) and after each method, with "
                                 f"L = {original:,} and L′ = {target:,} marked; the slowest pair's wavelength: "
                                 + ", ".join(f"{k} {v[-1]:,.0f}" for k, v in series.items()) + "."))
    _snippet(view, "result.wavelength_after)  # (head_dim/2,) positions; None: before")
    notice("Wavelengths that crossed L in training need to cross L′ now; where each curve crosses the "
           "L′ line tells you which pairs the method treats as positional 'slow' pairs.")


def angle_tab(view, results, none, pairs) -> None:
    with extension_views.ask_unscaled_ood(none, view["original"], view["target"]):
        series = {"training: L·θ": none.angle_train, "no scaling: L′·θ": none.angle_unscaled}
        series.update({k: r[0].angle_target for k, r in results.items()})
        counts = {"no scaling": extension_band_counts(none).out_of_distribution}
        counts.update({k: extension_band_counts(r[0]).out_of_distribution for k, r in results.items()})
        listed = "; ".join(f"{k}: {c}" for k, c in counts.items())
        show(figures.roomy_lines(pairs, series, title="Angle each pair turns across the context",
                                 x_title="rotary pair i", y_title="angle (rad, log)", log_y=True,
                                 dashed=("training: L·θ", "no scaling: L′·θ"), hover_format=".4g",
                                 hlines=[(6.283185307179586, "2π")], name="cmp_angles",
                                 alt="Per pair, the angle turned across L in training and across L′ without "
                                     f"scaling (both dashed) and with each method. Pairs out of distribution: "
                                     f"{listed}."))
        _snippet(view, "result.angle_target, result.out_of_distribution.sum())  # (head_dim/2,) rad")
        notice("Below 2π a pair has only seen part of the circle, so any curve above the training curve "
               f"there is out of distribution. Pairs out of distribution: {listed}.")


def score_tab(view, results, none_d, none_s) -> None:
    series = {"no scaling": none_s}
    series.update({k: r[2] for k, r in results.items()})
    factors = {k: r[0].attention_factor for k, r in results.items()}
    show(figures.roomy_lines(none_d, series, title="Score of a query with an identical key at distance r",
                             x_title="distance r (positions, log)", y_title="a² · mean cos(rθ′)", log_x=True,
                             dashed=("no scaling",), name="cmp_score",
                             vlines=[(view["original"], "L"), (view["target"], "L′")],
                             alt="Score versus distance with no scaling (dashed) and for each method, each with "
                                 "its attention factor a: " + ", ".join(f"{k} a = {a:.3g}" for k, a in
                                                                        factors.items()) + "."))
    _snippet(view, "result.attention_factor, scores)  # scores: (n,) at the distances")
    st.dataframe({"method": list(factors), "attention factor a": list(factors.values())},
                 hide_index=True, width="content")
    notice("YaRN and LongRoPE start above 1 because their attention factor multiplies every logit by a²; "
           "the others start at 1. Further right, the methods that slow more pairs keep the score high "
           "for longer.")


@st.fragment
def lesson():
    page = stage()
    original, factor, base, head_dim = extension_views.context_controls(8.0, page)
    with page.side:
        chosen = controls.multiselect("Methods", "ms", list(EXTENSION_METHODS), list(FAST_PAIR_METHODS),
                                      format_func=lambda m: LABELS[m], max_selections=6)
    view = {"original": original, "factor": factor, "base": base, "head_dim": head_dim, "chosen": chosen,
            "target": int(round(factor * original))}
    tab_ratio, tab_wave, tab_angle, tab_score = page.sections(
        ["New / old frequency", "Wavelength after", "Angles reached", "Score vs distance"])
    with guard():
        results = {LABELS[m]: analyse(m, head_dim, float(base), original, float(factor)) for m in chosen}
        none, none_d, none_s = analyse(None, head_dim, float(base), original, float(factor))
        if not results:
            with page.main:
                st.info("Pick at least one method beside the figure.")
            return
        for tab, draw in ((tab_ratio, lambda: ratio_tab(view)),
                          (tab_wave, lambda: wavelength_tab(view, results, none, none.pair)),
                          (tab_angle, lambda: angle_tab(view, results, none, none.pair)),
                          (tab_score, lambda: score_tab(view, results, none_d, none_s))):
            if tab.open:
                with tab:
                    draw()


lesson()
why(WHY)
source(extension_scaling, extension_analysis)
