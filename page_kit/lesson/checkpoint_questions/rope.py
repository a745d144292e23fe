"""The checks of the rope checkpoint (``CHECKPOINTS["rope"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


def fastest_rope_pair() -> int:
    import math

    import posenc_core as pc

    inv_freq, _ = pc.rope_inv_freq(128, 10000.0)
    wavelengths = [2 * math.pi / float(f) for f in inv_freq]
    fastest = min(range(len(wavelengths)), key=wavelengths.__getitem__)
    if max(wavelengths) - min(wavelengths) < 1e-9:
        return 1
    return 2 if fastest == 0 and abs(wavelengths[0] - 2 * math.pi) < 0.01 else 0 if fastest == 63 else -1
