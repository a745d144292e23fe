"""Shaw et al.'s cached core calls and the lesson's figures (lessons/attention_bias/shaw).

Every number comes from a cached core call; each figure is built from the sliders' values by URL key, so the
same builder makes the figure shown and its frames for the slider under the hand (page_kit.chart.hero_frames).
"""

from __future__ import annotations

import streamlit as st

from page_kit import _, figures
from posenc_core.attention_bias import (
    shaw_attention,
    shaw_clipped_distance,
    shaw_effective_keys,
    shaw_example,
    shaw_scores,
)


@st.cache_data(max_entries=32, show_spinner=False)
def clipped_grid(n: int, k: int):
    return shaw_clipped_distance(n, None, k)


@st.cache_data(max_entries=32, show_spinner=False)
def example(n: int, dim: int, k: int, seed: int):
    return shaw_example(n, dim, k, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def scores(n: int, dim: int, k: int, seed: int):
    e = example(n, dim, k, seed)
    return shaw_scores(e.q, e.k, e.a_k, k)


@st.cache_data(max_entries=32, show_spinner=False)
def attention(n: int, dim: int, k: int, seed: int, causal: bool):
    e = example(n, dim, k, seed)
    return shaw_attention(e.q, e.k, e.v, e.a_k, e.a_v, k, causal)


@st.cache_data(max_entries=32, show_spinner=False)
def effective_keys(n: int, dim: int, k: int, j: int, seed: int):
    return shaw_effective_keys(n, dim, k, j, seed)


def index_chart(n: int, k: int) -> figures.Chart:
    return figures.heatmap(
        clipped_grid(n, k), title=_("Clipped relative distance clip(j − i, ±{k}) for {n} tokens").format(k=k, n=n),
        x_title=_("key position j"), y_title=_("query position i"), value_name=_("clipped j − i"), hover_format="d",
        name="shaw_index",
        alt=_("Heatmap of clipped relative distances for {n} tokens, at most ±{k}: a few distinct diagonals near the "
              "main one, and two flat corners where the distance is clipped to ±{k}.").format(n=n, k=k))


def scores_chart(n: int, k: int, d: int, seed: int) -> figures.Chart:
    s = scores(n, d, k, seed)
    return figures.small_multiples(
        [s.content, s.relative, s.total], [_("content: q·k/√d"), _("relative: q·aᴷ/√d"), _("total logit")],
        cols=3, cell_px=300, title=_("The attention logit splits into two terms (seeded random q, k and table)"),
        value_name="logit", name="shaw_scores",
        alt=_("Three {n} x {n} heatmaps on one colour scale: a noisy content term, a relative term that is "
              "constant along each row beyond the clipping distance {k}, and their sum.").format(n=n, k=k))


def values_chart(n: int, k: int, d: int, seed: int, causal: bool) -> figures.Chart:
    out = attention(n, d, k, seed, causal)
    return figures.small_multiples(
        [out.content_out, out.relative_out], [_("Σ α·v (content)"), _("Σ α·aⱽ (relative)")], cols=2, cell_px=330,
        title=_("Output = weighted values + weighted relative vectors"), value_name=_("output"),
        x_title=_("dimension"), y_title=_("position"), name="shaw_values",
        alt=_("Two heatmaps of the output parts, {n} positions by {d} dimensions: the usual weighted sum of values "
              "and the extra weighted sum of relative value vectors.").format(n=n, d=d))


def cache_chart(n: int, k: int, j: int, d: int, seed: int) -> figures.Chart:
    j = min(j, n - 1)  # a frame for fewer tokens shows the key where its slider will put it
    eff = effective_keys(n, d, k, j, seed)
    return figures.heatmap(
        eff.keys, y=eff.queries, title=_("The key of token {j} as each later query sees it").format(j=j),
        x_title=_("dimension"), y_title=_("reading query i (decoding step)"), value_name="k_j + aᴷ",
        name="shaw_cache",
        alt=_("Heatmap: one row per decoding step from {j} to {last}. The rows change for the first {steps} steps "
              "after the token is written, then stay equal.").format(j=j, last=n - 1, steps=eff.changing_steps))
