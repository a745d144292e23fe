"""The real_models section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def smollm2_energy() -> int:
    import posenc_core as pc

    found = pc.real_models.attention_findings(pc.real_models.shipped_attention_summary())
    return 2 if found.q_slow > 0.5 and found.k_slow > 0.5 else 1 if found.q_fast > 0.5 else -1


def smollm2_first_token() -> int:
    import posenc_core as pc

    found = pc.real_models.attention_findings(pc.real_models.shipped_attention_summary())
    share = found.sink_last_layers  # mean weight on the first token in the last layers
    return 1 if 0.35 < share < 0.75 else 0 if share < 2 * found.sink_uniform else -1


def costliest_inside() -> int:
    import posenc_core as pc

    change = pc.real_models.long_context_summary(pc.real_models.shipped_long_context()).inside_change
    return ("ntk", "yarn", "dynamic", "linear").index(max(change, key=change.__getitem__))


def costliest_bug() -> int:
    import posenc_core as pc

    run = pc.real_models.shipped_porting_bugs()
    change = {b: pc.real_models.porting_bug_summary(run, b).change for b in ("bf16_inv_freq", "left_pad", "p_rope")}
    return ("bf16_inv_freq", "left_pad", "p_rope").index(max(change, key=change.__getitem__))


QUESTIONS = (
    Q("cp_real_models_order",
      N_("What is all-MiniLM-L6-v2's only source of word order?"),
      (N_("its 512 learned position rows, added to the word vectors"),
       N_("its attention, which sees the order of the words"),
       N_("its mean pooling over the tokens")), 0,
      N_("Remove the rows and shuffling the words changes the sentence embedding only by float rounding: each token's "
         "vector just moves with its word. Its previous-token heads were built from the rows by training, and switch "
         "off without them."), "real_encoder"),
    Q("cp_real_models_energy",
      N_("SmolLM2-135M reading real text: where among its 32 rotary pairs does most of its query and key energy sit?"),
      (N_("spread evenly over the pairs"), N_("in the fastest pairs, which tell neighbours apart"),
       N_("in the slowest pairs, whose wavelength is longer than its whole 8,192-token context")), 2,
      N_("Measured on the shipped text, the slowest pairs, which turn less than once across the context, hold most of "
         "the query and key energy, so within the context they change little with position. The RoPE pages treat "
         "every pair alike; a trained model does not."), "real_frequencies", smollm2_energy),
    Q("cp_real_models_sink",
      N_("SmolLM2's last layers read a stretch of text that starts with an ordinary word. About how much of their "
         "attention goes to that first token?"),
      (N_("an even share, like any other token"), N_("about half of all their attention"),
       N_("almost none: it is the farthest token")), 1,
      N_("Softmax weights must sum to one, so a head with nothing to add parks its weight somewhere; the first token, "
         "seen by every query, is where training put it. The first layers give it almost nothing, the last ones about "
         "half."), "real_frequencies", smollm2_first_token),
    Q("cp_real_models_inside",
      N_("SmolLM2 reads 16,384 tokens with each extension method at s = 2, with no fine-tuning. Which method raises "
         "its loss most *within* the first 8,192 tokens?"),
      (N_("NTK-aware"), N_("YaRN"), N_("dynamic NTK"), N_("position interpolation")), 3,
      N_("Position interpolation slows every pair, the fast ones included, so even text inside the trained context "
         "reads differently and the loss rises there. NTK-aware, dynamic NTK and YaRN keep the fast pairs and barely "
         "change it."), "real_long_context", costliest_inside),
    Q("cp_real_models_bug",
      N_("Three porting bugs switched on in SmolLM2, one at a time, on the same 128 tokens. Which one raises its loss "
         "the most?"),
      (N_("inverse frequencies rounded to bfloat16"), N_("decoded tokens placed one position too far"),
       N_("p-RoPE's frozen pairs taken from the wrong half of the head")), 2,
      N_("Pairing the wrong dimensions changes every angle at every position, so the loss jumps at once. Rounded "
         "frequencies and an off-by-one position move the angles by an amount that grows with the position or stays "
         "at one step: over 128 tokens they barely show, though the one-line test catches each."), "porting_bugs",
      costliest_bug),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_real_models_bug": (
        N_("Any loss of precision in the frequencies wrecks a model at once, even over a short text"),
        N_("A position off by one throws every decoded token out of place"),
        None,
    ),
    "cp_real_models_order": (
        None,
        N_("Attention itself notices the order of the words it reads"),
        N_("Mean pooling weighs each token by where it sits"),
    ),
    "cp_real_models_energy": (
        N_("A trained model uses all of RoPE's pairs evenly"),
        N_("A model's position information lives mostly in its fastest pairs"),
        None,
    ),
    "cp_real_models_sink": (
        N_("A token with no special role gets only its even share of attention"),
        None,
        N_("Attention fades with distance, so the first token gets the least"),
    ),
    "cp_real_models_inside": (
        N_("Changing the base slows every pair, the fastest included"),
        N_("YaRN's attention factor costs loss at short range"),
        N_("Dynamic NTK distorts short inputs, although it leaves them unscaled"),
        None,
    ),
}
