"""The multimodal section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def qwen2vl_image_advance() -> int:
    import posenc_core as pc

    advance = pc.multimodal.mm_image_advance("qwen2_vl", 8, 12).advance
    return {96: 0, 12: 1, 8: 2, 20: 3}.get(int(advance), -1)


def qwen2vl_slowest_axis() -> int:
    import posenc_core as pc

    return int(pc.multimodal.mm_pair_axes(pc.multimodal.mm_rope_settings("qwen2_vl"))[-1])  # 0 time, 1 h, 2 w


def same_last_time_id() -> int:
    import posenc_core as pc

    last = pc.multimodal.mm_time_id_table(32, [2.0, 4.0], ["qwen2_vl", "qwen2_5_vl"]).last
    same = {family: last[(family, 2.0)] == last[(family, 4.0)] for family in ("qwen2_vl", "qwen2_5_vl")}
    return {(False, True): 0, (True, False): 1, (True, True): 2, (False, False): 3}[
        (same["qwen2_vl"], same["qwen2_5_vl"])]


QUESTIONS = (
    Q("cp_multimodal_advance",
      N_("In Qwen2-VL, an image of 8 rows × 12 columns of tokens (96 tokens) starts at id s. At which id does the "
         "text after it start?"),
      (N_("s + 96"), N_("s + 12"), N_("s + 8"), N_("s + 20")), 1,
      N_("All the image's tokens share the time id s, row r gets s + r and column c gets s + c, and the next text "
         "continues at s + max(rows, columns). The ids stay small, so a long prompt with images stays inside the "
         "trained range."), "mm_position_ids", qwen2vl_image_advance),
    Q("cp_multimodal_width",
      N_("Qwen2-VL cuts each head's rotary pairs into contiguous blocks for time, height and width, fastest first. "
         "Which axis gets the slowest pairs?"),
      (N_("time"), N_("height"), N_("width")), 2,
      N_("Time takes the fastest block, height the next and width only the slowest pairs, which barely turn across an "
         "image a few dozen tokens wide, so neighbouring columns look alike. Qwen3-VL's interleaved cycle gives every "
         "axis fast and slow pairs."), "mm_pair_axes", qwen2vl_slowest_axis),
    Q("cp_multimodal_fps",
      N_("The same 32 frames sampled at 2 fps and at 4 fps. Under which model does the last frame group get the same "
         "time id in both clips?"),
      (N_("Qwen2.5-VL, whose time ids follow seconds"),
       N_("Qwen2-VL, whose time ids count groups of frames"),
       N_("both"),
       N_("neither")), 1,
      N_("Qwen2-VL gives each group of 2 frames the next time id, whatever their spacing in seconds, so one id means "
         "a different time at each fps. Qwen2.5-VL's ids follow seconds, so the 4 fps clip, half as long, ends at a "
         "smaller id."), "mm_scores", same_last_time_id),
    Q("cp_multimodal_vision",
      N_("Vision towers such as Qwen's use axial 2D RoPE. Which of a head's rotary pairs turn with a patch's column?"),
      (N_("half of them, at the same frequencies as the row's half"),
       N_("every pair, with the patch's number in reading order"),
       N_("only the slowest pairs")), 0,
      N_("Axial 2D RoPE turns half of each head's pairs by the patch's row and half by its column, each half an "
         "ordinary RoPE. A reading-order number would make the end of one row a neighbour of the start of the next."),
      "vision_rope"),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_multimodal_advance": (
        N_("Each image token costs one position id, as a text token does"),
        None,
        N_("The next text starts after the image's rows, whatever its width"),
        N_("The ids an image costs add up its rows and its columns"),
    ),
    "cp_multimodal_width": (
        N_("Time changes slowly in a video, so it must own the slowest pairs"),
        N_("The middle block of the head holds the slowest pairs"),
        None,
    ),
    "cp_multimodal_fps": (
        N_("Time ids that follow seconds give the same last id at any frame rate"),
        None,
        N_("Every model numbers a clip's frame groups the same way, whatever the seconds"),
        N_("Time ids always change with the frame rate, in every model"),
    ),
    "cp_multimodal_vision": (
        None,
        N_("A vision tower numbers its patches in reading order, like the tokens of a text"),
        N_("Columns only need slow pairs, since an image is only a few patches wide"),
    ),
}
