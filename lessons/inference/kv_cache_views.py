"""The cached core calls and figures of 'What the cache holds', each figure built from its controls' values under
their URL keys (page_kit.hero draws them ahead of the hand)."""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc_core as pc
from page_kit import figures

RESCALING = ("dynamic", "yarn")  # the two rope types the third tab compares
COLOURS = {"dynamic NTK": 1, "YaRN (static)": 0}


@st.cache_data(max_entries=64, show_spinner=False)
def contents(prefill: int, decode: int) -> dict:
    return pc.cache_contents(prefill, decode)


@st.cache_data(max_entries=32, show_spinner=False)
def rescaling(rope_type: str, prefill: int, total: int, factor: float) -> dict:
    return pc.cache_rescaling_error(rope_type, prefill, total, factor)


def _split(values: np.ndarray, prefill: int) -> tuple[np.ndarray, np.ndarray]:
    """values (n,) as two curves over the same x: the prefill rows, then the decode rows (NaN elsewhere)."""
    first, later = values.astype(np.float64), values.astype(np.float64)
    first[prefill:] = np.nan
    later[:prefill] = np.nan
    return first, later


def turns_chart(P: int, D: int, pair: int):
    """Hero: the turn each cached key and value carries in one rotary pair, against its position."""
    c = contents(P, D)
    n = P + D
    prefill_keys, decode_keys = _split(c["key_turn"][0, :, pair], P)
    theta = c["theta"][pair]
    series = {"cached keys: prefill": prefill_keys, "cached keys: decode steps": decode_keys,
              "cached values": c["value_turn"][0, :, pair]}
    return figures.lines(
        c["position"], series, markers=True, hlines=[(float(c["query_turn"][pair]), f"query at {n - 1}")],
        vlines=[(P - 0.5, "prefill | decode")] if D else [],
        title=f"Turn the cache holds in pair {pair} (θ = {theta:.4g} rad/position), KV head 0",
        x_title="cached position p", y_title="turn from k_proj / v_proj (rad)", name="kv_cache_turns",
        legend_right=True, margin=dict(l=64, r=200),
        alt=f"For {n} cached positions ({P} from the prefill, {D} from decode steps), the angle by which pair "
            f"{pair} of each cached key is turned from its k_proj output: a straight line p × {theta:.4g} rad "
            f"through 0, prefill and decode rows alike; every cached value is turned by 0. The last query, at "
            f"position {n - 1}, is turned by {c['query_turn'][pair]:.3f} rad.")


def error_chart(P: int, N: int, s: float):
    """The |q·k| error of the cache against a full recompute at each key position, dynamic NTK and YaRN."""
    N = max(N, P + 8)  # as the N slider snaps when P moves past it
    runs = {label: rescaling(kind, P, N, float(s)) for kind, label in zip(RESCALING, COLOURS, strict=True)}
    first = next(iter(runs.values()))
    return figures.lines(
        first["position"], {label: r["score_error"] for label, r in runs.items()}, colours=COLOURS,
        vlines=[(pc.TINY_CONTEXT, f"original context {pc.TINY_CONTEXT}"), (P - 0.5, "prefill | decode")],
        title=f"Cache vs full recompute: last query's score error, s = {s:g}", x_title="key position",
        y_title="max |Δ q·k/√d| over heads", name="kv_cache_rescaling", legend_right=True,
        margin=dict(l=70, r=200),
        alt=f"Score error of the last query (position {N - 1}) against every key, cache against a full forward "
            f"of {N} tokens, layer 0: largest for dynamic NTK {runs['dynamic NTK']['score_error'].max():.3g}, "
            f"for YaRN {runs['YaRN (static)']['score_error'].max():.3g}.")


def frequency_chart(P: int, N: int, s: float):
    """The slowest pair's frequency the rotary module held when each key was written (dynamic NTK)."""
    N = max(N, P + 8)  # as the N slider snaps when P moves past it
    r = rescaling("dynamic", P, N, float(s))
    return figures.lines(
        r["position"], {"when the key was written": r["written_freq"],
                        f"full recompute of {N}": np.full(N, r["full_freq"])}, dashed=[f"full recompute of {N}"],
        vlines=[(pc.TINY_CONTEXT, f"original context {pc.TINY_CONTEXT}")],
        title="Dynamic NTK: the slowest frequency each cached key got", x_title="key position",
        y_title="inv_freq[7] (rad/position)", name="kv_cache_written_freq", hover_format=".4g", height=300,
        legend_right=True, margin=dict(l=80, r=200),
        alt=f"The rotary module's slowest inv_freq at the forward that wrote each key, from {r['written_freq'][0]:.4g} "
            f"for the first key to {r['written_freq'][-1]:.4g} for the last ({r['recomputes']} decode steps "
            f"recomputed it); the full recompute turns every key with {r['full_freq']:.4g}.")


@st.cache_data(max_entries=32, show_spinner=False)
def preset_bytes(tokens: int, dtype: str) -> dict:
    return pc.preset_cache_bytes(tokens, dtype)


def bytes_chart(ctx: int, dtype: str):
    """Bars: the GB the cache holds at ``ctx`` tokens for each counted preset."""
    r = preset_bytes(ctx, dtype)
    order = np.argsort(r["gb"])
    names = [r["keys"][i] for i in order]  # preset keys: short enough for a phone's tick labels
    return figures.bars(
        names, {f"GB at {ctx:,} tokens": r["gb"][order]}, title=f"KV cache of one sequence of {ctx:,} tokens, "
        f"{dtype}", x_title="preset", y_title="GB (10⁹ bytes)", name="kv_cache_bytes", height=420,
        alt=f"Bars of the DynamicCache size at {ctx:,} tokens in {dtype} for {len(names)} models, smallest first: "
            + "; ".join(f"{n} {r['gb'][i]:.3g} GB" for n, i in zip(names, order, strict=True)) + ".")
