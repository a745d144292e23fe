"""The diffusion section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def flux_text_ids() -> int:
    import posenc_core as pc

    return 1 if not pc.diffusion.flux_text_ids(5).any() else -1


def qwen_image_corner() -> int:
    import posenc_core as pc

    before, after = (int(pc.diffusion.qwen_token_ids(1, 4, cols)[0, 2]) for cols in (8, 16))  # column id, top-left
    return 0 if after == before else 1 if after < before else 2


def keeps_fastest_width_pair() -> int:
    import posenc_core as pc

    methods = ("interpolate_ids", "linear_factor", "ntk_factor")
    kept = [i for i, m in enumerate(methods) if pc.diffusion.dit_resolution_view("FLUX.1-dev", 1024, 2048, m)
            .keeps_fastest]
    return kept[0] if len(kept) == 1 else 3 if not kept else -1


QUESTIONS = (
    Q("cp_diffusion_text",
      N_("In FLUX.1, every image token gets the ids (0, row, column). Which ids does every text token get?"),
      (N_("(0, p, p), counting up as in a language model"), N_("(0, 0, 0): all text sits at one place"),
       N_("(p, 0, 0): the first axis numbers the text")), 1,
      N_("FLUX.1 gives all text the ids (0, 0, 0), the top-left image token's place, so to the rotary the text sits "
         "at one spot; its order comes only from the T5 encoder that made it. FLUX.2 adds a fourth id that numbers "
         "the text."), "dit_image_ids", flux_text_ids),
    Q("cp_diffusion_corner",
      N_("Qwen-Image centres its ids on the picture. Make the picture twice as wide: what happens to the column id of "
         "its top-left token?"),
      (N_("it stays the same, as in FLUX"),
       N_("it moves further into the negative ids"),
       N_("it grows into larger ids")), 1,
      N_("Qwen-Image's ids run from minus half the size to half the size, so the centre keeps id 0 and a wider image "
         "pushes its left edge further into the negatives. FLUX counts from the corner, which keeps (0, 0) at every "
         "size."), "dit_image_ids", qwen_image_corner),
    Q("cp_diffusion_sd3",
      N_("Stable Diffusion 3 adds a fixed 2D sin-cos table made once for a large square grid. Which part of it does an "
         "image of h × w patches receive?"),
      (N_("the whole table, resized to h × w"), N_("its top-left h × w corner"), N_("the centred h × w window")), 2,
      N_("diffusers' `cropped_pos_embed` takes the h × w window in the table's middle: a small image sits in the "
         "centre, and a bigger one reaches cells smaller training images never read. An image larger than the table "
         "has no window and is refused."), "dit_sd3_grid"),
    Q("cp_diffusion_ntk",
      N_("A generator meets an image twice as wide as in training. Which remedy keeps the fastest width pair turning "
         "at its trained speed?"),
      (N_("interpolating the ids"), N_("linear_factor"), N_("ntk_factor"), N_("none of them")), 2,
      N_("ntk_factor multiplies θ: the fastest pair keeps its speed and the slowest is slowed. Interpolated ids and "
         "linear_factor slow every pair alike: each angle stays familiar, but neighbouring tokens come closer than any "
         "two did in training."), "dit_resolution", keeps_fastest_width_pair),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_diffusion_text": (
        N_("Text in a diffusion transformer is numbered as in a language model"),
        None,
        N_("FLUX.1 uses its first id axis to count the text tokens"),
    ),
    "cp_diffusion_corner": (
        N_("Every image generator counts its ids from the image's corner"),
        None,
        N_("A wider image moves every column id up, the left edge included"),
    ),
    "cp_diffusion_sd3": (
        N_("The position table is resampled to fit each image, as a ViT grid is"),
        N_("A crop always starts at the table's first row and column"),
        None,
    ),
    "cp_diffusion_ntk": (
        N_("Squeezing the ids spares the fast pairs that compare neighbours"),
        N_("Dividing every frequency by one factor still spares the fastest pair"),
        None,
        N_("Every remedy for a larger image slows all the pairs alike"),
    ),
}
