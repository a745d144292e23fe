"""The words of the comparison page (Compare all encodings): each family's name, how it places position, what its
parameter count is, how it decays and copes with longer inputs, and the names of the score curves.

The core gives the families as codes (``pc.attention_bias.METHODS``, ``CURVES``) and their parameter counts as
numbers; this module turns them into the table and the legend the page shows.
"""

from __future__ import annotations

from typing import NamedTuple

from page_kit import N_, _


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
        N_("Sinusoidal"), N_("added to the token embeddings, once, at the input"), "0",
        N_("addition of a fixed vector"),
        N_("implicit: PE(i)·PE(j) falls with |i − j| but ripples, and content terms mix in"),
        N_("encoders with a known maximum length; the classic baseline"),
        N_("weak: the table exists for any position, but the model never saw those vectors")),
    "learned": MethodWords(
        N_("Learned absolute"), N_("added to the token embeddings, once, at the input"), "L_max × d_model",
        N_("addition of a trained vector (a table lookup)"), N_("whatever training produced"),
        N_("short, fixed-length inputs (BERT, GPT-2, ViT)"),
        N_("none: positions at or past L_max have no row in the table")),
    "rope": MethodWords(
        "RoPE", N_("rotates the queries and keys in every attention layer"), "0",
        N_("rotation (multiplication) of (q, k) pairs by position × frequency"),
        N_("implicit: RoFormer's upper bound on |q·k| falls with distance, with ripples"),
        N_("decoder LLMs (Llama, Mistral, Qwen); works with a plain KV cache"),
        N_("degrades past the training length unless rescaled (PI, NTK, YaRN, …)")),
    "alibi": MethodWords(
        "ALiBi", N_("added to the attention logits in every layer"), N_("0 (fixed slopes)"),
        N_("addition of −m_h × distance (subtracts a penalty)"),
        N_("explicit: linear in distance, one slope per head"),
        N_("long inputs at inference time (BLOOM, MPT)"),
        N_("graceful: a longer input only meets larger penalties, so heads stay local")),
    "t5": MethodWords(
        N_("T5 buckets"), N_("added to the attention logits (T5: one table per stack, shared by its layers)"),
        "num_buckets × n_heads", N_("addition of a learned scalar per distance bucket"),
        N_("learned; exact for short distances, log-spaced further out, flat past max_distance"),
        N_("encoder-decoder models (T5, Flan-T5)"), N_("fair: every far distance shares the last bucket's bias")),
    "shaw": MethodWords(
        N_("Shaw relative"), N_("added to the keys and values inside attention"),
        N_("2 × (2k + 1) × d_head per layer"),
        N_("addition of a learned vector per clipped distance to k_j and v_j"),
        N_("learned, clipped: every distance past k looks the same"),
        N_("translation (the paper), music models; a KV cache is awkward"),
        N_("length is fine, but order beyond k is invisible")),
    "nope": MethodWords(
        "NoPE", N_("nowhere: no encoding at all"), "0", N_("none; a causal mask leaks some order"), N_("none"),
        N_("research on causal decoders"), N_("mixed reports; trains more slowly and usually ends up worse")),
}

# the legend name of each curve of pc.attention_bias.score_curves
CURVE_LABELS = {"sinusoidal": N_("Sinusoidal: PE(0)·PE(r)"), "rope": N_("RoPE: decay bound"),
                "alibi": N_("ALiBi: −m·r"), "t5": N_("T5: bucket bias")}

COUNT = N_("count for this model")


def comparison_table(counts: dict[str, int]) -> dict[str, list]:
    """The comparison as columns, one entry per family in ``counts``' order (``pc.attention_bias.
    parameter_counts``): its words in the reader's language, and its count for the model shape the counts are
    for. The columns keep their English names: the page translates them where it shows them."""
    rows = [METHOD_WORDS[key] for key in counts]
    return {
        N_("method"): [_(w.name) for w in rows],
        N_("how position is injected"): [_(w.injected) for w in rows],
        N_("parameters"): [_(w.parameters) for w in rows],
        COUNT: list(counts.values()),
        N_("operation"): [_(w.operation) for w in rows],
        N_("decay with distance"): [_(w.decay) for w in rows],
        N_("best for"): [_(w.best_for) for w in rows],
        N_("longer than training"): [_(w.extrapolation) for w in rows],
    }
