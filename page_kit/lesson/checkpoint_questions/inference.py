"""The inference section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def text_positions_past_context() -> int:
    import posenc_core as pc

    past = pc.inference.streaming_summary(pc.inference.shipped_streaming()).past
    rise = past["text4"] - past["sink4"]  # 4 sinks, keys rotated at text positions against cache positions
    return 1 if rise > 1 else 0 if abs(rise) <= 0.1 else 2 if rise < 0 else -1


QUESTIONS = (
    Q("cp_inference_stored",
      N_("With RoPE, what does the KV cache hold for a past token?"),
      (N_("its key unturned; each step turns it by its distance to the new query"),
       N_("its key and its value, both turned by its position"),
       N_("its key already turned by its own position, and its value never turned")), 2,
      N_("Each key is turned once, by its position times θ, before it is stored; the new query is turned by its own "
         "position, so q·k sees only the difference. Nothing in the cache is turned again while θ stays fixed, and "
         "values carry no position."), "kv_cache"),
    Q("cp_inference_static",
      N_("Why do serving engines prefer a static rule such as YaRN to dynamic NTK?"),
      (N_("YaRN needs no KV cache at all"),
       N_("dynamic NTK changes θ as the sequence grows, so keys already cached were turned with other frequencies"),
       N_("dynamic NTK rotates the values too")), 1,
      N_("YaRN's frequencies and attention factor are fixed by the config, so a key written at any step is the key a "
         "full recompute writes. Under dynamic NTK each step past the cached length gives new frequencies to the new "
         "key and query only; cached keys keep their old turns."), "kv_cache"),
    Q("cp_inference_shift",
      N_("llama.cpp's context shift keeps n_keep tokens, drops the next n_discard and turns every later cached key "
         "back by n_discard. Whose distance to the newest token changes?"),
      (N_("only the kept first tokens': they come n_discard positions nearer"), N_("every cached token's"),
       N_("nobody's: the shift is invisible to the model")), 0,
      N_("The shifted keys all move back by the same amount, so they keep their offsets and score as in a context with "
         "room to spare, up to rounding. The kept first tokens stay put, so everything after them comes n_discard "
         "positions nearer."), "context_shift"),
    Q("cp_inference_text",
      N_("A streaming cache keeps 4 sinks but rotates every key at its position in the text instead of its place in "
         "the cache. In SmolLM2's shipped run, what happens to the loss past token 8,192?"),
      (N_("nothing: RoPE only sees distances"),
       N_("it rises by more than a nat: the sinks sit further back than any distance the model was trained on"),
       N_("it falls: text positions are the true ones")), 1,
      N_("StreamingLLM's code rotates keys at their place in the cache, so no distance passes the cache size. With "
         "text positions the sinks fall thousands of positions behind the window, and past 8,192 that is outside "
         "anything SmolLM2 was trained on."), "streaming", text_positions_past_context),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_inference_stored": (
        N_("A relative encoding must re-rotate the cached keys at every step"),
        N_("RoPE turns the values as well as the keys"),
        None,
    ),
    "cp_inference_static": (
        N_("Some scaling rules make the KV cache unnecessary"),
        None,
        N_("Dynamic NTK's trouble is that it turns the values too"),
    ),
    "cp_inference_shift": (
        None,
        N_("Every cached key moves relative to the newest token when the cache is shifted"),
        N_("Rotations compose, so a context shift changes no score at all"),
    ),
    "cp_inference_text": (
        N_("Counting positions in the text changes nothing, since RoPE only sees distances"),
        None,
        N_("The true text positions must read better than positions counted in the cache"),
    ),
}
