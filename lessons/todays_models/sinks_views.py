"""The core calls and figures of the Attention sinks lesson, each figure built from its controls' values
(page_kit.hero draws them ahead of the hand)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from page_kit import figures
from posenc_core.todays_models import sink_attention_map, sink_mass_by_position, sink_mass_by_score, streaming_eviction

OFFSETS = np.linspace(-6.0, 6.0, 121)  # mean key score minus the sink logit's neighbourhood
MAP_TOKENS = 32


@st.cache_data(max_entries=32, show_spinner=False)
def attention_map(n: int, window: int, sink: float):
    return sink_attention_map(n, window, sink)


@st.cache_data(max_entries=32, show_spinner=False)
def mass_by_score(sink: float, n_keys: int):
    return {f"sink logit {s:g}": sink_mass_by_score(s, OFFSETS, n_keys) for s in (sink - 2, sink, sink + 2)}


@st.cache_data(max_entries=32, show_spinner=False)
def mass_by_position(sink: float, n: int, window: int):
    return sink_mass_by_position(sink, n, window)


@st.cache_data(max_entries=32, show_spinner=False)
def eviction(window: int, sink: float, first_score: float):
    return streaming_eviction(window, sink, first_score)


def map_chart(sink: float, mw: int):
    n = MAP_TOKENS
    result = attention_map(n, mw, sink)
    grid = np.column_stack([result.probs, result.sink])  # (n, n + 1): keys, then the sink
    chart = figures.heatmap(
        grid, x=[str(k) for k in range(n)] + ["sink"], y=np.arange(n),
        title=f"One head, causal window of {mw} keys, sink logit {sink:g}", x_title="key (then the sink)",
        y_title="query position", value_name="probability", zrange=(0.0, 1.0), name="sink_map",
        # the sink's shares are left to the answer below: they would give the question away
        alt=f"Attention probabilities of {n} queries in a causal window of {mw} keys, with the sink logit "
            f"{sink:g} as the last column; blank cells are outside the window.")
    ticks = [str(k) for k in range(0, n, 4)] + ["sink"]  # label the sink column explicitly
    return figures.axis_settings(chart, "x", type="category", tickvals=ticks, ticktext=ticks)


def score_chart(sink: float, w: int):
    at_zero = float(sink_mass_by_score(sink, [0.0], w)[0])  # unshifted: the curve's middle point
    return figures.stacked_lines(
        OFFSETS, mass_by_score(sink, w), title=f"Probability the sink absorbs, {w} keys", x_title="shift of every "
        "key's score", y_title="sink mass", hover_format=".3f", y_range=(0.0, 1.0), name="sink_score",
        alt=f"Sink mass against a shift of every key's score, for sink logits {sink - 2:g}, {sink:g} and "
            f"{sink + 2:g}: each falls in a sigmoid as the keys' scores rise past the sink logit; unshifted, the "
            f"sink logit {sink:g} takes {at_zero:.3f}.")


def window_chart(sink: float, w: int):
    n = 4 * w
    result = mass_by_position(sink, n, w)
    full, windowed = float(result.full[-1]), float(result.window[-1])
    return figures.stacked_lines(
        np.arange(n), {"full attention": result.full, f"sliding window of {w}": result.window},
        title="Sink mass of the query at each position", x_title="query position",
        y_title="sink mass (log)", log_y=True, hover_format=".3g", vlines=[(w - 1, "window full")],
        name="sink_window", alt=f"With full attention the sink's share keeps falling as keys accumulate "
        f"({full:.3g} at position {n - 1:,}); with a window of {w} it levels off once the window is full "
        f"({windowed:.3g} at the same position).")


def stream_chart(sink: float, w: int, first: float):
    result = eviction(w, sink, float(first))
    cases = {"token 0 as the sink": result.first_token, "learned sink logit": result.learned_sink}
    whens = ("before", "after")
    parked = [getattr(cases[c], when).parking for c in cases for when in whens]
    return figures.bars(
        [f"{case}, {when}" for case in cases for when in whens],
        {"on the sink / token 0": parked,
         "on the other tokens": [getattr(cases[c], when).tokens for c in cases for when in whens]},
        title=f"A cache of {w} tokens drops token 0", x_title="", y_title="probability", name="sink_stream",
        alt=f"Mass on the parking place before and after token 0 leaves a cache of {w}: token 0 as the sink "
            f"{parked[0]:.3f} then {parked[1]:.3f}, its mass moved onto the other tokens; a learned sink logit "
            f"{parked[2]:.3f} then {parked[3]:.3f}, almost nothing changes.")
