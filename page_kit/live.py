"""The live class in the app: start or join a room, the projector's join code, followers, the room's poll.

Membership lives in the session and in the URL (``room``, and ``seat`` for a student or ``key`` for the
teacher), so a reload, or a reconnect to another replica after one restarted, rejoins the same seat: nothing
is counted twice. The join link on the projector carries the room code only; the teacher key never leaves
the teacher's link. Open pages learn what changed from a fragment that reads the room every POLL_S seconds
(a reveal reruns the page; a teacher who moves to another lesson or tab takes followers there).
"""

from __future__ import annotations

import json
from urllib.parse import urlencode, urlsplit

import streamlit as st

from live_class import ClassError, Classroom, open_store
from live_class.rooms import new_seat, normal_code, valid_seat

POLL_S = 1.0
MEMBERSHIP = ("room", "seat", "key", "follow")  # URL parameters of the class, never part of a lesson's view
_NOT_VIEW = MEMBERSHIP + ("present",)            # the teacher's presentation mode is not sent to followers
ss = st.session_state


@st.cache_resource
def classroom() -> Classroom:
    """One store per process: SQLite by default, Redis when POSENC_REDIS_URL is set (live_class.rooms)."""
    return Classroom(open_store())


def code() -> str | None:
    return ss.get("live_code")


def teacher() -> bool:
    return bool(code() and ss.get("live_key"))


def seat() -> str | None:
    return ss.get("live_seat") if code() and not teacher() else None


def revealed(question: str) -> bool:
    state = ss.get("live_state")
    return bool(state and question in state.revealed)


def _enter(room: str, key: str | None, student_seat: str | None, nickname: str | None = None) -> None:
    """Join as teacher (with the key) or student (with an optional nickname, for the teacher's eyes only); a
    ClassError says why not, in the sidebar."""
    room = normal_code(room)
    classroom().room(room)  # a wrong or expired code says so
    if key:
        if not classroom().is_teacher(room, key):
            raise ClassError(f"This teacher link's key does not open room {room}.")
        ss.update(live_code=room, live_key=key, live_seat=None)
        return
    student_seat = student_seat if valid_seat(student_seat) else new_seat()
    classroom().join(room, student_seat, nickname)
    # the class panel's nickname field starts from the stored one (a reload keeps the seat, and so its nickname)
    ss.update(live_code=room, live_key=None, live_seat=student_seat,
              live_nickname=classroom().nickname(room, student_seat))


def _leave(message: str | None = None) -> None:
    for name in ("live_code", "live_key", "live_seat", "live_state", "live_followed", "live_follow",
                 "live_published", "live_nickname", "live_roster"):
        ss.pop(name, None)
    for name in MEMBERSHIP:
        if name in st.query_params:
            del st.query_params[name]
    ss["live_message"] = message


def _membership() -> dict[str, str]:
    params = {"room": code()}
    if teacher():
        params["key"] = ss["live_key"]
    else:
        params["seat"] = ss["live_seat"]
        if ss.get("live_follow"):
            params["follow"] = "true"
    return params


def begin() -> None:
    """Before the page: adopt a class link, read the room once for this run, keep the URL's membership."""
    if code() is None and st.query_params.get("room") and not ss.get("live_message"):
        try:
            _enter(st.query_params["room"], st.query_params.get("key"), st.query_params.get("seat"))
            ss["live_follow"] = st.query_params.get("follow") == "true" and not teacher()
        except ClassError as error:
            _leave(str(error))
    if code() is None:
        return
    try:
        ss["live_state"] = classroom().room(code())
    except ClassError as error:
        _leave(str(error))
        return
    keep_url()


def keep_url() -> None:
    """The class's parameters in the address bar (a page link from the sidebar starts with a bare URL)."""
    for name, value in _membership().items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value
    if "follow" in st.query_params and not ss.get("live_follow"):
        del st.query_params["follow"]


def _view(url_path: str) -> str:
    """The page and its URL state, without the class's own parameters: what followers open."""
    params = [(k, v) for k in st.query_params for v in st.query_params.get_all(k) if k not in _NOT_VIEW]
    return url_path + ("?" + urlencode(params) if params else "")


def _where(view: str) -> tuple[str, str]:
    """A view's lesson and tab: followers move when these change, not on every slider the teacher touches."""
    parts = urlsplit(view)
    tab = next((v for k, v in (p.split("=", 1) for p in parts.query.split("&") if "=" in p) if k == "view"), "")
    return parts.path, tab


def watch(url_path: str) -> None:
    """The teacher's view goes to the room; a student's page polls it. Drawn in the sidebar, which is the same
    on every page: a timed fragment's rerun that arrives just after a page change then still finds its place
    (at the end of the main area, the next page's elements are elsewhere and the browser rejects the update)."""
    if code() is None:
        return
    ss["live_page"] = url_path
    if teacher():
        _publish(url_path)
    else:
        _poll()


@st.fragment(run_every=POLL_S)
def _publish(url_path: str) -> None:
    """Every POLL_S s, since a lesson's tabs and sliders rerun only the lesson's own fragment."""
    publish(url_path)


def publish(url_path: str) -> None:
    """The teacher's view, written to the room when it changed."""
    if not teacher():
        return
    view = _view(url_path)
    if view != ss.get("live_published"):
        try:
            classroom().show(code(), ss["live_key"], view)
            ss["live_published"] = view
        except ClassError as error:
            _leave(str(error))
            st.rerun(scope="app")


def _go(view: str) -> None:
    """Open the teacher's view in this browser: a new page load, so every control takes the URL's state."""
    path, _, query = view.partition("?")
    target = path + "?" + "&".join(part for part in (query, urlencode(_membership())) if part)
    st.html("<script>(() => { const parts = window.location.pathname.split('/'); parts.pop(); "
            f"window.location.assign(parts.join('/') + '/' + {json.dumps(target)}); }})();</script>",
            unsafe_allow_javascript=True)


@st.fragment(run_every=POLL_S)
def _poll() -> None:
    """Every POLL_S s while in a room: a reveal reruns the page, the teacher's move takes followers along."""
    if code() is None:
        return
    try:
        state = classroom().room(code())
    except ClassError as error:
        _leave(str(error))
        st.rerun(scope="app")
    before, ss["live_state"] = ss.get("live_state"), state
    if ss.get("live_follow") and state.view and state.view != ss.get("live_followed"):
        ss["live_followed"] = state.view
        if _where(state.view) != _where(_view(ss.get("live_page", ""))):  # this browser's tab, as of now
            _go(state.view)
            return
    if before is None or state.revealed != before.revealed:
        st.rerun(scope="app")
