"""The checks of the why_position checkpoint (``CHECKPOINTS["why_position"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


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
