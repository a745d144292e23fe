"""A student's answers on their way to the room: kept in the session until the store has taken them.

``send`` puts an answer in the outbox and tries once; what the store did not take (``ClassUnreachable``) stays
and ``flush`` (the student's poll, every second) tries again after a backoff that doubles up to
``live.RETRY_MAX_S`` with jitter, so a room of students whose store came back do not all write in the same
instant. A write is idempotent per seat, question and round (the store keeps one answer each), so a try whose
reply was lost and is made again counts once. ``status`` says where an answer is: "saving", "saved", or the
sentence of a refusal (a limit, a seat the teacher removed, a vote the teacher closed).
"""

from __future__ import annotations

import random
import time

import streamlit as st

from live_class import ClassError, ClassUnreachable
from page_kit import live

ss = st.session_state


Vote = tuple[str, int]  # a question and its round (1, or 2 for the second vote)


def _outbox() -> dict[Vote, tuple[int, int]]:
    """(question, round) -> (choice, number of options), still to be written."""
    return ss.setdefault("live_outbox", {})


def saved(question: str, round: int) -> int | None:
    """The option this seat's answer in ``round`` has in the store (read back on joining, or since saved)."""
    return ss.get("live_saved", {}).get((question, round))


def send(question: str, choice: int, options: int, round: int = 1) -> None:
    """This seat's answer to ``question`` in ``round``, kept until the room has it (a repeat of the saved answer
    sends nothing)."""
    vote = (question, round)
    if saved(question, round) == choice and vote not in _outbox():
        return
    _outbox()[vote] = (choice, options)
    ss.setdefault("live_failed", {}).pop(vote, None)
    ss["live_retry_at"] = 0.0  # a new answer is tried now, whatever the backoff was
    flush()


def flush() -> bool:
    """Try every waiting answer once, if the backoff allows; True when at least one was taken."""
    outbox, room, student = _outbox(), live.code(), live.seat()
    if not outbox or room is None or student is None or time.monotonic() < ss.get("live_retry_at", 0.0):
        return False
    taken = False
    for vote, (choice, options) in list(outbox.items()):
        question, round = vote
        try:
            live.classroom().answer(room, student, question, choice, options, round)
        except ClassUnreachable:
            delay = min(live.RETRY_MAX_S, 2 * ss.get("live_retry_delay", 0.5))
            ss.update(live_retry_delay=delay, live_retry_at=time.monotonic() + delay * random.uniform(0.7, 1.0))
            return taken
        except ClassError as error:
            ss.setdefault("live_failed", {})[vote] = str(error)
            del outbox[vote]
            continue
        ss.setdefault("live_saved", {})[vote] = choice
        del outbox[vote]
        taken = True
    ss["live_retry_delay"] = 0.5
    return taken


def waiting() -> bool:
    return bool(ss.get("live_outbox"))


def status(question: str, round: int = 1) -> str | None:
    """"saving", "saved", a refusal's sentence, or None when this seat has not answered ``question`` in ``round``."""
    vote = (question, round)
    if vote in ss.get("live_outbox", {}):
        return "saving"
    if vote in ss.get("live_failed", {}):
        return ss["live_failed"][vote]
    return "saved" if vote in ss.get("live_saved", {}) else None
