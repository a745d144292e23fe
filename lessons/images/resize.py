import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.images import image_views
from page_kit import classroom, controls, figures, formula, guard, header, notice, show, source, stage, why

SOURCES = {"sincos": "2D sin-cos", "learned": "learned-like (seeded)"}


@st.cache_data(max_entries=32, show_spinner=False)
def original(src: str, old: int, dim: int, prefix: int):
    return pc.vit_position_table(src, old, dim, prefix, seed=0)


@st.cache_data(max_entries=64, show_spinner=False)
def resized(src: str, old: int, new: int, dim: int, prefix: int, mode: str, antialias: bool):
    return pc.resample_pos_embed(original(src, old, dim, prefix), (old, old), (new, new), prefix, mode, antialias)


@st.cache_data(max_entries=64, show_spinner=False)
def maps(src: str, old: int, new: int, dim: int, prefix: int, mode: str, antialias: bool):
    before = pc.patch_similarity_maps(original(src, old, dim, prefix), old, old, "cosine", prefix)
    after = pc.patch_similarity_maps(resized(src, old, new, dim, prefix, mode, antialias), new, new, "cosine",
                                     prefix)
    return before, after


@st.cache_data(max_entries=32, show_spinner=False)
def sincos_errors(old: int, new: int, dim: int, antialias: bool):
    return {mode: pc.resample_sincos_error(old, new, dim, 10000.0, mode, antialias) for mode in pc.RESIZE_MODES}


header("Resizing a position grid",
       "Fine-tune a ViT at a larger image size and its grid of position embeddings must grow: each channel is "
       "resized like a small photo. Pick a patch and see what its neighbourhood looks like after.")
WHY = (
    "A ViT trained on 224 x 224 images with 16-pixel patches has a 14 x 14 grid of position embeddings. "
    "Fine-tune it at 384 x 384 and there are 24 x 24 patches, so the grid has to grow. The usual answer is to "
    "treat each channel of the grid as a small image and resize it, bicubically, exactly as one resizes a "
    "photo. This page does what timm's `resample_abs_pos_embed` does and shows what survives."
)


@st.fragment
def lesson():
    page = stage()
    with page.more:
        src = controls.choice("Start from", "src", list(SOURCES), "sincos", format_func=SOURCES.get,
                              help="A 2D sin-cos grid, or smooth seeded random fields standing in for a trained "
                                   "ViT's learned embeddings.")
        antialias = controls.toggle("Antialias", "aa", True, help="timm's default is on. Ignored by nearest.")
        old = controls.slider("Old grid", "old", 4, 16, 14, help="Patches per side before resizing.")
        dim = controls.slider("Dimension d", "d", 16, 256, 64, step=16)
        prefix = controls.slider("Prefix tokens", "cls", 0, 4, 1, help="[CLS], distillation or register tokens: "
                                                                     "rows in front of the grid, never resized.")
    with page.side:
        new = controls.slider("New grid", "new", 4, 32, 24, help="Patches per side after resizing.")
        mode = controls.choice("Interpolation", "mode", list(pc.RESIZE_MODES), "bicubic",
                               help="timm's default is bicubic.")
        row, col = controls.grid_cell(old, old, (3, 9), labels=("Patch row (old grid)", "Patch column (old grid)"))
    setup = (src, old, new, dim, prefix)  # the grid before and after, whatever the interpolation
    cell = (row, col, pc.matching_cell(row, old, new), pc.matching_cell(col, old, new))

    tab_maps, tab_modes, tab_profile, tab_exact = page.sections(
        ["Before and after", "Three interpolations", "One channel along a row", "Against exact sin-cos"])
    with guard():
        if tab_maps.open:
            with tab_maps:
                maps_tab(setup, mode, antialias, cell)
        if tab_modes.open:
            with tab_modes:
                modes_tab(setup, antialias, cell)
        if tab_profile.open:
            with tab_profile:
                profile_tab(page, setup, antialias, cell)
        if tab_exact.open:
            with tab_exact:
                exact_tab(old, new, dim, antialias)


def maps_tab(setup, mode: str, antialias: bool, cell):
    src, old, new, dim, prefix = setup
    row, col, new_row, new_col = cell
    before, after = maps(*setup, mode, antialias)
    zrange, signed = figures.similarity_range(before[row * old + col], after[new_row * new + new_col])
    left, right = st.columns(2)
    for column, grid, size, (r, c), label, stem in (
            (left, before[row * old + col], old, (row, col), "before", "resize_before"),
            (right, after[new_row * new + new_col], new, (new_row, new_col), f"after ({mode})",
             "resize_after")):
        with column:
            show(figures.marked_heatmap(
                grid, [(c, r, f"patch ({r}, {c})")], title=f"{label}: {size} x {size}, patch ({r}, {c})",
                x_title="column", y_title="row", value_name="cosine similarity", zrange=zrange,
                signed=signed, name=stem, height=430,
                alt=f"Similarity to patch ({r}, {c}) on the {size} x {size} grid ({label}): a bright spot at "
                    "the patch that fades with distance."))
    with image_views.ask_neighbour(before[row * old + col], after[new_row * new + new_col], (row, col),
                                   (new_row, new_col), old, new, mode):
        classroom.snippet(*image_views.resize_lines(src, old, new, dim, prefix, mode, antialias),
                          f"before = pc.patch_similarity_maps(table, {old}, {old}, 'cosine', {prefix})"
                          f"  # ({old * old}, {old}, {old})",
                          f"after = pc.patch_similarity_maps(resized, {new}, {new}, 'cosine', {prefix})"
                          f"  # ({new * new}, {new}, {new})",
                          f"before[{row * old + col}], after[{new_row * new + new_col}]  # the two maps above")
        notice("The bright spot keeps its place in the image but covers more patches: every distance is "
               f"stretched by {new}/{old} = {new / old:.2f}. The model's weights were trained on the old "
               "spacing, so the resized grid is a starting point that fine-tuning adapts, not an exact "
               "answer (a common misconception: it works 'because relative positions are preserved'; they are "
               "only preserved in units of the image, not of patches).")
    cls_change = pc.prefix_change(original(src, old, dim, prefix), resized(*setup, mode, antialias), prefix)
    st.caption(f"Rows: {prefix} prefix + {old * old} patches = {prefix + old * old} before, "
               f"{prefix} prefix + {new * new} patches = {prefix + new * new} after. Largest change of a "
               f"prefix row: {cls_change:g} (they are set aside and put back unchanged).")
    formula(r"\text{new cell } i \text{ samples old coordinate } x = (i + \tfrac12)\,\frac{$old}{$new}"
            r" - \tfrac12\ \ (\texttt{align\_corners=False}),\quad "
            r"(r, c) = ($row, $col) \mapsto ($nr, $nc)",
            old=old, new=new, row=row, col=col, nr=new_row, nc=new_col)


def modes_tab(setup, antialias: bool, cell):
    src, old, new, dim, prefix = setup
    new_row, new_col = cell[2:]
    panels = [maps(*setup, m, antialias)[1][new_row * new + new_col] for m in pc.RESIZE_MODES]
    show(figures.square_panels(figures.padded(figures.small_multiples(
        panels, [f"{m}" + (", antialias" if antialias and m != "nearest" else "") for m in pc.RESIZE_MODES],
        title=f"Similarity to patch ({new_row}, {new_col}) on the {new} x {new} grid, three ways",
        cols=3, value_name="cosine similarity", x_title="column", y_title="row", cell_px=300,
        name="resize_modes",
        alt=f"Three similarity maps of patch ({new_row}, {new_col}) after resizing {old} x {old} to {new} x {new} "
            "with bicubic, bilinear and nearest; the nearest one is blocky."))))
    classroom.snippet(*image_views.resize_lines(src, old, new, dim, prefix, None, antialias),
                      f"    after = pc.patch_similarity_maps(resized, {new}, {new}, 'cosine', {prefix})",
                      f"    print(mode, after[{new_row * new + new_col}])  # ({new}, {new}) per mode")
    notice("Nearest copies each old embedding onto a block of new patches, so neighbours inside a block "
           "become identical (similarity exactly 1) and the map turns into steps. Bilinear and "
           "bicubic blend neighbouring embeddings; bicubic follows curved changes more closely, which "
           "is why the original ViT code and timm use it.")


def profile_tab(page, setup, antialias: bool, cell):
    src, old, new, dim, prefix = setup
    new_row = cell[2]
    with page.side:
        channel = controls.slider("Channel", "ch", 0, dim - 1, 0,
                                  help="Column-half channels (the first d/2) change along a row.")
    coords = pc.resample_source_coords(old, new)
    series = {m: resized(*setup, m, antialias)[prefix:].reshape(new, new, dim)[new_row, :, channel]
              for m in pc.RESIZE_MODES}  # (new,): that row of the grid, one channel
    if src == "sincos":
        series["exact sin-cos at these coordinates"] = pc.sincos_2d_at([coords[new_row]], coords, dim)[:, channel]
    show(figures.padded(figures.lines(
        coords, series, markers=True, title=f"Channel {channel} along new row {new_row}",
        x_title="position in old-grid units (column)", y_title="embedding value",
        name="resize_profile", dashed=["exact sin-cos at these coordinates"],
        alt=f"Channel {channel} of new row {new_row}, sampled at {new} fractional old-grid positions from "
            f"{coords[0]:.2f} to {coords[-1]:.2f}: nearest is a staircase, the other two are smooth curves."),
        top=90))
    classroom.snippet(*image_views.resize_lines(src, old, new, dim, prefix, None, antialias),
                      f"    grid = resized[{prefix}:].reshape({new}, {new}, {dim})  # row, column, channel",
                      f"    print(mode, grid[{new_row}, :, {channel}])  # ({new},): that mode's curve",
                      f"coords = {classroom.call('resample_source_coords', old, new)}  # ({new},) x axis")
    notice("The x axis is in old patches: the new cells sample the old grid at fractional positions. "
           "The first channels of the column half swing fastest (one radian per patch); that is where "
           "the methods disagree most. Outside 0 and old − 1 the edge cells are clamped, so the "
           "interpolations flatten where the exact curve keeps going. Antialias on or off changes "
           "bicubic even when enlarging: torch's antialiased path uses PIL's kernel (a = −0.5), the "
           "plain one a = −0.75.")


def exact_tab(old: int, new: int, dim: int, antialias: bool):
    errors = sincos_errors(old, new, dim, antialias)
    show(figures.padded(figures.lines(
        np.arange(dim), errors, markers=True, log_y=True,
        title=f"Largest error per channel: resized {old} x {old} sin-cos vs exact sin-cos, {new} x {new}",
        x_title="channel (column half, then row half)", y_title="max |resized − exact|",
        name="resize_exact_error",
        alt=f"Error per channel on a log scale, {dim} channels: large for the first, fast channels of each half "
            f"(channel 0: bicubic {errors['bicubic'][0]:.3g}, bilinear {errors['bilinear'][0]:.3g}, nearest "
            f"{errors['nearest'][0]:.3g}), tiny for the slow ones."), top=90))
    classroom.snippet(f"errors = {{mode: pc.resample_sincos_error({old}, {new}, {dim}, 10000.0, mode, "
                      f"{antialias}) for mode in pc.RESIZE_MODES}}  # ({dim},) each: the three curves")
    notice("A sin-cos grid gives the resize a ground truth: sin-cos evaluated at the coordinates the new "
           "cells sample. Slow channels are smooth and every method gets them nearly right; the fast "
           "ones, at the start of each of the four blocks (x sines, x cosines, y sines, y cosines), are "
           "where interpolation errs. This tab always uses "
           "2D sin-cos with base 10,000, whatever the source chosen under More settings.")
    formula(r"\max_{\text{patches}} \big|\,\mathrm{resize}(PE_{$old})_{i} - PE(x_{\text{src}})_{i}\big|"
            r"\ \text{at channel } 0:\ \text{bicubic } $bc,\ \text{bilinear } $bl,\ \text{nearest } $nn",
            old=old, bc=float(errors["bicubic"][0]), bl=float(errors["bilinear"][0]),
            nn=float(errors["nearest"][0]), digits=3)


lesson()
why(WHY)
source(pc.resample_pos_embed, pc.resample_source_coords, pc.learned_like_grid)
