"""Views of "What the model can see" that would crowd its page: the cached image maps and their what-if, the
numbers and code under the maps, and the fps chart that answers the page's last question."""

from __future__ import annotations

import streamlit as st

from lessons.multimodal import multimodal_views
from page_kit import classroom, figures
from page_kit.chart.render import show
from page_kit.lesson import formula, notice
from posenc_core.multimodal import (
    MM_FAMILIES,
    mm_image_scores,
    mm_rope_settings,
    mm_row_end_score,
    mm_wavelength_ranges,
)

# one released model per allocation, compared at their own settings
ALLOCATION_MODELS = {"chunked": "qwen2_vl", "interleaved": "qwen3_vl", "ernie3d": "ernie4_5_vl"}
# frame index (Qwen2-VL) against seconds (Qwen2.5-VL, Qwen3-Omni): the families of the fps tab
TIME_FAMILIES = ("qwen2_vl", "qwen2_5_vl", "qwen3_omni")


@st.cache_data(max_entries=32, show_spinner=False)
def image_maps(family: str, head_dim: int, rotary_dim: int, theta: float, section: str, h: int, w: int, row: int,
               col: int):
    """The chosen model's map, then one released model per other allocation."""
    own = mm_rope_settings(family, head_dim=head_dim, rotary_dim=rotary_dim,
                              rope_theta=theta, mrope_section=tuple(int(v) for v in section.split(",")))
    panels = {f"{MM_FAMILIES[family].name}, {own.allocation}": mm_image_scores(family, own, h, w, row, col)}
    for allocation, key in ALLOCATION_MODELS.items():
        if allocation != own.allocation:
            name = f"{MM_FAMILIES[key].name}, {allocation}"
            panels[name] = mm_image_scores(key, mm_rope_settings(key), h, w, row, col)
    return panels


@st.cache_data(max_entries=32, show_spinner=False)
def row_end(family: str, head_dim: int, rotary_dim: int, theta: float, section: str, h: int, w: int, row: int,
            col: int):
    """The what-if of the image tab: the same query in an image twice as wide, scored with its row's last patch."""
    settings = mm_rope_settings(family, head_dim=head_dim, rotary_dim=rotary_dim, rope_theta=theta,
                                   mrope_section=tuple(int(v) for v in section.split(",")))
    return mm_row_end_score(family, settings, h, w, row, col, widen=2)


def image_numbers(model, panels, h: int, w: int, row: int, col: int):
    """The code of the maps and the neighbours' scores, as the maps show them."""
    lines = ", ".join(f"{name}: right {p.right:.4f}, below {p.below:.4f}" for name, p in panels.items())
    allocation = multimodal_views.settings_of(model).allocation
    others = tuple(key for a, key in ALLOCATION_MODELS.items() if a != allocation)
    classroom.snippet(multimodal_views.settings_code(model),
                      f"# own.map: ({h}, {w}), the first map; own.right and own.below as printed",
                      f"own = pc.multimodal.mm_image_scores({model.family!r}, settings, {h}, {w}, {row}, {col})",
                      "# the other maps: one released model per other allocation",
                      f"others = {{key: pc.multimodal.mm_image_scores(key, pc.multimodal.mm_rope_settings(key), {h}, "
                      f"{w}, {row}, {col})"
                      f"\n          for key in {others!r}}}")
    qwen2_width = mm_wavelength_ranges(mm_rope_settings("qwen2_vl"))["width"].pairs
    notice(f"Next to the query, 1 means 'indistinguishable by position'. {lines}. A model whose height and "
           f"width pairs are all slow (Qwen2-VL's contiguous blocks give width the slowest {qwen2_width} pairs) sees "
           "neighbouring patches as nearly the same place, so it must learn the layout from content; "
           "interleaving gives both axes fast pairs and a sharp peak. (Trained weights can still read small "
           "angle differences by putting large norms on those pairs; the maps show what the rotation alone "
           "provides.)")


def fps_view(table, series, last, frames, fps_a, fps_b):
    """The time ids that answer the question, their code, and what one id means in seconds."""
    show(figures.padded(figures.lines(
        table.seconds, series, markers=True, legend_right=True,
        dashed=tuple(name for name in series if name.endswith(f", {fps_b:g} fps")), margin=dict(r=190),
        title="Time id of each group of 2 frames against its time in seconds", x_title="seconds",
        y_title="time id (from the first group)", height=420, name="mm_fps_ids",
        alt=f"Time ids of {frames} frames at {fps_a:g} and {fps_b:g} fps. Frame-index ids (Qwen2-VL) rise by one "
            "per group, so their slope in seconds depends on the fps; Qwen2.5-VL's and Qwen3-Omni's rise with "
            "seconds, so both clips lie on one line. Last ids: "
            + ", ".join(f"{name} {value:g}" for name, value in last.items()) + "."), top=90))
    classroom.snippet(f"table = pc.multimodal.mm_time_id_table(\n    {frames}, ({float(fps_a)!r}, {float(fps_b)!r}), "
                      f"{TIME_FAMILIES!r})", "# table.seconds: (k,) start times of the groups of 2 frames",
                      "# table.series: {(family, fps): (k,) time ids, NaN where that clip has no group}")
    span_a, span_b = (table.last_start[fps] for fps in (fps_a, fps_b))  # start of the last group of 2 frames
    group_a, group_b = (table.group_seconds[fps] for fps in (fps_a, fps_b))
    notice(f"The last group of clip A starts at {span_a:g} s, that of clip B at {span_b:g} s. Qwen2-VL gives both "
           f"the same last time id ({last[f'Qwen2-VL, {fps_a:g} fps']:g} and "
           f"{last[f'Qwen2-VL, {fps_b:g} fps']:g}): it counts groups of frames, so one id means {group_a:g} s "
           f"in A and {group_b:g} s in B. Qwen2.5-VL reaches {last[f'Qwen2.5-VL, {fps_a:g} fps']:g} and "
           f"{last[f'Qwen2.5-VL, {fps_b:g} fps']:g}: with tokens_per_second 2 one id is half a second at any "
           "fps (rounded down, so at high fps neighbouring groups can share an id). Qwen3-Omni counts "
           f"{MM_FAMILIES['qwen3_omni'].position_id_per_seconds} ids per second and keeps fractions: "
           f"{last[f'Qwen3-Omni, {fps_a:g} fps']:g} and {last[f'Qwen3-Omni, {fps_b:g} fps']:g}.")
    formula(r"\text{Qwen2.5-VL: } t_k = \lfloor k\cdot 2\cdot \tfrac{2}{\text{fps}}\rfloor:\ \ "
            r"\text{A: } \lfloor k\cdot 2\cdot $ga\rfloor,\ \ \text{B: } \lfloor k\cdot 2\cdot $gb\rfloor",
            ga=group_a, gb=group_b)
