"""The checks of the lab checkpoint (``CHECKPOINTS["lab"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


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
