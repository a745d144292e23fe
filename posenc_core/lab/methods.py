"""The positional methods the lab compares: a registry from name to what it is and how it runs.

Six are trained (one model each); three are the RoPE model evaluated with a context-extension
rule applied only at inference, as a model is extended without fine-tuning. torch-free.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LAB_METHODS", "TRAINED_METHODS", "LabMethod"]


@dataclass(frozen=True)
class LabMethod:
    """A method of the lab (what each one does, in words, is the lab page's to say).

    label: what the legend says. short: a small panel's title. where: "embedding" (added to the input),
    "attention" (inside every attention layer) or "none". trained_as: the trained model it uses (itself, or
    "rope" for the inference-only variants). rope_type: the rope_scaling type applied beyond the training length
    (variants only).
    """

    label: str
    short: str
    where: str
    trained_as: str
    rope_type: str | None = None


LAB_METHODS: dict[str, LabMethod] = {
    "none": LabMethod("none (NoPE)", "NoPE", "none", "none"),
    "sinusoidal": LabMethod("sinusoidal (added)", "sinusoidal", "embedding", "sinusoidal"),
    "learned": LabMethod("learned absolute", "learned", "embedding", "learned"),
    "rope": LabMethod("RoPE", "RoPE", "attention", "rope"),
    "alibi": LabMethod("ALiBi", "ALiBi", "attention", "alibi"),
    "t5": LabMethod("T5 buckets", "T5", "attention", "t5"),
    "rope_pi": LabMethod("RoPE + PI", "RoPE+PI", "attention", "rope", "linear"),
    "rope_ntk": LabMethod("RoPE + NTK", "RoPE+NTK", "attention", "rope", "ntk"),
    "rope_yarn": LabMethod("RoPE + YaRN", "RoPE+YaRN", "attention", "rope", "yarn"),
}

TRAINED_METHODS = tuple(name for name, m in LAB_METHODS.items() if m.trained_as == name)
