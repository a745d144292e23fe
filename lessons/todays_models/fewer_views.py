"""The core calls and figures of the Fewer frequencies lesson, each figure built from its controls' values
(page_kit.hero draws them ahead of the hand)."""

from __future__ import annotations

import streamlit as st

from page_kit import figures
from posenc_core.todays_models import (
    FEWER_FREQUENCY_METHODS,
    dimension_frequency_table,
    fewer_frequency_summaries,
    frequency_score_curves,
)

METHODS = FEWER_FREQUENCY_METHODS
COLOURS = {m: i for i, m in enumerate(METHODS)}  # one colour per method in every figure
DRAW_ORDER = ("RoPE", "partial rotary", "proportional", "p-RoPE")  # dashed p-RoPE on top of proportional


@st.cache_data(max_entries=32, show_spinner=False)
def summaries(head_dim: int, base: float, fraction: float, context: int):
    return fewer_frequency_summaries(head_dim, base, fraction, context)


@st.cache_data(max_entries=32, show_spinner=False)
def frequency_table(head_dim: int, base: float, fraction: float):
    return dimension_frequency_table(head_dim, base, fraction)


@st.cache_data(max_entries=16, show_spinner=False)
def curves(head_dim: int, base: float, fraction: float, context: int):
    return frequency_score_curves(head_dim, base, fraction, context, 800)


def hands(view: dict) -> dict:
    """The lesson's view under its controls' URL keys, the drag sliders first."""
    return {"p": view["fraction"], "base": view["base"], "ctx": view["context"], "d": view["head_dim"]}


def dims_chart(p: float, base: int, ctx: int, d: int):
    info = summaries(d, float(base), float(p), ctx)
    table = frequency_table(d, float(base), float(p))
    partial, prop = info["partial rotary"], info["proportional"]
    return figures.heatmap(
        table, y=list(METHODS), title=f"How fast each dimension turns (head_dim {d}, fraction "
        f"{p:g}); blank: never turns", x_title="dimension of the head", y_title="",
        value_name="log10 ω (rad/pos)", name="fewer_dims", height=300, hover_format=".2f",
        alt=f"One row per method, one cell per dimension of a {d}-dimension head, coloured by log10 of its "
            f"angular speed; dimensions that never turn are blank. At fraction {p:g} partial rotary turns "
            f"the first {partial.block} dimensions as one block, p-RoPE ({info['p-RoPE'].pairs} pairs) and "
            f"proportional ({prop.pairs} pairs) turn the leading dimensions of each half.")


def waves_chart(p: float, base: int, ctx: int, d: int):
    info = summaries(d, float(base), float(p), ctx)
    return figures.lines(
        range(d // 2), {m: info[m].wavelengths for m in DRAW_ORDER},
        title="Wavelength of each rotating pair (gaps: pair never turns)",
        x_title="pair index", y_title="wavelength (positions)", log_y=True, colours=COLOURS,
        legend_right=True, margin=dict(l=70, r=220), dashed=["p-RoPE"],
        hlines=[(ctx, f"context {ctx:,}")], name="fewer_wavelengths",
        alt=f"Log-scale wavelength per pair for {', '.join(DRAW_ORDER)} (p-RoPE dashed); the dotted line marks "
            f"the context of {ctx:,}. Longest wavelengths: "
            + ", ".join(f"{m} {info[m].longest_wavelength:,.4g}" for m in DRAW_ORDER) + ".")


def score_chart(p: float, base: int, ctx: int, d: int):
    data = curves(d, float(base), float(p), ctx)
    still = summaries(d, float(base), float(p), ctx)["p-RoPE"].still_share
    far = data.far_mean
    return figures.lines(
        data.distance, {m: data.scores[m] for m in DRAW_ORDER}, colours=COLOURS, dashed=["p-RoPE"],
        legend_right=True, margin=dict(l=70, r=220), log_x=True,
        title="q · R(Δ) q / |q|² for q with equal coordinates (log distance axis)", x_title="distance Δ",
        y_title="normalised score", hlines=[(still, f"position-free share {still:.2f}")],
        name="fewer_scores",
        alt=f"Normalised score against distance on a log axis for {', '.join(DRAW_ORDER)} (p-RoPE dashed); the "
            f"dotted line marks the share of dimensions that never turn, {still:.2f}. Mean over the far half: "
            + ", ".join(f"{m} {far[m]:.3f}" for m in METHODS) + ".")
