"""The checks of the multimodal checkpoint (``CHECKPOINTS["multimodal"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


def qwen2vl_image_advance() -> int:
    import posenc_core as pc

    advance = pc.multimodal.mm_image_advance("qwen2_vl", 8, 12).advance
    return {96: 0, 12: 1, 8: 2, 20: 3}.get(int(advance), -1)


def qwen2vl_slowest_axis() -> int:
    import posenc_core as pc

    return int(pc.multimodal.mm_pair_axes(pc.multimodal.mm_rope_settings("qwen2_vl"))[-1])  # 0 time, 1 h, 2 w


def same_last_time_id() -> int:
    import posenc_core as pc

    last = pc.multimodal.mm_time_id_table(32, [2.0, 4.0], ["qwen2_vl", "qwen2_5_vl"]).last
    same = {family: last[(family, 2.0)] == last[(family, 4.0)] for family in ("qwen2_vl", "qwen2_5_vl")}
    return {(False, True): 0, (True, False): 1, (True, True): 2, (False, False): 3}[
        (same["qwen2_vl"], same["qwen2_5_vl"])]
