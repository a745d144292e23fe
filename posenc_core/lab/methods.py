"""The positional methods the lab compares: a registry from name to what it is and how it runs.

Six are trained (one model each); three are the RoPE model evaluated with a context-extension
rule applied only at inference, as a model is extended without fine-tuning. torch-free.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LAB_METHODS", "TRAINED_METHODS", "LabMethod"]


@dataclass(frozen=True)
class LabMethod:
    label: str  # what the legend says
    short: str  # for small panel titles
    where: str  # "embedding" (added to the input), "attention" (inside every attention layer) or "none"
    trained_as: str  # the trained model it uses: itself, or "rope" for the inference-only variants
    rope_type: str | None = None  # rope_scaling type applied beyond the training length (variants only)
    summary: str = ""


LAB_METHODS: dict[str, LabMethod] = {
    "none": LabMethod("none (NoPE)", "NoPE", "none", "none",
                      summary="Only the causal mask; any sense of position must be inferred from it."),
    "sinusoidal": LabMethod("sinusoidal (added)", "sinusoidal", "embedding", "sinusoidal",
                            summary="The fixed sine/cosine table added to the token embeddings."),
    "learned": LabMethod("learned absolute", "learned", "embedding", "learned",
                         summary="A trained table with one row per position 0..T-1; nothing exists beyond T."),
    "rope": LabMethod("RoPE", "RoPE", "attention", "rope",
                      summary="Queries and keys rotated by position (base 10000, rotate_half layout)."),
    "alibi": LabMethod("ALiBi", "ALiBi", "attention", "alibi",
                       summary="A fixed penalty slope x distance on the scores, one slope per head."),
    "t5": LabMethod("T5 buckets", "T5", "attention", "t5",
                    summary="A learned scalar per head for each of 32 causal distance buckets (max distance 128)."),
    "rope_pi": LabMethod("RoPE + PI", "RoPE+PI", "attention", "rope", "linear",
                         summary="The RoPE model; at length L > T every frequency is divided by L / T."),
    "rope_ntk": LabMethod("RoPE + NTK", "RoPE+NTK", "attention", "rope", "ntk",
                          summary="The RoPE model; at L > T the base is stretched by (L/T)^(d/(d-2))."),
    "rope_yarn": LabMethod("RoPE + YaRN", "RoPE+YaRN", "attention", "rope", "yarn",
                           summary="The RoPE model; at L > T YaRN's ramp interpolates the slow pairs only and "
                                   "scales the logits by its attention factor."),
}

TRAINED_METHODS = tuple(name for name, m in LAB_METHODS.items() if m.trained_as == name)
