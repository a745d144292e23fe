"""The long_context section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


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


QUESTIONS = (
    Q("cp_long_context_unseen",
      N_("A RoPE model trained on L tokens is run, unscaled, on 4L. Which rotary pairs meet angles they never saw in "
         "training?"),
      (N_("the fastest pairs"),
       N_("every pair"),
       N_("none"),
       N_("the slowest pairs, which never completed a turn within L")), 3,
      N_("Fast pairs went round many times within L and have seen every angle. A pair whose angle stayed below 2π "
         "across L only saw part of its circle; at 4L its angle grows four times, into values the model never met. "
         "Those are the pairs extension methods slow down."), "extension"),
    Q("cp_long_context_dynamic",
      N_("In transformers, a dynamic-NTK model (L = 4,096, factor 4) runs a 12,288-token call, then a 6,144-token "
         "call. Which frequencies does the second call use?"),
      (N_("those cached for 12,288 tokens by the earlier, longer call"), N_("those computed for its own 6,144 tokens"),
       N_("the original, unscaled ones")), 0,
      N_("transformers' dynamic NTK keeps state: a call longer than any before recomputes the base and caches it, and "
         "a later, shorter call keeps those frequencies until one is shorter than L. The same prompt can be encoded "
         "differently depending on what ran before it."), "extension", dynamic_second_call),
    Q("cp_long_context_fastest",
      N_("Which of these context-extension methods slows down the fastest rotary pair (pair 0), the one that tells "
         "neighbouring tokens apart?"),
      (N_("NTK-aware"), N_("YaRN"), N_("Llama 3"), N_("position interpolation")), 3,
      N_("Position interpolation divides every pair by s, so even the fastest is slowed and local order blurs. "
         "NTK-aware, YaRN and Llama 3 keep the fast pairs at θ′/θ = 1 and concentrate the slowing on pairs that never "
         "completed a turn in training."), "extension_compare", slows_fastest_pair),
    Q("cp_long_context_trained",
      N_("Llama 3.1 8B's config declares max_position_embeddings 131,072 and a llama3 rope_scaling with factor 8 and "
         "original_max_position_embeddings 8,192. What context L was its rotation trained for?"),
      (N_("131,072"), N_("8,192"), N_("1,048,576 (131,072 × 8)")), 1,
      N_("For llama3, YaRN and LongRoPE, transformers builds the rule around original_max_position_embeddings and the "
         "factor, so L is 8,192. max_position_embeddings declares the length the model may be run at, not the length "
         "it was trained on."), "model_configs", llama31_trained_context),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_long_context_unseen": (
        N_("The fast pairs turn furthest, so they are the first to leave their training range"),
        N_("Any position past the training length is new to every pair alike"),
        N_("Rotations wrap around, so no angle can ever be new to the model"),
        None,
    ),
    "cp_long_context_dynamic": (
        None,
        N_("Dynamic NTK recomputes the base from each call's own length, with no memory of earlier calls"),
        N_("Any call shorter than the longest so far goes back to the original frequencies"),
    ),
    "cp_long_context_fastest": (
        N_("Changing the base slows the fastest pair as much as the slowest"),
        N_("YaRN's ramp reaches all the way down to the fastest pairs"),
        N_("Llama 3's rule divides every pair by the factor, like a plain stretch"),
        None,
    ),
    "cp_long_context_trained": (
        N_("max_position_embeddings is always the length the rotation was trained for"),
        None,
        N_("The factor multiplies the declared length once more to give the trained context"),
    ),
}
