"""Save and load lab results: the curves as JSON, the attention maps beside them as a compressed .npz."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


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


def save_lab_results(result: dict, json_path, npz_path=None) -> None:
    """Write ``result`` (from ``run_lab``) as JSON; its attention maps to ``npz_path`` when given.

    The maps are stored as float16 (attention weights lie in [0, 1]; 3 significant digits are plenty
    for a heatmap) under keys ``<method>/at_T`` and ``<method>/at_4T``; the chosen head and the
    offset masses go into the npz as a small JSON string.
    """
    Path(json_path).write_text(json.dumps(_json_ready(result), indent=1) + "\n")
    attention = result.get("attention")
    if npz_path is None or not attention:
        return
    arrays, meta = {}, {}
    for name, item in attention.items():
        for key in ("at_T", "at_4T"):
            if item[key] is not None:
                arrays[f"{name}/{key}"] = np.asarray(item[key], dtype=np.float16)
        meta[name] = {k: v for k, v in item.items() if k not in ("at_T", "at_4T")}
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(npz_path, **arrays)


def load_lab_results(json_path, npz_path=None) -> dict:
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
