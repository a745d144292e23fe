"""A checkpoint converted between layouts: its scores with and without the permutation (lessons/rope/rope_variants)."""

import streamlit as st

from page_kit import _, figures
from posenc_core.rope import rope_conversion_scores


@st.cache_data(max_entries=16, show_spinner=False)
def conversion(n: int, dim: int, base: float, seed: int):
    return rope_conversion_scores(n, dim, base, seed=seed)


def convert_chart(side: str, n: int, seed: int, d: int, base) -> figures.Chart:
    conv = conversion(n, d, float(base), seed)
    if side == "half":
        return figures.heatmap(
            conv.half, title=_("Trained in half layout: scores"), x_title=_("key position"),
            y_title=_("query position"), value_name=_("score"), name="rope_convert_original", height=400,
            alt=_("Attention scores of one head of a model that uses the half layout, {n} by {n} "
                  "positions.").format(n=n))
    return figures.heatmap(
        conv.naive, title=_("Same weights, interleaved rotation: scores"), x_title=_("key position"),
        y_title=_("query position"), value_name=_("score"), name="rope_convert_naive", height=400,
        alt=_("The same head run with the interleaved layout without permuting its weights: a different score "
              "pattern, off by up to {error:.2f}.").format(error=conv.naive_error))
