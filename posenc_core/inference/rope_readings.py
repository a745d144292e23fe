"""One reading of a model's positions in a fixed set of fields, whichever source it comes from, and the fields
where two readings disagree.

A config.json (or a config an engine builds) is read through the model's transformers config class
(``configs.read_rope_config``); llama.cpp's parameters are put in the same fields by ``llama_cpp.llama_cpp_reading``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, NamedTuple

from ..configs.rope_config import read_rope_config, rope_from_config

__all__ = ["DISAGREEMENT_KINDS", "FREQ_FACTORS", "READING_FIELDS", "Disagreement", "RopeReading", "compare_readings",
           "rope_reading", "same_value"]


@dataclass(frozen=True)
class RopeReading:
    """What one source reads of a model's positions (``rope_reading``, ``llama_cpp_reading``).

    Fields:
        model_type: the config's model_type (None where the source has none: llama.cpp).
        rotary_dim: the rotated dimensions per head.
        rope_theta: the RoPE base (rope_theta, freq_base).
        rope_type: the scaling type: ``"default"`` (none), a transformers rope type, or ``FREQ_FACTORS``
            where llama.cpp divides each frequency by factors the file holds as a tensor.
        factor: the scaling factor (None without scaling).
        original_max_position_embeddings: the original context of the scaling (None without scaling).
        beta_fast: YaRN's beta_fast (None unless yarn).
        beta_slow: YaRN's beta_slow (None unless yarn).
        attention_factor: the factor on cos and sin (YaRN's attention scaling; 1 without).
        context: the context length in tokens (max_position_embeddings, or the length an engine serves; None
            where the engine refuses to start).
    """

    model_type: str | None
    rotary_dim: int
    rope_theta: float
    rope_type: str
    factor: float | None
    original_max_position_embeddings: int | None
    beta_fast: float | None
    beta_slow: float | None
    attention_factor: float
    context: int | None


# the rope_type of llama.cpp's reading when the file carries per-pair frequency factors (a rope_freqs tensor)
FREQ_FACTORS = "rope_freqs"
READING_FIELDS = tuple(f.name for f in fields(RopeReading))  # the table's rows, in this order
_SCALING_FIELDS = ("factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "attention_factor")
# how a field differs: the second source divides by per-pair factors from a tensor, drops the first's scaling,
# adds scaling the first lacks, or holds another value
DISAGREEMENT_KINDS = ("freq_factors", "dropped", "added", "differs")


def rope_reading(config: Mapping[str, Any]) -> RopeReading:
    """The fields of a config that set positions, read through the model's transformers config class.

    ``context`` is max_position_embeddings; a field the setting lacks is None.
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a dict (a config.json), but got {type(config).__name__}.")
    read = read_rope_config(config)
    scaling = read.scaling or {}
    kind = read.rope_type or "default"
    yarn = kind == "yarn"
    return RopeReading(
        model_type=config.get("model_type"), rotary_dim=read.rotary_dim, rope_theta=float(read.base),
        rope_type=kind, factor=None if kind == "default" else scaling.get("factor"),
        original_max_position_embeddings=scaling.get("original_max_position_embeddings") if kind != "default"
        else None,
        beta_fast=float(scaling.get("beta_fast", 32.0)) if yarn else None,
        beta_slow=float(scaling.get("beta_slow", 1.0)) if yarn else None,
        attention_factor=float(rope_from_config(config)[1]), context=read.max_position_embeddings)


def same_value(a: Any, b: Any) -> bool:
    """Whether two readings' values agree: numbers within a relative 1e-6 (a GGUF stores floats as float32)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-6)
    return bool(a == b)


class Disagreement(NamedTuple):
    """One field where two readings differ (``compare_readings``).

    Fields:
        field: the ``RopeReading`` field.
        kind: one of ``DISAGREEMENT_KINDS``: ``"freq_factors"`` (the second divides each pair's frequency by the
            file's factors where the first has ``first`` scaling), ``"dropped"`` (the second drops the first's
            scaling: plain RoPE), ``"added"`` (the second adds scaling the first lacks), ``"differs"``.
        first: the first reading's value.
        second: the second reading's value.
    """

    field: str
    kind: Literal["freq_factors", "dropped", "added", "differs"]
    first: Any
    second: Any


def compare_readings(first: RopeReading, second: RopeReading) -> tuple[Disagreement, ...]:
    """Each field where two readings disagree, in ``READING_FIELDS`` order; () when they agree.

    model_type is not compared; where the scaling types differ, the scaling's own fields go with the type and
    are not compared either.
    """
    if not isinstance(first, RopeReading) or not isinstance(second, RopeReading):
        raise ValueError("compare_readings takes two RopeReadings (rope_reading, llama_cpp_reading).")
    found = []
    retyped = first.rope_type != second.rope_type
    for key in READING_FIELDS:
        a, b = getattr(first, key), getattr(second, key)
        if key == "model_type" or same_value(a, b) or (retyped and key in _SCALING_FIELDS):
            continue
        kind: Literal["freq_factors", "dropped", "added", "differs"] = "differs"
        if key == "rope_type" and b == FREQ_FACTORS:
            kind = "freq_factors"
        elif key == "rope_type" and b == "default" and a not in (None, "default"):
            kind = "dropped"
        elif key == "rope_type" and a == "default" and b not in (None, "default"):
            kind = "added"
        found.append(Disagreement(key, kind, a, b))
    return tuple(found)
