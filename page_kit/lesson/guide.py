"""Guide me: a lesson walked through in a few steps, each setting the live controls to a view.

A lesson lists its steps (``Step``) in its section's views module and calls ``panel(steps)`` at the top of its
fragment, before ``stage()``: a compact *Guide me* button while the guide is off; while it is on, a short bordered
panel (step i of n, what to notice, the task) with Back / Next / Leave the guide. The step lives in the URL as
``?guide=<1-based step>``, so a shared link opens on that step and a class following its teacher follows it; a
value that is no step (``guide=0``, ``guide=abc``) turns the guide off, one past the end is the last step.

Entering a step sets its view (``controls.link_view.apply``) as a shared link with those values would, without a
page load; the learner then moves the controls freely, and leaving keeps what they hold. A link that opens a step
and names some of its controls keeps the link's values for those (the teacher moved them). A step's task is
checked by the lesson: after it computes the condition, ``report(name, holds)`` marks the task done in the panel
(drawn earlier in the run, filled in then)::

    @st.fragment
    def lesson():
        guide.panel(views.GUIDE)
        page = stage()
        ...
        guide.report("score_zero", abs(out.score) < 1e-9)
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from page_kit.controls import link_view
from page_kit.i18n import _, ngettext, pgettext

PARAM = "guide"  # the URL key of the current step, 1-based
_APPLIED = "_guide_applied"  # session state: (page, step) whose view was last applied; (page, None) after a button


@dataclass(frozen=True)
class Step:
    """One step of a guide."""

    # a guide's words are constants of the lesson's views, marked N_() there and translated here when shown
    title: str  # a few words: "Step 2 of 4 · <title>"
    say: str  # what to notice, markdown, one or two short sentences
    view: Mapping[str, str] = field(default_factory=dict)  # URL key -> value as the URL writes it ("view": tab label)
    task: str | None = None  # one sentence asking the learner to act
    check: str | None = None  # the name of the condition the lesson reports (``report``) that says the task is done


@dataclass(frozen=True)
class _Task:
    run: tuple  # the script run that drew the panel
    check: str
    step: Step
    box: Any  # the placeholder the step's words are drawn in (st.empty)


_TASK: contextvars.ContextVar[_Task | None] = contextvars.ContextVar("posenc_guide_task", default=None)


def step_of(raw: Sequence[str], count: int) -> int | None:
    """The step a link's ``guide`` values name (the last of repeated ones), clamped to 1..count; None: guide off."""
    if not raw or count < 1:
        return None
    text = raw[-1].strip()
    if not text.isdigit() or int(text) < 1:  # "abc", "-1", "0", "1.5", "1e9"
        return None
    return min(int(text[:6]), count)  # a 400-digit step is past the end, never a huge int


def start_button(steps: Sequence[Step]) -> None:
    """*Guide me*, while the guide is off: beside the lesson's title (``lesson.header``), where it takes no line
    of its own above the figure. On a phone it shows its icon alone (``settings.GLOBAL_CSS``), named all the same."""
    if steps and step_of(st.query_params.get_all(PARAM), len(steps)) is None:
        st.button(_("Guide me"), key="guide_start", icon=":material/route:", type="tertiary", on_click=_go, args=(1,),
                  help=ngettext("A walk through this lesson in {n} step, setting the controls for you.",
                                "A walk through this lesson in {n} steps, each setting the controls for you.",
                                len(steps)).format(n=len(steps)))


def panel(steps: Sequence[Step]) -> int | None:
    """The current step's panel, while the guide is on (``start_button`` starts it). Returns the step (1-based) or
    None when the guide is off. Call it before the lesson's controls are drawn."""
    _TASK.set(None)
    if not steps:
        return None
    raw = st.query_params.get_all(PARAM)
    step = step_of(raw, len(steps))
    if step is None:
        if raw:
            del st.query_params[PARAM]  # a hostile value: no guide, and no trace of it in the address bar
        st.session_state.pop(_APPLIED, None)
        return None
    if raw != [str(step)]:
        st.query_params[PARAM] = str(step)  # one value, in range
    _enter(steps, step)
    _draw(steps, step)
    return step


def report(check: str, holds: bool) -> None:
    """Tell the guide whether the condition ``check`` holds in this run; the current step's task shows done when
    it is its check and holds. Call it after computing the condition (any number of checks, any order)."""
    task = _TASK.get()
    if task is None or task.check != check or task.run != _this_run():
        return
    task.box.markdown(_words(task.step, bool(holds)))


def _this_run() -> tuple:
    ctx = get_script_run_ctx()
    return (None, None) if ctx is None else (ctx.page_script_hash, id(ctx.cursors))


def _page() -> str | None:
    ctx = get_script_run_ctx()
    return None if ctx is None else ctx.page_script_hash


def _enter(steps: Sequence[Step], step: int) -> None:
    """Apply the step's view once, when the step changes (not on every rerun: the learner moves the controls)."""
    here = (_page(), step)
    applied = st.session_state.get(_APPLIED)
    if applied == here:
        return
    view = dict(steps[step - 1].view)
    if applied is None:  # arrived by a link: the controls it names keep the link's values
        named = _link_keys()
        view = {k: v for k, v in view.items() if k not in named}
    link_view.apply(view)
    st.session_state[_APPLIED] = here


def _link_keys() -> set[str]:
    ctx = get_script_run_ctx()
    if ctx is None:
        return set()
    with ctx.session_state.query_params() as qp:
        return set(qp._initial_query_params) - {PARAM}


def _go(step: int | None) -> None:
    """A button's move: to ``step``, or out of the guide (None), keeping every control as it is."""
    if step is None:
        if PARAM in st.query_params:
            del st.query_params[PARAM]
        st.session_state.pop(_APPLIED, None)
        return
    st.query_params[PARAM] = str(step)
    applied = st.session_state.get(_APPLIED)
    st.session_state[_APPLIED] = (_page(), None) if applied is None else applied  # a move: apply the whole view


def _draw(steps: Sequence[Step], step: int) -> None:
    current, count = steps[step - 1], len(steps)
    with st.container(border=True, key="guide_panel", gap="small"):
        # the panel's heading, for eyes and screen readers (h2 under the page title: no level skipped)
        st.markdown("## :material/route: " + _("Step {step} of {count}").format(step=step, count=count)
                    + f" · {_(current.title)}")
        box = st.empty()  # what to notice and the task, filled again by ``report`` when the task is done
        box.markdown(_words(current, False))
        if current.task and current.check:
            _TASK.set(_Task(_this_run(), current.check, current, box))
        row = st.container(horizontal=True, gap="small", key="guide_buttons")
        row.button(pgettext("guide step", "Back"), key="guide_back", icon=":material/arrow_back:", disabled=step == 1,
                   on_click=_go, args=(step - 1,))
        if step < count:
            row.button(pgettext("guide step", "Next"), key="guide_next", icon=":material/arrow_forward:",
                       type="primary", on_click=_go, args=(step + 1,))
        if row.button(_("Leave the guide"), key="guide_leave", icon=":material/close:",
                      help=_("Close the guide; the controls keep their values, so you can go on exploring.")):
            _go(None)
            st.rerun(scope="app")  # the lesson's fragment alone would leave the title without its Guide me


def _words(step: Step, done: bool) -> str:
    """What to notice, then the task on its own line: "Your turn", or "Done." with a check mark once it holds."""
    if not step.task:
        return _(step.say)
    mark = (":green[:material/check_circle: **" + _("Done.") + "**]" if done else
            ":material/touch_app: **" + _("Your turn:") + "**")
    return f"{_(step.say)}  \n{mark} {_(step.task)}"
