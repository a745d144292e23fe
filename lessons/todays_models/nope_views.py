"""The core calls and figures of the Layers without positions lesson, each figure built from its controls' values
(page_kit.hero draws them ahead of the hand)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from lessons.todays_models.words import QUERY_SCALE_LABELS
from page_kit import figures
from posenc_core.todays_models import (
    QUERY_SCALE_RULES,
    llama4_attn_temperature,
    llama_4_scaling_beta,
    nope_layer_counts,
    nope_layer_map,
    query_scale_positions,
    temperature_entropy,
    temperature_positions,
)

RULES = list(QUERY_SCALE_RULES)
LABELS = {rule: QUERY_SCALE_LABELS[rule] for rule in RULES}
# a two-colour map for a yes/no grid: orange = no positions (0), blue = RoPE (1)
TWO_COLOURS = [[0.0, figures.CATEGORICAL[1]], [0.5, figures.CATEGORICAL[1]], [0.5, figures.CATEGORICAL[0]],
               [1.0, figures.CATEGORICAL[0]]]
LLAMA_PERIOD = 8192  # Llama 4's floor_scale


@st.cache_data(max_entries=8, show_spinner=False)
def layer_map(n_layers: int):
    return nope_layer_map(n_layers)


@st.cache_data(max_entries=32, show_spinner=False)
def rule_curves(context: int, scale: float, llama_period: int, mistral_period: int):
    # every integer position is too many to draw (the kit draws at most 1,200 points): a log grid plus the stairs
    grid = query_scale_positions(context, (llama_period, mistral_period))
    return grid, {LABELS["llama4"]: llama4_attn_temperature(grid, scale, llama_period),
                  LABELS["llama_4_scaling_beta"]: llama_4_scaling_beta(grid, scale, mistral_period)}


@st.cache_data(max_entries=32, show_spinner=False)
def entropy(rule: str, context: int, scale: float, period: int, margin: float, spread: float):
    return temperature_entropy(rule, temperature_positions(context), scale=scale, period=period,
                                  spread=spread, margin=margin)


def entropy_for(rule: str, ectx: int, margin: float, spread: float):
    """The entropy tab's result at the released scale and period of ``rule`` (0.1 and 8,192 / 16,384)."""
    return entropy(rule, ectx, 0.1, QUERY_SCALE_RULES[rule].period, float(margin), float(spread))


def map_chart(layers: int):
    names, grid = layer_map(layers)
    counts = nope_layer_counts()  # every model's full depth, whatever is shown
    return figures.padded(figures.heatmap(
        grid, x=np.arange(grid.shape[1]), y=names, title="RoPE (1) or no positions (0), layer by layer",
        x_title="layer", y_title="", value_name="rotates", zrange=(0.0, 1.0), height=320,
        hover_format=".0f", colorscale=TWO_COLOURS, name="nope_layer_map",
        alt=f"One row per model, one cell per layer for the first {layers} layers: value 1 where the layer "
            "rotates, 0 where it has no positions, blank past a model's last layer. Layers without positions: "
            + "; ".join(f"{name} {k} of {depth}" for name, (k, depth) in counts.items()) + "."), left=130)


def rule_chart(ctx: int, beta: float, orig: int):
    grid, curves = rule_curves(ctx, float(beta), LLAMA_PERIOD, orig)
    p_last = int(grid[-1])
    llama_last = float(curves[LABELS['llama4']][-1])
    mistral_last = float(curves[LABELS['llama_4_scaling_beta']][-1])
    return figures.stacked_lines(
        grid, curves, title="Query multiplier against position", x_title="position p (log)",
        y_title="query scale", log_x=True, hover_format=".4f", name="nope_rules",
        vlines=[(LLAMA_PERIOD - 1, "Llama 4's first step")],
        alt=f"Both rules are 1 until their first step, then climb like a staircase in log position; at "
            f"p = {p_last:,} Llama 4's multiplier is {llama_last:.4f} and Mistral's {mistral_last:.4f}.")


def entropy_chart(ectx: int, margin: float, spread: float, rule: str):
    result = entropy_for(rule, ectx, margin, spread)
    p = result.positions
    return figures.stacked_lines(
        p, {"without the temperature": result.entropy, "with it": result.entropy_scaled,
            "uniform attention, ln(p + 1)": result.uniform},
        title=f"Attention entropy of the query at position p ({LABELS[rule]})",
        x_title="query position p (log)", y_title="entropy (nats)", log_x=True, hover_format=".3f",
        dashed=["uniform attention, ln(p + 1)"], name="nope_entropy",
        alt=f"Entropy grows with the log of the number of keys; at p = {int(p[-1]):,} it is "
            f"{result.entropy[-1]:.3f} nats without the temperature, {result.entropy_scaled[-1]:.3f} with "
            f"it and {result.uniform[-1]:.3f} for uniform attention (dashed).")


def needle_chart(ectx: int, margin: float, spread: float, rule: str):
    result = entropy_for(rule, ectx, margin, spread)
    p = result.positions
    return figures.stacked_lines(
        p, {"without the temperature": result.needle, "with it": result.needle_scaled},
        title="Probability on the one relevant key (key 0, the farthest)", x_title="query position p (log)",
        y_title="probability (log)", log_x=True, log_y=True, hover_format=".3g", name="nope_needle",
        alt=f"The relevant key's share falls as the keys multiply: at p = {int(p[-1]):,} it is "
            f"{result.needle[-1]:.2e} without the temperature and {result.needle_scaled[-1]:.2e} with it.")
