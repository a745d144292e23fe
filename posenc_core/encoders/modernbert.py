"""ModernBERT's local and global rotary layers, read through the one config reading every config page uses.

``ModernBertConfig`` lays out its layers as "full_attention" every ``global_attn_every_n_layers`` (3) layers,
counting from layer 0, and "sliding_attention" between them; full layers rotate with global_rope_theta (160,000),
sliding ones with local_rope_theta (10,000). ``local_attention`` (128) is the whole window: the class stores half
of it as ``sliding_window`` and the bidirectional mask lets a token see up to 64 keys on each side. The rows here
come from ``read_layers`` (so Layer by layer shows the same facts) and the frequencies from ``layer_inv_freq``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._checks import MAX_POSITIONS, as_choice, as_int

if TYPE_CHECKING:
    from ..configs.presets import Preset
    from ..configs.summaries import LayerPairs

__all__ = [
    "MODERNBERT_PRESETS",
    "ModernBertAttentionCost",
    "ModernBertCostCurve",
    "ModernBertPairs",
    "ModernBertReading",
    "modernbert_attention_cost",
    "modernbert_cost_curve",
    "modernbert_frequencies",
    "modernbert_keys_seen",
    "modernbert_masks",
    "modernbert_pairs",
    "modernbert_reading",
]


def _presets() -> dict[str, Preset]:
    """The two released sizes (their notes are the lesson's words: lessons/encoders/words.py)."""
    from ..configs.presets import Preset

    common = {"model_type": "modernbert", "max_position_embeddings": 8192, "global_attn_every_n_layers": 3,
              "global_rope_theta": 160000.0, "local_attention": 128, "local_rope_theta": 10000.0}
    return {
        "modernbert-base": Preset("ModernBERT-base", "answerdotai/ModernBERT-base", "config.json",
                                  {**common, "hidden_size": 768, "num_attention_heads": 12, "num_hidden_layers": 22,
                                   "intermediate_size": 1152}),
        "modernbert-large": Preset("ModernBERT-large", "answerdotai/ModernBERT-large", "config.json",
                                   {**common, "hidden_size": 1024, "num_attention_heads": 16,
                                    "num_hidden_layers": 28, "intermediate_size": 2624}),
    }


MODERNBERT_PRESETS = _presets()
KINDS = {"global": "full_attention", "local": "sliding_window"}  # layer kind -> the mixer its layers have


@dataclass(frozen=True)
class ModernBertReading:
    """A ModernBERT preset as the one reading reads it (``modernbert_reading``).

    rows: one LayerRow per layer.
    layers: {"global" / "local": the first LayerRow of that kind}.
    pattern: "G" / "L" per layer; context: max_position_embeddings.
    class_name: the transformers config class that read it; model_id, source: the preset's repository and file.
    facts: {kind: the facts (configs.LayerFact) of Layer by layer for that kind's first layer}.
    """

    rows: list[Any]
    layers: dict[str, Any]
    pattern: str
    context: int
    class_name: str | None
    model_id: str
    source: str
    facts: dict[str, tuple[Any, ...]]


@functools.lru_cache(maxsize=4)
def modernbert_reading(preset: str = "modernbert-base") -> ModernBertReading:
    """A ModernBERT preset as the one reading reads it (a ``ModernBertReading``)."""
    from ..configs import layer_facts, read_layers

    key = as_choice("preset", preset, tuple(MODERNBERT_PRESETS))
    spec = MODERNBERT_PRESETS[key]
    reading, rows = read_layers(spec.config)
    picked = {kind: next(r for r in rows if r.mixer == mixer) for kind, mixer in KINDS.items()}
    return ModernBertReading(rows, picked, "".join("L" if r.window else "G" for r in rows),
                             int(reading.get("max_position_embeddings")), reading.class_name, spec.model_id,
                             spec.source, {kind: tuple(layer_facts(row)) for kind, row in picked.items()})


def modernbert_frequencies(preset: str = "modernbert-base") -> dict[str, np.ndarray]:
    """Each layer kind's inv_freq, (head_dim / 2,) float32, as ``ModernBertRotaryEmbedding`` holds it."""
    from ..configs import layer_inv_freq

    reading = modernbert_reading(preset)
    return {kind: np.asarray(layer_inv_freq(reading.layers[kind])[0]) for kind in KINDS}


def _mask(n: int, window: int | None) -> np.ndarray:
    """(n, n) bool: every key without a window, else keys at most window − 1 away on either side."""
    if window is None:
        return np.ones((n, n), dtype=bool)
    ids = np.arange(n)
    return np.abs(ids[:, None] - ids[None, :]) <= window - 1


def modernbert_masks(n: int, preset: str = "modernbert-base") -> dict[str, np.ndarray]:
    """Which keys each query sees in each layer kind ("global", "local"), (n, n) bool: every key in a global layer,
    keys at most window − 1 away on either side in a local one (transformers' bidirectional sliding-window mask)."""
    n = as_int("tokens", n, minimum=1, maximum=2048)
    reading = modernbert_reading(preset)
    return {kind: _mask(n, reading.layers[kind].window) for kind in KINDS}


def modernbert_keys_seen(n: int, query: int, preset: str = "modernbert-base") -> int:
    """How many keys query ``query`` of ``n`` tokens sees in a local layer (one row of ``modernbert_masks``)."""
    n = as_int("tokens", n, minimum=1, maximum=2048)
    query = as_int("query", query, minimum=0, maximum=n - 1)
    return int(np.count_nonzero(modernbert_masks(n, preset)["local"][query]))


@dataclass(frozen=True)
class ModernBertAttentionCost:
    """How many query-key scores one forward pass over n tokens computes (``modernbert_attention_cost``).

    Attributes:
        modernbert: its global layers n² each, its local layers what the window leaves (scores, an int).
        all_global: every layer n² (an int).
        causal: every layer n(n + 1) / 2, a decoder's mask (an int).
        layers, global_layers, local_layers: how many layers, of each kind (ints).
        local_per_layer: the scores one local layer computes (an int).
        local_per_token: a local layer's scores per query (a float).
    """

    modernbert: int
    all_global: int
    causal: int
    layers: int
    global_layers: int
    local_layers: int
    local_per_layer: int
    local_per_token: float


def modernbert_attention_cost(n: int, preset: str = "modernbert-base") -> ModernBertAttentionCost:
    """How many query-key scores one forward pass over n tokens computes, counted layer by layer.

    Returns a ``ModernBertAttentionCost``: ``modernbert`` (its global layers n² each, its local layers what the
    window leaves), ``all_global`` (every layer n²), ``causal`` (every layer n(n + 1) / 2, a decoder's mask),
    ``layers``, ``global_layers``, ``local_layers``, ``local_per_layer``: exact integers; ``local_per_token``: a
    local layer's scores per query.
    """
    n = as_int("tokens", n, minimum=1, maximum=MAX_POSITIONS)
    reading = modernbert_reading(preset)
    reach = reading.layers["local"].window - 1
    # (n,): the keys query i sees run from max(i − reach, 0) to min(i + reach, n − 1)
    ids = np.arange(n, dtype=np.int64)
    local = int(np.sum(np.minimum(ids + reach, n - 1) - np.maximum(ids - reach, 0) + 1))
    layers = len(reading.rows)
    global_layers = reading.pattern.count("G")
    return ModernBertAttentionCost(
        modernbert=global_layers * n * n + (layers - global_layers) * local, all_global=layers * n * n,
        causal=layers * n * (n + 1) // 2, layers=layers, global_layers=global_layers,
        local_layers=layers - global_layers, local_per_layer=local, local_per_token=local / n)


@dataclass(frozen=True)
class ModernBertCostCurve:
    """``modernbert_attention_cost`` at lengths doubling up to the longest, each of shape (points,).

    Attributes:
        tokens: the lengths read, int64.
        modernbert, all_global, causal: the score counts at each length (``ModernBertAttentionCost``), int64.
        share: modernbert / all_global, float64.
    """

    tokens: np.ndarray
    modernbert: np.ndarray
    all_global: np.ndarray
    causal: np.ndarray
    share: np.ndarray


def modernbert_cost_curve(preset: str = "modernbert-base", longest: int = 8192,
                          points: int = 7) -> ModernBertCostCurve:
    """``modernbert_attention_cost`` at ``points`` lengths doubling up to ``longest`` (a ``ModernBertCostCurve``):
    ``tokens`` and one (points,) int64 array per count (``modernbert``, ``all_global``, ``causal``), and ``share``
    = modernbert / all_global."""
    longest = as_int("reading length", longest, minimum=2, maximum=MAX_POSITIONS)
    points = as_int("points", points, minimum=1, maximum=20)
    tokens = np.unique(np.maximum(longest // 2 ** np.arange(points - 1, -1, -1), 1)).astype(np.int64)
    costs = [modernbert_attention_cost(int(t), preset) for t in tokens]
    modernbert, all_global, causal = (np.array([getattr(c, key) for c in costs], dtype=np.int64)
                                      for key in ("modernbert", "all_global", "causal"))
    return ModernBertCostCurve(tokens=tokens, modernbert=modernbert, all_global=all_global, causal=causal,
                               share=modernbert / all_global)


@dataclass(frozen=True)
class ModernBertPairs:
    """One layer kind's rotary pairs as Layer by layer draws them (``modernbert_pairs``).

    Attributes:
        layer: ``layer_pairs`` of the kind's first layer: wavelength and band per pair, (head_dim / 2,) arrays,
            against the layer's reach and the context (``configs.LayerPairs``).
        counts: pairs per band, {band (``PAIR_BANDS``): int}.
        pairs: how many pairs (an int).
        under_a_turn: the pairs that turn less than once within the layer's reach (an int).
    """

    layer: LayerPairs
    counts: dict[str, int]
    pairs: int
    under_a_turn: int


def modernbert_pairs(preset: str = "modernbert-base") -> dict[str, ModernBertPairs]:
    """Each layer kind's pairs ("global", "local": a ``ModernBertPairs``) as Layer by layer draws them
    (``layer_pairs``: wavelength and band per pair against the layer's reach and the context), with ``counts``:
    pairs per band, ``pairs``: how many pairs, and ``under_a_turn``: the pairs that turn less than once within the
    layer's reach."""
    from ..configs import layer_pairs
    from ..configs.summaries import PAIR_BANDS

    reading = modernbert_reading(preset)
    out: dict[str, ModernBertPairs] = {}
    for kind in KINDS:
        pairs = layer_pairs(reading.layers[kind], reading.context)
        counts: dict[str, int] = {band: int(np.count_nonzero(pairs.band == band)) for band in PAIR_BANDS}
        out[kind] = ModernBertPairs(layer=pairs, counts=counts, pairs=int(pairs.pair.size),
                                    under_a_turn=int(pairs.pair.size) - counts["in_span"])
    return out
