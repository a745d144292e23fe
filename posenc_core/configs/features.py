"""The position features a whole model uses, gathered from its layers' reading and its config: codes and numbers
for the config pages to name (partial rotary, NoPE layers among RoPE layers, latent attention's rotated slice,
scaling, sliding windows, sinks, chunked attention, hybrid mixers, dual chunk attention, ...).

Every feature comes from what ``layer_reading.layer_scheme`` read for each layer (the config's fields through the
model's transformers class, and the rotation rules of its modeling code) or from a config field the serving engine
reads (``dual_chunk_attention_config``, vLLM); none is keyed by model type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..long_context.dual_chunk import dual_chunk_settings
from .layer_reading import read_layers
from .layer_row import LayerRow
from .rope_config import layer_facts

__all__ = ["ModelFeature", "ModelFeatureCode", "config_features", "model_features"]

# What the feature is; ``ModelFeature.numbers`` holds, in this order:
# partial / proportional: (turning pairs, pairs per head); latent: (rotated dims, head dims); nope_layers: (layers
# without rotation, attention layers); no_rotation: (attention layers,); query_scale: (first scaled position,);
# window: (window,); chunk: (chunk,); sink, mrope: none; scaling: (factor,) or none (the row's rope_type);
# bases: the distinct RoPE bases, smallest first; hybrid: (other mixer layers, layers);
# dual_chunk: (chunk_size, local_size, original_max_position_embeddings).
ModelFeatureCode = Literal["partial", "proportional", "latent", "nope_layers", "no_rotation", "query_scale", "window",
                           "chunk", "sink", "mrope", "scaling", "bases", "hybrid", "dual_chunk"]
# The per-layer facts that become a model feature as they are (LayerFact.code -> ModelFeatureCode).
_LAYER_CODES: dict[str, ModelFeatureCode] = {
    "partial": "partial", "proportional": "proportional", "latent": "latent", "query_scale": "query_scale",
    "window": "window", "window_both_ways": "window", "chunk": "chunk", "sink": "sink", "mrope": "mrope",
    "scaling": "scaling",
}


@dataclass(frozen=True)
class ModelFeature:
    """One position feature of a model, with the layers that use it.

    Fields:
        code: what it is (``ModelFeatureCode``).
        layers: how many layers use it (0 for a feature of the whole model: dual chunk attention).
        of: the layers it is counted among (attention layers, or every layer for ``hybrid``).
        row: the first layer that uses it (its theta, rope_type, factor, window are read from it); None for
            ``dual_chunk`` and ``bases``.
        numbers: the feature's numbers, in the order ``ModelFeatureCode``'s comment gives.
        problem: for ``dual_chunk``: the refusal its settings gave, as its message says it (None: read).
    """

    code: ModelFeatureCode
    layers: int
    of: int
    row: LayerRow | None = None
    numbers: tuple[float, ...] = ()
    problem: str | None = None


def _dual_chunk(config: Mapping) -> ModelFeature | None:
    dca = config.get("dual_chunk_attention_config")
    if dca is None and isinstance(config.get("text_config"), Mapping):
        dca = config["text_config"].get("dual_chunk_attention_config")
    if dca is None:
        return None
    try:
        s = dual_chunk_settings(dca)
    except ValueError as error:
        return ModelFeature("dual_chunk", 0, 0, problem=str(error))
    return ModelFeature("dual_chunk", 0, 0, numbers=(s.chunk_size, s.local_size, s.original_max_position_embeddings))


def model_features(rows: Sequence[LayerRow], config: Mapping | None = None) -> list[ModelFeature]:
    """The position features of a model, one ``ModelFeature`` each, in the order the pages name them.

    Args:
        rows: every layer's reading (``layer_scheme`` / ``read_layers``).
        config: the config.json, for the fields a serving engine reads outside the model's class
            (``dual_chunk_attention_config``); None: none.

    Returns:
        A list of ``ModelFeature`` (empty for a model that rotates every layer the same plain way).
    """
    attention = [r for r in rows if r.is_attention]
    found: dict[ModelFeatureCode, tuple[LayerRow, tuple[float, ...], int]] = {}
    for row in attention:
        for fact in layer_facts(row):
            code = _LAYER_CODES.get(fact.code)
            if code is None:
                continue
            numbers: tuple[float, ...] = tuple(fact.numbers)
            if code == "scaling" and row.scaling_factor is not None:
                numbers = (row.scaling_factor,)
            first, first_numbers, count = found.get(code, (row, numbers, 0))
            found[code] = (first, first_numbers, count + 1)
    features = [ModelFeature(code, count, len(attention), row, numbers)
                for code, (row, numbers, count) in found.items()]
    still = [r for r in attention if not r.rotates]
    if still:
        whole = len(still) == len(attention)
        features.append(ModelFeature("no_rotation" if whole else "nope_layers", len(still), len(attention), still[0],
                                     (len(attention),) if whole else (len(still), len(attention))))
    bases = sorted({float(r.theta) for r in attention if r.rotates and r.theta is not None})
    if len(bases) > 1:
        features.append(ModelFeature("bases", sum(r.rotates for r in attention), len(attention), None, tuple(bases)))
    others = [r for r in rows if not r.is_attention]
    if others:
        features.append(ModelFeature("hybrid", len(others), len(rows), others[0], (len(others), len(rows))))
    dca = _dual_chunk(config) if config is not None else None
    if dca is not None:
        features.append(dca)
    return features


def config_features(config: Mapping) -> list[ModelFeature]:
    """The position features of the model a config.json describes (``model_features`` of its layers).

    >>> [f.code for f in pc.configs.config_features(pc.preset_config('glm-4.5'))]
    ['partial']

    Raises ``ValueError`` for a config the layer reading refuses (``read_layers``).
    """
    _, rows = read_layers(config)
    return model_features(rows, config)
