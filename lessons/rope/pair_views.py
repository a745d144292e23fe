"""The query / key pair the first two tabs of the RoPE lesson share (lessons/rope/rope): its cached core calls,
its controls, and the complex-plane tab.

Every number comes from a cached core call; this module lays out the controls, figures and text around them.
"""

from __future__ import annotations

import streamlit as st

from page_kit import _, controls, figures, fmt, hero
from page_kit.chart import figure_control
from page_kit.chart.render import show
from page_kit.lesson import formula, notice
from posenc_core.rope import rope_pair, rope_pair_shift_scores, rope_pair_theta, rope_turns

PAIR_LIMIT = 2.0  # the q and k sliders run from -2 to 2 in each number
PAIR_REACH = 2.83  # the plane's radius: (±2, ±2) and every turn of it fit, so a drag never rescales the plane


@st.cache_data(max_entries=64, show_spinner=False)
def pair(qx: float, qy: float, kx: float, ky: float, m: int, n: int, theta: float):
    return rope_pair((qx, qy), (kx, ky), m, n, theta)


@st.cache_data(max_entries=64, show_spinner=False)
def shifts(qx: float, qy: float, kx: float, ky: float, m: int, n: int, theta: float):
    return rope_pair_shift_scores((qx, qy), (kx, ky), m, n, theta)


def pair_chart(m: int, n: int, i: int, qx: float, qy: float, kx: float, ky: float, d: int, base) -> figures.Chart:
    """The query and key arrows, before and after their turns (the view's keys are the sliders' URL keys)."""
    theta = rope_pair_theta(i, d, base)
    o = pair(qx, qy, kx, ky, m, n, theta)
    q_turned, k_turned = _("q turned by mθ"), _("k turned by nθ")  # "q" and "k" name the arrows a drag moves
    return figures.vectors2d(
        {"q": (qx, qy), q_turned: o.q_rot, "k": (kx, ky), k_turned: o.k_rot},
        dashed=("q", "k"), colours={"q": 0, q_turned: 0, "k": 3, k_turned: 3},
        arcs=[(0.35, *o.q_arc, "mθ"), (0.22, *o.k_arc, "nθ")],
        arc_colours=(0, 3), legend_right=True, reach=PAIR_REACH,
        title=_("Pair {i}: θ = {theta:.4g} rad per position").format(i=i, theta=theta), name="rope_pair_vectors",
        height=440,
        alt=_("A query pair turned by {q_angle:.3g} rad and a key pair turned by "
              "{k_angle:.3g} rad; both keep their length.").format(q_angle=o.q_angle, k_angle=o.k_angle))


def dragged_pair_chart(**view) -> figures.Chart:
    # drag the tips of q and k (the dashed arrows) to set them: the sliders are their twins
    return figure_control.drag_points(pair_chart(**view), {"q": ("qx", "qy"), "k": ("kx", "ky")})


def pair_view(shared, dim, base) -> dict:
    """The pair's sliders by URL key, the view of the figures drawn ahead of the hand."""
    m, n, i, qx, qy, kx, ky, _theta, _out = shared
    return {"m": m, "n": n, "i": i, "qx": qx, "qy": qy, "kx": kx, "ky": ky, "d": dim, "base": base}


def complex_tex(re: float, im: float) -> str:
    """a + bi as LaTeX, with the sign folded in (no '+ -')."""
    return f"{fmt(re)} {'-' if im < 0 else '+'} {fmt(abs(im))}\\,i"


def pair_controls(page, dim, base):
    """The query, key and pair the first two tabs share: (m, n, i, qx, qy, kx, ky, theta, out)."""
    with page.side:
        m = controls.slider(_("Query position m"), "m", 0, 200, 5)
        n = controls.slider(_("Key position n"), "n", 0, 200, 2)
        i = controls.slider(_("Pair index i"), "i", 0, dim // 2 - 1, 0,
                            help=_("Pair 0 turns fastest (θ = 1 rad per position)."))
    with page.more:
        qx = controls.slider(_("q, first number"), "qx", -PAIR_LIMIT, PAIR_LIMIT, 1.0, 0.1)
        qy = controls.slider(_("q, second number"), "qy", -PAIR_LIMIT, PAIR_LIMIT, 0.3, 0.1)
        kx = controls.slider(_("k, first number"), "kx", -PAIR_LIMIT, PAIR_LIMIT, 0.6, 0.1)
        ky = controls.slider(_("k, second number"), "ky", -PAIR_LIMIT, PAIR_LIMIT, 0.8, 0.1)
    theta = rope_pair_theta(i, dim, base)
    out = pair(qx, qy, kx, ky, m, n, theta)
    return m, n, i, qx, qy, kx, ky, theta, out


def complex_chart(m: int, n: int, i: int, qx: float, qy: float, kx: float, ky: float, d: int, base) -> figures.Chart:
    out = pair(qx, qy, kx, ky, m, n, rope_pair_theta(i, d, base))
    px, py = out.product
    return figures.vectors2d(
        {"q·conj(k)": (out.q_conj_k, out.q_conj_k_imag), "q̃·conj(k̃)": (px, py)},
        dashed=("q·conj(k)",), colours={"q·conj(k)": 0},
        arcs=[(0.3, *out.relative_arc, "(m−n)θ")], arc_colours=(2,), legend_right=True,
        guides=[((px, py), (px, 0.0), _("Re = score"))],
        x_title=_("real part"), y_title=_("imaginary part"), height=460,
        title=_("One number carries the whole score: q·conj(k), turned by (m − n)θ"),
        name="rope_complex_plane",
        alt=_("In the complex plane, q times the conjugate of k is turned by {angle:.3g} "
              "rad; its real part, {score:.3g}, is the attention score of the pair.").format(
            angle=out.relative_angle, score=out.score))


def complex_tab(page, dim, base, shared):
    m, n, i, qx, qy, kx, ky, theta, out = shared
    px, py = out.product
    show(hero(complex_chart, **pair_view(shared, dim, base)))
    st.markdown(_("Write the pair (x, y) as the complex number x + iy. Turning it by an angle α is "
                  "multiplying by e^(iα), and the dot product of two pairs is the real part of one times "
                  "the conjugate of the other. The derivation, with your numbers:"))
    formula(r"\begin{aligned}"
            r"\tilde q &= q\,e^{im\theta} = ($q)\,e^{i\cdot $mt},\qquad "
            r"\tilde k = k\,e^{in\theta} = ($k)\,e^{i\cdot $nt}\\"
            r"\tilde q\cdot\tilde k &= \mathrm{Re}\big(\tilde q\,\overline{\tilde k}\big)"
            r"= \mathrm{Re}\big(q\,e^{im\theta}\,\bar k\,e^{-in\theta}\big)"
            r"= \mathrm{Re}\big(q\bar k\,e^{i(m-n)\theta}\big)\\"
            r"&= \mathrm{Re}\big(($z)\,e^{i\cdot $rel}\big) = \mathrm{Re}($p) = $score"
            r"\end{aligned}",
            q=complex_tex(qx, qy), k=complex_tex(kx, ky), mt=out.q_angle, nt=out.k_angle,
            z=complex_tex(out.q_conj_k, out.q_conj_k_imag), rel=out.relative_angle,
            p=complex_tex(px, py), score=out.score)
    notice(_("The positions enter only through e^(i(m−n)θ): the absolute angles mθ and nθ cancel in the "
             "product with the conjugate. This is the whole trick of RoPE, and it is exact, not an "
             "approximation. The dashed arrow depends only on the content of q and k; the position "
             "turns it, and the score is its shadow on the real axis."))


@st.cache_data(max_entries=32, show_spinner=False)
def turns(dim: int, base: float, context: int):
    return rope_turns(dim, base, context)


def wavelength_chart(ctx: int, d: int, base) -> figures.Chart:
    t = turns(d, float(base), ctx)
    return figures.lines(
        t.pair, {_("wavelength 2π/θ_i"): t.wavelength}, markers=True, log_y=True,
        hlines=[(float(ctx), _("context {ctx:,}").format(ctx=ctx))],
        title=_("Wavelength of each pair against the context (d = {d}, base {base:,})").format(d=d, base=base),
        x_title=_("pair index i"), y_title=_("wavelength (positions)"), name="rope_wavelengths",
        hover_format=",.1f",
        alt=_("Wavelengths grow geometrically with the pair index; {full} of "
              "{pairs} pairs lie below the context line and complete a full turn.").format(
            full=t.full_turn_pairs, pairs=d // 2))
