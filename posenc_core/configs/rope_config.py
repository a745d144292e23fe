"""One layer's RoPE setting from a config.json, the training and target lengths it implies, and a summary.

These are the entry points the long-context pages use; they read the config through the model's own
``transformers`` class (see ``reader``) and the per-layer scheme (see ``layers``), so a config is read
the same way on every page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._checks import MAX_POSITIONS, as_base, as_float, as_int
from .._types import ArrayOrTensor
from ..long_context.extension import deepseek_softmax_mscale, extension_analysis, score_vs_distance
from ..rope.frequencies import rope_inv_freq, rotary_dim, scaling_type
from .layer_reading import _layer_count, layer_scheme
from .layer_rope import rope_call
from .layer_row import LayerRow
from .query_scale import query_scale_start
from .reader import normalise_config
from .summaries import layer_pairs

__all__ = [
    "RopeConfig",
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
    """What ``rope_from_config`` read from a model's config.json."""

    head_dim: int
    base: float
    rope_type: str
    scaling: dict = field(default_factory=dict)
    partial_rotary_factor: float = 1.0
    max_position_embeddings: int | None = None
    layer_type: str | None = None

    @property
    def rotary_dim(self) -> int:
        return rotary_dim(self.head_dim, self.partial_rotary_factor)


def _rotating_rows(config: Mapping) -> tuple[list[LayerRow], object]:
    reading = normalise_config(config)
    rows = layer_scheme(reading, default_layers=1)
    return [row for row in rows if row.rotates], reading


def rope_layer_types(config: Mapping) -> list[str]:
    """The RoPE settings a config holds, one per key of a nested ``rope_parameters`` ([] when there is one).

    Keys are the layer types (Gemma 3's ``sliding_attention`` / ``full_attention``) or, where the model
    labels its RoPE dicts by role, those labels (DeepSeek V4's ``main`` / ``compress``).
    """
    rows, _ = _rotating_rows(config)
    labels = [row.rope_label for row in rows if row.rope_label is not None]
    return list(dict.fromkeys(labels))


def read_rope_config(config: Mapping, layer_type: str | None = None) -> RopeConfig:
    """The RoPE setting of one kind of layer, read as the model's config class reads it.

    ``layer_type`` picks a key of a nested ``rope_parameters`` (default: ``full_attention`` if there is one,
    else the first). Raises ``ValueError`` when no layer of the model rotates.
    """
    return _read_rope(normalise_config(config), layer_type)


def _read_rope(reading, layer_type: str | None, scheme: list[LayerRow] | None = None) -> RopeConfig:
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


def rope_from_config(config: Mapping, seq_len: int | None = None, *, layer_type: str | None = None,
                     backend: str = "numpy", device: str | None = None) -> tuple[ArrayOrTensor, float]:
    """``(inv_freq, attention_factor)`` for a model's config.json dict, as transformers computes them."""
    read = read_rope_config(config, layer_type)
    return rope_inv_freq(read.head_dim, read.base, read.scaling or None,
                         partial_rotary_factor=read.partial_rotary_factor, seq_len=seq_len,
                         max_position_embeddings=read.max_position_embeddings, backend=backend, device=device)


def _check_target(factor: float, original: int, original_field: str) -> None:
    """Refuse a factor whose L′ = factor × L no page can read, naming the fields the user wrote."""
    if factor * original > _MAX_CONTEXT:  # refused where L' is formed, never cut short
        raise ValueError(f"rope_scaling['factor'] = {factor:g} times {original_field} = {original:,} asks for a "
                         f"context of {factor * original:.4g} tokens; this page reads contexts up to "
                         f"{_MAX_CONTEXT:,} tokens.")


def _original_based_contexts(read: RopeConfig) -> tuple[int, int, str]:
    """llama3 / yarn / longrope: L = original_max_position_embeddings and L′ = factor × L."""
    scaling, max_pos, kind = read.scaling or {}, read.max_position_embeddings, read.rope_type
    original = scaling.get("original_max_position_embeddings") or max_pos
    if original is None:
        raise ValueError(f"rope_type '{kind}' needs original_max_position_embeddings.")
    original = as_int("original_max_position_embeddings", original, minimum=2, maximum=_MAX_CONTEXT)
    factor = scaling.get("factor")
    if factor is None:
        if max_pos is None or max_pos <= original:
            raise ValueError("The config has neither a factor nor a max_position_embeddings above the original "
                             "context, so the target length is unknown.")
        factor, origin = max_pos / original, "factor = max_position_embeddings / L (transformers' rule)"
    else:
        origin = "factor from the config"
    factor = as_float("rope_scaling['factor']", factor, above=0.0)
    _check_target(factor, original, "original_max_position_embeddings")
    target = max(int(round(factor * original)), 2)
    how = f"L = original_max_position_embeddings; L′ = factor × L, {origin}"
    if max_pos is not None and max_pos != target:
        how += (f". The config also declares max_position_embeddings = {max_pos:,}; {kind}'s frequencies do "
                f"not depend on it{' beyond choosing short or long factors' if kind == 'longrope' else ''}")
    return original, target, how


def config_contexts(read: RopeConfig) -> tuple[int, int | None, str]:
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
        original = int(round(max_pos / factor))
        return original, max_pos, ("L′ = max_position_embeddings; L = L′ / factor: positions up to L′ turn by "
                                   "the angles unscaled positions reached by L")
    original = max_pos if max_pos is not None else 4096
    if kind == "ntk_alpha":
        return original, None, ("NTK-alpha stretches the base at every length and names no target: "
                                "L = max_position_embeddings, and there is no target length")
    if kind == "proportional" and as_float("rope_scaling['factor']", scaling.get("factor", 1.0), above=0.0) == 1.0:
        # Gemma 4's p-RoPE: a share of each head rotates at the default frequencies, the rest not at all;
        # transformers' factor defaults to 1, so nothing is stretched
        return original, None, ("proportional RoPE turns only part of each head and stretches nothing: "
                                "L = max_position_embeddings, and there is no target length")
    if kind == "default":
        how = "no scaling: L = max_position_embeddings, and there is no target length"
        if max_pos is None:
            how = "no scaling, and no max_position_embeddings: L = 4,096 is only a reference"
        return original, None, how
    factor = as_float("rope_scaling['factor']", scaling.get("factor"), above=0.0)
    _check_target(factor, original, "max_position_embeddings")
    target = max(int(round(factor * original)), 2)  # an example length
    return original, target, (f"L = max_position_embeddings; {kind} has no fixed target, so L′ = factor × L "
                              "is shown as an example")


def layer_contexts(row: LayerRow) -> tuple[int, int | None, str]:
    """``(L, L′, how)`` of one layer, by ``config_contexts`` (the one rule every page uses).

    A layer that does not rotate has no frequencies to stretch: L = max_position_embeddings, no L′.
    """
    if not row.rotates or row.head_dim is None:
        length = row.max_position_embeddings or 4096
        return length, None, "this layer does not rotate: L = max_position_embeddings, and there is no target"
    scaling, partial = rope_call(row)
    read = RopeConfig(head_dim=row.head_dim, base=as_base(row.theta if row.theta is not None else 10000.0),
                      rope_type=scaling.get("rope_type", "default"), scaling=scaling,
                      partial_rotary_factor=partial, max_position_embeddings=row.max_position_embeddings,
                      layer_type=row.rope_label)
    return config_contexts(read)


def model_contexts(rows: list[LayerRow]) -> tuple[int, int | None, str]:
    """``(L, L′, how)`` of a model: those of the layer ``read_rope_config`` shows by default (a full-attention
    layer where the RoPE settings are per layer type, else the first layer that rotates), so *Model presets*
    and *Layer by layer* state the same lengths."""
    rotating = [r for r in rows if r.rotates]
    if not rotating:
        return layer_contexts(rows[0])
    labels = [r.rope_label for r in rotating if r.rope_label is not None]
    chosen = "full_attention" if "full_attention" in labels else (labels[0] if labels else None)
    return layer_contexts(next(r for r in rotating if r.rope_label == chosen))


# M-RoPE layout (a key of multimodal.ALLOCATIONS, read from the rotary module's code) -> (axes in section order, how)
MROPE_WORDS = {
    "chunked": ("time, height and width", "in consecutive blocks"),
    "interleaved": ("time, height and width", "interleaved across pairs (t, h, w, t, h, w, ...)"),
    "ernie3d": ("height, width and time", "height and width alternating over the fastest pairs, time on the slowest"),
}


def layer_facts(row: LayerRow) -> list[tuple[str, str]]:
    """What one layer does with positions, one ``(feature, sentence)`` per feature the app teaches that it uses.

    ``feature`` is the lesson key the pages link (``window``, ``nope``, ``latent``, ``fraction``, ``mrope``,
    ``scaling``, ``sink``, ``mixer``, ``rope``); every number in a sentence is read from the config.
    """
    if not row.is_attention:
        return [("mixer", f"{row.mixer_name}: no attention, so no positions to rotate; order comes from the "
                          f"{row.mixer} itself")]
    facts = []
    if row.window and row.bidirectional:
        facts.append(("window", f"sliding window both ways: each token sees the {row.window - 1:,} tokens on each "
                                f"side and itself ({2 * row.window - 1:,} tokens)"))
    elif row.window:
        facts.append(("window", f"sliding window: each query sees the last {row.window:,} tokens"))
    if row.chunk:
        facts.append(("window", f"chunked attention: tokens see only their own chunk of {row.chunk:,}"))
    if not row.rotates:
        facts.append(("nope", f"NoPE: no rotation ({row.why})"))
    if row.query_scale:
        facts.append(("nope", f"query scale by position ({row.query_scale['rule']}), from position "
                              f"{query_scale_start(row.query_scale):,} on"))
    if row.sink:
        facts.append(("sink", "attention sink: a learned extra column in the softmax takes weight off the tokens"))
    if not row.rotates:
        return facts
    pairs, total = row.rotated_pairs, (row.head_dim or 0) // 2
    if row.latent and row.qk_nope_head_dim:
        rope_dims = 2 * pairs  # Mistral Small 4 computes its 64-dim slice as head_dim 128 x partial_rotary_factor 0.5
        facts.append(("latent", f"latent attention: only the {rope_dims}-dim qk_rope_head_dim slice of each "
                                f"{rope_dims + row.qk_nope_head_dim}-dim query/key head rotates; one rotated key is "
                                "shared by all heads"))
    if row.rope_type == "proportional":
        facts.append(("fraction", f"proportional RoPE: {pairs} of {total} pairs turn, with exponents over the whole "
                                  "head; the rest have frequency 0"))
    elif row.partial_rotary_factor < 1:
        facts.append(("fraction", f"partial rotary: {row.partial_rotary_factor:g} of each {row.head_dim}-dim head "
                                  f"rotates ({pairs} of {total} pairs)"))
    if row.mrope_section:
        fallback = ("time, height and width", f"in {row.mrope_layout} layout")
        axes, layout = MROPE_WORDS.get(row.mrope_layout or "", fallback)
        facts.append(("mrope", f"multimodal RoPE (M-RoPE): the pairs are split {list(row.mrope_section)} between "
                               f"{axes}, {layout}"))
    if row.rope_type not in ("default", "proportional"):
        try:
            original, target, _ = layer_contexts(row)
            stretch = f"pretrained on {original:,} tokens" + (f", stretched to {target:,}" if target else "")
        except ValueError as error:
            stretch = str(error)
        factor = row.scaling_factor
        facts.append(("scaling", f"{row.rope_type} scaling" + (f" x {factor:g}" if factor else "") + f": {stretch}"))
    facts.append(("rope", f"RoPE θ {row.theta:,.0f}, {pairs} of {total} pairs turn"))
    return facts


def _head_source(text: Mapping, read) -> str:
    if text.get("qk_rope_head_dim") is not None and read.head_dim == text.get("qk_rope_head_dim"):
        return "qk_rope_head_dim (latent attention: only this part of each head is rotated)"
    if text.get("global_head_dim") is not None and read.layer_type == "full_attention":
        return "global_head_dim (the full layers' own head size)"
    if text.get("head_dim") is not None:
        return "head_dim"
    return f"hidden_size / num_attention_heads = {text.get('hidden_size')} / {text.get('num_attention_heads')}"


def _base_source(text: Mapping, params: Mapping, read, by_class: str | None) -> str:
    if "rope_theta" in params:
        return "rope_parameters['rope_theta']" if read.layer_type is None else \
            f"rope_parameters['{read.layer_type}']['rope_theta']"
    if "rope_theta" in text or "rope_local_base_freq" in text:
        return "rope_theta" if read.layer_type != "sliding_attention" or "rope_local_base_freq" not in text \
            else "rope_local_base_freq (Gemma 3's base for sliding layers)"
    if "rotary_emb_base" in text:
        return "rotary_emb_base (GPT-NeoX's name)"
    return f"not in the config: {by_class or 'transformers'}' default"


def _partial_source(text: Mapping, params: Mapping, read, by_class: str | None) -> str:
    if "partial_rotary_factor" in params or "partial_rotary_factor" in text:
        return "partial_rotary_factor"
    if "rotary_pct" in text:
        return "rotary_pct (GPT-NeoX's name)"
    if read.partial_rotary_factor != 1.0:
        return f"not in the config: {by_class}'s default"
    return "not in the config: all dimensions rotate"


def _scaling_rows(text: Mapping, params: Mapping, read, by_class: str | None) -> list[tuple[str, str, str]]:
    """One row per key of the scaling dict: its value (a list summarised) and where it came from."""
    rows = []
    for key, value in read.scaling.items():
        if key in ("rope_type", "type"):
            continue
        numbers = [v for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)] \
            if isinstance(value, (list, tuple)) else []
        if isinstance(value, (list, tuple)) and len(numbers) == len(value) and numbers:
            shown = f"{len(value)} values, {min(numbers):.4g} to {max(numbers):.4g}"
        elif isinstance(value, (list, tuple)):
            shown = f"a list of {len(value)}" if value else "empty list"
        elif isinstance(value, int) and not isinstance(value, bool):
            shown = f"{value:,}"  # a length reads as the other lengths in the table do
        else:
            shown = repr(value)
        if key == "original_max_position_embeddings" and text.get(key) is not None and \
                read.rope_type in ("llama3", "yarn", "longrope"):
            origin = "top-level key (wins over rope_scaling, as in transformers)"
        elif key == "original_max_position_embeddings" and key not in params:
            origin = f"not in rope_scaling: {by_class or 'transformers'} fills it in"
        else:
            origin = "rope_scaling" if key in params else f"added by {by_class or 'the reading'}"
        rows.append((key, shown, origin))
    return rows


def describe_rope_config(config: Mapping[str, Any], layer_type: str | None = None) -> list[tuple[str, str, str]]:
    """What ``read_rope_config`` takes from a config, as (setting, value, where it came from) rows."""
    reading = normalise_config(config)
    return _describe(config, reading, _read_rope(reading, layer_type))


def _describe(config: Mapping, reading, read: RopeConfig) -> list[tuple[str, str, str]]:
    """``describe_rope_config`` from the reading and the setting read from it."""
    by_class = f"{reading.class_name}" if reading.class_name else None
    text: Mapping = config["text_config"] if isinstance(config.get("text_config"), Mapping) else config
    params = text.get("rope_scaling") or text.get("rope_parameters") or {}
    if isinstance(params, Mapping) and read.layer_type is not None and isinstance(params.get(read.layer_type),
                                                                                  Mapping):
        params = params[read.layer_type]
    params = params if isinstance(params, Mapping) else {}
    rotated = (f"{read.partial_rotary_factor:g} -> " + (
        f"{int(read.partial_rotary_factor * read.head_dim // 2)} of {read.head_dim // 2} pairs turn, the rest get "
        "frequency 0" if read.rope_type == "proportional" else
        f"{read.rotary_dim} of {read.head_dim} dimensions rotate ({read.rotary_dim // 2} pairs)"))
    rows = [
        ("head_dim", f"{read.head_dim}", _head_source(text, read)),
        ("base (rope_theta)", f"{read.base:,.6g}", _base_source(text, params, read, by_class)),
        ("partial rotary", rotated, _partial_source(text, params, read, by_class)),
        ("rope_type", read.rope_type, "rope_type / type" if params else "no rope_scaling: default"),
        ("max_position_embeddings", "-" if read.max_position_embeddings is None
         else f"{read.max_position_embeddings:,}", "max_position_embeddings"),
    ]
    if read.layer_type is not None:
        rows.append(("layer type", read.layer_type, "nested rope_parameters (one setting per kind of layer)"))
    return rows + _scaling_rows(text, params, read, by_class)


def config_view(config: Mapping, layer_type: str | None = None) -> dict:
    """Everything the *Model presets and config.json* page draws for one config and layer type.

    Returns:
        ``read`` (``read_rope_config``), ``rows`` (``describe_rope_config``), ``original``, ``target``, ``how``
        (``config_contexts``; target None without scaling), ``softmax_scale`` (DeepSeek's extra softmax factor),
        ``pairs``: ``extension_analysis`` from L to L′, or, without scaling, ``layer_pairs`` against L; and
        ``distances`` with the scores of a query against an identical key: ``before`` (no scaling) and
        ``after`` (scaled, with the attention factor), both to 4 L′; without scaling ``before`` is the model's
        own score to 4 L and ``after`` is None.
    """
    # One pass through the transformers class serves every part below: building the class is most of the time
    # (a multimodal config's class builds and validates each sub-config), and each pass would read the same fields.
    reading = normalise_config(config)
    layers = layer_scheme(reading, default_layers=1)  # per-layer reading is the next cost (Gemma 3: 62 layers)
    read = _read_rope(reading, layer_type, layers)
    original, target, how = config_contexts(read)
    # read_layers' rows are these same rows once the config states its layer count; without one read_layers refuses
    # here, after the checks above, with its own sentence
    _layer_count(reading, None)
    row = next(r for r in layers if r.rotates and r.rope_label == read.layer_type)  # the layer shown, as Layer by layer
    view = {"read": read, "rows": _describe(config, reading, read), "original": original, "target": target,
            "how": how, "softmax_scale": deepseek_softmax_mscale(read.scaling), "facts": layer_facts(row),
            "layer": row.index}
    if target is None:  # no scaling: the pairs against L, and one score curve; nothing is extended
        pairs = layer_pairs(row, original)
        distances, before = score_vs_distance(pairs["inv_freq"], pairs["attention_factor"], 4 * original)
        return view | {"pairs": pairs, "distances": distances, "before": before, "after": None}
    pairs = extension_analysis(read.head_dim, read.base, read.scaling or None, original=original, target=target,
                               partial_rotary_factor=read.partial_rotary_factor,
                               max_position_embeddings=read.max_position_embeddings)
    distances, before = score_vs_distance(pairs["inv_freq_before"], 1.0, 4 * target)
    _, after = score_vs_distance(pairs["inv_freq_after"], float(pairs["attention_factor"]), 4 * target)
    return view | {"pairs": pairs, "distances": distances, "before": before, "after": after}
