"""One model read by every source side by side: its config.json, transformers loading its GGUF file, llama.cpp
with its flags, and vLLM with its own; the fields where each disagrees with the config.json, and each source's
wavelengths.

Sources are keyed by the codes of ``SOURCES``; the lesson's views name them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from .._checks import as_int
from ..configs.rope_config import rope_from_config
from .gguf_header import GGUFHeader
from .gguf_loader import gguf_transformers_config
from .llama_cpp import LlamaCppRope, llama_cpp_flags, llama_cpp_inv_freq, llama_cpp_reading, llama_cpp_rope
from .rope_readings import READING_FIELDS, Disagreement, RopeReading, compare_readings, rope_reading, same_value
from .vllm_context import VllmContext, vllm_config
from .vllm_flags import vllm_flags

__all__ = ["ENGINE_NOTES", "SOURCES", "EngineCell", "EngineRow", "EngineTable", "engine_frequencies", "engine_rows",
           "engine_table", "engine_wavelengths", "full_turns"]

# the readers of one model, in the table's order: the config.json itself, transformers' GGUF loader, llama.cpp
# on the GGUF with its flags, vLLM on the config.json with its flags
SOURCES = ("config", "transformers", "llama.cpp", "vllm")
# what a header cannot show: "freq_factor_tensors" (the file carries per-pair factors as tensors, whose values
# lie past the header: llama.cpp's curve is left out), "tensor_list_cut" (the bytes end before the tensor list,
# so such a tensor could not be looked for, where the config's scaling is llama3 or longrope)
ENGINE_NOTES = ("freq_factor_tensors", "tensor_list_cut")
_FACTOR_SCALINGS = ("llama3", "longrope")  # the scalings a conversion carries as a rope_freqs tensor


@dataclass(frozen=True)
class EngineTable:
    """Every source's reading of the same model (``engine_table``), keyed by the codes of ``SOURCES``.

    Fields:
        readings: {source: ``RopeReading``} in ``SOURCES`` order; a source that cannot load is left out (see
            ``failed``). vLLM's ``context`` is the length it serves (None where it stops).
        configs: {source: config dict} for the config-based sources (config, transformers, vllm).
        llama: llama.cpp's parameters (``LlamaCppRope``).
        vllm: vLLM's context length and how it got there, or why it stops (``VllmContext``).
        vllm_removed: the removed vLLM flags used, in order.
        ignored: the GGUF's position keys transformers' loader leaves out.
        failed: {source: the loader's refusal, as its ``ValueError`` says it}.
        disagreements: {source: its ``Disagreement``s with the config.json}; where vLLM stops, its context is
            left out of them (``vllm.refusal`` says why).
        notes: the ``ENGINE_NOTES`` codes that apply, in that order.
    """

    readings: dict[str, RopeReading]
    configs: dict[str, dict[str, Any]]
    llama: LlamaCppRope
    vllm: VllmContext
    vllm_removed: tuple[str, ...]
    ignored: tuple[str, ...]
    failed: dict[str, str]
    disagreements: dict[str, tuple[Disagreement, ...]]
    notes: tuple[str, ...]


def _notes(llama: LlamaCppRope, config: RopeReading) -> tuple[str, ...]:
    if llama.freq_factors:
        return ("freq_factor_tensors",)
    if not llama.tensors_read and config.rope_type in _FACTOR_SCALINGS:
        return ("tensor_list_cut",)
    return ()


def engine_table(header: GGUFHeader, config: Mapping[str, Any], llama_text: str = "",
                 vllm_text: str = "") -> EngineTable:
    """Every source's reading of the same model, side by side, with each disagreement with the config.json.

    Args:
        header: the GGUF's key-value section (``read_gguf_header``).
        config: the model's config.json dict.
        llama_text: llama.cpp flags as text ("" for none).
        vllm_text: vLLM flags as text ("" for none).
    """
    readings = {"config": rope_reading(config)}
    configs: dict[str, dict[str, Any]] = {"config": dict(config)}
    failed: dict[str, str] = {}
    ignored: list[str] = []
    try:
        made, ignored = gguf_transformers_config(header)
        readings["transformers"], configs["transformers"] = rope_reading(made), made
    except ValueError as error:
        failed["transformers"] = str(error)
    llama = llama_cpp_rope(header, llama_cpp_flags(llama_text))
    readings["llama.cpp"] = llama_cpp_reading(llama)
    given = vllm_flags(vllm_text)
    merged, context = vllm_config(config, given)
    readings["vllm"] = dataclasses.replace(rope_reading(merged), context=context.served)
    configs["vllm"] = merged
    compared = dict(readings)
    if context.served is None:  # vLLM stops: its refusal (context.refusal) replaces the context comparison
        compared["vllm"] = dataclasses.replace(readings["vllm"], context=readings["config"].context)
    disagreements = {name: compare_readings(readings["config"], reading)
                     for name, reading in compared.items() if name != "config"}
    return EngineTable(readings, configs, llama, context, given.removed, tuple(ignored), failed, disagreements,
                       _notes(llama, readings["config"]))


def engine_frequencies(table: EngineTable) -> dict[str, np.ndarray]:
    """Each source's per-pair angle per position (rad/token), shape (pairs,) each, from ``engine_table``.

    Config-based sources through ``rope_from_config`` (transformers' float32 inv_freq); llama.cpp through
    ``llama_cpp_inv_freq`` (ggml's formula in float64), left out where the file carries per-pair factors.
    """
    out = {name: np.asarray(rope_from_config(config)[0], dtype=np.float64) for name, config in table.configs.items()}
    if not table.llama.freq_factors:  # factors in the tensor data are not in a header: no curve
        out["llama.cpp"] = llama_cpp_inv_freq(table.llama)
    return {name: out[name] for name in SOURCES if name in out}


def engine_wavelengths(table: EngineTable) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``(pair index, {source: wavelength in tokens})`` for ``engine_table``'s sources, each (pairs,) float64.

    The wavelength of pair i is 2π over its angle per position; a source with fewer rotated pairs is padded
    with NaN (a gap in its curve).
    """
    freqs = engine_frequencies(table)
    pairs = max(len(f) for f in freqs.values())
    out = {}
    for name, f in freqs.items():
        wave = np.full(pairs, np.nan)  # (pairs,)
        wave[:len(f)] = 2 * np.pi / f
        out[name] = wave
    return np.arange(pairs), out


class EngineCell(NamedTuple):
    """One source's value of one field in the comparison table (``engine_rows``).

    Fields:
        status: ``"read"``, ``"failed"`` (the source could not load: ``EngineTable.failed`` says why) or
            ``"refused"`` (vLLM's context where vLLM stops).
        value: the source's value (None unless read, or where the setting has no such field).
        differs: whether it differs from the config.json's (always False for the config.json).
    """

    status: Literal["read", "failed", "refused"]
    value: Any
    differs: bool


class EngineRow(NamedTuple):
    """One field of the comparison table (``engine_rows``).

    Fields:
        field: the ``RopeReading`` field.
        cells: {source: ``EngineCell``} for every source of ``SOURCES``, in that order.
    """

    field: str
    cells: dict[str, EngineCell]


def _cell(table: EngineTable, source: str, key: str) -> EngineCell:
    if source not in table.readings:
        return EngineCell("failed", None, False)
    value = getattr(table.readings[source], key)
    if source == "vllm" and key == "context" and value is None:
        return EngineCell("refused", None, True)
    differs = source != "config" and not same_value(getattr(table.readings["config"], key), value)
    return EngineCell("read", value, differs)


def engine_rows(table: EngineTable) -> tuple[EngineRow, ...]:
    """The comparison table: one row per ``READING_FIELDS`` field but the model type, one cell per source."""
    return tuple(EngineRow(key, {source: _cell(table, source, key) for source in SOURCES})
                 for key in READING_FIELDS if key != "model_type")


def full_turns(table: EngineTable, length: int) -> dict[str, int]:
    """How many rotary pairs of each source complete a full turn (wavelength ≤ ``length`` tokens)."""
    length = as_int("length", length, minimum=1, maximum=1 << 40)
    _, waves = engine_wavelengths(table)
    return {name: int(np.sum(wave <= length)) for name, wave in waves.items()}
