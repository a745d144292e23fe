"""A streaming run's results (``posenc_core.inference.streaming``): the typed run, its npz file, the merge of runs
made in separate processes, and the binned summary the page draws. numpy only: the shipped run reads without torch.

The npz keeps one format: ``info`` (the run's settings, per-variant sinks, window, positions and share_queries, the
seconds, and each process's command, date, machine, software and load as JSON), ``loss_<variant>`` (float32) and
``share_<variant>`` (float64) arrays.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from .._checks import as_int

__all__ = [
    "SHIPPED_STREAMING",
    "StreamVariantRun",
    "StreamingRun",
    "StreamingSummary",
    "load_streaming",
    "merge_streaming",
    "shipped_streaming",
    "streaming_summary",
]


STREAM_POSITIONS = ("cache", "text")  # where a key is rotated: its place in the cache, or in the text


@dataclass(frozen=True)
class StreamVariant:
    """One rolling cache (the pages word each by its key in STREAM_VARIANTS).

    sinks: the first text tokens it keeps.
    positions: where a key is rotated, one of STREAM_POSITIONS.
    """

    sinks: int
    positions: str


# a plain window; 1 sink; StreamingLLM's 4 sinks; 4 sinks with every key rotated at its place in the text
STREAM_VARIANTS: dict[str, StreamVariant] = {
    "window": StreamVariant(0, "cache"),
    "sink1": StreamVariant(1, "cache"),
    "sink4": StreamVariant(4, "cache"),
    "text4": StreamVariant(4, "text"),
}


@dataclass(frozen=True)
class StreamVariantRun:
    """One cache's part of a streaming run.

    sinks: the first text tokens it keeps.
    window: W, the recent tokens kept after each eviction.
    positions: where a key is rotated, one of STREAM_POSITIONS.
    losses: (tokens - 1,) float64 next-token loss, nats: entry i is the loss of predicting token i + 1.
    shares: (2, layers, heads, SHARE_TOKENS) float64 the attention on the text's first tokens (as ``StreamPass``),
        None where the run did not measure it.
    share_queries: [[start, stop], [start, stop]] the queries ``shares`` averages over, None with it.
    """

    sinks: int
    window: int
    positions: str
    losses: np.ndarray
    shares: np.ndarray | None = None
    share_queries: list[list[int]] | None = None


@dataclass(frozen=True)
class StreamingRun:
    """A streaming run over the shipped text (``streaming_run``, ``load_streaming``).

    model: the model read (``STREAM_MODEL``, or what a saved run names).
    text: the text file read.
    tokens: tokens read from ``start``.
    cache: S + W, the keys every variant keeps after each eviction.
    block: B, the tokens read per step.
    start: the first text token.
    trained_context: the longest position the model was trained on.
    variants: {variant key: its run}, in STREAM_VARIANTS order.
    seconds: {variant key: wall-clock seconds of its run}.
    runs: each process's command, date, machine, software, load, CPU seconds and threads (empty for a run made in
        this process).
    """

    model: str
    text: str
    tokens: int
    cache: int
    block: int
    start: int
    trained_context: int
    variants: dict[str, StreamVariantRun]
    seconds: dict[str, float]
    runs: list[dict[str, Any]]


@dataclass(frozen=True)
class StreamingSummary:
    """Binned loss of each variant of a run, and its mean before anything left the cache and after.

    Every mapping is keyed by the variant's key in STREAM_VARIANTS, in the run's order.
    start: (bins,) the first text token of each bin.
    loss: {variant: (bins,)} mean loss per bin, nats.
    evict: the first token read after an eviction (the same for every variant: they keep the same S + W).
    before, after: {variant: mean loss over the tokens before / from ``evict``}, nats.
    before_ppl, after_ppl: the same as perplexities.
    past: {variant: mean loss past the trained context}, nats (NaN where the run stops before).
    tokens, cache, block: the run's.
    context: the trained context.
    minutes: wall-clock minutes of the longest variant's run.
    cpu_minutes: CPU minutes of all the run's processes.
    """

    start: np.ndarray
    loss: dict[str, np.ndarray]
    evict: int
    before: dict[str, float]
    after: dict[str, float]
    before_ppl: dict[str, float]
    after_ppl: dict[str, float]
    past: dict[str, float]
    tokens: int
    cache: int
    block: int
    context: int
    minutes: float
    cpu_minutes: float


_ARRAYS = {"losses": ("loss_", np.float32), "shares": ("share_", np.float64)}  # entry field: npz prefix, dtype
_SETTINGS = ("model", "text", "tokens", "cache", "block", "start", "trained_context")  # the info JSON's run keys
_MADE = ("command", "date", "machine", "software", "load_at_start", "load_at_end", "cpu_seconds", "threads")


def _save(result: StreamingRun, path: Path, meta: dict) -> None:
    """The npz: losses as float32 and shares as float64 per variant, the rest as the JSON ``info``."""
    arrays: dict[str, Any] = {prefix + k: np.asarray(getattr(v, field), dtype=dtype)  # (tokens - 1,), (2, L, H, 4)
                              for field, (prefix, dtype) in _ARRAYS.items()
                              for k, v in result.variants.items() if getattr(v, field) is not None}
    entries = {k: {"sinks": v.sinks, "window": v.window, "positions": v.positions,
                   **({"share_queries": v.share_queries} if v.share_queries is not None else {})}
               for k, v in result.variants.items()}
    info = {**{k: getattr(result, k) for k in _SETTINGS}, "seconds": result.seconds,
            **({"runs": result.runs} if result.runs else {}), **meta, "variants": entries}
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, info=np.array(json.dumps(info)), **arrays)
    tmp.replace(path)


def load_streaming(path: str | Path) -> StreamingRun:
    """A saved ``streaming_run`` (npz: per-token losses as float32, attention shares as float64 where the run
    measured them, and the run's description as JSON)."""
    try:
        with np.load(path) as data:
            info = json.loads(str(data["info"]))
            arrays = {field: {k[len(prefix):]: data[k].astype(np.float64) for k in data.files if k.startswith(prefix)}
                      for field, (prefix, _) in _ARRAYS.items()}
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"Could not read the streaming results {path}: {error}") from None
    if not arrays["losses"]:
        raise ValueError(f"{path} holds no finished variant.")
    variants = {name: StreamVariantRun(sinks=int(e["sinks"]), window=int(e["window"]), positions=e["positions"],
                                       losses=arrays["losses"][name], shares=arrays["shares"].get(name),
                                       share_queries=e.get("share_queries"))
                for name, e in info["variants"].items() if name in arrays["losses"]}
    made = {k: info[k] for k in _MADE if k in info}  # one process's run: its own description
    return StreamingRun(**{k: info[k] for k in _SETTINGS}, variants=variants, seconds=dict(info.get("seconds", {})),
                        runs=list(info.get("runs", [made] if made else [])))


def merge_streaming(runs: Iterable[StreamingRun]) -> StreamingRun:
    """Join ``load_streaming`` results of different variants over the same text, length, cache and block (variants
    run as parallel processes); every run's command, timing and load are kept, per variant."""
    runs = list(runs)
    if not runs:
        raise ValueError("There are no runs to merge.")
    variants: dict[str, StreamVariantRun] = {}
    seconds: dict[str, float] = {}
    made: list[dict[str, Any]] = []
    first = runs[0]
    for run in runs:
        for key in _SETTINGS:
            if getattr(run, key) != getattr(first, key):
                raise ValueError(f"The runs differ in {key} ({getattr(run, key)} vs {getattr(first, key)}); only "
                                 "runs of the same setting can be merged.")
        for name, entry in run.variants.items():
            if name in variants:
                raise ValueError(f"Variant {name} is in more than one run.")
            variants[name] = entry
        seconds.update(run.seconds)
        made.extend(run.runs)
    return replace(first, variants={k: variants[k] for k in STREAM_VARIANTS if k in variants}, seconds=seconds,
                   runs=made)


SHIPPED_STREAMING = Path(__file__).resolve().parent / "data" / "smollm2_streaming.npz"  # package data: in the wheel


def shipped_streaming() -> StreamingRun:
    """The shipped run: ``load_streaming`` of posenc_core/inference/data/smollm2_streaming.npz."""
    return load_streaming(SHIPPED_STREAMING)


def streaming_summary(result: StreamingRun, bin_size: int = 512) -> StreamingSummary:
    """Binned loss of each variant, and its mean before anything left the cache and after: a ``StreamingSummary``."""
    bin_size = as_int("bin size", bin_size, minimum=1)
    cache, block, context = int(result.cache), int(result.block), int(result.trained_context)
    evict = block * -(-(cache + 1) // block)  # the first block that starts with more than S + W tokens behind it
    loss: dict[str, np.ndarray] = {}
    before: dict[str, float] = {}
    after: dict[str, float] = {}
    past_mean: dict[str, float] = {}
    start = np.zeros(0, dtype=np.int64)
    for name, entry in result.variants.items():
        losses = np.asarray(entry.losses, dtype=np.float64)  # (tokens - 1,)
        bins = len(losses) // bin_size
        if bins < 1:
            raise ValueError(f"A bin of {bin_size} positions is longer than the {len(losses)} losses.")
        start = np.arange(bins) * bin_size  # (bins,)
        loss[name] = losses[: bins * bin_size].reshape(bins, bin_size).mean(axis=1)  # (bins,)
        before[name] = float(losses[:evict].mean())
        after[name] = float(losses[evict:].mean()) if len(losses) > evict else float("nan")
        past = losses[context:]
        past_mean[name] = float(past.mean()) if len(past) else float("nan")
    return StreamingSummary(
        start=start, loss=loss, evict=evict, before=before, after=after,
        before_ppl={k: float(np.exp(v)) for k, v in before.items()},
        after_ppl={k: float(np.exp(v)) for k, v in after.items()}, past=past_mean, tokens=int(result.tokens),
        cache=cache, block=block, context=context, minutes=max(result.seconds.values(), default=0) / 60,
        cpu_minutes=sum(r.get("cpu_seconds", 0) for r in result.runs) / 60)
