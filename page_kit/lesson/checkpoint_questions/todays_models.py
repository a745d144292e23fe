"""The todays_models section's checkpoint: its questions (``QUESTIONS``, in the order asked), the belief behind each
wrong option (``BELIEFS``, merged into ``misconceptions.MISCONCEPTIONS``) and the checks that compute a right
option from posenc_core (imported on call, so the tests prove the answer)."""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion as Q


def gemma3_slowest_kind() -> int:
    import posenc_core as pc

    ratio = pc.todays_models.local_global_view("Gemma 3 27B").slowest_ratio  # full layers' over local layers'
    return 1 if ratio > 1.0001 else 0 if ratio < 0.9999 else 2


QUESTIONS = (
    Q("cp_todays_models_slowest",
      N_("Gemma 3 27B rotates its sliding-window layers with base 10,000 and its full-attention layers with base "
         "1,000,000 and a linear factor of 8. Which kind's slowest rotating pair has the longer wavelength?"),
      (N_("the sliding-window layers'"), N_("the full layers'"), N_("neither: they are equal")), 1,
      N_("A local layer only compares tokens inside its window, so fast pairs are what it needs. A full layer needs "
         "slow pairs that do not wrap around over the long context, so that a far token is not mistaken for a near "
         "one."),
      "local_global", gemma3_slowest_kind),
    Q("cp_todays_models_sink",
      N_("GPT-OSS adds a learned sink logit to every row of the softmax and drops its column afterwards. What do a "
         "row's probabilities on the real keys add up to?"),
      (N_("exactly 1: softmax always hands out everything"),
       N_("more than 1"),
       N_("less than 1: the sink's share goes nowhere")),
      2,
      N_("The sink joins the softmax as one more column, so the real keys share what it leaves, and its column is "
         "thrown away before the values are mixed. A head with nothing relevant in view can attend to nothing, which "
         "matters most in sliding windows and streaming caches."), "attention_sinks"),
    Q("cp_todays_models_fraction",
      N_("Qwen3.5 (partial rotary) and Gemma 4's full layers (proportional RoPE) both set partial_rotary_factor to "
         "0.25. How do the frequencies they rotate with compare?"),
      (N_("partial rotary spans RoPE's whole range with fewer pairs; proportional keeps only RoPE's fastest pairs"),
       N_("they are the same: the same fraction gives the same frequencies"),
       N_("proportional keeps RoPE's slowest pairs, partial rotary its fastest")), 0,
      N_("Partial rotary puts the rotated size in θ's exponent, so its block runs from fast to RoPE's slowest speed. "
         "p-RoPE and proportional divide by the whole head_dim and zero the rest, keeping RoPE's fastest frequencies; "
         "only `rope_type` tells the two readings apart."), "fewer_frequencies"),
    Q("cp_todays_models_hybrid",
      N_("Hybrid models fill most layers with convolutions or recurrences that read the sequence in order. What do "
         "their attention layers do about positions?"),
      (N_("every hybrid drops positions from its attention"),
       N_("none drops them: attention always needs RoPE"),
       N_("some drop them (Kimi Linear, Nemotron-H), some keep RoPE (Qwen3-Next, Falcon-H1, LFM2)")), 2,
      N_("Convolutions and recurrences know order by construction, so attention may go without, and some hybrids do. "
         "Others keep RoPE: Qwen3-Next rotates a quarter of each head, Falcon-H1 and LFM2 the whole head, as "
         "transformers' modeling code shows."), "hybrids"),
)

BELIEFS: dict[str, tuple[str | None, ...]] = {
    "cp_todays_models_slowest": (
        N_("Local layers need the slowest pairs, as if a short window had to reach far"),
        None,
        N_("Every layer of a model shares one rotary setting"),
    ),
    "cp_todays_models_sink": (
        N_("Softmax over the real keys must still hand out all of its probability"),
        N_("The sink's logit adds probability on top of the real keys' share"),
        None,
    ),
    "cp_todays_models_fraction": (
        None,
        N_("A fraction of the head always means the same frequencies, whatever the rope type"),
        N_("p-RoPE drops the fast pairs and keeps the slow ones"),
    ),
    "cp_todays_models_hybrid": (
        N_("Having order-aware mixers means every hybrid removes RoPE from its attention"),
        N_("Attention layers always need their own positional encoding, even among recurrent layers"),
        None,
    ),
}
