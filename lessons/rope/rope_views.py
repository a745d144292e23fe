"""The precision section of the RoPE variants page: angle errors of m·θ in low-precision dtypes.

Every number comes from a cached core call; this module only lays out the controls, the question, the
figures, the code to copy and the text around them.
"""

from __future__ import annotations

import streamlit as st

from page_kit import _, classroom, controls, figures, hero
from page_kit.chart.render import show
from page_kit.lesson import formula, notice
from page_kit.lesson.code_lines import fold
from posenc_core.rope import (
    ANGLE_DTYPES,
    rope_angle_error_curve,
    rope_angles_in_dtype,
    rope_first_bad_position,
    rope_float32_pow_difference,
)

LENGTHS = [32768, 131072, 262144, 1048576]
AROUND = [300, 1500, 4096, 32768, 131072, 1000000]


@st.cache_data(max_entries=16, show_spinner=False)  # its spinner is the caller's, in the reader's language
def precision(dim: int, base: float, length: int):
    curves = {dtype: rope_angle_error_curve(length, dim, base, dtype) for dtype in ANGLE_DTYPES}
    first_bad = {dtype: rope_first_bad_position(dim, base, dtype, max_position=length)
                 for dtype in ANGLE_DTYPES}
    return curves, first_bad


@st.cache_data(max_entries=32, show_spinner=False)
def staircase(around: int, dim: int, base: float, dtype: str):
    return rope_angles_in_dtype(around, 48, dim, base, pair=0, dtype=dtype)


@st.cache_data(max_entries=16, show_spinner=False)
def pow_difference(dim: int, base: float, position: int):
    return rope_float32_pow_difference(dim, base, position)


def position_text(position, length):
    return f"> {length:,}" if position is None else f"{position:,}"


def precision_section(dim: int, base: float, side=None) -> None:
    """The 'Precision' tab: worst angle error per dtype, a zoom on pair 0, and transformers' float32 seam.

    ``side`` is the lesson stage's control column (``lesson.stage``); without it the controls form a row.
    """
    with side if side is not None else st.container(horizontal=True):
        length = controls.select_slider(_("Longest position"), "len", LENGTHS, 1048576,
                                        format_func=lambda v: f"{v:,}")
        around = controls.select_slider(_("Zoom near position"), "at", AROUND, 4096,
                                        format_func=lambda v: f"{v:,}")
        dtype = controls.choice(_("Zoom dtype"), "dtype", list(ANGLE_DTYPES), "bfloat16")
    with st.spinner(_("Measuring angle errors...")):  # shown only when the cached call takes half a second
        curves, first_bad = precision(dim, float(base), length)
    bf16 = first_bad["bfloat16"]

    def bf16_reveal() -> str:
        if bf16 is None:
            return _("No angle formed in bfloat16 is off by a whole radian up to {length:,}: with 8 significant "
                     "bits, above 256 it cannot even write every position.").format(length=length)
        return _("From position {position:,} an angle formed in bfloat16 is off by a whole radian (the bfloat16 "
                 "curve crosses the 1 rad line): with 8 significant bits, above 256 it cannot even write every "
                 "position.").format(position=bf16)

    with classroom.predict("rv_bfloat16", _("Head dimension {d}, base {base:,}: at which position is an "
                                            "angle m·θ formed in bfloat16 first off by a whole radian?").format(
                               d=dim, base=base),
                           [_("below 1,000"), _("between 1,000 and 100,000"), _("above 100,000"),
                            _("never, in the range shown")],
                           3 if bf16 is None else 0 if bf16 < 1000 else 1 if bf16 < 100_000 else 2,
                           bf16_reveal):
        precision_charts(dim, base, length, around, dtype)
        precision_numbers(dim, base, length, around, dtype, curves, first_bad)


def error_chart(d: int, base, **slider) -> figures.Chart:
    curves, _first_bad = precision(d, float(base), slider["len"])  # "len": the slider's URL key, a builtin's name
    return figures.lines(
        curves["bfloat16"].position,
        {dtype_name: curves[dtype_name].error for dtype_name in ANGLE_DTYPES},
        log_x=True, log_y=True, hlines=[(1.0, _("1 rad: the angle is meaningless"))],
        title=_("Worst angle error of m·θ_i against float64"), x_title=_("position m"),
        y_title=_("|error| (rad)"), name="rope_precision", height=430, hover_format=".3g",
        alt=_("Angle error against position on log axes: bfloat16 passes 1 radian in the hundreds, "
              "float16 in the thousands and then overflows, float32 stays far below."))


def zoom_chart(at: int, dtype: str, d: int, base) -> figures.Chart:
    zoom = staircase(at, d, float(base), dtype)
    return figures.lines(
        zoom.position, {_("exact"): zoom.exact, dtype: zoom.computed},
        markers=True, title=_("Pair 0 angle near {at:,}").format(at=at), x_title=_("position m"),
        y_title="m·θ₀ (rad)", name="rope_precision_zoom", height=430, hover_format=",.2f",
        alt=_("The angle of pair 0 for 48 positions from {at:,}: exact values rise by one per "
              "position; in {dtype} they move in steps.").format(at=at, dtype=dtype))


def precision_charts(dim: int, base: float, length: int, around: int, dtype: str) -> None:
    """The worst angle error per dtype (left) and the zoom on pair 0's angle near ``around`` (right), each drawn
    ahead of the hand on its own slider."""
    left, right = st.columns([1.3, 1])
    with left:
        show(hero(error_chart, len=length, d=dim, base=base))
    with right:
        show(hero(zoom_chart, at=around, dtype=dtype, d=dim, base=base))


def precision_numbers(dim: int, base: float, length: int, around: int, dtype: str, curves, first_bad) -> None:
    """The code to copy, the first bad position per dtype, and transformers' float32 seam in numbers and words."""
    b = float(base)
    classroom.snippet(
        fold(f"curves = {{dtype: pc.rope.rope_angle_error_curve({length}, {dim}, {b!r}, dtype) for dtype in "
             "pc.rope.ANGLE_DTYPES}", "curves[dtype].error (bins,): left"),
        fold(f"zoom = {classroom.call('rope_angles_in_dtype', around, 48, dim, b, pair=0, dtype=dtype)}",
             "zoom.exact, zoom.computed (48,): right"),
        fold(f"first_bad = {{dtype: pc.rope.rope_first_bad_position({dim}, {b!r}, dtype, max_position={length}) "
             "for dtype in pc.rope.ANGLE_DTYPES}", "the three numbers below"))
    c = st.columns(3)
    for column, dtype_name in zip(c, ANGLE_DTYPES, strict=True):
        column.metric(_("{dtype}: first position off by ≥ 1 rad").format(dtype=dtype_name),
                      position_text(first_bad[dtype_name], length))
    overflow = curves["float16"].overflow_from
    if overflow is not None:
        st.caption(_("float16 cannot hold numbers above 65,504: from about position {overflow:,.0f} the "
                     "angle is infinite and its sine is NaN (the gap in the float16 curve).").format(overflow=overflow))
    gap, gap_long = pow_difference(dim, float(base), 1500), pow_difference(dim, float(base), length)
    formula(r"\theta_i\ \text{(float32 pow, as transformers)}:\ $nd/$np\ \text{pairs off the rounded "
            r"value, up to } $ulp\ \text{ulp}", nd=gap.pairs_differing, np=gap.n_pairs,
            ulp=f"{gap.max_ulp:.1f}")
    formula(r"\max_i |\mathrm{fl}_{32}(m\,\theta_i) - m\,\theta_i^{\text{exact}}| = $a\ (m{=}1{,}500),"
            r"\ $b\ (m{=}$len)", a=gap.angle_error, b=gap_long.angle_error, len=f"{length:,}",
            digits=2)
    notice(_("The angle of pair 0 is the position itself (θ₀ = 1), so low precision first fails there. "
             "bfloat16 keeps 8 significant bits: above 256 it cannot even write every position, and "
             "neighbouring tokens get the same rotation (the flat steps on the right). float16 keeps 11 "
             "bits and overflows past 65,504. float32 stays below "
             "{worst:.2g} rad up to {length:,} positions. That is why model code "
             "forms the angles in float32 even when the rest runs in bfloat16: transformers multiplies "
             "float32 copies of the position ids and inv_freq and "
             "casts only cos and sin to the model's dtype (its earlier versions formed the angles with a "
             "matrix product and had to switch autocast off around it, since autocast runs matrix "
             "products in bfloat16). "
             "Even float32 has a visible seam: transformers forms θ_i with a float32 pow and division, "
             "which lands up to {ulp:.1f} units in the last place from the exact value "
             "({differing} of {pairs} pairs differ from the correctly rounded θ), "
             "and the error grows linearly with m: at position "
             "{length:,} the angles transformers forms are off by up to {error:.2g} rad, "
             "against {rounded:.2g} rad with correctly rounded θ. The curves on "
             "the left use transformers' own θ, so they show these measured errors.").format(
        worst=curves["float32"].worst, length=length, ulp=gap.max_ulp, differing=gap.pairs_differing,
        pairs=gap.n_pairs, error=gap_long.angle_error, rounded=gap_long.rounded_angle_error))
