"""Save and load lab results: the curves as JSON, the attention maps beside them as a compressed .npz."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .methods import LAB_METHODS

__all__ = ["SHIPPED_LAB_JSON", "SHIPPED_LAB_NPZ", "best_method", "lab_attention_panels", "lab_live_series",
           "lab_series", "lab_train_curves", "load_lab_results", "save_lab_results", "select_methods",
           "shipped_lab_results", "uniform_guess_loss"]

_ASSETS = Path(__file__).resolve().parents[2] / "assets"
SHIPPED_LAB_JSON = _ASSETS / "lab_full_seed0.json"  # made by python -m posenc_core.lab (full preset, seed 0)
SHIPPED_LAB_NPZ = _ASSETS / "lab_full_seed0_attention.npz"


def _rounded(value):
    """Floats to 6 significant digits (float32 training noise is far larger), recursively."""
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def _json_ready(result: dict) -> dict:
    return _rounded({key: value for key, value in result.items() if key != "attention"})


def save_lab_results(result: dict, json_path: str | os.PathLike[str],
                     npz_path: str | os.PathLike[str] | None = None) -> None:
    """Write ``result`` (from ``run_lab``) as JSON; its attention maps to ``npz_path`` when given.

    The maps are stored as float16 (attention weights lie in [0, 1]; 3 significant digits are plenty
    for a heatmap) under keys ``<method>/at_T`` and ``<method>/at_4T``; the chosen head and the
    offset masses go into the npz as a small JSON string.
    """
    Path(json_path).write_text(json.dumps(_json_ready(result), indent=1) + "\n")
    attention = result.get("attention")
    if npz_path is None or not attention:
        return
    arrays: dict[str, Any] = {}
    meta = {}
    for name, item in attention.items():
        for key in ("at_T", "at_4T"):
            if item[key] is not None:
                arrays[f"{name}/{key}"] = np.asarray(item[key], dtype=np.float16)
        meta[name] = {k: v for k, v in item.items() if k not in ("at_T", "at_4T")}
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(npz_path, **arrays)


def load_lab_results(json_path: str | os.PathLike[str], npz_path: str | os.PathLike[str] | None = None) -> dict:
    """Read results written by ``save_lab_results`` (attention maps as float32, when an npz is given)."""
    try:
        result = json.loads(Path(json_path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"Could not read lab results from {json_path}: {error}") from error
    for key in ("task", "train_len", "eval_lengths", "methods", "seconds"):
        if key not in result:
            raise ValueError(f"{json_path} is not a lab result: the key {key!r} is missing.")
    if npz_path is not None and Path(npz_path).exists():
        with np.load(npz_path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            result["attention"] = {
                name: info | {key: (data[f"{name}/{key}"].astype(np.float32) if f"{name}/{key}" in data else None)
                              for key in ("at_T", "at_4T")}
                for name, info in meta.items()}
    return result


def shipped_lab_results() -> dict:
    """The shipped full-preset run (seed 0) with its attention maps: what the lab page shows before any Run."""
    return load_lab_results(SHIPPED_LAB_JSON, SHIPPED_LAB_NPZ)


def _label(name: str, entry: dict) -> str:
    """The registry's legend label (so files written by older versions read the same), else the stored one."""
    return LAB_METHODS[name].label if name in LAB_METHODS else entry.get("label", name)


def select_methods(result: dict, names: Sequence[str]) -> dict:
    """A copy of ``result`` holding only the named methods (in the given order, unknown names skipped)."""
    keep = [n for n in names if n in result["methods"]]
    out = dict(result, methods={n: result["methods"][n] for n in keep})
    if "attention" in result:
        out["attention"] = {n: result["attention"][n] for n in keep if n in result["attention"]}
    return out


def lab_series(result: dict, metric: str = "accuracy") -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(eval lengths, {method label: values}) for ``metric`` "accuracy" or "loss"; NaN where a method cannot run."""
    if metric not in ("accuracy", "loss"):
        raise ValueError(f"metric must be 'accuracy' or 'loss', but got {metric!r}.")
    lengths = np.asarray(result["eval_lengths"], dtype=np.int64)
    series = {_label(name, entry): np.array([np.nan if v is None else v for v in entry[metric]], dtype=np.float64)
              for name, entry in result["methods"].items()}
    return lengths, series


def lab_train_curves(result: dict, metric: str = "loss") -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(steps, {label: training loss or accuracy}) for the trained methods in ``result`` (all share the steps)."""
    curves = {_label(name, entry): entry["train_curve"] for name, entry in result["methods"].items()
              if entry.get("train_curve")}
    if not curves:
        return np.zeros(0, dtype=np.int64), {}
    steps = np.asarray(next(iter(curves.values()))["step"], dtype=np.int64)
    return steps, {label: np.asarray(c[metric], dtype=np.float64) for label, c in curves.items()}


def lab_attention_panels(result: dict, at: str = "T", names: Sequence[str] | None = None) -> tuple[list[np.ndarray],
                         list[str]]:
    """The chosen head's attention of each method at "T" or "4T", with panel titles.

    A method that cannot run at that length gets an all-NaN panel (drawn empty) and says so in its title.
    """
    if at not in ("T", "4T"):
        raise ValueError(f"at must be 'T' or '4T', but got {at!r}.")
    attention = result.get("attention") or {}
    names = [n for n in (names or list(attention)) if n in attention]
    length = result["train_len"] * (4 if at == "4T" else 1)
    grids, titles = [], []
    for name in names:
        item = attention[name]
        label = LAB_METHODS[name].short if name in LAB_METHODS else name
        grid = item[f"at_{at}"]
        if grid is None:
            grids.append(np.full((length, length), np.nan, dtype=np.float32))
            titles.append(f"{label}: cannot run at {length}")
        else:
            grids.append(np.asarray(grid, dtype=np.float32))
            mass = item[f"mass_{at}"]
            titles.append(f"{label} · L{item['layer'] + 1} H{item['head'] + 1} · {mass:.2f} at -k")
    return grids, titles


def best_method(result: dict) -> tuple[str, float]:
    """The method with the highest accuracy at the training length, and that accuracy."""
    scored = [(entry["accuracy"][0], name) for name, entry in result["methods"].items()
              if entry["accuracy"] and entry["accuracy"][0] is not None]
    if not scored:
        raise ValueError("No method has an accuracy at the training length.")
    accuracy, name = max(scored, key=lambda pair: pair[0])  # the first of equals (a trained model)
    return name, float(accuracy)


def lab_live_series(curves: dict, labels: dict | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
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
