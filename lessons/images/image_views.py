"""Views of the images lessons that the pages share or that would crowd them: axial 2D RoPE's section, the
Fourier-feature score table and training curves, and each page's predict-then-reveal question and snippet lines.
"""

from __future__ import annotations

import streamlit as st

import posenc_core as pc
from page_kit import classroom, controls, figures
from page_kit.lesson import formula, notice, source
from page_kit.render import show

LABELS = {"raw": "raw coordinates", "nerf": "NeRF encoding", "gaussian": "Fourier features"}
# one colour per input in every chart of a tab; the target takes the kit's reference style (wide grey dashes)
COLOURS = {"target": 7, "raw coordinates": 0, "NeRF encoding": 1, "Fourier features": 2}
DASHED = ["Fourier features"]  # drawn last and dashed, so the NeRF fit under it stays visible where they agree


@st.cache_data(max_entries=32, show_spinner=False)
def rope_maps(h: int, w: int, dim: int, base: float, row: int, col: int, vectors: str):
    return pc.rope_2d_score_maps(h, w, dim, row, col, base, vectors=vectors)


@st.cache_data(max_entries=32, show_spinner=False)
def rope_check(h: int, w: int, dim: int, base: float, vectors: str):
    return pc.rope_2d_relative_check(h, w, dim, base, vectors=vectors)


def rope_section(h: int, w: int, dim: int, base: float, row: int, col: int):
    st.markdown("RoPE-based vision models (EVA-02, RoPE-ViT, the vision encoder of Qwen2-VL) put position into "
                "the attention score instead of into the patch vectors. The axial form cuts each query and key "
                "in two: the first half is turned by the patch's row, the second half by its column, each half "
                "an ordinary RoPE of size d/2. Below, the same query content sits at the chosen patch and the "
                "same key content at every patch, so the colours show what position alone does to the score.")
    vectors = controls.choice(
        "Query and key content", "qk", list(pc.AXIAL_QK), "ones",
        format_func={"ones": "all ones", "random": "random"}.get,
        help="All ones: every pair adds 2 cos(angle), so the map is RoPE's own sense of closeness. Random: one "
             "seeded random vector used as both q and k (a patch meeting its own content): the peak stays on the "
             "query, but the content weighs the frequencies unequally.")
    ones = vectors == "ones"
    scores, check = rope_maps(h, w, dim, base, row, col, vectors), rope_check(h, w, dim, base, vectors)
    show(figures.mark_panels(figures.square_panels(figures.padded(figures.small_multiples(
        [scores["axial"], scores["flat"]],
        ["Axial 2D RoPE (row half + column half)", f"1D RoPE of the raster index r·{w} + c"],
        title=f"Score of the query at patch ({row}, {col}) with a key at every patch, d = {dim}, base {base:,.0f}",
        cols=2, value_name="score q·k", x_title="column", y_title="row", cell_px=360,
        name="rope2d_axial_vs_flat",
        alt="Two score maps on the patch grid, the query patch marked with a cross. Left: highest at the query, "
            f"falling off along its row and its column{' alike' if ones else ''}. Right: high along the query's "
            "own row and into the ends of the neighbouring rows; the patches straight above and below score "
            "far lower."))), col, row, f"query patch ({row}, {col})"))
    classroom.snippet(f"scores = {classroom.call('rope_2d_score_maps', h, w, dim, row, col, base, vectors=vectors)}",
                      f"scores['axial'], scores['flat']  # ({h}, {w}) each: the two maps")
    below, right = scores["vertical"], scores["horizontal"]
    st.markdown(f":material/check_circle: **Checked on all {h * w:,} x {h * w:,} patch pairs:** a score differs "
                f"from the score of its offset alone by at most {check['axial']:.1e} for axial 2D RoPE and "
                f"{check['flat']:.1e} for the flattened 1D RoPE (scores reach {check['scale']:.3g}). Both depend "
                "only on (Δrow, Δcol); what is left is float32 rounding of the angles.")
    if ones:
        left_map = (f"Left: the patch {below['label']} and the patch to the {right['label']} score the same "
                    f"({below['axial']:.3g} and {right['axial']:.3g}). Rows and columns turn at the same "
                    "frequencies, so one step is one step in either direction.")
        twin = (" With all-ones vectors the left map is exactly d times the cosine map of the first tab and the "
                "right map d times the flattened one of the third: the same frequencies, now inside the score.")
    else:
        left_map = (f"Left: the peak stays on the query, but the patch {below['label']} and the patch to the "
                    f"{right['label']} now score differently ({below['axial']:.3g} and {right['axial']:.3g}): "
                    "the row half and the column half hold different content, which weighs their frequencies "
                    "differently.")
        twin = ""
    notice(f"{left_map} Right: patch ({row}, {col}) is number {scores['query_index']} of the flattened sequence "
           f"and the patch {below['label']} is {below['raster_distance']} numbers away, so 1D RoPE scores it like "
           f"a token {below['raster_distance']} positions off ({below['flat']:.3g}, against {right['flat']:.3g} "
           f"to the {right['label']}), while the last patch of a row and the first of the next count as "
           "neighbours. Both maps are relative, since the raster offset is fixed by (Δrow, Δcol); they disagree "
           f"about which offsets are close.{twin}")
    formula(r"\tilde q_{(r,c)} = \big[\,R(r\,\theta)\,q_{[0,\,d/2)}\ \big\|\ R(c\,\theta)\,q_{[d/2,\,d)}\big]"
            r" = \big[\,R($r\,\theta)\,q_{[0,\,$half)}\ \big\|\ R($c\,\theta)\,q_{[$half,\,$d)}\big],"
            r"\quad \theta_i = $base^{-2i/$half},\ i < $quarter",
            r=row, c=col, half=dim // 2, d=dim, base=base, quarter=dim // 4)
    formula(r"\tilde q_{(r,c)}\cdot\tilde k_{(r',c')} = q_{\text{row}}^{\top} R(\Delta r\,\theta)\,k_{\text{row}}"
            r" + q_{\text{col}}^{\top} R(\Delta c\,\theta)\,k_{\text{col}}")
    formula(r"\text{$vlabel: } $va\ \text{(2D)},\ \ $vf\ \text{(1D, } \Delta p = $vd)"
            r"\qquad \text{$hlabel: } $ha\ \text{(2D)},\ \ $hf\ \text{(1D, } \Delta p = 1)",
            vlabel=below["label"], va=below["axial"], vf=below["flat"], vd=below["raster_distance"],
            hlabel=right["label"], ha=right["axial"], hf=right["flat"], digits=3)
    source(pc.rope_2d_axial, pc.rope_2d_score_maps, pc.rope_2d_relative_check,
           label="Show the code of axial 2D RoPE")


def similarity_snippet(h, w, dim, base, last: str) -> None:
    """The 2D sin-cos table and every patch's similarity map; ``last`` names what the figure shows."""
    classroom.snippet(f"pe = {classroom.call('sincos_2d', h, w, dim, float(base))}  # ({h * w}, {dim}) float32",
                      f"sim = pc.patch_similarity_maps(pe, {h}, {w}, 'cosine')  # ({h * w}, {h}, {w})", last)


def ask_diagonal(sim, row: int, col: int, h: int, w: int) -> classroom.Prediction:
    """Straight-across against diagonal neighbour, asked before the map that answers it (sim: (h, w))."""
    dr, dc = (1 if row + 1 < h else -1), (1 if col + 1 < w else -1)  # a neighbour that exists, even at an edge
    across, diagonal = float(sim[row, col + dc]), float(sim[row + dr, col + dc])
    answer = 0 if across > diagonal else 1 if diagonal > across else 2
    side = "right" if dc > 0 else "left"

    def reveal() -> str:
        return (f"The patch to the {side} scores {across:.3f}, the diagonal one {diagonal:.3f}. The {side} neighbour "
                "shares the whole row half of the code; the diagonal one differs in both halves.")

    return classroom.predict(
        "vit_diagonal", f"Which patch's code is more similar to patch ({row}, {col})'s: the one to its "
        f"{side}, or the diagonal one ({row + dr}, {col + dc})?",
        [f"the one to the {side}", "the diagonal one", "equally similar: both are one step away"],
        answer, reveal)


def ask_flattened(sim2d, sim1d, row: int, col: int, h: int, w: int) -> classroom.Prediction:
    """Side neighbour against vertical neighbour under the flattened code, asked before the two maps (each (h, w))."""
    dr, dc = (1 if row + 1 < h else -1), (1 if col + 1 < w else -1)  # neighbours that exist, even at an edge
    side, vertical = float(sim1d[row, col + dc]), float(sim1d[row + dr, col])
    answer = 0 if side > vertical else 1 if vertical > side else 2
    side_name, vertical_name = ("right" if dc > 0 else "left"), ("below" if dr > 0 else "above")

    def reveal() -> str:
        across, down = float(sim2d[row, col + dc]), float(sim2d[row + dr, col])
        return (f"Flattened 1D code: the patch to the {side_name} (1 raster number away) scores {side:.3f}, the one "
                f"{vertical_name} ({w} numbers away) {vertical:.3f}. The 2D code gives them {across:.3f} and "
                f"{down:.3f}: there one step is one step in either direction.")

    return classroom.predict(
        "vit_flat", f"Flatten the grid row by row and use a 1D code. Which neighbour of patch ({row}, "
        f"{col}) looks more like it: the one to its {side_name} or the one {vertical_name} it?",
        [f"the one to the {side_name}", f"the one {vertical_name}",
         "equally similar, as in the 2D code"], answer, reveal)


def resize_lines(src, old, new, dim, prefix, mode, antialias) -> list[str]:
    """The resize behind every figure; ``mode`` None loops over the three interpolations (an indented body follows)."""
    table = f"table = {classroom.call('vit_position_table', src, old, dim, prefix, seed=0)}"
    resize = f"pc.resample_pos_embed(table, ({old}, {old}), ({new}, {new}), {prefix}, {{}}, {antialias})"
    if mode is not None:
        return [f"{table}  # ({prefix + old * old}, {dim}): prefix rows, then the grid",
                f"resized = {resize.format(repr(mode))}  # ({prefix + new * new}, {dim})"]
    return [table, "for mode in pc.RESIZE_MODES:", f"    resized = {resize.format('mode')}"]


def ask_neighbour(before, after, cell: tuple[int, int], new_cell: tuple[int, int], old: int, new: int,
                  mode: str) -> classroom.Prediction:
    """Is a one-patch step more or less similar after the resize? Asked before the two maps (each (size, size))."""
    (row, col), (new_row, new_col) = cell, new_cell
    step = 1 if col + 1 < old and new_col + 1 < new else -1  # a neighbour that exists on both grids
    was, now = float(before[row, col + step]), float(after[new_row, new_col + step])
    answer = 1 if abs(now - was) < 1e-6 else 0 if now > was else 2
    side = "right" if step > 0 else "left"

    def reveal() -> str:
        how = ("Nearest copies each old embedding onto a block of new patches, so a neighbour is either an identical "
               "copy or an old neighbour." if mode == "nearest" else
               "The interpolation blends the old embeddings, so what counts is how far apart the two patches are "
               "in the image, not in patches.")
        return (f"One patch to the {side}: similarity {was:.3f} on the {old} x {old} grid, {now:.3f} on the {new} x "
                f"{new} grid. One new patch spans {old}/{new} of an old one. {how}")

    return classroom.predict(
        "resize_step", f"On the {old} x {old} grid, the patch one step {side} of ({row}, {col}) has some "
        f"similarity to it. After resizing to {new} x {new}, the patch one step {side} of "
        f"({new_row}, {new_col}) is:", ["more similar", "exactly as similar", "less similar"],
        answer, reveal)


def fit_scores(result) -> None:
    st.dataframe({"input": [LABELS[e] for e in pc.ENCODINGS],
                  "network inputs": [result[e]["input_features"] for e in pc.ENCODINGS],
                  "train PSNR (dB)": [result[e]["final_train_psnr"] for e in pc.ENCODINGS],
                  "held-out PSNR (dB)": [result[e]["final_test_psnr"] for e in pc.ENCODINGS]},
                 hide_index=True, width="content",
                 column_config={k: st.column_config.NumberColumn(format="%.1f")
                                for k in ("train PSNR (dB)", "held-out PSNR (dB)")})


def fit_curves(result, task: str) -> None:
    show(figures.padded(figures.lines(
        result["raw"]["logged_steps"], {LABELS[e]: result[e]["test_psnr"] for e in pc.ENCODINGS},
        title="Held-out error while training", x_title="training step",
        y_title="held-out PSNR (dB, higher is better)", colours=COLOURS, dashed=DASHED,
        name=f"fourier_{task}_curves", height=360,
        alt="Held-out PSNR against training step for the three inputs.")))
    # full width: a spectrum's narrow peaks and the gap between the fits need the horizontal room
    spectra = result["spectra"]
    show(figures.padded(figures.lines(
        spectra["frequency"], {"target": spectra["target"], **{LABELS[e]: spectra[e] for e in pc.ENCODINGS}},
        title="Spectrum" + (" (radial mean)" if task == "2d" else ""),
        x_title="frequency (cycles per unit)", y_title="amplitude (log scale)", log_y=True,
        dashed=["target", *DASHED], colours=COLOURS, name=f"fourier_{task}_spectrum", height=440,
        alt="Amplitude against frequency: the raw-coordinate fit loses the high frequencies of the target.")))


def ask_what_sets_detail(octaves: int, sigma: float, features: int, magnitudes) -> classroom.Prediction:
    """Count against spread, asked before the Gaussian table (``magnitudes``: (m,) sorted frequencies)."""
    more = pc.encoding_tables(octaves, sigma, 2 * features)["frequency"][-1]  # the fastest of twice as many draws
    wider = pc.encoding_tables(octaves, 2 * sigma, features)["frequency"][-1]  # the fastest with twice the spread
    now = magnitudes[-1]
    doubles_m, doubles_s = bool(more >= 1.5 * now), bool(wider >= 1.5 * now)  # "about twice" means over 1.5x
    answer = 3 if not (doubles_m or doubles_s) else 2 if doubles_m and doubles_s else 0 if doubles_m else 1

    def reveal() -> str:
        return (f"The fastest feature now turns {now:.2f} cycles per unit. With m = {2 * features} it would turn "
                f"{more:.2f} (the same draws plus more of them); with σ = {2 * sigma:g}, {wider:.2f}: every "
                "frequency is σ times a fixed random number, so σ scales them all and the count barely moves the "
                "top.")

    return classroom.predict(
        "ff_sigma", f"Gaussian features, m = {features}, σ = {sigma:g}. Which change makes the fastest "
        "feature about twice as fast?",
        [f"doubling m to {2 * features}", f"doubling σ to {2 * sigma:g}", "either one", "neither"],
        answer, reveal)


def fit_snippet(task: str, settings, *lines: str) -> None:
    octaves, sigma, features, steps, seed = settings
    call = classroom.call("fit_coordinates", task, n_octaves=octaves, sigma=sigma, n_features=features, steps=steps,
                          seed=seed)
    classroom.snippet(f"result = {call}  # trains three small networks: seconds", *lines)


def ask_worst_fit(result, settings) -> classroom.Prediction:
    """Which input ends worst on the held-out samples: asked before the fits are drawn."""
    psnr = {e: result[e]["final_test_psnr"] for e in pc.ENCODINGS}
    worst = min(psnr, key=psnr.get)

    def reveal() -> str:
        scores_now = ", ".join(f"{LABELS[e]} {psnr[e]:.1f} dB" for e in pc.ENCODINGS)
        return f"Held-out PSNR (higher is better): {scores_now}. Worst: {LABELS[worst]}."

    return classroom.predict(
        "ff_worst", f"After {settings[3]} steps with σ = {settings[1]:g} and L = {settings[0]}, which "
        "input predicts the held-out samples worst?", [LABELS[e] for e in pc.ENCODINGS],
        list(pc.ENCODINGS).index(worst), reveal)


