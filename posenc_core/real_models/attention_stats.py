"""What SmolLM2's queries and keys do with RoPE, measured layer by layer on real text.

For each layer, from the normalised input the layer's attention sees, the queries and keys are made with the
layer's own ``q_proj``/``k_proj`` and rotated with transformers' ``apply_rotary_pos_emb`` (the code the model
runs); the scores are q.k / sqrt(64) under the causal mask, and the softmax of them is the attention the model
computes (a test checks it against transformers' eager attention weights). Per layer and head it keeps:

- the share of query and key energy in each rotary pair (pairs are dims (i, i + 32): the half layout),
- the mean attention weight and the mean raw score q.k at each offset m - n (keys after the first token),
- how much of the score's spread the offset alone explains (R^2 of the score against the mean score at its
  offset: 1 for a score that depends on m - n only, 0 for one that ignores it),
- the mean weight on the first token (the attention sink) and on the previous token.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._checks import as_int
from ..rope.frequencies import base_inv_freq

__all__ = [
    "MAX_LIVE_STATS_TOKENS",
    "MAX_STATS_TOKENS",
    "SINK_FROM",
    "attention_findings",
    "attention_stats",
    "distance_profile",
    "layer_findings",
    "load_summary",
    "merge_attention_stats",
    "pair_wavelengths",
    "save_summary",
    "shipped_attention_summary",
    "shipped_text_stats",
    "summarise_stats",
    "text_attention_summary",
    "uniform_weight_by_offset",
]

MAX_STATS_TOKENS = 2048  # 9 heads x n^2 float32 scores per layer: 151 MB at 2,048
SHIPPED_ATTENTION = Path(__file__).resolve().parents[2] / "assets" / "smollm2_attention_stats.npz"
SINK_FROM = 32  # the sink is read from queries m >= 32, where a uniform weight would be at most 1/33


def pair_wavelengths(head_dim: int = 64, base: float = 100000.0) -> np.ndarray:
    """Wavelength 2 pi / theta_i in positions of each rotary pair i, theta_i = base^(-2i/d); shape (d/2,)."""
    theta = base_inv_freq(base, head_dim)  # (d/2,)
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
    device = x.device  # every helper tensor on the model's device (CPU masks do not mix with a model on CUDA)
    causal = torch.ones(n, n, dtype=torch.bool, device=device).tril()
    weights = torch.softmax((raw * attn.scaling).masked_fill(~causal, float("-inf")), dim=-1)  # (9, n, n)
    # Every (query, key) pair with 0 < key <= query. The first token is left out of the by-offset numbers: it
    # is the attention sink (reported on its own), and it sits at offset m for query m, so it would make
    # every long offset look attended.
    m_idx, n_idx = torch.nonzero(causal & (torch.arange(n, device=device) > 0)[None, :], as_tuple=True)
    offset = m_idx - n_idx  # (pairs,)
    count = torch.bincount(offset, minlength=n).double()  # (n,): n - r - 1 pairs at offset r (none at n - 1)
    raw_pairs = raw[:, m_idx, n_idx].double()  # (9, pairs)
    w_pairs = weights[:, m_idx, n_idx].double()
    heads = raw.shape[0]
    raw_sum = torch.zeros(heads, n, dtype=torch.float64, device=device).index_add_(1, offset, raw_pairs)
    w_sum = torch.zeros(heads, n, dtype=torch.float64, device=device).index_add_(1, offset, w_pairs)
    raw_sq = torch.zeros(heads, n, dtype=torch.float64, device=device).index_add_(1, offset, raw_pairs ** 2)
    sink = (weights[:, SINK_FROM:, 0].double().sum(dim=1) if n > SINK_FROM
            else torch.zeros(heads, dtype=torch.float64, device=device))
    return {"q_energy": q_energy.double(), "k_energy": k_energy.double(), "count": count, "raw_sum": raw_sum,
            "raw_sq": raw_sq, "weight_sum": w_sum, "sink_sum": sink, "sink_count": max(n - SINK_FROM, 0)}


def attention_stats(token_ids: Sequence[int] | np.ndarray, *,
                    progress: Callable[[int, int], None] | None = None, device: str = "cpu") -> dict:
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
    model = model.to(device)  # as long_context does: the ids, weights and rotary tables on one device
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


def merge_attention_stats(parts: Iterable[dict]) -> dict:
    """Add the sums of several ``attention_stats`` results of the same length (energies are averaged)."""
    parts = list(parts)
    if not parts:
        raise ValueError("There are no measurements to merge.")
    merged = {key: sum(p[key] for p in parts) for key in parts[0]}
    return merged


def uniform_weight_by_offset(n: int) -> np.ndarray:
    """Mean weight at each offset r = 0 .. n - 2 (keys after the first) if every query spread its attention
    evenly over its m + 1 keys; shape (n - 1,)."""
    n = as_int("tokens", n, minimum=2, maximum=MAX_STATS_TOKENS)
    per_query = 1.0 / np.arange(1, n + 1)  # query m gives 1 / (m + 1) to each key
    # offset r with a key after the first is seen by queries m = r + 1 .. n - 1
    tail_sums = np.cumsum(per_query[::-1])[::-1]  # tail_sums[j] = sum over m >= j
    r = np.arange(n - 1)
    return tail_sums[r + 1] / (n - 1 - r)


def summarise_stats(stats: dict) -> dict:
    """Means from ``attention_stats`` sums.

    Returns: q_share (30, 9, 32) and k_share (30, 3, 32) (each head's energy per pair, summing to 1),
    mean_weight and mean_score (30, 9, n - 1) at offsets 0 .. n - 2 (keys after the first), relative_r2
    (30, 9), sink (30, 9), previous (30, 9), uniform_weight (n - 1,), tokens n, windows, wavelengths (32,).
    """
    count = np.asarray(stats["count"], dtype=np.float64)[:-1]  # (n - 1,): offset n - 1 only reaches key 0
    q_energy = np.asarray(stats["q_energy"], dtype=np.float64)
    k_energy = np.asarray(stats["k_energy"], dtype=np.float64)
    raw_sum = np.asarray(stats["raw_sum"], dtype=np.float64)[..., :-1]  # (L, H, n - 1)
    weight_sum = np.asarray(stats["weight_sum"], dtype=np.float64)[..., :-1]
    total = count.sum()
    grand = raw_sum.sum(axis=-1) / total  # (L, H)
    ss_total = np.asarray(stats["raw_sq"]).sum(axis=-1) - total * grand ** 2
    ss_offset = (raw_sum ** 2 / count).sum(axis=-1) - total * grand ** 2  # spread of the per-offset means
    n = count.shape[0] + 1
    return {
        "q_share": q_energy / q_energy.sum(axis=-1, keepdims=True),
        "k_share": k_energy / k_energy.sum(axis=-1, keepdims=True),
        "mean_weight": weight_sum / count,
        "mean_score": raw_sum / count,
        "relative_r2": ss_offset / np.maximum(ss_total, 1e-30),
        "sink": stats["sink_sum"] / max(float(stats["sink_count"]), 1.0),
        "previous": weight_sum[..., 1] / count[1],
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


_BY_OFFSET = ("mean_weight", "mean_score")  # (30, 9, n - 1): the bulk of a saved summary


def save_summary(summary: dict, path: str | os.PathLike) -> None:
    """Save a ``summarise_stats`` result; the by-offset means as float32 (2 MB at n = 1,024), the rest float64."""
    arrays: dict[str, Any] = {k: np.asarray(v, dtype=np.float32 if k in _BY_OFFSET else None)
                              for k, v in summary.items()}
    np.savez_compressed(path, **arrays)


def load_summary(path: str | os.PathLike) -> dict:
    """A summary saved by ``save_summary`` (by-offset means back in float64)."""
    with np.load(path) as data:
        out = {k: data[k].astype(np.float64) if k in _BY_OFFSET else data[k] for k in data.files}
    for key in ("tokens", "windows", "text_tokens"):
        if key in out:
            out[key] = int(out[key])
    return out


def shipped_attention_summary() -> dict:
    """The shipped summary (4 stretches of 1,024 tokens of the shipped text), made by ``python -m
    posenc_core.real_models attention --npz assets/smollm2_attention_stats.npz --tokens 1024 --windows 4``."""
    return load_summary(SHIPPED_ATTENTION)


MAX_LIVE_STATS_TOKENS = 512  # the app's live measurement: a few seconds, and well inside the 2 GB budget


def text_attention_summary(text: str, *, progress: Callable[[int, int], None] | None = None) -> dict:
    """``summarise_stats`` of one forward over the first 512 SmolLM2 tokens of ``text`` (at least 40 tokens)."""
    from .text import smollm2_tokenize

    if not isinstance(text, str) or not text.strip():
        raise ValueError("Paste some text first: the text is empty.")
    if len(text) > 20 * MAX_LIVE_STATS_TOKENS:
        text = text[: 20 * MAX_LIVE_STATS_TOKENS]  # far more characters than 512 tokens need
    ids = smollm2_tokenize(text)
    if len(ids) < 2 * SINK_FROM:
        raise ValueError(f"The text has {len(ids)} tokens; measuring needs at least {2 * SINK_FROM} (the sink is "
                         f"read from query {SINK_FROM} on).")
    summary = summarise_stats(attention_stats(ids[:MAX_LIVE_STATS_TOKENS], progress=progress))
    summary["text_tokens"] = len(ids)
    return summary


def attention_findings(summary: dict, context: int = 8192, fast_pairs: int = 8) -> dict:
    """The numbers the pages state, from ``summarise_stats``: where the energy sits, which heads follow the
    offset, where the sink is. Layers and heads are counted from 1 in the returned positions.
    """
    context = as_int("context", context, minimum=1)
    wavelengths = summary["wavelengths"]  # (32,)
    q_pairs = summary["q_share"].mean(axis=(0, 1))  # (32,): every layer and head weighted alike
    k_pairs = summary["k_share"].mean(axis=(0, 1))
    slow = wavelengths > context
    r2, sink, prev = summary["relative_r2"], summary["sink"], summary["previous"]  # (30, 9) each

    def top(grid):
        layer, head = np.unravel_index(int(np.argmax(grid)), grid.shape)
        return int(layer) + 1, int(head) + 1, float(grid[layer, head])

    n = summary["tokens"]
    return {
        "q_pairs": q_pairs, "k_pairs": k_pairs, "slow_pairs": int(slow.sum()), "context": context,
        "q_slow": float(q_pairs[slow].sum()), "k_slow": float(k_pairs[slow].sum()),
        "fast_pairs": fast_pairs, "q_fast": float(q_pairs[:fast_pairs].sum()),
        "k_fast": float(k_pairs[:fast_pairs].sum()), "fast_wavelength": float(wavelengths[fast_pairs - 1]),
        "peak_pair": int(np.argmax(q_pairs)), "peak_wavelength": float(wavelengths[int(np.argmax(q_pairs))]),
        "uniform_pair": 1.0 / wavelengths.shape[0],
        "layer_q_pairs": summary["q_share"].mean(axis=1),  # (30, 32)
        "r2_high": int((r2 > 0.5).sum()), "r2_low": int((r2 < 0.1).sum()), "heads": int(r2.size),
        "r2_best": top(r2), "r2_worst": top(-r2)[:2] + (float(r2.min()),),
        "sink_layers": int((sink.mean(axis=1) > 0.5).sum()), "sink_top": top(sink),
        "sink_uniform": float(np.mean(1.0 / np.arange(SINK_FROM + 1, n + 1))) if n > SINK_FROM else float("nan"),
        "sink_first_layers": float(sink[:2].mean()), "sink_last_layers": float(sink[-10:].mean()),
        "previous_top": top(prev),
        "layer_weight": summary["mean_weight"].mean(axis=1),  # (30, n - 1) averaged over heads
        "layer_score": summary["mean_score"].mean(axis=1),
    }


def distance_profile(summary: dict, layers: Sequence[int] = (1,), offsets: Sequence[int] = (1, 4, 16, 64, 256),
                     head_dim: int = 64,
                     base: float = 100000.0) -> dict:
    """Attention and scores against distance, averaged over heads, next to RoFormer's bound and uniform attention.

    ``layers`` are counted from 1. Returns offsets (k,); layer_weight and layer_score (30, n - 1) at every offset
    (mean over heads); weight_at (k,) and score_change (k,) (the score minus the score at offset 0), averaged
    over ``layers``; uniform (k,); bound (n - 1,) and bound_at (k,) (RoFormer's relative upper bound for this
    head_dim and base divided by its value at offset 0); first_negative (the first offset whose mean score over
    ``layers`` is below zero, or None); lowest_score and lowest_offset.
    """
    from ..rope import rope_decay_bound

    weight = summary["mean_weight"].mean(axis=1)  # (30, n - 1)
    score = summary["mean_score"].mean(axis=1)
    n_layers, n_off = weight.shape
    chosen = [as_int("layer", layer, minimum=1, maximum=n_layers) - 1 for layer in layers]
    if not chosen:
        raise ValueError("Choose at least one layer.")
    picked = np.array([int(o) for o in offsets if 0 <= int(o) < n_off])
    bound = np.asarray(rope_decay_bound(head_dim, np.arange(n_off), base), dtype=np.float64)  # (n - 1,)
    bound = bound / bound[0]
    mean_score = score[chosen].mean(axis=0)  # (n - 1,)
    negative = np.nonzero(mean_score < 0)[0]
    far = weight[chosen, picked[-1]]  # (len(layers),) each chosen layer's weight at the largest picked offset
    return {"offsets": picked, "layer_weight": weight, "layer_score": score,
            "near_ratio": float(weight[chosen, picked[0]].mean() / summary["uniform_weight"][picked[0]]),
            "far_ratio": float(far.mean() / summary["uniform_weight"][picked[-1]]),
            "far_range": (float(far.min()), float(far.max())),
            "weight_at": weight[chosen][:, picked].mean(axis=0), "score_change": mean_score[picked] - mean_score[0],
            "uniform": summary["uniform_weight"][picked], "bound": bound, "bound_at": bound[picked],
            "first_negative": int(negative[0]) if negative.size else None,
            "lowest_score": float(mean_score.min()), "lowest_offset": int(np.argmin(mean_score))}


def layer_findings(summary: dict, layer: int, context: int = 8192, margin: float = 0.05) -> dict:
    """One layer of ``summarise_stats``'s summary, against the average over every layer.

    ``layer`` is counted from 1. Returns q_share (heads, pairs): each query head's energy per pair; largest_share
    (the largest cell); q_slow (the layer's query energy in the pairs whose wavelength is longer than
    ``context``, mean over its heads) and all_q_slow (the same over every layer and head), slow_change (q_slow
    minus all_q_slow), slow_band (all_q_slow ± ``margin``) and slow_side (0: above the band, 1: in it, 2: below);
    sink (heads,): each head's mean weight on the first token, sink_min and sink_max.
    """
    q_share, sink = summary["q_share"], summary["sink"]  # (layers, heads, pairs), (layers, heads)
    layer = as_int("layer", layer, minimum=1, maximum=q_share.shape[0])
    context = as_int("context", context, minimum=1)
    slow = summary["wavelengths"] > context  # (pairs,)
    grid = q_share[layer - 1]  # (heads, pairs)
    q_slow = float(grid.mean(axis=0)[slow].sum())
    all_q_slow = float(q_share.mean(axis=(0, 1))[slow].sum())
    row = sink[layer - 1]  # (heads,)
    change = q_slow - all_q_slow
    return {"layer": layer, "q_share": grid, "largest_share": float(grid.max()), "q_slow": q_slow,
            "all_q_slow": all_q_slow, "slow_change": change, "slow_pairs": int(slow.sum()),
            "slow_band": (all_q_slow - margin, all_q_slow + margin),
            "slow_side": 0 if change > margin else 2 if change < -margin else 1,
            "sink": row, "sink_min": float(row.min()), "sink_max": float(row.max())}
