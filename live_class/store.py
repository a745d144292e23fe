"""What a live-class backend stores, and the answers its methods give (both backends give the same ones).

A room is a code, the hash of its teacher key, the teacher's current view (a page and its URL state), whether
it is locked to new seats, its seats, the seats the teacher removed, the questions revealed to the room, and one
answer per seat and question (a later answer replaces the earlier one). Every write is "activity": a room expires
``ttl_s`` seconds after its last one, and an expired or closed room is gone with all its answers.

A seat is a token the server signed (``rooms``); it may carry a nickname (already checked by
``rooms.normal_nickname``), which only the teacher reads. A seat is *active* while its browser has been seen in
the last ``active_s`` seconds (a join, an answer, or the open page's heartbeat) and has not left: only active
seats count towards the room's cap and the teacher's "N joined". A seat that left or went quiet keeps its
answers and comes back to the same place; a seat the teacher removed loses its answers and cannot come back.

A store that cannot be reached in time (SQLite's write lock held elsewhere, Redis stopped or restarting) raises
one of the exceptions in its ``unreachable`` tuple; ``rooms.Classroom`` turns them into ``ClassUnreachable``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum


class Join(Enum):
    JOINED = "joined"     # a seat new to the room, or one that had left or gone quiet, active again
    ALREADY = "already"   # the same active seat again (a reload, a reconnect to another replica): counted once
    FULL = "full"
    LOCKED = "locked"     # the teacher locked the room to seats it does not hold yet
    REMOVED = "removed"   # the teacher removed this seat
    MISSING = "missing"   # no such room, or it expired or was closed


@dataclass(frozen=True)
class RoomState:
    key_hash: str
    view: str                   # "" until the teacher opens a page after starting
    revealed: frozenset[str]    # question keys the teacher revealed to the room
    seats: int                  # active seats
    locked: bool = False


@dataclass(frozen=True)
class Seat:
    """A seat as the teacher's roster lists it."""
    token: str
    nickname: str
    seen_s_ago: float


class Store(ABC):
    """One live-class backend. ``ttl_s``: seconds a room lives after its last write; ``active_s``: seconds a seat
    counts after its browser was last seen."""

    ttl_s: float
    active_s: float
    unreachable: tuple[type[BaseException], ...]

    @abstractmethod
    def secret(self) -> bytes:
        """A random secret made once and kept by the store, so every replica that shares it signs seats alike."""

    @abstractmethod
    def create(self, code: str, key_hash: str) -> bool:
        """Make an empty room; False when the code is already taken by a live room."""

    @abstractmethod
    def room(self, code: str) -> RoomState | None:
        """The room, or None when there is none under this code (never made, expired or closed)."""

    @abstractmethod
    def member(self, code: str, seat: str) -> bool:
        """Whether the seat ever joined this room (active or not) and was not removed."""

    @abstractmethod
    def join(self, code: str, seat: str, cap: int, nickname: str = "") -> Join:
        """Seat a student (or mark a known seat active again), unless ``cap`` seats are active already or the room
        is locked to new seats; a non-empty ``nickname`` is kept for the seat (it replaces an earlier one)."""

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
    def answered(self, code: str, question: str) -> frozenset[str]:
        """The seats that answered ``question``."""

    @abstractmethod
    def answer(self, code: str, seat: str, question: str, choice: int) -> bool:
        """Record (or replace) this seat's answer and mark the seat seen; False when the room is gone or the seat
        is not in it. Writing the same answer twice leaves the same state: a retry is always safe."""

    @abstractmethod
    def counts(self, code: str, question: str) -> dict[int, int]:
        """How many seats chose each option (only options someone chose)."""

    @abstractmethod
    def reveal(self, code: str, question: str) -> bool:
        """Show the answer to everyone in the room; False when the room is gone."""

    @abstractmethod
    def set_view(self, code: str, view: str) -> bool:
        """Record what the teacher shows, for followers; False when the room is gone."""

    @abstractmethod
    def close(self, code: str) -> None:
        """Delete the room and every answer in it."""

    @abstractmethod
    def hit(self, name: str, window_s: int) -> int:
        """Count one event under ``name`` (a seat's write, a client's new seat) in the current ``window_s``-second
        window; returns the count so far."""

    @abstractmethod
    def hits(self, name: str, window_s: int) -> int:
        """The count under ``name`` in the current window, without adding to it."""
