"""A student's answers on their way to the room: kept in the session until the store has taken them.

``send`` puts an answer in the outbox and tries once; what the store did not take (``ClassUnreachable``) stays
and ``flush`` (the student's poll, every second) tries again after a backoff that doubles up to
``live.RETRY_MAX_S`` with jitter, so a room of students whose store came back do not all write in the same
instant. A write is idempotent per seat and question (the store keeps one answer per pair), so a try whose
reply was lost and is made again counts once. ``status`` says where an answer is: "saving", "saved", or the
sentence of a refusal (a limit, a seat the teacher removed).
"""

from __future__ import annotations

import random
import time

import streamlit as st

from live_class import ClassError, ClassUnreachable
from page_kit import live

ss = st.session_state


def _outbox() -> dict[str, tuple[int, int]]:
    """question -> (choice, number of options), still to be written."""
    return ss.setdefault("live_outbox", {})


def send(question: str, choice: int, options: int) -> None:
    """This seat's answer to ``question``, kept until the room has it (a repeat of the saved answer sends nothing)."""
    if ss.setdefault("live_saved", {}).get(question) == choice and question not in _outbox():
        return
    _outbox()[question] = (choice, options)
    ss.setdefault("live_failed", {}).pop(question, None)
    ss["live_retry_at"] = 0.0  # a new answer is tried now, whatever the backoff was
    flush()


def flush() -> bool:
    """Try every waiting answer once, if the backoff allows; True when at least one was taken."""
    outbox, room, student = _outbox(), live.code(), live.seat()
    if not outbox or room is None or student is None or time.monotonic() < ss.get("live_retry_at", 0.0):
        return False
    taken = False
    for question, (choice, options) in list(outbox.items()):
        try:
            live.classroom().answer(room, student, question, choice, options)
        except ClassUnreachable:
            delay = min(live.RETRY_MAX_S, 2 * ss.get("live_retry_delay", 0.5))
            ss.update(live_retry_delay=delay, live_retry_at=time.monotonic() + delay * random.uniform(0.7, 1.0))
            return taken
        except ClassError as error:
            ss.setdefault("live_failed", {})[question] = str(error)
            del outbox[question]
            continue
        ss.setdefault("live_saved", {})[question] = choice
        del outbox[question]
        taken = True
    ss["live_retry_delay"] = 0.5
    return taken


def waiting() -> bool:
    return bool(ss.get("live_outbox"))


def status(question: str) -> str | None:
    """"saving", "saved", a refusal's sentence, or None when this seat has not answered ``question``."""
    if question in ss.get("live_outbox", {}):
        return "saving"
    if question in ss.get("live_failed", {}):
        return ss["live_failed"][question]
    return "saved" if question in ss.get("live_saved", {}) else None
