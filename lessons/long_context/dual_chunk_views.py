"""Dual chunk attention's cached core calls (lessons/long_context/dual_chunk), scalars in and arrays out, its
figures, and the words for its kinds of score."""

from __future__ import annotations

import json

import numpy as np
import streamlit as st

from page_kit import figures
from posenc_core.long_context import DCA_KINDS, dual_chunk_grid, dual_chunk_summary

# The kinds of score as the page names them, by DCA_KINDS code.
KIND_WORDS = {"masked": "masked (key after query)", "intra": "intra-chunk", "successive": "successive chunk",
              "inter": "inter-chunk"}
KIND_COLOURS = ("#4c78a8", "#f58518", "#54a24b")  # intra, successive, inter: distinct in both themes
# Qwen2.5-7B-Instruct-1M and Qwen2.5-14B-Instruct-1M's config.json, the lines that turn DCA on (as public copies
# of the files quote them).
QWEN_1M = {"chunk_size": 262144, "local_size": 8192, "original_max_position_embeddings": 262144}
QWEN_1M_LINES = json.dumps({"max_position_embeddings": 1010000, "rope_theta": 10000000.0,
                            "dual_chunk_attention_config": QWEN_1M}, indent=2)


@st.cache_data(max_entries=32, show_spinner=False)
def grid(n: int, chunk_size: int, local_size: int):
    return dual_chunk_grid(n, chunk_size, local_size)


@st.cache_data(max_entries=64, show_spinner=False)
def summary(n: int, chunk_size: int, local_size: int, original: int = 0):
    return dual_chunk_summary(n, chunk_size, local_size, original)


def distance_chart(n: int, cs: int, ls: int) -> figures.Chart:
    """DCA's distance beside plain RoPE's, one shared colour scale (the hero)."""
    g, s = grid(n, cs, ls), summary(n, cs, ls)
    return figures.small_multiples(
        [g.distance, g.plain], [f"dual chunk attention (largest {s.largest:,})",
                                f"plain RoPE (largest {s.plain_largest:,})"],
        cols=2, cell_px=330, title=f"Distance each score's rotation sees ({n} tokens, chunk_size {cs}, "
                                   f"local_size {ls})",
        value_name="distance", x_title="key j", y_title="query i", hover_format=".0f", name="dca_distance",
        alt=f"Two {n} x {n} lower triangles of query minus key distance. Plain RoPE grows to {s.plain_largest:,} "
            f"in the far corner; under dual chunk attention no score sees more than {s.largest:,}, with chunks of "
            f"{s.chunk_len} tokens along the diagonal.")


def kind_chart(n: int, cs: int, ls: int) -> figures.Chart:
    """Which query copy each score uses: intra, successive or inter (masked scores blank)."""
    g = grid(n, cs, ls)
    kind = np.where(g.kind > 0, g.kind, np.nan).astype(np.float64)  # (n, n): 1..3, NaN masked
    third = 1 / 3
    scale = [[0, KIND_COLOURS[0]], [third, KIND_COLOURS[0]], [third, KIND_COLOURS[1]],
             [2 * third, KIND_COLOURS[1]], [2 * third, KIND_COLOURS[2]], [1, KIND_COLOURS[2]]]
    counts = summary(n, cs, ls).pairs_by_kind
    listed = ", ".join(f"{KIND_WORDS[k]} {counts[k]:,}" for k in DCA_KINDS[1:] if k in counts)
    return figures.heatmap(
        kind, title="Which query copy each score uses", x_title="key j", y_title="query i",
        value_name="kind", zrange=(0.5, 3.5), colorscale=scale, hover_format=".0f",
        colorbar_ticks=[(code, k) for code, k in enumerate(DCA_KINDS) if code],  # 1 intra, 2 successive, 3 inter
        name="dca_kind", height=380,
        alt=f"A {n} x {n} lower triangle coloured by kind of score: intra-chunk blocks on the diagonal, the "
            f"successive-chunk block just left of each, inter-chunk further left. Scores per kind: {listed}.")
