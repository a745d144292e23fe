"""What a lesson needs in class: predict-then-reveal questions and runnable code next to a figure.

A question is asked before the figure that answers it. The student's choice lives only in their own
browser session (it is not a URL parameter and nothing stores it), and the answer is a sentence the
page computes from the same core call as the figure, so question, figure and answer cannot disagree.
In a live class (page_kit.live) the answer is also counted for the room, and the teacher can reveal
the answer to everyone, including those who had not answered.
A snippet is the core call behind a figure with the current control values, ready to paste in a notebook.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Sequence

import streamlit as st

from live_class.results import QuestionInfo
from page_kit import live
from page_kit.i18n import _
from page_kit.lesson import course, folded, misconceptions, unseen
from page_kit.live import panel as live_panel


class Prediction:
    """What ``predict`` returns: true once the student has answered or chosen "Show me".

    Used as a context manager it gates the block that answers the question: the block runs (so the values
    it computes stay available below it) but stays hidden until then, in a container keyed
    ``answer_hidden_<key>`` / ``answer_open_<key>`` (the hidden one is ``display: none`` in
    ``settings.GLOBAL_CSS``, so neither eyes nor screen readers get the answer early). Its charts are not
    sent until then (``lesson.unseen``)::

        with classroom.predict("shift", "Move both 10 positions on. Their score?", options, 0, moved):
            show(shift_chart)  # hidden until answered
    """

    def __init__(self, key: str, revealed: bool):
        self.key, self.revealed = key, revealed
        self._stack: contextlib.ExitStack | None = None

    def __bool__(self) -> bool:
        return self.revealed

    def __enter__(self) -> Prediction:
        state = "open" if self.revealed else "hidden"
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(st.container(key=f"answer_{state}_{self.key}"))
        if not self.revealed:
            self._stack.enter_context(unseen())  # its charts are drawn once it is answered, not before
        return self

    def __exit__(self, *exc) -> bool:
        return bool(self._stack.__exit__(*exc))


def _show_me(key: str) -> None:
    st.session_state[f"predict_{key}_shown"] = True


def _describe(key: str, question: str, options: Sequence[str], answer: int) -> None:
    """In the teacher's room: what the question asks, kept for the room's results and downloads."""
    if not live.teacher():
        return
    try:
        wrong = misconceptions.for_question(key, len(options), answer)
    except (KeyError, ValueError):
        wrong = (None,) * len(options)  # the results then name the option without its misconception
    lesson = st.session_state.get("live_page", "")
    live_panel.describe(QuestionInfo(key, lesson, plain(question), tuple(options), answer, wrong))


def predict(key: str, question: str, options: Sequence[str], answer: int, reveal: Callable[[], str]) -> Prediction:
    """Ask ``question`` before the figure; once a choice is made, say whether it was right and why.

    ``reveal`` builds the explanation from computed numbers (it runs only after a choice, or after "Show
    me"). Use the result as a context manager around the figure or numbers that answer the question, so
    they stay hidden until then (see ``Prediction``). The widget is keyed but deliberately not bound to
    the URL: a teacher's shared link never carries anyone's answer. In a class, a student's own saved answer
    fills the widget (a reload keeps it), and a second vote asks again in a widget of its own.
    """
    options = list(options)
    with st.container(border=True):
        st.markdown(":material/psychology_alt: **" + _("Predict first.") + f"** {question}")
        round = live_panel.round_of(key)
        widget = f"predict_{key}" if round == 1 else f"predict_{key}_vote2"
        live_panel.seed(key, options, round, widget)
        # the visible question is the markdown above; the group's accessible name is the same sentence as text
        picked = st.radio(_("Predict first.") + f" {plain(question)}", options, index=None, key=widget,
                          horizontal=True, label_visibility="collapsed")
        live_panel.record(key, options, picked, round)
        if picked is not None:  # the learner's own progress: right at the first try, before any answer was shown
            seen = st.session_state.get(f"predict_{key}_shown") or live.revealed(key)
            course.answered(key, options.index(picked) == answer and not seen)
        _describe(key, question, options, answer)
        live_panel.room_answers(key, options, answer)
        if live.seat() is not None and not live.revealed(key):
            # a student in a room: the answer is saved, the verdict and what shows it wait for the teacher's
            # reveal, so nobody can call it out before the room has answered
            live_panel.answer_note(key, options, picked, round)
            return Prediction(key, False)
        if live.seat() is not None:
            picked = picked or live_panel.own_choice(key, options)  # the verdict on this seat's own last answer
        shown = bool(st.session_state.get(f"predict_{key}_shown")) or live.revealed(key)
        if picked is None and not shown:
            row = st.container(horizontal=True, vertical_alignment="center", gap="small")
            row.caption(_("Answer first: what answers it stays hidden until you choose."))
            row.button(_("Show me"), key=f"predict_{key}_show", type="tertiary", icon=":material/visibility:",
                       on_click=_show_me, args=(key,))
            return Prediction(key, False)
        if picked is None:
            st.info(_("The answer: {answer}.").format(answer=options[answer]) + " " + reveal())
        else:
            right = options.index(picked) == answer
            (st.success if right else st.info)((_("Right.") if right else _("Not quite: {answer}.").format(
                answer=options[answer])) + " " + reveal())
    return Prediction(key, True)


def plain(text: str) -> str:
    """Markdown as the sentence it reads: icons and emphasis marks dropped (for an accessible name)."""
    return " ".join(re.sub(r":material/\w+:|\*\*|[*`$]", "", text).split())


def _literal(value) -> str:
    if isinstance(value, float):
        return repr(float(value))
    return repr(value)


@functools.cache
def _qualified(function: str) -> str:
    """``pc.function`` for the top level's names, ``pc.section.function`` for a section's."""
    import posenc_core as pc

    if function in pc.__all__ or "." in function:  # a top-level name, or one already named by its section
        return f"pc.{function}"
    for section in pc.__all__:
        if section == "diffusion":  # asking for it imports torch: it is the one section left when none has the name
            continue
        if function in getattr(getattr(pc, section, None), "__all__", ()):
            return f"pc.{section}.{function}"
    return f"pc.diffusion.{function}"  # the one section imported on first use


def call(function: str, *args, **kwargs) -> str:
    """``pc.section.function(args, key=value)`` as source text, values written as Python literals."""
    parts = [_literal(a) for a in args] + [f"{k}={_literal(v)}" for k, v in kwargs.items()]
    return f"{_qualified(function)}({', '.join(parts)})"


def snippet(*lines: str) -> None:
    """The code behind the figure above, to copy (Streamlit's code block has a copy button)."""
    # named by the functions it calls, so it stays open while the sliders change the arguments
    name = "code_" + "_".join(dict.fromkeys(re.findall(r"pc\.(?:\w+\.)*(\w+)\(", "\n".join(lines))))[:60]
    with folded(":material/content_copy: " + _("Code for this figure"), name) as is_open:
        if is_open:
            # wrap_lines: on a 390 px phone a long call wraps instead of hiding behind a sideways scroll
            st.code("import posenc_core as pc\n\n" + "\n".join(lines), language="python", wrap_lines=True)
