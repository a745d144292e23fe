"""The FoPE tab of the RoPE variants page: Intern-S1-Pro's Fourier position embedding as vLLM serves it.

Every number comes from a cached core call (posenc_core.rope.fope); this module lays out the controls, the
question, the figures, the code to copy and the text around them.
"""

from __future__ import annotations

import math

import streamlit as st

from page_kit import N_, _, classroom, controls, figures, hero
from page_kit.chart.render import show
from page_kit.i18n import pgettext
from page_kit.lesson import formula, notice
from page_kit.lesson.code_lines import fold
from posenc_core.rope import fope_demo_coefficients, fope_distance_scores, fope_inv_freq, fope_mix_by_pair

LENGTHS = [4096, 8192, 32768, 131072, 262144]
GAINS = [0.1, 0.5, 1.0]
KV_HEADS = 4  # Intern-S1-Pro's num_key_value_heads: one coefficient mix per KV head
CONFIG = """"text_config": {
  "head_dim": 128,
  "num_key_value_heads": 4,
  "max_position_embeddings": 262144,
  "rope_theta": 5000000,
  "rope_scaling": {
    "rope_type": "default",
    "fope_init_factor": 0.5,
    "fope_sep_head": true,
    "num_inv_freq": null}}"""
# a sentence kept in a constant: marked here, translated where it is shown
SOURCE = N_("vLLM, `vllm/model_executor/layers/rotary_embedding/fope.py`: `FourierRotaryEmbedding._compute_inv_freq`, "
            "`_compute_cos_sin_cache`, `forward_native`; chosen by `get_rope` (`rotary_embedding/__init__.py`) when "
            "`rope_parameters` has `use_fope`, which `vllm/model_executor/models/interns1_pro.py` sets from these "
            "fields.")


@st.cache_data(max_entries=16, show_spinner=False)
def fope_view(dim: int, base: float, length: int, gain: float, seed: int):
    """(scores, kept frequencies, KV head 0's cos_coef) for one view; the coefficients are the figure's own."""
    freqs = fope_inv_freq(dim, base, length)
    coef = fope_demo_coefficients(KV_HEADS, freqs.n_kept, gain, seed)
    scores = fope_distance_scores(dim, base, length, init_factor=gain, n_kv_heads=KV_HEADS, seed=seed)
    return scores, freqs, coef.cos_coef[0]


@st.cache_data(max_entries=2, show_spinner=False)
def intern_s1_pro():
    return fope_inv_freq(128, 5e6, 262144)


def scores_chart(d: int, base, train: int, gain: float, fseed: int) -> figures.Chart:
    s, _freqs, _coef = fope_view(d, float(base), train, float(gain), fseed)
    x = s.distance[1:]  # a log axis: distance 0 is the table's first row
    return figures.padded(figures.lines(
        x, {"RoPE": s.rope_clipped[1:], "FoPE": s.fope_clipped[1:]}, log_x=True, colours={"RoPE": 0, "FoPE": 1},
        title=_("Score from the {clipped} slowest pairs, query at distance p, over L = {train:,}").format(
            clipped=s.n_clipped, train=train),
        x_title=_("distance p (log)"), y_title=_("part of q·k"), name="fope_scores", height=400, hover_format=".3f",
        alt=_("The part of one random query-key score carried by the {clipped} pairs FoPE clips, against "
              "distance up to {train:,}: under RoPE it drifts by {spread:.2f}, under FoPE (demo "
              "coefficients) it is flat.").format(clipped=s.n_clipped, train=train,
                                                   spread=s.rope_clipped_spread)), left=72)


def mix_chart(d: int, base: float, train: int, gain: float, fseed: int) -> figures.Chart:
    _scores, freqs, cos_coef = fope_view(d, float(base), train, float(gain), fseed)
    grid = fope_mix_by_pair(cos_coef, d)  # (D, d/2), NaN where the clipped pairs take no mix
    shade = [(freqs.n_kept - 0.5, d // 2 - 0.5, _("clipped: cos 1, sin 1"))] if freqs.n_clipped else []
    return figures.heatmap(
        grid, title=_("cos_coef of KV head 0 (demo, not a checkpoint's)"), x_title=_("output pair d"),
        y_title=_("base frequency D"), value_name=_("coefficient"), name="fope_mix", height=380, robust=95,
        shade_cols=shade, hover_format=".3f",
        alt=_("A {kept} by {pairs} grid: the identity on the diagonal (near 1, beyond the colour range) and "
              "the noise of every other base frequency around it, and {clipped} shaded columns for the "
              "clipped pairs.").format(kept=freqs.n_kept, pairs=d // 2, clipped=freqs.n_clipped))


def fope_tab(page, dim: int, base: float) -> None:
    """What FoPE computes, the score figure, the clip question, the mix, the code, the config and the source."""
    st.caption(_("FoPE mixes, for each pair, the cos and sin of several RoPE frequencies with learned weights "
                 "(cos_coef, sin_coef per KV head), and clips the frequencies slower than one turn per trained "
                 "length to zero frequency."))
    with page.side:
        train = controls.select_slider(_("Trained length L"), "train", LENGTHS, 8192, format_func=lambda v: f"{v:,}")
        gain = controls.choice("fope_init_factor", "gain", GAINS, 0.5,  # a config key: the same in every language
                               help=_("The demo noise's gain (XTuner's xavier_normal_ init)."))
        seed = controls.number(_("Random seed"), "fseed", 0, 9999, 0, help=_("Draws q, k and the demo coefficients."))
    scores, freqs, _coef = fope_view(dim, float(base), train, float(gain), seed)
    show(hero(scores_chart, d=dim, base=base, train=train, gain=gain, fseed=seed))
    made = classroom.call("fope_distance_scores", dim, float(base), train, init_factor=float(gain),
                          n_kv_heads=KV_HEADS, seed=seed)
    classroom.snippet(
        fold(f"scores = {made}", "scores.rope_clipped, scores.fope_clipped: the curves"),
        fold(f"kept = {classroom.call('fope_inv_freq', dim, float(base), train)}", "the numbers below"),
        fold(f"coef = pc.rope.fope_demo_coefficients({KV_HEADS}, kept.n_kept, {float(gain)!r}, {seed})",
             "coef.cos_coef[0]: the grid below"),
        fold(f"cos, sin = pc.rope.fope_cos_sin(scores.distance, {dim}, {dim}, {float(base)!r}, {train}, "
             "coef.cos_coef, coef.sin_coef)", "(n, 4, d) float32 each: vLLM's cache rows"))
    half = dim // 2
    answer = 0 if freqs.n_clipped == 0 else 1 if 4 * freqs.n_clipped < half else 2

    def reveal() -> str:
        return _("{clipped} of {half}: θ_i > 2π/L = {limit:.3g} holds for the first "
                 "{kept} pairs only. Each clipped pair turns less than once in {train:,} positions, so "
                 "training never showed it a full cycle.").format(clipped=freqs.n_clipped, half=half,
                                                                  limit=2 * math.pi / train, kept=freqs.n_kept,
                                                                  train=train)

    with classroom.predict("rv_fope_clip", _("vLLM keeps only the frequencies θ_i > 2π/L. With d = {d}, base "
                                             "{base:,} and L = {train:,}, how many of the {half} pairs are clipped "
                                             "to zero frequency?").format(d=dim, base=base, train=train, half=half),
                           [pgettext("how many pairs", "none"), _("fewer than a quarter"), _("a quarter or more")],
                           answer, reveal):
        c = st.columns(3)
        c[0].metric(_("Kept frequencies D"), f"{freqs.n_kept}")
        c[1].metric(_("Clipped pairs"), f"{freqs.n_clipped}")
        c[2].metric("2π / L", f"{2 * math.pi / train:.3g}")
        show(mix_chart(dim, float(base), train, float(gain), seed))
    fope_text(scores, freqs, dim)


def fope_text(scores, freqs, dim: int) -> None:
    """The formula, the notice in the view's numbers, the config lines and the reference."""
    formula(r"\cos_d(t) = \sum_{D<$k} c^{\cos}_{Dd}\cos(t\,\theta_D),\quad \sin_d(t) = \sum_{D<$k} "
            r"c^{\sin}_{Dd}\sin(t\,\theta_D)\quad (d < $k)", k=freqs.n_kept)
    formula(r"\cos_d = \sin_d = 1\quad ($k \le d < $h),\qquad \theta_D > 2\pi / L", k=freqs.n_kept, h=dim // 2)
    intern = intern_s1_pro()
    change = _("At these settings no pair is clipped, so both curves are zero; shorten L or raise the base.")
    if scores.n_clipped:
        change = _("RoPE's part from the {clipped} clipped pairs drifts by {rope_spread:.2f} "
                   "over the trained range, FoPE's by {fope_spread:g}: zero frequency, the same at "
                   "every position. FoPE's line sits at {fope_value:.2f}, twice RoPE's value at distance "
                   "0 ({rope_value:.2f}): the pad scales q and k by √2 each.").format(
            clipped=scores.n_clipped, rope_spread=scores.rope_clipped_spread,
            fope_spread=scores.fope_clipped_spread, fope_value=scores.fope_clipped[0],
            rope_value=scores.rope_clipped[0])
    notice(_("{change} The kept pairs are no longer pure rotations: each output pair adds up the cos and sin of all "
             "{kept} kept frequencies, so a pair hears several wavelengths and q·k depends on both positions, "
             "not only on their distance (the figure fixes the key at position 0). vLLM pads the clipped pairs with "
             "cos = 1 and sin = 1, as XTuner, which trained the model, does: every token turns them by the same 45° "
             "and scales them by √2, so they carry content only. A vLLM issue (#55204) and pull request (#55243) "
             "propose padding sin with 0 instead (pass through unchanged); that would change Intern-S1-Pro's "
             "scores on those pairs by a factor 2. The coefficients here are seeded demo draws at XTuner's initial "
             "scale (identity + noise), not a checkpoint's: vLLM allocates them empty and loads them. Intern-S1-Pro "
             "(d = 128, θ = 5,000,000, L = 262,144) keeps {intern_kept} frequencies and clips {intern_clipped}. "
             "The cos/sin are formed in float32 and cast to the model's dtype (bfloat16); the rotation is the neox "
             "half split.").format(change=change, kept=freqs.n_kept, intern_kept=intern.n_kept,
                                   intern_clipped=intern.n_clipped))
    st.caption(_("The config.json lines that turn FoPE on (Intern-S1-Pro; any of the three fope fields does):"))
    st.code(CONFIG, language="json", wrap_lines=True)
    st.caption(_(SOURCE))
