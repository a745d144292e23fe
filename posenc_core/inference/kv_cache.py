"""What the KV cache holds: keys rotated once at their position, values never rotated, read back from
transformers' ``DynamicCache`` after a prefill and decode steps of a tiny random ``LlamaForCausalLM``; and why a
rope scaling that changes with the length (transformers' dynamic NTK) leaves the cache out of date while a static
one (YaRN) does not.

The model is seeded random weights, float32 on the CPU (a few ms a forward): every number here is what
transformers' own Llama code computes, read from its cache and its rotary module, not re-derived.
torch and transformers are imported inside the functions, so ``import posenc_core`` stays numpy-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .._backend import one_torch_thread
from .._checks import as_choice, as_float, as_int

if TYPE_CHECKING:  # transformers' model class, for the checker only: importing it here would import torch
    from transformers import LlamaForCausalLM

__all__ = [
    "MAX_CACHE_TOKENS",
    "PREFILL_UPDATES",
    "SCALING_ROPE_TYPES",
    "TINY_CONTEXT",
    "TINY_LLAMA",
    "CacheContents",
    "CacheRescaling",
    "cache_contents",
    "cache_rescaling_error",
    "tiny_llama",
    "tiny_rope_parameters",
]

# The tiny random Llama: 2 layers, 4 query heads sharing 2 KV heads (grouped-query attention), head_dim 16.
TINY_LLAMA: dict[str, int] = {"vocab_size": 128, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16}
TINY_CONTEXT = 64  # the tiny model's max_position_embeddings: its "original context" for dynamic NTK and YaRN
TINY_BASE = 10000.0
MAX_CACHE_TOKENS = 256  # prefill + decode steps: one decode step is one forward, so the work grows with the steps
# What dynamic_rope_update (transformers/modeling_rope_utils.py) does to the rotary module at a forward, by the
# change of its max_seq_len_cached: "growth" (seq_len > max_seq_len_cached: inv_freq recomputed for seq_len),
# "reset" (seq_len < original_max_seq_len < max_seq_len_cached: the original inv_freq restored), "none".
PREFILL_UPDATES = ("none", "growth", "reset")
# rope types compared against a full recompute: "dynamic" (dynamic NTK: the base grows with the sequence once it
# passes the original context), "yarn" (one fixed set of frequencies and attention factor for every length),
# "default" (no scaling: the plain RoPE frequencies)
SCALING_ROPE_TYPES = ("dynamic", "yarn", "default")


def tiny_rope_parameters(rope_type: str = "default", factor: float = 2.0) -> dict[str, Any]:  # a config payload
    """The ``rope_parameters`` of the tiny Llama for a rope type.

    Args:
        rope_type: "default", "dynamic" or "yarn" (``SCALING_ROPE_TYPES``).
        factor: the scale factor s of dynamic NTK and YaRN (ignored by "default"), 1 < s ≤ 16.

    Returns:
        The dict transformers reads from ``LlamaConfig(rope_parameters=...)``.
    """
    rope_type = as_choice("rope type", rope_type, SCALING_ROPE_TYPES)
    factor = as_float("scale factor", factor, above=1.0, maximum=16.0)
    if rope_type == "default":
        return {"rope_type": "default", "rope_theta": TINY_BASE}
    params: dict[str, Any] = {"rope_type": rope_type, "rope_theta": TINY_BASE, "factor": factor}
    if rope_type == "yarn":
        params["original_max_position_embeddings"] = TINY_CONTEXT
    return params


def tiny_llama(rope_type: str = "default", factor: float = 2.0, *, seed: int = 0) -> LlamaForCausalLM:
    """A tiny random ``LlamaForCausalLM`` (``TINY_LLAMA`` sizes, max_position_embeddings ``TINY_CONTEXT``), float32,
    eval mode, its weights drawn from ``seed`` without touching torch's global random state.

    Args:
        rope_type: the rope type (``tiny_rope_parameters``).
        factor: its scale factor.
        seed: the seed of the weights, 0 ≤ seed < 2**31.

    Returns:
        The model (a fresh one on every call: dynamic NTK keeps state in its rotary module).
    """
    params = tiny_rope_parameters(rope_type, factor)
    seed = as_int("seed", seed, minimum=0, maximum=2**31 - 1)
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(**TINY_LLAMA, max_position_embeddings=TINY_CONTEXT, rope_parameters=params,
                         attn_implementation="eager")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    return model.eval()


def _tokens(n: int, seed: int):
    import torch

    generator = torch.Generator().manual_seed(seed + 1)
    return torch.randint(0, TINY_LLAMA["vocab_size"], (1, n), generator=generator)  # (1, n)


def _run_cached(model, tokens, prefill: int, layer: int, history=None) -> dict:
    """Prefill ``prefill`` tokens, then decode the rest one forward per token with a ``DynamicCache``; record the
    key and value projections of ``layer`` before any rotation, its rotated queries, the slowest pair's frequency
    and the ``max_seq_len_cached`` the rotary module held at each forward, and the last forward's attention
    weights (transformers' eager attention). ``history`` (token ids, or None) is run first through the same model
    without a cache: an earlier request, which leaves its state in the rotary module."""
    import torch
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    attention = model.model.layers[layer].self_attn
    rotary = model.model.rotary_emb
    hd = TINY_LLAMA["head_dim"]
    seen: dict[str, list] = {"k": [], "v": [], "q": [], "freq": [], "cached": []}

    def inputs(module, args, kwargs):  # what the attention receives: normed hidden states and (cos, sin)
        x = kwargs["hidden_states"]  # (1, t, hidden)
        cos, sin = kwargs["position_embeddings"]  # (1, t, hd)
        q = module.q_proj(x).view(1, x.shape[1], -1, hd).transpose(1, 2)  # (1, heads, t, hd)
        k = module.k_proj(x).view(1, x.shape[1], -1, hd).transpose(1, 2)  # (1, kv, t, hd)
        q_rot, _ = apply_rotary_pos_emb(q, k, cos, sin)
        seen["k"].append(k[0])
        seen["v"].append(module.v_proj(x).view(1, x.shape[1], -1, hd).transpose(1, 2)[0])
        seen["q"].append((q_rot[0, :, -1], q[0, :, -1]))  # (heads, hd) each: the last token's query, turned or not
        seen["freq"].append(np.repeat(float(rotary.inv_freq[-1]), x.shape[1]))
        seen["cached"].append(np.repeat(int(rotary.max_seq_len_cached), x.shape[1]))

    with torch.no_grad(), one_torch_thread():
        if history is not None:
            model(history, use_cache=False)
    before = int(rotary.max_seq_len_cached)
    handle = attention.register_forward_pre_hook(inputs, with_kwargs=True)
    try:
        with torch.no_grad(), one_torch_thread():
            out = model(tokens[:, :prefill], use_cache=True, output_attentions=True)
            cache = out.past_key_values
            for i in range(prefill, tokens.shape[1]):
                out = model(tokens[:, i:i + 1], past_key_values=cache, use_cache=True, output_attentions=True)
    finally:
        handle.remove()
    return {"cache": cache, "logits": out.logits[0, -1], "k_raw": torch.cat(seen["k"], dim=1),
            "v_raw": torch.cat(seen["v"], dim=1), "query": seen["q"][-1][0], "q_raw": seen["q"][-1][1],
            "freq": np.concatenate(seen["freq"]), "cached": np.concatenate(seen["cached"]), "before": before,
            "attention": out.attentions[layer][0, :, -1].numpy().astype(np.float64)}  # (heads, n)


def _pair_angle(x):
    """The angle of each rotary pair (i, i + d/2: transformers' half-split layout). x (..., hd) -> (..., hd/2)."""
    half = x.shape[-1] // 2
    return np.arctan2(x[..., half:], x[..., :half])


def _check_lengths(prefill, decode) -> tuple[int, int]:
    prefill = as_int("prefill length", prefill, minimum=1, maximum=MAX_CACHE_TOKENS - 1)
    decode = as_int("decode steps", decode, minimum=0, maximum=MAX_CACHE_TOKENS - prefill)
    return prefill, decode


@dataclass(frozen=True)
class CacheContents:
    """What a ``DynamicCache`` holds after a prefill and decode steps of the tiny Llama (``cache_contents``);
    n = prefill + decode cached positions.

    Fields:
        position: (n,) the cached positions.
        keys: (kv_heads, n, head_dim) the cached keys.
        values: (kv_heads, n, head_dim) the cached values.
        theta: (head_dim/2,) the rotary module's inv_freq (rad/token).
        expected: (n, head_dim/2) position × theta (rad).
        key_turn: (kv_heads, n, head_dim/2) the angle by which each pair of a cached key is turned from its k_proj
            output (rad), unwrapped along the positions.
        value_turn: (kv_heads, n, head_dim/2) the same for the values from v_proj, in (-π, π].
        query_turn: (head_dim/2,) the turn of the last query (first head), on the branch nearest (n - 1)·theta.
        turn_gap: the largest |key_turn - expected| (rad).
        kept: whether one more decode step leaves every cached row bit for bit as it was.
        max_change: the largest change of those rows.
        prefill_all_gap: the largest difference between these keys and those of one prefill of all n tokens
            (float32 matmul rounding of one row against many).
    """

    position: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    theta: np.ndarray
    expected: np.ndarray
    key_turn: np.ndarray
    value_turn: np.ndarray
    query_turn: np.ndarray
    turn_gap: float
    kept: bool
    max_change: float
    prefill_all_gap: float


def cache_contents(prefill: int, decode: int, *, layer: int = 0, seed: int = 0) -> CacheContents:
    """What a ``DynamicCache`` holds after a prefill of ``prefill`` tokens and ``decode`` decode steps of the tiny
    Llama, read back from ``cache.layers[layer].keys`` / ``.values``.

    Args:
        prefill: tokens of the prefill forward, 1 ≤ prefill < ``MAX_CACHE_TOKENS``.
        decode: decode steps after it (one token each), prefill + decode ≤ ``MAX_CACHE_TOKENS``.
        layer: the decoder layer read, 0 or 1.
        seed: the seed of the weights and the tokens.

    """
    prefill, decode = _check_lengths(prefill, decode)
    layer = as_int("layer", layer, minimum=0, maximum=TINY_LLAMA["num_hidden_layers"] - 1)
    n = prefill + decode
    tokens = _tokens(n + 1, seed)  # one more token: the next decode step, for "which rows change?"
    model = tiny_llama(seed=seed)
    run = _run_cached(model, tokens[:, :n], prefill, layer)
    keys = run["cache"].layers[layer].keys[0].numpy().copy()  # (kv, n, hd)
    values = run["cache"].layers[layer].values[0].numpy().copy()  # (kv, n, hd)
    import torch

    with torch.no_grad(), one_torch_thread():
        more = model(tokens[:, n:n + 1], past_key_values=run["cache"], use_cache=True).past_key_values
        after = more.layers[layer].keys[0, :, :n].numpy()  # (kv, n, hd): the same rows, one step later
        everything = model(tokens[:, :n], use_cache=True).past_key_values.layers[layer].keys[0].numpy()
    theta = model.model.rotary_emb.inv_freq.numpy().astype(np.float64)  # (hd/2,)
    k_raw, v_raw = run["k_raw"].numpy(), run["v_raw"].numpy()  # (kv, n, hd)
    position = np.arange(n)
    expected = position[:, None] * theta[None, :]  # (n, hd/2)
    # measured turns, unwrapped along the positions (one step turns a pair by theta <= 1 rad < pi)
    key_turn = np.unwrap(np.mod(_pair_angle(keys) - _pair_angle(k_raw), 2 * np.pi), axis=1)  # (kv, n, hd/2)
    query_turn = np.mod(_pair_angle(run["query"][0].numpy()) - _pair_angle(run["q_raw"][0].numpy()), 2 * np.pi)
    query_turn += 2 * np.pi * np.round((expected[-1] - query_turn) / (2 * np.pi))  # the branch nearest (n-1)θ
    value_turn = np.angle(np.exp(1j * (_pair_angle(values) - _pair_angle(v_raw))))  # (kv, n, hd/2) in (-π, π]
    return CacheContents(
        position=position, keys=keys, values=values, theta=theta, expected=expected, key_turn=key_turn,
        value_turn=value_turn, query_turn=query_turn, turn_gap=float(np.max(np.abs(key_turn - expected[None]))),
        kept=bool(np.array_equal(after, keys)), max_change=float(np.max(np.abs(after - keys))),
        prefill_all_gap=float(np.max(np.abs(everything - keys))))


@dataclass(frozen=True)
class CacheRescaling:
    """Decoding with a ``DynamicCache`` against a full recompute (``cache_rescaling_error``), layer 0 of the tiny
    Llama, ``total`` positions.

    Fields:
        position: (total,) the key positions.
        score_error: (total,) the largest |q·k/√d| difference over the query heads between the last token's query
            against the cached keys (read back from the cache) and against the full recompute's keys.
        score_spread: (heads,) the standard deviation of each head's ``total`` recomputed scores.
        relative_error: (total,) the largest |difference| / score_spread over the heads.
        attention_change: (total,) the largest |difference| over the heads of the last token's attention weights
            (transformers' eager attention), cache against full recompute.
        attention_moved: (heads,) half the sum of those |differences| per head (the share of attention that moved).
        key_error: (total,) the largest |cached key − recomputed key| at each position.
        written_freq: (total,) the slowest pair's frequency (rad/token) the rotary module held when each key was
            written.
        written_len: (total,) its ``max_seq_len_cached`` then.
        history_len: its ``max_seq_len_cached`` when the prompt arrived.
        full_freq: the slowest frequency the full recompute used (rad/token).
        logit_error: the largest |logit| difference of the last token.
        recomputes: the number of decode forwards at which the rotary module changed its frequencies.
        stale_keys: how many keys after position 0 were written with other frequencies than the full recompute's
            (position 0 is turned by 0 under any).
        prefill_update: what ``dynamic_rope_update`` did at the prefill, one of ``PREFILL_UPDATES``.
    """

    position: np.ndarray
    score_error: np.ndarray
    score_spread: np.ndarray
    relative_error: np.ndarray
    attention_change: np.ndarray
    attention_moved: np.ndarray
    key_error: np.ndarray
    written_freq: np.ndarray
    written_len: np.ndarray
    history_len: int
    full_freq: float
    logit_error: float
    recomputes: int
    stale_keys: int
    prefill_update: Literal["none", "growth", "reset"]


def _last_scores(run: dict) -> np.ndarray:
    """(heads, total) the last token's q·k/√d against the keys read back from the run's cache (layer 0)."""
    import torch

    group = TINY_LLAMA["num_attention_heads"] // TINY_LLAMA["num_key_value_heads"]
    keys = run["cache"].layers[0].keys[0]  # (kv, total, hd): read back from the cache
    keys = keys.repeat_interleave(group, dim=0)  # (heads, total, hd): each query head's KV head
    return torch.einsum("hd,hnd->hn", run["query"], keys).numpy().astype(np.float64) * TINY_LLAMA["head_dim"] ** -0.5


def cache_rescaling_error(rope_type: str, prefill: int, total: int, factor: float = 2.0, *, history: int = 0,
                          seed: int = 0) -> CacheRescaling:
    """Decode with a ``DynamicCache`` against a full recompute, for a rope type whose frequencies may change with
    the length: the tiny Llama (original context ``TINY_CONTEXT``) prefills ``prefill`` tokens and decodes up to
    ``total``; the full recompute is one forward of all ``total`` tokens on a fresh model.

    The rotary module is one per model and keeps its state between requests: with ``history`` > 0 the model first
    runs a forward over ``history`` other tokens, as an earlier request would, and only then this prompt.

    Args:
        rope_type: "dynamic", "yarn" or "default".
        prefill: tokens of the prefill forward, 1 ≤ prefill < total.
        total: the sequence length reached, ≤ ``MAX_CACHE_TOKENS``.
        factor: the scale factor s.
        history: the length of the sequence the model ran before this prompt, 0 (a fresh model) ≤ history ≤
            ``MAX_CACHE_TOKENS``.
        seed: the seed of the weights and the tokens.

    """
    rope_type = as_choice("rope type", rope_type, SCALING_ROPE_TYPES)
    total = as_int("sequence length", total, minimum=2, maximum=MAX_CACHE_TOKENS)
    prefill = as_int("prefill length", prefill, minimum=1, maximum=total - 1)
    history = as_int("history length", history, minimum=0, maximum=MAX_CACHE_TOKENS)
    tiny_rope_parameters(rope_type, factor)  # checks the factor
    import torch

    tokens = _tokens(total, seed)
    earlier = _tokens(history, seed + 1) if history else None  # other text: only its length reaches the rotary
    run = _run_cached(tiny_llama(rope_type, factor, seed=seed), tokens, prefill, 0, earlier)
    full = _run_cached(tiny_llama(rope_type, factor, seed=seed), tokens, total, 0)  # one forward: no decode step
    scores = [_last_scores(run), _last_scores(full)]
    gap = np.abs(scores[0] - scores[1])  # (heads, total)
    spread = scores[1].std(axis=1)  # (heads,)
    moved = np.abs(run["attention"] - full["attention"])  # (heads, total)
    key_gap = np.abs(run["cache"].layers[0].keys[0].numpy() - full["cache"].layers[0].keys[0].numpy())
    freq = run["freq"]  # (total,)
    written, before = int(run["cached"][0]), run["before"]
    return CacheRescaling(
        position=np.arange(total), score_error=gap.max(axis=0), score_spread=spread,
        relative_error=(gap / spread[:, None]).max(axis=0), attention_change=moved.max(axis=0),
        attention_moved=0.5 * moved.sum(axis=1), key_error=key_gap.max(axis=(0, 2)), written_freq=freq,
        written_len=run["cached"], history_len=run["before"], full_freq=float(full["freq"][-1]),
        logit_error=float(torch.max(torch.abs(run["logits"] - full["logits"]))),
        recomputes=int(np.count_nonzero(np.diff(freq[prefill - 1:]))),
        stale_keys=int(np.count_nonzero(freq[1:] != full["freq"][-1])),
        prefill_update="growth" if written > before else "reset" if written < before else "none")
