"""The checks of the long_context checkpoint (``CHECKPOINTS["long_context"]`` in page_kit.lesson.checkpoints): each
computes its question's right option from posenc_core, imported on call, so the tests prove the answer."""


def slows_fastest_pair() -> int:
    import posenc_core as pc

    methods = ("ntk", "yarn", "llama3", "linear")
    pair0 = pc.long_context.fastest_pair_when_doubled(methods, 128, 10000.0, 4096, 8.0).before
    slowed = [i for i, method in enumerate(methods) if pair0[method] < 0.999]
    return slowed[0] if len(slowed) == 1 else -1


def llama31_trained_context() -> int:
    import posenc_core as pc
    from posenc_core.configs import config_view

    return {131_072: 0, 8_192: 1, 1_048_576: 2}.get(config_view(pc.preset_config("llama3.1-8b"), None).original, -1)


def dynamic_second_call() -> int:
    import posenc_core as pc

    calls = pc.rope.rope_dynamic_calls(128, 10000.0, 4.0, 4096, [12_288, 6_144])
    used, fresh = float(calls.slowest_ratio[1]), float(calls.fresh_slowest_ratio[1])
    if calls.stale[1] and used == float(calls.slowest_ratio[0]):
        return 0
    return 1 if used == fresh else 2 if used == 1.0 else -1
