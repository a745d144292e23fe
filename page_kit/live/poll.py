"""The room's clock on every open page: the teacher's view sent to the room, a student's page kept up with it.

Both run as fragments every ``live.POLL_S`` in the sidebar, which is the same on every page: a timed fragment's
rerun that arrives just after a page change then still finds its place (at the end of the main area, the next
page's elements are elsewhere and the browser rejects the update). A poll that cannot reach the store keeps the
last state it read and tries again on the next tick; it never ends the class on its own.
"""

from __future__ import annotations

import time

import streamlit as st

from live_class import ClassError, ClassUnreachable
from page_kit import live
from page_kit.live import outbox as live_outbox

ss = st.session_state


def watch(url_path: str) -> None:
    """The teacher publishes, a student (or a link that waits for the store) polls."""
    ss["live_page"] = url_path
    if live.teacher():
        _publish(url_path)
    elif live.code() is not None or ss.get("live_pending"):
        _poll()


@st.fragment(run_every=live.POLL_S)
def _publish(url_path: str) -> None:
    """Every POLL_S s, since a lesson's tabs and sliders rerun only the lesson's own fragment."""
    publish(url_path)


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
        live_outbox.flush()
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
