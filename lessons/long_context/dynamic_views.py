"""The view of dynamic NTK's state over a series of calls (Extension lesson)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from page_kit import controls, figures
from page_kit.chart.render import show
from page_kit.lesson import notice
from posenc_core.long_context import first_stale_call
from posenc_core.rope import DYNAMIC_CALL_PATTERNS, DynamicCalls, dynamic_call_lengths, rope_dynamic_calls

EVENTS = {"grow": "recompute for this length, cache it", "keep": "keep the cached frequencies",
          "reset": "back to the original frequencies"}
# what the page calls each sequence of pc.rope.DYNAMIC_CALL_PATTERNS (the words are the link's value)
PATTERN_LABELS = {"long_then_shorter": "long prompt, then shorter calls", "growing": "growing conversation",
                  "alternating": "alternating long and short"}


def pattern_choice() -> str:
    """The sequence of calls to follow, a key of DYNAMIC_CALL_PATTERNS."""
    return controls.choice("Calls, one after another", "calls", list(DYNAMIC_CALL_PATTERNS), "long_then_shorter",
                           format_func=lambda p: PATTERN_LABELS[p],
                           help="Sequence lengths of successive forward calls of one model.")


@st.cache_data(max_entries=32, show_spinner=False)
def dynamic_calls(pattern: str, head_dim: int, base: float, original: int, factor: float):
    lengths = dynamic_call_lengths(pattern, original, factor)
    return rope_dynamic_calls(head_dim, base, factor, original, lengths)


def stateful_calls(calls: DynamicCalls, original: int, factor: float, *, name: str) -> None:
    """Slowest pair's frequency call by call, stateful module against a fresh one, a table, and what to notice."""
    call = np.arange(1, len(calls.length) + 1)
    st.caption(f"Dynamic NTK (rope_type 'dynamic', factor s = {factor:g}) with the L, base and head_dim above, "
               "whichever method is picked.")
    show(figures.lines(
        call, {"stateful module": calls.slowest_ratio, "fresh module": calls.fresh_slowest_ratio},
        markers=True, dashed=["fresh module"], x_ticks=list(call), legend_right=True,
        margin=dict(l=64, r=150, t=64, b=52),  # room for the legend beside the plot
        title="Slowest pair's frequency against its original, call by call", x_title="call",
        y_title="θ′/θ of the slowest pair", name=name, height=360, hover_format=".4f",
        alt="Two lines over the calls: the stateful module's slowest-pair frequency ratio and a fresh module's; "
            "they part where a shorter call still runs with frequencies cached for a longer one."))
    st.dataframe({"call": call, "length": calls.length,
                  "what the module does": [EVENTS[e] for e in calls.event],
                  "cached length after": calls.cached, "θ′/θ (module)": calls.slowest_ratio,
                  "θ′/θ (fresh)": calls.fresh_slowest_ratio, "same as fresh": ~calls.stale},
                 hide_index=True,
                 column_config={"θ′/θ (module)": st.column_config.NumberColumn(format="%.5f"),
                                "θ′/θ (fresh)": st.column_config.NumberColumn(format="%.5f")})
    k = first_stale_call(calls)
    if k is not None:
        what = (f"Call {k + 1} has {int(calls.length[k]):,} tokens but runs with the frequencies cached for "
                f"{int(calls.cached[k]):,}: its slowest pair turns at {calls.slowest_ratio[k]:.4f} of the "
                f"original speed, where a fresh module would use {calls.fresh_slowest_ratio[k]:.4f}. ")
    else:
        what = "In this sequence every call happens to run with the frequencies a fresh module would use. "
    notice(what + f"In transformers, dynamic NTK keeps state: a call longer than any before recomputes the base for "
           f"its length and caches it; a later, shorter call keeps those frequencies until one is shorter than "
           f"L = {original:,}, which resets them. So the same prompt can be encoded differently depending on "
           f"what ran before it (here with s = {factor:g}), a surprise when comparing outputs across batches.")
