"""The class's results for its teacher: a room view that names nobody (safe on the projector) and a seats view
with nicknames and who may need help, each question's votes side by side, and the two CSV downloads.

Read once when the dialog opens (and again on "Refresh"): the whole room in one read of the store
(``Classroom.results``), the numbers from ``live_class.results``.
"""

from __future__ import annotations

import html

import streamlit as st

from live_class import ClassError
from live_class import results as class_results
from live_class.results import QuestionResult, RoomRecord
from page_kit import live
from page_kit.i18n import _, ngettext, number
from page_kit.live import spread

ss = st.session_state


def open_dialog() -> None:
    ss["live_results_open"] = True


def _percent(share: float | None) -> str:
    return "–" if share is None else _("{percent} %").format(percent=number(100 * share, 0))


def _question(result: QuestionResult) -> None:
    info = result.info
    title = info.text if info else result.question
    lesson = " · " + _("lesson {lesson}").format(lesson=info.lesson) if info and info.lesson else ""
    st.markdown(f"**{html.escape(title)}**")
    rounds = sorted(result.rounds)
    shares = " · ".join(_("vote {round}: {answered} answered, {percent} right").format(
        round=r, answered=result.rounds[r].answered, percent=_percent(result.rounds[r].share_right)) for r in rounds)
    st.caption(f"{shares}{lesson}" if info else shares + " " + _("(the question's text was not kept)") + lesson)
    options = info.options if info else tuple(_("option {n}").format(n=i + 1)
                                              for i in range(len(result.rounds[rounds[0]].counts)))
    moved = (result.wrong_to_right, result.right_to_wrong) if 2 in result.rounds and 1 in result.rounds else None
    st.html(spread.spread_html(options, [result.rounds[r].counts for r in rounds],
                                   info.answer if info and result.revealed else None, moved))
    if result.common_wrong is not None and info is not None:
        belief = " " + _("It stands for: {misconception}").format(misconception=result.misconception) \
            if result.misconception else ""
        st.caption(_("Most common wrong answer: “{answer}” ({n}).").format(
            answer=info.option(result.common_wrong), n=result.common_wrong_count) + belief)


def _room(record: RoomRecord) -> None:
    questions = class_results.question_results(record)
    if not questions:
        st.caption(_("Nobody has answered a question yet."))
    for result in questions:
        with st.container(border=True):
            _question(result)
    st.download_button(_("Summary per question (CSV)"), class_results.summary_csv(record),
                       file_name=f"class-{record.code}-summary.csv", mime="text/csv", icon=":material/download:",
                       key="live_summary_csv")


def _seats(record: RoomRecord) -> None:
    seats = class_results.seat_results(record)
    struggling = class_results.needs_help(seats)
    if struggling:
        listed = _(", ").join(_("{name} ({right} of {graded})").format(name=s.nickname or s.alias, right=s.right,
                                                                        graded=s.graded) for s in struggling)
        st.markdown(_("**May need help:** {names}").format(names=html.escape(listed)))
    order = record.question_order()
    rows = [{_("Seat"): s.alias, _("Nickname"): s.nickname, _("Right"): s.right, _("Graded"): s.graded,
             **{q: (record.questions[q].option(s.final[q]) if q in record.questions else s.final[q] + 1)
                if q in s.final else "" for q in order}} for s in seats]
    if rows:
        st.dataframe(rows, hide_index=True, width="stretch")
    else:
        st.caption(_("Nobody has answered a question yet."))
    st.download_button(_("Every answer (CSV)"), class_results.answers_csv(record),
                       file_name=f"class-{record.code}-answers.csv", mime="text/csv", icon=":material/download:",
                       key="live_answers_csv")


def dialog() -> None:
    """The dialog, titled in the teacher's language (a title given to st.dialog at import would be English)."""
    st.dialog(_("Class results"), width="large")(_dialog_body)()


def _dialog_body() -> None:
    try:
        record = live.classroom().results(live.code(), ss.get("live_key"))
    except ClassError as error:
        st.error(str(error))
        return
    seats = len({a.seat for a in record.answers})
    answers = len(record.answers)
    st.caption(" · ".join((_("Room **{code}**").format(code=record.code),
                           ngettext("{n} seat answered", "{n} seats answered", seats).format(n=seats),
                           ngettext("{n} answer kept.", "{n} answers kept.", answers).format(n=answers)))
               + " " + _("The room view names nobody; the seats view shows nicknames: keep it off the projector."))
    room, people = st.tabs([_("Room"), _("Seats (teacher only)")])
    with room:
        _room(record)
    with people:
        _seats(record)
    st.caption(_("Columns of the CSV files: README, *A live class*."))
