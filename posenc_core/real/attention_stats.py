"""What SmolLM2's queries and keys do with RoPE, measured layer by layer on real text.

For each layer, from the normalised input the layer's attention sees, the queries and keys are made with the
layer's own ``q_proj``/``k_proj`` and rotated with transformers' ``apply_rotary_pos_emb`` (the code the model
runs); the scores are q.k / sqrt(64) under the causal mask, and the softmax of them is the attention the model
computes (a test checks it against transformers' eager attention weights). Per layer and head it keeps:

- the share of query and key energy in each rotary pair (pairs are dims (i, i + 32): the half layout),
- the mean attention weight and the mean raw score q.k at each offset m - n,
- how much of the score's spread the offset alone explains (R^2 of the score against the mean score at its
  offset: 1 for a score that depends on m - n only, 0 for one that ignores it),
- the mean weight on the first token (the attention sink) and on the previous token.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._checks import as_int

__all__ = [
    "MAX_STATS_TOKENS",
    "SINK_FROM",
    "attention_stats",
    "load_stats",
    "merge_attention_stats",
    "pair_wavelengths",
    "save_stats",
    "shipped_text_stats",
    "summarise_stats",
    "uniform_weight_by_offset",
]

MAX_STATS_TOKENS = 2048  # 9 heads x n^2 float32 scores per layer: 151 MB at 2,048
SINK_FROM = 32  # the sink is read from queries m >= 32, where a uniform weight would be at most 1/33


def pair_wavelengths(head_dim: int = 64, base: float = 100000.0) -> np.ndarray:
    """Wavelength 2 pi / theta_i in positions of each rotary pair i, theta_i = base^(-2i/d); shape (d/2,)."""
    theta = base ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    return 2 * np.pi / theta


def _layer_stats(attn, x, cos_sin):
    import torch
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv

    n = x.shape[1]
    d = attn.head_dim
    q = attn.q_proj(x).view(1, n, -1, d).transpose(1, 2)  # (1, 9, n, 64)
    k = attn.k_proj(x).view(1, n, -1, d).transpose(1, 2)  # (1, 3, n, 64)
    half = d // 2
    # A rotation keeps each pair's length, so the energy per pair is the same before and after RoPE.
    q_energy = (q[..., :half] ** 2 + q[..., half:] ** 2).mean(dim=2)[0]  # (9, 32)
    k_energy = (k[..., :half] ** 2 + k[..., half:] ** 2).mean(dim=2)[0]  # (3, 32)
    q_rot, k_rot = apply_rotary_pos_emb(q, k, *cos_sin)
    k_rot = repeat_kv(k_rot, attn.num_key_value_groups)  # (1, 9, n, 64): grouped-query heads share keys
    raw = (q_rot @ k_rot.transpose(-1, -2))[0]  # (9, n, n) q.k
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    weights = torch.softmax((raw * attn.scaling).masked_fill(~causal, float("-inf")), dim=-1)  # (9, n, n)
    m_idx, n_idx = torch.nonzero(causal, as_tuple=True)  # every (query, key) pair with key <= query
    offset = m_idx - n_idx  # (pairs,)
    count = torch.bincount(offset, minlength=n).double()  # (n,): n - r pairs at offset r
    raw_pairs = raw[:, m_idx, n_idx].double()  # (9, pairs)
    w_pairs = weights[:, m_idx, n_idx].double()
    heads = raw.shape[0]
    raw_sum = torch.zeros(heads, n, dtype=torch.float64).index_add_(1, offset, raw_pairs)
    w_sum = torch.zeros(heads, n, dtype=torch.float64).index_add_(1, offset, w_pairs)
    raw_sq = torch.zeros(heads, n, dtype=torch.float64).index_add_(1, offset, raw_pairs ** 2)
    sink = weights[:, SINK_FROM:, 0].double().sum(dim=1) if n > SINK_FROM else torch.zeros(heads, dtype=torch.float64)
    return {"q_energy": q_energy.double(), "k_energy": k_energy.double(), "count": count, "raw_sum": raw_sum,
            "raw_sq": raw_sq, "weight_sum": w_sum, "sink_sum": sink, "sink_count": max(n - SINK_FROM, 0)}


def attention_stats(token_ids, *, progress: Callable[[int, int], None] | None = None, device: str = "cpu") -> dict:
    """Per-layer, per-head sums of the measurements above for one stretch of SmolLM2 tokens.

    Sums (not means) so several stretches can be added with ``merge_attention_stats``; ``summarise_stats``
    turns them into means. Returns numpy float64 arrays: q_energy (30, 9, 32), k_energy (30, 3, 32),
    count (n,), raw_sum / raw_sq / weight_sum (30, 9, n), sink_sum (30, 9), sink_count, windows.
    """
    import torch

    from .models import load_smollm2
    from .smollm2 import smollm2_forward

    ids = list(token_ids)
    as_int("tokens", len(ids), minimum=2, maximum=MAX_STATS_TOKENS)
    _, model = load_smollm2()
    per_layer = []

    def on_layer(index, attn, x, cos_sin):
        per_layer.append(_layer_stats(attn, x, cos_sin))

    smollm2_forward(model, torch.tensor([ids], device=device), on_layer=on_layer, progress=progress)
    out = {key: np.stack([s[key].cpu().numpy() for s in per_layer]) for key in
           ("q_energy", "k_energy", "raw_sum", "raw_sq", "weight_sum", "sink_sum")}
    out["count"] = per_layer[0]["count"].cpu().numpy()
    out["sink_count"] = np.float64(per_layer[0]["sink_count"])
    out["windows"] = np.float64(1)
    return out


def merge_attention_stats(parts) -> dict:
    """Add the sums of several ``attention_stats`` results of the same length (energies are averaged)."""
    parts = list(parts)
    if not parts:
        raise ValueError("There are no measurements to merge.")
    merged = {key: sum(p[key] for p in parts) for key in parts[0]}
    return merged


def uniform_weight_by_offset(n: int) -> np.ndarray:
    """Mean weight at each offset r if every query spread its attention evenly over its m + 1 keys: (n,)."""
    n = as_int("tokens", n, minimum=1, maximum=MAX_STATS_TOKENS)
    per_query = 1.0 / np.arange(1, n + 1)  # query m gives 1 / (m + 1) to each key
    # offset r is seen by queries m = r .. n - 1
    return np.cumsum(per_query[::-1])[::-1] / np.arange(n, 0, -1)


def summarise_stats(stats: dict) -> dict:
    """Means from ``attention_stats`` sums.

    Returns: q_share (30, 9, 32) and k_share (30, 3, 32) (each head's energy per pair, summing to 1),
    mean_weight and mean_score (30, 9, n) by offset, relative_r2 (30, 9), sink (30, 9), previous (30, 9),
    uniform_weight (n,), tokens n, windows, wavelengths (32,).
    """
    count = np.asarray(stats["count"], dtype=np.float64)  # (n,)
    q_energy = np.asarray(stats["q_energy"], dtype=np.float64)
    k_energy = np.asarray(stats["k_energy"], dtype=np.float64)
    raw_sum = np.asarray(stats["raw_sum"], dtype=np.float64)  # (L, H, n)
    total = count.sum()
    grand = raw_sum.sum(axis=-1) / total  # (L, H)
    ss_total = np.asarray(stats["raw_sq"]).sum(axis=-1) - total * grand ** 2
    ss_offset = (raw_sum ** 2 / count).sum(axis=-1) - total * grand ** 2  # spread of the per-offset means
    n = count.shape[0]
    return {
        "q_share": q_energy / q_energy.sum(axis=-1, keepdims=True),
        "k_share": k_energy / k_energy.sum(axis=-1, keepdims=True),
        "mean_weight": stats["weight_sum"] / count,
        "mean_score": raw_sum / count,
        "relative_r2": ss_offset / np.maximum(ss_total, 1e-30),
        "sink": stats["sink_sum"] / max(float(stats["sink_count"]), 1.0),
        "previous": stats["weight_sum"][..., 1] / count[1] if n > 1 else np.zeros(raw_sum.shape[:2]),
        "uniform_weight": uniform_weight_by_offset(n),
        "tokens": n,
        "windows": int(stats["windows"]),
        "wavelengths": pair_wavelengths(q_energy.shape[-1] * 2),
    }


def shipped_text_stats(tokens: int, windows: int, *, progress: Callable[[dict], None] | None = None,
                       device: str = "cpu") -> dict:
    """``attention_stats`` summed over ``windows`` disjoint stretches of ``tokens`` shipped-text tokens."""
    from .text import text_tokens

    tokens = as_int("tokens", tokens, minimum=2, maximum=MAX_STATS_TOKENS)
    windows = as_int("windows", windows, minimum=1, maximum=16)
    parts = []
    for w in range(windows):
        def layer_progress(layer, layers, w=w):
            if progress is not None:
                progress({"window": w, "layer": layer, "layers": layers, "fraction": (w + layer / layers) / windows})
        parts.append(attention_stats(text_tokens(w * tokens, tokens), progress=layer_progress, device=device))
    return merge_attention_stats(parts)


def save_stats(stats: dict, path) -> None:
    np.savez_compressed(path, **{k: np.asarray(v) for k, v in stats.items()})


def load_stats(path) -> dict:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}
