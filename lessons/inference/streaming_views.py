"""The cached core calls, figures, questions and readouts of 'Streaming with attention sinks', each figure built from
the shipped run (or its controls' values under their URL keys, for page_kit.hero)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from page_kit import classroom, figures
from posenc_core.inference import (
    SHARE_TOKENS,
    STREAM_VARIANTS,
    FirstTokenShares,
    StreamCacheCurves,
    StreamingSummary,
    cache_curves,
    first_token_shares,
    shipped_streaming,
    streaming_summary,
)

# The page's words for each cache (posenc_core.inference.STREAM_VARIANTS), and what it keeps
LABELS = {"window": "Window, no sinks", "sink1": "1 sink + window", "sink4": "4 sinks + window",
          "text4": "4 sinks, text positions"}
HOW = {"window": "the last W tokens only; keys rotated at their place in the cache",
       "sink1": "the first token kept, then the last W; positions counted in the cache",
       "sink4": "the first 4 tokens kept, then the last W; positions counted in the cache (StreamingLLM)",
       "text4": "the same tokens as StreamingLLM, each key rotated at its position in the text (past 8,192 as the "
                "text grows)"}
COLOURS = {LABELS[k]: i for i, k in enumerate(STREAM_VARIANTS)}
WITH_SINKS = [k for k, v in STREAM_VARIANTS.items() if v.sinks]
PLAIN, STREAMING, ONE, TEXT = "window", "sink4", "sink1", "text4"
STREAMING_LLM = """
**What StreamingLLM's code keeps** (mit-han-lab/streaming-llm, commit 2e50426, as read on 2026-12-06):

- `streaming_llm/kv_cache.py`: `StartRecentKVCache(start_size=4, recent_size=512, ...)` keeps
  `k[:, :, 0:start_size]` and the last `recent_size` keys of every layer once the cache holds more than
  `start_size + recent_size`.
- `streaming_llm/enable_streaming_llm.py`: `enable_streaming_llm(model, start_size, recent_size)` builds that
  cache (and, for Llama, swaps in the `pos_shift` attention that rotates keys at their place in the cache).
- The chat demo `examples/run_streaming_llama.py` passes `--start_size` (default 4) and `--recent_size`
  (default 2000); the perplexity script `examples/eval_long_ppl.py` reads `--start_size` from
  `streaming_llm/utils.py` (default 1).
"""


def pct(share: float) -> str:
    """A share of attention as a percentage: one decimal from 1 % up, two significant digits below."""
    return f"{share:.1%}" if share >= 0.01 else f"{share * 100:.2g}%"


@st.cache_data(show_spinner=False)
def shipped(bin_size: int) -> tuple[StreamingSummary, dict]:
    result = shipped_streaming()
    return streaming_summary(result, bin_size), {k: getattr(result, k) for k in ("runs", "model", "tokens", "cache",
                                                                               "block")}


def worded(values: dict) -> dict:
    """A mapping keyed by variant key, keyed by the page's words for each cache instead."""
    return {LABELS[k]: v for k, v in values.items()}


@st.cache_data(show_spinner=False)
def curves(step: int, sinks: int, window: int, block: int) -> StreamCacheCurves:
    return cache_curves(step, sinks, window, block)


@st.cache_data(show_spinner=False)
def shares(variant: str) -> FirstTokenShares:
    return first_token_shares(shipped_streaming(), variant)


def loss_chart(bin: int, variants: tuple[str, ...], name: str, title: str):
    s, _ = shipped(bin)
    labels = [LABELS[k] for k in variants]
    return figures.lines(
        s.start + bin / 2, {LABELS[k]: s.loss[k] for k in variants}, title=title, x_title="token in the text",
        y_title=f"mean loss per {bin} tokens (nats)", name=name, colours=COLOURS, legend_right=True,
        vlines=[(s.evict, "first eviction"), (s.context, f"trained {s.context:,}")],
        alt=f"SmolLM2-135M's mean loss per bin of {bin} tokens over {s.tokens:,} tokens for " + ", ".join(labels)
            + f"; the first token read after an eviction ({s.evict:,}) and the trained context {s.context:,} "
              "marked.")


def sinks_chart(bin: int):  # the bin slider's URL key: a hero figure builds its frames by it
    run = shipped(512)[0]
    return loss_chart(bin, tuple(WITH_SINKS), "stream_sinks", f"Caches that keep sinks: {run.cache:,} keys each")


def all_chart(bin: int):
    return loss_chart(bin, tuple(STREAM_VARIANTS), "stream_all", "Every cache, the plain window included")


def window_question(s: StreamingSummary):
    """What a plain window does once the first tokens leave it, asked under the curves that keep them."""
    rise = s.after[PLAIN] - s.after[STREAMING]

    def reveal() -> str:
        return (f"From token {s.evict:,} on, the plain window's mean loss is {s.after[PLAIN]:.3f} nats "
                f"(perplexity {s.after_ppl[PLAIN]:.1f}) against {s.after[STREAMING]:.3f} "
                f"({s.after_ppl[STREAMING]:.1f}) with 4 sinks: {rise:+.3f} nats, the curve "
                f"'{LABELS[PLAIN]}' below.")

    return classroom.predict(
        "stream_window", f"Take the sinks away: a cache of the last {s.cache:,} tokens only. Once the first "
        "tokens have left it, what does its mean loss do, against the cache with 4 sinks?",
        ["stays within 0.1 nats", "rises by 0.1 to 1 nat", "rises by more than 1 nat"],
        0 if abs(rise) <= 0.1 else 1 if rise <= 1 else 2, reveal)


def findings(s: StreamingSummary) -> str:
    rows = "; ".join(f"{LABELS[k]} {s.after[k]:.3f} (perplexity {s.after_ppl[k]:.1f})" for k in s.after)
    text = TEXT
    gap = s.after[ONE] - s.after[STREAMING]
    ones = (f" One sink does as well as four for SmolLM2 ({gap:+.4f} nats); the tab *One sink or four* shows why."
            if abs(gap) < 0.01 else f" One sink against four: {gap:+.3f} nats.")
    return (f"Before token {s.evict:,} nothing has been evicted and every cache reads the same keys: mean loss "
            f"{s.before[STREAMING]:.3f} nats. From it on: {rows}. Past token {s.context:,}, text positions give "
            f"{s.past[text]:.3f} nats against {s.past[STREAMING]:.3f} with positions in the cache." + ones)


def share_question(f: FirstTokenShares):
    """How much attention SmolLM2 puts on token 0 and on tokens 1-3, asked before the figure that shows it."""
    big0, big_rest = f.mean[0] >= 0.1, f.mean[1:].max() >= 0.01
    options = ["Under 10 % on token 0; under 1 % on each of tokens 1-3",
               "10 % or more on token 0; under 1 % on each of tokens 1-3",
               "10 % or more on token 0, and 1 % or more on some of tokens 1-3",
               "Under 10 % on token 0, but 1 % or more on some of tokens 1-3"]

    def reveal() -> str:
        return (f"Averaged over the {f.per_head.shape[0]} layers, the {f.per_head.shape[1]} heads and the "
                f"{f.queries[1] - f.queries[0]:,} queries read after the first eviction (tokens {f.queries[0]:,} to "
                f"{f.queries[1] - 1:,}), token 0 gets {pct(f.mean[0])} of the attention; tokens "
                f"1, 2 and 3 get {pct(f.mean[1])}, {pct(f.mean[2])} and {pct(f.mean[3])}, against {pct(f.uniform)} "
                "for each key if every query spread its attention evenly.")

    return classroom.predict(
        "stream_share", f"In the cache with {f.sinks} sinks, how much of its attention does SmolLM2 put on token "
        "0? On tokens 1-3?", options, 1 if big0 and not big_rest else 2 if big0 else 3 if big_rest else 0, reveal)


def share_series(f: FirstTokenShares, one: FirstTokenShares) -> dict[str, np.ndarray]:
    """Per layer: the share on each first token in ``f``'s cache, on token 0 in ``one``'s (one sink), and the
    share of one key if attention were spread evenly."""
    series = {f"token {i}": f.per_layer[:, i] for i in range(f.per_layer.shape[1])}
    series[f"token 0, {one.sinks} sink"] = one.per_layer[:, 0]
    series["even spread"] = np.full(len(f.per_layer), f.uniform)
    return series


def share_chart(f: FirstTokenShares, one: FirstTokenShares):
    layers = np.arange(1, f.per_layer.shape[0] + 1)
    series = share_series(f, one)
    return figures.lines(
        layers, series, title=f"Attention on the first tokens, {LABELS[f.variant].lower()}", x_title="layer",
        y_title="attention weight", name="stream_shares", log_y=True, markers=True, legend_right=True,
        dashed=list(series)[-2:], hover_format=".2~%",
        alt=f"Per layer of SmolLM2, averaged over its {f.per_head.shape[1]} heads and the queries from token "
            f"{f.queries[0]:,} to {f.queries[1] - 1:,}: the attention weight on tokens 0 to "
            f"{f.per_layer.shape[1] - 1} in the cache with {f.sinks} sinks, and on token 0 with one sink, on a "
            f"log scale; token 0 gets between {pct(f.per_layer[f.low_layer, 0])} (layer {f.low_layer + 1}) and "
            f"{pct(f.per_layer[f.high_layer, 0])} (layer {f.high_layer + 1}); an even spread gives {pct(f.uniform)}.")


def share_findings(f: FirstTokenShares, one: FirstTokenShares, s: StreamingSummary) -> str:
    gap = s.after[ONE] - s.after[STREAMING]
    return (f"Token 0's share runs from {pct(f.per_layer[f.low_layer, 0])} in layer {f.low_layer + 1} to "
            f"{pct(f.per_layer[f.high_layer, 0])} in layer {f.high_layer + 1}; tokens 1-3 get {pct(f.mean[1:].sum())} "
            f"together, and the {f.cache - f.sinks:,} recent keys and the query's block the other {pct(f.rest)}. "
            f"Before anything was evicted (queries {f.queries_before[0]:,} to {f.queries_before[1] - 1:,}), token 0 "
            f"got {pct(f.before[0])}. With one sink (the dashed line on token 0's), token 0 gets "
            f"{pct(one.mean[0])}, and the mean loss from token {s.evict:,} on differs from {f.sinks} sinks' by "
            f"{gap:+.4f} nats.")


def implication(f: FirstTokenShares, one: FirstTokenShares, s: StreamingSummary) -> str:
    """What the shares say about one sink against four, and when four matter."""
    gap = s.after[ONE] - s.after[STREAMING]
    below = f.mean[1:].max() <= f.uniform
    rest = ("each get less than an even share" if below else
            f"get up to {f.mean[1:].max() / f.uniform:.1f} times an even share")
    one_is_enough = ("one sink is enough" if abs(gap) < 0.01 else
                     f"yet one sink against four still moves the mean loss by {gap:+.4f} nats")
    return (f"So a cache that keeps token 0 keeps where SmolLM2 parks its attention; tokens 1-3 {rest}, and "
            f"{one_is_enough}. StreamingLLM keeps {SHARE_TOKENS} because the models it was built for (Llama-2, "
            "MPT, Falcon, Pythia) were not trained with the same token first in every sample and spread their sink "
            "over the first few tokens: its paper found that keeping fewer of them did not bring the loss back as "
            "fully. A model trained with a dedicated sink token, or one that puts its sink on token 0 as "
            "SmolLM2 does here (token 0 is the text's own first token: the run adds no start token), needs only "
            "that one.")
