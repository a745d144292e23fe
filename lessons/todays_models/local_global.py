import numpy as np
import streamlit as st

from lessons.todays_models import local_global_views as views
from page_kit import (
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    notice,
    see_also,
    show,
    source,
    stage,
    why,
)
from posenc_core.todays_models import (
    LOCAL_GLOBAL_MODELS,
    layer_kind_inv_freq,
    local_global_model,
    local_global_scores,
    local_global_view,
    local_global_window_edge,
)


@st.cache_data(max_entries=16, show_spinner=False)
def view(model: str):
    return local_global_view(model)


@st.cache_data(max_entries=16, show_spinner=False)
def scores(model: str):
    return local_global_scores(model)


@st.cache_data(max_entries=16, show_spinner=False)
def window_edge(model: str):
    return local_global_window_edge(model)


header("Local and global layers",
       "Most open models of 2025-26 interleave sliding-window (local) and full (global) attention layers, and the "
       "two kinds rarely share a rotary setting. Pick a model and compare them pair by pair.")
WHY = ("Most open models of 2025-26 interleave two kinds of attention layer. *Sliding-window* (local) layers let "
       "each token look back a few hundred or thousand tokens; *full* (global) layers see the whole context. The "
       "two kinds rarely share a rotary setting: local layers keep a small base so their pairs turn quickly, "
       "global layers take a large base, a context-extension scaling, or rotate only part of the head. Pick a "
       "model and compare its two layer kinds pair by pair.")


def wave_tab(page, model, spec, result) -> None:
    local, full, context = result.local, result.full, result.context
    window = local.span
    pairs, (wl_local, wl_full) = views.per_pair(local.wavelength, full.wavelength)
    series = {"sliding-window layers": np.where(np.isfinite(wl_local), wl_local, np.nan),
              "full layers": np.where(np.isfinite(wl_full), wl_full, np.nan)}
    slowest = {"sliding-window layers": local.slowest_wavelength, "full layers": full.slowest_wavelength}
    show(views.wavelength_chart(model, pairs, {"sliding-window layers": series["sliding-window layers"]},
                                {"sliding-window layers": slowest["sliding-window layers"]}, window, context,
                                "lg_wavelengths_local", "its sliding-window layers"))
    with views.ask_slowest(model, result):
        show(views.wavelength_chart(model, pairs, series, slowest, window, context, "lg_wavelengths",
                                    "both layer kinds"))
        kinds = {k: getattr(result, k) for k in views.KINDS}
        extra = "".join(f" {v.unrotated_pairs} of the {views.KINDS[k]}' {v.pairs} pairs are "
                        "not rotated (no line): those dimensions carry content only."
                        for k, v in kinds.items() if v.unrotated_pairs)
        notice(f"In the local layers {local.full_turn_in_span} of {local.pairs} pairs complete at least one "
               f"turn inside the {window:,}-token window (wavelength below the window line): those tell every "
               f"distance the layer can see apart. In the full layers {full.full_turn_in_span} of "
               f"{full.pairs} pairs turn at least once over the {context:,}-token context.{extra}")
        formula(r"\begin{gathered}\lambda_i = \frac{2\pi}{\theta_i}\\ \theta_i^{\text{local}} = $tl"
                r"\\ \theta_i^{\text{full}} = $tf\end{gathered}",
                tl=views.theta_tex(spec.local, local.rotated_dims),
                tf=views.theta_tex(spec.full, full.rotated_dims))
        classroom.snippet(f"view = {classroom.call('local_global_view', model)}",
                          'wl_local = view.local.wavelength  # (pairs,) tokens; inf: never turns',
                          'wl_full = view.full.wavelength  # (pairs,) tokens, the two lines above')
        st.caption(f"Local: {views.describe(spec.local)}. Full: {views.describe(spec.full)}.")


def turns_tab(page, model, spec, result) -> None:
    local, full, context = result.local, result.full, result.context
    window = local.span
    pairs, (t_local, t_full) = views.per_pair(local.turns_in_span, full.turns_in_span)
    show(figures.stacked_lines(
        pairs, {f"local: turns over {window - 1:,} tokens back": np.maximum(t_local, 1e-9),  # log axis: no zeros
                f"full: turns over {context - 1:,} tokens back": np.maximum(t_full, 1e-9)},
        title="How far each pair turns across what its layer sees", x_title="rotary pair i",
        y_title="turns (log)", log_y=True, hover_format=".3g",
        hlines=[(1.0, "one full turn"), (0.25, "a quarter turn")], name="lg_turns",
        alt=f"Turns per pair across the farthest distance each layer kind attends to: at most "
            f"{local.most_turns_in_span:,.3g} turns over the {window - 1:,} tokens of the window for the local "
            f"layers, {full.most_turns_in_span:,.3g} over the {context - 1:,} of the context for the full "
            "layers; one full turn and a quarter turn are marked."))
    classroom.snippet(f"view = {classroom.call('local_global_view', model)}",
                      'turns_local = view.local.turns_in_span  # (pairs,) turns over the window',
                      'turns_full = view.full.turns_in_span  # (pairs,) turns over the context')
    notice(f"A pair below the quarter-turn line barely moves across everything its layer sees, so it adds almost the "
           f"same angle to every score there: local layers have {local.near_still_in_span} such pairs of "
           f"{local.pairs}, full layers {full.near_still_in_span} of {full.pairs}. A local layer needs fast "
           "pairs, many of them turning inside its window; a full layer needs pairs that do not wrap around over the "
           f"long context, so a token far away is not mistaken for a near one. {model}'s full layers get them "
           f"{views.how_slow(spec)}.")
    formula(r"\begin{gathered}\text{turns}_i = \frac{(W-1)\,\theta_i}{2\pi}\\ W_{\text{local}} = $w,\quad "
            r"W_{\text{full}} = L = $L\end{gathered}", w=window, L=context)


def score_tab(page, model, spec, result) -> None:
    local, full, context = result.local, result.full, result.context
    window = local.span
    distances, curves = scores(model)
    show(figures.stacked_lines(
        distances, {f"local (up to {window - 1:,})": curves["local"], f"full (up to {context - 1:,})": curves["full"]},
        title="Score of a query with an identical key, against distance", x_title="distance (log)",
        y_title="a² · mean cos(r θ_i)", log_x=True, hover_format=".3f", vlines=[(window - 1, "window edge")],
        name="lg_score", alt=f"Score against distance for both layer kinds; the local curve stops at the window edge "
                             f"({window - 1:,} tokens back), the full one runs to {context - 1:,}."))
    classroom.snippet(f"distances, curves = {classroom.call('local_global_scores', model)}",
                      '# distances (points,) tokens; curves["local"], curves["full"] (points,) scores, '
                      'NaN past the window')
    edge = window_edge(model)
    sharper = ("falls further inside the window than the full layer's does over the same distance, so near "
               "neighbours stand out more in the local layer" if edge.local < edge.full else
               "falls no further than the full layer's over the same distance")
    notice(f"Near the window edge ({edge.distance:,} tokens back, the last plotted distance inside the window) the "
           f"local layer scores {edge.local:.3f}; at that distance the full layer scores {edge.full:.3f}, and "
           f"{edge.far:.3f} at the far end of the context. The local score {sharper}. The full layer's slow and "
           "unrotated pairs keep a share of its score at every distance, so it can still match content anywhere in "
           "the context.")
    formula(r"\begin{gathered}s(r) = a^2\cdot\frac{1}{P}\sum_{i<P}\cos(r\,\theta_i)\\ "
            r"P = \tfrac{\text{head\_dim}}{2}\\ P_{\text{local}} = $pl,"
            r"\ P_{\text{full}} = $pf,\ a_{\text{full}} = $af\end{gathered}",
            pl=local.pairs, pf=full.pairs, af=full.attention_factor)


def config_tab(page, model, spec, result) -> None:
    views.settings_table(spec, result)
    notice("Gemma 3 and Olmo 3 apply a legacy `rope_scaling` to the full layers only: transformers' config classes "
           "copy it into `rope_parameters['full_attention']`, so the local layers keep plain RoPE. Gemma 4's full "
           "layers divide by the whole head_dim even for the 25% they rotate (proportional RoPE), so their "
           "frequencies are the first quarter of a 512-wide head's, not a 128-wide one's.")


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Wavelengths", wave_tab),
    ("Turns inside the window", turns_tab),
    ("Score against distance", score_tab),
    ("The two settings", config_tab),
]


@st.fragment
def lesson():
    page = stage()
    with page.side:
        model = controls.select("Model", "model", list(LOCAL_GLOBAL_MODELS),
                                help="Values from each model's config.json or transformers' config class "
                                     "(listed under the figures).")
    spec = local_global_model(model)  # read from the preset config, as Layer by layer reads it
    with guard():
        result = view(model)
        page.walk(TABS, page, model, spec, result)


lesson()
why(WHY)
see_also('layer_strip', 'fewer_frequencies', 'extension')
source(local_global_model, local_global_view, layer_kind_inv_freq)
