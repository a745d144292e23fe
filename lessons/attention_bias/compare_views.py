"""The words of the comparison page (Compare all encodings): each family's name, how it places position, what its
parameter count is, how it decays and copes with longer inputs, and the names of the score curves.

The core gives the families as codes (``pc.attention_bias.METHODS``, ``CURVES``) and their parameter counts as
numbers; this module turns them into the table and the legend the page shows.
"""

from __future__ import annotations

from typing import NamedTuple


class MethodWords(NamedTuple):
    """One row of the comparison table, in words: every column but the count."""

    name: str
    injected: str  # where position enters the model
    parameters: str  # the count as a formula
    operation: str
    decay: str  # how the position signal changes with distance
    best_for: str
    extrapolation: str  # inputs longer than the training length


METHOD_WORDS: dict[str, MethodWords] = {
    "sinusoidal": MethodWords(
        "Sinusoidal", "added to the token embeddings, once, at the input", "0", "addition of a fixed vector",
        "implicit: PE(i)·PE(j) falls with |i − j| but ripples, and content terms mix in",
        "encoders with a known maximum length; the classic baseline",
        "weak: the table exists for any position, but the model never saw those vectors"),
    "learned": MethodWords(
        "Learned absolute", "added to the token embeddings, once, at the input", "L_max × d_model",
        "addition of a trained vector (a table lookup)", "whatever training produced",
        "short, fixed-length inputs (BERT, GPT-2, ViT)", "none: positions at or past L_max have no row in the table"),
    "rope": MethodWords(
        "RoPE", "rotates the queries and keys in every attention layer", "0",
        "rotation (multiplication) of (q, k) pairs by position × frequency",
        "implicit: RoFormer's upper bound on |q·k| falls with distance, with ripples",
        "decoder LLMs (Llama, Mistral, Qwen); works with a plain KV cache",
        "degrades past the training length unless rescaled (PI, NTK, YaRN, …)"),
    "alibi": MethodWords(
        "ALiBi", "added to the attention logits in every layer", "0 (fixed slopes)",
        "addition of −m_h × distance (subtracts a penalty)", "explicit: linear in distance, one slope per head",
        "long inputs at inference time (BLOOM, MPT)",
        "graceful: a longer input only meets larger penalties, so heads stay local"),
    "t5": MethodWords(
        "T5 buckets", "added to the attention logits (T5: one table per stack, shared by its layers)",
        "num_buckets × n_heads", "addition of a learned scalar per distance bucket",
        "learned; exact for short distances, log-spaced further out, flat past max_distance",
        "encoder-decoder models (T5, Flan-T5)", "fair: every far distance shares the last bucket's bias"),
    "shaw": MethodWords(
        "Shaw relative", "added to the keys and values inside attention", "2 × (2k + 1) × d_head per layer",
        "addition of a learned vector per clipped distance to k_j and v_j",
        "learned, clipped: every distance past k looks the same",
        "translation (the paper), music models; a KV cache is awkward",
        "length is fine, but order beyond k is invisible"),
    "nope": MethodWords(
        "NoPE", "nowhere: no encoding at all", "0", "none; a causal mask leaks some order", "none",
        "research on causal decoders", "mixed reports; trains more slowly and usually ends up worse"),
}

# the legend name of each curve of pc.attention_bias.score_curves
CURVE_LABELS = {"sinusoidal": "Sinusoidal: PE(0)·PE(r)", "rope": "RoPE: decay bound", "alibi": "ALiBi: −m·r",
                "t5": "T5: bucket bias"}

COUNT = "count for this model"


def comparison_table(counts: dict[str, int]) -> dict[str, list]:
    """The comparison as columns, one entry per family in ``counts``' order (``pc.attention_bias.
    parameter_counts``): its words, and its count for the model shape the counts are for."""
    rows = [METHOD_WORDS[key] for key in counts]
    return {
        "method": [w.name for w in rows],
        "how position is injected": [w.injected for w in rows],
        "parameters": [w.parameters for w in rows],
        COUNT: list(counts.values()),
        "operation": [w.operation for w in rows],
        "decay with distance": [w.decay for w in rows],
        "best for": [w.best_for for w in rows],
        "longer than training": [w.extrapolation for w in rows],
    }
