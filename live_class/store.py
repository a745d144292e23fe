"""What a live-class backend stores, and the answers its methods give (both backends give the same ones).

A room is a code, the hash of its teacher key, the teacher's current view (a page and its URL state), the
seats that joined, the questions revealed to the room, and one answer per seat and question (a later answer
replaces the earlier one). Every write is "activity": a room expires ``ttl_s`` seconds after its last one, and
an expired or closed room is gone with all its answers. Seats are anonymous random tokens made by the server;
a seat may carry a nickname (already checked by ``rooms.normal_nickname``), which only the teacher reads.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum


class Join(Enum):
    JOINED = "joined"
    ALREADY = "already"   # the same seat again (a reload, a reconnect to another replica): counted once
    FULL = "full"
    MISSING = "missing"   # no such room, or it expired or was closed


@dataclass(frozen=True)
class RoomState:
    key_hash: str
    view: str                   # "" until the teacher opens a page after starting
    revealed: frozenset[str]    # question keys the teacher revealed to the room
    seats: int


class Store(ABC):
    """One live-class backend. ``ttl_s``: seconds a room lives after its last write."""

    ttl_s: float

    @abstractmethod
    def create(self, code: str, key_hash: str) -> bool:
        """Make an empty room; False when the code is already taken by a live room."""

    @abstractmethod
    def room(self, code: str) -> RoomState | None:
        """The room, or None when there is none under this code (never made, expired or closed)."""

    @abstractmethod
    def join(self, code: str, seat: str, cap: int, nickname: str = "") -> Join:
        """Seat a student, unless ``cap`` seats are taken already; a non-empty ``nickname`` is kept for the seat
        (also when it had joined already: a nickname typed on a second join replaces the first)."""

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
        """Record (or replace) this seat's answer; False when the room is gone or the seat never joined."""

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
    def hit(self, seat: str, window_s: int) -> int:
        """Count one write by ``seat`` in the current ``window_s``-second window; returns the count so far."""
