"""Pieces of the MiniLM lesson: its cached runs of the model, the code that gives them, and the grids of every
head's weight on its neighbouring tokens.

No math here: the numbers come from ``posenc_core.real_models`` (``encoder.py``).
"""

from __future__ import annotations

import streamlit as st

import posenc_core as pc
from page_kit import classroom, figures, formula, notice, show

real = pc.real_models


@st.cache_data(max_entries=32, show_spinner="Running all-MiniLM-L6-v2…")
def order_experiment(text: str, seed: int) -> real.EncoderOrderExperiment:
    return real.encoder_order_experiment(text, seed)


@st.cache_data(show_spinner="Measuring every head on the shipped text…")
def heads() -> real.PositionalHeads:
    return real.positional_heads()


@st.cache_data(show_spinner="Running past the table's last row…")
def past_table() -> real.PastTable:
    return real.encoder_past_table()


def labels(tokens) -> list[str]:
    return [f"{i} {t}" for i, t in enumerate(tokens)]  # numbered: a repeated word must stay its own row


def order_code(text: str, seed: int, *lines: str) -> None:
    classroom.snippet("# all-MiniLM-L6-v2 on the sentence and its shuffle, with and without the position rows",
                      f"r = {classroom.call('real_models.encoder_order_experiment', text, seed)}", *lines)


def heads_panels(h: real.PositionalHeads) -> None:
    """Every head's weight on its neighbours, with and without the rows: the panels that answer the question."""
    grids = [h.previous[True], h.next[True], h.previous[False], h.next[False]]
    titles = ["previous token, trained rows", "next token, trained rows", "previous token, rows removed",
              "next token, rows removed"]
    show(figures.small_multiples([g.astype(float) for g in grids], titles, cols=2, value_name="mean weight",
                                 x_title="head", y_title="layer", name="encoder_heads", cell_px=170,
                                 title="Mean attention on the neighbouring token, every layer and head",
                                 alt="Four 6 x 12 grids: each head's mean weight on the previous and on the next "
                                     "token, with and without the position rows; the largest previous-token weight "
                                     f"is {h.largest[True]:.3f} with the rows and {h.largest[False]:.3f} "
                                     "without."))
    classroom.snippet("h = pc.real_models.positional_heads()  # the shipped text, 4 stretches of 128 word pieces",
                      "# (6 layers, 12 heads) each, in the order of the panels",
                      "grids = [h.previous[True], h.next[True],\n         h.previous[False], "
                      "h.next[False]]")
    without = {"previous": h.previous[False], "next": h.next[False]}  # (6, 12) each: the rows removed
    rows = [f"layer {layer} head {head} puts {value:.3f} of its weight on the {key} token "
            f"({without[key][layer - 1, head - 1]:.3f} without rows)"
            for key in ("previous", "next") for layer, head, value in [h.top[key]]]
    notice(f"Measured on {h.chunks} stretches of {h.length} word pieces of the shipped text: {rows[0]}; "
           f"{rows[1]}. Spreading evenly would give {h.uniform:.4f}. These heads were found, not designed: "
           "training made them out of the position rows, and removing the rows switches them off.")
    formula(r"\text{prev}(l,h) = \frac{1}{n-2}\sum_{i=1}^{n-2} A^{(l,h)}_{i,i-1}")
    formula(r"\max = $a,\quad \text{uniform} = 1/$n", a=h.largest[True], n=h.length)
