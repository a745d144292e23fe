"""The attention_bias section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def alibi_first_slope() -> int:
    import posenc_core as pc

    slopes = [float(s) for s in pc.alibi_slopes(16)]
    if abs(slopes[0] - 2 ** -0.5) < 1e-6 and abs(slopes[-1] - 2 ** -8) < 1e-9:
        return 1
    return 0 if abs(slopes[0] - 0.5) < 1e-6 else 2 if abs(slopes[0] - 2 ** -8) < 1e-9 else -1


def t5_far_buckets() -> int:
    import numpy as np

    import posenc_core as pc

    near, far = (int(b) for b in pc.t5_relative_position_bucket(np.array([-200, -2000])))
    return 0 if near == far else 1


QUESTIONS = (
    Q("cp_attention_bias_slope",
      N_("A model with 16 ALiBi heads uses the slopes of the authors' code. What is head 1's slope?"),
      (N_("1/2, then 1/4, 1/8, … down to 1/2^16"), N_("about 0.707 (2^(−1/2)), halving every second head"),
       N_("1/256, the gentlest")), 1,
      N_("The first slope is 2^(−8/n) for n heads and the last is always 2^(−8) = 1/256. The rule 1/2, 1/4, … holds "
         "only for 8 heads; with 16 the sequence starts gentler and steps down more finely."), "alibi",
      alibi_first_slope),
    Q("cp_attention_bias_far",
      N_("T5's default buckets (32 buckets, max_distance 128, bidirectional). Two keys sit 200 and 2,000 tokens before "
         "the query: how do their biases compare?"),
      (N_("exactly the same: they share the last bucket"), N_("a little different: log-spaced buckets"),
       N_("the farther key's is about ten times lower")), 0,
      N_("Everything past max_distance lands in one last bucket, so T5 gives a token 200 and a token 2,000 positions "
         "away the same bias: only their content differs. The table stays small and runs on longer inputs, at the "
         "price of no fine position far away."), "t5", t5_far_buckets),
    Q("cp_attention_bias_nope",
      N_("A causal decoder with no positional encoding at all. Can its outputs still depend on position?"),
      (N_("yes: the causal mask makes each output a mean over a growing prefix"),
       N_("no: without an encoding attention is blind to order"),
       N_("only where the tokens differ in content")), 0,
      N_("With equal scores, position i gives each of its i + 1 keys the weight 1/(i + 1): the first token's share is "
         "an exact position counter, even when every token after the first is the same. The signal is real but blurry, "
         "and fades with distance."), "nope"),
    Q("cp_attention_bias_shaw",
      N_("Why do Shaw et al.'s relative vectors sit awkwardly with a KV cache?"),
      (N_("the stored keys must be rewritten every time a token is added"),
       N_("it does not: keys are cached with their position already in them, as with RoPE"),
       N_("each cached key's relative term depends on its distance to the new query, so it is recomputed at every "
          "step")), 2,
      N_("The cache can only hold plain k_j: the table row added to a key depends on who reads it. The stored keys do "
         "not change, but each decoding step adds a different row for every cached token (and again on the value "
         "side), outside the usual fused kernels."), "shaw"),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_attention_bias_slope": (
        N_("ALiBi's slopes are one over two to the head number, whatever the head count"),
        None,
        N_("Head 1 is the gentlest head, as if the slopes rose from the first head to the last"),
    ),
    "cp_attention_bias_far": (
        None,
        N_("T5's log buckets keep growing with the distance, with no last bucket for everything far"),
        N_("T5's bias falls in proportion to the distance, like ALiBi's penalty"),
    ),
    "cp_attention_bias_nope": (
        None,
        N_("With no encoding, attention cannot see order even under a causal mask"),
        N_("Position can only show through differences in content, never through the mask"),
    ),
    "cp_attention_bias_shaw": (
        N_("The cached keys themselves change whenever a new token arrives"),
        N_("Every relative scheme bakes position into the stored key, as RoPE does"),
        None,
    ),
}
