"""What the live class draws: the sidebar's room panel, the projector's join code, the student's bar above the
lesson, and the room's side of every predict-then-reveal question (a student's answer saved; the teacher's
count, spread and reveal).

Nothing a person typed (a room code, a nickname) and nothing from the URL is drawn as markdown or HTML: sentences
quote typed text only through ``rules.shown``, and nicknames are escaped into ``st.html``. Nicknames reach the
teacher's page only (the store gives them to the teacher key alone), behind toggles that start off, since the
teacher's screen is often the projector.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import segno
import streamlit as st

from live_class import ClassError, ClassUnreachable
from page_kit import live
from page_kit.live import outbox as live_outbox
from page_kit.live import poll as live_poll
from page_kit.live import teacher_panel as live_teacher

ss = st.session_state


def _start() -> None:
    try:
        room, key = live.classroom().start()
    except ClassError as error:
        ss["live_message"] = str(error)
        return
    ss.update(live_code=room, live_key=key, live_seat=None, live_message=None, live_show_code=True,
              live_set_cookie=True)
    live.keep_url()


def _join() -> None:
    try:
        live._enter(ss.get("live_join_code", ""), None, None, ss.get("live_join_nickname"))
        ss["live_message"] = None
        live.keep_url()
    except ClassError as error:
        ss["live_message"] = str(error)


def _rename() -> None:
    try:
        ss["live_nickname"] = live.classroom().rename(live.code(), live.seat(), ss.get("live_nickname"))
        ss["live_message"] = None
    except ClassError as error:
        ss["live_message"] = str(error)


@st.fragment(run_every=live.POLL_S)
def _joined_count() -> None:
    state = ss.get("live_state")
    try:
        state = live.classroom().room(live.code())
    except ClassError:
        pass  # the last count read stays
    if state is not None:
        st.html(f'<p class="live-joined" style="margin:0;font-size:clamp(1.2rem,3vw,2rem)">'
                f'<strong>{state.seats}</strong> joined</p>')


@st.dialog("Join the class", width="large")
def join_code() -> None:
    """For the projector: the code in large letters, the link and its QR code (drawn here, no network), and how
    many have joined, counted as they do."""
    link = live.join_link()
    # an <img> of the SVG (st.html's sanitiser drops inline SVG): black on white in either theme, as scanners want
    qr = segno.make(link, error="m").svg_data_uri(scale=7, dark="#000000", light="#ffffff")
    # sizes follow the window: large on a projector, the code still on one line on a 390 px phone
    st.html(f'<div style="display:flex;gap:2rem;align-items:center;flex-wrap:wrap">'
            f'<img src="{qr}" alt="QR code of the join link" class="live-qr" '
            f'style="width:clamp(200px,30vw,380px);height:auto"><div>'
            f'<p style="margin:0">Room code</p><p class="live-code" style="font-size:clamp(2.5rem,14vw,6rem);'
            f'font-weight:700;letter-spacing:0.3rem;margin:0;line-height:1.1">{html.escape(live.code())}</p>'
            f'<p style="margin:0;overflow-wrap:anywhere">or open <code>{html.escape(link)}</code></p></div></div>')
    _joined_count()


def open_from_bar(url_path: str) -> None:
    """The presentation bar's Class button: start a room when there is none, then show its join code."""
    if not live.teacher():
        _start()
        live.begin()  # this run's class set-up came before the click: the key goes to the browser's cookie now
        live_poll.publish(url_path)  # the sidebar's poll was drawn before this click: followers need the page now
    if live.teacher():
        join_code()


def _student_panel() -> None:
    st.caption(f"You are in room **{live.code()}**. No other student sees your answers or your nickname.")
    with st.form("live_nickname_form", border=False, enter_to_submit=True):
        st.text_input("Nickname (optional, only the teacher sees it)", key="live_nickname", placeholder="anonymous")
        st.form_submit_button("Save nickname", on_click=_rename)
    st.button("Leave the class", icon=":material/logout:", key="live_leave", on_click=live.leave)


def sidebar(url_path: str) -> None:
    """Start or join a class; in a class, its state and the one-click ways out (``url_path``: this page)."""
    with st.sidebar, st.container(key="live_panel"):
        st.markdown("**Live class**")
        if ss.get("live_message"):
            st.info(ss["live_message"])  # sentences quote typed text only through rules.shown: no markup
        state = ss.get("live_state")
        if live.teacher() and state:
            live_teacher.panel(state, join_code)
        elif live.code() and state:
            _student_panel()
        elif not ss.get("live_pending"):
            with st.form("live_join_form", border=False, enter_to_submit=True):
                st.text_input("Room code", key="live_join_code", max_chars=12, placeholder="e.g. K7RAX")
                st.text_input("Nickname (optional)", key="live_join_nickname", placeholder="anonymous",
                              help="Only the teacher sees it; no other student does.")
                st.form_submit_button("Join", icon=":material/login:", on_click=_join)
            st.button("Start a class", icon=":material/co_present:", key="live_start", on_click=_start,
                      help="A room for this class: a code and QR code for the projector; the answers gathered.")
        live_poll.watch(url_path)
    if ss.pop("live_show_code", False):
        join_code()


def _toggle_follow() -> None:
    ss["live_follow"] = not ss.get("live_follow", True)
    live.keep_url()


def student_bar() -> None:
    """Above a student's lesson: the room, and the one control that stops (or starts) following the teacher."""
    if live.seat() is None or ss.get("live_state") is None:
        return
    following = ss.get("live_follow", True)
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key="live_student_bar")
    row.caption(f":material/groups: Room **{live.code()}**" + (" · following the teacher" if following else ""))
    row.button("Stop following" if following else "Follow the teacher", key="live_follow_button", type="tertiary",
               icon=":material/pause:" if following else ":material/play_arrow:", on_click=_toggle_follow,
               help="Following opens the lesson and tab the teacher shows, when the teacher moves on.")


def record(question: str, options: Sequence[str], picked: str | None) -> None:
    """A student's answer, sent to the room once per change and kept until the room has it."""
    if live.seat() is None or picked is None:
        return
    live_outbox.send(question, list(options).index(picked), len(options))


def _note(question: str, picked: str) -> str:
    state = live_outbox.status(question)
    if state == "saving":
        return (f"Saving your answer “{picked}”… The class cannot be reached just now; it is sent as soon as "
                "the class is back.")
    if state not in (None, "saved"):
        return state  # a refusal's sentence (a limit, a seat the teacher removed)
    return f"Your answer “{picked}” is saved. The teacher reveals the answer to the room."


@st.fragment(run_every=live.POLL_S)
def _saving_note(question: str, picked: str) -> None:
    """While an answer waits in the outbox: the note, read again every POLL_S s (the poll sends the answer), so
    "saving" turns to "saved" without a run of the whole page."""
    st.caption(_note(question, picked))


def answer_note(question: str, picked: str | None) -> None:
    """What a student in a room reads under the question until the teacher reveals it: no verdict yet."""
    if picked is None:
        st.caption("The teacher reveals the answer to the room once everyone has answered.")
    elif live_outbox.status(question) == "saving":
        _saving_note(question, picked)
    else:
        st.caption(_note(question, picked))


def _reveal(question: str) -> None:
    try:
        live.classroom().reveal(live.code(), ss.get("live_key"), question)
    except ClassError as error:
        ss["live_message"] = str(error)


def room_answers(question: str, options: Sequence[str]) -> None:
    """The teacher's view of one question, next to it (nothing, and no timer, for anyone else)."""
    if live.teacher():
        _room_answers(question, options)


@st.fragment(run_every=live.POLL_S)
def _room_answers(question: str, options: Sequence[str]) -> None:
    """How many answered, the spread on demand, reveal to the room: read again every POLL_S seconds."""
    if not live.teacher():
        return
    try:
        counts = live.classroom().counts(live.code(), question, len(options))
        state = live.classroom().room(live.code())
    except ClassError as error:
        if isinstance(error, ClassUnreachable):
            st.caption(str(error))
        return  # the room ended: the next full run says so in the sidebar
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"live_row_{question}")
    row.markdown(f":material/groups: **{sum(counts)}** of {state.seats} answered")
    done = question in state.revealed  # the count and the reveal first: they are what a class needs most
    if row.button("Revealed" if done else "Reveal to the room", key=f"live_reveal_{question}", disabled=done,
                  icon=":material/visibility:", type="primary", on_click=_reveal, args=(question,)):
        st.rerun(scope="app")
    spread = row.toggle("Spread", key=f"live_spread_{question}", help="The room's answers, per option.")
    who = row.toggle("Who", key=f"live_who_{question}", help="Nicknames of who answered and who has not yet. "
                     "Only your screen shows them: keep this off while projecting.")
    if who:
        try:
            done, waiting = live.classroom().answered(live.code(), ss.get("live_key"), question)
        except ClassError:
            return
        st.html(f'<div class="live-who">{live_teacher.names("Answered:", done)}'
                f'{live_teacher.names("Not yet:", waiting)}</div>')
    if spread:
        st.html(_spread(options, counts))


SPREAD_COLOUR = "#4c78a8"  # one blue, readable on the light and the dark theme (no hint of which option is right)


def _spread(options: Sequence[str], counts: Sequence[int]) -> str:
    """The room's answers as bars, each under its option's whole text (a chart axis cut the long ones short)."""
    most = max(max(counts), 1)
    rows = [f'<div style="margin:0 0 0.4rem 0"><div style="font-size:0.85rem;line-height:1.25">{html.escape(o)}'
            f'</div><div style="display:flex;align-items:center;gap:0.4rem"><div style="height:0.8rem;'
            f'width:{70 * n / most:.1f}%;min-width:2px;background:{SPREAD_COLOUR};border-radius:2px"></div>'
            f'<strong>{n}</strong></div></div>' for o, n in zip(options, counts, strict=True)]
    return f'<div class="live-spread" role="group" aria-label="The room\'s answers, per option">{"".join(rows)}</div>'

