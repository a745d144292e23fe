"""ALiBi's cached core calls and its 'Longer than training' tab (lessons/attention_bias/alibi).

Every number comes from a cached core call; this module lays out the controls, figures and text around them.
"""

from __future__ import annotations

import streamlit as st

import posenc_core as pc
from page_kit import _, controls, figures, hero
from page_kit.chart.render import show
from page_kit.lesson import formula, guide, notice
from posenc_core.attention_bias import (
    alibi_attention,
    alibi_bias_by_distance,
    alibi_gentlest_head,
    alibi_mass_beyond,
    alibi_receptive_field,
    alibi_shown_heads,
    alibi_slope_table,
)

MAX_PANELS = 8
TRAIN_LENGTHS = [128, 256, 512, 1024, 2048]


@st.cache_data(max_entries=32, show_spinner=False)
def slope_table(heads: int):
    return alibi_slope_table(heads)


@st.cache_data(max_entries=32, show_spinner=False)
def bias_panels(heads: int, n: int, causal: bool):
    shown = alibi_shown_heads(heads, MAX_PANELS)  # at most 8 heads, spread over all of them
    grids = pc.alibi_bias(heads, n, n, causal)
    return shown, [figures.blank_masked(grids[h]) for h in shown]


@st.cache_data(max_entries=32, show_spinner=False)
def attention_panels(heads: int, n: int, causal: bool):
    shown = alibi_shown_heads(heads, MAX_PANELS)
    weights = alibi_attention(heads, n, causal)
    return shown, [weights[h] for h in shown]


@st.cache_data(max_entries=32, show_spinner=False)
def receptive_fields(heads: int, length: int, mass: float):
    return alibi_receptive_field(heads, length, mass)


@st.cache_data(max_entries=32, show_spinner=False)
def distance_bias(heads: int, length: int):
    return alibi_bias_by_distance(heads, length)


@st.cache_data(max_entries=32, show_spinner=False)
def beyond(heads: int, train_len: int, eval_len: int):
    return alibi_mass_beyond(heads, train_len, eval_len)


def long_chart(h: int, train: int, factor: int) -> figures.Chart:
    eval_len, table = train * factor, slope_table(h)
    picks = sorted({0, h // 2, h - 1})  # the steepest, a middle and the last head
    lines = distance_bias(h, eval_len)
    return figures.lines(
        range(eval_len), {_("head {k} (m = {m:.3g})").format(k=k + 1, m=table.code[k]): lines[k] for k in picks},
        title=_("Bias against distance, up to {n:,} tokens").format(n=eval_len), x_title=_("distance back (tokens)"),
        y_title=_("bias added to the score"), vlines=[(train, _("training length"))], name="alibi_long",
        alt=_("Straight lines of bias against distance for three heads, continuing past the training "
              "length with the same slope."))


def longer_tab(page, heads: int) -> None:
    """The 'Longer than training' tab: the bias lines past the training length and the attention beyond it."""
    with page.side:
        train = controls.select_slider(_("Training length"), "train", TRAIN_LENGTHS, 512,
                                       format_func=lambda v: f"{v:,}")
        factor = controls.select_slider(_("Evaluate at"), "factor", [1, 2, 4, 8], 4,
                                        format_func=lambda v: _("{v}x training").format(v=v))
    eval_len = train * factor
    guide.report("eval_8x", factor == 8)
    share = beyond(heads, train, eval_len)
    table = slope_table(heads)
    show(hero(long_chart, h=heads, train=train, factor=factor))
    notice(_("Nothing happens at the training length: the lines keep their slope, so a distance the model never "
             "saw just gets a bigger penalty of the same kind. A head that was local in training stays local."))
    show(figures.bars(
        table.head, {_("share of attention beyond the training length"): share},
        title=_("Attention of the last query that lands on keys more than {n:,} tokens back").format(n=train),
        x_title=_("head h"), y_title=_("share of the attention"), hover_format=".3g", name="alibi_beyond",
        alt=_("Bar chart of the attention share beyond the training distance per head: vanishing for "
              "steep heads, a few percent for the gentlest.")))
    gentle = alibi_gentlest_head(heads)
    formula(r"\text{share}_h = \sum_{d \ge $train} w_d \approx e^{-m_h \cdot $train},\qquad"
            r"\text{head } $h\ (m = $m):\ $share", train=train, share=float(share[gentle]),
            h=gentle + 1, m=float(table.code[gentle]))
    st.caption(_("Equal content scores, {n:,} tokens. Distance {train:,} and beyond never "
                 "occurred in training; only the gentlest heads hand it noticeable weight.").format(n=eval_len,
                                                                                                   train=train))


def attention_chart(h: int, n: int, causal: bool) -> figures.Chart:
    shown, weights = attention_panels(h, n, causal)
    return figures.small_multiples(
        weights, [_("head {k}").format(k=k + 1) for k in shown],
        title=_("softmax(bias) when all content scores are equal"), value_name=_("weight"), name="alibi_attention",
        alt=_("Attention grids produced by the bias alone: steep heads put nearly all weight on the diagonal, "
              "gentle heads spread it over many keys."))


def field_chart(h: int, ctx, mass: float) -> figures.Chart:
    return figures.bars(
        slope_table(h).head, {_("receptive field"): receptive_fields(h, int(ctx), mass)},
        log_y=True, y_range=(0, 4.3),
        title=_("Distance that holds {mass:.0%} of the last query's attention ({n:,} tokens)").format(mass=mass,
                                                                                                     n=ctx),
        x_title=_("head h"), y_title=_("distance back (tokens, log scale)"), name="alibi_fields",
        alt=_("Bar chart of the effective receptive field per head; it grows as the slope shrinks."))
