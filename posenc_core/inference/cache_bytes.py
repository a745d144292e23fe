"""The bytes a KV cache holds: the cache layers transformers' ``DynamicCache`` builds for a model config
(``cache_utils.get_layer_types_and_kwargs`` and ``DYNAMIC_LAYER_TYPE_MAPPING``, as ``DynamicCache(config=...)``
does), counted per layer from that layer's config, and checked against what a tiny random build of the model
holds (``tiny_cache_config``, ``measured_cache_bytes``).

torch and transformers are imported inside the functions, so ``import posenc_core`` stays numpy-only.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from .._backend import one_torch_thread
from .._checks import as_choice, as_int

__all__ = [
    "CACHE_LAYER_HOLDS",
    "CACHE_LAYER_RULES",
    "DTYPE_BYTES",
    "ENTRY_FORMS",
    "MAX_CONTEXT",
    "CacheBytes",
    "CacheEntry",
    "CacheLayerPlan",
    "CacheLayerRule",
    "CACHE_KINDS",
    "CacheLayout",
    "MeasuredCache",
    "cache_bytes",
    "cache_layout",
    "measured_cache_bytes",
]

DTYPE_BYTES: dict[str, int] = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1}
MAX_CONTEXT = 1 << 24  # 16M tokens: the longest context the byte counts take
# What one token writes into one attention layer: "heads" a key and a value per KV head (head_dim each);
# "latent" latent attention's compressed latent (kv_lora_rank) and its one shared rotated key (qk_rope_head_dim);
# "shared" one head of head_dim that is both the key and the value (DeepSeek V4's attention: its kv_proj)
ENTRY_FORMS = ("heads", "latent", "shared")


@dataclass(frozen=True)
class CacheEntry:
    """What one token writes into one layer's cache, read from that layer's config.

    Attributes:
        form: one of ``ENTRY_FORMS``.
        kv_heads: KV heads ("heads"), 1 for "latent" (its shared rotated key) and "shared".
        head_dim: size of one key (and value) head; for "latent" the rotated key's qk_rope_head_dim.
        latent: kv_lora_rank for "latent", else 0.
        index: the sparse-attention indexer's key (index_head_dim) per token or per compressed entry, else 0.
    """

    form: str
    kv_heads: int
    head_dim: int
    latent: int = 0
    index: int = 0

    @property
    def width(self) -> int:
        """Elements one token adds to the key and value slots: 2·kv_heads·head_dim, latent + head_dim, or the one
        shared head_dim."""
        return {"heads": 2 * self.kv_heads * self.head_dim, "latent": self.latent + self.head_dim,
                "shared": self.head_dim}[self.form]


@dataclass(frozen=True)
class CacheLayerPlan:
    """One layer of the cache: the class ``DynamicCache`` builds for it and what its entries are.

    Attributes:
        cache_class: the transformers cache layer class.
        holds: ``CACHE_LAYER_RULES[cache_class].holds``: "all", "window", "compressed" or "none".
        window: the sliding window W of a window or compressed layer (it keeps the last W − 1 tokens), else None.
        rate: source tokens per compressed entry of a compressed layer, else None.
        entry: what one token writes (None for a layer that holds no tokens).
    """

    cache_class: str
    holds: str
    window: int | None
    rate: int | None
    entry: CacheEntry | None


class CacheLayerRule(NamedTuple):
    """How one cache layer class grows: ``held(plan, n)`` the elements it holds after n tokens (one sequence),
    ``rate(plan)`` the elements each further token adds once its window, buffers and overlap are full (for a
    compressed layer the average over one compressed entry)."""

    holds: str
    held: Callable[[Any, int], int]  # (a CacheLayerPlan whose entry and window its cache class sets, tokens)
    rate: Callable[[Any], float]


def _all(p, n):
    return n * (p.entry.width + p.entry.index)  # DynamicLayer.update: torch.cat of every token (+ indexer keys)


def _window(p, n):
    return min(n, p.window - 1) * p.entry.width  # DynamicSlidingWindowLayer.update: the last sliding_window - 1


def _hca(p, n):
    """DeepseekV4HCACache: the window's keys, which are its values (one tensor); one compressed entry per ``rate``
    tokens (``compressed_kv``); the tokens of an unfinished window in ``buffer_kv`` and ``buffer_gate``."""
    hd = p.entry.width
    return min(n, p.window - 1) * hd + n // p.rate * hd + n % p.rate * 2 * hd


def _csa(p, n):
    """DeepseekV4CSACache: as HCA, with kv and gate projections of 2·head_dim (two overlapping series), an indexer
    with its own compressed keys (index_head_dim), and after the first full window the previous window's first
    series kept for both (``overlap_kv``, ``overlap_gate``: rate × width each)."""
    hd, ix = p.entry.width, p.entry.index
    overlap = 2 * p.rate * (hd + ix) if n >= p.rate else 0
    return min(n, p.window - 1) * hd + n // p.rate * (hd + ix) + n % p.rate * 4 * (hd + ix) + overlap


def _none(p, n):
    return 0


CACHE_LAYER_RULES: dict[str, CacheLayerRule] = {
    "DynamicLayer": CacheLayerRule("all", _all, lambda p: p.entry.width + p.entry.index),
    "DynamicIndexedLayer": CacheLayerRule("all", _all, lambda p: p.entry.width + p.entry.index),
    "DynamicSlidingWindowLayer": CacheLayerRule("window", _window, lambda p: 0.0),
    "LinearAttentionAndFullAttentionLayer": CacheLayerRule("all", _all, lambda p: p.entry.width),
    "LinearAttentionAndSlidingWindowAttentionLayer": CacheLayerRule("window", _window, lambda p: 0.0),
    "DeepseekV4HCACache": CacheLayerRule("compressed", _hca, lambda p: p.entry.width / p.rate),
    "DeepseekV4CSACache": CacheLayerRule("compressed", _csa, lambda p: (p.entry.width + p.entry.index) / p.rate),
    "LinearAttentionLayer": CacheLayerRule("none", _none, lambda p: 0.0),  # a fixed-size recurrent / conv state
    "DummyLayer": CacheLayerRule("none", _none, lambda p: 0.0),  # shares another layer's KV, or no attention
}
CACHE_LAYER_HOLDS: dict[str, str] = {name: rule.holds for name, rule in CACHE_LAYER_RULES.items()}
# the classes that keep a sparse-attention indexer's keys (``update_indexer``; V4's "indexer" entries)
INDEXED_CLASSES = ("DynamicIndexedLayer", "DeepseekV4CSACache")
SHARED_KV_CLASSES = ("DeepseekV4HCACache", "DeepseekV4CSACache")  # one tensor that is both keys and values
HOLDS = ("all", "window", "compressed", "none")


# What a model's cache is, as a whole, by the first rule that holds: "latent" a layer keeps a compressed entry
# (latent attention, DeepSeek V4's compressed layers), "hybrid" some layers keep no tokens (recurrent, convolution
# or shared-KV layers), "window" some layers keep a sliding window, "full" every layer keeps every token.
CACHE_KINDS: dict[str, Callable[[list[CacheLayerPlan]], bool]] = {
    "latent": lambda layers: any(p.holds == "compressed" or (p.entry and p.entry.form == "latent") for p in layers),
    "hybrid": lambda layers: any(p.holds == "none" for p in layers),
    "window": lambda layers: any(p.holds == "window" for p in layers),
    "full": lambda layers: True,
}


@dataclass(frozen=True)
class CacheLayout:
    """The cache transformers builds for a config, layer by layer (``cache_layout``)."""

    layers: tuple[CacheLayerPlan, ...]

    @property
    def classes(self) -> list[str]:
        return [p.cache_class for p in self.layers]

    @property
    def holds(self) -> list[str]:
        return [p.holds for p in self.layers]

    @property
    def kind(self) -> str:
        """The first of ``CACHE_KINDS`` whose rule holds."""
        return next(name for name, rule in CACHE_KINDS.items() if rule(list(self.layers)))

    @property
    def plans(self) -> tuple[tuple[CacheLayerPlan, int], ...]:
        """Each distinct layer plan with the number of layers that have it, in layer order."""
        counts: dict[CacheLayerPlan, int] = {}
        for p in self.layers:
            counts[p] = counts.get(p, 0) + 1
        return tuple(counts.items())


def _text_config(config: Mapping):
    from ..configs.reader import normalise_config

    reading = normalise_config(config)
    if reading.obj is None:
        raise ValueError("The cache layout is read through transformers' config class of the model type; this "
                         "config has no model_type transformers knows.")
    return reading.obj


def _layer_mapping(obj, types: list[str]) -> dict:
    """transformers' DYNAMIC_LAYER_TYPE_MAPPING, with the model's modeling module imported first where a layer type
    is not in it yet (a cache layer class defined there registers itself, as DeepSeek V4's do, through
    CacheLayerMixin.__init_subclass__)."""
    from transformers.cache_utils import DYNAMIC_LAYER_TYPE_MAPPING
    from transformers.models.auto.configuration_auto import model_type_to_module_name

    if not set(types) <= set(DYNAMIC_LAYER_TYPE_MAPPING):
        module = model_type_to_module_name(obj.model_type)
        try:
            importlib.import_module(f"transformers.models.{module}.modeling_{module}")
        except ImportError:  # a text config without a modeling module of its own: its classes are standard
            pass
    return DYNAMIC_LAYER_TYPE_MAPPING


def _entry(layer_config, obj, cache_class: str) -> CacheEntry:
    """What one token writes into the layer whose config (``per_layer_config[i]``) is given."""
    rank = getattr(layer_config, "kv_lora_rank", None)
    index = int(obj.index_head_dim) if cache_class in INDEXED_CLASSES else 0
    if cache_class in SHARED_KV_CLASSES:  # DeepseekV4Attention.kv_proj: one head_dim, whatever the heads say
        return CacheEntry("shared", 1, int(layer_config.head_dim), 0, index)
    if rank:  # latent attention: transformers caches the compressed latent and the shared rotated key
        return CacheEntry("latent", 1, int(layer_config.qk_rope_head_dim), int(rank), index)
    heads = int(layer_config.num_attention_heads)
    kv = int(getattr(layer_config, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(layer_config, "head_dim", None) or layer_config.hidden_size // heads)
    return CacheEntry("heads", kv, head_dim, 0, index)


def cache_layout(config: Mapping) -> CacheLayout:
    """How transformers' ``DynamicCache`` is laid out for a model config: the cache layer class it builds for each
    layer, what each keeps, and what one token writes into it (from that layer's own config, so a layer type with
    its own head size, as Gemma 4's full layers, gets its own entry).

    Args:
        config: a config.json dict with its model_type (read through the model's transformers config class; a
            multimodal config through its text_config).

    Returns:
        A ``CacheLayout``.
    """
    from transformers.cache_utils import get_layer_types_and_kwargs

    obj = _text_config(config)
    types, kwargs = get_layer_types_and_kwargs(obj)
    mapping = _layer_mapping(obj, types)
    classes = [mapping[t].__name__ if t in mapping else t for t in types]
    unknown = sorted({c for c in classes if c not in CACHE_LAYER_RULES})
    if unknown:
        raise ValueError(f"This model's cache has layers of kind {', '.join(unknown)}, which this count does not "
                         "cover.")
    layers = []
    for kind, name, kw, layer_config in zip(types, classes, kwargs, obj.per_layer_config, strict=True):
        holds = CACHE_LAYER_HOLDS[name]
        compressed = holds == "compressed"  # DeepSeek V4: its own window and rate per layer type
        window = int(obj.sliding_window) if compressed else kw.get("sliding_window")
        rate = int(obj.compress_rates[kind]) if compressed else None
        entry = None if holds == "none" else _entry(layer_config, obj, name)
        layers.append(CacheLayerPlan(name, holds, window, rate, entry))
    return CacheLayout(tuple(layers))


@dataclass(frozen=True)
class CacheBytes:
    """What ``DynamicCache`` holds for one sequence (``cache_bytes``).

    Attributes:
        tokens: the sequence length counted.
        dtype: the cache's element type.
        total: bytes held at ``tokens``.
        per_token: bytes each further token adds once every window, buffer and overlap is full (a compressed
            layer's share is its average over one compressed entry).
        next_token: bytes each of the next ``span`` tokens adds on average at ``tokens``.
        span: the least common multiple of the compressed layers' rates (1 without them).
        layers: {"all", "window", "compressed", "none": layer count}.
        window_tokens: tokens a window layer keeps at ``tokens`` (the first window layer's), or None.
        layout: the ``CacheLayout`` counted.
    """

    tokens: int
    dtype: str
    total: int
    per_token: float
    next_token: float
    span: int
    layers: dict[str, int]
    window_tokens: int | None
    layout: CacheLayout


def cache_bytes(config: Mapping, tokens: int, dtype: str = "bfloat16") -> CacheBytes:
    """The bytes transformers' ``DynamicCache`` holds for the keys and values of one sequence of ``tokens`` tokens
    (and what else grows with them: a sparse indexer's keys, DeepSeek V4's compressed entries and buffers; not the
    fixed-size states of recurrent and convolution layers).

    Args:
        config: a config.json dict (``cache_layout``).
        tokens: the sequence length, 1 ≤ tokens ≤ ``MAX_CONTEXT``.
        dtype: "float32", "bfloat16", "float16" or "fp8" (the cache's element type).

    Returns:
        A ``CacheBytes``.
    """
    tokens = as_int("tokens", tokens, minimum=1, maximum=MAX_CONTEXT)
    size = DTYPE_BYTES[as_choice("cache dtype", dtype, tuple(DTYPE_BYTES))]
    layout = cache_layout(config)
    rules = [CACHE_LAYER_RULES[p.cache_class] for p in layout.layers]

    def held(n: int) -> int:
        return sum(rule.held(p, n) for rule, p in zip(rules, layout.layers, strict=True))

    span = math.lcm(*(p.rate for p in layout.layers if p.rate), 1)
    rate = sum(rule.rate(p) for rule, p in zip(rules, layout.layers, strict=True))
    windows = [min(tokens, int(p.window or 0) - 1) for p in layout.layers if p.holds == "window"]
    now = held(tokens)
    return CacheBytes(tokens, dtype, now * size, rate * size, (held(tokens + span) - now) * size / span, span,
                      {k: layout.holds.count(k) for k in HOLDS}, windows[0] if windows else None, layout)


@dataclass(frozen=True)
class MeasuredCache:
    """What a built model's ``DynamicCache`` holds (``measured_cache_bytes``).

    Attributes:
        held: bytes of every floating-point tensor the cache layers hold (each tensor once: DeepSeek V4's values
            are its keys), the fixed-size states excepted.
        states: bytes of the fixed-size states (``FIXED_STATES``: linear-attention and convolution layers).
        classes: the cache layer class of each layer.
    """

    held: int
    states: int
    classes: list[str]


FIXED_STATES = ("conv_states", "recurrent_states")  # LinearAttentionCacheLayerMixin's state dicts


def _tensors(x, found: dict) -> None:
    """Every tensor under x (a tensor, or lists, tuples and dicts of them), once each, by identity."""
    import torch

    if isinstance(x, torch.Tensor):
        if x.is_floating_point():  # the cached data; integer tensors are bookkeeping (window sizes, counts)
            found[id(x)] = x
    elif isinstance(x, (list, tuple)):
        for v in x:
            _tensors(v, found)
    elif isinstance(x, dict):
        for v in x.values():
            _tensors(v, found)


def _tiny_model(config: Mapping):
    """The model class a config is served with: a multimodal config's image-text class (vision tower included),
    else the causal LM of its text config."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES,
    )

    top = str(config.get("model_type"))
    if "text_config" in config and top in MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES:
        top_config = AutoConfig.for_model(top, **{k: v for k, v in config.items() if k != "model_type"})
        return AutoModelForImageTextToText.from_config(top_config), top_config.get_text_config()
    obj = _text_config(config)
    if obj.model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return AutoModelForCausalLM.from_config(obj), obj
    return AutoModelForImageTextToText.from_config(obj), obj


def measured_cache_bytes(config: Mapping, tokens: int, *, prefill: int | None = None,
                         seed: int = 0) -> MeasuredCache:
    """Build a model from ``config`` with random weights (keep it tiny: ``tiny_cache_config``), run ``tokens``
    random text tokens through it with ``use_cache=True`` (a prefill of ``prefill`` tokens, then one decode step
    per token) and measure its ``DynamicCache``, float32.

    Args:
        config: a config.json dict.
        tokens: the sequence length, 1 ≤ tokens ≤ 64.
        prefill: the prefill length, 1 ≤ prefill ≤ tokens (None: all of them).
        seed: the seed of the weights and tokens.

    Returns:
        A ``MeasuredCache``.
    """
    tokens = as_int("tokens", tokens, minimum=1, maximum=64)
    prefill = tokens if prefill is None else as_int("prefill", prefill, minimum=1, maximum=tokens)
    import torch

    with torch.random.fork_rng(devices=[]), one_torch_thread():
        torch.manual_seed(seed)
        model, text = _tiny_model(config)
        model.eval()
        ids = torch.randint(0, min(int(text.vocab_size), 100), (1, tokens))  # text ids, below any image token id
        with torch.no_grad():
            cache = model(input_ids=ids[:, :prefill], use_cache=True).past_key_values
            for i in range(prefill, tokens):
                cache = model(input_ids=ids[:, i:i + 1], past_key_values=cache, use_cache=True).past_key_values

    def size(found: dict) -> int:
        return sum(t.numel() * t.element_size() for t in found.values())

    every: dict = {}
    states: dict = {}
    for layer in cache.layers:
        for name, value in vars(layer).items():
            _tensors(value, states if name in FIXED_STATES else every)
    return MeasuredCache(size(every), size(states), [type(layer).__name__ for layer in cache.layers])
