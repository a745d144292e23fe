"""T5's cached core calls (lessons/attention_bias/t5), scalars in and numpy arrays out, and the figures of its
bucket grid and learned values."""

from __future__ import annotations

import streamlit as st

import posenc_core as pc
from page_kit import N_, _, figures
from posenc_core.attention_bias import t5_bucket_grid, t5_bucket_layout, t5_bucket_spans, t5_bucket_values

MODES = {"bidirectional": N_("bidirectional"), "causal": N_("causal")}  # the direction's words, by its address value


@st.cache_data(max_entries=32, show_spinner=False)
def bucket_curve(bidirectional: bool, buckets: int, max_distance: int, span: int):
    rel = list(range(-span, span + 1))
    return rel, pc.t5_relative_position_bucket(rel, bidirectional, buckets, max_distance)


@st.cache_data(max_entries=32, show_spinner=False)
def layout(bidirectional: bool, buckets: int, max_distance: int):
    return t5_bucket_layout(bidirectional, buckets, max_distance)


@st.cache_data(max_entries=32, show_spinner=False)
def grid(n: int, bidirectional: bool, buckets: int, max_distance: int):
    return t5_bucket_grid(n, None, bidirectional, buckets, max_distance)


@st.cache_data(max_entries=32, show_spinner=False)
def values(buckets: int, bidirectional: bool, seed: int, edit: int | None, value: float):
    return t5_bucket_values(buckets, bidirectional, seed, edit_bucket=edit, edit_value=value)


@st.cache_data(max_entries=32, show_spinner=False)
def bias(buckets: int, bidirectional: bool, seed: int, edit: int, value: float, n: int, max_distance: int):
    return figures.blank_masked(pc.t5_bias_grid(values(buckets, bidirectional, seed, edit, value), n,
                                                bidirectional, max_distance))


@st.cache_data(max_entries=32, show_spinner=False)
def spans(bidirectional: bool, buckets: int, max_distance: int, span: int):
    return t5_bucket_spans(bidirectional, buckets, max_distance, span)


def grid_chart(nb: int, mode: str, md: int, n: int) -> figures.Chart:
    layout(mode == "bidirectional", nb, md)  # the page refuses (ValueError) too small a max_distance
    return figures.heatmap(
        grid(n, mode == "bidirectional", nb, md),
        title=_("Bucket of every query-key pair ({n} tokens, {mode})").format(n=n, mode=_(MODES[mode])),
        x_title=_("key position j"), y_title=_("query position i"), value_name=_("bucket"), hover_format="d",
        name="t5_grid",
        alt=_("Heatmap of bucket indices for {n} tokens, {nb} buckets at most: constant along each "
              "diagonal, with bands that widen away from the main diagonal.").format(n=n, nb=nb))


def values_chart(eb: int, nb: int, mode: str, md: int, seed, ev: float) -> figures.Chart:
    layout(mode == "bidirectional", nb, md)  # the page refuses (ValueError) too small a max_distance
    learned = values(nb, mode == "bidirectional", int(seed), eb, float(ev))
    return figures.bars(
        list(range(nb)), {_("learned scalar"): learned}, title=_("One scalar per bucket (one head)"),
        x_title=_("bucket"), y_title=_("bias added to the score"), name="t5_values",
        alt=_("Bar chart of the {nb} per-bucket biases: mostly falling with the bucket's distance; bucket "
              "{eb} edited to {ev:g}.").format(nb=nb, eb=eb, ev=ev))
