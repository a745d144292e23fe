"""The XD-RoPE tab of 'Which pairs carry which axis': HunYuan-VL's (HunyuanOCR's) four position axes.

The numbers come from cached calls to posenc_core.multimodal.xdrope; this module lays out the controls, the
question, the figures, the code to copy and the text around them.
"""

from __future__ import annotations

import streamlit as st

from lessons.multimodal import multimodal_views
from page_kit import classroom, controls, figures, hero
from page_kit.chart.render import show
from page_kit.lesson import formula, notice
from page_kit.lesson.code_lines import fold
from posenc_core.multimodal import XD_AXIS_NAMES, XD_LAYOUTS, xd_dim_axes, xd_position_ids

SECTION = (16, 16, 16, 16)  # HunyuanOCR's xdrope_section: sequence, width, height, image (pairs each)
BEFORE, AFTER = 4, 3  # text tokens around the image
# the image ordinal numbers frames as time does on the other pages, so it takes time's colour; the sequence axis
# takes the next palette colour
COLOURS = {"sequence": 3, "width": multimodal_views.AXIS_COLOURS["width"],
           "height": multimodal_views.AXIS_COLOURS["height"], "image": multimodal_views.AXIS_COLOURS["time"]}
_STOPS = [figures.CATEGORICAL[COLOURS[name]] for name in XD_AXIS_NAMES]
AXIS_SCALE = [[edge, colour] for i, colour in enumerate(_STOPS) for edge in (i / 4, (i + 1) / 4)]
CONFIG = """"rope_scaling": {"type": "xdrope", "alpha": 1000.0,
                 "xdrope_section": [16, 16, 16, 16]}"""
SOURCE = ("transformers 5.23, `models/hunyuan_vl/modeling_hunyuan_vl.py`: `HunYuanVLModel.get_rope_index` and "
          "`get_vision_position_ids` (the ids), `HunYuanVLRotaryEmbedding.recomposition_frequencies` (the axis of "
          "each dimension); `configuration_hunyuan_vl.py` renames `xdrope_section` to `mrope_section` and type "
          "`xdrope` to `dynamic` (an `alpha` makes it NTK-alpha). Release layout: Tencent's "
          "`apply_rotary_pos_emb_xdrope` (`cos.split(xdrope_section * 2)`) and vLLM's `XDRotaryEmbedding` "
          "(`rotary_embedding/xdrope.py`), which vLLM pull request #56078 folds into its M-RoPE path.")


@st.cache_data(max_entries=32, show_spinner=False)
def ids_of(rows: int, cols: int):
    return xd_position_ids(BEFORE, rows, cols, AFTER)


@st.cache_data(max_entries=2, show_spinner=False)
def dim_axes():
    """{layout: (128,) axis of each dimension} at HunyuanOCR's section."""
    return {layout: xd_dim_axes(SECTION, layout) for layout in XD_LAYOUTS}


def ids_chart(xr: int, xc: int) -> figures.Chart:
    r = ids_of(xr, xc)
    n = r.ids.shape[1]
    return figures.padded(figures.lines(
        list(range(n)), dict(zip(XD_AXIS_NAMES, r.ids, strict=True)), markers=True, colours=COLOURS,
        dashed=("sequence",), vlines=[(r.span_start - 0.5, "image"), (r.span_end - 0.5, "text")],
        title=f"HunYuan-VL: four position ids of each of the {n} tokens", x_title="token index",
        y_title="position id", height=400, hover_format=".0f", name="xd_id_rows",
        alt=f"Four step curves over {n} tokens. On text all four equal the token index; over the {xr} by {xc + 1} "
            "image grid the sequence id keeps counting, the width id sweeps each row, the height id steps once "
            "per row and the image id stays 0."))


def axes_chart() -> figures.Chart:
    layouts = dim_axes()
    return figures.padded(figures.heatmap(
        [layouts["transformers"], layouts["release"]], y=["transformers 5.23", "Tencent release"],
        title="Axis that turns each dimension of a 128-dim head", x_title="dimension (0–63 first half, "
        "64–127 the partners)", y_title="", value_name="axis (0 sequence, 1 width, 2 height, 3 image)",
        colorscale=AXIS_SCALE, zrange=(0, 3), hover_format=".0f", height=260, name="xd_dim_axes",
        alt="Two rows of 128 cells coloured by axis. transformers 5.23: four blocks of 32, sequence, width, "
            "height, image. Tencent's release code: four blocks of 16 repeated in the second half."), left=140)


def xd_tab(page) -> None:
    """What XD-RoPE computes, the id rows, the halves question, the dimension map, code, config and source."""
    st.caption("XD-RoPE gives every token four position ids, sequence, width, height and image, and turns each "
               "part of the head with one of them; on text all four are the token's index.")
    with page.side:
        rows = controls.slider("Image rows (merged)", "xr", 1, 12, 3)
        cols = controls.slider("Image columns (merged)", "xc", 1, 12, 4)
    r = ids_of(rows, cols)
    show(hero(ids_chart, xr=rows, xc=cols))
    classroom.snippet(fold(f"r = {classroom.call('xd_position_ids', BEFORE, rows, cols, AFTER)}",
                           "r.ids (4, n) int64: the curves"),
                      fold(f"axes = {{layout: pc.multimodal.xd_dim_axes({list(SECTION)}, layout) for layout in "
                           "pc.multimodal.XD_LAYOUTS}", "(128,) each: the grid"))
    layouts = dim_axes()
    half = layouts["transformers"].size // 2
    same = int((layouts["transformers"][:half] == layouts["transformers"][half:]).sum())
    answer = 0 if same == half else 2 if same == 0 else 1

    def reveal() -> str:
        return (f"The same axis for {same} of {half} pairs: transformers splits the doubled head into blocks of "
                f"2 × 16 = 32 dimensions, so dimension j < 32 turns with the sequence id and its partner j + 64 "
                "with the height id. Tencent's release code repeats the list instead: one axis per pair.")

    with classroom.predict("mm_axes_xd_halves", f"HunyuanOCR's section is {list(SECTION)} pairs. In transformers "
                           "5.23, do dimension j and its rotation partner j + 64 turn with the same axis?",
                           ["yes, for every pair", "for some pairs", "for no pair"], answer, reveal):
        show(axes_chart())
    formula(r"\text{grid: } (\text{seq}, w, h, \text{img}) = (i, \text{col}, \text{row}, 0)")
    formula(r"\text{text: all four} = i,\qquad \text{next id} = $next", next=r.next_id)
    notice(f"The grid has {cols} + 1 columns: the merger adds a row-end token to each row, and it gets width id "
           f"{cols}. Unlike M-RoPE on the other pages, the sequence axis keeps counting through the image, so the "
           f"{r.span_end - r.span_start} image tokens cost as many ids and the text after them goes on from "
           f"{r.span_end} (the rope delta is 0). On text the four ids are equal and both layouts are ordinary "
           "RoPE. On an image token they differ, and so do the layouts: in transformers 5.23 the two halves of a "
           "pair turn by different angles (the sequence and the height id for the first 32 pairs), which is no "
           "longer a rotation; in Tencent's release code, and vLLM's XDRotaryEmbedding, pair j turns as one. With "
           "three parts, the release layout is Qwen2-VL's contiguous blocks (first tab); transformers' is not.")
    st.caption("The config.json lines that turn it on (HunyuanOCR; the other rope_scaling keys left out):")
    st.code(CONFIG, language="json", wrap_lines=True)
    st.caption(SOURCE)
