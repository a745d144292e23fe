"""The checks of the absolute checkpoint (``CHECKPOINTS["absolute"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


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
