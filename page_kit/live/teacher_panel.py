"""The teacher's side of the class panel: the room's active seats, locking it, removing a seat, its results and
their downloads, ending it (the results are kept), reopening it, deleting it for good.

Who joined (nicknames) and the teacher link stay behind toggles that start off, and the results open on the
room's view, which names nobody: the teacher's screen is often the projector, and names do not belong on it.
"""

from __future__ import annotations

import datetime
import html
import time
from collections.abc import Callable

import streamlit as st

from live_class import ClassError
from live_class.rooms import Names, keep_days
from live_class.store import RoomState
from page_kit import live
from page_kit.i18n import LANGUAGES, _, current, ngettext, number
from page_kit.live import results_view

ss = st.session_state
_NAME_STYLE = ("display:inline-block;padding:0 0.4rem;margin:0 0.25rem 0.25rem 0;border-radius:0.6rem;"
               "border:1px solid rgba(128,128,128,0.5)")


def names(label: str, found: Names) -> str:
    """One line of nicknames as HTML: each escaped, so a nickname is only ever its own text."""
    chips = [f'<span class="live-name" style="{_NAME_STYLE}">{html.escape(n)}</span>' for n in found.named]
    if found.anonymous:
        anonymous = ngettext("{n} anonymous", "{n} anonymous", found.anonymous).format(n=found.anonymous)
        chips.append(f'<span style="white-space:nowrap">{anonymous}</span>')
    return f'<p style="margin:0 0 0.3rem 0"><strong>{label}</strong> {" ".join(chips) or _("nobody")}</p>'


def act(method: str, *args) -> bool:
    """A teacher's action on the room (``Classroom.<method>(code, key, *args)``); a refusal's sentence goes to the
    class panel. Returns whether it was done."""
    try:
        getattr(live.classroom(), method)(live.code(), ss.get("live_key"), *args)
    except ClassError as error:
        ss["live_message"] = str(error)
        return False
    return True


def _days() -> tuple[str, int]:
    """How long an ended class's results are kept, as the reader's locale writes it, and the count that picks
    the words (a fraction of a day counts as several)."""
    days = keep_days()
    return number(days), int(days) if days == int(days) else 2


def _kept_until(state: RoomState) -> str:
    """The day an ended class's results go, in the reader's language (English: "07 Mar 2027", as always)."""
    when = time.time() + keep_days() * 86400 - state.idle_s
    language = current()
    if language == LANGUAGES[0]:
        return time.strftime("%d %b %Y", time.localtime(when))
    from babel.dates import format_date

    return format_date(datetime.date.fromtimestamp(when), "medium", locale=language.catalogue)


def _end() -> None:
    if act("end"):
        days, count = _days()
        ss["live_message"] = ngettext("The class has ended: nobody can join or answer. Its results are kept {days} "
                                      "day; you can reopen it until then.",
                                      "The class has ended: nobody can join or answer. Its results are kept {days} "
                                      "days; you can reopen it until then.", count).format(days=days)


def _reopen() -> None:
    if act("reopen"):
        ss["live_message"] = None


def _delete() -> None:
    if act("delete") or not ss.get("live_message"):
        live.leave(_("The class and all its answers are deleted."))


def _forget() -> None:
    """Leave the ended class in this browser (the teacher link still opens it until its results expire)."""
    live.leave(_("This browser has left the class. Its teacher link opens it again while its results are kept."))
    ss["live_left_teaching"] = True


def _lock() -> None:
    act("lock", bool(ss.get("live_locked")))


@st.fragment(run_every=live.POLL_S)
def _roster() -> None:
    """Who is in the room now, read again every POLL_S seconds while the toggle is on; each seat removable."""
    try:
        seats = live.classroom().seats(live.code(), ss.get("live_key"))
    except ClassError:
        return  # the room ended or cannot be reached: the next full run says so
    found = Names.of([s.token for s in seats], {s.token: s.nickname for s in seats if s.nickname})
    joined = _("Joined ({n}):").format(n=len(seats))
    st.html(f'<div class="live-roster">{names(joined, found)}</div>')
    if not seats:
        return
    labels = {s.token: (s.nickname or _("anonymous")) + " · "
              + _("seen {seconds} s ago").format(seconds=number(s.seen_s_ago, 0)) + f" · …{s.token[-4:]}"
              for s in seats}
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="small")
    chosen = row.selectbox(_("Remove a seat"), list(labels), format_func=labels.get, index=None,
                           key="live_remove_pick", placeholder=_("a seat"),
                           help=_("Its answers are deleted and it cannot join again."))
    row.button(_("Remove"), key="live_remove", icon=":material/person_remove:", disabled=chosen is None,
               on_click=lambda: act("remove", chosen))


def _teacher_link() -> None:
    if st.toggle(_("Teacher link"), key="live_teacher_link", help=_("Opens this class as its teacher on another "
                 "device, or later to read its results. It holds the teacher key: keep it private, and this off "
                 "while projecting.")):
        st.code(f"{live.join_link()}&key={ss['live_key']}", language=None, wrap_lines=True)


def _delete_control() -> None:
    confirmed = st.checkbox(_("Delete every answer of this class"), key="live_delete_sure",
                            help=_("For good: nobody, not even you, can read them again."))
    st.button(_("Delete the class"), icon=":material/delete_forever:", key="live_delete", disabled=not confirmed,
              on_click=_delete)


def _ended_panel(state: RoomState) -> None:
    st.caption(_("Class **{code}** has ended. Its results are kept until {date}.").format(
        code=live.code(), date=_kept_until(state)))
    row = st.container(horizontal=True, gap="small")
    row.button(_("Results"), icon=":material/leaderboard:", key="live_results", on_click=results_view.open_dialog)
    row.button(_("Reopen"), icon=":material/replay:", key="live_reopen", on_click=_reopen,
               help=_("Students can join and answer again; their seats and answers are where they were."))
    _teacher_link()
    _delete_control()
    st.button(_("Leave this class"), icon=":material/logout:", key="live_forget", on_click=_forget,
              help=_("This browser stops being its teacher; the teacher link opens it again."))


def panel(state: RoomState, join_code: Callable[[], None]) -> None:
    """The room for its teacher: active seats, the join code, lock, who joined, results, the teacher link, end."""
    if state.ended:
        _ended_panel(state)
    else:
        locked = " · " + _("locked") if state.locked else ""
        st.caption(_("You teach room **{code}** · {n} in the room{locked}.").format(
            code=live.code(), n=state.seats, locked=locked))
        row = st.container(horizontal=True, gap="small")
        if row.button(_("Join code"), icon=":material/qr_code_2:", key="live_show"):
            join_code()
        row.button(_("Results"), icon=":material/leaderboard:", key="live_results", on_click=results_view.open_dialog)
        ss["live_locked"] = state.locked
        st.toggle(_("Lock the room"), key="live_locked", on_change=_lock,
                  help=_("No new students can join; those in the room stay, and can come back after a reload."))
        if st.toggle(_("Who joined"), key="live_roster", help=_("The nicknames of who is in the room (the others "
                     "count as anonymous), and a way to remove a seat. Only your screen shows them: keep this off "
                     "while the sidebar is projected.")):
            _roster()
        _teacher_link()
        days, count = _days()
        st.button(_("End the class"), icon=":material/logout:", key="live_end", on_click=_end,
                  help=ngettext("Nobody can join or answer any more; the results are kept {days} day.",
                                "Nobody can join or answer any more; the results are kept {days} days.",
                                count).format(days=days))
    if ss.pop("live_results_open", False):
        results_view.dialog()
