"""Views of the patch-grid lessons (2D positions, resizing) that would crowd their pages: axial 2D RoPE's section,
the neighbours' formula, each page's predict-then-reveal questions and the snippet lines behind the figures.
"""

from __future__ import annotations

import streamlit as st

import posenc_core as pc
from page_kit import classroom, controls, figures
from page_kit.chart.render import show
from page_kit.lesson import formula, notice, source
from posenc_core.images import AXIAL_QK, rope_2d_relative_check, rope_2d_score_maps


@st.cache_data(max_entries=32, show_spinner=False)
def rope_maps(h: int, w: int, dim: int, base: float, row: int, col: int, vectors: str):
    return rope_2d_score_maps(h, w, dim, row, col, base, vectors=vectors)


@st.cache_data(max_entries=32, show_spinner=False)
def rope_check(h: int, w: int, dim: int, base: float, vectors: str):
    return rope_2d_relative_check(h, w, dim, base, vectors=vectors)


def rope_section(h: int, w: int, dim: int, base: float, row: int, col: int):
    vectors = controls.choice(
        "Query and key content", "qk", list(AXIAL_QK), "ones",
        format_func={"ones": "all ones", "random": "random"}.get,
        help="All ones: every pair adds 2 cos(angle), so the map is RoPE's own sense of closeness. Random: one "
             "seeded random vector used as both q and k (a patch meeting its own content): the peak stays on the "
             "query, but the content weighs the frequencies unequally.")
    ones = vectors == "ones"
    scores, check = rope_maps(h, w, dim, base, row, col, vectors), rope_check(h, w, dim, base, vectors)
    show(figures.mark_panels(figures.square_panels(figures.padded(figures.small_multiples(
        [scores.axial, scores.flat],
        ["Axial 2D RoPE<br>(row half + column half)", f"1D RoPE of the<br>raster index r·{w} + c"],
        title=f"Score of the query at patch ({row}, {col}) with a key at every patch, d = {dim}, base {base:,.0f}",
        cols=2, value_name="score q·k", x_title="column", y_title="row", cell_px=360,
        name="rope2d_axial_vs_flat",
        alt="Two score maps on the patch grid, the query patch marked with a cross. Left: highest at the query, "
            f"falling off along its row and its column{' alike' if ones else ''}. Right: high along the query's "
            "own row and into the ends of the neighbouring rows; the patches straight above and below score "
            "far lower."))), col, row, f"query patch ({row}, {col})"))
    st.markdown("RoPE-based vision models (EVA-02, RoPE-ViT, the vision encoder of Qwen2-VL) put position into the "
                "attention score instead of into the patch vectors. The axial form cuts each query and key in two: "
                "the first half is turned by the patch's row, the second half by its column, each half an ordinary "
                "RoPE of size d/2. Here the same query content sits at the chosen patch and the same key content at "
                "every patch, so the colours show what position alone does to the score.")
    classroom.snippet(f"scores = {classroom.call('rope_2d_score_maps', h, w, dim, row, col, base, vectors=vectors)}",
                      f"scores.axial, scores.flat  # ({h}, {w}) each: the two maps")
    st.markdown(f":material/check_circle: **Checked on all {check.patches:,} x {check.patches:,} patch "
                f"pairs:** a score differs from the score of its offset alone by at most {check.axial:.1e} for "
                f"axial 2D RoPE and {check.flat:.1e} for the flattened 1D RoPE (scores reach "
                f"{check.scale:.3g}). Both depend only on (Δrow, Δcol); what is left is float32 rounding of the "
                "angles.")
    rope_notice(scores, row, col, ones)
    rope_formulas(scores, row, col, dim, base)
    source(pc.rope_2d_axial, rope_2d_score_maps, rope_2d_relative_check,
           label="Show the code of axial 2D RoPE")


def rope_notice(scores, row: int, col: int, ones: bool) -> None:
    """What the two RoPE maps show, in the numbers of ``scores`` (``pc.images.rope_2d_score_maps``)."""
    below, right = scores.vertical, scores.horizontal
    if ones:
        left_map = (f"Left: the patch {below.label} and the patch to the {right.label} score the same "
                    f"({below.axial:.3g} and {right.axial:.3g}). Rows and columns turn at the same "
                    "frequencies, so one step is one step in either direction.")
        twin = (" With all-ones vectors the left map is exactly d times the cosine map of the first tab and the "
                "right map d times the flattened one of the third: the same frequencies, now inside the score.")
    else:
        left_map = (f"Left: the peak stays on the query, but the patch {below.label} and the patch to the "
                    f"{right.label} now score differently ({below.axial:.3g} and {right.axial:.3g}): "
                    "the row half and the column half hold different content, which weighs their frequencies "
                    "differently.")
        twin = ""
    notice(f"{left_map} Right: patch ({row}, {col}) is number {scores.query_index} of the flattened sequence "
           f"and the patch {below.label} is {below.raster_distance} numbers away, so 1D RoPE scores it like "
           f"a token {below.raster_distance} positions off ({below.flat:.3g}, against {right.flat:.3g} "
           f"to the {right.label}), while the last patch of a row and the first of the next count as "
           "neighbours. Both maps are relative, since the raster offset is fixed by (Δrow, Δcol); they disagree "
           f"about which offsets are close.{twin}")


def rope_formulas(scores, row: int, col: int, dim: int, base: float) -> None:
    below, right, half = scores.vertical, scores.horizontal, scores.half
    formula(r"\tilde q_{(r,c)} = \big[\,R(r\,\theta)\,q_{[0,\,d/2)}\ \big\|\ R(c\,\theta)\,q_{[d/2,\,d)}\big]"
            r" = \big[\,R($r\,\theta)\,q_{[0,\,$half)}\ \big\|\ R($c\,\theta)\,q_{[$half,\,$d)}\big],"
            r"\quad \theta_i = $base^{-2i/$half},\ i < $quarter",
            r=row, c=col, half=half, d=dim, base=base, quarter=scores.frequencies)
    formula(r"\tilde q_{(r,c)}\cdot\tilde k_{(r',c')} = q_{\text{row}}^{\top} R(\Delta r\,\theta)\,k_{\text{row}}"
            r" + q_{\text{col}}^{\top} R(\Delta c\,\theta)\,k_{\text{col}}")
    formula(r"\text{$vlabel: } $va\ \text{(2D)},\ \ $vf\ \text{(1D, } \Delta p = $vd)"
            r"\qquad \text{$hlabel: } $ha\ \text{(2D)},\ \ $hf\ \text{(1D, } \Delta p = 1)",
            vlabel=below.label, va=below.axial, vf=below.flat, vd=below.raster_distance,
            hlabel=right.label, ha=right.axial, hf=right.flat, digits=3)


def similarity_snippet(h, w, dim, base, last: str) -> None:
    """The 2D sin-cos table and every patch's similarity map; ``last`` names what the figure shows."""
    classroom.snippet(f"pe = {classroom.call('sincos_2d', h, w, dim, float(base))}  # ({h * w}, {dim}) float32",
                      f"sim = pc.images.patch_similarity_maps(pe, {h}, {w}, 'cosine')  # ({h * w}, {h}, {w})", last)


def neighbour_formula(near, base=None) -> None:
    """The similarities of a patch's neighbours (``pc.images.grid_neighbours``), under the map or a what-if's base."""
    at = "" if base is None else rf"\text{{at base {base:,.0f}: }}"
    formula(at + r"\text{$side: } $a,\quad \text{$vertical: } $b,\quad \text{diagonal: } $c",
            side=near.side.label, a=near.side.value, vertical=near.vertical.label,
            b=near.vertical.value, c=near.diagonal.value, digits=3)


def ask_larger_base(side_now, then, larger: float, cell) -> classroom.Prediction:
    """What a larger base does to the neighbour across (``then``: the neighbours at base ``larger``)."""
    now, later = side_now.value, then.side.value
    answer = 0 if later > now else 2 if later < now else 1

    def reveal() -> str:
        return (f"At base {larger:,.0f} the patch to the {side_now.label} scores {later:.3f}, against "
                f"{now:.3f} now. A larger base slows every frequency but the first, so one step turns each "
                "wave less and neighbours look more alike.")

    return classroom.predict(
        "vit_base", f"Make the base ten times larger ({larger:,.0f}). The patch to the {side_now.label} of "
        f"{cell} scores {now:.3f} now; it then becomes:", ["more similar", "just as similar", "less similar"],
        answer, reveal)


def ask_flattened(near, cell) -> classroom.Prediction:
    """Side neighbour against vertical neighbour under the flattened code (``near``:
    ``pc.images.sincos_neighbours``)."""
    flat, grid = near.flat, near.grid
    side, vertical = flat.side, flat.vertical
    answer = 0 if side.value > vertical.value else 1 if vertical.value > side.value else 2

    def reveal() -> str:
        return (f"Flattened 1D code: the patch to the {side.label} (1 raster number away) scores "
                f"{side.value:.3f}, the one {vertical.label} ({near.raster_step} numbers away) "
                f"{vertical.value:.3f}. The 2D code gives them {grid.side.value:.3f} and "
                f"{grid.vertical.value:.3f}: there one step is one step in either direction.")

    return classroom.predict(
        "vit_flat", f"Flatten the grid row by row and use a 1D code. Which neighbour of patch {cell} looks more "
        f"like it: the one to its {side.label} or the one {vertical.label} it?",
        [f"the one to the {side.label}", f"the one {vertical.label}", "equally similar, as in the 2D code"],
        answer, reveal)


def resize_lines(src, old, new, dim, prefix, mode, antialias) -> list[str]:
    """The resize behind every figure; ``mode`` None loops over the three interpolations (an indented body follows)."""
    table = f"table = {classroom.call('vit_position_table', src, old, dim, prefix, seed=0)}"
    resize = f"pc.resample_pos_embed(table, ({old}, {old}), ({new}, {new}), {prefix}, {{}}, {antialias})"
    if mode is not None:
        return [f"{table}  # ({prefix + old * old}, {dim}): prefix rows, then the grid",
                f"resized = {resize.format(repr(mode))}  # ({prefix + new * new}, {dim})"]
    return [table, "for mode in pc.images.RESIZE_MODES:", f"    resized = {resize.format('mode')}"]


def ask_resized_to(now, then, sizes, cell) -> classroom.Prediction:
    """What-if on the resize: the one-step neighbour after resizing to another size (``now`` and ``then``:
    ``pc.images.resize_neighbour`` at the chosen new size and at ``sizes[2]``; ``sizes``: old, new, other)."""
    old, new, other = sizes
    answer = 1 if abs(then.after - now.after) < 1e-6 else 0 if then.after > now.after else 2

    def reveal() -> str:
        return (f"One patch to the {then.side} of {then.new_cell}: similarity {then.after:.3f} on the "
                f"{other} x {other} grid, against {now.after:.3f} on the {new} x {new} grid and "
                f"{now.before:.3f} on the old {old} x {old} one. The more cells the same image is cut into, "
                "the closer two neighbouring cells sit in the image, so the more alike their blended embeddings.")

    return classroom.predict(
        "resize_other", f"Resize the {old} x {old} grid to {other} x {other} instead of {new} x {new}. Patch {cell} "
        f"then lands on cell {then.new_cell}; compared with the step shown above ({now.after:.3f}), the patch "
        f"one step {then.side} of it is:", ["more similar", "exactly as similar", "less similar"],
        answer, reveal)
