"""The resized grid of the Resize lesson and its two similarity maps, built where the hero's frames build them too."""

from __future__ import annotations

import streamlit as st

import posenc_core as pc
from page_kit import figures
from posenc_core.images import patch_similarity_maps, resize_plan, vit_position_table


@st.cache_data(max_entries=32, show_spinner=False)
def original(src: str, old: int, dim: int, prefix: int):
    return vit_position_table(src, old, dim, prefix, seed=0)


@st.cache_data(max_entries=64, show_spinner=False)
def resized(src: str, old: int, new: int, dim: int, prefix: int, mode: str, antialias: bool):
    return pc.resample_pos_embed(original(src, old, dim, prefix), (old, old), (new, new), prefix, mode, antialias)


@st.cache_data(max_entries=64, show_spinner=False)
def maps(src: str, old: int, new: int, dim: int, prefix: int, mode: str, antialias: bool):
    before = patch_similarity_maps(original(src, old, dim, prefix), old, old, "cosine", prefix)
    after = patch_similarity_maps(resized(src, old, new, dim, prefix, mode, antialias), new, new, "cosine",
                                     prefix)
    return before, after


def map_figure(which: str, new, r, c, old, d, cls, src, mode, aa) -> figures.Chart:
    """The "before" or "after" map of the patch (r, c); both share one colour scale, so both follow the new grid."""
    r, c = min(r, old - 1), min(c, old - 1)  # a smaller old grid moves the patch slider to its last stop, as here
    plan = resize_plan(old, new, cls, r, c)
    before, after = (m[i] for m, i in zip(maps(src, old, new, d, cls, mode, aa),
                                          (plan.index_before, plan.index_after), strict=True))
    zrange, signed = figures.similarity_range(before, after)
    grid, size, (r, c), label, stem = ((before, old, (r, c), "before", "resize_before") if which == "before" else
                                       (after, new, plan.new_cell, f"after ({mode})", "resize_after"))
    return figures.marked_heatmap(
        grid, [(c, r, f"patch ({r}, {c})")], title=f"{label}: {size} x {size}, patch ({r}, {c})",
        x_title="column", y_title="row", value_name="cosine similarity", zrange=zrange,
        signed=signed, name=stem, height=430,
        alt=f"Similarity to patch ({r}, {c}) on the {size} x {size} grid ({label}): a bright spot at "
            "the patch that fades with distance.")
