"""What a lesson needs in class: predict-then-reveal questions and runnable code next to a figure.

A question is asked before the figure that answers it. The student's choice lives only in their own
browser session (it is not a URL parameter and nothing stores it), and the answer is a sentence the
page computes from the same core call as the figure, so question, figure and answer cannot disagree.
A snippet is the core call behind a figure with the current control values, ready to paste in a notebook.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import streamlit as st

from .lesson import folded


def predict(key: str, question: str, options: Sequence[str], answer: int, reveal: Callable[[], str]) -> None:
    """Ask ``question`` before the figure; once a choice is made, say whether it was right and why.

    ``reveal`` builds the explanation from computed numbers (it runs only after a choice). The widget is
    keyed but deliberately not bound to the URL: a teacher's shared link never carries anyone's answer.
    """
    with st.container(border=True):
        picked = st.radio(f":material/psychology_alt: **Predict first.** {question}", list(options), index=None,
                          key=f"predict_{key}", horizontal=True)
        if picked is None:
            st.caption("Choose an answer, then look at the figure below.")
            return
        right = list(options).index(picked) == answer
        (st.success if right else st.info)(("Right. " if right else f"Not quite: {options[answer]}. ") + reveal())


def _literal(value) -> str:
    if isinstance(value, float):
        return repr(float(value))
    return repr(value)


def call(function: str, *args, **kwargs) -> str:
    """``pc.function(args, key=value)`` as source text, values written as Python literals."""
    parts = [_literal(a) for a in args] + [f"{k}={_literal(v)}" for k, v in kwargs.items()]
    return f"pc.{function}({', '.join(parts)})"


def snippet(*lines: str) -> None:
    """The code behind the figure above, to copy (Streamlit's code block has a copy button)."""
    # named by the functions it calls, so it stays open while the sliders change the arguments
    name = "code_" + "_".join(dict.fromkeys(re.findall(r"pc\.(\w+)\(", "\n".join(lines))))[:60]
    with folded(":material/content_copy: Code for this figure", name) as is_open:
        if is_open:
            # wrap_lines: on a 390 px phone a long call wraps instead of hiding behind a sideways scroll
            st.code("import posenc_core as pc\n\n" + "\n".join(lines), language="python", wrap_lines=True)
