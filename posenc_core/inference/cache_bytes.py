"""The bytes a KV cache holds per token: the cache layers transformers' ``DynamicCache`` builds for a model config,
counted from the config and checked against what a tiny random build of the model holds.

torch and transformers are imported inside the functions, so ``import posenc_core`` stays numpy-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from .._checks import as_choice, as_int

__all__ = [
    "CACHE_LAYER_HOLDS",
    "DTYPE_BYTES",
    "MAX_CONTEXT",
    "TINY_CACHE_BUILDS",
    "TINY_CACHE_SIZES",
    "cache_bytes",
    "cache_layout",
    "cache_presets",
    "measured_cache_bytes",
    "preset_cache_bytes",
    "tiny_cache_config",
]


@contextmanager
def _one_thread():
    """A tiny model runs fastest on one thread (and shares the machine)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


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
