import streamlit as st

import posenc_core as pc
from lessons.long_context import (
    dynamic_views,
    extension_formula_views,
    extension_guide_views,
    extension_knob_views,
    extension_views,
)
from page_kit import controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.chart import figure_control
from page_kit.figures import animation
from page_kit.lesson import guide
from posenc_core.long_context import (
    EXTENSION_METHODS,
    PHI35_LONG_FACTOR,
    PHI35_SHORT_FACTOR,
    attention_factor_curve,
    extension_analysis,
    extension_band_counts,
    extension_scaling,
    resample_factors,
    score_vs_distance,
    yarn_paper_ramp,
    yarn_paper_ratio,
)
from posenc_core.rope import rope_dynamic_calls

PLAY_FACTORS = [round(2 ** (k / 4), 3) for k in range(1, 25)]  # s from 1.19 to 64, 4 frames an octave


@st.cache_data(max_entries=64, show_spinner=False)
def analyse(method: str, head_dim: int, base: float, original: int, factor: float, current: float,
            beta_fast: float, beta_slow: float, mscale: float, mscale_all_dim: float, truncate: bool,
            low_ff: float, high_ff: float, alpha: float):
    n_pairs = head_dim // 2
    scaling, max_pos = extension_scaling(
        method, factor, original, beta_fast=beta_fast, beta_slow=beta_slow, mscale=mscale,
        mscale_all_dim=mscale_all_dim, truncate=truncate, low_freq_factor=low_ff, high_freq_factor=high_ff,
        short_factor=resample_factors(PHI35_SHORT_FACTOR, n_pairs),
        long_factor=resample_factors(PHI35_LONG_FACTOR, n_pairs), alpha=alpha)
    target = int(round(factor * original))
    result = extension_analysis(head_dim, base, scaling, original=original, target=target,
                                   seq_len=int(round(current * original)), max_position_embeddings=max_pos)
    paper = yarn_paper_ratio(head_dim, base, original, factor, beta_fast, beta_slow) if method == "yarn" else None
    distances, before = score_vs_distance(result.inv_freq_before, 1.0, 4 * target)
    _, after = score_vs_distance(result.inv_freq_after, result.attention_factor, 4 * target)
    return scaling, result, paper, distances, before, after


@st.cache_data(max_entries=8, show_spinner=False)
def attention_curves(original: int):
    factors = [128.0 ** (k / 199) for k in range(200)]  # 1 to 128, evenly on the log axis
    return factors, attention_factor_curve(factors, original)


header("Extending RoPE's context",
       "Past its training length L, a model's slow rotary pairs turn into unseen angles; each method slows some "
       "down.", extension_guide_views.GUIDE)
WHY = ("A model trained on L tokens has only seen each rotary pair turn through the angles that L positions "
       "produce. Run it at L′ > L and the slow pairs rotate further than ever before, into angles the model "
       "cannot read. Every extension method answers one question differently: which pairs to slow down, and by "
       "how much. Pick a method and watch what it does to each of the d/2 pairs.")


def analysis_at(view, s: float):
    """The cached analysis with every knob as set and the factor ``s``: the page's view, and each animation frame."""
    knobs = view["knobs"]
    return analyse(view["method"], view["head_dim"], float(view["base"]), view["original"], float(s),
                   float(knobs["current"]), float(knobs["beta_fast"]), float(knobs["beta_slow"]),
                   float(knobs["mscale"]), float(knobs["mscale_all_dim"]), bool(knobs["truncate"]),
                   float(knobs["low_ff"]), float(knobs["high_ff"]), float(knobs["alpha"]))


def wave_figure(m, s, L, base, d, own) -> figures.Chart:
    """The Wavelengths figure for the factor ``s``, marker lines included (the hero's frames are built here too)."""
    view = {"method": m, "head_dim": d, "base": base, "original": L,
            "knobs": {**extension_knob_views.default_knobs(s), **own}}
    chart = extension_views.wavelength_chart(analysis_at(view, s)[1], name="ext_wavelengths",
                                             label=extension_views.METHOD_LABELS[m])
    # press or drag on the figure: the nearer marker line follows, L sets L, L′ sets s = L′ / L
    return figure_control.drag_lines(chart, "y", [(L, "L"), (int(round(s * L)), figure_control.Target("s", 1 / L))])


def wave_tab(page, view, analysis) -> None:
    _, result, *_ = analysis
    label, factor = view["label"], view["factor"]
    chart = hero(wave_figure, s=factor, L=view["original"], base=view["base"], d=view["head_dim"],
                 m=view["method"], own=view["own"])
    with page.side:
        play = controls.toggle("Animate s", "play_s",
                               help="A scrub bar and a Play button under the figure: s grows from 1.2 "
                                    "to 64 and the bands move, each frame computed by the same core call.")
    if play:
        fixed = {key: value for key, value in view.items() if key != "factor"}  # the frames' key: s aside

        def wave_chart(s):
            return extension_views.wavelength_chart(analysis_at(fixed, s)[1], name="ext_wavelengths", label=label)
        animation.attach(chart, wave_chart, "s", PLAY_FACTORS, start_value=factor)
    extension_views.wavelengths(result, name="ext_wavelengths", label=label, chart=chart)
    extension_knob_views.wave_snippet(view)
    extension_views.ask_doubled(view, result, analysis_at(view, 2 * view["factor"])[1])
    extension_formula_views.method_formula(view)


def ratio_tab(page, view, analysis) -> None:
    _, result, paper, *_ = analysis
    extension_views.ratio(result, name="ext_ratio", label=view["label"], overlay=paper)
    notice(extension_knob_views.ratio_note(view["method"], result))
    extension_views.factor_table(result)


def angle_tab(page, view, analysis) -> None:
    extension_views.angles(analysis[1], name="ext_angles", label=view["label"])
    formula(r"\begin{gathered}\text{training: } L\,\theta_i = $L\,\theta_i,\qquad \text{after: } L'\,\theta'_i = "
            r"$Lp\,\theta'_i\\ \text{out of distribution if } L\theta_i < 2\pi \text{ and } "
            r"L'\theta'_i > L\theta_i\end{gathered}", L=view["original"], Lp=view["target"])


def score_tab(page, view, analysis) -> None:
    _, result, _, distances, before, after = analysis
    original, factor = view["original"], view["factor"]
    c_metric, c_note = st.columns([1, 3])
    c_metric.metric("Attention factor a", f"{result.attention_factor:.4f}")
    c_note.markdown(extension_knob_views.attention_text(view["method"], view["knobs"]))
    extension_views.score(distances, before, after, result, name="ext_score", label=view["label"])
    factors, curves = attention_curves(original)
    show(figures.roomy_lines(factors, {"YaRN": curves.yarn, "LongRoPE": curves.longrope},
                             title=f"Default attention factor against s (L = {original:,})",
                             x_title="s = L′/L (log)", y_title="a", log_x=True, vlines=[(factor, f"s = {factor:g}")],
                             name="ext_attention_factor",
                             alt="YaRN's 0.1 ln s + 1 and LongRoPE's sqrt(1 + ln s / ln L) against s."))
    formula(r"\begin{gathered}a_{\text{YaRN}} = 0.1\ln s + 1 = $y\\ a_{\text{LongRoPE}} = "
            r"\sqrt{1 + \frac{\ln s}{\ln L}} = $lr\end{gathered}", y=pc.yarn_mscale(factor),
            lr=float(attention_factor_curve([factor], original).longrope[0]))


def calls_tab(page, view, analysis) -> None:
    original, factor = view["original"], view["factor"]
    calls = dynamic_views.dynamic_calls(dynamic_views.pattern_choice(), view["head_dim"], float(view["base"]),
                                        original, float(factor))
    dynamic_views.stateful_calls(calls, original, factor, name="ext_dynamic_calls")
    formula(r"\begin{gathered}n > n_{\text{cached}}:\ b' = b\left(\frac{s\,n}{L} - (s-1)\right)^{d/(d-2)},\ "
            r"n_{\text{cached}} = n\\ n < L = $L < n_{\text{cached}}:\ \theta' = \theta,\ "
            r"n_{\text{cached}} = L\end{gathered}", L=original)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Wavelengths", wave_tab),
    ("New / old frequency", ratio_tab),
    ("Angles reached", angle_tab),
    ("Attention factor & score", score_tab),
    ("Dynamic NTK over calls", calls_tab),
]


@st.fragment
def lesson():
    guide.panel(extension_guide_views.GUIDE)
    page = stage()
    with page.side:
        # a drop-down: the methods' row of buttons would wrap onto three lines beside the figure
        method = controls.select("Method", "m", list(EXTENSION_METHODS), EXTENSION_METHODS.index("yarn"),
                                 format_func=lambda m: extension_views.METHOD_LABELS[m])
    original, factor, base, head_dim = extension_views.context_controls(default_factor=4.0, stage=page)
    own = extension_knob_views.method_knobs(page, method, factor)
    if method == "longrope":  # full width under the row: in a fifth of it, this ran to eight lines of three words
        st.caption(f"Factor lists: Phi-3.5-mini's searched short/long factors (48 pairs, s = 32, L = 4,096), "
                   f"resampled to {head_dim // 2} pairs; exact at head_dim 96. Paste any config with your own "
                   "lists on the *Model presets and config.json* page.")
    knobs = {**extension_knob_views.default_knobs(factor), **own}
    view = {"method": method, "label": extension_views.METHOD_LABELS[method], "original": original, "factor": factor,
            "base": base, "head_dim": head_dim, "own": own, "knobs": knobs, "target": int(round(factor * original)),
            "seq_len": int(round(knobs["current"] * original))}
    with guard():
        analysis = analysis_at(view, factor)
        guide.report("none_out", extension_band_counts(analysis[1]).out_of_distribution == 0)
        guide.report("s_8", factor == 8.0)
        with page.more:
            st.caption(f"rope_scaling passed to the transformers-equal code: "
                       f"`{extension_knob_views.short_scaling(analysis[0])}` · L′ = {view['target']:,}")
        page.walk(TABS, page, view, analysis)


lesson()
why(WHY)
source(extension_analysis, yarn_paper_ramp, pc.rope_inv_freq, rope_dynamic_calls)
