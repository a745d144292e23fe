import numpy as np
import streamlit as st

import posenc_core as pc
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why

MODELS = {"FLUX.1-dev": "flux1", "FLUX.2-dev": "flux2", "Qwen-Image": "qwen"}
SIZES = [256, 512, 768, 1024, 1328, 1536, 2048]  # pixels
AXIS_COLOURS = {"time": 0, "height": 1, "width": 2, "text": 3}  # one colour per axis on every page of the section

header("Position ids of an image",
       "An image generator cuts the picture into 16 x 16-pixel tokens and gives each a few integer ids, its row "
       "and its column: FLUX counts from the top-left corner, Qwen-Image from the centre.")
WHY = ("A diffusion transformer sees the picture being made as a grid of latent patches, one token per 16 x 16 "
       "pixels (the VAE shrinks the image 8 times, then two by two latents are packed or patched into one). "
       "Its attention is one rotary, shared by text and image tokens, and the only thing that tells a token "
       "where it is are its ids. FLUX.1 gives every text token (0, 0, 0) and the image token at row r, "
       "column c the ids (0, r, c); FLUX.2 adds a fourth id that numbers the text tokens instead. Qwen-Image "
       "centres the grid: ids run from minus half the size to half the size, so the middle of the picture "
       "is at 0 whatever the resolution. Each id turns its own block of the head's rotary pairs.")


@st.cache_data(max_entries=32, show_spinner=False)
def id_grids(family: str, rows: int, cols: int, centred: bool):
    return pc.diffusion.dit_image_id_grids(family, rows, cols, centred)


@st.fragment
def lesson():
    page = stage()
    with page.side:
        name = controls.choice("Model", "model", list(MODELS), "FLUX.1-dev")
        width = controls.select_slider("Width (px)", "w", SIZES, 1024)
        height = controls.select_slider("Height (px)", "h", SIZES, 768)
    with page.more:
        centred = controls.toggle("Qwen-Image: centred ids (scale_rope)", "centred", True,
                                  help="The released model centres its ids; off shows corner-origin ids instead.")
    preset, family = pc.diffusion.dit_preset(name), MODELS[name]
    tab_ids, tab_split, tab_seq = page.sections(["Ids of each patch", "The head split", "Text and image together"])
    with page.main, guard():
        rows, cols = pc.diffusion.flux_token_grid(height, width)
        hand = {"w": width, "h": height, "model": name}  # the figures' view, by URL key
        if tab_ids.open:
            with tab_ids:
                ids_section(family, rows, cols, hand | {"centred": centred or family != "qwen"})
        if tab_split.open:
            with tab_split:
                split_section(preset, width, height, hand)
        if tab_seq.open:
            with tab_seq:
                sequence_section(family, rows, cols)


def ids_chart(w: int, h: int, model: str, centred: bool):
    rows, cols = pc.diffusion.flux_token_grid(h, w)
    grids = id_grids(MODELS[model], rows, cols, centred)
    row_lo, row_hi = pc.diffusion.dit_value_range(grids["row"])
    col_lo, col_hi = pc.diffusion.dit_value_range(grids["column"])
    return figures.square_panels(figures.padded(figures.small_multiples(
        [grids["row"], grids["column"]], ["row id", "column id"], cols=2, x_title="token column",
        y_title="token row", value_name="id", hover_format="d",
        title=f"{pc.diffusion.dit_preset(model).name}: ids of the {rows} x {cols} image tokens", name="dit_image_ids",
        alt=f"Two heatmaps, {rows} rows by {cols} columns: the row id runs from {row_lo} at the top to {row_hi} "
            f"at the bottom, the column id from {col_lo} on the left to {col_hi} on the right.")))


def ids_section(family, rows, cols, hand):
    centred = hand["centred"]
    grids = id_grids(family, rows, cols, centred)
    row_ids, col_ids = grids["row"], grids["column"]
    ranges = {axis: pc.diffusion.dit_value_range(ids) for axis, ids in grids.items()}  # {axis: (smallest, largest id)}
    row_lo = ranges["row"][0]
    show(hero(ids_chart, **hand))
    classroom.snippet(f"rows, cols = pc.diffusion.flux_token_grid({rows * 16}, {cols * 16})  # 16 px per token",
                      f"grids = pc.diffusion.dit_image_id_grids({family!r}, rows, cols, centred={centred})",
                      "# {axis: (rows, cols) ids}; the rotary itself: pc.diffusion.flux_rope / pc.diffusion.qwen_rope")
    wide = id_grids(family, rows, 2 * cols, centred)
    here = (int(row_ids[0, 0]), int(col_ids[0, 0]))
    there = (int(wide["row"][0, 0]), int(wide["column"][0, 0]))

    def reveal() -> str:
        how = ("FLUX counts from the corner, so the corner is (0, 0) at every size and new columns get new ids "
               "on the right" if here == there else "Qwen-Image centres the grid, so widening the image moves the "
               "corner further into the negative ids while the centre keeps id 0")
        return f"{how}: the top-left token is {here} at {cols} columns and {there} at {2 * cols}."

    with classroom.predict("dit_corner", f"Make this image twice as wide ({2 * cols} token columns). What happens "
                           "to the ids of its top-left token?", ["they stay the same", "they change"],
                           0 if here == there else 1, reveal):
        st.dataframe({"image": [f"{cols * 16} x {rows * 16} px", f"{2 * cols * 16} x {rows * 16} px"],
                      "top-left (row, column)": [str(here), str(there)],
                      "column ids": ["{} to {}".format(*ranges["column"]),
                                     "{} to {}".format(*pc.diffusion.dit_value_range(wide["column"]))]},
                     hide_index=True, width="stretch")
    others = [k for k in grids if k not in ("row", "column")]
    rest = ", ".join(f"{k} = {ranges[k][0]}" for k in others)  # one id for every image token
    notice(f"Every image token also carries {rest} on its other id(s). A token's ids say how far it is from "
           + ("the centre of the picture." if row_lo < 0 else "the top-left corner."))


def split_chart(w: int, h: int, model: str):
    preset = pc.diffusion.dit_preset(model)
    extents = pc.diffusion.dit_axis_extents(preset, w, h)
    series = pc.diffusion.dit_axis_series(preset, extents)
    fastest, slowest = pc.diffusion.dit_value_range(series["width"])[::-1]
    blocks = ", ".join(f"{d // 2} {a}" for a, d in zip(series, preset.axes, strict=True))
    return figures.padded(figures.lines(
        np.arange(preset.pairs), series, markers=True, log_y=True, colours=AXIS_COLOURS,
        hlines=[(1.0, "one full turn")], title=f"{preset.name}: turns of each rotary pair across the image",
        x_title="pair j of a head (in head order)", y_title="turns across the image", hover_format=",.3g",
        name="dit_head_split",
        alt=f"{preset.pairs} pairs of a {preset.head_dim}-dimension head split into blocks of {blocks} pairs; "
            f"across {extents.width} token columns the fastest width pair turns "
            f"{fastest:.1f} times and the slowest {slowest:.4f} times."),
        left=80)


def split_section(preset, width, height, hand):
    show(hero(split_chart, **hand))
    classroom.snippet(f"preset = pc.diffusion.dit_preset({preset.name!r})",
                      f"extents = pc.diffusion.dit_axis_extents(preset, {width}, {height})",
                      "turns = pc.diffusion.dit_axis_series(preset, extents)  # {axis: (pairs,) turns, NaN elsewhere}")
    formula(r"\text{axes\_dims\_rope} = $a,\quad \theta = $t", a=str(list(preset.axes)), t=preset.theta)
    formula(r"\text{angle}_j = \text{id}_{\text{axis}(j)}\cdot \theta^{-2j'/d_{\text{axis}}}")
    fastest = pc.diffusion.dit_pair_wavelengths(preset.axes[1], preset.theta)[0]
    notice(f"The head's {preset.head_dim} dimensions are cut into contiguous blocks, one per id, each a small "
           f"rotary of its own whose fastest pair turns once every {fastest:.2f} ids. The time block of an image "
           f"generator turns with an id that is the same for every image token, so for the picture it carries nothing; "
           f"the {preset.axes[1] // 2} height and {preset.axes[2] // 2} width pairs carry where the token is. "
           "Pairs under the one-turn line change by less than a turn from one edge to the other.")


def sequence_section(family, rows, cols):
    kinds, ids = pc.diffusion.dit_sequence_ids(family, rows, cols, n_text=4)
    order = " then ".join(dict.fromkeys(kinds))
    names = pc.diffusion.DIT_ID_AXES[family][0]
    classroom.snippet(f"kinds, ids = pc.diffusion.dit_sequence_ids({family!r}, {rows}, {cols}, n_text=4)")
    st.dataframe({"token": kinds, **{n: ids[:, i].astype(int) for i, n in enumerate(names)}}, hide_index=True,
                 width="stretch")
    notice(f"The model attends {order} as one sequence (the first tokens of each are listed). " + {
        "flux1": "Every text token has ids (0, 0, 0): to the rotary, all text sits at one place, the top-left "
                 "image token's place, and text order comes only from the text encoder (T5) that made them.",
        "flux2": "FLUX.2's fourth id numbers the text tokens 0, 1, 2, ..., so text has its own order while its "
                 "row and column stay 0; reference images get time ids 10, 20, 30, ... "
                 "(pc.diffusion.flux2_reference_ids).",
        "qwen": f"The text follows the image on all three axes at once: its first token gets id "
                f"{pc.diffusion.qwen_text_start(rows, cols)}, one past the image's largest row or column id, then "
                "counts "
                "up, as in a language model.",
    }[family])


lesson()
why(WHY)
source(pc.diffusion.flux_image_ids, pc.diffusion.qwen_axis_ids, pc.diffusion.flux_rope)
