"""What a run draws only when someone can see it: folded sections, and blocks nobody can see yet.

Both are below the chart (``page_kit.chart.render.show`` folds its numbers table and draws nothing in an unseen
block) and the lesson (``page_kit.lesson`` hands them to pages, and its questions hide their answers in
``unseen``).
"""

from __future__ import annotations

import contextlib
import contextvars

import streamlit as st
from streamlit.errors import StreamlitDuplicateElementKey

# True inside a block the student cannot see yet (an unanswered question's answer, page_kit.lesson.classroom)
_UNSEEN = contextvars.ContextVar("posenc_unseen", default=False)


@contextlib.contextmanager
def unseen():
    """A block that runs, so the values it computes stay available below it, but that nobody can see yet.

    ``show`` draws no chart inside it: a chart in a ``display: none`` box is still sent on every move (its
    element, caption, downloads and hero frames: about ten messages) and Plotly still redraws it, which took
    80 ms of the browser's main thread per move on RoPE relative, before the figure the student does see."""
    token = _UNSEEN.set(True)
    try:
        yield
    finally:
        _UNSEEN.reset(token)


def is_unseen() -> bool:
    return _UNSEEN.get()


@contextlib.contextmanager
def folded(label: str, name: str, *, icon: str | None = None):
    """A collapsed section whose body runs only while it is open; yields whether it is open.

    A closed expander's content is still built and sent on every slider move (Sinusoidal's source view in a
    closed expander would be 25 KB of each move's messages); a folded section sends nothing until a student
    opens it. ``name`` keys its open state, so it stays open while sliders move; a second fold of the same name
    in one run gets ``name_2``, and so on.
    """
    key, count = f"fold_{name}", 1
    while True:
        try:
            box = st.expander(label, icon=icon, key=key, on_change="rerun")
            break
        except StreamlitDuplicateElementKey:
            count += 1
            key = f"fold_{name}_{count}"
    with box:
        yield bool(box.open)
