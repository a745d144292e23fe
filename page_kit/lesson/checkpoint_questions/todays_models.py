"""The checks of the todays_models checkpoint (``CHECKPOINTS["todays_models"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


def gemma3_slowest_kind() -> int:
    import posenc_core as pc

    ratio = pc.todays_models.local_global_view("Gemma 3 27B").slowest_ratio  # full layers' over local layers'
    return 1 if ratio > 1.0001 else 0 if ratio < 0.9999 else 2
