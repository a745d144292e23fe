"""The rules of a live class, whatever the backend: room codes, the teacher key, limits and validation.

- A room code is 5 characters from an alphabet without look-alikes (no 0/O, 1/I/L, 2/Z, 5/S, 6/G, 8/B), read
  off a projector and typed on a phone; case, spaces and dashes are forgiven.
- The teacher key is a random token in the teacher's link only; the store keeps its SHA-256, and every teacher
  action (reveal, show a page, close) checks it. A student's link has no key.
- A seat is an anonymous random token the server makes for a browser; answers are keyed by seat, so nobody
  answers for another without their token, and a changed answer replaces the old one.
- A seat may carry a nickname (normal_nickname: printable text, whitespace folded, MAX_NICKNAME_CHARS at most);
  only the teacher key reads nicknames (roster, answered), so no student ever gets another's.
- Limits: MAX_STUDENTS seats a room, WRITES_PER_MINUTE writes a seat (counted in the shared store, so a second
  replica does not double it), rooms gone TTL_S after their last activity.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .store import Join, RoomState, Store

ALPHABET = "ACDEFHJKMNPRTUVWXY3479"
CODE_LENGTH = 5
MAX_STUDENTS = 500
WRITES_PER_MINUTE = 30
TTL_S = 4 * 3600
MAX_OPTIONS = 12
MAX_VIEW_CHARS = 2000
MAX_NICKNAME_CHARS = 24
REDIS_URL_ENV, SQLITE_PATH_ENV = "POSENC_REDIS_URL", "POSENC_CLASS_DB"
_QUESTION = re.compile(r"[a-z0-9_]{1,64}")
_SEAT = re.compile(r"[A-Za-z0-9_-]{22}")


class ClassError(ValueError):
    """A sentence for the person at the screen: what went wrong with the room and what to do."""


def normal_code(text: str) -> str:
    """The room code someone typed, upper-cased without spaces or dashes; ClassError if it cannot be one."""
    code = re.sub(r"[\s-]", "", str(text)).upper()
    if len(code) != CODE_LENGTH or set(code) - set(ALPHABET):
        raise ClassError(f"The room code '{str(text)[:20]}' is not a room code: a code has {CODE_LENGTH} "
                         f"letters and digits, as shown on the teacher's screen.")
    return code


def normal_nickname(text: str | None) -> str:
    """A nickname as stored: runs of whitespace folded to one space, trimmed ("" for none); ClassError if it is
    longer than MAX_NICKNAME_CHARS or holds characters that do not print (control or formatting characters)."""
    nickname = " ".join(str(text or "").split())
    if not nickname.isprintable():
        raise ClassError("The nickname holds characters that do not print: use letters, digits, spaces and "
                         "punctuation.")
    if len(nickname) > MAX_NICKNAME_CHARS:
        raise ClassError(f"The nickname is {len(nickname)} characters long: at most {MAX_NICKNAME_CHARS}.")
    return nickname


@dataclass(frozen=True)
class Names:
    """Some of a room's seats, for the teacher: the nicknames (sorted, repeats kept) and how many have none."""
    named: tuple[str, ...]
    anonymous: int

    @classmethod
    def of(cls, seats, nicknames: dict[str, str]) -> Names:
        named = [nicknames[s] for s in seats if s in nicknames]
        return cls(tuple(sorted(named, key=str.casefold)), len(seats) - len(named))


def new_seat() -> str:
    return secrets.token_urlsafe(16)  # 22 characters, 128 random bits


def valid_seat(text: str | None) -> bool:
    return bool(text) and _SEAT.fullmatch(text) is not None


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def open_store(ttl_s: float = TTL_S) -> Store:
    """Redis when POSENC_REDIS_URL is set (several replicas), else SQLite in POSENC_CLASS_DB or a temp file."""
    url = os.environ.get(REDIS_URL_ENV)
    if url:
        from .redis_store import RedisStore
        return RedisStore(url, ttl_s)
    from .sqlite_store import SQLiteStore
    path = os.environ.get(SQLITE_PATH_ENV) or Path(tempfile.gettempdir()) / "posenc_live_class.sqlite3"
    return SQLiteStore(path, ttl_s)


class Classroom:
    def __init__(self, store: Store, cap: int = MAX_STUDENTS, writes_per_minute: int = WRITES_PER_MINUTE):
        self.store, self.cap, self.writes_per_minute = store, cap, writes_per_minute

    def start(self) -> tuple[str, str]:
        """A new room: (code, teacher key)."""
        key = secrets.token_urlsafe(24)
        for _ in range(20):  # 22**5 = 5.2 million codes: a clash with a live room is rare, twenty in a row never
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            if self.store.create(code, _hash(key)):
                return code, key
        raise ClassError("No free room code was found; please try again.")

    def room(self, code: str) -> RoomState:
        state = self.store.room(normal_code(code))
        if state is None:
            raise ClassError(f"There is no open room {normal_code(code)}: check the code on the teacher's screen "
                             f"(rooms close {TTL_S // 3600} hours after their last activity, or when the teacher "
                             "ends them).")
        return state

    def is_teacher(self, code: str, key: str | None) -> bool:
        state = self.store.room(normal_code(code))
        return bool(key) and state is not None and hmac.compare_digest(state.key_hash, _hash(key))

    def join(self, code: str, seat: str, nickname: str | None = None) -> Join:
        """Seat a student; an optional nickname (seen by the teacher only) is checked first."""
        nickname = normal_nickname(nickname)
        if not valid_seat(seat):
            raise ClassError("This browser's seat is not valid: reload the join link.")
        result = self.store.join(normal_code(code), seat, self.cap, nickname)
        if result is Join.FULL:
            raise ClassError(f"Room {normal_code(code)} is full: it holds {self.cap} students.")
        if result is Join.MISSING:
            self.room(code)  # raises the sentence for a missing room
        return result

    def _limit(self, seat: str) -> None:
        if self.store.hit(seat, 60) > self.writes_per_minute:
            raise ClassError(f"Too many answers from this browser: at most {self.writes_per_minute} a minute. "
                             "Wait a moment and answer again.")

    def answer(self, code: str, seat: str, question: str, choice: int, options: int) -> None:
        if not _QUESTION.fullmatch(str(question)):
            raise ClassError(f"'{str(question)[:40]}' is not a question of this app.")
        if not 0 < options <= MAX_OPTIONS or not isinstance(choice, int) or not 0 <= choice < options:
            raise ClassError(f"Answer {choice!r} is not one of the question's {options} options.")
        if not valid_seat(seat):
            raise ClassError("This browser's seat is not valid: reload the join link.")
        self._limit(seat)
        if not self.store.answer(normal_code(code), seat, question, choice):
            self.room(code)  # a missing room says so
            raise ClassError(f"This browser has not joined room {normal_code(code)}: open the join link again.")

    def rename(self, code: str, seat: str, nickname: str | None) -> str:
        """Give a seated student a nickname ("" or None: none); returns the nickname as stored."""
        nickname = normal_nickname(nickname)
        if not valid_seat(seat):
            raise ClassError("This browser's seat is not valid: reload the join link.")
        self._limit(seat)
        if not self.store.set_nickname(normal_code(code), seat, nickname):
            self.room(code)
            raise ClassError(f"This browser has not joined room {normal_code(code)}: open the join link again.")
        return nickname

    def nickname(self, code: str, seat: str) -> str:
        """A student's own nickname ("" for none): the seat token, which only that browser holds, reads it."""
        return self.store.nicknames(normal_code(code)).get(seat, "") if valid_seat(seat) else ""

    def roster(self, code: str, key: str | None) -> Names:
        """Who has joined, for the teacher key only."""
        nicknames = self.store.nicknames(self._teacher(code, key))
        seats = self.room(code).seats
        named = sorted(nicknames.values(), key=str.casefold)
        return Names(tuple(named), max(0, seats - len(named)))

    def answered(self, code: str, key: str | None, question: str) -> tuple[Names, Names]:
        """Who answered ``question`` and who has not yet, for the teacher key only."""
        room = self._teacher(code, key)
        nicknames, done = self.store.nicknames(room), self.store.answered(room, question)
        waiting = Names.of([s for s in nicknames if s not in done], nicknames)
        seats = self.room(code).seats
        return Names.of(done, nicknames), Names(waiting.named, max(0, seats - len(done) - len(waiting.named)))

    def counts(self, code: str, question: str, options: int) -> list[int]:
        """Seats per option, in the question's order (answers outside the options are not counted)."""
        found = self.store.counts(normal_code(code), question)
        return [found.get(i, 0) for i in range(options)]

    def _teacher(self, code: str, key: str | None) -> str:
        if not self.is_teacher(code, key):
            self.room(code)
            raise ClassError("Only the teacher's link can do this: it holds the room's teacher key.")
        return normal_code(code)

    def reveal(self, code: str, key: str | None, question: str) -> None:
        if not _QUESTION.fullmatch(str(question)):
            raise ClassError(f"'{str(question)[:40]}' is not a question of this app.")
        self.store.reveal(self._teacher(code, key), question)

    def show(self, code: str, key: str | None, view: str) -> None:
        if len(view) > MAX_VIEW_CHARS:
            raise ClassError(f"This page's address is {len(view)} characters long; followers can be sent "
                             f"{MAX_VIEW_CHARS} at most.")
        self.store.set_view(self._teacher(code, key), view)

    def close(self, code: str, key: str | None) -> None:
        self.store.close(self._teacher(code, key))
