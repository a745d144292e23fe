import streamlit as st

import posenc_core as pc
from lessons.images import image_views, resize_views
from lessons.images.resize_views import maps, original, resized
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.images import (
    RESIZE_MODES,
    learned_like_grid,
    prefix_change,
    resample_source_coords,
    resize_neighbour,
    resize_plan,
    resize_profile,
    resize_what_if_size,
    sincos_resize_errors,
)

SOURCES = {"sincos": "2D sin-cos", "learned": "learned-like (seeded)"}


@st.cache_data(max_entries=32, show_spinner=False)
def sincos_errors(old: int, new: int, dim: int, antialias: bool):
    return sincos_resize_errors(old, new, dim, 10000.0, antialias)


@st.cache_data(max_entries=64, show_spinner=False)
def neighbour(src: str, old: int, new: int, dim: int, prefix: int, mode: str, antialias: bool, row: int, col: int):
    return resize_neighbour(src, old, new, dim, prefix, mode, antialias, row, col)


@st.cache_data(max_entries=64, show_spinner=False)
def profile(src: str, old: int, new: int, dim: int, prefix: int, antialias: bool, new_row: int, channel: int):
    return resize_profile(src, old, new, dim, prefix, antialias, new_row, channel)


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
        mode = controls.choice("Interpolation", "mode", list(RESIZE_MODES), "bicubic",
                               help="timm's default is bicubic.")
        row, col = controls.grid_cell(old, old, (3, 9), labels=("Patch row (old grid)", "Patch column (old grid)"))
    setup = (src, old, new, dim, prefix)  # the grid before and after, whatever the interpolation
    with guard():
        plan = resize_plan(old, new, prefix, row, col)
        page.walk(TABS, page, setup, mode, antialias, (row, col), plan)


def maps_tab(page, setup, mode: str, antialias: bool, cell, plan):
    src, old, new, dim, prefix = setup
    (row, col), (new_row, new_col) = cell, plan.new_cell
    for column, which in zip(st.columns(2), ("before", "after"), strict=True):
        with column:  # both drawn ahead of the hand: the colour scale they share follows the new grid too
            show(hero(resize_views.map_figure, which=which, new=new, r=row, c=col, old=old, d=dim, cls=prefix,
                      src=src, mode=mode, aa=antialias))
    classroom.snippet(*image_views.resize_lines(src, old, new, dim, prefix, mode, antialias),
                      f"before = pc.images.patch_similarity_maps(table, {old}, {old}, 'cosine', {prefix})"
                      f"  # ({plan.patches_before}, {old}, {old})",
                      f"after = pc.images.patch_similarity_maps(resized, {new}, {new}, 'cosine', {prefix})"
                      f"  # ({plan.patches_after}, {new}, {new})",
                      f"before[{plan.index_before}], after[{plan.index_after}]  # the two maps above")
    notice("The bright spot keeps its place in the image but covers more patches: every distance is "
           f"stretched by {new}/{old} = {plan.stretch:.2f}. The model's weights were trained on the old "
           "spacing, so the resized grid is a starting point that fine-tuning adapts, not an exact "
           "answer (a common misconception: it works 'because relative positions are preserved'; they are "
           "only preserved in units of the image, not of patches).")
    cls_change = prefix_change(original(src, old, dim, prefix), resized(*setup, mode, antialias), prefix)
    st.caption(f"Rows: {prefix} prefix + {plan.patches_before} patches = {plan.rows_before} before, "
               f"{prefix} prefix + {plan.patches_after} patches = {plan.rows_after} after. Largest change of "
               f"a prefix row: {cls_change:g} (they are set aside and put back unchanged).")
    other = resize_what_if_size(new, 32)  # the new-grid slider ends at 32
    now, then = (neighbour(src, old, size, dim, prefix, mode, antialias, row, col) for size in (new, other))
    with image_views.ask_resized_to(now, then, (old, new, other), cell):
        formula(r"\text{one step " + then.side + r"}:\ $a\ ($old\times $old)\ \to\ $b\ ($new\times $new)"
                r"\ \to\ $c\ ($other\times $other)", a=now.before, b=now.after, c=then.after, old=old,
                new=new, other=other, digits=3)
    formula(r"\text{new cell } i \text{ samples old coordinate } x = (i + \tfrac12)\,\frac{$old}{$new}"
            r" - \tfrac12\ \ (\texttt{align\_corners=False}),\quad "
            r"(r, c) = ($row, $col) \mapsto ($nr, $nc)",
            old=old, new=new, row=row, col=col, nr=new_row, nc=new_col)


def modes_tab(page, setup, mode: str, antialias: bool, cell, plan):
    src, old, new, dim, prefix = setup
    new_row, new_col = plan.new_cell
    panels = [maps(*setup, m, antialias)[1][plan.index_after] for m in RESIZE_MODES]
    show(figures.square_panels(figures.padded(figures.small_multiples(
        panels, [m + (",<br>antialias" if antialias and m != "nearest" else "") for m in RESIZE_MODES],
        title=f"Similarity to patch ({new_row}, {new_col}) on the {new} x {new} grid, three ways",
        cols=3, value_name="cosine similarity", x_title="column", y_title="row", cell_px=300,
        name="resize_modes",
        alt=f"Three similarity maps of patch ({new_row}, {new_col}) after resizing {old} x {old} to {new} x {new} "
            "with bicubic, bilinear and nearest; the nearest one is blocky."))))
    classroom.snippet(*image_views.resize_lines(src, old, new, dim, prefix, None, antialias),
                      f"    after = pc.images.patch_similarity_maps(resized, {new}, {new}, 'cosine', {prefix})",
                      f"    print(mode, after[{plan.index_after}])  # ({new}, {new}) per mode")
    notice("Nearest copies each old embedding onto a block of new patches, so neighbours inside a block "
           "become identical (similarity exactly 1) and the map turns into steps. Bilinear and "
           "bicubic blend neighbouring embeddings; bicubic follows curved changes more closely, which "
           "is why the original ViT code and timm use it.")


def profile_tab(page, setup, mode: str, antialias: bool, cell, plan):
    src, old, new, dim, prefix = setup
    new_row = plan.new_cell[0]
    with page.side:
        channel = controls.slider("Channel", "ch", 0, dim - 1, 0,
                                  help="Column-half channels (the first d/2) change along a row.")
    curves = profile(*setup, antialias, new_row, channel)
    coords, exact = curves.coords, "exact sin-cos at these coordinates"
    series = {**curves.series, **({} if curves.exact is None else {exact: curves.exact})}
    show(figures.padded(figures.lines(
        coords, series, markers=True, title=f"Channel {channel} along new row {new_row}",
        x_title="position in old-grid units (column)", y_title="embedding value",
        name="resize_profile", dashed=[exact],
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


def exact_tab(page, setup, mode: str, antialias: bool, cell, plan):
    _, old, new, dim, _ = setup
    errors = sincos_errors(old, new, dim, antialias)
    first = errors.first_channel
    show(figures.padded(figures.lines(
        list(range(dim)), errors.by_mode, markers=True, log_y=True,
        title=f"Largest error per channel: resized {old} x {old} sin-cos vs exact sin-cos, {new} x {new}",
        x_title="channel (column half, then row half)", y_title="max |resized − exact|",
        name="resize_exact_error",
        alt=f"Error per channel on a log scale, {dim} channels: large for the first, fast channels of each half "
            f"(channel 0: bicubic {first['bicubic']:.3g}, bilinear {first['bilinear']:.3g}, nearest "
            f"{first['nearest']:.3g}), tiny for the slow ones."), top=90))
    classroom.snippet(f"errors = {{mode: pc.images.resample_sincos_error({old}, {new}, {dim}, 10000.0, mode, "
                      f"{antialias}) for mode in pc.images.RESIZE_MODES}}  # ({dim},) each: the three curves")
    notice("A sin-cos grid gives the resize a ground truth: sin-cos evaluated at the coordinates the new "
           "cells sample. Slow channels are smooth and every method gets them nearly right; the fast "
           "ones, at the start of each of the four blocks (x sines, x cosines, y sines, y cosines), are "
           "where interpolation errs. This tab always uses "
           "2D sin-cos with base 10,000, whatever the source chosen under More settings.")
    formula(r"\max_{\text{patches}} \big|\,\mathrm{resize}(PE_{$old})_{i} - PE(x_{\text{src}})_{i}\big|"
            r"\ \text{at channel } 0:\ \text{bicubic } $bc,\ \text{bilinear } $bl,\ \text{nearest } $nn",
            old=old, bc=first["bicubic"], bl=first["bilinear"], nn=first["nearest"], digits=3)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [("Before and after", maps_tab), ("Three interpolations", modes_tab), ("One channel along a row", profile_tab),
        ("Against exact sin-cos", exact_tab)]


lesson()
why(WHY)
source(pc.resample_pos_embed, resample_source_coords, learned_like_grid)
