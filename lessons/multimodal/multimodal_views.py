"""Controls and cached core calls shared by the Multimodal positions pages: which model (a preset or your
config.json) and which mixed sequence. The math is in posenc_core.multimodal; cached functions take scalars.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import streamlit as st

import posenc_core as pc
from lessons.multimodal import reading_views, words
from page_kit import controls
from page_kit.lesson.config_input import PASTE_CHARS, UPLOAD_MB, pasted_config_text, uploaded_config_text
from posenc_core.multimodal import (
    MM_FAMILIES,
    MULTIMODAL_PRESETS,
    MRopeSettings,
    mm_rope_settings,
    mm_segment_starts,
    parse_segments,
    read_multimodal_config,
)

AXIS_COLOURS = {"time": 0, "height": 1, "width": 2}  # palette indices: one colour per axis on every page
KIND_NAMES = ("text", "image", "video", "audio")
EXAMPLE = json.dumps(MULTIMODAL_PRESETS["qwen3-vl-8b"].config, indent=2)


@dataclass(frozen=True)
class Model:
    family: str  # key of pc.multimodal.MM_FAMILIES
    head_dim: int
    rotary_dim: int
    theta: float
    section: str  # "16,24,24": a scalar for the caches
    tokens_per_second: int | None = None
    position_id_per_seconds: int | None = None
    n_window: int = 50
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or MM_FAMILIES[self.family].name


@st.cache_data(max_entries=32, show_spinner=False)
def read_config(config_text: str):
    """The reading of one config (canonical JSON text, so the cache key is a string)."""
    return read_multimodal_config(json.loads(config_text))


def _from_reading(reading, label: str) -> Model:
    s = reading.settings
    return Model(reading.family, s.head_dim, s.rotary_dim, s.rope_theta, ",".join(map(str, s.mrope_section)),
                 reading.time.get("tokens_per_second"), reading.time.get("position_id_per_seconds"),
                 reading.time.get("n_window", 50), label)


def model_picker(config_box=None, note=None) -> tuple[Model, object]:
    """A preset (default) or a pasted / uploaded config.json; returns the model and the config's reading.

    Without ``config_box`` the two pickers sit side by side. With it (a picture-first page, whose pickers stand
    in the narrow column beside the figure) they stack, and the config inputs, which need the width, go into
    ``config_box``. ``note``: where the preset's source and note go (default: under the pickers).
    """
    c1, c2 = st.columns([1, 2]) if config_box is None else (st.container(), st.container())
    with c1:
        origin = controls.choice("Model from", "src", ["preset", "json"], "preset",
                                 format_func={"preset": "A released model", "json": "Your config.json"}.get)
    if origin == "preset":
        with c2:
            key = controls.select("Model", "model", list(MULTIMODAL_PRESETS),
                                  format_func=lambda k: MULTIMODAL_PRESETS[k].name)
        preset = MULTIMODAL_PRESETS[key]
        (st if note is None else note).caption(reading_views.preset_caption(key))
        return _from_reading(read_config(json.dumps(preset.config)), preset.name), None
    with c2 if config_box is None else config_box:
        uploaded = st.file_uploader(f"Upload config.json (at most {UPLOAD_MB} MB)", type=["json"], key="upload",
                                    max_upload_size=UPLOAD_MB)
    with st.container() if config_box is None else config_box:
        # Not bound to the URL: a config can be many kilobytes; share a preset link instead.
        text = st.text_area("… or paste it here", EXAMPLE, height=180, key="cfg", max_chars=PASTE_CHARS)
    config_text = uploaded_config_text(uploaded) if uploaded is not None else pasted_config_text(text)
    reading = read_config(config_text)
    return _from_reading(reading, ""), reading


def picked_model(page) -> Model:
    """The model picker beside a stage's figure and, for a pasted config, what was read from it above the figure."""
    with page.side:
        model, reading = model_picker(config_box=page.main)
    if reading is not None:
        with page.main:
            reading_views.show_reading(reading)
    return model


def settings_of(model: Model) -> MRopeSettings:
    return mm_rope_settings(model.family, head_dim=model.head_dim,
                               rotary_dim=model.rotary_dim, rope_theta=model.theta,
                               mrope_section=tuple(int(v) for v in model.section.split(",")))


def settings_code(model: Model) -> str:
    """``settings_of(model)`` as snippet source: the call with the model's values (a pasted config's too)."""
    return (f"settings = pc.multimodal.mm_rope_settings(\n    {model.family!r}, head_dim={model.head_dim}, "
            f"rotary_dim={model.rotary_dim},\n    rope_theta={model.theta!r}, "
            f"mrope_section=({model.section.replace(',', ', ')}))")


@st.cache_data(max_entries=64, show_spinner=False)
def position_ids(family: str, spec: str, frame_text: int, tokens_per_second: int | None,
                 position_id_per_seconds: int | None, n_window: int):
    return pc.mm_position_ids(family, parse_segments(spec), frame_text=frame_text, n_window=n_window,
                              tokens_per_second=tokens_per_second, position_id_per_seconds=position_id_per_seconds)


def ids_for(model: Model, spec: str, frame_text: int):
    return position_ids(model.family, spec, frame_text, model.tokens_per_second, model.position_id_per_seconds,
                        model.n_window)


# the sequence controls' URL keys, in the order of their two rows of six
SEQUENCE_KEYS = ("t0", "ih", "iw", "t1", "vf", "fps", "vh", "vw", "t2", "ft/snd", "au")


def sequence_controls(model: Model, *, audio_default: bool = False, side=None, more=None,
                      beside: tuple[str, ...] = ("ih", "iw")) -> dict:
    """The mixed sequence's controls, {URL key: value} (None where the family has none): ``sequence`` makes the
    spec from them, so a figure built for a neighbouring value (page_kit.hero) makes its own. Given ``side`` and
    ``more`` (a ``lesson.stage``'s side column, or a box in it, and its "More settings"), the controls keyed in
    ``beside`` (the image's rows and columns unless a tab drives others) go beside the figure and the rest is
    folded; without them, they sit in two rows of six. The keys are the same either way, so links carry over.
    """
    family = MM_FAMILIES[model.family]
    if side is None:
        cols = [*st.columns(6), *st.columns(6)]
    else:  # slots in the rows' order, one under another
        cols = [side if any(k in beside for k in key.split("/")) else more for key in SEQUENCE_KEYS]
    v = dict.fromkeys(("ft", "snd", "au"))
    with cols[0]:
        v["t0"] = controls.slider("Text before", "t0", 1, 12, 4, help="Text tokens before the image, including "
                                                                      "the vision start token's neighbours.")
    with cols[1]:
        v["ih"] = controls.slider("Image rows", "ih", 1, 12, 3, help="Image height in language-model tokens, after "
                                                                     "the vision tower merges 2 x 2 patches.")
    with cols[2]:
        v["iw"] = controls.slider("Image columns", "iw", 1, 12, 4)
    with cols[3]:
        v["t1"] = controls.slider("Text between", "t1", 1, 12, 3)
    with cols[4]:
        v["vf"] = controls.slider("Video frames", "vf", 2, 16, 6, step=2,
                                  help="Sampled frames; the vision tower packs 2 frames into one temporal patch.")
    with cols[5]:
        v["fps"] = controls.select_slider("Video fps", "fps", [0.5, 1.0, 2.0, 4.0, 8.0], 2.0,
                                          format_func=lambda x: f"{x:g}")
    cols = cols[6:]
    with cols[0]:
        v["vh"] = controls.slider("Video rows", "vh", 1, 8, 2)
    with cols[1]:
        v["vw"] = controls.slider("Video columns", "vw", 1, 8, 2)
    with cols[2]:
        v["t2"] = controls.slider("Text after", "t2", 1, 12, 3)
    if family.time_rule == "text_timestamps":
        with cols[3]:
            v["ft"] = controls.slider("Text between frames", "ft", 1, 16, family.frame_text,
                                      help=f"What the processor writes between two frames, e.g. "
                                           f"{words.FRAME_TEXT_EXAMPLES[model.family]}; the exact count depends on the "
                                           "tokenizer and the digits of the time stamp.")
    if family.audio:
        with cols[3]:
            v["snd"] = controls.toggle("With sound", "snd", audio_default,
                                       help="use_audio_in_video: the video's own audio track, its tokens "
                                            "merged with the frames by time.")
        with cols[4]:
            v["au"] = controls.select_slider("Audio clip (s)", "au", [0.0, 0.5, 1.0, 2.0, 4.0], 1.0,
                                             format_func=lambda x: "none" if x == 0 else f"{x:g}")
    return v


def sequence(model: Model, t0, ih, iw, t1, vf, fps, vh, vw, t2, ft=None, snd=None, au=None) -> tuple[str, int]:
    """The spec string and the text between frames of the sequence ``sequence_controls`` set."""
    frame_text = ft if ft is not None else MM_FAMILIES[model.family].frame_text or 1
    audio = f", audio {au:g}s, text 2" if au else ""
    return (f"text {t0}, image {ih}x{iw}, text {t1}, video {vf}f {vh}x{vw} @{fps:g}{' +audio' if snd else ''}, "
            f"text {t2}{audio}"), frame_text


def segment_marks(result, spec: str) -> list[tuple[float, str]]:
    """(first own token, label) of each image, video and audio segment, for vertical markers."""
    labels = {"image": "image {p.h}×{p.w}", "video": "video {p.frames}f {p.h}×{p.w}", "audio": "audio {p.seconds:g}s"}
    return [(start, labels[part.kind].format(p=part))
            for part, start in zip(parse_segments(spec), mm_segment_starts(result), strict=True)
            if part.kind != "text"]
