"""The rope section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def fastest_rope_pair() -> int:
    import math

    import posenc_core as pc

    inv_freq, _ = pc.rope_inv_freq(128, 10000.0)
    wavelengths = [2 * math.pi / float(f) for f in inv_freq]
    fastest = min(range(len(wavelengths)), key=wavelengths.__getitem__)
    if max(wavelengths) - min(wavelengths) < 1e-9:
        return 1
    return 2 if fastest == 0 and abs(wavelengths[0] - 2 * math.pi) < 0.01 else 0 if fastest == 63 else -1


QUESTIONS = (
    Q("cp_rope_fastest",
      N_("Head dimension 128, base 10,000. Which rotary pair completes a full turn in the fewest positions?"),
      (N_("the last pair, pair 63"),
       N_("all pairs turn at the same speed"),
       N_("pair 0, about every 6.3 positions")), 2,
      N_("θ_i = base^(−2i/d), so pair 0 turns one radian per position, once every 2π positions, and each later pair "
         "is slower by the same factor. The slow, late pairs are the ones long-context methods rescale."), "rope",
      fastest_rope_pair),
    Q("cp_rope_decay",
      N_("RoFormer proves a bound on |q·k| that falls as the distance m − n grows. Which scores actually fade with "
         "distance?"),
      (N_("a query with an identical key; independent random q and k stay about flat"),
       N_("every query-key score, whatever q and k are"),
       N_("none: a rotation never changes a score")), 0,
      N_("The bound limits the score, loosely. An identical query and key start aligned and drift out of phase, so "
         "their score fades; independent random vectors already point in random directions, and turning a random "
         "direction gives another random direction."), "rope_relative"),
    Q("cp_rope_layouts",
      N_("You convert a checkpoint from Meta's interleaved RoPE layout to transformers' half-split layout. What must "
         "change in its weights?"),
      (N_("the rows of W_q and W_k inside every head are permuted"),
       N_("nothing: both layouts turn pair i by the same angle"),
       N_("W_q, W_k, W_v and W_o all get permuted")), 0,
      N_("The layout is baked into the trained weights: the half layout pairs dimension i with i + d/2, the "
         "interleaved one 2i with 2i + 1. Conversion permutes the rows of W_q and W_k in every head; W_v and W_o are "
         "untouched, since values are never rotated."), "rope_variants"),
    Q("cp_rope_values",
      N_("Inside a RoPE model's attention layer, which vectors are rotated?"),
      (N_("q, k and v"),
       N_("the token embedding, once before the first layer"),
       N_("only q"),
       N_("only q and k, in every layer")),
      3,
      N_("RoPE is a fixed step after the query and key projections and before their dot product, repeated in every "
         "layer with no parameters. The values carry no position, unlike the original Transformer's added vector, "
         "which flows into everything."), "rope_model"),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_rope_fastest": (
        N_("The late pairs are the fast ones, as if the frequency grew with the pair index"),
        N_("Every rotary pair turns by the same angle per position"),
        None,
    ),
    "cp_rope_decay": (
        None,
        N_("The decay bound describes every score, whatever the content of q and k"),
        N_("Rotating q and k by their positions leaves every score as it was"),
    ),
    "cp_rope_layouts": (
        None,
        N_("The same angle per pair makes the two layouts interchangeable without any reordering"),
        N_("Every projection touches positions, so all of them must be permuted"),
    ),
    "cp_rope_values": (
        N_("RoPE rotates the values too, as if position had to reach the output directly"),
        N_("RoPE is added once at the input, like an absolute encoding"),
        N_("Rotating the query alone would already make the score relative"),
        None,
    ),
}
