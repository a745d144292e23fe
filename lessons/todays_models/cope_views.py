"""The figures of the CoPE lesson, each built from its controls' values (page_kit.hero draws them ahead of the hand)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from page_kit import figures
from posenc_core.todays_models import cope_counting_example, cope_interpolation_curve


@st.cache_data(max_entries=32, show_spinner=False)
def example(text: str, unit: str, target: int, sharpness: float):
    return cope_counting_example(text, unit, target, sharpness)


def hands(view: dict) -> dict:
    """The lesson's view under its controls' URL keys: what the figures of the counting example depend on."""
    return {"target": view["target"], "s": view["sharpness"], "unit": view["unit"], "text": view["text"]}


def labelled(tokens) -> list[str]:
    return [f"{i}·{t}" for i, t in enumerate(tokens)]  # unique category labels for the bar charts


def attention_chart(target: int, s, unit: str, text: str, name: str):
    ex = example(text, unit, target, float(s))
    tokens = ex.tokens
    return figures.bars(labelled(tokens), {f"attention of the last token, counting {unit}": ex.attention},
                        title=f"Counting {unit}: where '{tokens[ex.query]}' looks for position {target}",
                        x_title="key (index·token)", y_title="attention", name=name,
                        alt=f"Bars of the last token's attention on each of {len(tokens)} keys, counting {unit}; "
                            f"the keys at position {target} get {ex.target_mass:.1%} of it.")  # no count: asked


def gates_chart(target: int, s, unit: str, text: str):
    ex = example(text, unit, target, float(s))
    opened, names = ex.open_gates, labelled(ex.tokens)
    return figures.bars(names, {"gate g": ex.gates}, title="The last token's gate on each key "
                        "(1: this key counts)", x_title="key (index·token)", y_title="gate", height=300,
                        name="cope_gates", alt=f"Bars per key: the gate is near 1 on the {opened} keys that end "
                                               f"a unit ({unit}) and near 0 on the other {len(names) - opened}.")


def positions_chart(target: int, s, unit: str, text: str):
    ex = example(text, unit, target, float(s))
    return figures.bars(labelled(ex.tokens),
                        {"CoPE position p": ex.positions, "token count i − j + 1": ex.token_positions},
                        title="The positions the gates add up to, next to the plain token count",
                        x_title="key (index·token)", y_title="position", name="cope_positions",
                        alt=f"Grouped bars per key: the contextual position climbs in steps to "
                            f"{float(ex.positions[0]):.2f} at key 0, the token count climbs by one at every key "
                            f"to {float(ex.token_positions[0]):.0f}.")


def grid_chart(target: int, s, unit: str, text: str):
    ex = example(text, unit, target, float(s))
    grid = figures.blank_masked(np.where(np.tril(np.ones_like(ex.position_grid)), ex.position_grid, np.nan))
    return figures.heatmap(grid, title=f"p_ij for every query i and key j (counting {unit})",
                           x_title="key j", y_title="query i", value_name="p", name="cope_grid",
                           alt=f"Lower-triangular heatmap of the contextual positions of {len(ex.tokens)} "
                               f"queries and keys, counting {unit}; the last query's farthest key is at position "
                               f"{float(ex.positions[0]):.2f}.")


def interp_chart(p: float, target: int, s):
    interp = cope_interpolation_curve(target, float(s), p)
    return figures.lines(interp.grid, {"q·e[p] (interpolated)": interp.curve},
                         title="The query's position score between integer positions", x_title="p",
                         y_title="q·e[p]", vlines=[(p, f"p = {p:.1f}")], name="cope_interp",
                         alt=f"A tent-shaped line peaking at the requested position {target}; at p = {p:.1f} "
                             f"it is {interp.value:.3f}.")
