"""What a live-class backend stores, and the answers its methods give (both backends give the same ones).

A room is a code, the hash of its teacher key, the teacher's current view (a page and its URL state), whether
it is locked to new seats or ended, its seats, the seats the teacher removed, the questions revealed to the room,
the round each question is in (1, or 2 once the teacher opened the second vote), what each question asked (its
``QuestionInfo``, kept as the teacher's page wrote it, so results read after the lesson still name its options)
and one answer per seat, question and round, with the time it was given (a later answer in the same round replaces
the earlier one). Every write is "activity"; a room is kept ``ttl_s`` seconds after its last one (the results'
retention, weeks) and then goes whole, with all its answers; ``delete`` removes it at once.

Time is the store's clock: Redis reads its server's (every replica agrees), SQLite the process's; both add
``clock_offset_s`` (``POSENC_CLASS_CLOCK_OFFSET_S``), which lets a test see the same room a day later.

A seat is a token the server signed (``rooms``); it may carry a nickname (already checked by
``rules.normal_nickname``), which only the teacher reads. A seat is *active* while its browser has been seen in
the last ``active_s`` seconds (a join, an answer, or the open page's heartbeat) and has not left: only active
seats count towards the room's cap and the teacher's "N joined". A seat that left or went quiet keeps its
answers and comes back to the same place; a seat the teacher removed loses its answers and cannot come back.

A store that cannot be reached in time (SQLite's write lock held elsewhere, Redis stopped or restarting) raises
one of the exceptions in its ``unreachable`` tuple; ``rooms.Classroom`` turns them into ``ClassUnreachable``.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

CLOCK_OFFSET_ENV = "POSENC_CLASS_CLOCK_OFFSET_S"


def clock_offset_s() -> float:
    """Seconds added to the store's clock (0 unless a test sets POSENC_CLASS_CLOCK_OFFSET_S)."""
    try:
        return float(os.environ.get(CLOCK_OFFSET_ENV, 0) or 0)
    except ValueError:
        return 0.0


class Join(Enum):
    JOINED = "joined"     # a seat new to the room, or one that had left or gone quiet, active again
    ALREADY = "already"   # the same active seat again (a reload, a reconnect to another replica): counted once
    FULL = "full"
    LOCKED = "locked"     # the teacher locked the room to seats it does not hold yet
    REMOVED = "removed"   # the teacher removed this seat
    ENDED = "ended"       # the teacher ended the class (its results are kept; the teacher may reopen it)
    MISSING = "missing"   # no such room, or it was deleted or its retention passed


class Answered(Enum):
    SAVED = "saved"
    NOT_SEATED = "not_seated"  # the room is gone, or the seat is not in it
    REVEALED = "revealed"      # the teacher revealed the question: its votes are closed
    OTHER_ROUND = "round"      # the question is in another round than the one answered
    ENDED = "ended"            # the class ended


@dataclass(frozen=True)
class RoomState:
    key_hash: str
    view: str                   # "" until the teacher opens a page after starting
    revealed: frozenset[str]    # question keys the teacher revealed to the room
    seats: int                  # active seats
    locked: bool = False
    rounds: Mapping[str, int] = field(default_factory=dict)  # questions in their second round -> 2
    ended: bool = False         # the teacher ended the class
    idle_s: float = 0.0         # seconds since the room's last activity, on the store's clock

    def round_of(self, question: str) -> int:
        return self.rounds.get(question, 1)


@dataclass(frozen=True)
class Seat:
    """A seat as the teacher's roster lists it."""
    token: str
    nickname: str
    seen_s_ago: float


@dataclass(frozen=True)
class AnswerRow:
    """One answer as kept: the question, its round (1 or 2), the seat, the option's index and when (Unix seconds,
    on the store's clock)."""
    question: str
    round: int
    seat: str
    choice: int
    at: float


@dataclass(frozen=True)
class RoomDump:
    """Everything a room keeps, read at once for its results: the state, every answer (by question, round and
    time), seat -> nickname, question -> its ``QuestionInfo`` as JSON text, and seat -> the course progress its
    browser reported (the app's progress cookie text, opaque here)."""
    state: RoomState
    answers: tuple[AnswerRow, ...]
    nicknames: Mapping[str, str]
    questions: Mapping[str, str]
    courses: Mapping[str, str] = field(default_factory=dict)


class Store(ABC):
    """One live-class backend. ``ttl_s``: seconds a room is kept after its last write; ``active_s``: seconds a
    seat counts after its browser was last seen."""

    ttl_s: float
    active_s: float
    unreachable: tuple[type[BaseException], ...]

    @abstractmethod
    def now(self) -> float:
        """The store's clock (Unix seconds, offset included)."""

    @abstractmethod
    def secret(self) -> bytes:
        """A random secret made once and kept by the store, so every replica that shares it signs seats alike."""

    @abstractmethod
    def create(self, code: str, key_hash: str) -> bool:
        """Make an empty room; False when the code is already taken by a kept room."""

    @abstractmethod
    def room(self, code: str) -> RoomState | None:
        """The room, or None when there is none under this code (never made, deleted, or past its retention)."""

    @abstractmethod
    def member(self, code: str, seat: str) -> bool:
        """Whether the seat ever joined this room (active or not) and was not removed."""

    @abstractmethod
    def join(self, code: str, seat: str, cap: int, nickname: str = "") -> Join:
        """Seat a student (or mark a known seat active again), unless the class ended, ``cap`` seats are active
        already or the room is locked to new seats; a non-empty ``nickname`` is kept (it replaces an earlier one)."""

    @abstractmethod
    def seen(self, code: str, seat: str) -> bool:
        """The seat's browser is still there (its page's heartbeat); False when it is not seated here."""

    @abstractmethod
    def leave(self, code: str, seat: str) -> None:
        """The seat stops counting at once; its answers and nickname stay, and a join brings it back."""

    @abstractmethod
    def remove(self, code: str, seat: str) -> bool:
        """The teacher removes a seat: its answers and nickname go, and it cannot join again."""

    @abstractmethod
    def lock(self, code: str, locked: bool) -> bool:
        """Close (or open) the room to seats it does not hold yet; False when the room is gone."""

    @abstractmethod
    def seats(self, code: str) -> list[Seat]:
        """The active seats, most recently seen first."""

    @abstractmethod
    def set_nickname(self, code: str, seat: str, nickname: str) -> bool:
        """Give a seated student a nickname ("" removes it); False when the room is gone or the seat never joined."""

    @abstractmethod
    def nicknames(self, code: str) -> dict[str, str]:
        """Seat -> nickname, for the seats that have one."""

    @abstractmethod
    def set_course(self, code: str, seat: str, progress: str) -> bool:
        """A seated student's course progress, as their browser reports it ("" removes it); False when the room is
        gone or the seat never joined."""

    @abstractmethod
    def answered(self, code: str, question: str, round: int = 1) -> frozenset[str]:
        """The seats that answered ``question`` in ``round``."""

    @abstractmethod
    def votes(self, code: str, question: str, round: int = 1) -> dict[str, int]:
        """Seat -> option, of the seats that answered ``question`` in ``round``."""

    @abstractmethod
    def answer(self, code: str, seat: str, question: str, round: int, choice: int) -> Answered:
        """Record (or replace) this seat's answer in ``round`` and mark the seat seen, only while the class runs,
        the question is in that round and not revealed. Writing the same answer twice leaves the same state: a
        retry is always safe."""

    @abstractmethod
    def choices(self, code: str, seat: str) -> dict[tuple[str, int], int]:
        """This seat's own answers: (question, round) -> option."""

    @abstractmethod
    def counts(self, code: str, question: str, round: int = 1) -> dict[int, int]:
        """How many seats chose each option in ``round`` (only options someone chose)."""

    @abstractmethod
    def reveal(self, code: str, question: str) -> bool:
        """Show the answer to everyone in the room (its votes close); False when the room is gone."""

    @abstractmethod
    def open_round(self, code: str, question: str, round: int) -> bool:
        """Move an unrevealed question to ``round`` (its earlier rounds close); False when the room is gone or
        the question was revealed."""

    @abstractmethod
    def describe(self, code: str, question: str, info: str) -> bool:
        """Keep what ``question`` asks (its ``QuestionInfo`` as JSON); False when the room is gone."""

    @abstractmethod
    def set_view(self, code: str, view: str) -> bool:
        """Record what the teacher shows, for followers; False when the room is gone."""

    @abstractmethod
    def end(self, code: str, ended: bool) -> bool:
        """End the class (seats can no longer join or answer; its results are kept) or reopen it."""

    @abstractmethod
    def dump(self, code: str) -> RoomDump | None:
        """Everything the room keeps, for its results; None when it is gone."""

    @abstractmethod
    def delete(self, code: str) -> None:
        """Delete the room and everything in it, for good."""

    @abstractmethod
    def hit(self, name: str, window_s: float, limit: int) -> bool:
        """Count one event under ``name`` if fewer than ``limit`` were counted in the last ``window_s`` seconds
        (a sliding window, checked and counted at once); False, counting nothing, when the limit is reached."""

    @abstractmethod
    def hits(self, name: str, window_s: float) -> int:
        """How many events under ``name`` in the last ``window_s`` seconds."""
