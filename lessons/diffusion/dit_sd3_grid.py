import streamlit as st

import posenc_core as pc
from lessons.diffusion import words
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why

MODELS = ["Stable Diffusion 3.5 Large", "Stable Diffusion 3.5 Medium"]
SIZES = [256, 512, 768, 1024, 1440, 2048, 3072, 4096, 6144]  # pixels; each model offers those its grid holds

header("SD3: a cropped sin-cos grid",
       "Stable Diffusion 3 adds a fixed 2D sine-cosine vector to each patch, taken from one large square table: "
       "every image gets the centred window of its own size.")
WHY = ("SD3 and SD3.5 do not rotate queries and keys. Like the original Transformer and ViT they add a position "
       "vector to each patch embedding, built from sines and cosines: half the width encodes the patch's column, "
       "half its row. The table is made once, when the model is built, for a square grid of "
       "`pos_embed_max_size` patches a side, and an image of h x w patches receives the h x w window in its "
       "middle (`PatchEmbed.cropped_pos_embed`). A small image therefore sits in the centre of the table, not "
       "in its corner, and a bigger image reaches further out: the ids it reads near its edges are ids a "
       "smaller training image never saw. Past the table's edge there is nothing to crop, and diffusers "
       "refuses the image.")


@st.cache_data(max_entries=16, show_spinner=False)
def similarity(name: str):
    p = pc.diffusion.dit_preset(name)
    size = p.extra["pos_embed_max_size"]
    return pc.diffusion.sd3_similarity_grid(p.head_dim * p.heads, size, p.extra["base_size"], size // 2, size // 2)


def window_chart(w: int, h: int, model: str):
    size = pc.diffusion.dit_preset(model).extra["pos_embed_max_size"]
    rows, cols = pc.diffusion.sd3_patch_grid(h, w)
    top, left = pc.diffusion.sd3_crop_window(size, rows, cols)
    grid = similarity(model)
    crop = pc.diffusion.sd3_window_only(grid, size, rows, cols)  # NaN (blank) where this image reads nothing
    (grid_lo, _), (crop_lo, crop_hi) = pc.diffusion.dit_value_range(grid), pc.diffusion.dit_value_range(crop)
    return figures.square_panels(figures.padded(figures.small_multiples(
        [grid, crop], [f"the whole {size} x {size} table", f"the {rows} x {cols} window this image reads"],
        cols=2, x_title="patch column", y_title="patch row", value_name="cosine similarity",
        hover_format=".3f", zrange=(grid_lo, 1.0), name="dit_sd3_window",
        title=f"{model}: similarity of every table row to the table's centre",
        alt=f"Left: the {size} x {size} table, cosine similarity to its centre from {grid_lo:.2f} to "
            f"1. Right: only the {rows} x {cols} window at rows {top} to {top + rows - 1}, columns {left} "
            f"to {left + cols - 1} is filled, similarity {crop_lo:.2f} to {crop_hi:.2f}.")))


@st.fragment
def lesson():
    page = stage(more_label=None)
    with page.side:
        name = controls.choice("Model", "model", MODELS, MODELS[0],
                               format_func=lambda m: m.replace("Stable Diffusion ", "SD"))
    preset = pc.diffusion.dit_preset(name)
    size, base = preset.extra["pos_embed_max_size"], preset.extra["base_size"]
    sizes = [s for s in SIZES if s <= size * pc.diffusion.SD3_PIXELS_PER_PATCH]  # past the grid there is no window
    with page.side:
        width = controls.select_slider("Width (px)", "w", sizes, 1024)
        height = controls.select_slider("Height (px)", "h", sizes, 1024)
    with page.main, guard():
        rows, cols = pc.diffusion.sd3_patch_grid(height, width)
        top, left = pc.diffusion.sd3_crop_window(size, rows, cols)  # a ValueError past the grid: shown as an error
        window = (top, left, rows, cols)
        facts = pc.diffusion.sd3_window_facts(size, base, rows, cols)
        show(hero(window_chart, w=width, h=height, model=name))
        classroom.snippet(f"rows, cols = pc.diffusion.sd3_patch_grid({height}, {width})  # VAE 8x, patch 2: 16 px",
                          f"top, left = pc.diffusion.sd3_crop_window({size}, rows, cols)  # the window's first row, "
                          "column",
                          "# the figure: cosine similarity of every cell to the centre cell",
                          f"sim = pc.diffusion.sd3_similarity_grid({preset.head_dim * preset.heads}, {size}, {base}, "
                          f"{size // 2}, {size // 2})")
        unseen, patches = facts.unseen, facts.patches

        def reveal() -> str:
            return (f"{unseen:,} of its {patches:,} patches read cells outside the centred {base} x {base} "
                    f"window ({base * 16:,} px, the config's sample_size) that a square training image of that "
                    "size reads: a bigger image reaches cells such an image never used, a smaller one reads a "
                    "part of the middle.")

        with classroom.predict("dit_sd3_unseen", f"Training at {base * 16:,} x {base * 16:,} px reads the middle "
                               f"{base} x {base} cells. How many of this {width} x {height} image's patches read "
                               "cells outside them?", ["none", "some", "all"], facts.unseen_side, reveal):
            st.metric(f"patches reading cells outside the {base * 16:,} px window", f"{unseen:,} of {patches:,}")
        details(preset, size, base, window, facts)


def details(preset, size, base, window, facts):
    top, left, rows, cols = window
    step, free = facts.step, facts.free
    formula(r"\text{coordinate}_i = \frac{i}{\text{max}/\text{base}} = i \cdot \frac{$b}{$m}", b=base, m=size)
    formula(r"\text{PE}(r, c) = [\sin, \cos](c\,\omega_k)\ \Vert\ [\sin, \cos](r\,\omega_k)")
    formula(r"\omega_k = 10000^{-k/(D/4)}")
    notice(f"Neighbouring patches are {step:.4g} apart in the table's coordinates (base_size {base} over "
           f"pos_embed_max_size {size}), at every resolution: the crop never stretches the grid, so a patch's "
           f"vector depends on where it sits relative to the table's centre, not to the image's corner. This "
           f"image leaves {free} patch{'es' if free != 1 else ''} of table unused on its longer side; an image "
           f"over {size * 16:,} px on a side has no window and is refused. Which windows a model was trained on "
           "decides which parts of the table it knows: the edges of the table are only read by the largest "
           "images.")
    st.caption(" · ".join(f"{k}: {v}" for k, v in words.CITES[preset.name].items()))


lesson()
why(WHY)
source(pc.diffusion.sd3_table, pc.diffusion.sd3_crop_window, pc.diffusion.sd3_cropped_table)
