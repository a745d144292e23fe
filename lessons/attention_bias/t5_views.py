"""T5's cached core calls (lessons/attention_bias/t5): scalars in, numpy arrays out."""

from __future__ import annotations

import streamlit as st

import posenc_core as pc
from page_kit import figures
from posenc_core.attention_bias import t5_bucket_grid, t5_bucket_layout, t5_bucket_spans, t5_bucket_values


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
