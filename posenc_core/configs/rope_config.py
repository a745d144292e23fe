"""One layer's RoPE setting from a config.json, the training and target lengths it implies, and a summary.

These are the entry points the long-context pages use; they read the config through the model's own
``transformers`` class (see ``reader``) and the per-layer scheme (see ``layers``), so a config is read
the same way on every page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np

from .._checks import MAX_POSITIONS, as_base, as_float, as_int
from .._types import ArrayOrTensor
from ..long_context.extension import ExtensionAnalysis, deepseek_softmax_mscale, extension_analysis, score_vs_distance
from ..rope.frequencies import rope_inv_freq, rotary_dim, scaling_type
from .layer_reading import _layer_count, layer_scheme
from .layer_rope import rope_call
from .layer_row import LayerRow
from .query_scale import query_scale_start
from .reader import ConfigReading, normalise_config, require_class_reading
from .summaries import LayerPairs, layer_pairs

__all__ = [
    "ConfigView",
    "ContextLengths",
    "ContextRule",
    "FactCode",
    "Feature",
    "HowCode",
    "LayerFact",
    "OriginCode",
    "RopeConfig",
    "SettingRow",
    "config_contexts",
    "config_view",
    "layer_contexts",
    "layer_facts",
    "model_contexts",
    "describe_rope_config",
    "read_rope_config",
    "rope_from_config",
    "rope_layer_types",
]

_MAX_CONTEXT = MAX_POSITIONS * 64


@dataclass(frozen=True)
class RopeConfig:
    """What ``rope_from_config`` read from a model's config.json.

    Fields:
        head_dim: the head size RoPE is computed for (qk_rope_head_dim for latent attention), dimensions.
        base: rope_theta.
        rope_type: the scaling type (``"default"`` without scaling).
        scaling: the RoPE dict handed to ``rope_inv_freq`` (rope_theta and the partial factor taken out).
        partial_rotary_factor: the fraction of each head that rotates.
        max_position_embeddings: the context the config declares, tokens (None when absent).
        layer_type: the key of a nested ``rope_parameters`` read (None for one setting everywhere).

    >>> pc.read_rope_config(pc.preset_config('llama2-7b')).rope_type
    'default'
    """

    head_dim: int
    base: float
    rope_type: str
    scaling: dict[str, Any] = field(default_factory=dict)
    partial_rotary_factor: float = 1.0
    max_position_embeddings: int | None = None
    layer_type: str | None = None

    @property
    def rotary_dim(self) -> int:
        """Dimensions of each head that rotate."""
        return rotary_dim(self.head_dim, self.partial_rotary_factor)


def rope_layer_types(config: Mapping[str, Any]) -> list[str]:
    """The RoPE settings a config holds, one per key of a nested ``rope_parameters`` ([] when there is one).

    Keys are the layer types (Gemma 3's ``sliding_attention`` / ``full_attention``) or, where the model
    labels its RoPE dicts by role, those labels (DeepSeek V4's ``main`` / ``compress``). Raises
    ``MissingExtraError`` for a config with a ``model_type`` when transformers is not installed.
    """
    reading = normalise_config(config)
    require_class_reading(reading, "Reading a config's RoPE settings")
    rows = layer_scheme(reading, default_layers=1)
    labels = [row.rope_label for row in rows if row.rotates and row.rope_label is not None]
    return list(dict.fromkeys(labels))


def read_rope_config(config: Mapping[str, Any], layer_type: str | None = None) -> RopeConfig:
    """The RoPE setting of one kind of layer, read as the model's config class reads it.

    ``layer_type`` picks a key of a nested ``rope_parameters`` (default: ``full_attention`` if there is one,
    else the first). Raises ``ValueError`` when no layer of the model rotates, and ``MissingExtraError`` for a
    config with a ``model_type`` when transformers is not installed (its class could set other defaults).

    >>> rope = pc.read_rope_config(pc.preset_config('llama3.1-8b'))
    >>> rope.head_dim, rope.base, rope.rope_type
    (128, 500000.0, 'llama3')
    """
    reading = normalise_config(config)
    require_class_reading(reading, "Reading a config's RoPE setting")
    return _read_rope(reading, layer_type)


def _read_rope(reading: ConfigReading, layer_type: str | None, scheme: list[LayerRow] | None = None) -> RopeConfig:
    """``read_rope_config`` from a config already read through its class (the class is the costly part) and,
    where the caller has it, ``layer_scheme(reading, default_layers=1)``."""
    scheme = layer_scheme(reading, default_layers=1) if scheme is None else scheme
    rows = [row for row in scheme if row.rotates]
    if not rows:
        raise ValueError("No layer of this model rotates its queries and keys (every attention layer is NoPE, "
                         "or the config has no RoPE settings), so there are no frequencies to show.")
    labels = list(dict.fromkeys(row.rope_label for row in rows if row.rope_label is not None))
    if labels:
        chosen = layer_type or ("full_attention" if "full_attention" in labels else labels[0])
        if chosen not in labels:
            raise ValueError(f"layer_type must be one of {', '.join(labels)}, but got {chosen!r}.")
        row = next(r for r in rows if r.rope_label == chosen)
    else:
        row, chosen = rows[0], None
    if row.head_dim is None:
        raise ValueError("The config has no head_dim, and deriving it needs hidden_size and "
                         "num_attention_heads, which are missing.")
    scaling, partial = rope_call(row)
    scaling_type(scaling)  # a clear sentence for an unknown rope_type
    return RopeConfig(head_dim=row.head_dim, base=as_base(row.theta if row.theta is not None else 10000.0),
                      rope_type=scaling.get("rope_type", "default"), scaling=scaling,
                      partial_rotary_factor=as_float("partial_rotary_factor", partial, above=0.0, maximum=1.0),
                      max_position_embeddings=None if reading.get("max_position_embeddings") is None else
                      as_int("max_position_embeddings", reading.get("max_position_embeddings"), minimum=1,
                             maximum=_MAX_CONTEXT),
                      layer_type=chosen)


def rope_from_config(config: Mapping[str, Any], seq_len: int | None = None, *, layer_type: str | None = None,
                     backend: str = "numpy", device: str | None = None) -> tuple[ArrayOrTensor, float]:
    """``(inv_freq, attention_factor)`` for a model's config.json dict, as transformers computes them.

    Raises ``MissingExtraError`` where the installed extras cannot give transformers' numbers: torch is needed to
    form them, and transformers to read a config with a ``model_type`` through its class.

    >>> inv_freq, attention_factor = pc.rope_from_config(pc.preset_config('llama2-7b'))
    >>> inv_freq.shape, attention_factor
    ((64,), 1.0)
    """
    read = read_rope_config(config, layer_type)
    return rope_inv_freq(read.head_dim, read.base, read.scaling or None,
                         partial_rotary_factor=read.partial_rotary_factor, seq_len=seq_len,
                         max_position_embeddings=read.max_position_embeddings, backend=backend, device=device)


# How the training length L and the target L′ were chosen (``config_contexts``), one code per rule:
# original_factor / original_derived: L = original_max_position_embeddings, L′ = factor × L (factor from the config,
# or max_position_embeddings / L as transformers derives it); linear: L′ = max_position_embeddings, L = L′ / factor;
# ntk_alpha / proportional / default: L = max_position_embeddings, no L′ (default_no_max: no max_position_embeddings,
# L = 4,096 for reference); example_target: L′ = factor × L as an example (dynamic); no_rotation: the layer does
# not rotate.
HowCode = Literal["original_factor", "original_derived", "linear", "ntk_alpha", "proportional", "default",
                  "default_no_max", "example_target", "no_rotation"]


class ContextRule(NamedTuple):
    """How ``config_contexts`` chose L and L′.

    Fields:
        code: the rule (``HowCode``).
        rope_type: the scaling type it applies to (None for a layer that does not rotate).
        declared: max_position_embeddings, tokens, where the config declares one that is not L′ under a rule built
            on original_max_position_embeddings (llama3, yarn, longrope), else None.
    """

    code: HowCode
    rope_type: str | None
    declared: int | None = None


class ContextLengths(NamedTuple):
    """The training and target lengths a RoPE setting implies.

    Fields:
        original: L, the context the rotation was trained for, tokens.
        target: L′, the context it is stretched to, tokens; None where nothing is stretched.
        how: how they were chosen (``ContextRule``).
    """

    original: int
    target: int | None
    how: ContextRule


def _check_target(factor: float, original: int, original_field: str) -> None:
    """Refuse a factor whose L′ = factor × L no page can read, naming the fields the user wrote."""
    if factor * original > _MAX_CONTEXT:  # refused where L' is formed, never cut short
        raise ValueError(f"rope_scaling['factor'] = {factor:g} times {original_field} = {original:,} asks for a "
                         f"context of {factor * original:.4g} tokens; this page reads contexts up to "
                         f"{_MAX_CONTEXT:,} tokens.")


def _original_based_contexts(read: RopeConfig) -> ContextLengths:
    """llama3 / yarn / longrope: L = original_max_position_embeddings and L′ = factor × L."""
    scaling, max_pos, kind = read.scaling or {}, read.max_position_embeddings, read.rope_type
    original = scaling.get("original_max_position_embeddings") or max_pos
    if original is None:
        raise ValueError(f"rope_type '{kind}' needs original_max_position_embeddings.")
    original = as_int("original_max_position_embeddings", original, minimum=2, maximum=_MAX_CONTEXT)
    factor = scaling.get("factor")
    code: HowCode = "original_factor"
    if factor is None:
        if max_pos is None or max_pos <= original:
            raise ValueError("The config has neither a factor nor a max_position_embeddings above the original "
                             "context, so the target length is unknown.")
        factor, code = max_pos / original, "original_derived"
    factor = as_float("rope_scaling['factor']", factor, above=0.0)
    _check_target(factor, original, "original_max_position_embeddings")
    target = max(int(round(factor * original)), 2)
    declared = max_pos if max_pos is not None and max_pos != target else None
    return ContextLengths(original, target, ContextRule(code, kind, declared))


def config_contexts(read: RopeConfig) -> ContextLengths:
    """``(L, L′, how)``: the training length and the target length a RoPE setting implies.

    Decided per rope type from what transformers' code does with the config:
    - ``llama3`` / ``yarn`` / ``longrope``: the rule is built around ``original_max_position_embeddings``
      (L) and ``factor`` (absent: max_position_embeddings / L, as transformers derives it), so L′ = factor × L.
    - ``linear``: frequencies are divided by the factor and max_position_embeddings is the context the
      model is run at, so L′ = max_position_embeddings and L = L′ / factor (the span of angles the
      unscaled rotation covered).
    - ``dynamic``: frequencies are unchanged up to max_position_embeddings (L) and grow with the input
      beyond; there is no fixed target, so L′ = factor × L is shown as an example.
    - no scaling: L = max_position_embeddings and there is no L′ (None).
    """
    scaling = read.scaling or {}
    max_pos = read.max_position_embeddings
    kind = read.rope_type
    if kind in ("yarn", "llama3", "longrope"):
        return _original_based_contexts(read)
    if kind == "linear":
        factor = as_float("rope_scaling['factor']", scaling.get("factor"), above=0.0)
        if max_pos is None:
            raise ValueError("A linear-scaled config needs max_position_embeddings, the context it is run at.")
        if not 2 <= max_pos / factor <= _MAX_CONTEXT:  # refused before the division becomes a length
            raise ValueError(f"max_position_embeddings = {max_pos:,} divided by rope_scaling['factor'] = "
                             f"{factor:g} is a context of {max_pos / factor:.4g} tokens; this page reads contexts of "
                             f"2 to {_MAX_CONTEXT:,} tokens.")
        return ContextLengths(int(round(max_pos / factor)), max_pos, ContextRule("linear", kind))
    original = max_pos if max_pos is not None else 4096
    if kind == "ntk_alpha":
        return ContextLengths(original, None, ContextRule("ntk_alpha", kind))
    if kind == "proportional" and as_float("rope_scaling['factor']", scaling.get("factor", 1.0), above=0.0) == 1.0:
        # Gemma 4's p-RoPE: a share of each head rotates at the default frequencies, the rest not at all;
        # transformers' factor defaults to 1, so nothing is stretched
        return ContextLengths(original, None, ContextRule("proportional", kind))
    if kind == "default":
        return ContextLengths(original, None, ContextRule("default" if max_pos is not None else "default_no_max",
                                                          kind))
    factor = as_float("rope_scaling['factor']", scaling.get("factor"), above=0.0)
    _check_target(factor, original, "max_position_embeddings")
    target = max(int(round(factor * original)), 2)  # an example length
    return ContextLengths(original, target, ContextRule("example_target", kind))


def layer_contexts(row: LayerRow) -> ContextLengths:
    """``(L, L′, how)`` of one layer, by ``config_contexts`` (the one rule every page uses).

    A layer that does not rotate has no frequencies to stretch: L = max_position_embeddings, no L′.
    """
    if not row.rotates or row.head_dim is None:
        return ContextLengths(row.max_position_embeddings or 4096, None, ContextRule("no_rotation", None))
    scaling, partial = rope_call(row)
    read = RopeConfig(head_dim=row.head_dim, base=as_base(row.theta if row.theta is not None else 10000.0),
                      rope_type=scaling.get("rope_type", "default"), scaling=scaling,
                      partial_rotary_factor=partial, max_position_embeddings=row.max_position_embeddings,
                      layer_type=row.rope_label)
    return config_contexts(read)


def model_contexts(rows: list[LayerRow]) -> ContextLengths:
    """``(L, L′, how)`` of a model: those of the layer ``read_rope_config`` shows by default (a full-attention
    layer where the RoPE settings are per layer type, else the first layer that rotates), so *Model presets*
    and *Layer by layer* state the same lengths."""
    rotating = [r for r in rows if r.rotates]
    if not rotating:
        return layer_contexts(rows[0])
    labels = [r.rope_label for r in rotating if r.rope_label is not None]
    chosen = "full_attention" if "full_attention" in labels else (labels[0] if labels else None)
    return layer_contexts(next(r for r in rotating if r.rope_label == chosen))


# The lesson each fact links to (what the pages' links are keyed by).
Feature = Literal["window", "nope", "latent", "fraction", "mrope", "scaling", "sink", "mixer", "rope"]
# What the fact says; ``LayerFact.numbers`` holds its numbers, in this order:
# mixer: none (the row's mixer); window_both_ways: (keys on each side, keys seen); window: (window,); chunk: (chunk,);
# nope: none (the row's why); query_scale: (first scaled position,); sink: none; latent: (rotated dims, head dims);
# proportional / partial / rope: (turning pairs, pairs per head); mrope: none (the row's sections and layout);
# scaling: none (``contexts``, or ``problem`` where the lengths cannot be formed).
FactCode = Literal["mixer", "window_both_ways", "window", "chunk", "nope", "query_scale", "sink", "latent",
                   "proportional", "partial", "mrope", "scaling", "rope"]


@dataclass(frozen=True)
class LayerFact:
    """One feature a layer uses that the app teaches, with the numbers the config gives it.

    Fields:
        feature: the lesson it belongs to (``Feature``, the key the pages' links use).
        code: what it says (``FactCode``).
        row: the layer (theta, rope_type, factor, sections, reasons are read from it).
        numbers: the fact's own numbers, in the order ``FactCode``'s comment gives.
        contexts: for ``scaling``: the layer's L and L′ (``layer_contexts``), None where they cannot be formed.
        problem: for ``scaling``: the refusal ``layer_contexts`` gave instead, as its message says it.
    """

    feature: Feature
    code: FactCode
    row: LayerRow
    numbers: tuple[int, ...] = ()
    contexts: ContextLengths | None = None
    problem: str | None = None


def _span_facts(row: LayerRow) -> list[LayerFact]:
    facts = []
    if row.window and row.bidirectional:
        facts.append(LayerFact("window", "window_both_ways", row, (row.window - 1, 2 * row.window - 1)))
    elif row.window:
        facts.append(LayerFact("window", "window", row, (row.window,)))
    if row.chunk:
        facts.append(LayerFact("window", "chunk", row, (row.chunk,)))
    if not row.rotates:
        facts.append(LayerFact("nope", "nope", row))
    if row.query_scale:
        facts.append(LayerFact("nope", "query_scale", row, (query_scale_start(row.query_scale),)))
    if row.sink:
        facts.append(LayerFact("sink", "sink", row))
    return facts


def layer_facts(row: LayerRow) -> list[LayerFact]:
    """What one layer does with positions, one ``LayerFact`` per feature the app teaches that it uses.

    ``feature`` is the lesson key the pages link (``window``, ``nope``, ``latent``, ``fraction``, ``mrope``,
    ``scaling``, ``sink``, ``mixer``, ``rope``); every number is read from the config.
    """
    if not row.is_attention:
        return [LayerFact("mixer", "mixer", row)]
    facts = _span_facts(row)
    if not row.rotates:
        return facts
    pairs, total = row.rotated_pairs, (row.head_dim or 0) // 2
    if row.latent and row.qk_nope_head_dim:
        rope_dims = 2 * pairs  # Mistral Small 4 computes its 64-dim slice as head_dim 128 x partial_rotary_factor 0.5
        facts.append(LayerFact("latent", "latent", row, (rope_dims, rope_dims + row.qk_nope_head_dim)))
    if row.rope_type == "proportional":
        facts.append(LayerFact("fraction", "proportional", row, (pairs, total)))
    elif row.partial_rotary_factor < 1:
        facts.append(LayerFact("fraction", "partial", row, (pairs, total)))
    if row.mrope_section:
        facts.append(LayerFact("mrope", "mrope", row))
    if row.rope_type not in ("default", "proportional"):
        try:
            facts.append(LayerFact("scaling", "scaling", row, contexts=layer_contexts(row)))
        except ValueError as error:
            facts.append(LayerFact("scaling", "scaling", row, problem=str(error)))
    facts.append(LayerFact("rope", "rope", row, (pairs, total)))
    return facts


# Where a value of ``describe_rope_config`` came from. head_dim: qk_rope_head_dim (latent attention), global_head_dim
# (Gemma 4's full layers), head_dim, hidden_over_heads (``detail``: "hidden_size/num_attention_heads" numbers);
# base: rope_parameters (``detail``: the layer type, or None), rope_theta, rope_local_base_freq (Gemma 3's sliding
# layers), rotary_emb_base (GPT-NeoX); base / partial: class_default (``detail``: the class, None: transformers);
# partial: partial_rotary_factor, rotary_pct (GPT-NeoX), all_rotate; rope_type: rope_type, no_scaling;
# max_position_embeddings: max_position_embeddings; layer type: nested; a scaling key: rope_scaling, top_level (the
# top-level key wins, as in transformers), filled_in / added (``detail``: the class, None: the reading).
OriginCode = Literal["qk_rope_head_dim", "global_head_dim", "head_dim", "hidden_over_heads", "rope_parameters",
                     "rope_theta", "rope_local_base_freq", "rotary_emb_base", "class_default",
                     "partial_rotary_factor", "rotary_pct", "all_rotate", "rope_type", "no_scaling",
                     "max_position_embeddings", "nested", "rope_scaling", "top_level", "filled_in", "added"]


class SettingRow(NamedTuple):
    """One setting ``read_rope_config`` takes from a config, and where it came from.

    Fields:
        setting: ``head_dim``, ``base``, ``partial``, ``rope_type``, ``max_position_embeddings``, ``layer_type``,
            or a key of the scaling dict.
        value: the value read (for ``partial``: ``(factor, turning, of)``, turning pairs of the head's pairs for
            proportional RoPE, else rotated dimensions of the head's; None where the config gives no value).
        origin: where it came from (``OriginCode``).
        detail: what ``origin`` names beside its code (a layer type, a class name, "hidden/heads"), or None.
    """

    setting: str
    value: Any
    origin: OriginCode
    detail: str | None = None


def _head_source(text: Mapping, read: RopeConfig) -> tuple[OriginCode, str | None]:
    if text.get("qk_rope_head_dim") is not None and read.head_dim == text.get("qk_rope_head_dim"):
        return "qk_rope_head_dim", None
    if text.get("global_head_dim") is not None and read.layer_type == "full_attention":
        return "global_head_dim", None
    if text.get("head_dim") is not None:
        return "head_dim", None
    return "hidden_over_heads", f"{text.get('hidden_size')}/{text.get('num_attention_heads')}"


def _base_source(text: Mapping, params: Mapping, read: RopeConfig,
                 by_class: str | None) -> tuple[OriginCode, str | None]:
    if "rope_theta" in params:
        return "rope_parameters", read.layer_type
    if "rope_theta" in text or "rope_local_base_freq" in text:
        return ("rope_local_base_freq" if read.layer_type == "sliding_attention" and "rope_local_base_freq" in text
                else "rope_theta"), None
    if "rotary_emb_base" in text:
        return "rotary_emb_base", None
    return "class_default", by_class


def _partial_source(text: Mapping, params: Mapping, read: RopeConfig,
                    by_class: str | None) -> tuple[OriginCode, str | None]:
    if "partial_rotary_factor" in params or "partial_rotary_factor" in text:
        return "partial_rotary_factor", None
    if "rotary_pct" in text:
        return "rotary_pct", None
    if read.partial_rotary_factor != 1.0:
        return "class_default", by_class
    return "all_rotate", None


def _scaling_rows(text: Mapping, params: Mapping, read: RopeConfig, by_class: str | None) -> list[SettingRow]:
    """One row per key of the scaling dict: its value and where it came from."""
    rows = []
    for key, value in read.scaling.items():
        if key in ("rope_type", "type"):
            continue
        origin: OriginCode
        if key == "original_max_position_embeddings" and text.get(key) is not None and \
                read.rope_type in ("llama3", "yarn", "longrope"):
            origin = "top_level"
        elif key == "original_max_position_embeddings" and key not in params:
            origin = "filled_in"
        else:
            origin = "rope_scaling" if key in params else "added"
        rows.append(SettingRow(key, value, origin, by_class if origin in ("filled_in", "added") else None))
    return rows


def describe_rope_config(config: Mapping[str, Any], layer_type: str | None = None) -> list[SettingRow]:
    """What ``read_rope_config`` takes from a config, one ``SettingRow`` (setting, value, origin) per setting.

    Raises ``MissingExtraError`` for a config with a ``model_type`` when transformers is not installed.
    """
    reading = normalise_config(config)
    require_class_reading(reading, "Describing a config's RoPE setting")
    return _describe(config, reading, _read_rope(reading, layer_type))


def _describe(config: Mapping, reading: ConfigReading, read: RopeConfig) -> list[SettingRow]:
    """``describe_rope_config`` from the reading and the setting read from it."""
    by_class = reading.class_name
    text: Mapping = config["text_config"] if isinstance(config.get("text_config"), Mapping) else config
    params = text.get("rope_scaling") or text.get("rope_parameters") or {}
    if isinstance(params, Mapping) and read.layer_type is not None and isinstance(params.get(read.layer_type),
                                                                                  Mapping):
        params = params[read.layer_type]
    params = params if isinstance(params, Mapping) else {}
    turning = (int(read.partial_rotary_factor * read.head_dim // 2), read.head_dim // 2) \
        if read.rope_type == "proportional" else (read.rotary_dim, read.head_dim)
    rows = [
        SettingRow("head_dim", read.head_dim, *_head_source(text, read)),
        SettingRow("base", read.base, *_base_source(text, params, read, by_class)),
        SettingRow("partial", (read.partial_rotary_factor, *turning), *_partial_source(text, params, read, by_class)),
        SettingRow("rope_type", read.rope_type, "rope_type" if params else "no_scaling"),
        SettingRow("max_position_embeddings", read.max_position_embeddings, "max_position_embeddings"),
    ]
    if read.layer_type is not None:
        rows.append(SettingRow("layer_type", read.layer_type, "nested"))
    return rows + _scaling_rows(text, params, read, by_class)


@dataclass(frozen=True)
class ConfigView:
    """Everything the *Model presets and config.json* page draws for one config and layer type.

    Fields:
        read: the RoPE setting (``read_rope_config``).
        rows: where each setting came from (``describe_rope_config``).
        original: L, tokens (``config_contexts``).
        target: L′, tokens; None without scaling.
        how: how L and L′ were chosen (``ContextRule``).
        softmax_scale: DeepSeek's extra softmax factor (1 for every other config).
        facts: the shown layer's ``layer_facts``.
        layer: the index of the layer shown (the first of its kind, as *Layer by layer* reads it).
        pairs: ``extension_analysis`` from L to L′ where the config scales, else ``layer_pairs`` against L.
        distances: (n,) distances the scores are drawn at, to 4 L′ (4 L without scaling).
        before: (n,) the score of a query against an identical key, unscaled (without scaling: the model's own).
        after: (n,) the same, scaled with the attention factor; None without scaling.
    """

    read: RopeConfig
    rows: list[SettingRow]
    original: int
    target: int | None
    how: ContextRule
    softmax_scale: float
    facts: list[LayerFact]
    layer: int
    pairs: LayerPairs | ExtensionAnalysis
    distances: np.ndarray
    before: np.ndarray
    after: np.ndarray | None


def config_view(config: Mapping[str, Any], layer_type: str | None = None) -> ConfigView:
    """Everything the *Model presets and config.json* page draws for one config and layer type (``ConfigView``).

    Raises ``ValueError`` for a config the reading refuses, and ``MissingExtraError`` for a config with a
    ``model_type`` when transformers is not installed.
    """
    # One pass through the transformers class serves every part below: building the class is most of the time
    # (a multimodal config's class builds and validates each sub-config), and each pass would read the same fields.
    reading = normalise_config(config)
    require_class_reading(reading, "Reading a config for the Model presets page")
    layers = layer_scheme(reading, default_layers=1)  # per-layer reading is the next cost (Gemma 3: 62 layers)
    read = _read_rope(reading, layer_type, layers)
    original, target, how = config_contexts(read)
    # read_layers' rows are these same rows once the config states its layer count; without one read_layers refuses
    # here, after the checks above, with its own sentence
    _layer_count(reading, None)
    row = next(r for r in layers if r.rotates and r.rope_label == read.layer_type)  # the layer shown, as Layer by layer
    parts = (read, _describe(config, reading, read), original, target, how, deepseek_softmax_mscale(read.scaling),
             layer_facts(row), row.index)
    if target is None:  # no scaling: the pairs against L, and one score curve; nothing is extended
        layer = layer_pairs(row, original)
        distances, before = score_vs_distance(layer.inv_freq, layer.attention_factor, 4 * original)
        return ConfigView(*parts, pairs=layer, distances=distances, before=before, after=None)
    pairs = extension_analysis(read.head_dim, read.base, read.scaling or None, original=original, target=target,
                               partial_rotary_factor=read.partial_rotary_factor,
                               max_position_embeddings=read.max_position_embeddings)
    distances, before = score_vs_distance(pairs.inv_freq_before, 1.0, 4 * target)
    _, after = score_vs_distance(pairs.inv_freq_after, float(pairs.attention_factor), 4 * target)
    return ConfigView(*parts, pairs=pairs, distances=distances, before=before, after=after)
