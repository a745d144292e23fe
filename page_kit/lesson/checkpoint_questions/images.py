"""The checks of the images checkpoint (``CHECKPOINTS["images"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


def resized_vit_rows() -> int:
    import posenc_core as pc

    table = pc.images.vit_position_table("sincos", 14, 32, num_prefix_tokens=1)  # 224 px / 16 px = 14
    resized = pc.images.resample_pos_embed(table, (14, 14), (24, 24), num_prefix_tokens=1)  # 384 px / 16 px = 24
    if pc.images.prefix_change(table, resized, 1) != 0:
        return -1
    return {197: 0, 577: 1, 576: 2}.get(int(resized.shape[0]), -1)
