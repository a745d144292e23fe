import streamlit as st

import posenc_core as pc
from page_kit import classroom, controls, extension_views, figures, guard, header, notice, sections, show, source


@st.cache_data(max_entries=128, show_spinner=False)
def analyse(method: str | None, head_dim: int, base: float, original: int, factor: float):
    return pc.extension_at_defaults(method, head_dim, base, original, factor)


FAST_PAIR_METHODS = ["linear", "ntk", "yarn", "llama3"]  # the question's options, in the default selection's order


def _snippet(chosen, head_dim, base, original, factor, what: str) -> None:
    """The page's loop: one call per method at its default knobs (None = no scaling, the dashed reference)."""
    classroom.snippet(
        f"for method in {[None, *chosen]!r}:",
        f"    result, distances, scores = pc.extension_at_defaults(method, {head_dim}, {float(base)!r}, {original}, "
        f"{float(factor)!r})",
        f"    print(method, {what})")


header(
    "Compare extension methods",
    "Same model, same target length, different recipes. Overlaid, the methods separate into two families: "
    "those that slow every pair (position interpolation) and those that leave the fast pairs alone and "
    "concentrate the slowing on pairs that never completed a turn in training (NTK-aware, YaRN, Llama 3, "
    "LongRoPE). Default knobs throughout: YaRN β = 32/1, Llama 3 low/high = 1/4, dynamic NTK at L′."
)


def ask_unscaled_ood(none, original: int, target: int) -> None:
    """Which pairs leave their training range when nothing is scaled: asked before the angles are drawn."""
    ood = [bool(o) for o in none["out_of_distribution"]]  # (pairs,): L′θ past anything seen in L, below 2π
    answer = 3 if not any(ood) else 2 if all(ood) else 1 if ood[-1] and not ood[0] else 0

    def reveal() -> str:
        if not any(ood):
            return f"None: every pair completed a full turn within L = {original:,}, so every angle was seen."
        first = ood.index(True)
        return (f"{sum(ood)} of {len(ood)} pairs, pair {first} and up: the slow pairs turned less than a full circle "
                f"across L = {original:,} (L·θ < 2π), so the larger angles they reach across L′ = {target:,} are new "
                "to the model. Fast pairs went round many times and have seen every angle.")

    classroom.predict("cmp_ood", f"Run the unscaled model at L′ = {target:,}: which pairs meet angles they never saw "
                      f"in training (L = {original:,})?",
                      ["the fastest pairs", "the slowest pairs", "every pair", "none"], answer, reveal)


@st.fragment
def lesson():
    original, factor, base, head_dim = extension_views.context_controls(default_factor=8.0)
    chosen = controls.multiselect("Methods", "ms", list(pc.EXTENSION_METHODS), ["linear", "ntk", "yarn", "llama3"],
                                  format_func=lambda m: pc.EXTENSION_METHODS[m], max_selections=6)
    target = int(round(factor * original))
    tab_ratio, tab_wave, tab_angle, tab_score = sections(
        ["New / old frequency", "Wavelength after", "Angles reached", "Score vs distance"])
    with guard():
        results = {pc.EXTENSION_METHODS[m]: analyse(m, head_dim, float(base), original, float(factor)) for m in chosen}
        none, none_d, none_s = analyse(None, head_dim, float(base), original, float(factor))
        pairs = none["pair"]
        if not results:
            st.info("Pick at least one method above.")
            return
        if tab_ratio.open:
            with tab_ratio:
                pair0 = {m: analyse(m, head_dim, float(base), original, float(factor))[0] for m in FAST_PAIR_METHODS}
                fastest = {m: r["ratio"][0] for m, r in pair0.items()}  # θ′/θ of pair 0, the fastest pair
                slowed = next(m for m, r in pair0.items() if r["band"][0] == "interpolated")  # divided by s

                def fast_pair() -> str:
                    ratios = ", ".join(f"{pc.EXTENSION_METHODS[m]} {fastest[m]:.4g}" for m in FAST_PAIR_METHODS)
                    return (f"θ′/θ of pair 0 at s = {factor:g}: {ratios} (1/s = {1 / factor:.4g}). Only "
                            f"{pc.EXTENSION_METHODS[slowed]} slows the pair that tells neighbouring tokens apart; the "
                            "others keep it and spend the stretch on the slow pairs.")

                classroom.predict("cmp_fast", f"Stretching the context by s = {factor:g}: which method slows even the "
                                  "fastest rotary pair (pair 0) by the full factor s?",
                                  [pc.EXTENSION_METHODS[m] for m in FAST_PAIR_METHODS],
                                  FAST_PAIR_METHODS.index(slowed), fast_pair)
                show(figures.roomy_lines(pairs, {k: r[0]["ratio"] for k, r in results.items()},
                                   title=f"θ′/θ per pair, s = {factor:g}", x_title="rotary pair i",
                                   y_title="θ′/θ (log scale)", log_y=True, hover_format=".4g",
                                   hlines=[(1.0, "1: kept"), (1 / factor, "1/s")], name="cmp_ratio",
                                   alt="New over old frequency per rotary pair for each chosen method."))
                _snippet(chosen, head_dim, base, original, factor, "result['ratio'])  # (head_dim/2,): θ′/θ per pair")
                notice("Position interpolation is flat at 1/s: even the fastest pairs, which distinguish neighbouring "
                       "tokens, are slowed, which blurs local order. The others start at 1 (fast pairs kept) and "
                       "reach 1/s only for the slowest pairs; YaRN and Llama 3 do it with a plateau at each end, "
                       "NTK with a smooth geometric slide.")
        if tab_wave.open:
            with tab_wave:
                series = {"no scaling": none["wavelength_before"]}
                series.update({k: r[0]["wavelength_after"] for k, r in results.items()})
                show(figures.roomy_lines(pairs, series, title="Wavelength of each pair after scaling",
                                   x_title="rotary pair i", y_title="wavelength (positions, log)", log_y=True,
                                   dashed=("no scaling",), hover_format=",.1f", name="cmp_wavelength",
                                   hlines=[(original, f"L = {original:,}"), (target, f"L′ = {target:,}")],
                                   alt="Wavelength per pair after each method, with L and L′ marked."))
                _snippet(chosen, head_dim, base, original, factor,
                         "result['wavelength_after'])  # (head_dim/2,) positions; None: before")
                notice("Wavelengths that crossed L in training need to cross L′ now; where each curve crosses the "
                       "L′ line tells you which pairs the method treats as positional 'slow' pairs.")
        if tab_angle.open:
            with tab_angle:
                ask_unscaled_ood(none, original, target)
                series = {"training: L·θ": none["angle_train"], "no scaling: L′·θ": none["angle_unscaled"]}
                series.update({k: r[0]["angle_target"] for k, r in results.items()})
                show(figures.roomy_lines(pairs, series, title="Angle each pair turns across the context",
                                   x_title="rotary pair i", y_title="angle (rad, log)", log_y=True,
                                   dashed=("training: L·θ", "no scaling: L′·θ"), hover_format=".4g",
                                   hlines=[(6.283185307179586, "2π")], name="cmp_angles",
                                   alt="Per pair, the angle turned across L in training, across L′ without scaling, "
                                       "and across L′ with each method."))
                _snippet(chosen, head_dim, base, original, factor,
                         "result['angle_target'], result['out_of_distribution'].sum())  # (head_dim/2,) rad")
                counts = ", ".join(f"{k}: {int(r[0]['out_of_distribution'].sum())}" for k, r in results.items())
                notice("Below 2π a pair has only seen part of the circle, so any curve above the training curve "
                       f"there is out of distribution. Pairs out of distribution, no scaling: "
                       f"{int(none['out_of_distribution'].sum())}; {counts}.")
        if tab_score.open:
            with tab_score:
                series = {"no scaling": none_s}
                series.update({k: r[2] for k, r in results.items()})
                show(figures.roomy_lines(none_d, series, title="Score of a query with an identical key at distance r",
                                   x_title="distance r (positions, log)", y_title="a² · mean cos(rθ′)", log_x=True,
                                   dashed=("no scaling",), name="cmp_score",
                                   vlines=[(original, "L"), (target, "L′")],
                                   alt="Score versus distance for each method, including its attention factor."))
                _snippet(chosen, head_dim, base, original, factor,
                         "result['attention_factor'], scores)  # scores: (n,) at the distances")
                st.dataframe({"method": list(results), "attention factor a": [r[0]["attention_factor"]
                                                                             for r in results.values()]},
                             hide_index=True, width="content")
                notice("YaRN and LongRoPE start above 1 because their attention factor multiplies every logit by a²; "
                       "the others start at 1. Further right, the methods that slow more pairs keep the score high "
                       "for longer.")


lesson()
source(pc.extension_scaling, pc.extension_analysis)
