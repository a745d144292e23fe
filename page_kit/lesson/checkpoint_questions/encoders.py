"""The checks of the encoders checkpoint (``CHECKPOINTS["encoders"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


def deberta_far_rows() -> int:
    import posenc_core as pc

    facts = pc.encoders.deberta_table_facts()  # DeBERTa v3's defaults
    rows = [min(int(b) + facts.span, facts.rows - 1) for b in pc.encoders.deberta_bucket([600, 1000])]
    return 0 if rows[0] == rows[1] == facts.rows - 1 and facts.last_row_from <= 600 else 1


def modernbert_local_keys() -> int:
    import posenc_core as pc

    return {129: 1, 128: 0, 257: 3}.get(pc.encoders.modernbert_keys_seen(1000, 500), -1)
