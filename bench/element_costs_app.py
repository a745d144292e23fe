"""A fragment with one driving slider and N copies of one kind of element, for bench/element_costs.py.

POSENC_ELEMENT_KIND names the kind (a key of KINDS), POSENC_ELEMENT_COUNT how many. Each copy follows the
slider's value, as a lesson's elements follow a move; figures are cached views (the figure cache), so a move
costs what drawing the element costs, not what computing it does."""

import os
import sys
from pathlib import Path

import numpy as np
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from page_kit import classroom, controls, figures, formula, notice, show  # noqa: E402
from page_kit.lesson import folded  # noqa: E402

COUNT = int(os.environ.get("POSENC_ELEMENT_COUNT", "0"))
GRID = np.random.default_rng(0).standard_normal((64, 64))


def caption(i: int, value: int) -> None:
    st.caption(f"line {i}: {value}")


def drag_slider(i: int, value: int) -> None:
    controls.slider(f"Slider {i}", f"s{i}", 0, 100, value % 100)


def chart(i: int, value: int) -> None:
    show(figures.heatmap(GRID * (1 + value % 2), title=f"Map {i}", x_title="x", y_title="y", alt="a map",
                         name=f"map{i}"))


def question(i: int, value: int) -> None:
    with classroom.predict(f"q{i}", f"Question {i} at {value}?", ["yes", "no"], 0, lambda: "Because."):
        st.caption("the answer")


def tex(i: int, value: int) -> None:
    formula(r"x_{$i} = $v", i=i, v=value)


def note(i: int, value: int) -> None:
    notice(f"Notice {i}: the value is {value}.")


def fold(i: int, value: int) -> None:
    with folded(f"Fold {i}", f"fold{i}") as open_:
        if open_:
            st.code(f"x = {value}")


KINDS = {"caption": caption, "drag_slider": drag_slider, "chart": chart, "question": question, "formula": tex,
         "notice": note, "folded": fold}
KIND = KINDS[os.environ.get("POSENC_ELEMENT_KIND", "caption")]


@st.fragment
def body():
    value = controls.slider("Driver", "x", 0, 100, 50)
    for i in range(COUNT):
        KIND(i, value)


body()
