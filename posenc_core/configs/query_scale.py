"""Position-dependent query scales: Llama 4's temperature on its NoPE layers and Mistral's llama_4_scaling_beta."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._backend import keeps_kind
from .._checks import MAX_POSITIONS
from .._types import ArrayOrTensor

__all__ = ["LayerQueryScale", "query_scale", "query_scale_start"]

QueryScaleKind = Literal["llama4_temperature", "llama4_beta"]


@dataclass(frozen=True)
class LayerQueryScale:
    """How a layer scales its queries by position, with the config values the model code reads.

    Attributes:
        rule: ``"llama4_temperature"`` (Llama 4's NoPE layers, ``attn_temperature_tuning``) or ``"llama4_beta"``
            (Ministral 3 and Mistral Small 4, ``rope_parameters["llama_4_scaling_beta"]``).
        step: the positions per step of the floor: ``floor_scale`` for the temperature,
            ``original_max_position_embeddings`` for beta.
        weight: the factor on the logarithm: ``attn_scale`` for the temperature, ``llama_4_scaling_beta`` for beta.
    """

    rule: QueryScaleKind
    step: float
    weight: float

    @classmethod
    def of(cls, rule: LayerQueryScale | Mapping) -> LayerQueryScale:
        """A rule as given, or from a mapping in the config's words: ``{"rule": "llama4_temperature",
        "floor_scale": ..., "attn_scale": ...}`` or ``{"rule": "llama4_beta", "beta": ..., "original": ...}``."""
        if isinstance(rule, LayerQueryScale):
            return rule
        kind = rule.get("rule") if isinstance(rule, Mapping) else None
        if kind not in ("llama4_temperature", "llama4_beta"):
            raise ValueError("A query-scale rule is 'llama4_temperature' or 'llama4_beta'.")
        names = ("floor_scale", "attn_scale") if kind == "llama4_temperature" else ("original", "beta")
        try:
            step, weight = (float(rule[name]) for name in names)
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"A {kind} query-scale rule needs the numbers {names[0]} and {names[1]}.") from None
        if not (math.isfinite(step) and step > 0 and math.isfinite(weight)):
            raise ValueError(f"The query-scale rule's {names[0]} must be a positive number and {names[1]} finite.")
        return cls(kind, step, weight)


def query_scale_start(rule: LayerQueryScale | Mapping) -> int:
    """The first position whose query is scaled by more than 1 (the floor in the rule first reaches 1)."""
    rule = LayerQueryScale.of(rule)
    if rule.rule == "llama4_temperature":
        return int(math.ceil(rule.step)) - 1  # floor((p + 1) / floor_scale) >= 1
    return int(math.ceil(rule.step))  # floor(p / original) >= 1


@keeps_kind
def query_scale(rule: LayerQueryScale | Mapping, positions: ArrayOrTensor) -> ArrayOrTensor:
    """The factor a layer multiplies its queries by at each position (float32, as the model computes it).

    ``llama4_temperature`` (Llama 4's NoPE layers): 1 + attn_scale · log1p(floor((p + 1) / floor_scale)).
    ``llama4_beta`` (Ministral 3, Mistral Small 4): 1 + beta · log(1 + floor(p / original_max_position_embeddings)).
    """
    p = np.asarray(positions)
    if p.ndim != 1 or p.size > MAX_POSITIONS or not np.issubdtype(p.dtype, np.number):
        raise ValueError(f"positions must be a 1-D array of at most {MAX_POSITIONS:,} numbers.")
    p = p.astype(np.float32)
    rule = LayerQueryScale.of(rule)
    with np.errstate(all="ignore"):
        if rule.rule == "llama4_temperature":
            out = np.log1p(np.floor((p + np.float32(1.0)) / np.float32(rule.step))) \
                * np.float32(rule.weight) + np.float32(1.0)
        else:
            out = np.float32(1.0) + np.float32(rule.weight) * np.log(
                np.float32(1.0) + np.floor(p / np.float32(rule.step)))
    if not np.all(np.isfinite(out)):
        raise ValueError("The query scale is not finite for these positions (negative positions?).")
    return out.astype(np.float32)
