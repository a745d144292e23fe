"""The cached core calls and figures of 'What the cache holds', each figure built from its controls' values under
their URL keys (page_kit.hero draws them ahead of the hand)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from page_kit import figures
from posenc_core.inference import TINY_CONTEXT, CacheContents, CacheRescaling, cache_contents, cache_rescaling_error

RESCALING = ("dynamic", "yarn")  # the two rope types the third tab compares
COLOURS = {"dynamic NTK": 1, "YaRN (static)": 0}


@st.cache_data(max_entries=64, show_spinner=False)
def contents(prefill: int, decode: int) -> CacheContents:
    return cache_contents(prefill, decode)


@st.cache_data(max_entries=64, show_spinner=False)
def rescaling(rope_type: str, prefill: int, total: int, factor: float, history: int) -> CacheRescaling:
    return cache_rescaling_error(rope_type, prefill, total, factor, history=history)


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
    prefill_keys, decode_keys = _split(c.key_turn[0, :, pair], P)
    theta = c.theta[pair]
    series = {"cached keys: prefill": prefill_keys, "cached keys: decode steps": decode_keys,
              "cached values": c.value_turn[0, :, pair]}
    return figures.lines(
        c.position, series, markers=True, hlines=[(float(c.query_turn[pair]), f"query at {n - 1}")],
        vlines=[(P - 0.5, "prefill | decode")] if D else [],
        title=f"Turn the cache holds in pair {pair} (θ = {theta:.4g} rad/position), KV head 0",
        x_title="cached position p", y_title="turn from k_proj / v_proj (rad)", name="kv_cache_turns",
        legend_right=True, margin=dict(l=64, r=200),
        alt=f"For {n} cached positions ({P} from the prefill, {D} from decode steps), the angle by which pair "
            f"{pair} of each cached key is turned from its k_proj output: a straight line p × {theta:.4g} rad "
            f"through 0, prefill and decode rows alike; every cached value is turned by 0. The last query, at "
            f"position {n - 1}, is turned by {c.query_turn[pair]:.3f} rad.")


def _runs(P: int, N: int, s: float, H: int) -> dict[str, CacheRescaling]:
    """Both rope types' runs, labelled as the legends name them."""
    return {label: rescaling(kind, P, N, float(s), H) for kind, label in zip(RESCALING, COLOURS, strict=True)}


def error_chart(P: int, N: int, s: float, H: int):
    """The score error of the cache against a full recompute at each key position, in units of each head's
    score spread, dynamic NTK and YaRN."""
    N = max(N, P + 8)  # as the N slider snaps when P moves past it
    runs = _runs(P, N, s, H)
    first = next(iter(runs.values()))
    return figures.lines(
        first.position, {label: r.relative_error for label, r in runs.items()}, colours=COLOURS,
        vlines=[(TINY_CONTEXT, f"original context {TINY_CONTEXT}"), (P - 0.5, "prefill | decode")],
        title=f"Cache vs full recompute: score error of the last query, s = {s:g}", x_title="key position",
        y_title="max |Δ q·k/√d| / σ of the head", name="kv_cache_rescaling", legend_right=True,
        margin=dict(l=70, r=200), hover_format=".3g",
        alt=f"Score error of the last query (position {N - 1}) against every key, cache against a full forward "
            f"of {N} tokens, layer 0, divided by the standard deviation of that head's {N} scores: largest for "
            f"dynamic NTK {runs['dynamic NTK'].relative_error.max():.3g}, for YaRN "
            f"{runs['YaRN (static)'].relative_error.max():.3g}.")


def attention_chart(P: int, N: int, s: float, H: int):
    """How much the last query's attention weight on each key moves, cache against full recompute."""
    N = max(N, P + 8)
    runs = _runs(P, N, s, H)
    first = next(iter(runs.values()))
    uniform = 1.0 / N
    return figures.lines(
        first.position, {label: r.attention_change for label, r in runs.items()}, colours=COLOURS,
        vlines=[(P - 0.5, "prefill | decode")],
        title="Cache vs full recompute: attention weight of the last query", x_title="key position",
        y_title="max |Δ weight| over heads", name="kv_cache_attention", legend_right=True, height=300,
        margin=dict(l=70, r=200), hover_format=".2g",
        alt=f"The change of the last query's attention weight on each of {N} keys (transformers' eager attention, "
            f"layer 0), cache against a full forward: up to {runs['dynamic NTK'].attention_change.max():.2g} "
            f"for dynamic NTK and {runs['YaRN (static)'].attention_change.max():.2g} for YaRN, against a "
            f"uniform weight of {uniform:.2g}.")


def frequency_chart(P: int, N: int, s: float, H: int):
    """The slowest pair's frequency the rotary module held when each key was written (dynamic NTK)."""
    N = max(N, P + 8)  # as the N slider snaps when P moves past it
    r = rescaling("dynamic", P, N, float(s), H)
    return figures.lines(
        r.position, {"when the key was written": r.written_freq,
                        f"full recompute of {N}": np.full(N, r.full_freq)}, dashed=[f"full recompute of {N}"],
        vlines=[(TINY_CONTEXT, f"original context {TINY_CONTEXT}")],
        title="Dynamic NTK: the slowest frequency each cached key got", x_title="key position",
        y_title="inv_freq[7] (rad/position)", name="kv_cache_written_freq", hover_format=".4g", height=300,
        legend_right=True, margin=dict(l=80, r=200),
        alt=f"The rotary module's slowest inv_freq at the forward that wrote each key, from {r.written_freq[0]:.4g} "
            f"for the first key to {r.written_freq[-1]:.4g} for the last ({r.recomputes} decode steps "
            f"recomputed it{f'; the model had run {H} tokens before' if H else ''}); the full recompute turns every "
            f"key with {r.full_freq:.4g}.")


# What the prefill found in the rotary module, by ``cache_rescaling_error``'s "prefill_update" code.
PREFILL_SENTENCES = {
    "none": "The prefill's {P} keys were turned with the frequencies the rotary module already held "
            "(max_seq_len_cached = {cached}: inv_freq[7] = {first:.4g}).",
    "growth": "The prefill's {P} positions passed max_seq_len_cached = {before}, so it recomputed the frequencies "
              "for {cached} tokens (inv_freq[7] = {first:.4g}).",
    "reset": "The model had run {before} tokens before, but this prefill of {P} tokens is shorter than the original "
             "context {L0}: the reset restored the original frequencies (inv_freq[7] = {first:.4g}), and the "
             "history left no trace.",
}


def frequency_notice(r: CacheRescaling, P: int, N: int, H: int) -> str:
    """What each key was turned with, from one dynamic-NTK run."""
    first = PREFILL_SENTENCES[r.prefill_update].format(
        P=P, before=r.history_len, cached=int(r.written_len[0]), first=r.written_freq[0], L0=TINY_CONTEXT)
    if r.prefill_update == "none" and r.history_len > TINY_CONTEXT:
        first += (f" Those are the frequencies for the {r.history_len} tokens the model ran before, not for "
                  f"this prompt's {P}.")
    steps = (f"Then {r.recomputes} decode steps recomputed them (each one whose position passed "
             "max_seq_len_cached)" if r.recomputes else "No decode step passed max_seq_len_cached, so none "
             "recomputed them")
    return (f"{first} {steps}, and each key kept the ones in force when it was written: the last key got "
            f"{r.written_freq[-1]:.4g}. One forward over all {N} tokens on a fresh model turns every key with "
            f"{r.full_freq:.4g}. YaRN's frequencies are the same at every step.")


def error_notice(dynamic: CacheRescaling, yarn: CacheRescaling, N: int) -> str:
    """The error of the cache against a full recompute, relative to the scores and as attention weights."""
    spread = dynamic.score_spread
    return (
        f"Dynamic NTK: {dynamic.stale_keys} of the {N - 1} keys after position 0 were written with other "
        f"frequencies than the full recompute's. Their scores are off by up to {dynamic.score_error.max():.3g}, "
        f"{dynamic.relative_error.max():.3g} times the spread of that head's scores (σ, the standard deviation "
        f"of its {N} scores: {spread.min():.2g} to {spread.max():.2g} here). The attention weights move by up to "
        f"{dynamic.attention_change.max():.2g} against a uniform 1/{N} = {1 / N:.2g}, "
        f"{dynamic.attention_moved.max():.2%} of a head's attention moves to other keys at most, and the logits "
        f"are off by {dynamic.logit_error:.2g}. YaRN: {yarn.relative_error.max():.2g} σ, "
        f"{yarn.attention_change.max():.2g} and {yarn.logit_error:.2g} (float32 rounding). Random weights "
        "give small, nearly flat scores, so little attention moves here; the error is q·(R(a) − R(b))k, which "
        "scales with q and k as the scores do, so its size in σ does not depend on their lengths.")


# What dynamic_rope_update keeps and changes (transformers 5.23, modeling_rope_utils.py), with this model's L0.
STATE_TEXT = (
    "**What transformers keeps.** `LlamaRotaryEmbedding.__init__` (`models/llama/modeling_llama.py`) sets "
    "`max_seq_len_cached` and `original_max_seq_len` to the config's `max_position_embeddings` ({L0} here) and "
    "keeps `inv_freq` and a copy, `original_inv_freq`. Its `forward` is wrapped by `dynamic_rope_update` "
    "(`modeling_rope_utils.py`), which for a rope type containing \"dynamic\" runs `dynamic_frequency_update` "
    "first, with `seq_len = max(position_ids) + 1`:\n"
    "- **growth**: if `seq_len > max_seq_len_cached`, `_compute_dynamic_ntk_parameters` computes `inv_freq` for "
    "`max(seq_len, max_position_embeddings)` tokens and `max_seq_len_cached` becomes `seq_len`;\n"
    "- **reset**: if `seq_len < original_max_seq_len` while `max_seq_len_cached` (as it was before this forward) is "
    "above it, `inv_freq` goes back to `original_inv_freq` and `max_seq_len_cached` to `original_max_seq_len`;\n"
    "- otherwise nothing changes: the forward uses the frequencies of the longest sequence since the last reset.\n\n"
    "**What that means for a cache.** The rotary module is one per model and outlives a request, while the "
    "`DynamicCache` stores keys already turned and nothing turns them again. Within one generation, each decode "
    "step past `max_seq_len_cached` gives new frequencies to the new key and query only. Across requests, a prompt "
    "of at least {L0} tokens that is shorter than an earlier sequence (since the last reset) is turned with that "
    "longer sequence's frequencies instead of its own; a prompt shorter than {L0} resets them. A cache passed "
    "back in (`past_key_values`) keeps the turns it was written with, whatever the module holds now."
)
