"""The figures of the long-context pages, shared by the method page, the comparison and the config page.

Each function takes the ``ExtensionAnalysis`` returned by ``posenc_core.long_context.extension_analysis`` (already
computed by a cached call on the page) and draws one section: figure, what to notice, formula. No math here.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from page_kit import classroom, controls, figures
from page_kit.chart.render import show
from page_kit.lesson import formula, notice
from posenc_core.long_context import extension_band_counts

# what the pages call each method of pc.long_context.EXTENSION_METHODS
METHOD_LABELS = {
    "linear": "Position interpolation (linear)",
    "ntk": "NTK-aware (static)",
    "dynamic": "Dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3",
    "longrope": "LongRoPE",
    "ntk_alpha": "NTK-alpha (Hunyuan)",
}

OOD_COLORS = {"in distribution": "#56B4E9", "out of distribution": "#D55E00"}

CONTEXTS = [1024, 2048, 4096, 8192, 32768]
FACTORS = [1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
BASES = [10000, 500000, 1000000]
HEAD_DIMS = [32, 64, 96, 128, 256]


def context_controls(default_factor: float, stage=None) -> tuple[int, float, int, int]:
    """The shared L, s, base and head_dim sliders of the long-context pages (same keys, so links carry over).

    Given a ``lesson.stage``, s and L go beside its figure and base and head_dim under "More settings";
    without one, the four sit in a row.
    """
    if stage is not None:
        first, second, third, fourth = stage.side, stage.side, stage.more, stage.more
    else:
        first, second, third, fourth = st.columns(4)
    with second:
        factor = controls.select_slider("Extension factor s = L′/L", "s", FACTORS, default_factor,
                                        format_func=lambda v: f"{v:g}")
    with first:
        original = controls.select_slider("Training context L", "L", CONTEXTS, 4096, format_func=lambda v: f"{v:,}")
    with third:
        base = controls.base_slider(BASES)
    with fourth:
        head_dim = controls.head_dim_slider(HEAD_DIMS, 128, label="head_dim", help=None)
    return original, factor, base, head_dim


def _contexts(result) -> tuple[int, int]:
    return int(result.original), int(result.target)


def wavelength_chart(result, *, name: str, label: str) -> figures.Chart:
    original, target = _contexts(result)
    return figures.banded_lines(
        result.pair, {"before (no scaling)": result.wavelength_before, "after": result.wavelength_after},
        result.band, title=f"Wavelength of each pair, {label}, L′ = {target:,}", x_title="rotary pair i",
        y_title="wavelength 2π/θ (positions)", log_y=True, dashed=("before (no scaling)",),
        hlines=[(original, f"L = {original:,}"), (target, f"L′ = {target:,}")], hover_format=",.1f", name=name,
        alt=f"Log-scale wavelength per rotary pair before and after {label}, with the training length "
            f"L = {original:,} and the target L′ = {target:,} as horizontal lines; shaded bands mark pairs "
            "kept (extrapolated), blended, and divided by s (interpolated).")


def wavelengths(result, *, name: str, label: str, chart: figures.Chart | None = None) -> None:
    """The wavelength figure and its notice; pass ``chart`` when the page has given it animation frames."""
    show(chart or wavelength_chart(result, name=name, label=label))
    counts = extension_band_counts(result)
    notice(f"Pairs whose wavelength is far below L turn many times inside the training context, so they already "
           f"know every angle and can be kept; pairs whose wavelength is above L never completed a turn and must "
           f"be slowed down to stay inside what they saw. Here {counts.extrapolated} pairs are kept, "
           f"{counts.blended} blended and {counts.interpolated} interpolated.")


def ratio(result, *, name: str, label: str, overlay: np.ndarray | None = None) -> None:
    series = {"θ′/θ (transformers)": result.ratio}
    dashed = ()
    if overlay is not None:
        series["YaRN paper (ramp in rotations r = L/λ)"] = overlay
        dashed = (list(series)[-1],)
    s = result.factor
    show(figures.banded_lines(
        result.pair, series, result.band, title=f"New frequency / old frequency per pair, {label}",
        x_title="rotary pair i", y_title="θ′/θ (log scale)", log_y=True, dashed=dashed,
        hlines=[(1.0, "1: kept"), (1 / s, f"1/s = 1/{s:g}: interpolated")], hover_format=".4g", name=name,
        alt=f"Ratio of new to old frequency for each rotary pair under {label}, between 1 (kept) and 1/s "
            "(interpolated), on a log axis."))


def angles(result, *, name: str, label: str) -> None:
    original, target = _contexts(result)
    bands = np.where(result.out_of_distribution, "out of distribution", "in distribution")
    show(figures.banded_lines(
        result.pair, {f"training: L·θ (L = {original:,})": result.angle_train,
                         f"L′·θ with no scaling (L′ = {target:,})": result.angle_unscaled,
                         f"L′·θ′ with {label}": result.angle_target},
        bands, band_colors=OOD_COLORS, title="Largest angle each pair turns across the context (radians)",
        x_title="rotary pair i", y_title="angle (rad, log scale)", log_y=True,
        dashed=(f"L′·θ with no scaling (L′ = {target:,})",), hlines=[(2 * math.pi, "2π: one full turn")],
        hover_format=".4g", name=name,
        alt="Per rotary pair, the angle turned across the training context, across the target context without "
            f"scaling, and with {label}; pairs shaded red reach angles they never saw in training."))
    counts = extension_band_counts(result)
    notice(f"A pair whose training angle stayed below 2π only ever saw part of the circle. Run it at L′ without "
           f"scaling and its angle grows s times, into values the model never met: that is why plain RoPE "
           f"breaks past L. With {label}, {counts.out_of_distribution} of {counts.pairs} pairs still leave "
           "their training range.")


def score(distances, before, after, result, *, name: str, label: str) -> None:
    original, target = _contexts(result)
    show(figures.roomy_lines(
        distances, {"before (no scaling)": before, f"after ({label})": after},
        title="Score of a query with an identical key at distance r", x_title="distance r (positions, log)",
        y_title="a² · mean cos(rθ)", log_x=True, dashed=("before (no scaling)",),
        vlines=[(original, f"L = {original:,}"), (target, f"L′ = {target:,}")], name=name,
        alt=f"Score versus distance for q = k = all ones, before and after {label}, on a log distance axis."))
    notice("Slowing pairs down stretches the curve to the right: the score falls off over longer distances, "
           "so far-away tokens look closer than they did. The attention factor a lifts the whole curve by a², "
           "sharpening the softmax to make up for the flatter logits at long range.")
    formula(r"\begin{gathered}\mathrm{score}(r) = a^2\,\frac{2}{d}\sum_{i<d/2}\cos(r\,\theta'_i)\\ a = $a,\quad "
            r"a^2 = $a2\end{gathered}",
            a=result.attention_factor, a2=result.attention_factor ** 2)


def factor_table(result) -> None:
    """The per-pair numbers as a compact table (also the CSV behind the figures)."""
    st.dataframe({"pair": result.pair.astype(int), "λ before": result.wavelength_before,
                  "λ after": result.wavelength_after, "θ′/θ": result.ratio, "band": result.band,
                  "out of distribution": result.out_of_distribution},
                 hide_index=True, height=260,
                 column_config={"λ before": st.column_config.NumberColumn(format="%.1f"),
                                "λ after": st.column_config.NumberColumn(format="%.1f"),
                                "θ′/θ": st.column_config.NumberColumn(format="%.5f")})


def ask_unscaled_ood(none, original: int, target: int):
    """Which pairs leave their training range when nothing is scaled: asked before the angles are drawn."""
    ood = [bool(o) for o in none.out_of_distribution]  # (pairs,): L′θ past anything seen in L, below 2π
    answer = 3 if not any(ood) else 2 if all(ood) else 1 if ood[-1] and not ood[0] else 0

    def reveal() -> str:
        if not any(ood):
            return f"None: every pair completed a full turn within L = {original:,}, so every angle was seen."
        first = ood.index(True)
        return (f"{extension_band_counts(none).out_of_distribution} of {len(ood)} pairs, pair {first} and up: "
                "the slow pairs turned less than a full circle "
                f"across L = {original:,} (L·θ < 2π), so the larger angles they reach across L′ = {target:,} are new "
                "to the model. Fast pairs went round many times and have seen every angle.")

    return classroom.predict("cmp_ood", f"Run the unscaled model at L′ = {target:,}: which pairs meet angles they "
                             f"never saw in training (L = {original:,})?",
                             ["the fastest pairs", "the slowest pairs", "every pair", "none"], answer, reveal)


def ask_doubled(view, result, doubled) -> None:
    """Predict: double s; does the 'divided by s' band grow? ``doubled`` is the analysis at 2 s, whose count stays
    hidden until answered."""
    label, factor = view["label"], view["factor"]
    now, later = (extension_band_counts(r).interpolated for r in (result, doubled))
    n_pairs = len(result.pair)
    answer = 0 if later > now else 1 if later == now else 2

    def which() -> str:
        return (f"{label}: {now} of {n_pairs} pairs are divided by the full factor at s = {factor:g}, "
                f"{later} at s = {2 * factor:g}. " + ("The band edges of YaRN and Llama 3 are set by L and their own "
                                                      "knobs, not by s." if view["method"] in ("yarn", "llama3")
                                                      else ""))

    with classroom.predict(f"divided_{view['method']}", f"{label}: double the factor to s = {2 * factor:g}. "
                           "The pairs slowed down by the full factor s (the 'divided by s' band) ...",
                           ["grow in number", "stay the same pairs", "shrink in number"], answer, which):
        formula(r"\begin{gathered}\#\{i : \theta'_i = \theta_i / s\}\ \text{of } $n \text{ pairs:}\\ "
                r"$now\ (s = $s)\ \to\ $later\ (s = $s2)\end{gathered}", now=now, s=factor, later=later,
                s2=2 * factor, n=n_pairs)
