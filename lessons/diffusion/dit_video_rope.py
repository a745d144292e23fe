import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.diffusion import words
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why

MODELS = ["Wan2.1-T2V-14B", "Wan2.1-T2V-1.3B", "HunyuanVideo", "CogVideoX-5b", "CogVideoX1.5-5B"]
FRAMES = [17, 33, 45, 49, 81, 129, 161]  # 4k + 1: the VAE keeps frame 0 alone
AXIS_COLOURS = {"time": 0, "height": 1, "width": 2}

header("Video: 3D rotary over time, rows and columns",
       "A video generator gives every latent patch three ids, frame, row and column, and cuts each attention "
       "head into a time block, a height block and a width block.")
WHY = ("A video diffusion transformer sees a clip as a block of latent patches: the VAE shrinks each frame 8 times "
       "and keeps one latent frame per 4 video frames (the first frame alone), and a patch covers 2 x 2 "
       "latents (CogVideoX 1.5 also pairs latent frames). Every patch gets a frame id, a row id and a column "
       "id, counted from 0, and the head's dimensions are cut into three contiguous blocks, each a small "
       "rotary turning with one id. The models differ in the cut and in θ: Wan gives height and width "
       "2·(d // 6) dimensions each and time the rest, at θ = 10,000; HunyuanVideo uses (16, 56, 56) at θ = 256; "
       "CogVideoX gives time a quarter and height and width three eighths each.")


@st.cache_data(max_entries=32, show_spinner=False)
def two_clips(name: str, width: int, height: int, frames_a: int, frames_b: int):
    p = pc.diffusion.dit_preset(name)
    a = pc.diffusion.dit_axis_extents(p, width, height, frames_a)
    b = pc.diffusion.dit_axis_extents(p, width, height, frames_b)
    clip_a, clip_b = pc.diffusion.dit_axis_series(p, a), pc.diffusion.dit_axis_series(p, b)
    series = {f"time ({frames_a} frames)": clip_a.pop("time"), f"time ({frames_b} frames)": clip_b["time"]}
    return a, b, series | clip_a  # height and width do not depend on the frame count


@st.fragment
def lesson():
    page = stage()
    with page.side:
        name = controls.select("Model", "model", MODELS)
        frames_a = controls.select_slider("Frames, clip A", "fa", FRAMES, 49)
        frames_b = controls.select_slider("Frames, clip B", "fb", FRAMES, 81)
    preset = pc.diffusion.dit_preset(name)
    with page.more:
        width = controls.select_slider("Width (px)", "w", [480, 640, 720, 832, 1280, 1360], preset.size[0])
        height = controls.select_slider("Height (px)", "h", [320, 480, 544, 720, 768], preset.size[1])
    with page.main, guard():
        a, b, _ = two_clips(name, width, height, frames_a, frames_b)
        t_a, t_b = a.time, b.time
        last = min(frames_a, frames_b) - 1  # the last frame both clips have
        id_a, id_b = pc.diffusion.dit_frame_time_id(preset, frames_a, last), pc.diffusion.dit_frame_time_id(preset,
                                                                                                            frames_b,
                                                                                                            last)
        show(hero(split_chart, fa=frames_a, fb=frames_b, w=width, h=height, model=name))
        classroom.snippet(f"preset = pc.diffusion.dit_preset({name!r})",
                          f"clip = pc.diffusion.dit_axis_extents(preset, {width}, {height}, {frames_a})  # ids per "
                          "axis",
                          "turns = pc.diffusion.dit_axis_series(preset, clip)  # {axis: (pairs,) turns, NaN elsewhere}",
                          f"cos, sin = {rope_call(preset, a)}  # the model's own table")
        frames_question(preset, frames_a, frames_b, (t_a, t_b), (id_a, id_b), last)
        explain(preset, a)


def split_chart(fa: int, fb: int, w: int, h: int, model: str):
    preset = pc.diffusion.dit_preset(model)
    a, b, series = two_clips(model, w, h, fa, fb)
    slow_a = pc.diffusion.dit_value_range(series[f"time ({fa} frames)"])[0]  # the slowest time pair's turns
    slow_b = pc.diffusion.dit_value_range(series[f"time ({fb} frames)"])[0]
    return figures.padded(figures.lines(
        np.arange(preset.pairs), series, markers=True, log_y=True, colours=None,
        dashed=[f"time ({fb} frames)"], hlines=[(1.0, "one full turn")],
        title=f"{model}: turns of each pair across a {w} x {h} clip",
        x_title="pair j of a head (time, height, width blocks)",
        y_title="turns across the clip", hover_format=",.3g", name="dit_video_split",
        alt=f"{preset.pairs} pairs split {preset.axes[0] // 2} time, {preset.axes[1] // 2} "
            f"height, {preset.axes[2] // 2} width. Across clip A's {a.time} time ids the slowest time pair "
            f"turns {slow_a:.3g} times, across clip B's {b.time} ids {slow_b:.3g} times; the width block "
            f"spans {a.width} columns."), left=80)


def frames_question(preset, frames_a, frames_b, counts, ids, last):
    """Predict the time id of one video frame in both clips; the answer is a small table of frames and ids."""
    (t_a, t_b), (id_a, id_b) = counts, ids
    options = ["the same time id", "a different time id in each"]

    def reveal() -> str:
        return (f"Time ids count latent frames from the start of the clip, whatever its length: video frame "
                f"{last} gets time id {id_a} in clip A and {id_b} in clip B. Clip A has time ids 0 to "
                f"{t_a - 1}, clip B 0 to {t_b - 1}; the longer clip adds ids, and its slowest time pair "
                "turns further across it." + ("" if id_a == id_b else " CogVideoX 1.5 pairs latent frames "
                "and pads an odd count with one latent in front, which shifts every frame of one clip."))

    frames = sorted({0, 4, last // 2, last})
    with classroom.predict("dit_video_frames", f"{preset.name}: the same scene made as a {frames_a}-frame and a "
                           f"{frames_b}-frame clip. Video frame {last} (in both): which time id does it get?",
                           options, 0 if id_a == id_b else 1, reveal):
        st.dataframe({"video frame": frames,
                      f"time id, {frames_a} frames": [pc.diffusion.dit_frame_time_id(preset, frames_a,
                                                                                     f) for f in frames],
                      f"time id, {frames_b} frames": [pc.diffusion.dit_frame_time_id(preset, frames_b,
                                                                                     f) for f in frames]},
                     hide_index=True, width="stretch")


def rope_call(preset, extents) -> str:
    """The exact pc call that builds this model's cos/sin for the clip (as text for the snippet)."""
    t, h, w = extents.time, extents.height, extents.width
    calls = {
        "wan": f"pc.diffusion.wan_rope({preset.head_dim}, {t}, {h}, {w}, "
               f"max_seq_len={preset.extra.get('rope_max_seq_len')})",
        "hunyuan": f"pc.diffusion.hunyuan_rope({t}, {h}, {w}, rope_dim={preset.axes}, theta={preset.theta})",
        "cogvideox": f"pc.diffusion.cogvideox_rope({preset.head_dim}, {t}, {h}, {w}, {preset.extra.get('base_rows')}, "
                     f"{preset.extra.get('base_cols')}, patch_size_t={preset.extra.get('patch_size_t')})",
    }
    return calls[preset.family]


def explain(preset, extents):
    t, h, w = preset.axes
    formula(r"d = $d \;\to\; (t, h, w) = ($t, $h, $w)", d=preset.head_dim, t=t, h=h, w=w)
    x = preset.extra
    slowest = pc.diffusion.dit_pair_wavelengths(t, preset.theta)[-1]
    usual = pc.diffusion.dit_pair_wavelengths(t, 10000.0)[-1]
    texts = {
        "wan": f"Wan's rotary table is made once for rope_max_seq_len = {x.get('rope_max_seq_len', 0):,} ids per axis "
               "and sliced to the clip, so ids never change with the clip's size: frame 0 is always time id 0.",
        "hunyuan": f"At θ = {preset.theta:g} its slowest time pair turns once every {slowest:,.0f} ids, against "
                   f"{usual:,.0f} at θ = 10,000: a low θ keeps the slow pairs moving across the few dozen ids "
                   "a clip has.",
        "cogvideox": (f"CogVideoX 1.0 fits rows and columns into its trained {x.get('base_rows')} x "
                      f"{x.get('base_cols')} grid (linspace: at another size the ids are fractions, interpolated "
                      "as in the next lesson); time ids are 0, 1, 2, ... as elsewhere."
                      if x.get("patch_size_t") is None else
                      f"CogVideoX 1.5 pairs latent frames (patch_size_t = {x.get('patch_size_t')}), so one time id "
                      f"covers {preset.frames_per_token} video frames, and slices whole-number ids from a table made "
                      f"for its {x.get('base_rows')} x {x.get('base_cols')} trained grid."),
    }
    notice(f"The time block is the first {t // 2} pairs of the head (fast to slow, then height starts again "
           f"fast), at θ = {preset.theta:,.0f}. "
           + texts[preset.family] + f" This clip spans {extents.time} time ids, {extents.height} rows and "
           f"{extents.width} columns of patches.")
    st.caption(" · ".join(f"{k}: {v}" for k, v in words.CITES[preset.name].items()))


lesson()
why(WHY)
source(pc.diffusion.wan_rope, pc.diffusion.hunyuan_rope, pc.diffusion.cogvideox_rope)
