"""The room's clock on every open page: the teacher's view sent to the room, a student's page kept up with it.

Both run as fragments every ``live.POLL_S`` in the sidebar, which is the same on every page: a timed fragment's
rerun that arrives just after a page change then still finds its place. A timed fragment in the main area does
not: its update lands on the next page's elements and Streamlit's frontend throws ("'setIn' cannot be called on
an ElementNode"), which leaves the page broken. So nothing in the main area has a timer: the teacher's counts
under each question and a student's "saving" note are drawn by the page's run, and the poll reruns the page
when what they show has changed (``RoomReading``, the outbox). A poll that cannot reach the store keeps the last
state it read and tries again on the next tick; it never ends the class on its own.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import streamlit as st

from live_class import ClassError, ClassUnreachable
from live_class.rules import Names
from live_class.store import RoomState
from page_kit import live
from page_kit.live import outbox as live_outbox

ss = st.session_state


@dataclass(frozen=True)
class RoomReading:
    """What the teacher's page shows under one question, as read from the store: the room's seats, reveals,
    rounds and end, the question's counts per round, the shift between the votes and, when asked, who answered."""
    seats: int
    revealed: frozenset[str]
    rounds: Mapping[str, int]
    ended: bool
    round: int
    counts: tuple[tuple[int, ...], ...]
    moved: tuple[int, int] | None = None
    names: tuple[Names, Names] | None = None


def read_room(question: str, options: Sequence[str], answer: int, state: RoomState | None = None) -> RoomReading:
    """The room as the teacher's row under ``question`` draws it (ClassError when it cannot be read); ``state``:
    the room as just read, for several questions at once."""
    room, key = live.code(), ss.get("live_key")
    state = state if state is not None else live.classroom().room(room)
    round = state.round_of(question)
    counts = tuple(tuple(live.classroom().counts(room, question, len(options), r)) for r in range(1, round + 1))
    moved = live.classroom().shift(room, key, question, answer) if round == 2 else None
    names = live.classroom().answered(room, key, question, round) if ss.get(f"live_who_{question}") else None
    return RoomReading(state.seats, state.revealed, dict(state.rounds), state.ended, round, counts, moved, names)


def drawn(question: str, options: Sequence[str], answer: int, reading: RoomReading) -> None:
    """The teacher's row under ``question`` shows ``reading``: the poll reruns the page when the room moves on."""
    ss.setdefault("live_watched", {})[question] = (tuple(options), answer)
    ss.setdefault("live_drawn", {})[question] = reading


def _room_moved() -> bool:
    """Whether any question's row on the teacher's page shows less than the room holds now."""
    shown, watched = ss.get("live_drawn", {}), ss.get("live_watched", {})
    if not watched:
        return False
    try:
        state = live.classroom().room(live.code())  # once for every question on the page
        return any(read_room(question, options, answer, state) != shown.get(question)
                   for question, (options, answer) in list(watched.items()))
    except ClassError:
        return False  # unreachable or ended: the rows' last readings stay, the sidebar says why


def watch(url_path: str) -> None:
    """The teacher publishes, a student (or a link that waits for the store) polls."""
    ss["live_page"] = url_path
    ss["live_watched"] = {}  # this run's questions register again as they are drawn
    if live.teacher():
        _publish(url_path)
    elif live.code() is not None or ss.get("live_pending"):
        _poll()


@st.fragment(run_every=live.POLL_S)
def _publish(url_path: str) -> None:
    """Every POLL_S s, since a lesson's tabs and sliders rerun only the lesson's own fragment; and the page again
    when a question's answers, its vote or its reveal moved on."""
    publish(url_path)
    if _room_moved():
        st.rerun(scope="app")


def publish(url_path: str) -> None:
    """The teacher's view, written to the room when it changed (tried again on the next tick if unreachable)."""
    if not live.teacher():
        return
    view = live.view(url_path)
    if view != ss.get("live_published"):
        try:
            live.classroom().show(live.code(), ss["live_key"], view)
            ss["live_published"] = view
        except ClassUnreachable:
            pass
        except ClassError as error:
            live.leave(str(error))
            st.rerun(scope="app")


def _heartbeat() -> None:
    """Now and then, the open page tells the room this seat is still here; a seat the room no longer holds
    (it went quiet and the room filled, or the teacher removed it) joins again or hears why not."""
    if time.monotonic() - ss.get("live_seen_at", 0.0) < live.HEARTBEAT_S:
        return
    ss["live_seen_at"] = time.monotonic()
    if not live.classroom().seen(live.code(), live.seat()):
        live.classroom().join(live.code(), live.seat(), None, live.client())


@st.fragment(run_every=live.POLL_S)
def _poll() -> None:
    """Every POLL_S s: a join that waits for the store, the outbox, the heartbeat, a reveal (reruns the page) and
    the teacher's move (takes followers along). An answer saved or a store back needs no run of the page: the
    question's note and this fragment's own sentence follow on their own ticks."""
    if ss.get("live_pending"):
        live.begin()
        if not ss.get("live_pending"):
            st.rerun(scope="app")
        return
    if live.code() is None:
        return
    try:
        waiting = dict(ss.get("live_outbox", {}))
        live_outbox.flush()
        if waiting and waiting != ss.get("live_outbox", {}):
            st.rerun(scope="app")  # a "saving" note under a question is now "saved" (or the refusal's sentence)
        _heartbeat()
        live.report_course()  # an answer inside a lesson's fragment changes it without a run of the app
        state = live.classroom().running(live.code())  # an ended class says so, and the student leaves it
    except ClassUnreachable:
        ss["live_unreachable"] = True
        st.info(live.UNREACHABLE)  # drawn by this fragment, so it comes and goes without a run of the page
        return
    except ClassError as error:
        live.leave(str(error))
        st.rerun(scope="app")
    before, ss["live_state"] = ss.get("live_state"), state
    ss.pop("live_unreachable", None)
    # a follower goes wherever this browser's lesson or tab is not the teacher's: compared on every tick, not
    # once per change, since the run that drew the move can be replaced by the browser's next run unseen
    here = live.where(live.view(ss.get("live_page", "")))
    if ss.get("live_follow", True) and state.view and live.where(state.view) != here:
        live.go(state.view)
        return
    if before is None or state.revealed != before.revealed or state.rounds != before.rounds:
        st.rerun(scope="app")  # a reveal opens answers, a second vote asks again: changes of the whole page
