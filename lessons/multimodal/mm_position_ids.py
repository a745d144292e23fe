import streamlit as st

import posenc_core as pc
from lessons.multimodal import multimodal_views, reading_views
from page_kit import classroom, figures, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.multimodal import (
    MM_FAMILIES,
    mm_image_advance,
    mm_sequence_summary,
    mm_video_groups,
    mm_wider_image,
    omni,
    omni_audio_tokens,
    parse_segments,
    sequence,
)

header(
    "Position ids of a mixed sequence",
    "A vision-language model gives every token three position ids, time, row and column: text gets the same "
    "number three times, an image's patches share one time id and spread over rows and columns.",
)
WHY = ("A vision-language model reads one long sequence: text tokens, then an image cut into patches, more text, "
       "a video, maybe sound. Instead of one position number per token it gives every token three: a time id, a "
       "row id and a column id. Text gets the same number three times, so for text nothing changes; an image's "
       "patches share one time id and spread over rows and columns. Build a sequence and see the three rows each "
       "model computes, token by token, exactly as its `get_rope_index` in transformers does.")


@st.fragment
def lesson():
    page = stage()
    with page.main, guard():  # an error shows in the figure column, where the figure would be
        tab_rows, tab_rules, tab_table = page.sections(["The three id rows", "How each part is numbered",
                                                        "Token table"])
        with page.side:  # the model and what the open tab's figure answers to beside it, then the model's source
            picks, sizes, note = st.container(), st.container(), st.container()
        with picks:
            model, reading = multimodal_views.model_picker(note=note)
        parts = multimodal_views.sequence_controls(  # the rest of the sequence: folded
            model, side=sizes, more=page.more, beside=("vf", "fps") if tab_rules.open else ("ih", "iw"))
        spec, frame_text = multimodal_views.sequence(model, **parts)
        result = multimodal_views.ids_for(model, spec, frame_text)
        family = MM_FAMILIES[model.family]
        if tab_rows.open:
            with tab_rows:
                rows_section(model, result, spec, frame_text, parts)
        if tab_rules.open:
            with tab_rules:
                rules_section(model, family, result, spec, frame_text)
        if tab_table.open:
            with tab_table:
                table_section(result)
        if reading is not None:  # what a pasted config gave, under the figure
            reading_views.show_reading(reading)


def rows_figure(model, **parts) -> figures.Chart:
    """The three id rows of the sequence ``parts`` sets; the hero's frames are built here too."""
    spec, frame_text = multimodal_views.sequence(model, **parts)
    result = multimodal_views.ids_for(model, spec, frame_text)
    ids = result.ids  # (3, n)
    n = ids.shape[1]
    return figures.padded(figures.lines(
        list(range(n)), {"time": ids[0], "height": ids[1], "width": ids[2]},
        title=f"{model.name}: the three position ids of each of the {n} tokens", x_title="token index",
        y_title="position id", markers=True, vlines=multimodal_views.segment_marks(result, spec), height=420,
        hover_format=".2f", colours=multimodal_views.AXIS_COLOURS, dashed=("time",), name="mm_id_rows",
        alt=f"Three step curves over the {n} tokens. On text they coincide and climb by one per token; over the "
            "image the time id stays flat while the height id steps once per row and the width id sweeps each "
            "row; the video repeats that per frame."))


def rows_section(model, result, spec, frame_text, parts):
    part = next(p for p in parse_segments(spec) if p.kind == "image")
    # the image's rows and columns first: beside the figure, they are the sliders a hand that has not moved yet takes
    show(hero(rows_figure, **{"ih": parts["ih"], "iw": parts["iw"]} | parts, model=model))
    ids_code(model, spec, frame_text, "# (3, n): the time, height and width id of every token (the curves)",
             "ids = result.ids")
    ask_wider(model, part.h, part.w)
    summary = mm_sequence_summary(result)
    video_top, next_id = summary.video_top_time, summary.after_video
    notice(f"Text tokens carry three equal ids, so a text-only prompt is ordinary 1D RoPE. The image costs "
           f"{summary.image_tokens} tokens, yet the text after it goes on from a far smaller id (the question "
           "above): the ids stay small and a long prompt with images stays inside the trained range. "
           f"A token appended now gets id {result.next_text:g} from `get_rope_index`; the first generated token "
           f"gets max + 1 = {result.next_generated:g} (the model's rope delta)."
           + (f" Here the video's time ids reach {video_top:g} while the token right after the video gets "
              f"{next_id:g}: in transformers 5.23 text after a video continues from the largest row or column id, "
              "not from the largest time id (transformers 4.x, and Qwen3-Omni's code here, continue after the "
              "largest id of any row)." if video_top is not None and video_top > next_id else ""))
    sound, frames = summary.video_audio, summary.frame_times
    if sound:
        notice(f"With its sound, the video brings {sound.count} audio tokens. Each takes one id, counting up "
               f"from the video's start ({sound.first:g} to {sound.last:g}), while the frames' time ids run "
               f"from {frames[0]:g} to {frames[1]:g}; the model puts every frame before the audio tokens whose ids "
               "are at least its time id, so sound and picture are interleaved by time (TMRoPE). All three rows of "
               "an audio token are equal, like text.")
    if summary.first_image:
        t, h, w = summary.first_image
        formula(r"\text{first image token: } (t, h, w) = ($t, $h, $w) = \text{start} + (0,\ \text{row},\ "
                r"\text{column}),\quad \text{start} = $s", t=t, h=h, w=w, s=t)


def ask_wider(model, h: int, w: int) -> None:
    """A what-if about the figure above: twice the columns, how far does the next text's id move?"""
    what_if = mm_wider_image(model.family, h, w)
    now, wider, added = what_if.now, what_if.wider, what_if.added_tokens
    # the candidates: unchanged, one more id per added token, and the family's own rule (whichever it is)
    named = {now: "as now", now + added: "one more per added token"}
    values, cols = what_if.candidates, what_if.columns

    def reveal() -> str:
        return (f"The text after a {h} × {cols} image starts {wider:g} ids after the image's first id, "
                f"{'up from' if wider > now else 'the same as'} {now:g} for {h} × {w}: max({h}, {cols}) = "
                f"{what_if.larger_side}. The {added} added tokens cost ids only where they make the larger side "
                "longer.")

    with classroom.predict("mm_ids_wider", f"Give the image twice the columns: {h} × {cols}, {added} more tokens. "
                           f"How many ids after the image's first id does the next text then start (now {now:g})?",
                           [f"{v:g}" + (f" ({named[v]})" if v in named else "") for v in values],
                           values.index(wider), reveal):
        formula(r"\text{next text id} - \text{first image id}:\quad $now\ ($h\times $w)\ \to\ "
                r"$wider\ ($h\times $w2)", now=now, h=h, w=w, wider=wider, w2=cols)


def ids_code(model, spec: str, frame_text: int, *lines: str) -> None:
    """The call behind this page's ids, with the model's values (a pasted config's included)."""
    classroom.snippet(f"result = pc.mm_position_ids(\n    {model.family!r}, pc.multimodal.parse_segments({spec!r}),\n"
                      f"    frame_text={frame_text}, n_window={model.n_window}, "
                      f"tokens_per_second={model.tokens_per_second!r},\n"
                      f"    position_id_per_seconds={model.position_id_per_seconds!r})", *lines)


RULES = {
    "frame_index": "Each temporal patch (2 frames) takes the next time id: t = start + k. Time counts frames, "
                   "so the same clip at a higher fps spreads over more ids.",
    "seconds": "Time ids follow seconds: t = start + int(k · tokens_per_second · 2 / fps), so the ids keep "
               "the same spacing in seconds whatever the fps (about tokens_per_second ids per second).",
    "text_timestamps": "Every frame is numbered like its own image, t = start of that frame, and the processor "
                       "writes the time stamp as text between frames. Time is carried by the text and by the "
                       "growing start, not by the time axis.",
    "omni_seconds": "Time ids follow seconds, t = start + k · (2 / fps) · position_id_per_seconds, kept as "
                    "fractions; a video's sound uses one id per audio token on the same time axis, and audio and "
                    "video tokens are interleaved in order of time.",
}


def rules_section(model, family, result, spec, frame_text):
    st.markdown(f"**Text.** Every text token gets (p, p, p) with p one more than the previous text token.  \n"
                f"**Images.** All patches get t = start; row r gets h = start + r, column c gets w = start + c. "
                f"The next text continues at start + max(rows, columns).  \n"
                f"**Video ({family.name}).** {RULES[family.time_rule]}")
    part = next(p for p in parse_segments(spec) if p.kind == "video")
    groups = mm_video_groups(result, part.fps)
    show(figures.padded(figures.lines(
        groups.seconds, {"time id of the group": groups.time_ids}, markers=True,
        title=f"{family.name}: the time id of each temporal group of the video ({part.frames} frames at "
              f"{part.fps:g} fps)", x_title="seconds into the video",
        y_title="time id", colours={"time id of the group": 0}, height=340, name="mm_video_time_ids",
        alt="The time id of each group of two frames against its time in seconds.")))
    ids_code(model, spec, frame_text, "video = result.kind == 2  # the video's tokens",
             "# their time ids; each group's id repeats over its rows x columns", "time = result.ids[0, video]")
    steps = ", ".join(f"{s:g}" for s in groups.steps[:6])
    notice(f"Here the time id moves by {steps or 'nothing (one group)'} from one "
           f"group of two frames to the next ({groups.group_seconds:g} s apart). Change the fps: "
           + ("the steps stay tied to seconds." if family.time_rule in ("seconds", "omni_seconds") else
              "the steps do not change, because time here counts groups, not seconds."))
    if family.time_rule == "seconds":
        formula(r"t_k = \text{start} + \lfloor k \cdot $tps \cdot 2 / $fps \rfloor", tps=model.tokens_per_second or
                family.tokens_per_second, fps=part.fps)
    elif family.time_rule == "omni_seconds":
        formula(r"t_k = \text{start} + k \cdot (2 / $fps) \cdot $pips", fps=part.fps,
                pips=model.position_id_per_seconds or family.position_id_per_seconds)


def table_section(result):
    n = result.ids.shape[1]
    shown = min(n, 400)
    st.dataframe({"token": list(range(shown)), "kind": [multimodal_views.KIND_NAMES[k] for k in result.kind[:shown]],
                  "t": result.ids[0, :shown], "h": result.ids[1, :shown], "w": result.ids[2, :shown],
                  "frame group": result.cell[:shown, 0], "row": result.cell[:shown, 1],
                  "column": result.cell[:shown, 2]}, hide_index=True, width="stretch", height=360)
    st.caption(f"The first {shown} of {n} tokens; start and end tokens around each image or video are text. "
               "Row and column are the token's place in its image or frame (−1 for text and audio).")


lesson()
why(WHY)
source(pc.mm_position_ids, mm_image_advance, sequence._grid_ids, omni._omni_ids,
       omni._merge_by_time, omni_audio_tokens, label="Show the code that numbered the tokens")
