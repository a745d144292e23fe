import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.multimodal import multimodal_views
from page_kit import (
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    notice,
    show,
    source,
    stage,
    why,
)

# one released model per allocation, compared at their own settings
ALLOCATION_MODELS = {"chunked": "qwen2_vl", "interleaved": "qwen3_vl", "ernie3d": "ernie4_5_vl"}
FPS = [0.5, 1.0, 2.0, 4.0, 8.0]

header("What the model can see",
       "The same content at every token, so only position differs: how does one token's score change across an "
       "image or a video? 1 means 'looks like the query'.")
WHY = ("Position ids and the pair split together decide how a query token's score changes across an image or a "
       "video when the content is the same everywhere, so only position differs. A patch should tell its "
       "neighbour to the right from the one below, and a video token should tell one second from ten. The maps "
       "and curves put the same content at every token and show what each model's rotary does with position "
       "alone (scores divided by the query's score with itself, so 1 is 'looks like the query').")


@st.cache_data(max_entries=32, show_spinner=False)
def image_maps(family: str, head_dim: int, rotary_dim: int, theta: float, section: str, h: int, w: int, row: int,
               col: int):
    """The chosen model's map, then one released model per other allocation."""
    own = pc.mm_rope_settings(family, head_dim=head_dim, rotary_dim=rotary_dim,
                              rope_theta=theta, mrope_section=tuple(int(v) for v in section.split(",")))
    panels = {f"{pc.MM_FAMILIES[family].name}, {own.allocation}": pc.mm_image_scores(family, own, h, w, row, col)}
    for allocation, key in ALLOCATION_MODELS.items():
        if allocation != own.allocation:
            name = f"{pc.MM_FAMILIES[key].name}, {allocation}"
            panels[name] = pc.mm_image_scores(key, pc.mm_rope_settings(key), h, w, row, col)
    return panels


@st.cache_data(max_entries=32, show_spinner=False)
def video_curves(frames: int, h: int, w: int, fps: float, row: int, col: int, group: int):
    return {pc.MM_FAMILIES[key].name: pc.mm_video_scores(key, pc.mm_rope_settings(key), frames, h, w, fps, row, col,
                                                         group) for key in pc.MM_FAMILIES}


TIME_FAMILIES = ("qwen2_vl", "qwen2_5_vl", "qwen3_omni")


@st.cache_data(max_entries=32, show_spinner=False)
def time_ids(frames: int, fps_a: float, fps_b: float):
    return pc.mm_time_id_table(frames, (fps_a, fps_b), TIME_FAMILIES)


@st.fragment
def lesson():
    page = stage()
    with guard():
        with page.side:
            model, reading = multimodal_views.model_picker(config_box=page.main)
        if reading is not None:
            with page.main:
                multimodal_views.show_reading(reading)
        tab_image, tab_video, tab_fps = page.sections(["A patch and its image", "A video token over time",
                                                       "Frame index or seconds"])
        if tab_image.open:
            with tab_image:
                image_section(page, model)
        if tab_video.open:
            with tab_video:
                video_section(page)
        if tab_fps.open:
            with tab_fps:
                fps_section(page)


def image_section(page, model):
    with page.more:
        h, w = controls.grid_size(24, (12, 16), labels=("Image rows", "Image columns"), keys=("sh", "sw"))
    with page.side:
        row, col = controls.grid_cell(h, w, (5, 7), labels=("Query row", "Query column"), keys=("qr", "qc"))
    panels = image_maps(model.family, model.head_dim, model.rotary_dim, model.theta, model.section, h, w, row, col)
    own_name, own = next(iter(panels.items()))
    side = col + 1 if col + 1 < w else col - 1  # the neighbour in the query's row (the image has 2+ columns)
    beside = float(own["map"][row, side])

    lines = ", ".join(f"{name}: right {p['right']:.4f}, below {p['below']:.4f}" for name, p in panels.items())
    show(figures.mark_panels(figures.square_panels(figures.padded(figures.small_multiples(
        [p["map"] for p in panels.values()], list(panels), title=f"Score of the patch at row {row}, column {col} "
        f"with every patch of a {h} × {w} image (÷ its score with itself)", cols=len(panels), signed=None,
        value_name="relative score", x_title="column", y_title="row", cell_px=300, name="mm_image_scores",
        alt=f"{len(panels)} score maps of the query patch at row {row}, column {col} over a {h} × {w} image, one "
            "per allocation, the query marked. Where height and width own fast pairs the map falls off around "
            "the query; where they own only slow pairs it is nearly flat.",
        margin=dict(t=110)))), col, row, "query"))

    def neighbour() -> str:
        return (f"{own_name}: the patch at row {row}, column {side} scores {beside:.4f} of the query's own score. "
                f"All maps, right and below the query: {lines}.")

    with classroom.predict("mm_scores_beside", f"Same content everywhere, so only position differs. In "
                           f"{model.name}, how much of the query's own score (1) does the patch directly beside it "
                           "(same row) get? The colours tell near from far; the number needs the answer.",
                           ["above 0.99: almost the same place", "between 0.5 and 0.99",
                            "below 0.5: clearly elsewhere"], 0 if beside > 0.99 else 1 if beside >= 0.5 else 2,
                           neighbour):
        image_numbers(model, lines, h, w, row, col)
    formula(r"\frac{q_{(r,c)}\cdot k_{(r',c')}}{q\cdot k} = \frac{1}{d}\Big[\sum_{j\in H} 2\cos(\Delta r\,"
            r"\theta_j) + \sum_{j\in W} 2\cos(\Delta c\,\theta_j) + \sum_{j\in T} 2 + (d - r_{\text{rot}})\Big]")


def image_numbers(model, lines: str, h: int, w: int, row: int, col: int):
    """The code of the maps and the neighbours' scores: what answers the question."""
    allocation = multimodal_views.settings_of(model).allocation
    others = tuple(key for a, key in ALLOCATION_MODELS.items() if a != allocation)
    classroom.snippet(multimodal_views.settings_code(model),
                      f"# own['map']: ({h}, {w}), the first map; own['right'] and own['below'] as printed",
                      f"own = pc.mm_image_scores({model.family!r}, settings, {h}, {w}, {row}, {col})",
                      "# the other maps: one released model per other allocation",
                      f"others = {{key: pc.mm_image_scores(key, pc.mm_rope_settings(key), {h}, {w}, {row}, {col})"
                      f"\n          for key in {others!r}}}")
    notice(f"Next to the query, 1 means 'indistinguishable by position'. {lines}. A model whose height and "
           "width pairs are all slow (Qwen2-VL's contiguous blocks give width the slowest 24 pairs) sees "
           "neighbouring patches as nearly the same place, so it must learn the layout from content; "
           "interleaving gives both axes fast pairs and a sharp peak. (Trained weights can still read small "
           "angle differences by putting large norms on those pairs; the maps show what the rotation alone "
           "provides.)")


def video_section(page):
    with page.more:
        frames = controls.slider("Frames", "vf", 4, 32, 16, step=2)
        side = controls.slider("Frame side (tokens)", "vs", 1, 8, 4)
        where = controls.choice("Patch", "vp", ["corner", "centre"], "centre")
    with page.side:
        fps = controls.select_slider("fps", "vfps", FPS, 2.0, format_func=lambda v: f"{v:g}")
        group = controls.slider("Query frame group", "vg", 0, frames // 2 - 1, 0)
    pos = side // 2 if where == "centre" else 0
    curves = video_curves(frames, side, side, fps, pos, pos, group)
    seconds = next(iter(curves.values()))["seconds"]
    gap = {name: float(c["time_ids"][-1] - c["time_ids"][0]) for name, c in curves.items()}
    moves = ", ".join(f"{v:g} ({k})" for k, v in gap.items())
    show(figures.padded(figures.lines(
        seconds, {name: c["scores"] for name, c in curves.items()}, markers=True, legend_right=True,
        margin=dict(r=190),
        title=f"Score of a video token with the same patch in every group of 2 frames ({frames} frames at {fps:g} "
              "fps)", x_title="seconds into the video", y_title="relative score", height=420,
        alt=f"One curve per family over {len(seconds)} groups of 2 frames: 1 at the query's group {group}, changing "
            "with the time gap at a rate set by the family's time ids and the pairs that time owns. Over the clip "
            f"the time id moves by {moves}.", name="mm_video_scores"), top=90))
    classroom.snippet("# one curve per family: curves[key]['seconds'] and curves[key]['scores'], (groups,) each",
                      f"curves = {{key: pc.mm_video_scores(key, pc.mm_rope_settings(key), {frames}, {side}, {side},"
                      f"\n                               {float(fps)!r}, {pos}, {pos}, {group})"
                      "\n          for key in pc.MM_FAMILIES}")
    q35 = pc.mm_rope_settings("qwen3_5")
    notice("The same patch in another frame differs only in time (and, where frames are numbered like images, "
           "in the start that grows by one frame's rows and its time stamp). Over this clip the time id of the "
           "patch moves by " + moves + ". ERNIE spends only slow "
           "pairs on time, so its curve stays near 1. Qwen3-VL, Qwen3.5 and GLM move all three ids between "
           "frames, because each frame starts where the previous one and its time stamp ended. Qwen3.5 stays "
           f"higher partly because only {q35.rotary_dim} of its {q35.head_dim} dimensions rotate; the rest score "
           "the same in every frame.")


def fps_section(page):
    with page.more:
        frames = controls.slider("Frames", "ff", 4, 32, 16, step=2)
    with page.side:
        fps_a = controls.select_slider("fps of clip A", "fa", FPS, 1.0, format_func=lambda v: f"{v:g}")
        fps_b = controls.select_slider("fps of clip B", "fb", FPS, 4.0, format_func=lambda v: f"{v:g}")
    table = time_ids(frames, fps_a, fps_b)
    names = {f"{key} at {fps:g} fps": f"{pc.MM_FAMILIES[key].name}, {fps:g} fps" for key in TIME_FAMILIES
             for fps in (fps_a, fps_b)}
    series = {names[k]: v for k, v in table["series"].items()}
    last = {name: values[np.isfinite(values)][-1] for name, values in series.items()}
    a, b = last[f"Qwen2-VL, {fps_a:g} fps"], last[f"Qwen2-VL, {fps_b:g} fps"]

    def frame_count() -> str:
        return (f"Qwen2-VL gives the last group id {a:g} at {fps_a:g} fps and {b:g} at {fps_b:g} fps: its time id "
                "counts groups of 2 frames, whatever their spacing in seconds (the ends of the two Qwen2-VL lines "
                "below).")

    with classroom.predict("mm_scores_fps", f"Clips A ({fps_a:g} fps) and B ({fps_b:g} fps) both have {frames} "
                           "frames. Under Qwen2-VL, how does the time id of B's last frame group compare with A's?",
                           ["the same", "B's is larger", "B's is smaller"], 0 if a == b else 1 if b > a else 2,
                           frame_count):
        fps_view(table, series, last, frames, fps_a, fps_b)


def fps_view(table, series, last, frames, fps_a, fps_b):
    """The time ids that answer the question, their code, and what one id means in seconds."""
    show(figures.padded(figures.lines(
        table["seconds"], series, markers=True, legend_right=True,
        dashed=tuple(name for name in series if name.endswith(f", {fps_b:g} fps")), margin=dict(r=190),
        title="Time id of each group of 2 frames against its time in seconds", x_title="seconds",
        y_title="time id (from the first group)", height=420, name="mm_fps_ids",
        alt=f"Time ids of {frames} frames at {fps_a:g} and {fps_b:g} fps. Frame-index ids (Qwen2-VL) rise by one "
            "per group, so their slope in seconds depends on the fps; Qwen2.5-VL's and Qwen3-Omni's rise with "
            "seconds, so both clips lie on one line. Last ids: "
            + ", ".join(f"{name} {value:g}" for name, value in last.items()) + "."), top=90))
    classroom.snippet(f"table = pc.mm_time_id_table(\n    {frames}, ({float(fps_a)!r}, {float(fps_b)!r}), "
                      f"{TIME_FAMILIES!r})", "# table['seconds']: (k,) start times of the groups of 2 frames",
                      "# table['series']: {'<family> at <fps> fps': (k,) time ids, NaN where that clip has no group}")
    span_a, span_b = (frames - 2) / fps_a, (frames - 2) / fps_b  # start of the last group of 2 frames
    notice(f"The last group of clip A starts at {span_a:g} s, that of clip B at {span_b:g} s. Qwen2-VL gives both "
           f"the same last time id ({last[f'Qwen2-VL, {fps_a:g} fps']:g} and "
           f"{last[f'Qwen2-VL, {fps_b:g} fps']:g}): it counts groups of frames, so one id means {2 / fps_a:g} s "
           f"in A and {2 / fps_b:g} s in B. Qwen2.5-VL reaches {last[f'Qwen2.5-VL, {fps_a:g} fps']:g} and "
           f"{last[f'Qwen2.5-VL, {fps_b:g} fps']:g}: with tokens_per_second 2 one id is half a second at any "
           "fps (rounded down, so at high fps neighbouring groups can share an id). Qwen3-Omni counts "
           f"{pc.MM_FAMILIES['qwen3_omni'].position_id_per_seconds} ids per second and keeps fractions: "
           f"{last[f'Qwen3-Omni, {fps_a:g} fps']:g} and {last[f'Qwen3-Omni, {fps_b:g} fps']:g}.")
    formula(r"\text{Qwen2.5-VL: } t_k = \lfloor k\cdot 2\cdot \tfrac{2}{\text{fps}}\rfloor:\ \ "
            r"\text{A: } \lfloor k\cdot $ia\rfloor,\ \ \text{B: } \lfloor k\cdot $ib\rfloor",
            ia=4 / fps_a, ib=4 / fps_b)


lesson()
why(WHY)
source(pc.mm_image_scores, pc.mm_video_scores, pc.mm_time_ids, pc.mm_scores, label="Show the code of the scores")
