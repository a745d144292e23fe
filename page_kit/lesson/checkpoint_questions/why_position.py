"""The why_position section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def bit_3_flips() -> int:
    import posenc_core as pc

    column = pc.why_position.binary_codes(64, 6)[:, 3]
    first = next(p for p, bit in enumerate(column) if bit != column[0])  # the first position where bit 3 flips
    return {3: 0, 4: 1, 16: 2, 8: 3}.get(first, -1)


def integer_code_ratio() -> int:
    import posenc_core as pc

    narrow, wide = (float(pc.why_position.naive_norm_ratio(128, "integer", d)[100]) for d in (32, 256))
    if abs(narrow - wide) > 0.1 * narrow:
        return 3
    return 0 if narrow < 2 else 1 if narrow < 30 else 2 if narrow < 300 else -1


QUESTIONS = (
    Q("cp_why_position_pooled",
      N_("With no positional encoding, swap two words of a sentence, run one self-attention layer and mean-pool its "
         "outputs. How does the pooled summary compare with the original sentence's?"),
      (N_("it changes a little"), N_("it changes completely"), N_("it is the same, up to float rounding")), 2,
      N_("Attention is *permutation equivariant*: reordering the words only reorders the output rows, each moving "
         "with its word. A sum, a mean or a max ignores the order of what it summarises, so both sentences give the "
         "same summary."), "order"),
    Q("cp_why_position_set",
      N_("Each point of a point cloud carries its own (x, y, z) coordinates. Does a transformer over the points need a "
         "positional encoding for the order in which they are listed?"),
      (N_("no: the points form a set, and each one's place is already in its content"),
       N_("yes: without one it cannot tell the points apart")), 0,
      N_("Some inputs *are* sets. A point's coordinates are part of its content, so any order of listing the points "
         "should give the same result: there, attention without a positional encoding is exactly right."), "order"),
    Q("cp_why_position_integer",
      N_("Add the raw position p to every channel of a word embedding whose entries have size about 1. At position "
         "100, roughly how many times longer than the word's vector is the position code?"),
      (N_("about as long: both grow with the width"), N_("about 10 times (√100)"), N_("about 100 times"),
       N_("it depends on the width d")), 2,
      N_("The code p·1 has length p√d and the word about √d, so the width cancels and the ratio is p itself. At "
         "position 100 the position drowns the word: the first layer mostly sees 'how far along', barely 'which "
         "word'."),
      "naive", integer_code_ratio),
    Q("cp_why_position_bits",
      N_("Write each position in binary, bit 0 being the lowest. How often does bit 3 flip as the position counts up?"),
      (N_("every 3 positions"), N_("every 4 positions"), N_("every 16 positions"), N_("every 8 positions")), 3,
      N_("Bit k flips every 2^k positions and repeats every 2^(k+1): bit 3 is 0 for positions 0 to 7 and 1 for 8 to "
         "15. Each column alternates half as fast as the one before, the rhythm the sinusoidal encoding smooths into "
         "waves."), "binary", bit_3_flips),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_why_position_pooled": (
        N_("Attention notices word order a little, so a swap nudges the pooled summary"),
        N_("Attention reads word order by itself, so a swap gives the sentence a new summary"),
        None,
    ),
    "cp_why_position_set": (
        None,
        N_("Every transformer needs a positional encoding, whatever its input is"),
    ),
    "cp_why_position_integer": (
        N_("The integer code and the word grow alike with the width, so neither dominates"),
        N_("The integer code outweighs the word only by the square root of the position"),
        None,
        N_("The width sets how loud the integer code is next to the word"),
    ),
    "cp_why_position_bits": (
        N_("Bit k flips every k positions, as if the columns slowed down step by step, not by halves"),
        N_("Bit 3 is the third bit when the lowest is counted as bit 1"),
        N_("A bit flips once per whole period, both of its values together"),
        None,
    ),
}
