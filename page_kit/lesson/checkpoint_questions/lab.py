"""The lab section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def learned_at_2t() -> int:
    import math

    import posenc_core as pc

    accuracy = pc.lab.lab_by_method(pc.lab.shipped_lab_results())["learned"]
    return 2 if accuracy[0] > 0.9 and all(math.isnan(a) for a in accuracy[1:]) else -1


def best_at_8t() -> int:
    import posenc_core as pc

    best = pc.lab.lab_longest_question(pc.lab.shipped_lab_results()).best
    return ("rope", "t5", "sinusoidal", "alibi").index(best)


def interpolation_at_2t() -> int:
    import posenc_core as pc

    accuracy = pc.lab.lab_by_method(pc.lab.shipped_lab_results())
    return 2 if accuracy["rope_pi"][1] < 0.5 * accuracy["rope"][1] else -1


QUESTIONS = (
    Q("cp_lab_learned",
      N_("In the lab, the model with a learned absolute table is trained at length T. What is its accuracy at 2T?"),
      (N_("about the same as at T"),
       N_("about chance"),
       N_("there is none: positions from T on have no row, so it cannot run")),
      2,
      N_("A sequence longer than T needs table rows that were never created, so the plot has no point past T rather "
         "than an invented one. The sinusoidal model can at least run there, though it too meets positions it never "
         "saw."), "lab", learned_at_2t),
    Q("cp_lab_longest",
      N_("In the lab's shipped run, trained at T and tested up to 8T, which of these keeps the highest accuracy at "
         "8T?"),
      (N_("RoPE"), N_("T5 buckets"), N_("sinusoidal (added)"), N_("ALiBi")), 3,
      N_("ALiBi's penalty grows with distance, so far keys fade out on their own and a longer sequence does not dilute "
         "its attention: its curve stays flat. RoPE and T5 hold at 2T and fade by 8T; the sinusoidal model, which "
         "learned places, falls at once."), "lab", best_at_8t),
    Q("cp_lab_pi",
      N_("Switched on at test time only, with no fine-tuning, position interpolation wrecks the lab's RoPE model at "
         "2T. Why?"),
      (N_("it brings parameters the model never trained"),
       N_("it keeps the fast pairs, so nothing changes for a 2-step offset"),
       N_("it divides every frequency, so the 2-step offset the model learned shrinks to a fraction of a step")), 2,
      N_("Position interpolation divides every frequency by the stretch, the fast pairs that carry short offsets "
         "included; it was designed to be followed by fine-tuning. NTK-aware scaling and YaRN keep the fast pairs "
         "almost unchanged and stretch only the slow ones."), "lab", interpolation_at_2t),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_lab_learned": (
        N_("A learned table carries what it learned over to positions it never saw"),
        N_("Past its table a learned model still runs, only badly"),
        None,
    ),
    "cp_lab_longest": (
        N_("RoPE is relative, so it extrapolates as well as any encoding"),
        N_("One shared bucket for all far distances makes T5 safe at any length"),
        N_("A formula gives a code for every position, so sinusoidal models extrapolate"),
        None,
    ),
    "cp_lab_pi": (
        N_("A context-extension method brings new weights that need training"),
        N_("Position interpolation spares the fast pairs, as NTK-aware scaling and YaRN do"),
        None,
    ),
}
