"""The checks of the diffusion checkpoint (``CHECKPOINTS["diffusion"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


def flux_text_ids() -> int:
    import posenc_core as pc

    return 1 if not pc.diffusion.flux_text_ids(5).any() else -1


def qwen_image_corner() -> int:
    import posenc_core as pc

    before, after = (int(pc.diffusion.qwen_token_ids(1, 4, cols)[0, 2]) for cols in (8, 16))  # column id, top-left
    return 0 if after == before else 1 if after < before else 2


def keeps_fastest_width_pair() -> int:
    import posenc_core as pc

    methods = ("interpolate_ids", "linear_factor", "ntk_factor")
    kept = [i for i, m in enumerate(methods) if pc.diffusion.dit_resolution_view("FLUX.1-dev", 1024, 2048, m)
            .keeps_fastest]
    return kept[0] if len(kept) == 1 else 3 if not kept else -1
