"""The encoders section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def deberta_far_rows() -> int:
    import posenc_core as pc

    facts = pc.encoders.deberta_table_facts()  # DeBERTa v3's defaults
    rows = [min(int(b) + facts.span, facts.rows - 1) for b in pc.encoders.deberta_bucket([600, 1000])]
    return 0 if rows[0] == rows[1] == facts.rows - 1 and facts.last_row_from <= 600 else 1


def modernbert_local_keys() -> int:
    import posenc_core as pc

    return {129: 1, 128: 0, 257: 3}.get(pc.encoders.modernbert_keys_seen(1000, 500), -1)


QUESTIONS = (
    Q("cp_encoders_terms",
      N_("DeBERTa scores content → content, content → position and position → content. Which term reads the key's "
         "content and the distance, but not the query's content?"),
      (N_("content → content"), N_("content → position"), N_("position → content")), 2,
      N_("Position → content scores the key's content against the relative vector of the bucket δ(i, j), so it "
         "depends only on the key and the bucket. Content → position depends only on the query and the bucket: two "
         "keys in one bucket get the same value from it."), "deberta"),
    Q("cp_encoders_far",
      N_("DeBERTa v3 (256 buckets, max_relative_positions 512) reads keys 600 and 1,000 tokens before the query. "
         "Which rows of its relative table do they use?"),
      (N_("the same row: the table's last, shared by every far key"), N_("two different log-bucket rows"),
       N_("rows 600 and 1,000, taken modulo 512")), 0,
      N_("The bucket function keeps growing, but the gather clamps its index to the table: past the table's reach "
         "every key reads the last row, one row for 'far', like T5's last bucket. Distances up to 128 keep their own "
         "row."), "deberta", deberta_far_rows),
    Q("cp_encoders_window",
      N_("ModernBERT's config says `local_attention: 128`. Which keys does a token in the middle of a long input see "
         "in a local layer?"),
      (N_("the 128 tokens before it, as in a causal window"), N_("64 tokens before it, 64 after it, and itself"),
       N_("every token of the input"), N_("128 tokens on each side, and itself")), 1,
      N_("An encoder has no causal mask, so the window reaches both ways: 128 counts the window without the token, "
         "64 on each side. Every third layer is global, sees all keys and rotates with a much larger base."),
      "modernbert", modernbert_local_keys),
    Q("cp_encoders_xl",
      N_("Shaw's relative term stops changing past the clipping distance k. What do Transformer-XL's position terms "
         "do for keys further away?"),
      (N_("they keep changing: R is a sinusoid of the exact distance"), N_("they stop changing too, past a clip"),
       N_("they fall linearly with the distance, like ALiBi")), 0,
      N_("Transformer-XL projects a fixed sinusoid R_(i−j) of the exact distance through a learned W_R, so every "
         "distance has its own vector and the model can run on any length, with memory from earlier segments."),
      "xl_relative"),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_encoders_terms": (
        N_("The content term alone already carries the distance between the tokens"),
        N_("Content to position reads the key's content rather than the query's"),
        None,
    ),
    "cp_encoders_far": (
        None,
        N_("Log buckets keep separating distances however far apart they are"),
        N_("A relative table wraps around past its last row"),
    ),
    "cp_encoders_window": (
        N_("A local window always looks back only, as in a decoder"),
        None,
        N_("Every layer of an encoder attends to the whole input"),
        N_("The window size counts the keys on each side, not both sides together"),
    ),
    "cp_encoders_xl": (
        None,
        N_("Every relative scheme clips far distances to one shared vector"),
        N_("A relative position term must fall in a straight line with the distance"),
    ),
}
