import streamlit as st

from lessons.multimodal import multimodal_views, scores_views, words
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.multimodal import (
    MM_FAMILIES,
    SCORE_BANDS,
    mm_image_scores,
    mm_rope_settings,
    mm_score_band,
    mm_scores,
    mm_time_id_table,
    mm_time_ids,
    mm_video_scores,
)

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
def video_curves(frames: int, h: int, w: int, fps: float, row: int, col: int, group: int):
    return {MM_FAMILIES[key].name: mm_video_scores(key, mm_rope_settings(key), frames, h, w, fps, row, col,
                                                         group) for key in MM_FAMILIES}


@st.cache_data(max_entries=32, show_spinner=False)
def time_ids(frames: int, fps_a: float, fps_b: float):
    return mm_time_id_table(frames, (fps_a, fps_b), scores_views.TIME_FAMILIES)


@st.fragment
def lesson():
    page = stage()
    with guard():
        model = multimodal_views.picked_model(page)
        page.walk(TABS, page, model)


def image_figure(qr, qc, sh, sw, model) -> figures.Chart:
    """The score maps of the query patch (qr, qc); the hero's frames are built here too."""
    row, col = min(qr, sh - 1), min(qc, sw - 1)  # a smaller image moves the query slider to its last stop, as here
    panels = scores_views.image_maps(model.family, model.head_dim, model.rotary_dim, model.theta, model.section,
                                     sh, sw, row, col)
    titles = [name.replace(", ", ",<br>") for name in panels]  # two lines: three panels fit a phone
    return figures.mark_panels(figures.square_panels(figures.padded(figures.small_multiples(
        [p.map for p in panels.values()], titles, title=f"Score of the patch at row {row}, column {col} "
        f"with every patch of a {sh} × {sw} image (÷ its score with itself)", cols=len(panels), signed=None,
        value_name="relative score", x_title="column", y_title="row", cell_px=300, name="mm_image_scores",
        alt=f"{len(panels)} score maps of the query patch at row {row}, column {col} over a {sh} × {sw} image, one "
            "per allocation, the query marked. Where height and width own fast pairs the map falls off around "
            "the query; where they own only slow pairs it is nearly flat.",
        margin=dict(t=110)))), col, row, "query")


def image_section(page, model):
    with page.more:
        h, w = controls.grid_size(24, (12, 16), labels=("Image rows", "Image columns"), keys=("sh", "sw"))
    with page.side:
        row, col = controls.grid_cell(h, w, (5, 7), labels=("Query row", "Query column"), keys=("qr", "qc"))
    scalars = (model.family, model.head_dim, model.rotary_dim, model.theta, model.section, h, w, row, col)
    panels = scores_views.image_maps(*scalars)
    show(hero(image_figure, qr=row, qc=col, sh=h, sw=w, model=model))
    scores_views.image_numbers(model, panels, h, w, row, col)
    far = scores_views.row_end(*scalars)

    def far_score() -> str:
        return (f"In a {h} × {far.columns} image, {model.name} scores the patch at row {row}, column {far.col} "
                f"({far.distance} columns from the query) {far.score:.4f} of the query's own score.")

    with classroom.predict("mm_scores_wider", f"Same content everywhere. Make the image twice as wide, {h} × "
                           f"{far.columns}, with the same query. In {model.name}, how much of the query's own "
                           f"score (1) does the last patch of its row get, {far.distance} columns away?",
                           [words.SCORE_BAND_WORDS[band] for band in SCORE_BANDS], mm_score_band(far.score),
                           far_score):
        formula(r"\text{row end, } $dist \text{ columns away } ($h\times $cols):\ $score", dist=far.distance,
                h=h, cols=far.columns, score=far.score, digits=4)
    formula(r"\begin{aligned}\frac{q_{(r,c)}\cdot k_{(r',c')}}{q\cdot k} &= \frac{1}{d}\Big[\sum_{j\in H} "
            r"2\cos(\Delta r\,\theta_j) + \sum_{j\in W} 2\cos(\Delta c\,\theta_j)\\ &\qquad + \sum_{j\in T} 2"
            r" + (d - r_{\text{rot}})\Big]\end{aligned}")


def video_section(page, model):
    with page.more:
        frames = controls.slider("Frames", "vf", 4, 32, 16, step=2)
        side = controls.slider("Frame side (tokens)", "vs", 1, 8, 4)
        where = controls.choice("Patch", "vp", ["corner", "centre"], "centre")
    with page.side:
        fps = controls.select_slider("fps", "vfps", FPS, 2.0, format_func=lambda v: f"{v:g}")
        group = controls.slider("Query frame group", "vg", 0, frames // 2 - 1, 0)
    pos = side // 2 if where == "centre" else 0
    curves = video_curves(frames, side, side, fps, pos, pos, group)
    seconds = next(iter(curves.values())).seconds
    moves = ", ".join(f"{c.time_span:g} ({name})" for name, c in curves.items())
    show(figures.padded(figures.lines(
        seconds, {name: c.scores for name, c in curves.items()}, markers=True, legend_right=True,
        margin=dict(r=190),
        title=f"Score of a video token with the same patch in every group of 2 frames ({frames} frames at {fps:g} "
              "fps)", x_title="seconds into the video", y_title="relative score", height=420,
        alt=f"One curve per family over {len(seconds)} groups of 2 frames: 1 at the query's group {group}, changing "
            "with the time gap at a rate set by the family's time ids and the pairs that time owns. Over the clip "
            f"the time id moves by {moves}.", name="mm_video_scores"), top=90))
    classroom.snippet("# one curve per family: curves[key].seconds and curves[key].scores, (groups,) each",
                      f"curves = {{key: pc.multimodal.mm_video_scores(key, pc.multimodal.mm_rope_settings(key), "
                      f"{frames}, {side}, {side},"
                      f"\n                               {float(fps)!r}, {pos}, {pos}, {group})"
                      "\n          for key in pc.multimodal.MM_FAMILIES}")
    q35 = mm_rope_settings("qwen3_5")
    notice("The same patch in another frame differs only in time (and, where frames are numbered like images, "
           "in the start that grows by one frame's rows and its time stamp). Over this clip the time id of the "
           "patch moves by " + moves + ". ERNIE spends only slow "
           "pairs on time, so its curve stays near 1. Qwen3-VL, Qwen3.5 and GLM move all three ids between "
           "frames, because each frame starts where the previous one and its time stamp ended. Qwen3.5 stays "
           f"higher partly because only {q35.rotary_dim} of its {q35.head_dim} dimensions rotate; the rest score "
           "the same in every frame.")


def fps_section(page, model):
    with page.more:
        frames = controls.slider("Frames", "ff", 4, 32, 16, step=2)
    with page.side:
        fps_a = controls.select_slider("fps of clip A", "fa", FPS, 1.0, format_func=lambda v: f"{v:g}")
        fps_b = controls.select_slider("fps of clip B", "fb", FPS, 4.0, format_func=lambda v: f"{v:g}")
    table = time_ids(frames, fps_a, fps_b)
    series = {f"{MM_FAMILIES[key].name}, {fps:g} fps": v for (key, fps), v in table.series.items()}
    last = {f"{MM_FAMILIES[key].name}, {fps:g} fps": v for (key, fps), v in table.last.items()}
    a, b = last[f"Qwen2-VL, {fps_a:g} fps"], last[f"Qwen2-VL, {fps_b:g} fps"]

    def frame_count() -> str:
        return (f"Qwen2-VL gives the last group id {a:g} at {fps_a:g} fps and {b:g} at {fps_b:g} fps: its time id "
                "counts groups of 2 frames, whatever their spacing in seconds (the ends of the two Qwen2-VL lines "
                "below).")

    with classroom.predict("mm_scores_fps", f"Clips A ({fps_a:g} fps) and B ({fps_b:g} fps) both have {frames} "
                           "frames. Under Qwen2-VL, how does the time id of B's last frame group compare with A's?",
                           ["the same", "B's is larger", "B's is smaller"], 0 if a == b else 1 if b > a else 2,
                           frame_count):
        scores_views.fps_view(table, series, last, frames, fps_a, fps_b)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [("A patch and its image", image_section), ("A video token over time", video_section),
        ("Frame index or seconds", fps_section)]

lesson()
why(WHY)
source(mm_image_scores, mm_video_scores, mm_time_ids, mm_scores, label="Show the code of the scores")
