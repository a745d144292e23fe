"""SmolLM2 past its 8,192 positions: per-position loss on the shipped text under each RoPE extension,
applied through transformers' own rotary code (``LlamaRotaryEmbedding`` + ``ROPE_INIT_FUNCTIONS``).

transformers has no "static NTK" rope_type: static NTK-aware scaling is only a larger base, so it runs as
``rope_type="default"`` with ``rope_theta = base * s^(d/(d-2))`` (bloc97's rule, as ``posenc_core.rope.frequencies``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .._checks import as_choice, as_float, as_int

__all__ = [
    "LONG_METHODS",
    "MAX_LIVE_TOKENS",
    "MAX_LONG_TOKENS",
    "SMOLLM2_BASE",
    "SMOLLM2_CONTEXT",
    "SMOLLM2_HEAD_DIM",
    "BinnedLoss",
    "LongContextRun",
    "LongContextSummary",
    "LongMethod",
    "MethodRun",
    "StretchLosses",
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


@dataclass(frozen=True)
class LongMethod:
    """A context-extension method run on SmolLM2.

    label: its name in a legend (and in the saved runs).
    rope_parameters: factor s -> the rope_parameters it puts in SmolLM2's config.
    """

    label: str
    rope_parameters: Callable[[float], dict[str, Any]]


# How each method is run (the sentences that say it are the run files', written by ``__main__``):
# none: the trained RoPE; linear: rope_type 'linear' (every frequency / s); ntk: rope_type 'default' with base
# x s^(d/(d-2)), as transformers has no static NTK type; dynamic: rope_type 'dynamic' (the base grows with the
# sequence past 8,192); yarn: rope_type 'yarn' (fast pairs kept, slow pairs / s, a ramp between, scores x
# (0.1 ln s + 1)^2).
LONG_METHODS: dict[str, LongMethod] = {
    "none": LongMethod("No scaling", lambda s: {"rope_type": "default", "rope_theta": SMOLLM2_BASE}),
    "linear": LongMethod("Position interpolation", lambda s: {"rope_type": "linear", "rope_theta": SMOLLM2_BASE,
                                                              "factor": s}),
    "ntk": LongMethod("NTK-aware (static)", lambda s: {
        "rope_type": "default",
        "rope_theta": SMOLLM2_BASE * s ** (SMOLLM2_HEAD_DIM / (SMOLLM2_HEAD_DIM - 2))}),
    "dynamic": LongMethod("Dynamic NTK", lambda s: {"rope_type": "dynamic", "rope_theta": SMOLLM2_BASE,
                                                    "factor": s}),
    "yarn": LongMethod("YaRN", lambda s: {"rope_type": "yarn", "rope_theta": SMOLLM2_BASE, "factor": s,
                                          "original_max_position_embeddings": SMOLLM2_CONTEXT}),
}


class BinnedLoss(NamedTuple):
    """Mean loss per bin of positions (``binned_loss``).

    start: (bins,) the first position of each bin.
    loss: (bins,) the mean loss in the bin, nats.
    perplexity: (bins,) e to that loss.
    """

    start: np.ndarray
    loss: np.ndarray
    perplexity: np.ndarray


@dataclass(frozen=True)
class MethodRun:
    """One method's losses in a ``LongContextRun``.

    label: its legend label when it was run.
    rope_parameters: what it put in SmolLM2's config.
    losses: one list per window of the loss (nats) at each position p (predicting token p + 1), 5 decimals.
    how: how the run file says it was applied ("" when it says nothing).
    """

    label: str
    rope_parameters: dict[str, Any]
    losses: list[list[float]]
    how: str = ""


@dataclass(frozen=True)
class LongContextRun:
    """Per-position loss of SmolLM2 on windows of the shipped text under each method (``long_context_run``);
    saved as JSON with the same keys (``to_json``, ``load_long_context``).

    text: the text's file. trained_context: SmolLM2's 8,192. factor: the scale factor s of every method (NaN when
    the file does not say).
    tokens: tokens per window. window_starts: each window's first token in the text. device: "cpu" or "cuda".
    methods: {method name: its run}, each holding ``windows_done`` windows.
    seconds: {"method/window": seconds of its forward pass}.
    windows_done: how many windows every method finished.
    model: what the run file says of the model ("" when it says nothing).
    command: the command line that made it (a list, one per run, after ``merge_long_runs``).
    """

    text: str
    trained_context: int
    factor: float
    tokens: int
    window_starts: list[int]
    device: str
    methods: dict[str, MethodRun]
    seconds: dict[str, float]
    windows_done: int
    model: str = ""
    command: str | list[str] = ""

    def to_json(self) -> dict[str, Any]:
        """The run as the JSON object the run files hold."""
        out = dataclasses.asdict(self)
        return {"model": out.pop("model"), **out}


@dataclass(frozen=True)
class LongContextSummary:
    """Binned loss per method and the mean loss inside and past the trained context (``long_context_summary``);
    the dicts are keyed by method name (``LONG_METHODS``), losses in nats.

    start: (bins,) first position of each bin. loss: {method: (bins,) mean loss per bin}.
    inside, past: {method: mean loss over positions before the context, and from it on (NaN if none)}.
    inside_ppl, past_ppl: {method: e to those losses}.
    inside_change, past_change: {method: its loss minus the no-scaling loss} ({} when "none" was not run).
    best_past: the method with the lowest loss past the context, or None.
    tokens: tokens per window. windows: windows averaged. context: the trained context (8,192).
    inside_bins: how many bins end by the context. rise: {method: past minus inside}.
    minutes: the run's forward passes, all methods, in minutes.
    """

    start: np.ndarray
    loss: dict[str, np.ndarray]
    inside: dict[str, float]
    past: dict[str, float]
    inside_ppl: dict[str, float]
    past_ppl: dict[str, float]
    inside_change: dict[str, float]
    past_change: dict[str, float]
    best_past: str | None
    tokens: int
    windows: int
    context: int
    inside_bins: int
    rise: dict[str, float]
    minutes: float


@dataclass(frozen=True)
class StretchLosses:
    """The live run's curves (``stretch_losses``), keyed as its losses were.

    position: (bins,) the middle position of each bin. loss: {key: (bins,) mean loss per bin, nats}.
    mean: {key: the mean loss over the whole stretch}.
    """

    position: np.ndarray
    loss: dict[str, np.ndarray]
    mean: dict[str, float]


def method_rope_parameters(method: str, factor: float) -> dict[str, Any]:
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
    from .models import load_smollm2, require_libraries
    from .smollm2 import smollm2_forward, smollm2_rotary, smollm2_token_losses
    from .text import text_tokens

    count = as_int("tokens", count, minimum=2, maximum=MAX_LONG_TOKENS)
    offset = as_int("position offset", position_offset, minimum=0, maximum=MAX_LONG_TOKENS)
    params = method_rope_parameters(method, factor)
    token_ids = text_tokens(as_int("start", start, minimum=0), count)
    require_libraries("SmolLM2's loss", "torch", "transformers")
    import torch

    ids = torch.tensor([token_ids], device=device)  # (1, n)
    _, model = load_smollm2()
    model = model.to(device)
    rotary = smollm2_rotary(model, params).to(device)
    positions = torch.arange(offset, offset + count, device=device)[None]  # (1, n)
    hidden = smollm2_forward(model, ids, position_ids=positions, rotary=rotary, progress=progress)
    return smollm2_token_losses(model, hidden, ids)


def binned_loss(losses: np.ndarray, bin_size: int) -> BinnedLoss:
    """Mean loss per bin of ``bin_size`` positions of (n,) or (windows, n) losses, over the windows too; a short
    last bin is dropped."""
    losses = np.asarray(losses, dtype=np.float64)  # (n,) or (windows, n)
    if losses.ndim not in (1, 2):
        raise ValueError(f"The losses must be one row or one row per window, but have {losses.ndim} dimensions.")
    if losses.ndim == 1:
        losses = losses[None]
    bins = losses.shape[1] // as_int("bin size", bin_size, minimum=1)
    if bins < 1:
        raise ValueError(f"A bin of {bin_size} positions is longer than the {losses.shape[1]} losses.")
    mean = losses[:, : bins * bin_size].reshape(losses.shape[0], bins, bin_size).mean(axis=(0, 2))  # (bins,)
    return BinnedLoss(np.arange(bins) * bin_size, mean, np.exp(mean))


def long_context_run(methods: Sequence[str], factor: float, tokens: int, windows: int, *, device: str = "cpu",
                     progress: Callable[[dict[str, Any]], None] | None = None,
                     on_result: Callable[[LongContextRun], None] | None = None) -> LongContextRun:
    """Per-position loss for each method on ``windows`` disjoint stretches of ``tokens`` shipped-text tokens.

    ``progress({"method", "window", "layer", "layers", "fraction"})`` runs after each layer, and
    ``on_result(partial run)`` after each (method, window), so a long run can be saved as it goes.
    """
    names = [as_choice("method", m, tuple(LONG_METHODS)) for m in methods]
    factor = as_float("factor", factor, minimum=1.0, maximum=64.0)
    tokens = as_int("tokens", tokens, minimum=2, maximum=MAX_LONG_TOKENS)
    windows = as_int("windows", windows, minimum=1, maximum=8)
    starts = [w * tokens for w in range(windows)]
    losses: dict[str, list[list[float]]] = {name: [] for name in names}
    seconds: dict[str, float] = {}

    def partial(done: int) -> LongContextRun:
        runs = {name: MethodRun(LONG_METHODS[name].label, method_rope_parameters(name, factor), losses[name])
                for name in names}
        return LongContextRun(text=_TEXT, trained_context=SMOLLM2_CONTEXT, factor=factor, tokens=tokens,
                              window_starts=starts, device=device, methods=runs, seconds=dict(seconds),
                              windows_done=done)

    total = len(names) * windows
    # Windows outside, methods inside: a run stopped early still has every method on the same windows.
    for w, start in enumerate(starts):
        for m_index, name in enumerate(names):
            began = time.perf_counter()
            done = w * len(names) + m_index

            def layer_progress(layer, layers, name=name, w=w, done=done):
                if progress is not None:
                    progress({"method": name, "window": w, "layer": layer, "layers": layers,
                              "fraction": (done + layer / layers) / total})

            window_losses = position_losses(name, factor, start, tokens, device=device, progress=layer_progress)
            losses[name].append([round(float(x), 5) for x in window_losses])
            seconds[f"{name}/{w}"] = round(time.perf_counter() - began, 1)
            if on_result is not None:
                on_result(partial(w + (m_index == len(names) - 1)))
    return partial(windows)


_TEXT = "assets/devils_dictionary.txt"  # the text file as the run files name it (now the package's data/)


def _method_run(entry: Mapping[str, Any]) -> MethodRun:
    return MethodRun(label=str(entry.get("label", "")), rope_parameters=dict(entry.get("rope_parameters", {})),
                     losses=[list(map(float, w)) for w in entry["losses"]], how=str(entry.get("how", "")))


def load_long_context(path: str | os.PathLike) -> LongContextRun:
    """A saved ``long_context_run`` result, checked: methods that finished no window are dropped, and every
    other method keeps only the windows all of them finished."""
    try:
        result = json.loads(Path(path).read_text(encoding="utf-8"))
        # A method with no finished window has not been run (a run stopped early, or methods split over runs).
        methods = {k: _method_run(v) for k, v in (result.get("methods") or {}).items() if v.get("losses")}
        windows = min((len(m.losses) for m in methods.values()), default=0)
        run = LongContextRun(
            text=result.get("text", ""), trained_context=int(result["trained_context"]),
            factor=float(result.get("factor", "nan")),
            tokens=int(result["tokens"]), window_starts=list(result.get("window_starts", [])),
            device=result.get("device", ""), seconds=dict(result.get("seconds", {})), windows_done=windows,
            methods={k: dataclasses.replace(m, losses=m.losses[:windows]) for k, m in methods.items()},
            model=result.get("model", ""), command=result.get("command", ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"Could not read the long-context results {path}: {error}") from None
    if windows == 0:
        raise ValueError(f"{path} holds no finished run.")
    return run


SHIPPED_LONG_CONTEXT = Path(__file__).resolve().parent / "data" / "smollm2_long_context.json"  # package data


def shipped_long_context() -> LongContextRun:
    """The shipped run (16,384 tokens of the shipped text, every method at s = 2): ``load_long_context`` of the
    package's data/smollm2_long_context.json."""
    return load_long_context(SHIPPED_LONG_CONTEXT)


def long_context_summary(result: LongContextRun, bin_size: int = 256) -> LongContextSummary:
    """Binned loss per method and the mean loss inside and past the trained context; the loss at position p is
    that of predicting token p + 1 from tokens 0..p."""
    context = int(result.trained_context)
    bin_size = as_int("bin size", bin_size, minimum=1, maximum=max(1, result.tokens - 1))
    loss, inside, past = {}, {}, {}
    start = np.zeros(0, dtype=np.int64)
    for name, entry in result.methods.items():
        losses = np.asarray(entry.losses, dtype=np.float64)  # (windows, tokens - 1)
        binned = binned_loss(losses, bin_size)
        start = binned.start
        loss[name] = binned.loss
        inside[name] = float(losses[:, :context].mean())
        past[name] = float(losses[:, context:].mean()) if losses.shape[1] > context else float("nan")
    inside_change, past_change = {}, {}
    if "none" in inside:  # each method against the trained RoPE, inside and past the context
        inside_change = {k: v - inside["none"] for k, v in inside.items() if k != "none"}
        past_change = {k: v - past["none"] for k, v in past.items() if k != "none"}
    finite = {k: v for k, v in past.items() if np.isfinite(v)}
    return LongContextSummary(
        start=start, loss=loss, inside=inside, past=past,
        inside_ppl={k: float(np.exp(v)) for k, v in inside.items()},
        past_ppl={k: float(np.exp(v)) for k, v in past.items()},
        inside_change=inside_change, past_change=past_change,
        best_past=min(finite, key=finite.__getitem__) if finite else None,
        tokens=int(result.tokens), windows=int(result.windows_done), context=context,
        inside_bins=int(np.sum(start + bin_size <= context)), rise={k: past[k] - inside[k] for k in inside},
        minutes=sum(result.seconds.values()) / 60)


def stretch_losses(losses: Mapping[str, np.ndarray], offset: int, bin_size: int = 32) -> StretchLosses:
    """The live run's curves from {key: (tokens - 1,) loss} of ``position_losses`` of one stretch placed at
    ``offset``, binned by ``bin_size`` positions."""
    offset = as_int("first position", offset, minimum=0)
    binned = {key: binned_loss(v, bin_size) for key, v in losses.items()}
    if not binned:
        raise ValueError("There are no losses: choose at least one method.")
    start = next(iter(binned.values())).start  # (bins,)
    return StretchLosses(position=start + offset + bin_size / 2, loss={k: b.loss for k, b in binned.items()},
                         mean={k: float(np.mean(v)) for k, v in losses.items()})


def merge_long_runs(runs: Iterable[LongContextRun]) -> LongContextRun:
    """Join ``load_long_context`` results of different methods on the same text, length, factor and windows
    (e.g. methods run as parallel processes). The commands and timings of every run are kept."""
    runs = list(runs)
    if not runs:
        raise ValueError("There are no runs to merge.")
    first = runs[0]
    windows = min(r.windows_done for r in runs)
    methods: dict[str, MethodRun] = {}
    seconds: dict[str, float] = {}
    commands = []
    for run in runs:
        for key in ("tokens", "factor", "trained_context"):
            if getattr(run, key) != getattr(first, key):
                raise ValueError(f"The runs differ in {key} ({getattr(run, key)} vs {getattr(first, key)}); only "
                                 "runs of the same setting can be merged.")
        for name, entry in run.methods.items():
            if name in methods:
                raise ValueError(f"Method {name} is in more than one run.")
            methods[name] = dataclasses.replace(entry, losses=entry.losses[:windows])
        seconds.update({k: v for k, v in run.seconds.items() if int(k.split("/")[1]) < windows})
        commands.extend([run.command] if isinstance(run.command, str) else run.command)
    return dataclasses.replace(first, window_starts=first.window_starts[:windows], windows_done=windows,
                               methods={m: methods[m] for m in LONG_METHODS if m in methods}, seconds=seconds,
                               command=commands)
