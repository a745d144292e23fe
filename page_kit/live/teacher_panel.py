"""The teacher's side of the class panel: the room's active seats, locking it, removing a seat, ending it.

Who joined (nicknames) and the teacher link stay behind toggles that start off: the teacher's screen is often
the projector, and neither belongs on it.
"""

from __future__ import annotations

import html
from collections.abc import Callable

import streamlit as st

from live_class import ClassError
from live_class.rooms import Names
from live_class.store import RoomState
from page_kit import live

ss = st.session_state
_NAME_STYLE = ("display:inline-block;padding:0 0.4rem;margin:0 0.25rem 0.25rem 0;border-radius:0.6rem;"
               "border:1px solid rgba(128,128,128,0.5)")


def names(label: str, found: Names) -> str:
    """One line of nicknames as HTML: each escaped, so a nickname is only ever its own text."""
    chips = [f'<span class="live-name" style="{_NAME_STYLE}">{html.escape(n)}</span>' for n in found.named]
    if found.anonymous:
        chips.append(f'<span style="white-space:nowrap">{found.anonymous} anonymous</span>')
    return f'<p style="margin:0 0 0.3rem 0"><strong>{label}</strong> {" ".join(chips) or "nobody"}</p>'


def _end() -> None:
    try:
        live.classroom().close(live.code(), ss.get("live_key"))
    except ClassError:
        pass  # already gone, or unreachable (it then expires on its own): leaving is all that is left
    live.leave("The class has ended; its answers are deleted.")


def _lock() -> None:
    try:
        live.classroom().lock(live.code(), ss.get("live_key"), bool(ss.get("live_locked")))
    except ClassError as error:
        ss["live_message"] = str(error)


def _remove(token: str) -> None:
    try:
        live.classroom().remove(live.code(), ss.get("live_key"), token)
    except ClassError as error:
        ss["live_message"] = str(error)


@st.fragment(run_every=live.POLL_S)
def _roster() -> None:
    """Who is in the room now, read again every POLL_S seconds while the toggle is on; each seat removable."""
    try:
        seats = live.classroom().seats(live.code(), ss.get("live_key"))
    except ClassError:
        return  # the room ended or cannot be reached: the next full run says so
    found = Names.of([s.token for s in seats], {s.token: s.nickname for s in seats if s.nickname})
    st.html(f'<div class="live-roster">{names(f"Joined ({len(seats)}):", found)}</div>')
    if not seats:
        return
    labels = {s.token: f"{s.nickname or 'anonymous'} · seen {s.seen_s_ago:.0f} s ago · …{s.token[-4:]}"
              for s in seats}
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="small")
    chosen = row.selectbox("Remove a seat", list(labels), format_func=labels.get, index=None, key="live_remove_pick",
                           placeholder="a seat", help="Its answers are deleted and it cannot join again.")
    row.button("Remove", key="live_remove", icon=":material/person_remove:", disabled=chosen is None,
               on_click=_remove, args=(chosen,))


def panel(state: RoomState, join_code: Callable[[], None]) -> None:
    """The room for its teacher: active seats, the join code, lock, who joined, the teacher link, end."""
    locked = " · locked" if state.locked else ""
    st.caption(f"You teach room **{live.code()}** · {state.seats} in the room{locked}.")
    if st.button("Show the join code", icon=":material/qr_code_2:", key="live_show"):
        join_code()
    ss["live_locked"] = state.locked
    st.toggle("Lock the room", key="live_locked", on_change=_lock,
              help="No new students can join; those in the room stay, and can come back after a reload.")
    if st.toggle("Who joined", key="live_roster", help="The nicknames of who is in the room (the others count "
                 "as anonymous), and a way to remove a seat. Only your screen shows them: keep this off while the "
                 "sidebar is projected."):
        _roster()
    if st.toggle("Teacher link", key="live_teacher_link", help="Opens this room as its teacher on another device. "
                 "It holds the teacher key: keep it private, and this off while projecting."):
        st.code(f"{live.join_link()}&key={ss['live_key']}", language=None, wrap_lines=True)
    st.button("End the class", icon=":material/logout:", key="live_end", on_click=_end,
              help="Closes the room for everyone and deletes its answers.")

