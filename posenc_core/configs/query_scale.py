"""Position-dependent query scales: Llama 4's temperature on its NoPE layers and Mistral's llama_4_scaling_beta."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .._backend import keeps_kind
from .._checks import MAX_POSITIONS
from .._types import ArrayOrTensor

__all__ = ["query_scale", "query_scale_start"]


def query_scale_start(rule: Mapping) -> int:
    """The first position whose query is scaled by more than 1 (the floor in the rule first reaches 1)."""
    if not isinstance(rule, Mapping) or rule.get("rule") not in ("llama4_temperature", "llama4_beta"):
        raise ValueError("A query-scale rule is 'llama4_temperature' or 'llama4_beta'.")
    if rule["rule"] == "llama4_temperature":
        return int(math.ceil(rule["floor_scale"])) - 1  # floor((p + 1) / floor_scale) >= 1
    return int(math.ceil(rule["original"]))  # floor(p / original) >= 1


@keeps_kind
def query_scale(rule: Mapping, positions: ArrayOrTensor) -> ArrayOrTensor:
    """The factor a layer multiplies its queries by at each position (float32, as the model computes it).

    ``llama4_temperature`` (Llama 4's NoPE layers): 1 + attn_scale · log1p(floor((p + 1) / floor_scale)).
    ``llama4_beta`` (Ministral 3, Mistral Small 4): 1 + beta · log(1 + floor(p / original_max_position_embeddings)).
    """
    p = np.asarray(positions)
    if p.ndim != 1 or p.size > MAX_POSITIONS or not np.issubdtype(p.dtype, np.number):
        raise ValueError(f"positions must be a 1-D array of at most {MAX_POSITIONS:,} numbers.")
    p = p.astype(np.float32)
    if not isinstance(rule, Mapping) or rule.get("rule") not in ("llama4_temperature", "llama4_beta"):
        raise ValueError("A query-scale rule is 'llama4_temperature' or 'llama4_beta'.")
    with np.errstate(all="ignore"):
        if rule["rule"] == "llama4_temperature":
            out = np.log1p(np.floor((p + np.float32(1.0)) / np.float32(rule["floor_scale"]))) \
                * np.float32(rule["attn_scale"]) + np.float32(1.0)
        else:
            out = np.float32(1.0) + np.float32(rule["beta"]) * np.log(
                np.float32(1.0) + np.floor(p / np.float32(rule["original"])))
    if not np.all(np.isfinite(out)):
        raise ValueError("The query scale is not finite for these positions (negative positions?).")
    return out.astype(np.float32)
