import streamlit as st

import posenc_core as pc
from lessons.long_context import extension_views
from lessons.long_context.dynamic_views import stateful_calls
from page_kit import (
    animation,
    classroom,
    controls,
    figure_control,
    figures,
    formula,
    guard,
    header,
    notice,
    show,
    source,
    stage,
    why,
)

MSCALES = [0.0, 0.707, 1.0]
ALPHAS = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 1000.0]
PLAY_FACTORS = [round(2 ** (k / 4), 3) for k in range(1, 25)]  # s from 1.19 to 64, 4 frames an octave


@st.cache_data(max_entries=64, show_spinner=False)
def analyse(method: str, head_dim: int, base: float, original: int, factor: float, current: float,
            beta_fast: float, beta_slow: float, mscale: float, mscale_all_dim: float, truncate: bool,
            low_ff: float, high_ff: float, alpha: float):
    n_pairs = head_dim // 2
    scaling, max_pos = pc.extension_scaling(
        method, factor, original, beta_fast=beta_fast, beta_slow=beta_slow, mscale=mscale,
        mscale_all_dim=mscale_all_dim, truncate=truncate, low_freq_factor=low_ff, high_freq_factor=high_ff,
        short_factor=pc.resample_factors(pc.PHI35_SHORT_FACTOR, n_pairs),
        long_factor=pc.resample_factors(pc.PHI35_LONG_FACTOR, n_pairs), alpha=alpha)
    target = int(round(factor * original))
    result = pc.extension_analysis(head_dim, base, scaling, original=original, target=target,
                                   seq_len=int(round(current * original)), max_position_embeddings=max_pos)
    paper = None
    if method == "yarn":
        weight = pc.yarn_paper_ramp(head_dim, base, original, beta_fast, beta_slow)
        paper = weight / factor + (1 - weight)  # ratio implied by the paper's ramp
    distances, before = pc.score_vs_distance(result["inv_freq_before"], 1.0, 4 * target)
    _, after = pc.score_vs_distance(result["inv_freq_after"], result["attention_factor"], 4 * target)
    return scaling, result, paper, distances, before, after


@st.cache_data(max_entries=32, show_spinner=False)
def dynamic_calls(pattern: str, head_dim: int, base: float, original: int, factor: float):
    lengths = pc.dynamic_call_lengths(pattern, original, factor)
    return pc.rope_dynamic_calls(head_dim, base, factor, original, lengths)


@st.cache_data(max_entries=8, show_spinner=False)
def attention_curves(original: int):
    factors = [128.0 ** (k / 199) for k in range(200)]  # 1 to 128, evenly on the log axis
    return factors, pc.attention_factor_curve(factors, original)


header("Extending RoPE's context",
       "Past its training length L, a model's slow rotary pairs turn into unseen angles; each method slows some "
       "down.")
WHY = ("A model trained on L tokens has only seen each rotary pair turn through the angles that L positions "
       "produce. Run it at L′ > L and the slow pairs rotate further than ever before, into angles the model "
       "cannot read. Every extension method answers one question differently: which pairs to slow down, and by "
       "how much. Pick a method and watch what it does to each of the d/2 pairs.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        # a drop-down: the methods' row of buttons would wrap onto three lines beside the figure
        method = controls.select("Method", "m", list(pc.EXTENSION_METHODS), list(pc.EXTENSION_METHODS).index("yarn"),
                                 format_func=lambda m: pc.EXTENSION_METHODS[m])
    original, factor, base, head_dim = extension_views.context_controls(default_factor=4.0, stage=page)
    target = int(round(factor * original))
    knobs = dict(current=factor, beta_fast=32.0, beta_slow=1.0, mscale=0.0, mscale_all_dim=0.0, truncate=True,
                 low_ff=1.0, high_ff=4.0, alpha=float(factor))
    k1 = k2 = k3 = k4 = k5 = page.more  # the method's own knobs: folded, one under another
    if method in ("dynamic", "longrope"):
        with k1:
            knobs["current"] = controls.slider(
                "Current length / L", "cur", 0.25, 64.0, float(factor), step=0.25,
                help="Dynamic NTK recomputes the base from the current sequence length; LongRoPE switches from "
                     "its short to its long factors once the sequence is longer than L.")
    if method == "yarn":
        with k1:
            knobs["beta_fast"] = controls.slider("beta_fast", "bf", 2.0, 64.0, 32.0, step=1.0,
                                                 help="Pairs turning more than beta_fast times in L are kept.")
        with k2:
            # YaRN needs beta_slow < beta_fast, so this range ends below the beta_fast chosen beside it
            knobs["beta_slow"] = controls.slider("beta_slow", "bs", 0.25, min(4.0, knobs["beta_fast"] - 0.25), 1.0,
                                                 step=0.25,
                                                 help="Pairs turning fewer than beta_slow times in L are divided by s.")
        with k3:
            knobs["mscale"] = controls.select_slider("mscale", "ms", MSCALES, 0.0, format_func=lambda v: f"{v:g}",
                                                     help="0 = not in the config.")
        with k4:
            knobs["mscale_all_dim"] = controls.select_slider("mscale_all_dim", "msa", MSCALES, 0.0,
                                                             format_func=lambda v: f"{v:g}",
                                                             help="DeepSeek's key; counts only with mscale.")
        with k5:
            knobs["truncate"] = controls.toggle("truncate", "tr", True,
                                                help="Round the ramp's ends to whole pairs (transformers' default).")
    if method == "llama3":
        with k1:
            knobs["low_ff"] = controls.slider("low_freq_factor", "lo", 0.5, 4.0, 1.0, step=0.5,
                                              help="Wavelengths above L / low_freq_factor are divided by s.")
        with k2:
            knobs["high_ff"] = controls.slider("high_freq_factor", "hi", 1.0, 16.0, 4.0, step=0.5,
                                               help="Wavelengths below L / high_freq_factor are kept.")
    if method == "ntk_alpha":
        with k1:
            knobs["alpha"] = controls.select_slider(
                "alpha", "al", ALPHAS, 4.0, format_func=lambda v: f"{v:g}",
                help="Hunyuan's configs keep a fixed alpha in rope_scaling (labelled 'dynamic'); alpha = s gives "
                     "exactly the static NTK-aware frequencies.")
    if method == "longrope":  # full width under the row: in a fifth of it, this ran to eight lines of three words
        st.caption(f"Factor lists: Phi-3.5-mini's searched short/long factors (48 pairs, s = 32, L = 4,096), "
                   f"resampled to {head_dim // 2} pairs; exact at head_dim 96. Paste any config with your own "
                   "lists on the *Model presets and config.json* page.")
    label = pc.EXTENSION_METHODS[method]

    tab_wave, tab_ratio, tab_angle, tab_score, tab_calls = page.sections(
        ["Wavelengths", "New / old frequency", "Angles reached", "Attention factor & score",
         "Dynamic NTK over calls"])
    with guard():
        def analysis_at(s):  # every knob but the factor as set: the page's view, and each animation frame
            return analyse(method, head_dim, float(base), original, float(s), float(knobs["current"]),
                           float(knobs["beta_fast"]), float(knobs["beta_slow"]), float(knobs["mscale"]),
                           float(knobs["mscale_all_dim"]), bool(knobs["truncate"]), float(knobs["low_ff"]),
                           float(knobs["high_ff"]), float(knobs["alpha"]))

        scaling, result, paper, distances, before, after = analysis_at(factor)
        with page.more:
            st.caption(f"rope_scaling passed to the transformers-equal code: `{_short(scaling)}` · L′ = {target:,}")
        if tab_wave.open:
            with tab_wave:
                chart = extension_views.wavelength_chart(result, name="ext_wavelengths", label=label)
                with page.side:
                    play = controls.toggle("Animate s", "play_s",
                                           help="A scrub bar and a Play button under the figure: s grows from 1.2 "
                                                "to 64 and the bands move, each frame computed by the same core call.")
                if play:
                    def wave_chart(s):
                        return extension_views.wavelength_chart(analysis_at(s)[1], name="ext_wavelengths", label=label)
                    animation.attach(chart, wave_chart, "s", PLAY_FACTORS, start_value=factor)
                # press or drag on the figure: the nearer marker line follows, L sets L, L′ sets s = L′ / L
                figure_control.drag_lines(chart, "y", [(original, "L"),
                                                       (target, figure_control.Target("s", 1 / original))])
                extension_views.wavelengths(result, name="ext_wavelengths", label=label, chart=chart)
                classroom.snippet(
                    f"scaling, max_pos = pc.extension_scaling({method!r}, {float(factor)!r}, {original}, "
                    f"beta_fast={float(knobs['beta_fast'])!r}, beta_slow={float(knobs['beta_slow'])!r}, "
                    f"mscale={float(knobs['mscale'])!r}, mscale_all_dim={float(knobs['mscale_all_dim'])!r}, "
                    f"truncate={bool(knobs['truncate'])!r}, low_freq_factor={float(knobs['low_ff'])!r}, "
                    f"high_freq_factor={float(knobs['high_ff'])!r}, alpha={float(knobs['alpha'])!r},",
                    f"    short_factor=pc.resample_factors(pc.PHI35_SHORT_FACTOR, {head_dim // 2}),",
                    f"    long_factor=pc.resample_factors(pc.PHI35_LONG_FACTOR, {head_dim // 2}))",
                    f"result = pc.extension_analysis({head_dim}, {float(base)!r}, scaling, original={original}, "
                    f"target={target}, seq_len={int(round(knobs['current'] * original))}, "
                    "max_position_embeddings=max_pos)",
                    "print(result['wavelength_before'], result['wavelength_after'], result['band'])")
                n_pairs = len(result["pair"])
                now, later = (int((r["band"] == "interpolated").sum()) for r in (result, analysis_at(2 * factor)[1]))
                answer = 0 if later > now else 1 if later == now else 2

                def which() -> str:
                    return (f"{label}: {now} of {n_pairs} pairs are divided by the full factor at s = {factor:g}, "
                            f"{later} at s = {2 * factor:g}. " + ("The band edges of YaRN and Llama 3 are set by L "
                                                                  "and their own knobs, not by s."
                                                                  if method in ("yarn", "llama3") else ""))

                with classroom.predict(f"divided_{method}", f"{label}: double the factor to s = {2 * factor:g}. "
                                       "The pairs slowed down by the full factor s (the 'divided by s' band) ...",
                                       ["grow in number", "stay the same pairs", "shrink in number"], answer, which):
                    formula(r"\#\{i : \theta'_i = \theta_i / s\} = $now\ (s = $s)\ \to\ $later\ (s = $s2)"
                            r"\quad\text{of } $n \text{ pairs}", now=now, s=factor, later=later, s2=2 * factor,
                            n=n_pairs)
                _method_formula(method, factor, original, base, head_dim, knobs, result)
        if tab_ratio.open:
            with tab_ratio:
                extension_views.ratio(result, name="ext_ratio", label=label, overlay=paper)
                if paper is not None:
                    notice("The solid line is what transformers (and every YaRN checkpoint) computes: the ramp is "
                           "linear in the pair index between two correction pairs. The paper defines the same ramp "
                           "linearly in the number of rotations r = L/λ, the dashed line; because r falls "
                           "geometrically with i, the paper's blend is bunched toward the slow end. The app follows "
                           "the code.")
                elif method == "ntk_alpha":
                    slowest = float(result["ratio"][-1])
                    notice(f"NTK-alpha is static NTK with the stretch chosen directly: the slowest pair is divided "
                           f"by α (θ′/θ = {slowest:.4g} here) and the fastest keeps its frequency. Nothing ties α "
                           f"to L′/L, and unlike dynamic NTK it does not change with the sequence length, although "
                           f"Hunyuan's checkpoints label it 'dynamic'; transformers' Hunyuan rotary module treats "
                           f"an 'alpha' key as this fixed rule.")
                elif method == "llama3":
                    notice("Llama 3 keeps pairs whose wavelength is below L/high_freq_factor, divides those above "
                           "L/low_freq_factor by s, and in between blends the two with a weight linear in L/λ: "
                           "a smooth step in the ratio.")
                else:
                    notice("Position interpolation divides every pair by s (a flat line at 1/s); static and dynamic "
                           "NTK change the base instead, so the ratio slides from 1 at the fastest pair to exactly "
                           "1/s at the slowest; LongRoPE sets each pair's divisor separately.")
                extension_views.factor_table(result)
        if tab_angle.open:
            with tab_angle:
                extension_views.angles(result, name="ext_angles", label=label)
                formula(r"\text{training: } L\,\theta_i = $L\,\theta_i,\qquad \text{after: } L'\,\theta'_i = $Lp\,"
                        r"\theta'_i,\qquad \text{out of distribution if } L\theta_i < 2\pi \text{ and } "
                        r"L'\theta'_i > L\theta_i", L=original, Lp=target)
        if tab_score.open:
            with tab_score:
                c_metric, c_note = st.columns([1, 3])
                c_metric.metric("Attention factor a", f"{result['attention_factor']:.4f}")
                c_note.markdown(_attention_text(method, knobs))
                extension_views.score(distances, before, after, result, name="ext_score", label=label)
                factors, curves = attention_curves(original)
                show(figures.roomy_lines(factors, curves,
                                         title=f"Default attention factor against s (L = {original:,})",
                                   x_title="s = L′/L (log)", y_title="a", log_x=True,
                                   vlines=[(factor, f"s = {factor:g}")],
                                   name="ext_attention_factor",
                                   alt="YaRN's 0.1 ln s + 1 and LongRoPE's sqrt(1 + ln s / ln L) against s."))
                formula(r"a_{\text{YaRN}} = 0.1\ln s + 1 = $y,\qquad a_{\text{LongRoPE}} = "
                        r"\sqrt{1 + \frac{\ln s}{\ln L}} = $lr", y=pc.yarn_mscale(factor),
                        lr=float(pc.attention_factor_curve([factor], original)["LongRoPE"][0]))
        if tab_calls.open:
            with tab_calls:
                pattern = controls.choice("Calls, one after another", "calls", list(pc.DYNAMIC_CALL_PATTERNS),
                                          "long prompt, then shorter calls",
                                          help="Sequence lengths of successive forward calls of one model.")
                calls = dynamic_calls(pattern, head_dim, float(base), original, float(factor))
                stateful_calls(calls, original, factor, name="ext_dynamic_calls")
                formula(r"n > n_{\text{cached}}:\ b' = b\left(\frac{s\,n}{L} - (s-1)\right)^{d/(d-2)},\ "
                        r"n_{\text{cached}} = n;\qquad n < L = $L < n_{\text{cached}}:\ \theta' = \theta,\ "
                        r"n_{\text{cached}} = L", L=original)


def _short(scaling: dict) -> str:
    shown = {k: (f"[{len(v)} values]" if isinstance(v, list) else v) for k, v in scaling.items()}
    return ", ".join(f"{k}: {v}" for k, v in shown.items())


def _attention_text(method: str, knobs: dict) -> str:
    if method == "yarn":
        if knobs["mscale"] and knobs["mscale_all_dim"]:
            return ("With both mscale and mscale_all_dim (DeepSeek's form), transformers uses "
                    "(0.1·mscale·ln s + 1) / (0.1·mscale_all_dim·ln s + 1); equal values give exactly 1, and "
                    "DeepSeek's attention then puts (0.1·mscale_all_dim·ln s + 1)² on the softmax scale instead.")
        if knobs["mscale"] or knobs["mscale_all_dim"]:
            return ("Only one of mscale / mscale_all_dim is set, and transformers ignores a lone one: "
                    "a = 0.1 ln s + 1, as without them.")
        return "YaRN multiplies cos and sin by a = 0.1 ln s + 1, so every logit grows by a²."
    if method == "longrope":
        return "LongRoPE multiplies cos and sin by a = √(1 + ln s / ln L) unless the config gives attention_factor."
    return "This method leaves the attention temperature alone: a = 1."


def _method_formula(method, factor, original, base, head_dim, knobs, result) -> None:
    if method == "linear":
        formula(r"\theta'_i = \theta_i / s = \theta_i / $s", s=factor)
    elif method == "ntk":
        formula(r"b' = b\,s^{d/(d-2)} = $b\cdot $s^{$d/$dm} = $nb,\qquad \theta'_i = b'^{-2i/d}",
                b=base, s=factor, d=head_dim, dm=head_dim - 2, nb=base * factor ** (head_dim / (head_dim - 2)))
    elif method == "ntk_alpha":
        formula(r"b' = b\,\alpha^{d/(d-2)} = $b\cdot $a^{$d/$dm} = $nb,\qquad \theta'_i = b'^{-2i/d}",
                b=base, a=knobs["alpha"], d=head_dim, dm=head_dim - 2,
                nb=base * knobs["alpha"] ** (head_dim / (head_dim - 2)))
    elif method == "dynamic":
        current = max(knobs["current"], 1.0)
        formula(r"b' = b\left(\frac{s\,n}{L} - (s-1)\right)^{d/(d-2)},\quad n = \max(\text{seq len}, L) = $n,"
                r"\quad b' = $nb", n=int(current * original),
                nb=base * (factor * current - (factor - 1)) ** (head_dim / (head_dim - 2)))
    elif method == "yarn":
        low, high = pc.yarn_ramp_bounds({"beta_fast": knobs["beta_fast"], "beta_slow": knobs["beta_slow"],
                                         "truncate": knobs["truncate"]}, head_dim, base, original)
        formula(r"\theta'_i = (1-\gamma_i)\frac{\theta_i}{s} + \gamma_i\theta_i,\quad \gamma_i = "
                r"1 - \mathrm{clip}\!\left(\frac{i - $lo}{$hi - $lo}, 0, 1\right),\quad "
                r"i_{\text{lo,hi}} = \frac{d\,\ln\!\big(L/(2\pi\beta)\big)}{2\ln b}", lo=low, hi=high)
    elif method == "llama3":
        formula(r"\lambda_i < \frac{L}{\text{high}} = $a \Rightarrow \theta_i;\quad \lambda_i > \frac{L}{\text{low}} "
                r"= $b \Rightarrow \frac{\theta_i}{s};\quad \text{between: } (1-w)\frac{\theta_i}{s} + w\,\theta_i,\ "
                r"w = \frac{L/\lambda_i - \text{low}}{\text{high}-\text{low}}",
                a=original / knobs["high_ff"], b=original / knobs["low_ff"])
    else:
        which = "long" if knobs["current"] * original > original else "short"
        formula(r"\theta'_i = \frac{\theta_i}{f_i},\quad f = \text{$which\_factor (sequence } $n "
                r"\text{ tokens vs } L = $L)", which=which, n=int(knobs["current"] * original), L=original)


lesson()
why(WHY)
source(pc.extension_analysis, pc.yarn_paper_ramp, pc.rope_inv_freq, pc.rope_dynamic_calls)
