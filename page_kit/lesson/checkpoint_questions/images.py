"""The images section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def resized_vit_rows() -> int:
    import posenc_core as pc

    table = pc.images.vit_position_table("sincos", 14, 32, num_prefix_tokens=1)  # 224 px / 16 px = 14
    resized = pc.images.resample_pos_embed(table, (14, 14), (24, 24), num_prefix_tokens=1)  # 384 px / 16 px = 24
    if pc.images.prefix_change(table, resized, 1) != 0:
        return -1
    return {197: 0, 577: 1, 576: 2}.get(int(resized.shape[0]), -1)


QUESTIONS = (
    Q("cp_images_flat",
      N_("Number a ViT's patches 0, 1, 2, … row by row and give them a 1D code. Which two patches get neighbouring "
         "numbers although they sit on opposite edges of the image?"),
      (N_("a patch and the one directly below it"),
       N_("the four corner patches"),
       N_("the last patch of a row and the first patch of the next")), 2,
      N_("In reading order the end of one row and the start of the next are one number apart, while the patch "
         "directly below is a whole row of numbers away. MAE's 2D code, half for the column and half for the row, "
         "turns 'near in the image' into 'similar vectors'."), "patches"),
    Q("cp_images_cross",
      N_("Under MAE's 2D sin-cos code, why does each patch's similarity map look like a bright cross centred on it?"),
      (N_("patches in its row share the row half of its code, patches in its column the column half"),
       N_("training drew the cross into the table"), N_("their reading-order numbers are close to its own")), 0,
      N_("Half of each vector encodes the column and half the row, so a patch in the same row matches one whole half "
         "before the other is counted. A diagonal neighbour differs in both halves, and the cross keeps its shape "
         "wherever the patch sits."), "patches"),
    Q("cp_images_resize",
      N_("A ViT trained at 224 × 224 px with 16-px patches and one [CLS] row is fine-tuned at 384 × 384 px. How many "
         "rows does its position table have after timm's resize?"),
      (N_("197: the table stays as trained"), N_("577: a 24 × 24 grid, plus the [CLS] row set aside unchanged"),
       N_("576: the [CLS] row is dropped")), 1,
      N_("The 14 × 14 grid is resized bicubically to 24 × 24, each channel like a small photo, and the [CLS] row is "
         "put back unchanged. Distances are kept in units of the image, not of patches, so fine-tuning still has to "
         "adapt."), "resize", resized_vit_rows),
    Q("cp_images_sigma",
      N_("Gaussian Fourier features: raise σ far beyond what the training samples can pin down. What happens to the "
         "fit?"),
      (N_("both the training and the held-out fits improve"),
       N_("the training fit stays perfect while the held-out samples fill with wiggles or speckle"),
       N_("the network can no longer fit its training samples")), 1,
      N_("σ scales every random frequency, so it sets how fast the fastest features swing. Frequencies far above what "
         "the samples pin down let the network wiggle freely between them: the training points are still matched, the "
         "unseen ones are not."), "fourier"),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_images_flat": (
        N_("A reading-order number keeps a patch close to the one directly below it"),
        N_("A flattened code wraps the whole image into a ring, corner to corner"),
        None,
    ),
    "cp_images_cross": (
        None,
        N_("The 2D sin-cos code is learned from data, not computed"),
        N_("The 2D code still numbers the patches in reading order"),
    ),
    "cp_images_resize": (
        N_("A position table keeps its trained size, whatever the image size"),
        None,
        N_("The prefix rows are no longer needed once the grid is resized"),
    ),
    "cp_images_sigma": (
        N_("Faster features can only add detail, so every fit improves"),
        None,
        N_("Very fast features make the training samples impossible to match"),
    ),
}
