"""Position rules that differ from layer to layer in the language models of 2025-26.

Two ideas live here, each following transformers 5.23's model files:

* local and global layers: a sliding-window layer and a full-attention layer of the same model rotate
  with different settings (base, scaling, rotated fraction, head size). ``LOCAL_GLOBAL_MODELS`` names four
  such models; ``local_global_model`` reads each layer kind's setting from the model's preset config through
  the one config reading, and ``local_global_view`` measures each kind's pairs against its own window and
  against the whole context.
* query temperature on layers that do not rotate: Llama 4 multiplies the query of its NoPE layers by
  1 + 0.1·log1p(floor((p + 1) / 8192)); Ministral 3 / Mistral Small 4 multiply every query by
  1 + beta·log(1 + floor(p / L_orig)). ``QUERY_SCALE_RULES`` holds both, with one signature;
  ``attention_entropy.temperature_entropy`` shows on computed scores what they do to attention far away.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .._backend import keeps_kind
from .._checks import MAX_DIM, MAX_POSITIONS, as_base, as_choice, as_float, as_int
from .._types import ArrayOrTensor
from ..long_context.extension import score_vs_distance
from ..rope.frequencies import rope_inv_freq

__all__ = [
    "LOCAL_GLOBAL_MODELS",
    "NOPE_LAYER_MODELS",
    "QUERY_SCALE_RULES",
    "LayerRope",
    "LocalGlobalModel",
    "LocalGlobalView",
    "NopeLayerModel",
    "QueryScaleFirstSteps",
    "QueryScaleRule",
    "PairView",
    "WindowEdge",
    "layer_kind_inv_freq",
    "llama4_attn_temperature",
    "llama_4_scaling_beta",
    "local_global_model",
    "local_global_scores",
    "local_global_view",
    "local_global_window_edge",
    "nope_layer_counts",
    "nope_layer_map",
    "query_scale_first_steps",
    "proportional_inv_freq",
    "query_scale_positions",
    "query_temperature",
]

MAX_RULE_POSITION = 1 << 27  # 134M: past every released context (Llama 4 Scout: 10M)


@dataclass(frozen=True)
class LayerRope:
    """How one kind of layer rotates: transformers' rope_parameters for that layer type, plus its window."""

    head_dim: int
    base: float
    rope_type: str = "default"  # default, linear, yarn or proportional
    scaling: Mapping = field(default_factory=dict)  # the other keys of that layer type's rope_parameters
    partial_rotary_factor: float = 1.0
    window: int | None = None  # keys a query sees (itself included), as transformers' sliding_window; None: all


@dataclass(frozen=True)
class LocalGlobalModel:
    """A model's two layer kinds as the one config reading reads them (``local_global_model``).

    local: the sliding-window layers' rotation and window.
    full: the full-attention layers' rotation.
    kinds: each attention layer's kind in order, "L" (sliding window) or "G" (full).
    context: max_position_embeddings, tokens.
    preset: the ``posenc_core.configs.PRESETS`` key the settings are read from.
    class_name: the transformers config class that read it (None: the generic reading).
    facts: kind -> layer_facts of its first layer (LayerFact codes).
    layers: kind -> the index of that layer.
    """

    local: LayerRope
    full: LayerRope
    kinds: str
    context: int
    preset: str
    class_name: str | None
    facts: dict = field(default_factory=dict)
    layers: dict = field(default_factory=dict)


# name -> the preset (``posenc_core.configs.PRESETS``) whose config each layer kind's setting is read from, through
# the one reading every config page uses (``read_layers``: the model's transformers config class and its code).
LOCAL_GLOBAL_MODELS: dict[str, str] = {
    "Gemma 3 27B": "gemma3-27b",
    "Gemma 4": "gemma4",
    "Olmo 3 7B": "olmo3-7b",
    "MiMo-V2-Flash": "mimo-v2-flash",
}
KIND_MIXERS = {"local": "sliding_window", "full": "full_attention"}


def _layer_rope(row) -> LayerRope:
    scaling = {k: v for k, v in row.scaling.items() if k != "rope_type" and v is not None}
    return LayerRope(row.head_dim, row.theta, row.rope_type, scaling, row.partial_rotary_factor, row.window)


def _layout(rows) -> str:
    """How the two kinds alternate, read from the reading: each attention layer as L (local) or G (full)."""
    return "".join("L" if r.mixer == "sliding_window" else "G" for r in rows if r.is_attention)


@functools.lru_cache(maxsize=8)
def local_global_model(model: str) -> LocalGlobalModel:
    """Each layer kind of ``model``'s preset config as the one reading reads it (the first rotating layer of each
    kind), with the layer facts the other config pages show for it."""
    from ..configs import PRESETS, layer_facts, read_layers  # the config reading sits above these rules

    key = LOCAL_GLOBAL_MODELS[as_choice("model", model, tuple(LOCAL_GLOBAL_MODELS))]
    preset = PRESETS[key]
    reading, rows = read_layers(preset.config)
    picked = {kind: next(r for r in rows if r.rotates and r.mixer == mixer) for kind, mixer in KIND_MIXERS.items()}
    return LocalGlobalModel(
        local=_layer_rope(picked["local"]), full=_layer_rope(picked["full"]), kinds=_layout(rows),
        context=int(reading.get("max_position_embeddings")), preset=key, class_name=reading.class_name,
        facts={kind: tuple(layer_facts(row)) for kind, row in picked.items()},
        layers={kind: row.index for kind, row in picked.items()})


def proportional_inv_freq(head_dim: int, base: float, partial_rotary_factor: float = 1.0,
                          factor: float = 1.0) -> np.ndarray:
    """Gemma 4's "proportional" RoPE: the first pairs turn with exponents over the *whole* head_dim, the rest do not.

    Mirrors transformers' ``_compute_proportional_rope_parameters`` in float32: int(fraction·head_dim // 2)
    pairs get 1 / base^(2i / head_dim) (not / rotary_dim, as partial RoPE elsewhere), the remaining pairs
    get frequency 0, and everything is divided by ``factor``.

    Returns:
        (head_dim / 2,) float32.
    """
    head_dim = as_int("head_dim", head_dim, minimum=2, maximum=MAX_DIM)
    base = as_base(base)
    fraction = as_float("partial_rotary_factor", partial_rotary_factor, minimum=0.0, maximum=1.0)
    factor = as_float("factor", factor, above=0.0)
    rope_angles = int(fraction * head_dim // 2)
    exponents = np.arange(0, 2 * rope_angles, 2, dtype=np.int64).astype(np.float32) / np.float32(head_dim)
    rotated = (1.0 / np.power(np.float64(base), exponents.astype(np.float64))).astype(np.float32)
    inv_freq = np.concatenate([rotated, np.zeros(head_dim // 2 - rope_angles, dtype=np.float32)])
    return (inv_freq / np.float32(factor)).astype(np.float32)


def layer_kind_inv_freq(layer: LayerRope, context: int | None = None) -> tuple[np.ndarray, float]:
    """``(inv_freq, attention_factor)`` of one layer kind, as that layer's rotary module computes them.

    ``context`` is max_position_embeddings (YaRN's default L'). Proportional RoPE returns head_dim / 2
    frequencies, the trailing ones 0; the other types return rotary_dim / 2.
    """
    if layer.rope_type == "proportional":
        # transformers' own op order (rope_inv_freq's proportional type), as Layer by layer computes it: the numpy
        # proportional_inv_freq can land one float32 ulp away from the model's buffer
        proportional = {"rope_type": "proportional", **layer.scaling,
                        "partial_rotary_factor": layer.partial_rotary_factor}
        return rope_inv_freq(layer.head_dim, layer.base, proportional, max_position_embeddings=context)
    scaling = {"rope_type": layer.rope_type, **layer.scaling} if layer.rope_type != "default" else None
    return rope_inv_freq(layer.head_dim, layer.base, scaling, partial_rotary_factor=layer.partial_rotary_factor,
                         max_position_embeddings=context)


@dataclass(frozen=True)
class PairView:
    """One layer kind measured against what it sees, over the whole head (``local_global_view``).

    inv_freq: (pairs,) float64 rad per position, 0 for the pairs RoPE leaves alone.
    attention_factor: the factor on cos and sin.
    wavelength: (pairs,) tokens per turn, inf where a pair does not turn.
    span: the farthest a query of this layer looks, plus one (the window, or the context for full layers).
    turns_in_span: (pairs,) turns over the span.
    turns_in_context: (pairs,) turns over the context.
    pairs: head_dim / 2.
    rotated_dims: dimensions that turn.
    head_dim: the head's dimensions.
    full_turn_in_span: pairs that turn at least once inside the span.
    near_still_in_span: pairs whose angle stays under a quarter turn over the span.
    slowest_wavelength: tokens, the longest finite wavelength (inf if none turns).
    unrotated_pairs: pairs that never turn.
    most_turns_in_span: the fastest pair's turns over the span.
    """

    inv_freq: np.ndarray
    attention_factor: float
    wavelength: np.ndarray
    span: int
    turns_in_span: np.ndarray
    turns_in_context: np.ndarray
    pairs: int
    rotated_dims: int
    head_dim: int
    full_turn_in_span: int
    near_still_in_span: int
    slowest_wavelength: float
    unrotated_pairs: int
    most_turns_in_span: float


@dataclass(frozen=True)
class LocalGlobalView:
    """Each layer kind of a model measured against what it sees (``local_global_view``).

    local: the sliding-window layers.
    full: the full-attention layers.
    context: max_position_embeddings, tokens.
    slowest_ratio: the full layers' slowest wavelength over the local ones'.
    """

    local: PairView
    full: PairView
    context: int
    slowest_ratio: float


@dataclass(frozen=True)
class WindowEdge:
    """Both layer kinds' scores at the window's edge (``local_global_window_edge``).

    distance: tokens, the last plotted distance inside the window.
    local: the local layer's score there.
    full: the full layer's score there.
    far: the full layer's score at the far end of the context.
    """

    distance: int
    local: float
    full: float
    far: float


def _pair_view(layer: LayerRope, context: int) -> PairView:
    inv_freq, attention_factor = layer_kind_inv_freq(layer, context)
    # the whole head, pair by pair: dimensions partial RoPE leaves alone are pairs with frequency 0
    theta = np.zeros(layer.head_dim // 2)  # (head_dim / 2,)
    theta[: inv_freq.size] = inv_freq
    with np.errstate(divide="ignore"):
        wavelength = np.where(theta > 0, 2 * math.pi / np.where(theta > 0, theta, 1.0), np.inf)
    span = layer.window or context  # the farthest a query of this layer looks, plus one
    return PairView(
        inv_freq=theta, attention_factor=attention_factor, wavelength=wavelength, span=span,
        turns_in_span=(span - 1) * theta / (2 * math.pi), turns_in_context=(context - 1) * theta / (2 * math.pi),
        pairs=int(theta.size), rotated_dims=int(2 * np.count_nonzero(theta)), head_dim=layer.head_dim,
        # a pair that turns at least once inside what the layer sees tells every distance there apart by angle
        full_turn_in_span=int(np.count_nonzero(wavelength <= span - 1)),
        # a pair whose angle stays under a quarter turn over the whole span is nearly a constant: content only
        near_still_in_span=int(np.count_nonzero((span - 1) * theta < math.pi / 2)),
        slowest_wavelength=float(wavelength[np.isfinite(wavelength)].max()) if np.any(theta > 0) else math.inf,
        unrotated_pairs=int(theta.size - np.count_nonzero(theta)),
        most_turns_in_span=float((span - 1) * theta.max() / (2 * math.pi)))


def local_global_view(model: str) -> LocalGlobalView:
    """Each layer kind of a model measured against what it sees: a ``LocalGlobalView``."""
    spec = local_global_model(model)
    local, full = _pair_view(spec.local, spec.context), _pair_view(spec.full, spec.context)
    return LocalGlobalView(local=local, full=full, context=spec.context,
                           slowest_ratio=full.slowest_wavelength / local.slowest_wavelength)


def local_global_scores(model: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Score of a query with an identical key against distance, for each layer kind of ``model``.

    Returns ``(distances, {"local": scores, "full": scores})``: ``score_vs_distance`` over the context, each
    kind's scores NaN past the farthest key it sees (window - 1 for sliding-window layers).
    """
    result = local_global_view(model)
    distances, series = np.empty(0), {}
    for kind in ("local", "full"):
        view = getattr(result, kind)
        distances, scores = score_vs_distance(view.inv_freq, view.attention_factor, result.context - 1)
        series[kind] = np.where(distances <= view.span - 1, scores, np.nan)  # (points,)
    return distances, series


def local_global_window_edge(model: str) -> WindowEdge:
    """Both layer kinds' scores at the last plotted distance inside the window, and the full one's at the far end,
    read from ``local_global_scores``."""
    distances, curves = local_global_scores(model)
    window = local_global_view(model).local.span
    edge = int(np.searchsorted(distances, window - 1, side="right")) - 1
    return WindowEdge(distance=int(distances[edge]), local=float(curves["local"][edge]),
                      full=float(curves["full"][edge]), far=float(curves["full"][-1]))


# --- layers without positions ----------------------------------------------------------------------------

def _every_fourth_nope(i: int) -> bool:
    return (i + 1) % 4 != 0  # Llama4TextConfig / SmolLM3Config: no_rope_layer_interval 4


class NopeLayerModel(NamedTuple):
    """Which layers of a model rotate (the pages word each model's rule by its name).

    rotates: layer index -> True where the layer applies RoPE.
    depth: the number of layers, the config class's default.
    """

    rotates: Callable[[int], bool]
    depth: int


# name -> its layers: Llama 4 Scout (chunked RoPE layers, NoPE layers with temperature), SmolLM3 (every fourth
# layer NoPE), Cohere2 and EXAONE 4 (sliding-window layers rotate, full ones do not), Ministral 3 (every layer)
NOPE_LAYER_MODELS: dict[str, NopeLayerModel] = {
    "Llama 4 Scout": NopeLayerModel(_every_fourth_nope, 48),
    "SmolLM3": NopeLayerModel(_every_fourth_nope, 36),
    "Cohere2": NopeLayerModel(lambda i: (i + 1) % 4 != 0, 40),
    "EXAONE 4": NopeLayerModel(lambda i: (i + 1) % 4 != 0, 32),
    "Ministral 3": NopeLayerModel(lambda i: True, 34),
}


def nope_layer_map(n_layers: int = 48) -> tuple[list[str], np.ndarray]:
    """Which layers rotate in each model of NOPE_LAYER_MODELS: ``(names, (models, n_layers))`` with 1 = RoPE,
    0 = no positions, NaN past that model's last layer."""
    n_layers = as_int("number of layers", n_layers, minimum=1, maximum=256)
    names = list(NOPE_LAYER_MODELS)
    grid = np.full((len(names), n_layers), np.nan)
    for row, name in enumerate(names):
        rotates, depth = NOPE_LAYER_MODELS[name]
        for i in range(min(depth, n_layers)):
            grid[row, i] = float(rotates(i))
    return names, grid


def nope_layer_counts() -> dict[str, tuple[int, int]]:
    """For each model of NOPE_LAYER_MODELS: ``(layers without positions, layers)`` over its whole depth."""
    return {name: (sum(1 for i in range(depth) if not rotates(i)), depth)
            for name, (rotates, depth) in NOPE_LAYER_MODELS.items()}


# --- query temperature ----------------------------------------------------------------------------------

def _positions(positions) -> np.ndarray:
    p = np.asarray(positions)
    if p.size == 0 or not np.issubdtype(p.dtype, np.number) or np.issubdtype(p.dtype, np.complexfloating):
        raise ValueError("Positions must be a non-empty list of whole numbers.")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p != np.floor(p)):
        raise ValueError("Positions must be whole numbers of at least 0.")
    if p.max() > MAX_RULE_POSITION:
        raise ValueError(f"Positions must be at most {MAX_RULE_POSITION:,}.")
    return p.astype(np.float32)  # torch: positions.float()


@dataclass(frozen=True)
class QueryScaleFirstSteps:
    """The first position where each query-scale rule's multiplier (at scale 1) leaves 1 (``query_scale_first_steps``).

    Attributes:
        llama: Llama 4's (floor_scale 8,192) first step among the positions given, a position; None if none
            reaches it.
        mistral: Mistral's (original_max_position_embeddings ``period``) first step, a position; None if none
            reaches it.
    """

    llama: int | None
    mistral: int | None


def query_scale_first_steps(positions: ArrayOrTensor, period: int = 16384) -> QueryScaleFirstSteps:
    """The first of ``positions`` where each rule's multiplier (at scale 1) leaves 1.

    Returns:
        A ``QueryScaleFirstSteps``: ``llama`` and ``mistral``, Llama 4's (floor_scale 8,192) and Mistral's
        (original_max_position_embeddings ``period``) first step among the positions, None if none reaches it.
    """
    p = _positions(positions)  # (n,)

    def first(curve: np.ndarray) -> int | None:
        above = np.flatnonzero(curve > 1)
        return int(p[above[0]]) if above.size else None

    return QueryScaleFirstSteps(llama=first(llama4_attn_temperature(p, 1.0, 8192)),
                                mistral=first(llama_4_scaling_beta(p, 1.0, period)))


@keeps_kind
def llama4_attn_temperature(positions: ArrayOrTensor, scale: float = 0.1, period: int = 8192) -> ArrayOrTensor:
    """Llama 4's NoPE-layer query scale, log1p(floor((p + 1) / floor_scale)) · attn_scale + 1, in float32.

    As ``Llama4TextAttention.forward``: p counts from 0 (cache length + index), the +1 makes the first
    step land at p = floor_scale - 1, and only layers without RoPE use it (``attn_temperature_tuning``).
    """
    p = _positions(positions)
    scale = np.float32(as_float("attn_scale", scale, minimum=0.0, maximum=10.0))
    period = np.float32(as_int("floor_scale", period, minimum=1, maximum=MAX_POSITIONS))
    return (np.log1p(np.floor((p + np.float32(1.0)) / period)) * scale + np.float32(1.0)).astype(np.float32)


@keeps_kind
def llama_4_scaling_beta(positions: ArrayOrTensor, scale: float = 0.1, period: int = 16384) -> ArrayOrTensor:
    """Ministral 3 / Mistral Small 4's query scale, 1 + beta · log(1 + floor(p / L_orig)), in float32.

    As ``get_llama_4_attn_scale`` in transformers' ministral3 and mistral4 code: p is the position id
    (no +1), L_orig is rope_parameters['original_max_position_embeddings'], and every layer applies it
    after RoPE.
    """
    p = _positions(positions)
    scale = np.float32(as_float("llama_4_scaling_beta", scale, minimum=0.0, maximum=10.0))
    period = np.float32(as_int("original_max_position_embeddings", period, minimum=1, maximum=MAX_POSITIONS))
    return (np.float32(1.0) + scale * np.log(np.float32(1.0) + np.floor(p / period))).astype(np.float32)


QueryScaleFn = Callable[..., np.ndarray]

class QueryScaleRule(NamedTuple):
    """A query-scale rule with the released models' defaults.

    fn: the multiplier at each position (``fn(positions, scale, period)``).
    scale: the default scale (attn_scale, llama_4_scaling_beta).
    period: the default period, tokens (floor_scale, original_max_position_embeddings).
    """

    fn: QueryScaleFn
    scale: float
    period: int


# rule -> its function and defaults: Llama 4's NoPE layers; Ministral 3 / Mistral Small 4's every layer
QUERY_SCALE_RULES: dict[str, QueryScaleRule] = {
    "llama4": QueryScaleRule(llama4_attn_temperature, 0.1, 8192),
    "llama_4_scaling_beta": QueryScaleRule(llama_4_scaling_beta, 0.1, 16384),
}


@keeps_kind
def query_temperature(rule: str, positions: ArrayOrTensor, scale: float | None = None,
                      period: int | None = None) -> ArrayOrTensor:
    """The query multiplier of ``rule`` (a key of QUERY_SCALE_RULES) at each position, float32."""
    fn, default_scale, default_period = QUERY_SCALE_RULES[as_choice("rule", rule, tuple(QUERY_SCALE_RULES))]
    return fn(positions, default_scale if scale is None else scale, default_period if period is None else period)


def query_scale_positions(context: int, periods: Sequence[int] = (8192, 16384), steps: int = 16) -> np.ndarray:
    """Positions 1 .. context - 1 to draw the query-scale rules at: a 1,000-point log grid plus both sides of the
    first ``steps`` steps of each period (Llama 4 steps at k·period - 1, Mistral at k·period), so the stairs
    stay sharp where they are wide enough to see. Returns (n,) int64, sorted and unique."""
    context = as_int("context", context, minimum=2, maximum=MAX_RULE_POSITION)
    steps = as_int("steps", steps, minimum=0, maximum=64)
    llama, mistral = (as_int("period", p, minimum=1, maximum=MAX_RULE_POSITION) for p in periods)
    stairs = [np.arange(start, min(context, start + steps * period), period)
              for start, period in ((llama - 1, llama), (mistral, mistral))]
    grid = np.unique(np.concatenate([np.geomspace(1, context - 1, 1000).astype(np.int64), *stairs,
                                     *(s - 1 for s in stairs)]))
    return grid[(grid >= 1) & (grid < context)]
