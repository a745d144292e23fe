"""Save and load lab results: the curves as JSON, the attention maps beside them as a compressed .npz."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .methods import LAB_METHODS
from .train import AttentionMaps, LabResult, LabTask, MethodScores, TrainCurve

__all__ = ["SHIPPED_LAB_JSON", "SHIPPED_LAB_NPZ", "AttentionPanel", "best_method", "lab_attention_panels",
           "lab_live_series", "lab_result_json", "lab_series", "lab_train_curves", "load_lab_results",
           "save_lab_results", "select_methods", "shipped_lab_results", "uniform_guess_loss"]

_DATA = Path(__file__).resolve().parent / "data"  # package data: in the wheel
SHIPPED_LAB_JSON = _DATA / "lab_full_seed0.json"  # made by python -m posenc_core.lab (full preset, seed 0)
SHIPPED_LAB_NPZ = _DATA / "lab_full_seed0_attention.npz"
_MAPS = ("at_T", "at_4T")  # the arrays of an AttentionMaps; the rest goes into the npz's JSON "meta"


def _rounded(value):
    """Floats to 6 significant digits (float32 training noise is far larger), recursively."""
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def lab_result_json(result: LabResult) -> dict[str, Any]:
    """``result`` as the JSON object a lab result file holds (floats to 6 significant digits, no attention maps):
    {"task", "train_len", "eval_lengths", "methods": {name: {"accuracy", "loss", "notes", "label"[,
    "train_curve"]}}, "seconds"}."""
    methods = {}
    for name, entry in result.methods.items():
        item = {k: v for k, v in dataclasses.asdict(entry).items() if k != "train_curve"}
        if entry.train_curve is not None:
            item["train_curve"] = dataclasses.asdict(entry.train_curve)
        methods[name] = item
    return _rounded({"task": dataclasses.asdict(result.task), "train_len": result.train_len,
                     "eval_lengths": result.eval_lengths, "methods": methods, "seconds": result.seconds})


def save_lab_results(result: LabResult, json_path: str | os.PathLike[str],
                     npz_path: str | os.PathLike[str] | None = None) -> None:
    """Write ``result`` (from ``run_lab``) as JSON; its attention maps to ``npz_path`` when given.

    The maps are stored as float16 (attention weights lie in [0, 1]; 3 significant digits are plenty
    for a heatmap) under keys ``<method>/at_T`` and ``<method>/at_4T``; the chosen head and the
    offset masses go into the npz as a small JSON string.
    """
    Path(json_path).write_text(json.dumps(lab_result_json(result), indent=1) + "\n")
    if npz_path is None or not result.attention:
        return
    arrays: dict[str, Any] = {}
    meta = {}
    for name, item in result.attention.items():
        for key in _MAPS:
            if getattr(item, key) is not None:
                arrays[f"{name}/{key}"] = np.asarray(getattr(item, key), dtype=np.float16)
        meta[name] = {f.name: getattr(item, f.name) for f in dataclasses.fields(item) if f.name not in _MAPS}
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(npz_path, **arrays)


def _lab_result(data: Mapping[str, Any]) -> LabResult:
    """A ``LabResult`` from a result file's JSON object."""
    methods = {}
    for name, entry in data["methods"].items():
        curve = entry.get("train_curve")
        methods[name] = MethodScores(accuracy=list(entry["accuracy"]), loss=list(entry["loss"]),
                                     notes=list(entry.get("notes", [None] * len(entry["accuracy"]))),
                                     label=entry.get("label", name),
                                     train_curve=None if not curve else TrainCurve(**curve))
    task = LabTask(**{"description": "", "settings": {}, **data["task"]})
    return LabResult(task=task, train_len=int(data["train_len"]), eval_lengths=list(data["eval_lengths"]),
                     methods=methods, seconds=data["seconds"])


def load_lab_results(json_path: str | os.PathLike[str],
                     npz_path: str | os.PathLike[str] | None = None) -> LabResult:
    """Read results written by ``save_lab_results`` (attention maps as float32, when an npz is given)."""
    try:
        data = json.loads(Path(json_path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"Could not read lab results from {json_path}: {error}") from error
    for key in ("task", "train_len", "eval_lengths", "methods", "seconds"):
        if key not in data:
            raise ValueError(f"{json_path} is not a lab result: the key {key!r} is missing.")
    try:
        result = _lab_result(data)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{json_path} is not a lab result: {error}") from None
    if npz_path is not None and Path(npz_path).exists():
        with np.load(npz_path, allow_pickle=False) as npz:
            meta = json.loads(str(npz["meta"]))
            maps = {}
            for name, info in meta.items():
                grids: dict[str, Any] = {key: npz[f"{name}/{key}"].astype(np.float32) if f"{name}/{key}" in npz
                                         else None for key in _MAPS}
                maps[name] = AttentionMaps(**info, **grids)
        result = dataclasses.replace(result, attention=maps)
    return result


def shipped_lab_results() -> LabResult:
    """The shipped full-preset run (seed 0) with its attention maps, package data: what the lab page shows before
    any Run."""
    return load_lab_results(SHIPPED_LAB_JSON, SHIPPED_LAB_NPZ)


def _label(name: str, entry: MethodScores) -> str:
    """The registry's legend label (so files written by older versions read the same), else the stored one."""
    return LAB_METHODS[name].label if name in LAB_METHODS else entry.label


@dataclass(frozen=True)
class AttentionPanel:
    """One method's panel of ``lab_attention_panels``.

    method: its name. length: the test length L. runs: whether the method can run at L.
    grid: (L, L) the chosen head's attention weights (query rows, key columns), float32; all NaN where it
    cannot run. layer, head: the head, from 0 (None where it cannot run). mass: its mean weight on the key
    k steps back (None where it cannot run).
    """

    method: str
    length: int
    runs: bool
    grid: np.ndarray
    layer: int | None
    head: int | None
    mass: float | None


def select_methods(result: LabResult, names: Sequence[str]) -> LabResult:
    """A copy of ``result`` holding only the named methods (in the given order, unknown names skipped)."""
    keep = [n for n in names if n in result.methods]
    attention = None if result.attention is None else {n: result.attention[n] for n in keep if n in result.attention}
    return dataclasses.replace(result, methods={n: result.methods[n] for n in keep}, attention=attention)


def lab_series(result: LabResult, metric: str = "accuracy") -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(eval lengths, {method label: values}) for ``metric`` "accuracy" or "loss"; NaN where a method cannot run."""
    if metric not in ("accuracy", "loss"):
        raise ValueError(f"metric must be 'accuracy' or 'loss', but got {metric!r}.")
    lengths = np.asarray(result.eval_lengths, dtype=np.int64)
    series = {_label(name, entry): np.array([np.nan if v is None else v for v in getattr(entry, metric)],
                                            dtype=np.float64)
              for name, entry in result.methods.items()}
    return lengths, series


def lab_train_curves(result: LabResult, metric: str = "loss") -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(steps, {label: training loss or accuracy}) for the trained methods in ``result`` (all share the steps)."""
    if metric not in ("accuracy", "loss"):
        raise ValueError(f"metric must be 'accuracy' or 'loss', but got {metric!r}.")
    curves = {_label(name, entry): entry.train_curve for name, entry in result.methods.items()
              if entry.train_curve is not None and entry.train_curve.step}
    if not curves:
        return np.zeros(0, dtype=np.int64), {}
    steps = np.asarray(next(iter(curves.values())).step, dtype=np.int64)
    return steps, {label: np.asarray(getattr(c, metric), dtype=np.float64) for label, c in curves.items()}


def lab_attention_panels(result: LabResult, at: str = "T", names: Sequence[str] | None = None) -> list[AttentionPanel]:
    """The chosen head's attention of each method (of ``names``, or all with maps) at "T" or "4T".

    A method that cannot run at that length gets an all-NaN panel (drawn empty).
    """
    if at not in ("T", "4T"):
        raise ValueError(f"at must be 'T' or '4T', but got {at!r}.")
    attention = result.attention or {}
    names = [n for n in (names or list(attention)) if n in attention]
    length = result.train_len * (4 if at == "4T" else 1)
    panels = []
    for name in names:
        item = attention[name]
        grid = getattr(item, f"at_{at}")
        if grid is None:
            panels.append(AttentionPanel(name, length, False, np.full((length, length), np.nan, dtype=np.float32),
                                         None, None, None))
        else:
            panels.append(AttentionPanel(name, length, True, np.asarray(grid, dtype=np.float32), item.layer,
                                         item.head, getattr(item, f"mass_{at}")))
    return panels


def best_method(result: LabResult) -> tuple[str, float]:
    """The method with the highest accuracy at the training length, and that accuracy."""
    scored = [(entry.accuracy[0], name) for name, entry in result.methods.items()
              if entry.accuracy and entry.accuracy[0] is not None]
    if not scored:
        raise ValueError("No method has an accuracy at the training length.")
    accuracy, name = max(scored, key=lambda pair: pair[0])  # the first of equals (a trained model)
    return name, float(accuracy)


def lab_live_series(curves: Mapping[str, Mapping[str, Sequence[float]]],
                    labels: Mapping[str, str] | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Training curves in progress as one shared x axis: the longest curve's steps, shorter ones NaN-padded.

    Args:
        curves: {method: {"step": [...], "loss": [...]}} as ``train_model`` reports them.
        labels: optional {method: legend label}.
    """
    if not curves:
        return np.zeros(0, dtype=np.int64), {}
    steps = max((c["step"] for c in curves.values()), key=len)
    series = {}
    for name, curve in curves.items():
        values = np.full(len(steps), np.nan)
        values[:len(curve["loss"])] = curve["loss"]
        series[(labels or {}).get(name, name)] = values
    return np.asarray(steps, dtype=np.int64), series


def uniform_guess_loss(vocab: int) -> float:
    """Cross-entropy of guessing uniformly among ``vocab`` symbols: ln(vocab), the loss a model starts from."""
    vocab = int(vocab)
    if vocab < 2:
        raise ValueError(f"A vocabulary needs at least 2 symbols, but got {vocab}.")
    return float(np.log(vocab))
