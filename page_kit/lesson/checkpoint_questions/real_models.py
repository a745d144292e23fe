"""The checks of the real_models checkpoint (``CHECKPOINTS["real_models"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


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
