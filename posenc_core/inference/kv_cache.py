"""What the KV cache holds: keys rotated once at their position, values never rotated, read back from
transformers' ``DynamicCache`` after a prefill and decode steps of a tiny random ``LlamaForCausalLM``; and why a
rope scaling that changes with the length (transformers' dynamic NTK) leaves the cache out of date while a static
one (YaRN) does not.

The model is seeded random weights, float32 on the CPU (a few ms a forward): every number here is what
transformers' own Llama code computes, read from its cache and its rotary module, not re-derived.
torch and transformers are imported inside the functions, so ``import posenc_core`` stays numpy-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from .._checks import as_choice, as_float, as_int

if TYPE_CHECKING:  # transformers' model class, for the checker only: importing it here would import torch
    from transformers import LlamaForCausalLM

__all__ = [
    "CACHE_LAYER_HOLDS",
    "DTYPE_BYTES",
    "MAX_CACHE_TOKENS",
    "MAX_CONTEXT",
    "TINY_CACHE_BUILDS",
    "TINY_CACHE_SIZES",
    "cache_bytes",
    "cache_layout",
    "cache_presets",
    "measured_cache_bytes",
    "preset_cache_bytes",
    "tiny_cache_config",
    "SCALING_ROPE_TYPES",
    "TINY_CONTEXT",
    "TINY_LLAMA",
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
# rope types compared against a full recompute: name -> (rope_parameters without the factor, a sentence)
SCALING_ROPE_TYPES: dict[str, str] = {
    "dynamic": "dynamic NTK: the base grows with the sequence once it passes the original context",
    "yarn": "YaRN: one fixed set of frequencies (and attention factor) for every length",
    "default": "no scaling: the plain RoPE frequencies",
}


def tiny_rope_parameters(rope_type: str = "default", factor: float = 2.0) -> dict:
    """The ``rope_parameters`` of the tiny Llama for a rope type.

    Args:
        rope_type: "default", "dynamic" or "yarn" (``SCALING_ROPE_TYPES``).
        factor: the scale factor s of dynamic NTK and YaRN (ignored by "default"), 1 < s ≤ 16.

    Returns:
        The dict transformers reads from ``LlamaConfig(rope_parameters=...)``.
    """
    rope_type = as_choice("rope type", rope_type, tuple(SCALING_ROPE_TYPES))
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


@contextmanager
def _one_thread():
    """A model this small runs fastest on one thread (and shares the machine): ~5x faster than two on 2 cores."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _tokens(n: int, seed: int):
    import torch

    generator = torch.Generator().manual_seed(seed + 1)
    return torch.randint(0, TINY_LLAMA["vocab_size"], (1, n), generator=generator)  # (1, n)


def _run_cached(model, tokens, prefill: int, layer: int) -> dict:
    """Prefill ``prefill`` tokens, then decode the rest one forward per token with a ``DynamicCache``; record the
    key and value projections of ``layer`` before any rotation, its rotated queries, and the slowest pair's
    frequency the rotary module held at each forward."""
    import torch
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    attention = model.model.layers[layer].self_attn
    hd = TINY_LLAMA["head_dim"]
    seen: dict[str, list] = {"k": [], "v": [], "q": [], "freq": []}

    def inputs(module, args, kwargs):  # what the attention receives: normed hidden states and (cos, sin)
        x = kwargs["hidden_states"]  # (1, t, hidden)
        cos, sin = kwargs["position_embeddings"]  # (1, t, hd)
        q = module.q_proj(x).view(1, x.shape[1], -1, hd).transpose(1, 2)  # (1, heads, t, hd)
        k = module.k_proj(x).view(1, x.shape[1], -1, hd).transpose(1, 2)  # (1, kv, t, hd)
        q_rot, _ = apply_rotary_pos_emb(q, k, cos, sin)
        seen["k"].append(k[0])
        seen["v"].append(module.v_proj(x).view(1, x.shape[1], -1, hd).transpose(1, 2)[0])
        seen["q"].append((q_rot[0, :, -1], q[0, :, -1]))  # (heads, hd) each: the last token's query, turned or not
        seen["freq"].append(np.repeat(float(model.model.rotary_emb.inv_freq[-1]), x.shape[1]))

    handle = attention.register_forward_pre_hook(inputs, with_kwargs=True)
    try:
        with torch.no_grad(), _one_thread():
            out = model(tokens[:, :prefill], use_cache=True)
            cache = out.past_key_values
            for i in range(prefill, tokens.shape[1]):
                out = model(tokens[:, i:i + 1], past_key_values=cache, use_cache=True)
    finally:
        handle.remove()
    return {"cache": cache, "logits": out.logits[0, -1], "k_raw": torch.cat(seen["k"], dim=1),
            "v_raw": torch.cat(seen["v"], dim=1), "query": seen["q"][-1][0], "q_raw": seen["q"][-1][1],
            "freq": np.concatenate(seen["freq"])}


def _pair_angle(x):
    """The angle of each rotary pair (i, i + d/2: transformers' half-split layout). x (..., hd) -> (..., hd/2)."""
    half = x.shape[-1] // 2
    return np.arctan2(x[..., half:], x[..., :half])


def _check_lengths(prefill, decode) -> tuple[int, int]:
    prefill = as_int("prefill length", prefill, minimum=1, maximum=MAX_CACHE_TOKENS - 1)
    decode = as_int("decode steps", decode, minimum=0, maximum=MAX_CACHE_TOKENS - prefill)
    return prefill, decode


def cache_contents(prefill: int, decode: int, *, layer: int = 0, seed: int = 0) -> dict:
    """What a ``DynamicCache`` holds after a prefill of ``prefill`` tokens and ``decode`` decode steps of the tiny
    Llama, read back from ``cache.layers[layer].keys`` / ``.values``.

    Args:
        prefill: tokens of the prefill forward, 1 ≤ prefill < ``MAX_CACHE_TOKENS``.
        decode: decode steps after it (one token each), prefill + decode ≤ ``MAX_CACHE_TOKENS``.
        layer: the decoder layer read, 0 or 1.
        seed: the seed of the weights and the tokens.

    Returns:
        {"position": (n,) the cached positions, n = prefill + decode; "keys", "values": (kv_heads, n, head_dim)
        the cached tensors; "key_turn": (kv_heads, n, head_dim/2) the angle by which each pair of a cached key is
        turned from its k_proj output, unwrapped along the positions; "value_turn": the same for the values from
        v_proj, in (-π, π]; "query_turn": (head_dim/2,) the turn of the last query (first head), on the branch
        nearest (n - 1)·theta; "theta": (head_dim/2,) the rotary module's inv_freq; "expected": (n, head_dim/2)
        position × theta; "turn_gap": the largest |key_turn - expected|; "kept": True when one more decode step
        leaves every cached row bit for bit as it was; "max_change": the largest change of those rows;
        "prefill_all_gap": the largest difference between these keys and those of one prefill of all n tokens
        (float32 matmul rounding of one row against many)}.
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

    with torch.no_grad(), _one_thread():
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
    return {
        "position": position, "keys": keys, "values": values, "theta": theta, "expected": expected,
        "key_turn": key_turn, "value_turn": value_turn, "query_turn": query_turn,
        "turn_gap": float(np.max(np.abs(key_turn - expected[None]))),
        "kept": bool(np.array_equal(after, keys)), "max_change": float(np.max(np.abs(after - keys))),
        "prefill_all_gap": float(np.max(np.abs(everything - keys))),
    }


def cache_rescaling_error(rope_type: str, prefill: int, total: int, factor: float = 2.0, *, seed: int = 0) -> dict:
    """Decode with a ``DynamicCache`` against a full recompute, for a rope type whose frequencies may change with
    the length: the tiny Llama (original context ``TINY_CONTEXT``) prefills ``prefill`` tokens and decodes up to
    ``total``; the full recompute is one forward of all ``total`` tokens on a fresh model.

    Args:
        rope_type: "dynamic", "yarn" or "default".
        prefill: tokens of the prefill forward, 1 ≤ prefill < total.
        total: the sequence length reached, ≤ ``MAX_CACHE_TOKENS``.
        factor: the scale factor s.
        seed: the seed of the weights and the tokens.

    Returns:
        {"position": (total,); "score_error": (total,) the largest |q·k/√d| difference over the query heads of
        layer 0, between the last token's query against the cached keys (read back from the cache) and against the
        full recompute's keys, at each key position; "key_error": (total,) the largest |cached key − recomputed
        key| at each position (layer 0); "written_freq": (total,) the slowest pair's frequency the rotary module
        held when each key was written; "full_freq": the one the full recompute used; "logit_error": the largest
        |logit| difference of the last token; "recomputes": the number of decode forwards at which the rotary
        module changed its frequencies}.
    """
    rope_type = as_choice("rope type", rope_type, tuple(SCALING_ROPE_TYPES))
    total = as_int("sequence length", total, minimum=2, maximum=MAX_CACHE_TOKENS)
    prefill = as_int("prefill length", prefill, minimum=1, maximum=total - 1)
    tiny_rope_parameters(rope_type, factor)  # checks the factor
    import torch

    tokens = _tokens(total, seed)
    run = _run_cached(tiny_llama(rope_type, factor, seed=seed), tokens, prefill, 0)
    full_model = tiny_llama(rope_type, factor, seed=seed)
    full = _run_cached(full_model, tokens, total, 0)  # prefill of everything: no decode step
    scale = TINY_LLAMA["head_dim"] ** -0.5
    group = TINY_LLAMA["num_attention_heads"] // TINY_LLAMA["num_key_value_heads"]
    scores = []
    for r in (run, full):
        keys = r["cache"].layers[0].keys[0]  # (kv, total, hd): read back from the cache
        keys = keys.repeat_interleave(group, dim=0)  # (heads, total, hd): each query head's KV head
        scores.append(torch.einsum("hd,hnd->hn", r["query"], keys).numpy() * scale)  # (heads, total)
    key_gap = np.abs(run["cache"].layers[0].keys[0].numpy() - full["cache"].layers[0].keys[0].numpy())
    freq = run["freq"]  # (total,)
    return {
        "position": np.arange(total), "score_error": np.max(np.abs(scores[0] - scores[1]), axis=0),
        "key_error": key_gap.max(axis=(0, 2)), "written_freq": freq,
        "full_freq": float(full["freq"][-1]),
        "logit_error": float(torch.max(torch.abs(run["logits"] - full["logits"]))),
        "recomputes": int(np.count_nonzero(np.diff(freq[prefill - 1:]))),
    }


# ---- Bytes per token -----------------------------------------------------------------------------------------------

DTYPE_BYTES: dict[str, int] = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1}
# What each of transformers' DynamicCache layer classes keeps, by the class DynamicCache(config=...) builds for the
# layer (cache_utils.DYNAMIC_LAYER_TYPE_MAPPING, from get_layer_types_and_kwargs): "all" keeps every token's key
# and value, "window" the last sliding_window - 1 (DynamicSlidingWindowLayer.update), "none" no token at all (a
# recurrent or convolution state of fixed size, or a layer that shares another's KV or has no attention).
CACHE_LAYER_HOLDS: dict[str, str] = {
    "DynamicLayer": "all",
    "DynamicIndexedLayer": "all",  # DeepSeek V3.2's sparse attention: the indexer's keys too (``_token_width``)
    "DynamicSlidingWindowLayer": "window",
    "LinearAttentionAndFullAttentionLayer": "all",
    "LinearAttentionAndSlidingWindowAttentionLayer": "window",
    "LinearAttentionLayer": "none",
    "DummyLayer": "none",
}
# The model types whose rule a test checks against the bytes a tiny random build's DynamicCache holds (a preset of
# another type is left out of the bars); per type, what the tiny build changes besides TINY_CACHE_SIZES.
TINY_CACHE_BUILDS: dict[str, dict] = {
    "smollm3": {}, "gpt_oss": {}, "exaone4": {}, "cohere2": {}, "qwen3": {}, "glm4_moe": {}, "hunyuan_v1_dense": {},
    "apertus": {}, "lfm2": {"block_ff_dim": 64, "conv_L_cache": 3},
    "qwen3_next": {"linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 8,
                   "linear_value_head_dim": 8},
    "qwen3_5_text": {"linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 8,
                     "linear_value_head_dim": 8},
    "nemotron_h": {"mamba_num_heads": 4, "mamba_head_dim": 16, "ssm_state_size": 8, "n_groups": 1,
                   "moe_shared_expert_intermediate_size": 32},
    "granitemoehybrid": {"mamba_n_heads": 4, "mamba_d_head": 32, "mamba_d_state": 8, "mamba_n_groups": 1},
    "deepseek_v3": {"num_key_value_heads": 4},
    "deepseek_v32": {"num_key_value_heads": 4, "index_head_dim": 16, "index_n_heads": 2, "index_topk": 4},
    "kimi_linear": {"num_key_value_heads": 4},
}
TINY_CACHE_SIZES: dict[str, Any] = {  # the shrunk sizes (applied where the model's config class has the field)
    "hidden_size": 64, "intermediate_size": 64, "vocab_size": 128, "pad_token_id": 0, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "sliding_window": 4, "max_position_embeddings": 256,
    "moe_intermediate_size": 32, "shared_intermediate_size": 32, "num_experts": 4, "num_local_experts": 4,
    "n_routed_experts": 4, "num_experts_per_tok": 2, "num_experts_per_token": 2, "n_group": 1, "topk_group": 1,
    "n_shared_experts": 1, "kv_lora_rank": 16, "q_lora_rank": 32, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8,
    "v_head_dim": 8,
}
MAX_CONTEXT = 1 << 24  # 16M tokens: the longest context the byte counts take


def _text_config(config: Mapping):
    from ..configs.reader import normalise_config

    reading = normalise_config(config)
    if reading.obj is None:
        raise ValueError("The cache layout is read through transformers' config class of the model type; this "
                         "config has no model_type transformers knows.")
    return reading.obj


def _token_width(obj, indexed: bool) -> tuple[int, str]:
    """Elements one token adds to one attention layer's cache (key slot + value slot, and an indexed layer's
    indexer key), and what they are."""
    rank = getattr(obj, "kv_lora_rank", None)
    if rank:  # latent attention: transformers caches the compressed latent and the shared rotated key
        rope = int(obj.qk_rope_head_dim)
        width, what = int(rank) + rope, f"latent: kv_lora_rank {rank} + qk_rope_head_dim {rope} (one shared head)"
    else:
        heads = int(obj.num_attention_heads)
        kv = int(getattr(obj, "num_key_value_heads", None) or heads)
        head_dim = int(getattr(obj, "head_dim", None) or obj.hidden_size // heads)
        width, what = 2 * kv * head_dim, f"2 x {kv} KV heads x head_dim {head_dim}"
    if indexed:  # DynamicIndexedLayer.update_indexer: one [batch, seq, index_head_dim] key per token
        width += int(obj.index_head_dim)
        what += f" + the indexer's key, index_head_dim {obj.index_head_dim}"
    return width, what


def cache_layout(config: Mapping) -> dict:
    """How transformers' ``DynamicCache`` is laid out for a model config: the cache layer class it builds for each
    layer (``get_layer_types_and_kwargs`` and ``DYNAMIC_LAYER_TYPE_MAPPING``, as ``DynamicCache(config=...)``
    does), what each keeps, and what one token adds to an attention layer.

    Args:
        config: a config.json dict with its model_type (read through the model's transformers config class).

    Returns:
        {"classes": [cache layer class per layer], "holds": ["all" | "window" | "none" per layer], "windows":
        [sliding_window or None per layer], "width": elements per token per attention layer (key + value slots),
        "what": a sentence saying what those elements are}.
    """
    from transformers.cache_utils import DYNAMIC_LAYER_TYPE_MAPPING, get_layer_types_and_kwargs

    obj = _text_config(config)
    types, kwargs = get_layer_types_and_kwargs(obj)
    classes = [DYNAMIC_LAYER_TYPE_MAPPING[t].__name__ if t in DYNAMIC_LAYER_TYPE_MAPPING else t for t in types]
    unknown = sorted({c for c in classes if c not in CACHE_LAYER_HOLDS})
    if unknown:
        raise ValueError(f"This model's cache has layers of kind {', '.join(unknown)} (compressed blocks), which "
                         "this count does not cover.")
    width, what = _token_width(obj, "DynamicIndexedLayer" in classes)
    return {"classes": classes, "holds": [CACHE_LAYER_HOLDS[c] for c in classes],
            "windows": [k.get("sliding_window") for k in kwargs], "width": width, "what": what}


def cache_bytes(config: Mapping, tokens: int, dtype: str = "bfloat16") -> dict:
    """The bytes transformers' ``DynamicCache`` holds for the keys and values of one sequence of ``tokens`` tokens.

    Args:
        config: a config.json dict (``cache_layout``).
        tokens: the sequence length, 1 ≤ tokens ≤ ``MAX_CONTEXT``.
        dtype: "float32", "bfloat16", "float16" or "fp8" (the cache's element type).

    Returns:
        {"per_token": bytes each further token adds once every window is full, "total": bytes at ``tokens``,
        "layers": {"all": n, "window": n, "none": n} layer counts, "window_tokens": tokens a window layer keeps at
        ``tokens`` (or None), plus ``cache_layout``'s "width" and "what"}.
    """
    tokens = as_int("tokens", tokens, minimum=1, maximum=MAX_CONTEXT)
    size = DTYPE_BYTES[as_choice("cache dtype", dtype, tuple(DTYPE_BYTES))]
    layout = cache_layout(config)
    per_layer = layout["width"] * size  # bytes per token in one attention layer
    held = [tokens if h == "all" else min(tokens, w - 1) if h == "window" else 0
            for h, w in zip(layout["holds"], layout["windows"], strict=True)]
    windows = [min(tokens, w - 1) for h, w in zip(layout["holds"], layout["windows"], strict=True) if h == "window"]
    return {"per_token": per_layer * layout["holds"].count("all"), "total": per_layer * sum(held),
            "layers": {k: layout["holds"].count(k) for k in ("all", "window", "none")},
            "window_tokens": windows[0] if windows else None, "width": layout["width"], "what": layout["what"]}


def tiny_cache_config(key: str) -> dict:
    """A preset's config with its sizes shrunk (``TINY_CACHE_SIZES``, ``TINY_CACHE_BUILDS``) and its layer pattern
    kept, for a random build whose ``DynamicCache`` can be measured in a fraction of a second.

    Args:
        key: a preset key whose model type is in ``TINY_CACHE_BUILDS``.

    Returns:
        The config dict.
    """
    from ..configs.presets import PRESETS, preset_config

    if key not in PRESETS or PRESETS[key].model_type not in TINY_CACHE_BUILDS:
        raise ValueError(f"preset {key!r} has no tiny build; choose one of {', '.join(cache_presets()['keys'])}.")
    from transformers import AutoConfig

    config = preset_config(key)
    model_type = config["model_type"]
    fields = set(AutoConfig.for_model(model_type).to_dict())
    changes = {**TINY_CACHE_SIZES, **TINY_CACHE_BUILDS[model_type]}
    if "kv_lora_rank" in config:
        changes.pop("head_dim")  # latent attention sizes its heads from the qk_*/v_head_dim fields
    config.update({k: v for k, v in changes.items() if k in fields or k in config})
    if "linear_attn_config" in config:  # Kimi Linear: the linear layers' own heads
        config["linear_attn_config"] = {**config["linear_attn_config"], "head_dim": 8, "num_heads": 4}
    return config


def measured_cache_bytes(config: Mapping, tokens: int, *, seed: int = 0) -> dict:
    """Build a model from ``config`` with random weights (keep it tiny: ``tiny_cache_config``), prefill ``tokens``
    random tokens with ``use_cache=True`` and measure its ``DynamicCache``, float32.

    Args:
        config: a config.json dict.
        tokens: the prefill length, 1 ≤ tokens ≤ 64.
        seed: the seed of the weights and tokens.

    Returns:
        {"kv": bytes of the keys and values tensors (and a sparse-attention indexer's keys), "all": bytes of every
        tensor the cache layers hold (fixed-size states included), "classes": the cache layer class of each layer}.
    """
    tokens = as_int("tokens", tokens, minimum=1, maximum=64)
    obj = _text_config(config)
    import torch
    from transformers import AutoModelForCausalLM

    with torch.random.fork_rng(devices=[]), _one_thread():
        torch.manual_seed(seed)
        model = AutoModelForCausalLM.from_config(obj).eval()
        ids = torch.randint(0, obj.vocab_size, (1, tokens))
        with torch.no_grad():
            cache = model(ids, use_cache=True).past_key_values

    def size(x) -> int:
        if isinstance(x, torch.Tensor):
            return x.numel() * x.element_size()
        return sum(size(v) for v in x) if isinstance(x, (list, tuple)) else 0

    kv = sum(size(getattr(layer, name, None)) for layer in cache.layers for name in ("keys", "values", "indexer_keys"))
    every = sum(size(v) for layer in cache.layers for v in vars(layer).values())
    return {"kv": kv, "all": every, "classes": [type(layer).__name__ for layer in cache.layers]}


# keys a preset must hold for its bytes to be the model's, not a config class's defaults
def _missing_keys(config: Mapping) -> list[str]:
    need = ["num_hidden_layers"]
    if "index_topk" in config:  # sparse attention (DeepSeek V3.2): its indexer caches a key per token too
        need.append("index_head_dim")
    if config.get("kv_lora_rank"):
        need.append("qk_rope_head_dim")
    else:
        need.append("num_key_value_heads")
        if "head_dim" not in config:
            need += ["hidden_size", "num_attention_heads"]
    return [k for k in need if k not in config]


def cache_presets() -> dict:
    """The presets whose cache bytes are shown: a model type with a tiny build (``TINY_CACHE_BUILDS``) and a config
    that holds every key the count reads.

    Returns:
        {"keys": [preset keys shown], "left_out": {preset key: the reason it is not shown}}.
    """
    from ..configs.presets import PRESETS

    keys, left_out = [], {}
    for key, preset in PRESETS.items():
        missing = _missing_keys(preset.config)
        if missing:
            left_out[key] = "the preset keeps only the RoPE keys (no " + ", ".join(missing) + ")"
        elif preset.model_type not in TINY_CACHE_BUILDS:
            left_out[key] = f"no tiny build of model type {preset.model_type} checks the count"
        else:
            keys.append(key)
    return {"keys": keys, "left_out": left_out}


def preset_cache_bytes(tokens: int, dtype: str = "bfloat16") -> dict:
    """``cache_bytes`` of every preset in ``cache_presets()``.

    Args:
        tokens: the context length, 1 ≤ tokens ≤ ``MAX_CONTEXT``.
        dtype: the cache's element type (``DTYPE_BYTES``).

    Returns:
        {"names": [model name per preset], "keys": [...], "per_token": (presets,) bytes per further token,
        "gb": (presets,) GB (1e9 bytes) at ``tokens`` for one sequence, "rows": [``cache_bytes`` dicts],
        "left_out": {key: reason}}.
    """
    from ..configs.presets import PRESETS

    shown = cache_presets()
    rows = [cache_bytes(PRESETS[k].config, tokens, dtype) for k in shown["keys"]]
    return {"keys": shown["keys"], "names": [PRESETS[k].name for k in shown["keys"]],
            "per_token": np.array([r["per_token"] for r in rows], dtype=np.float64),
            "gb": np.array([r["total"] for r in rows], dtype=np.float64) / 1e9, "rows": rows,
            "left_out": shown["left_out"]}
