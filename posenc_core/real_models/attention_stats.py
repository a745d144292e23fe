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

import dataclasses
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np

from .._checks import as_float, as_int
from ..rope.frequencies import base_inv_freq

__all__ = [
    "MAX_LIVE_STATS_TOKENS",
    "MAX_STATS_TOKENS",
    "SINK_FROM",
    "AttentionFindings",
    "AttentionSums",
    "AttentionSummary",
    "DistanceProfile",
    "LayerFindings",
    "TopHead",
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
SHIPPED_ATTENTION = Path(__file__).resolve().parent / "data" / "smollm2_attention_stats.npz"  # package data
SINK_FROM = 32  # the sink is read from queries m >= 32, where a uniform weight would be at most 1/33


@dataclass(frozen=True)
class AttentionSums:
    """Sums of the measurements over one or more stretches of n SmolLM2 tokens (30 layers, 9 query heads, 3 key
    heads, 32 rotary pairs), numpy float64; ``merge_attention_stats`` adds them field by field.

    q_energy: (30, 9, 32) each query head's mean energy per rotary pair (a sum over stretches).
    k_energy: (30, 3, 32) the same for each key head.
    count: (n,) how many (query, key) pairs, keys after the first, sit at each offset.
    raw_sum: (30, 9, n) sum of the raw scores q.k at each offset.
    raw_sq: (30, 9, n) sum of their squares.
    weight_sum: (30, 9, n) sum of the attention weights at each offset.
    sink_sum: (30, 9) sum of the weights on the first token, queries from ``SINK_FROM`` on.
    sink_count: how many queries those are (a float64 scalar).
    windows: how many stretches were added (a float64 scalar).
    """

    q_energy: np.ndarray
    k_energy: np.ndarray
    count: np.ndarray
    raw_sum: np.ndarray
    raw_sq: np.ndarray
    weight_sum: np.ndarray
    sink_sum: np.ndarray
    sink_count: np.float64
    windows: np.float64


@dataclass(frozen=True)
class AttentionSummary:
    """Means from ``AttentionSums`` (``summarise_stats``), for L layers, H query heads and n tokens.

    q_share: (L, H, 32) each query head's energy per rotary pair, summing to 1 over the pairs.
    k_share: (L, 3, 32) the same for each key head.
    mean_weight: (L, H, n - 1) mean attention weight at offsets 0 .. n - 2 (keys after the first).
    mean_score: (L, H, n - 1) mean raw score q.k at those offsets.
    relative_r2: (L, H) how much of the score's spread the offset alone explains (R^2, 0 to 1).
    sink: (L, H) mean weight on the first token, queries from ``SINK_FROM`` on.
    previous: (L, H) mean weight on the previous token.
    uniform_weight: (n - 1,) the mean weight at each offset if every query spread its attention evenly.
    tokens: n, tokens per stretch.
    windows: how many stretches were averaged.
    wavelengths: (32,) each rotary pair's wavelength 2 pi / theta_i, in positions.
    text_tokens: how many tokens the measured text had (a live measurement reads its first 512), or None.
    """

    q_share: np.ndarray
    k_share: np.ndarray
    mean_weight: np.ndarray
    mean_score: np.ndarray
    relative_r2: np.ndarray
    sink: np.ndarray
    previous: np.ndarray
    uniform_weight: np.ndarray
    tokens: int
    windows: int
    wavelengths: np.ndarray
    text_tokens: int | None = None


class TopHead(NamedTuple):
    """The head with the largest value of a (layers, heads) grid.

    layer: its layer, counted from 1.
    head: its head, counted from 1.
    value: the grid's value there.
    """

    layer: int
    head: int
    value: float


@dataclass(frozen=True)
class AttentionFindings:
    """The numbers the pages state about an ``AttentionSummary`` (``attention_findings``); shares are fractions.

    q_pairs, k_pairs: (32,) the query and key energy per pair, every layer and head weighted alike.
    slow_pairs: how many pairs have a wavelength longer than ``context``.
    context: the context length (tokens) the slow pairs are measured against.
    q_slow, k_slow: the query and key energy in those slow pairs.
    fast_pairs: how many of the fastest pairs ``q_fast`` and ``k_fast`` sum over.
    q_fast, k_fast: the query and key energy in the ``fast_pairs`` fastest pairs.
    fast_wavelength: the wavelength (tokens) of the slowest of those fast pairs.
    peak_pair: the pair (from 0) with the most query energy; peak_wavelength its wavelength (tokens).
    uniform_pair: the share of each pair under an even spread, 1 / 32.
    layer_q_pairs: (L, 32) each layer's query energy per pair (mean over its heads).
    r2_high, r2_low: how many heads have R^2 above 0.5, below 0.1; heads: how many heads in all.
    r2_best: the head with the highest R^2; r2_worst: the one with the lowest (its value: that R^2).
    sink_layers: how many layers give the first token more than half their weight (mean over heads).
    sink_top: the head with the most weight on the first token.
    sink_uniform: the mean weight a query from ``SINK_FROM`` on would give the first token spreading evenly.
    sink_first_layers, sink_last_layers: the mean sink weight of the first two and of the last ten layers.
    previous_top: the head with the most weight on the previous token.
    layer_weight, layer_score: (L, n - 1) mean weight and mean raw score at each offset, mean over heads.
    """

    q_pairs: np.ndarray
    k_pairs: np.ndarray
    slow_pairs: int
    context: int
    q_slow: float
    k_slow: float
    fast_pairs: int
    q_fast: float
    k_fast: float
    fast_wavelength: float
    peak_pair: int
    peak_wavelength: float
    uniform_pair: float
    layer_q_pairs: np.ndarray
    r2_high: int
    r2_low: int
    heads: int
    r2_best: TopHead
    r2_worst: TopHead
    sink_layers: int
    sink_top: TopHead
    sink_uniform: float
    sink_first_layers: float
    sink_last_layers: float
    previous_top: TopHead
    layer_weight: np.ndarray
    layer_score: np.ndarray


@dataclass(frozen=True)
class DistanceProfile:
    """Attention and scores against distance (``distance_profile``), averaged over heads, for k marked offsets.

    offsets: (k,) the marked offsets (tokens).
    layer_weight, layer_score: (L, n - 1) mean weight and mean raw score at every offset, mean over heads.
    near_ratio: the chosen layers' weight at the first marked offset over the uniform weight there.
    far_ratio: the same at the last marked offset.
    far_range: (lowest, highest) weight of a chosen layer at the last marked offset.
    weight_at: (k,) the weight at the marked offsets, mean over the chosen layers.
    score_change: (k,) the mean score there minus the mean score at offset 0.
    uniform: (k,) the uniform weight at the marked offsets.
    bound: (n - 1,) RoFormer's relative upper bound at every offset, divided by its value at offset 0.
    bound_at: (k,) the bound at the marked offsets.
    first_negative: the first offset whose mean score over the chosen layers is below zero, or None.
    lowest_score: the lowest mean score over the chosen layers; lowest_offset: its offset.
    """

    offsets: np.ndarray
    layer_weight: np.ndarray
    layer_score: np.ndarray
    near_ratio: float
    far_ratio: float
    far_range: tuple[float, float]
    weight_at: np.ndarray
    score_change: np.ndarray
    uniform: np.ndarray
    bound: np.ndarray
    bound_at: np.ndarray
    first_negative: int | None
    lowest_score: float
    lowest_offset: int


SlowSide = Literal[0, 1, 2]  # a layer's slow-pair share: 0 above the band, 1 in it, 2 below


@dataclass(frozen=True)
class LayerFindings:
    """One layer of an ``AttentionSummary`` against the average over every layer (``layer_findings``).

    layer: the layer, counted from 1.
    q_share: (heads, pairs) each query head's energy per pair.
    largest_share: the largest cell of ``q_share``.
    q_slow: the layer's query energy in the pairs slower than the context (mean over its heads).
    all_q_slow: the same over every layer and head.
    slow_change: q_slow minus all_q_slow.
    slow_pairs: how many pairs are slower than the context.
    slow_band: (all_q_slow - margin, all_q_slow + margin).
    slow_side: 0: q_slow above the band, 1: in it, 2: below.
    sink: (heads,) each head's mean weight on the first token; sink_min, sink_max: its extremes.
    """

    layer: int
    q_share: np.ndarray
    largest_share: float
    q_slow: float
    all_q_slow: float
    slow_change: float
    slow_pairs: int
    slow_band: tuple[float, float]
    slow_side: SlowSide
    sink: np.ndarray
    sink_min: float
    sink_max: float


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
                    progress: Callable[[int, int], None] | None = None, device: str = "cpu") -> AttentionSums:
    """Per-layer, per-head sums of the measurements above for one stretch of SmolLM2 tokens.

    Sums (not means) so several stretches can be added with ``merge_attention_stats``; ``summarise_stats``
    turns them into means. ``MissingExtraError`` without torch or transformers.
    """
    from .models import load_smollm2, require_libraries
    from .smollm2 import smollm2_forward

    ids = list(token_ids)
    as_int("tokens", len(ids), minimum=2, maximum=MAX_STATS_TOKENS)
    require_libraries("Measuring SmolLM2's attention", "torch", "transformers")
    import torch

    _, model = load_smollm2()
    model = model.to(device)  # as long_context does: the ids, weights and rotary tables on one device
    per_layer = []

    def on_layer(index, attn, x, cos_sin):
        per_layer.append(_layer_stats(attn, x, cos_sin))

    smollm2_forward(model, torch.tensor([ids], device=device), on_layer=on_layer, progress=progress)
    stacked = {key: np.stack([s[key].cpu().numpy() for s in per_layer]) for key in
               ("q_energy", "k_energy", "raw_sum", "raw_sq", "weight_sum", "sink_sum")}
    return AttentionSums(**stacked, count=per_layer[0]["count"].cpu().numpy(),
                         sink_count=np.float64(per_layer[0]["sink_count"]), windows=np.float64(1))


def merge_attention_stats(parts: Iterable[AttentionSums]) -> AttentionSums:
    """Add the sums of several ``attention_stats`` results of the same length (energies are averaged)."""
    parts = list(parts)
    if not parts:
        raise ValueError("There are no measurements to merge.")
    return AttentionSums(**{f.name: sum(getattr(p, f.name) for p in parts)
                            for f in dataclasses.fields(AttentionSums)})


def uniform_weight_by_offset(n: int) -> np.ndarray:
    """Mean weight at each offset r = 0 .. n - 2 (keys after the first) if every query spread its attention
    evenly over its m + 1 keys; shape (n - 1,)."""
    n = as_int("tokens", n, minimum=2, maximum=MAX_STATS_TOKENS)
    per_query = 1.0 / np.arange(1, n + 1)  # query m gives 1 / (m + 1) to each key
    # offset r with a key after the first is seen by queries m = r + 1 .. n - 1
    tail_sums = np.cumsum(per_query[::-1])[::-1]  # tail_sums[j] = sum over m >= j
    r = np.arange(n - 1)
    return tail_sums[r + 1] / (n - 1 - r)


def summarise_stats(stats: AttentionSums) -> AttentionSummary:
    """Means from ``attention_stats`` sums: each head's energy share per pair, the mean weight and score at
    offsets 0 .. n - 2 (keys after the first), R^2, sink and previous-token weights."""
    count = np.asarray(stats.count, dtype=np.float64)[:-1]  # (n - 1,): offset n - 1 only reaches key 0
    q_energy = np.asarray(stats.q_energy, dtype=np.float64)
    k_energy = np.asarray(stats.k_energy, dtype=np.float64)
    raw_sum = np.asarray(stats.raw_sum, dtype=np.float64)[..., :-1]  # (L, H, n - 1)
    weight_sum = np.asarray(stats.weight_sum, dtype=np.float64)[..., :-1]
    total = count.sum()
    grand = raw_sum.sum(axis=-1) / total  # (L, H)
    ss_total = np.asarray(stats.raw_sq).sum(axis=-1) - total * grand ** 2
    ss_offset = (raw_sum ** 2 / count).sum(axis=-1) - total * grand ** 2  # spread of the per-offset means
    n = count.shape[0] + 1
    return AttentionSummary(
        q_share=q_energy / q_energy.sum(axis=-1, keepdims=True),
        k_share=k_energy / k_energy.sum(axis=-1, keepdims=True),
        mean_weight=weight_sum / count,
        mean_score=raw_sum / count,
        relative_r2=ss_offset / np.maximum(ss_total, 1e-30),
        sink=stats.sink_sum / max(float(stats.sink_count), 1.0),
        previous=weight_sum[..., 1] / count[1],
        uniform_weight=uniform_weight_by_offset(n),
        tokens=n,
        windows=int(stats.windows),
        wavelengths=pair_wavelengths(q_energy.shape[-1] * 2),
    )


def shipped_text_stats(tokens: int, windows: int, *, progress: Callable[[dict[str, float]], None] | None = None,
                       device: str = "cpu") -> AttentionSums:
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


def save_summary(summary: AttentionSummary, path: str | os.PathLike) -> None:
    """Save a ``summarise_stats`` result as .npz, one array per field (``text_tokens`` only when set); the
    by-offset means as float32 (2 MB at n = 1,024), the rest float64."""
    fields = {f.name: getattr(summary, f.name) for f in dataclasses.fields(summary)
              if getattr(summary, f.name) is not None}
    arrays: dict[str, Any] = {k: np.asarray(v, dtype=np.float32 if k in _BY_OFFSET else None)
                              for k, v in fields.items()}
    np.savez_compressed(path, **arrays)


def load_summary(path: str | os.PathLike) -> AttentionSummary:
    """A summary saved by ``save_summary`` (by-offset means back in float64)."""
    names = {f.name for f in dataclasses.fields(AttentionSummary)}
    try:
        with np.load(path) as data:
            out: dict[str, Any] = {k: data[k].astype(np.float64) if k in _BY_OFFSET else data[k]
                                   for k in data.files if k in names}
    except (OSError, ValueError) as error:
        raise ValueError(f"Could not read the attention summary {path}: {error}") from None
    for key in ("tokens", "windows", "text_tokens"):
        if key in out:
            out[key] = int(out[key])
    missing = names - set(out) - {"text_tokens"}
    if missing:
        raise ValueError(f"{path} is not an attention summary: {', '.join(sorted(missing))} missing.")
    return AttentionSummary(**out)


def shipped_attention_summary() -> AttentionSummary:
    """The shipped summary (4 stretches of 1,024 tokens of the shipped text), package data made by ``python -m
    posenc_core.real_models attention --npz posenc_core/real_models/data/smollm2_attention_stats.npz --tokens
    1024 --windows 4``."""
    return load_summary(SHIPPED_ATTENTION)


MAX_LIVE_STATS_TOKENS = 512  # the app's live measurement: a few seconds, and well inside the 2 GB budget


def text_attention_summary(text: str, *, progress: Callable[[int, int], None] | None = None) -> AttentionSummary:
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
    return dataclasses.replace(summary, text_tokens=len(ids))


def attention_findings(summary: AttentionSummary, context: int = 8192, fast_pairs: int = 8) -> AttentionFindings:
    """The numbers the pages state, from ``summarise_stats``: where the energy sits, which heads follow the
    offset, where the sink is. Layers and heads are counted from 1 in the returned positions.
    """
    context = as_int("context", context, minimum=1)
    wavelengths = summary.wavelengths  # (32,)
    fast_pairs = as_int("fast pairs", fast_pairs, minimum=1, maximum=wavelengths.shape[0])
    q_pairs = summary.q_share.mean(axis=(0, 1))  # (32,): every layer and head weighted alike
    k_pairs = summary.k_share.mean(axis=(0, 1))
    slow = wavelengths > context
    r2, sink, prev = summary.relative_r2, summary.sink, summary.previous  # (30, 9) each
    worst = _top(-r2)
    n = summary.tokens
    return AttentionFindings(
        q_pairs=q_pairs, k_pairs=k_pairs, slow_pairs=int(slow.sum()), context=context,
        q_slow=float(q_pairs[slow].sum()), k_slow=float(k_pairs[slow].sum()),
        fast_pairs=fast_pairs, q_fast=float(q_pairs[:fast_pairs].sum()),
        k_fast=float(k_pairs[:fast_pairs].sum()), fast_wavelength=float(wavelengths[fast_pairs - 1]),
        peak_pair=int(np.argmax(q_pairs)), peak_wavelength=float(wavelengths[int(np.argmax(q_pairs))]),
        uniform_pair=1.0 / wavelengths.shape[0],
        layer_q_pairs=summary.q_share.mean(axis=1),  # (30, 32)
        r2_high=int((r2 > 0.5).sum()), r2_low=int((r2 < 0.1).sum()), heads=int(r2.size),
        r2_best=_top(r2), r2_worst=TopHead(worst.layer, worst.head, float(r2.min())),
        sink_layers=int((sink.mean(axis=1) > 0.5).sum()), sink_top=_top(sink),
        sink_uniform=float(np.mean(1.0 / np.arange(SINK_FROM + 1, n + 1))) if n > SINK_FROM else float("nan"),
        sink_first_layers=float(sink[:2].mean()), sink_last_layers=float(sink[-10:].mean()),
        previous_top=_top(prev),
        layer_weight=summary.mean_weight.mean(axis=1),  # (30, n - 1) averaged over heads
        layer_score=summary.mean_score.mean(axis=1),
    )


def _top(grid: np.ndarray) -> TopHead:
    layer, head = np.unravel_index(int(np.argmax(grid)), grid.shape)
    return TopHead(int(layer) + 1, int(head) + 1, float(grid[layer, head]))


def distance_profile(summary: AttentionSummary, layers: Sequence[int] = (1,),
                     offsets: Sequence[int] = (1, 4, 16, 64, 256), head_dim: int = 64,
                     base: float = 100000.0) -> DistanceProfile:
    """Attention and scores against distance, averaged over heads, next to RoFormer's bound (for this head_dim
    and base) and uniform attention. ``layers`` are counted from 1; ``offsets`` outside 0 .. n - 2 are skipped.
    """
    from ..rope import rope_decay_bound

    weight = summary.mean_weight.mean(axis=1)  # (30, n - 1)
    score = summary.mean_score.mean(axis=1)
    n_layers, n_off = weight.shape
    chosen = [as_int("layer", layer, minimum=1, maximum=n_layers) - 1 for layer in layers]
    if not chosen:
        raise ValueError("Choose at least one layer.")
    picked = np.array([int(o) for o in offsets if 0 <= int(o) < n_off])
    if not picked.size:
        raise ValueError(f"Choose at least one offset from 0 to {n_off - 1}.")
    bound = np.asarray(rope_decay_bound(head_dim, np.arange(n_off), base), dtype=np.float64)  # (n - 1,)
    bound = bound / bound[0]
    mean_score = score[chosen].mean(axis=0)  # (n - 1,)
    negative = np.nonzero(mean_score < 0)[0]
    far = weight[chosen, picked[-1]]  # (len(layers),) each chosen layer's weight at the largest picked offset
    return DistanceProfile(
        offsets=picked, layer_weight=weight, layer_score=score,
        near_ratio=float(weight[chosen, picked[0]].mean() / summary.uniform_weight[picked[0]]),
        far_ratio=float(far.mean() / summary.uniform_weight[picked[-1]]),
        far_range=(float(far.min()), float(far.max())),
        weight_at=weight[chosen][:, picked].mean(axis=0), score_change=mean_score[picked] - mean_score[0],
        uniform=summary.uniform_weight[picked], bound=bound, bound_at=bound[picked],
        first_negative=int(negative[0]) if negative.size else None,
        lowest_score=float(mean_score.min()), lowest_offset=int(np.argmin(mean_score)))


def layer_findings(summary: AttentionSummary, layer: int, context: int = 8192, margin: float = 0.05) -> LayerFindings:
    """One layer of ``summarise_stats``'s summary (``layer`` counted from 1), against the average over every
    layer; a slow share within ``margin`` of the average is "about the same" (``slow_side`` 1)."""
    q_share, sink = summary.q_share, summary.sink  # (layers, heads, pairs), (layers, heads)
    layer = as_int("layer", layer, minimum=1, maximum=q_share.shape[0])
    context = as_int("context", context, minimum=1)
    margin = as_float("margin", margin, minimum=0.0, maximum=1.0)
    slow = summary.wavelengths > context  # (pairs,)
    grid = q_share[layer - 1]  # (heads, pairs)
    q_slow = float(grid.mean(axis=0)[slow].sum())
    all_q_slow = float(q_share.mean(axis=(0, 1))[slow].sum())
    row = sink[layer - 1]  # (heads,)
    change = q_slow - all_q_slow
    side: SlowSide = 0 if change > margin else 2 if change < -margin else 1
    return LayerFindings(layer=layer, q_share=grid, largest_share=float(grid.max()), q_slow=q_slow,
                         all_q_slow=all_q_slow, slow_change=change, slow_pairs=int(slow.sum()),
                         slow_band=(all_q_slow - margin, all_q_slow + margin), slow_side=side,
                         sink=row, sink_min=float(row.min()), sink_max=float(row.max()))
