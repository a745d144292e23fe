"""The absolute section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def slowest_sinusoidal_wavelength() -> int:
    import posenc_core as pc

    slowest = float(pc.absolute.sinusoidal_wavelengths(512, 10000.0)[-1])
    bands = ((400, 700), (8_000, 12_000), (50_000, 70_000), (5, 8))
    return next((i for i, (low, high) in enumerate(bands) if low < slowest < high), -1)


def rows_missing() -> int:
    import posenc_core as pc

    return 2 if pc.absolute.missing_rows(512, 600) == 600 - 512 else -1


def unscaled_width_doubling() -> int:
    import posenc_core as pc

    return ("same", "shrinks", "grows").index(pc.absolute.norm_ratio_doubling(256, "normal(0, 1/sqrt(d))", False))


QUESTIONS = (
    Q("cp_absolute_slowest",
      N_("The original Transformer's sinusoidal table with d = 512 and base 10,000: about how many positions long is "
         "the wavelength of its slowest pair?"),
      (N_("about 512"), N_("about 10,000"), N_("about 60,000"), N_("about 6.3")), 2,
      N_("Wavelengths grow geometrically from 2π for the first pair to 2π·base^((d−2)/d) for the last, almost 2π × "
         "10,000. The base, not the width, sets where the range ends; the width only fills it more densely."),
      "sinusoidal", slowest_sinusoidal_wavelength),
    Q("cp_absolute_offset",
      N_("Take two rows of the sinusoidal table, PE(i) and PE(j). What does their dot product depend on?"),
      (N_("the absolute positions i and j"), N_("only the offset i − j"), N_("only the larger of i and j")), 1,
      N_("PE(i)·PE(j) is a sum of cos((i − j)ω) over the pairs, so every diagonal of the dot-product grid has one "
         "colour. A fixed matrix also moves any row by k positions: the paper's argument that offsets are easy to "
         "attend to."), "sinusoidal"),
    Q("cp_absolute_rows",
      N_("A BERT-style model has a learned table of 512 position rows. What happens to an input of 600 tokens?"),
      (N_("rows wrap around: position 512 reuses row 0"),
       N_("the table extends its learned pattern to positions 512 to 599"),
       N_("positions 512 to 599 have no row, so the model refuses or truncates the input")), 2,
      N_("The rows past the table were never created, and nothing in it says what row 512 should be. That is why "
         "BERT-style models stop at 512 tokens; a formula such as the sinusoidal table can at least produce a row for "
         "any position."), "learned", rows_missing),
    Q("cp_absolute_width",
      N_("Token embeddings with entries of standard deviation 1/√d, *not* multiplied by √d, plus a sinusoidal row. "
         "Double the width d: what happens to ||position row|| / ||token embedding||?"),
      (N_("it stays the same"), N_("it shrinks by √2"), N_("it grows by √2")), 2,
      N_("A sinusoidal row has length √(d/2) at every position, while a token row with entries of size 1/√d has "
         "length about 1 whatever the width. The position's share grows like √d; the paper's × √d keeps the ratio "
         "fixed."), "token_position", unscaled_width_doubling),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_absolute_slowest": (
        N_("The slowest wave spans the model width, as if the columns counted positions"),
        N_("The slowest wavelength equals the base, without the factor of two pi"),
        None,
        N_("Every pair turns once per two pi positions, like the fastest pair"),
    ),
    "cp_absolute_offset": (
        N_("A fixed table gives every pair of positions its own unrelated similarity"),
        None,
        N_("The similarity of two rows is set by how far along the later one sits"),
    ),
    "cp_absolute_rows": (
        N_("Past its last row, a learned table wraps around and reuses its rows"),
        N_("A learned table extends its pattern past its last row, like a formula"),
        None,
    ),
    "cp_absolute_width": (
        N_("The width never moves the balance of position and word, whatever the init and the scaling"),
        N_("A wider model gives the word more room, so the position's share shrinks"),
        None,
    ),
}
