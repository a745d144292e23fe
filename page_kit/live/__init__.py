"""The live class in the app: start or join a room, followers, the room's poll, answers that are never lost.

Membership lives in the session and in the URL: ``room`` for everyone, ``seat`` (a token the server signed) for a
student, ``follow=false`` for a student who stopped following. A reload, or a reconnect to another replica after
one restarted, rejoins the same seat and reads its own answers back: nothing is counted twice. The teacher key is
never in the address bar (it is projected): the teacher's browser keeps it in a cookie as long as the class's
results are kept, so the teacher stays the teacher on any address of the app (a typed lesson address, the home
page) and can reopen an ended class from the same browser; a link that carries it (``key``, e.g. opened on a
second device) is adopted and the key removed from the address at once.

An answer goes to an outbox first and leaves it only once the store has taken it; while the store cannot be
reached (a lock held elsewhere, Redis stopped) the student's poll retries with backoff, and the question says
"saving", then "saved". Everything here catches the store's ``ClassUnreachable``: a lesson opened while the class
cannot be reached works as a lesson, with one sentence.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import time
from urllib.parse import urlencode, urlsplit

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from live_class import ClassError, Classroom, ClassUnreachable, open_store
from live_class.rooms import UNREACHABLE, keep_days, normal_code  # noqa: F401 (UNREACHABLE: the panel's)
from page_kit.i18n import _

POLL_S = 1.0
HEARTBEAT_S = 20.0   # a student's open page tells the room it is still there (rules.Limits.active_s: 90 s)
RETRY_MAX_S = 8.0    # the longest wait between two tries of an answer the store did not take
MEMBERSHIP = ("room", "seat", "key", "follow")  # URL parameters of the class, never part of a lesson's view
_NOT_VIEW = MEMBERSHIP + ("present", "lang")    # the teacher's presentation mode and language stay the teacher's
TEACHER_COOKIE = "posenc_teacher"
COURSE_STATE = "live_course"  # session state: this learner's course progress as their browser keeps it (lesson.course)
_COURSE_SENT = "live_course_sent"  # session state: the progress last sent to the room
PUBLIC_URL_ENV = "POSENC_PUBLIC_URL"   # the address students open, where the server's own is not theirs
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


def report_course() -> None:
    """A seated student's course progress, sent to the room when it changed, for the teacher's view of the
    room's progress (never outside a class). A store out of reach is asked again on the next tick."""
    progress, room, student = st.session_state.get(COURSE_STATE), code(), seat()
    if room is None or student is None or progress is None or progress == st.session_state.get(_COURSE_SENT):
        return
    try:
        classroom().report_course(room, student, progress)
    except ClassUnreachable:
        return
    except ClassError:
        pass  # not seated (any more): the poll's heartbeat says why; the same progress is not sent again
    st.session_state[_COURSE_SENT] = progress


def client() -> str:
    """Who is asking, for the join limits: the connection's address, or the browser's as a proxy the operator
    named reports it (page_kit/runtime/server_guard.py: no other forwarded header is believed)."""
    return st.context.ip_address or "loopback"


def browser() -> str:
    """This browser tab's session, for the limit on wrong codes: a guesser is held back, not the class that
    shares the guesser's address."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx else ""


def _cookie(value: str, max_age: int) -> None:
    """Set (or, with max_age 0, clear) the teacher-key cookie on this app's path; Secure where served over HTTPS."""
    st.html("<script>(() => { const parts = window.location.pathname.split('/'); parts.pop(); "
            f"document.cookie = {json.dumps(TEACHER_COOKIE + '=' + value)} + '; path=' + (parts.join('/') || '/') "
            f"+ '; max-age={max_age}; SameSite=Strict' + (window.location.protocol === 'https:' ? '; Secure' : ''); "
            "})();</script>", unsafe_allow_javascript=True)


def _kept() -> tuple[str, str] | None:
    """The room and teacher key this browser keeps (cookie ``CODE.key``), if any."""
    kept = st.context.cookies.get(TEACHER_COOKIE)
    if not isinstance(kept, str):  # no cookie (and no request at all under AppTest)
        return None
    room, _sep, key = kept.partition(".")
    return (room, key) if room and key else None


def _kept_key(room: str) -> str | None:
    """The teacher key this browser keeps for ``room``."""
    kept = _kept()
    return kept[1] if kept and kept[0] == room else None


def _enter(room: str, key: str | None, student_seat: str | None, nickname: str | None = None) -> None:
    """Join as teacher (with the key) or student (with an optional nickname, for the teacher's eyes only); a
    ClassError says why not."""
    room = normal_code(room)
    classroom().find(room, client(), browser(), student_seat)  # a wrong code says so (and counts for this browser)
    if key:
        if not classroom().is_teacher(room, key):
            raise ClassError(_("This teacher link's key does not open room {room}.").format(room=room))
        ss.update(live_code=room, live_key=key, live_seat=None, live_set_cookie=True)
        return
    if not classroom().valid_seat(student_seat):  # none in the link, or one the server never signed
        student_seat = ss.get("live_kept_seats", {}).get(room) or classroom().new_seat()  # left and back: same seat
    classroom().join(room, student_seat, nickname, client())
    # the class panel's nickname field starts from the stored one, and the questions from this seat's own answers
    # (a reload or a second tab keeps the seat, and so what it chose)
    mine = classroom().choices(room, student_seat)
    ss.update(live_code=room, live_key=None, live_seat=student_seat, live_follow=ss.get("live_follow", True),
              live_nickname=classroom().nickname(room, student_seat), live_seen_at=time.monotonic(),
              live_saved={(q, r): c for q, rounds in mine.items() for r, c in rounds.items()})


def leave(message: str | None = None) -> None:
    """Out of the room: its seat stops counting, the session and the address forget the class."""
    room, student = code(), seat()
    if room and student:
        ss.setdefault("live_kept_seats", {})[room] = student  # joining this room again in this tab takes it back
        if message:
            ss["live_notice"] = message  # said above the lesson too: a phone's sidebar is folded away
        try:
            classroom().leave(room, student)
        except ClassError:
            pass  # the room is gone or unreachable: the seat goes quiet on its own
    if teacher():
        ss["live_clear_cookie"] = True
    for name in ("live_code", "live_key", "live_seat", "live_state", "live_follow", "live_published",
                 "live_nickname", "live_roster", "live_outbox", "live_saved", "live_failed", "live_pending",
                 "live_unreachable", "live_described"):
        ss.pop(name, None)
    for name in MEMBERSHIP:
        if name in st.query_params:
            del st.query_params[name]
    ss["live_message"] = message


def _membership() -> dict[str, str]:
    params = {"room": code()}
    if not teacher():
        params["seat"] = ss["live_seat"]
        if not ss.get("live_follow", True):
            params["follow"] = "false"
    return params


def _adopt() -> None:
    """A class link (or this browser's teacher cookie) opens the room; a link's key leaves the address at once."""
    room = st.query_params.get("room", "")
    key = st.query_params.get("key") or None
    if "key" in st.query_params:
        del st.query_params["key"]
    try:
        classroom().find(room, client(), browser(), st.query_params.get("seat"))  # a wrong code counts
        normal = normal_code(room)
        key = key or _kept_key(normal)
        if st.query_params.get("follow") == "false":
            ss["live_follow"] = False
        _enter(normal, key, st.query_params.get("seat"))
        if ss.pop("live_pending", None):
            ss["live_message"] = None  # the store's sentence from the tries before: the class is reached now
    except ClassUnreachable as error:
        ss.update(live_pending=True, live_message=str(error))  # the poll tries again
    except ClassError as error:
        ss.pop("live_pending", None)
        leave(str(error))


def _teach_again() -> None:
    """A teacher who opens any address of the app (a typed lesson, the home page) is still the teacher of the
    room this browser keeps, running or ended, until they leave it."""
    kept = _kept()
    if kept is None or ss.get("live_left_teaching") or ss.get("live_kept_checked") == kept:
        return
    ss["live_kept_checked"] = kept  # a cookie of a deleted class is asked about once, not on every slider move
    try:
        if classroom().is_teacher(kept[0], kept[1]):
            ss.update(live_code=normal_code(kept[0]), live_key=kept[1], live_seat=None)
    except ClassError:
        pass  # a malformed cookie or a store out of reach: the page is a lesson


def begin() -> None:
    """Before the page: adopt a class link (or the teacher's kept room), read the room once for this run, keep
    the URL's membership."""
    if code() is None and st.query_params.get("room") and (ss.get("live_pending") or not ss.get("live_message")):
        _adopt()
    if code() is None and not st.query_params.get("room"):
        _teach_again()
    if ss.pop("live_set_cookie", False) and teacher():
        _cookie(f"{code()}.{ss['live_key']}", int(keep_days() * 86400))
    if ss.pop("live_clear_cookie", False):
        _cookie("", 0)
    if code() is None:
        return
    try:
        # a student's class that ended says so (and the student leaves it); the teacher's stays theirs to reopen
        ss["live_state"] = classroom().room(code()) if teacher() else classroom().running(code())
        ss.pop("live_unreachable", None)
    except ClassUnreachable:
        ss["live_unreachable"] = True  # the last state read stays; the poll reads again
    except ClassError as error:
        leave(str(error))
        return
    keep_url()


def keep_url() -> None:
    """The class's parameters in the address bar (a page link from the sidebar starts with a bare URL)."""
    for name, value in _membership().items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value
    for name in ("follow", "key", "seat"):
        if name in st.query_params and name not in _membership():
            del st.query_params[name]


def _loopback(host: str | None) -> bool:
    if not host or host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@st.cache_resource(ttl=300)
def network_address() -> str | None:
    """This machine's address on its network (the interface its default route leaves by), None without one.
    A UDP socket's connect sends nothing: it only picks the route."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered, only routed
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if ipaddress.ip_address(address).is_loopback else address


def base_url() -> tuple[str, bool]:
    """The app's address for students, and whether a phone can open it: POSENC_PUBLIC_URL when the operator set
    it; else the address this browser used, with a loopback host (localhost) replaced by the machine's network
    address; False when only a loopback address is known."""
    public = os.environ.get(PUBLIC_URL_ENV, "").strip()
    if public:
        return public.rstrip("/") + "/", True
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    base = f"{parts.path.rsplit('/', 1)[0]}/"
    if not _loopback(parts.hostname):
        return f"{parts.scheme}://{parts.netloc}{base}", True
    found = network_address()
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{found or parts.hostname}{port}{base}", found is not None


def join_link() -> str:
    """The address students open: the app's address for students with the room code only (never the key)."""
    return f"{base_url()[0]}?room={code()}"


def view(url_path: str) -> str:
    """The page and its URL state, without the class's own parameters: what followers open."""
    params = [(k, v) for k in st.query_params for v in st.query_params.get_all(k) if k not in _NOT_VIEW]
    return url_path + ("?" + urlencode(params) if params else "")


def where(view: str) -> tuple[str, str, str]:
    """A view's lesson, tab and guide step (page_kit.lesson.guide): followers move when these change, not on every
    slider the teacher touches."""
    parts = urlsplit(view)
    params = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p)  # the last of a repeated key
    return parts.path, params.get("view", ""), params.get("guide", "")


def go(view: str) -> None:
    """Open the teacher's view in this browser: a new page load, so every control takes the URL's state."""
    path, _sep, query = view.partition("?")
    target = path + "?" + "&".join(part for part in (query, urlencode(_membership())) if part)
    st.html("<script>(() => { const parts = window.location.pathname.split('/'); parts.pop(); "
            f"window.location.assign(parts.join('/') + '/' + {json.dumps(target)}); }})();</script>",
            unsafe_allow_javascript=True)
