import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.todays_models import class_views
from page_kit import (
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    layer_views,
    notice,
    see_also,
    show,
    source,
    stage,
    why,
)

KINDS = {"local": "sliding-window layers", "full": "full-attention layers"}


@st.cache_data(max_entries=16, show_spinner=False)
def view(model: str):
    return pc.local_global_view(model)


@st.cache_data(max_entries=16, show_spinner=False)
def scores(model: str):
    return pc.local_global_scores(model)


def _per_pair(values_local, values_full):
    """Two per-pair arrays on one pair axis (the layer kinds may have different head sizes); NaN pads."""
    n = max(values_local.size, values_full.size)
    padded = [np.pad(np.asarray(v, dtype=np.float64), (0, n - v.size), constant_values=np.nan)
              for v in (values_local, values_full)]
    return np.arange(n), padded


def _describe(layer: pc.LayerRope) -> str:
    kind = {"default": "plain RoPE", "linear": f"linear × {layer.scaling.get('factor', 1):g}",
            "yarn": f"YaRN × {layer.scaling.get('factor', 1):g}",
            "proportional": "proportional RoPE"}[layer.rope_type]
    part = "" if layer.partial_rotary_factor == 1 else f", {layer.partial_rotary_factor:.1%} rotated"
    return f"θ = {layer.base:,.0f}, {kind}{part}, head_dim {layer.head_dim}"


def _theta_tex(layer: pc.LayerRope, rotated_dims: int) -> str:
    """The frequency rule of one layer kind in LaTeX, with its numbers."""
    base = f"{layer.base:,.0f}".replace(",", "{,}")
    if layer.rope_type == "proportional":
        return rf"{base}^{{-2i/{layer.head_dim}}}\ (i < {rotated_dims // 2}),\ 0\ \text{{after}}"
    plain = rf"{base}^{{-2i/{rotated_dims}}}"
    if layer.rope_type == "linear":
        return rf"{plain}\,/\,{layer.scaling['factor']:g}"
    if layer.rope_type == "yarn":
        original = f"{layer.scaling['original_max_position_embeddings']:,}".replace(",", "{,}")
        return rf"\text{{YaRN}}\big({plain},\ s = {layer.scaling['factor']:g},\ L = {original}\big)"
    return plain


def _how_slow(spec: pc.LocalGlobalModel) -> str:
    """In words: what a model's full layers change relative to its local ones."""
    local, full = spec.local, spec.full
    ways = []
    if full.base != local.base:
        ways.append(f"from a base of {full.base:,.0f} instead of {local.base:,.0f}")
    if full.rope_type == "linear":
        ways.append(f"by dividing every frequency by {full.scaling['factor']:g}")
    if full.rope_type == "yarn":
        original = full.scaling["original_max_position_embeddings"]
        ways.append(f"from YaRN × {full.scaling['factor']:g}, which slows the pairs that turn fewer than "
                    f"{full.scaling.get('beta_fast', 32):g} times in {original:,} tokens and keeps the fastest")
    if full.rope_type == "proportional":
        ways.append(f"by rotating only {full.partial_rotary_factor:.0%} of a {full.head_dim}-wide head")
    if full.head_dim != local.head_dim:
        ways.append(f"with a head of {full.head_dim} instead of {local.head_dim}")
    text = ", ".join(ways) if ways else "from the same setting as the local ones"
    if full.partial_rotary_factor != 1 and full.rope_type != "proportional":
        text += f" (both kinds rotate {full.partial_rotary_factor:.1%} of the head)"
    return text


def _wavelength_chart(model: str, pairs, series, window: int, context: int, name: str, what: str):
    return figures.stacked_lines(
        pairs, series, title=f"{model}: wavelength of each rotary pair, {what}", x_title="rotary pair i",
        y_title="wavelength (tokens, log)", log_y=True, hover_format=",.0f",
        hlines=[(window, f"window {window:,}"), (context, f"context {context:,}")], name=name,
        alt=f"Wavelength per rotary pair of {model}'s {' and '.join(series)}, on a log axis, against the window of "
            f"{window:,} tokens and the context of {context:,}; the slowest rotating pair: "
            + ", ".join(f"{k} {np.nanmax(v):,.0f} tokens" for k, v in series.items()) + ".")


header("Local and global layers",
       "Most open models of 2025-26 interleave sliding-window (local) and full (global) attention layers, and the "
       "two kinds rarely share a rotary setting. Pick a model and compare them pair by pair.")
WHY = ("Most open models of 2025-26 interleave two kinds of attention layer. *Sliding-window* (local) layers let "
       "each token look back a few hundred or thousand tokens; *full* (global) layers see the whole context. The "
       "two kinds rarely share a rotary setting: local layers keep a small base so their pairs turn quickly, "
       "global layers take a large base, a context-extension scaling, or rotate only part of the head. Pick a "
       "model and compare its two layer kinds pair by pair.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        model = controls.select("Model", "model", list(pc.LOCAL_GLOBAL_MODELS),
                                help="Values from each model's config.json or transformers' config class "
                                     "(listed under the figures).")
    spec = pc.local_global_model(model)  # read from the preset config, as Layer by layer reads it
    tab_wave, tab_turns, tab_score, tab_config = page.sections(
        ["Wavelengths", "Turns inside the window", "Score against distance", "The two settings"])
    with guard():
        result = view(model)
        local, full, context = result["local"], result["full"], result["context"]
        window = local["span"]
        if tab_wave.open:
            with tab_wave:
                pairs, (wl_local, wl_full) = _per_pair(local["wavelength"], full["wavelength"])
                series = {"sliding-window layers": np.where(np.isfinite(wl_local), wl_local, np.nan),
                          "full layers": np.where(np.isfinite(wl_full), wl_full, np.nan)}
                show(_wavelength_chart(model, pairs, {"sliding-window layers": series["sliding-window layers"]},
                                       window, context, "lg_wavelengths_local", "its sliding-window layers"))
                with class_views.ask_slowest(model, wl_local, wl_full):
                    show(_wavelength_chart(model, pairs, series, window, context, "lg_wavelengths",
                                           "both layer kinds"))
                    still = {k: result[k]["pairs"] - result[k]["rotated_dims"] // 2 for k in KINDS}
                    extra = "".join(f" {still[k]} of the {KINDS[k]}' {result[k]['pairs']} pairs are not rotated "
                                    "(no line): those dimensions carry content only." for k in KINDS if still[k])
                    notice(f"In the local layers {local['full_turn_in_span']} of {local['pairs']} pairs complete at "
                           f"least one turn inside the {window:,}-token window (wavelength below the window line): "
                           f"those tell every distance the layer can see apart. In the full layers "
                           f"{full['full_turn_in_span']} of {full['pairs']} pairs turn at least once over the "
                           f"{context:,}-token context.{extra}")
                    formula(r"\begin{gathered}\lambda_i = \frac{2\pi}{\theta_i}\\ \theta_i^{\text{local}} = $tl"
                            r"\\ \theta_i^{\text{full}} = $tf\end{gathered}",
                            tl=_theta_tex(spec.local, local["rotated_dims"]),
                            tf=_theta_tex(spec.full, full["rotated_dims"]))
                    classroom.snippet(f"view = {classroom.call('local_global_view', model)}",
                                      'wl_local = view["local"]["wavelength"]  # (pairs,) tokens; inf: never turns',
                                      'wl_full = view["full"]["wavelength"]  # (pairs,) tokens, the two lines above')
                    st.caption(f"Local: {_describe(spec.local)}. Full: {_describe(spec.full)}.")
        if tab_turns.open:
            with tab_turns:
                pairs, (t_local, t_full) = _per_pair(local["turns_in_span"], full["turns_in_span"])
                show(figures.stacked_lines(
                    pairs, {f"local: turns over {window - 1:,} tokens back": np.maximum(t_local, 1e-9),
                            f"full: turns over {context - 1:,} tokens back": np.maximum(t_full, 1e-9)},
                    title="How far each pair turns across what its layer sees", x_title="rotary pair i",
                    y_title="turns (log)", log_y=True, hover_format=".3g",
                    hlines=[(1.0, "one full turn"), (0.25, "a quarter turn")], name="lg_turns",
                    alt=f"Turns per pair across the farthest distance each layer kind attends to: at most "
                        f"{np.nanmax(t_local):,.3g} turns over the {window - 1:,} tokens of the window for the local "
                        f"layers, {np.nanmax(t_full):,.3g} over the {context - 1:,} of the context for the full "
                        "layers; one full turn and a quarter turn are marked."))
                classroom.snippet(f"view = {classroom.call('local_global_view', model)}",
                                  'turns_local = view["local"]["turns_in_span"]  # (pairs,) turns over the window',
                                  'turns_full = view["full"]["turns_in_span"]  # (pairs,) turns over the context')
                notice(f"A pair below the quarter-turn line barely moves across everything its layer sees, so it "
                       f"adds almost the same angle to every score there: local layers have "
                       f"{local['near_still_in_span']} such pairs of {local['pairs']}, full layers "
                       f"{full['near_still_in_span']} of {full['pairs']}. A local layer needs fast pairs, many of "
                       "them turning inside its window; a full layer needs pairs that do not wrap around over the "
                       f"long context, so a token far away is not mistaken for a near one. {model}'s full layers "
                       f"get them {_how_slow(spec)}.")
                formula(r"\text{turns}_i = \frac{(W-1)\,\theta_i}{2\pi},\qquad W_{\text{local}} = $w,\quad "
                        r"W_{\text{full}} = L = $L", w=window, L=context)
        if tab_score.open:
            with tab_score:
                distances, curves = scores(model)
                show(figures.stacked_lines(
                    distances, {f"local (up to {window - 1:,})": curves["local"],
                                f"full (up to {context - 1:,})": curves["full"]},
                    title="Score of a query with an identical key, against distance", x_title="distance (log)",
                    y_title="a² · mean cos(r θ_i)", log_x=True, hover_format=".3f",
                    vlines=[(window - 1, "window edge")], name="lg_score",
                    alt=f"Score against distance for both layer kinds; the local curve stops at the window edge "
                        f"({window - 1:,} tokens back), the full one runs to {context - 1:,}."))
                classroom.snippet(f"distances, curves = {classroom.call('local_global_scores', model)}",
                                  '# distances (points,) tokens; curves["local"], curves["full"] (points,) scores, '
                                  'NaN past the window')
                edge = int(np.searchsorted(distances, window - 1, side="right")) - 1
                far = curves["full"][-1]
                local_edge, full_edge = float(curves["local"][edge]), float(curves["full"][edge])
                sharper = ("falls further inside the window than the full layer's does over the same distance, so "
                           "near neighbours stand out more in the local layer" if local_edge < full_edge else
                           "falls no further than the full layer's over the same distance")
                notice(f"Near the window edge ({int(distances[edge]):,} tokens back, the last plotted distance "
                       f"inside the window) the local layer scores {local_edge:.3f}; at that distance the full "
                       f"layer scores {full_edge:.3f}, and "
                       f"{far:.3f} at the far end of the context. The local score {sharper}. The full layer's slow "
                       "and unrotated pairs keep a share of its score at every distance, so it can still match "
                       "content anywhere in the context.")
                formula(r"\begin{gathered}s(r) = a^2\cdot\frac{1}{P}\sum_{i<P}\cos(r\,\theta_i),\quad "
                        r"P = \tfrac{\text{head\_dim}}{2}\\ P_{\text{local}} = $pl,"
                        r"\ P_{\text{full}} = $pf,\ a_{\text{full}} = $af\end{gathered}",
                        pl=local["pairs"], pf=full["pairs"], af=full["attention_factor"])
        if tab_config.open:
            with tab_config:
                table = {"setting": ["head_dim", "rotated dimensions", "θ (rope_theta)", "rope_type",
                                     "scaling keys", "keys a query sees", "attention factor"]}
                for kind, layer in (("local", spec.local), ("full", spec.full)):
                    v = result[kind]
                    table[KINDS[kind]] = [
                        str(layer.head_dim), str(v["rotated_dims"]), f"{layer.base:,.0f}", layer.rope_type,
                        ", ".join(f"{k} {val:g}" for k, val in layer.scaling.items()) or "none",
                        f"{v['span']:,} (sliding_window)" if layer.window else f"all {context:,}",
                        f"{v['attention_factor']:.4f}"]
                st.dataframe(table, hide_index=True)
                st.markdown(f"**Layout.** {spec.pattern}.  \n**Source.** {spec.source}.")
                for kind in KINDS:  # the same sentences Layer by layer shows for these layers
                    st.markdown(f"**{KINDS[kind].capitalize()}** (layer {spec.layers[kind]}):"
                                + "".join(f"\n- {sentence}" for _, sentence in spec.facts[kind]))
                layer_views.lesson_links(key for kind in KINDS for key, _ in spec.facts[kind]
                                         if key != "window")  # window: this page
                notice("Gemma 3 and Olmo 3 apply a legacy `rope_scaling` to the full layers only: transformers' "
                       "config classes copy it into `rope_parameters['full_attention']`, so the local layers keep "
                       "plain RoPE. Gemma 4's full layers divide by the whole head_dim even for the 25% they rotate "
                       "(proportional RoPE), so their frequencies are the first quarter of a 512-wide head's, "
                       "not a 128-wide one's.")


lesson()
why(WHY)
see_also('layer_strip', 'fewer_frequencies', 'extension')
source(pc.local_global_model, pc.local_global_view, pc.layer_kind_inv_freq)
