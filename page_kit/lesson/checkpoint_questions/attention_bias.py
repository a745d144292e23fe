"""The checks of the attention_bias checkpoint (``CHECKPOINTS["attention_bias"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


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
