"""The pooled-summary and attention-weight tabs of the 'no sense of order' page, and the rows' labels.

Every number comes from the page's cached core call (posenc_core.why_position.order_experiment); this module
lays out the figures, the code to copy and the text around them.
"""

from __future__ import annotations

import streamlit as st

from page_kit import classroom, figures
from page_kit.chart.render import show
from page_kit.i18n import _, pgettext
from page_kit.lesson import formula, notice
from page_kit.lesson.code_lines import fold
from posenc_core.why_position import OrderExperiment


def pooling_name(pooling: str) -> str:
    """A pooling ("mean", "max", "sum") as the reader's language names it (the core's name stays the value)."""
    names = {"mean": pgettext("pooling", "mean"), "max": pgettext("pooling", "max"), "sum": pgettext("pooling", "sum")}
    return names.get(pooling, pooling)


def row_labels(result: OrderExperiment) -> tuple[list[str], list[str]]:
    """The rows' labels, original and reordered (the reordered ones say which slot each word came from)."""
    return ([f"{k}: {w}" for k, w in enumerate(result.tokens)],
            [_("{k}: {word} (was {p})").format(k=k, word=w, p=p)
             for k, (w, p) in enumerate(zip(result.reordered, result.perm, strict=True))])


def pooled_tab(result: OrderExperiment, call: str, pooling: str, positions: bool, before: str, after: str) -> None:
    channels = list(range(len(result.pooled)))
    gap = result.pooled_gap
    name = pooling_name(pooling)
    original, reordered, difference, channel = _("original"), _("reordered"), _("difference"), _("channel")
    show(figures.bars(
        channels, {original: result.pooled, reordered: result.pooled_reordered, difference: result.pooled_difference},
        title=_("{pooling} of the outputs, channel by channel").format(pooling=name), x_title=channel,
        y_title=_("{pooling}-pooled output").format(pooling=name), name="order_pooled",
        alt=_("Grouped bars of the {pooling}-pooled summary over {n} channels for both orders, and their "
              "difference; the largest difference is {gap:.1e}.").format(pooling=name, n=len(channels), gap=gap)))
    classroom.snippet(fold(f"result = {call}", "an OrderExperiment"),
                      "pooled, pooled_reordered = result.pooled, result.pooled_reordered",
                      "# (d,) each: the bars")
    st.dataframe({channel: channels[:8], original: result.pooled[:8],
                  reordered: result.pooled_reordered[:8], difference: result.pooled_difference[:8]},
                 hide_index=True, width="content",
                 column_config={c: st.column_config.NumberColumn(format="%.6f")
                                for c in (original, reordered, difference)})
    formula(r"\mathrm{$pool}\big(P\,\mathrm{Attn}(X)\big) = \mathrm{$pool}\big(\mathrm{Attn}(X)\big)"
            r"\qquad \max|\Delta| = $gap", pool=pooling, gap=gap, digits=3)
    if positions:
        notice(_("With positions the two summaries differ (largest gap {gap:.3f}): "
                 "'{before}' and '{after}' finally get different representations.").format(
                     gap=gap, before=before, after=after))
    else:
        notice(_("The bars for '{before}' and '{after}' are the same height and the difference bars are flat "
                 "(largest gap {gap:.1e}). A sum, a mean or a max does not care about the order of what it "
                 "summarises, so after one attention layer plus pooling the two sentences are the same input. "
                 "Switch on *Add positions* to break the tie.").format(gap=gap, before=before, after=after))


def weights_tab(result: OrderExperiment, call: str, positions: bool) -> None:
    labels, labels_re = row_labels(result)
    n = len(labels)
    left, right = st.columns(2)
    for column, key, names, title, alt, name in (
            (left, "weights", labels, _("Weights, original"),
             _("Attention weights of the original sentence: {n} queries by {n} keys, each row summing to 1."),
             "order_weights"),
            (right, "weights_reordered", labels_re, _("Weights, reordered"),
             _("Attention weights of the reordered sentence: {n} queries by {n} keys, each row summing to 1."),
             "order_weights_reordered")):
        with column:
            show(figures.heatmap(
                getattr(result, key), x=names, y=names, title=title, x_title=_("key"), y_title=_("query"),
                value_name=_("weight"), zrange=(0, 1), height=360, name=name, alt=alt.format(n=n)))
    classroom.snippet(fold(f"result = {call}", "an OrderExperiment"),
                      "weights, weights_reordered = result.weights, result.weights_reordered",
                      "# (n, n) each: the two grids")
    formula(r"A' = P A P^\top,\quad A = \mathrm{softmax}\!\left(\frac{XW_Q (XW_K)^\top}{\sqrt{$d}}\right)",
            d=result.out.shape[1])
    if positions:
        notice(_("How much 'likes' attends to 'movie' is the same number in both grids; only its row and column "
                 "moved. The score of a pair depends on the two words, never on where they are. With positions on, "
                 "the numbers themselves change."))
    else:
        notice(_("How much 'likes' attends to 'movie' is the same number in both grids; only its row and column "
                 "moved. The score of a pair depends on the two words, never on where they are."))
