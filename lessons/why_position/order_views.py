"""The pooled-summary and attention-weight tabs of the 'no sense of order' page, and the rows' labels.

Every number comes from the page's cached core call (posenc_core.why_position.order_experiment); this module
lays out the figures, the code to copy and the text around them.
"""

from __future__ import annotations

import streamlit as st

from page_kit import classroom, figures
from page_kit.chart.render import show
from page_kit.lesson import formula, notice
from page_kit.lesson.code_lines import fold
from posenc_core.why_position import OrderExperiment


def row_labels(result: OrderExperiment) -> tuple[list[str], list[str]]:
    """The rows' labels, original and reordered (the reordered ones say which slot each word came from)."""
    return ([f"{k}: {w}" for k, w in enumerate(result.tokens)],
            [f"{k}: {w} (was {p})" for k, (w, p) in enumerate(zip(result.reordered, result.perm, strict=True))])


def pooled_tab(result: OrderExperiment, call: str, pooling: str, positions: bool, before: str, after: str) -> None:
    channels = list(range(len(result.pooled)))
    gap = result.pooled_gap
    show(figures.bars(
        channels, {"original": result.pooled, "reordered": result.pooled_reordered,
                   "difference": result.pooled_difference},
        title=f"{pooling} of the outputs, channel by channel", x_title="channel", y_title=f"{pooling}-pooled output",
        name="order_pooled",
        alt=f"Grouped bars of the {pooling}-pooled summary over {len(channels)} channels for both orders, and "
            f"their difference; the largest difference is {gap:.1e}."))
    classroom.snippet(fold(f"result = {call}", "an OrderExperiment"),
                      "pooled, pooled_reordered = result.pooled, result.pooled_reordered",
                      "# (d,) each: the bars")
    st.dataframe({"channel": channels[:8], "original": result.pooled[:8],
                  "reordered": result.pooled_reordered[:8], "difference": result.pooled_difference[:8]},
                 hide_index=True, width="content",
                 column_config={c: st.column_config.NumberColumn(format="%.6f")
                                for c in ("original", "reordered", "difference")})
    formula(r"\mathrm{$pool}\big(P\,\mathrm{Attn}(X)\big) = \mathrm{$pool}\big(\mathrm{Attn}(X)\big)"
            r"\qquad \max|\Delta| = $gap", pool=pooling, gap=gap, digits=3)
    if positions:
        notice(f"With positions the two summaries differ (largest gap {gap:.3f}): "
               f"'{before}' and '{after}' finally get different representations.")
    else:
        notice(f"The bars for '{before}' and '{after}' are the same height and the difference bars are flat "
               f"(largest gap {gap:.1e}). A sum, a mean or a max does not care about the order of what it "
               "summarises, so after one attention layer plus pooling the two sentences are the same input. "
               "Switch on *Add positions* to break the tie.")


def weights_tab(result: OrderExperiment, call: str, positions: bool) -> None:
    labels, labels_re = row_labels(result)
    n = len(labels)
    left, right = st.columns(2)
    for column, key, names, title, name in ((left, "weights", labels, "original", "order_weights"),
                                            (right, "weights_reordered", labels_re, "reordered",
                                             "order_weights_reordered")):
        with column:
            show(figures.heatmap(
                getattr(result, key), x=names, y=names, title=f"Weights, {title}", x_title="key", y_title="query",
                value_name="weight", zrange=(0, 1), height=360, name=name,
                alt=f"Attention weights of the {title} sentence: {n} queries by {n} keys, each row summing to 1."))
    classroom.snippet(fold(f"result = {call}", "an OrderExperiment"),
                      "weights, weights_reordered = result.weights, result.weights_reordered",
                      "# (n, n) each: the two grids")
    formula(r"A' = P A P^\top,\quad A = \mathrm{softmax}\!\left(\frac{XW_Q (XW_K)^\top}{\sqrt{$d}}\right)",
            d=result.out.shape[1])
    notice("How much 'likes' attends to 'movie' is the same number in both grids; only its row and column "
           "moved. The score of a pair depends on the two words, never on where they are."
           + (" With positions on, the numbers themselves change." if positions else ""))
