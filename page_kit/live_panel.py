"""What the live class draws: the sidebar's room panel, the projector's join code, and the room's side of
every predict-then-reveal question (a student's answer recorded; the teacher's count, spread and reveal).

Nicknames reach the teacher's page only (the store gives them to the teacher key alone), behind toggles that
start off, since the teacher's screen is often the projector; they are drawn as escaped text, never markdown.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from urllib.parse import urlsplit

import segno
import streamlit as st

from live_class import ClassError
from live_class.rooms import MAX_NICKNAME_CHARS, Names

from . import live

ss = st.session_state


def _start() -> None:
    try:
        room, key = live.classroom().start()
    except ClassError as error:
        ss["live_message"] = str(error)
        return
    ss.update(live_code=room, live_key=key, live_seat=None, live_message=None, live_show_code=True)
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


def _end() -> None:
    try:
        live.classroom().close(live.code(), ss.get("live_key"))
    except ClassError:
        pass  # already gone: leaving is all that is left
    live._leave("The class has ended; its answers are deleted.")


def join_link() -> str:
    """The address students open: this app's base address with the room code only (never the key)."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    base = parts.path.rsplit("/", 1)[0]
    return f"{parts.scheme}://{parts.netloc}{base}/?room={live.code()}"


@st.dialog("Join the class", width="large")
def join_code() -> None:
    """For the projector: the code in large letters, the link and its QR code (drawn here, no network)."""
    link = join_link()
    # an <img> of the SVG (st.html's sanitiser drops inline SVG): black on white in either theme, as scanners want
    qr = segno.make(link, error="m").svg_data_uri(scale=7, dark="#000000", light="#ffffff")
    # sizes follow the window: large on a projector, the code still on one line on a 390 px phone
    st.html(f'<div style="display:flex;gap:2rem;align-items:center;flex-wrap:wrap">'
            f'<img src="{qr}" alt="QR code of the join link" class="live-qr" '
            f'style="width:clamp(200px,30vw,380px);height:auto"><div>'
            f'<p style="margin:0">Room code</p><p class="live-code" style="font-size:clamp(2.5rem,14vw,6rem);'
            f'font-weight:700;letter-spacing:0.3rem;margin:0;line-height:1.1">{html.escape(live.code())}</p>'
            f'<p style="margin:0;overflow-wrap:anywhere">or open <code>{html.escape(link)}</code></p></div></div>')


def open_from_bar(url_path: str) -> None:
    """The presentation bar's Class button: start a room when there is none, then show its join code."""
    if not live.teacher():
        _start()
        live.publish(url_path)  # the sidebar's poll was drawn before this click: followers need the page now
    if live.teacher():
        join_code()


_NAME_STYLE = ("display:inline-block;padding:0 0.4rem;margin:0 0.25rem 0.25rem 0;border-radius:0.6rem;"
               "border:1px solid rgba(128,128,128,0.5)")


def _names(label: str, names: Names) -> str:
    """One line of nicknames as HTML: each escaped, so a nickname is only ever its own text."""
    chips = [f'<span class="live-name" style="{_NAME_STYLE}">{html.escape(n)}</span>' for n in names.named]
    if names.anonymous:
        chips.append(f'<span style="white-space:nowrap">{names.anonymous} anonymous</span>')
    return f'<p style="margin:0 0 0.3rem 0"><strong>{label}</strong> {" ".join(chips) or "nobody"}</p>'


@st.fragment(run_every=live.POLL_S)
def _roster() -> None:
    """Who has joined, for the teacher, read again every POLL_S seconds while the toggle is on."""
    try:
        names = live.classroom().roster(live.code(), ss.get("live_key"))
    except ClassError:
        return  # the room ended: the next full run says so
    st.html(f'<div class="live-roster">{_names(f"Joined ({len(names.named) + names.anonymous}):", names)}</div>')


def _student_panel() -> None:
    st.caption(f"You are in room **{live.code()}**. No other student sees your answers or your nickname.")
    with st.form("live_nickname_form", border=False, enter_to_submit=True):
        st.text_input("Nickname (optional, only the teacher sees it)", key="live_nickname",
                      max_chars=MAX_NICKNAME_CHARS, placeholder="anonymous")
        st.form_submit_button("Save nickname", on_click=_rename)
    st.toggle("Follow the teacher", key="live_follow",
              help="Opens the lesson and tab the teacher shows, when the teacher moves on.")
    st.button("Leave the class", icon=":material/logout:", key="live_leave", on_click=live._leave)


def sidebar(url_path: str) -> None:
    """Start or join a class; in a class, its state and the one-click ways out (``url_path``: this page)."""
    with st.sidebar, st.container(key="live_panel"):
        st.markdown("**Live class**")
        if ss.get("live_message"):
            st.info(ss["live_message"])
        state = ss.get("live_state")
        if live.teacher() and state:
            st.caption(f"You teach room **{live.code()}** · {state.seats} joined.")
            if st.button("Show the join code", icon=":material/qr_code_2:", key="live_show"):
                join_code()
            if st.toggle("Who joined", key="live_roster", help="The nicknames of who has joined (the others count "
                         "as anonymous). Only your screen shows them: keep this off while the sidebar is projected."):
                _roster()
            st.button("End the class", icon=":material/logout:", key="live_end", on_click=_end,
                      help="Closes the room for everyone and deletes its answers.")
        elif live.code() and state:
            _student_panel()
        else:
            with st.form("live_join_form", border=False, enter_to_submit=True):
                st.text_input("Room code", key="live_join_code", max_chars=12, placeholder="e.g. K7RAX")
                st.text_input("Nickname (optional)", key="live_join_nickname", max_chars=MAX_NICKNAME_CHARS,
                              placeholder="anonymous", help="Only the teacher sees it; no other student does.")
                st.form_submit_button("Join", icon=":material/login:", on_click=_join)
            st.button("Start a class", icon=":material/co_present:", key="live_start", on_click=_start,
                      help="A room for this class: a code and QR code for the projector; the answers gathered.")
        live.watch(url_path)
    if ss.pop("live_show_code", False):
        join_code()


def record(question: str, options: Sequence[str], picked: str | None) -> None:
    """A student's answer, sent to the room once per change (a rerun without a change sends nothing)."""
    student = live.seat()
    if student is None or picked is None:
        return
    choice = list(options).index(picked)
    if ss.get(f"live_sent_{question}") == choice:
        return
    try:
        live.classroom().answer(live.code(), student, question, choice, len(options))
        ss[f"live_sent_{question}"] = choice
    except ClassError as error:
        st.warning(str(error))


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
    except ClassError:
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
        st.html(f'<div class="live-who">{_names("Answered:", done)}{_names("Not yet:", waiting)}</div>')
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
