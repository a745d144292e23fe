"""The checks of the inference checkpoint (``CHECKPOINTS["inference"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


def text_positions_past_context() -> int:
    import posenc_core as pc

    past = pc.inference.streaming_summary(pc.inference.shipped_streaming()).past
    rise = past["text4"] - past["sink4"]  # 4 sinks, keys rotated at text positions against cache positions
    return 1 if rise > 1 else 0 if abs(rise) <= 0.1 else 2 if rise < 0 else -1
