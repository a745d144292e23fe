import streamlit as st

import posenc_core as pc
from lessons.todays_models import class_views
from lessons.todays_models import fewer_views as views
from lessons.todays_models.words import FEWER_MODEL_NAMES, FEWER_MODEL_SOURCES
from page_kit import (
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
from posenc_core.todays_models import FEWER_FREQUENCY_MODELS, dimension_frequencies, fewer_frequencies, p_rope_inv_freq

METHODS = views.METHODS
BASES = [10000, 100000, 500000, 1000000, 10000000]
CONTEXTS = [2048, 8192, 32768, 131072, 1048576]


header("Fewer frequencies: partial, p-RoPE, proportional",
       "Many models rotate only part of each head: the same fraction, different frequencies.")
WHY = ("Many models rotate only part of each head. GPT-NeoX (`rotary_pct`), GLM-4.5 and Qwen3.5 "
       "(`partial_rotary_factor`) give the first dimensions a complete RoPE of their own. Barbero et al. (2025, "
       "\"Round and round we go! What makes Rotary Positional Encodings useful?\") argue that RoPE's slowest pairs "
       "barely turn within a context and end up carrying meaning, not position, and propose **p-RoPE**: keep the "
       "fastest fraction p of RoPE's frequencies and set the rest to zero. Gemma 4's full-attention layers do this "
       "through transformers' `proportional` rope type. Same fraction, different frequencies.")


def dims_tab(view, info) -> None:
    head_dim, base, fraction = view["head_dim"], view["base"], view["fraction"]
    partial, prop = info["partial rotary"], info["proportional"]
    show(hero(views.dims_chart, **views.hands(view)))
    call = classroom.call("dimension_frequency_table", head_dim, float(base), float(fraction))
    classroom.snippet(f"table = {call}  # (4, {head_dim}) log10 ω per dimension, NaN: never turns",
                      f"# rows: {', '.join(METHODS)}")
    notice(f"All three rotate {partial.rotated_dims} of {head_dim} dimensions. Partial rotary packs "
           f"them into the first {partial.block} and spreads a whole RoPE spectrum over them (fast "
           "to slow within the block); the rest pass through. p-RoPE and proportional keep RoPE's "
           f"rotate_half layout over the full head: pair i is dimensions i and i + {head_dim // 2}, so "
           "the turning dimensions are the first of each half, with exactly RoPE's fastest frequencies. "
           f"p-RoPE keeps {info['p-RoPE'].pairs} pairs (floor of p·d/2), proportional "
           f"{prop.pairs} (transformers' int(p·d // 2)).")


def waves_tab(view, info) -> None:
    head_dim, context = view["head_dim"], view["context"]
    partial, p_rope = info["partial rotary"], info["p-RoPE"]
    with class_views.ask_same_speeds(info, view["fraction"]):
        show(hero(views.waves_chart, **views.hands(view)))
        call = classroom.call("fewer_frequency_summaries", head_dim, float(view["base"]), float(view["fraction"]),
                              context)
        classroom.snippet(f"info = {call}",
                          'info["p-RoPE"].wavelengths  # (head_dim/2,) positions per pair, NaN: never '
                          'turns; one line per method, the table\'s columns are the other keys')
        st.dataframe({"method": list(METHODS),
                      "rotating pairs": [info[m].pairs for m in METHODS],
                      "still dimensions": [info[m].still_dims for m in METHODS],
                      "shortest λ": [info[m].shortest_wavelength for m in METHODS],
                      "longest λ": [info[m].longest_wavelength for m in METHODS],
                      f"pairs with a full turn in {context:,}": [info[m].full_turn for m in METHODS],
                      "pairs turning < π/2": [info[m].under_quarter for m in METHODS],
                      "unambiguous up to": [info[m].unambiguous for m in METHODS]},
                     hide_index=True, width="stretch",
                     column_config={k: st.column_config.NumberColumn(format="%.4g")
                                    for k in ("shortest λ", "longest λ", "unambiguous up to")})
        slow = partial.under_quarter
        notice(f"Partial rotary still reaches a wavelength of {partial.longest_wavelength:,.0f} "
               f"positions: its block spans RoPE's whole range with fewer pairs, and {slow} of its "
               f"{partial.pairs} pairs turn less than a quarter turn over {context:,} tokens"
               + (" (slow, nearly position-free channels)" if slow else "") + ". p-RoPE's longest "
               f"wavelength is {p_rope.longest_wavelength:,.4g} positions, and {p_rope.full_turn} of "
               f"its {p_rope.pairs} pairs complete a full turn within the context. 'Unambiguous up to' "
               "is half the longest wavelength: beyond it the slowest kept pair gives distances Δ and λ − Δ "
               "the same cosine, so far-apart tokens are told apart only by the mix of faster pairs.")


def score_tab(view, info) -> None:
    head_dim, base, fraction, context = view["head_dim"], view["base"], view["fraction"], view["context"]
    far = views.curves(head_dim, float(base), float(fraction), context).far_mean
    still = info["p-RoPE"].still_share
    show(hero(views.score_chart, **views.hands(view)))
    call = classroom.call("frequency_score_curves", head_dim, float(base), float(fraction), context, 800)
    classroom.snippet(f"data = {call}",
                      'data.distance, data.scores["p-RoPE"]  # (points,) distance and the normalised '
                      'score, one key per method')
    # two lines: on one it ran past a phone's width
    formula(r"\begin{gathered}\frac{q\cdot R(\Delta)q}{|q|^2} = \frac{1}{d}\sum_{\text{dims}} \cos(\Delta\,\omega)\\ "
            r"= \underbrace{$still}_{\text{still dims}} + \frac{1}{$d}\sum_{\omega>0}\cos(\Delta\omega)\end{gathered}",
            still=still, d=head_dim)
    notice(f"Every dimension that never turns adds exactly 1/{head_dim} to this score at every "
           f"distance, so {still:.0%} of it is position-free by construction. Averaged over the far "
           f"half of the distances ({context // 2:,} to {context:,}) the score is "
           + ", ".join(f"{far[m]:.3f} for {m}" for m in METHODS)
           + f": the reduced methods settle near the still share {still:.2f}, their rotating "
           "dimensions averaging out, and nothing in that floor says how far apart two tokens are.")


def gemma_tab(view, info) -> None:
    inv, factor = pc.rope_inv_freq(512, 1e6, {"rope_type": "proportional", "partial_rotary_factor": 0.25})
    gemma = fewer_frequencies("proportional", 512, 1e6, 0.25, view["context"])
    show(figures.lines(
        range(256), {"inv_freq (Gemma 4 full attention)": inv}, title="Gemma 4's proportional "
        "inv_freq: 256 entries for head_dim 512", x_title="pair index", y_title="inv_freq",
        log_y=False, markers=False, name="gemma4_inv_freq",
        alt=f"inv_freq for Gemma 4's full-attention layers: {gemma.pairs} decaying values from {inv[0]:g}, "
            f"then {256 - gemma.pairs} zeros."))
    classroom.snippet('inv, factor = pc.rope_inv_freq(512, 1e6, {"rope_type": "proportional", '
                      '"partial_rotary_factor": 0.25})  # (256,) the line; factor: attention factor')
    formula(r"\begin{gathered}\text{rope\_angles} = \mathrm{int}(0.25\cdot 512\,/\!/\,2) = $k\\ "
            r"\lambda_{max} = $lam\\ \omega_i = \big(10^{6}\big)^{-2i/512}\ (i < $k)\\ "
            r"\omega_i = 0\ (i \ge $k)\end{gathered}", k=gemma.pairs, lam=gemma.longest_wavelength)
    notice(f"The exponent divides by the whole head_dim (512), not by the {2 * gemma.pairs} rotated "
           "dimensions, and the zeros go at the end of inv_freq, so with rotate_half the dimensions "
           f"{gemma.pairs}–255 and {256 + gemma.pairs}–511 never turn. This is p-RoPE in "
           "transformers' float32 (bit-identical with the model's buffer; a test checks it). The "
           f"attention factor is {factor:g}. Gemma 4's sliding-window layers keep plain RoPE "
           "(head_dim 256, base 10,000).")


def models_tab(view, info) -> None:
    rows = FEWER_FREQUENCY_MODELS
    st.dataframe({"model": [FEWER_MODEL_NAMES[code] for code in rows], "head_dim": [r[0] for r in rows.values()],
                  "fraction": [r[1] for r in rows.values()], "method": [r[2] for r in rows.values()],
                  "rotated dims": [fewer_frequencies(r[2], r[0], view["base"], r[1]).rotated_dims
                                   for r in rows.values()],
                  "source": [FEWER_MODEL_SOURCES[code] for code in rows]}, hide_index=True, width="stretch")
    notice("The same 'fraction 0.25' means different frequencies: Qwen3.5 and GPT-NeoX give their "
           "rotated block a full spectrum (partial rotary), Gemma 4 keeps only RoPE's fastest pairs "
           "(proportional). transformers reads both from `partial_rotary_factor`; only `rope_type` "
           "tells them apart.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        fraction = controls.select_slider("Fraction rotated", "p", [0.125, 0.25, 0.5, 0.75, 1.0], 0.25,
                                          help="partial_rotary_factor / rotary_pct / p-RoPE's p.")
        head_dim = controls.select("head_dim", "d", [64, 96, 128, 256, 512], 2)
        base = controls.base_slider(BASES)
        context = controls.select_slider("Context length", "ctx", CONTEXTS, 32768, format_func=lambda v: f"{v:,}")
    view = {"head_dim": head_dim, "fraction": fraction, "base": base, "context": context}
    tabs = page.sections(["Which dimensions turn", "Wavelengths and the context",
                          "Where the score stops seeing position", "Gemma 4's proportional", "In real models"])
    with guard():
        info = views.summaries(head_dim, float(base), float(fraction), context)
        for tab, draw in zip(tabs, (dims_tab, waves_tab, score_tab, gemma_tab, models_tab), strict=True):
            if tab.open:
                with tab:
                    draw(view, info)


lesson()
why(WHY)
source(p_rope_inv_freq, dimension_frequencies, fewer_frequencies)
