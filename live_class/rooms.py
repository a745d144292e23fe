"""A live class, whatever the backend: who may do what in a room, and the sentences that say why not.

- The teacher key is a random token the teacher's browser keeps; the store keeps its SHA-256, and every teacher
  action (reveal, show a page, lock, remove a seat, close, read nicknames) checks it. A student's link has no key.
- A seat is a token the server signed (``rules.Seats``); answers are keyed by seat, so nobody answers for another
  without their token, a made-up token is no seat, and a changed answer replaces the old one.
- Only the teacher key reads nicknames (roster, answered), so no student ever gets another's.
- Limits (``rules.Limits``): active seats a room, writes a seat a minute, new seats an address takes in ten
  minutes and a room in a minute, wrong codes an address tries a minute; all counted in the shared store, so a
  second replica does not double them. Rooms are gone TTL_S after their last activity.
- A store that does not answer in time raises ``ClassUnreachable``; nothing is half-written (each write is one
  transaction or one script), so the caller may retry the same call.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
import secrets
import tempfile
from pathlib import Path

from .rules import (  # noqa: F401 (re-exported: the app and the tests read the rules from here)
    ALPHABET,
    CODE_LENGTH,
    MAX_NICKNAME_CHARS,
    ClassError,
    ClassUnreachable,
    Limits,
    Names,
    Seats,
    normal_code,
    normal_nickname,
    shown,
)
from .store import Join, RoomState, Seat, Store

TTL_S = 4 * 3600
MAX_OPTIONS = 12
MAX_VIEW_CHARS = 2000
REDIS_URL_ENV, SQLITE_PATH_ENV, SECRET_ENV = "POSENC_REDIS_URL", "POSENC_CLASS_DB", "POSENC_CLASS_SECRET"
_QUESTION = re.compile(r"[a-z0-9_]{1,64}")
UNREACHABLE = ("The class cannot be reached just now. The lesson works on its own; answers are kept and sent "
               "when the class is back.")


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def open_store(ttl_s: float = TTL_S, active_s: float | None = None) -> Store:
    """Redis when POSENC_REDIS_URL is set (several replicas), else SQLite in POSENC_CLASS_DB or a temp file."""
    active_s = Limits.from_env().active_s if active_s is None else active_s
    url = os.environ.get(REDIS_URL_ENV)
    if url:
        from .redis_store import RedisStore
        return RedisStore(url, ttl_s, active_s)
    from .sqlite_store import SQLiteStore
    path = os.environ.get(SQLITE_PATH_ENV) or Path(tempfile.gettempdir()) / "posenc_live_class.sqlite3"
    return SQLiteStore(path, ttl_s, active_s)


def _reaching(method):
    """The store's own timeouts and lost connections become ClassUnreachable, with its sentence."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except self.store.unreachable as error:
            raise ClassUnreachable(UNREACHABLE) from error
    return call


class Classroom:
    def __init__(self, store: Store, limits: Limits | None = None, secret: bytes | None = None):
        self.store, self.limits = store, limits or Limits.from_env()
        secret = secret or os.environ.get(SECRET_ENV, "").encode() or None
        self._seats = Seats(secret) if secret else None

    @property
    def cap(self) -> int:
        return self.limits.students

    @_reaching
    def seats_signer(self) -> Seats:
        """The signer, with the store's secret read once (a store that is down now is asked again next time)."""
        if self._seats is None:
            self._seats = Seats(self.store.secret())
        return self._seats

    def new_seat(self) -> str:
        return self.seats_signer().new()

    def valid_seat(self, token: str | None) -> bool:
        return self.seats_signer().valid(token)

    @_reaching
    def start(self) -> tuple[str, str]:
        """A new room: (code, teacher key)."""
        key = secrets.token_urlsafe(24)
        for _ in range(20):  # 22**5 = 5.2 million codes: a clash with a live room is rare, twenty in a row never
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            if self.store.create(code, _hash(key)):
                return code, key
        raise ClassError("No free room code was found; please try again.")

    @_reaching
    def room(self, code: str) -> RoomState:
        state = self.store.room(normal_code(code))
        if state is None:
            raise ClassError(f"There is no open room {normal_code(code)}: check the code on the teacher's screen "
                             f"(rooms close {TTL_S // 3600} hours after their last activity, or when the teacher "
                             "ends them).")
        return state

    @_reaching
    def find(self, code: str, client: str) -> RoomState:
        """The room a person typed or linked, with the tries that open no room limited per ``client`` (an address)."""
        name = f"codes:{client}"
        if self.store.hits(name, 60) >= self.limits.wrong_codes_per_minute:
            raise ClassError(f"Too many room codes that open no room were tried from this connection (at most "
                             f"{self.limits.wrong_codes_per_minute} a minute): wait a minute, then check the code on "
                             "the teacher's screen.")
        try:
            return self.room(code)
        except ClassUnreachable:
            raise
        except ClassError:
            self.store.hit(name, 60)
            raise

    @_reaching
    def is_teacher(self, code: str, key: str | None) -> bool:
        state = self.store.room(normal_code(code))
        return bool(key) and state is not None and hmac.compare_digest(state.key_hash, _hash(key))

    def _new_seat_allowed(self, code: str, client: str) -> None:
        by_client, by_room = f"seats:{client}", f"room_seats:{code}"
        if self.store.hits(by_client, 600) >= self.limits.seats_per_client:
            raise ClassError(f"This connection has taken {self.limits.seats_per_client} new seats in the last ten "
                             "minutes, the most it may: wait a few minutes and join again, or ask the teacher.")
        if self.store.hits(by_room, 60) >= self.limits.seats_per_room_minute:
            raise ClassError(f"Room {code} is seating many students at once: wait a few seconds and join again.")
        self.store.hit(by_client, 600)
        self.store.hit(by_room, 60)

    @_reaching
    def join(self, code: str, seat: str, nickname: str | None = None, client: str = "local") -> Join:
        """Seat a student (``seat``: a token from ``new_seat``); an optional nickname (seen by the teacher only)
        is checked first, and a seat new to the room counts against the limits of ``client`` and of the room."""
        nickname = normal_nickname(nickname)
        if not self.valid_seat(seat):
            raise ClassError("This browser's seat is not one this class made: open the join link again.")
        code = normal_code(code)
        if not self.store.member(code, seat):
            self.room(code)  # a missing room says so before any limit is counted
            self._new_seat_allowed(code, client)
        result = self.store.join(code, seat, self.cap, nickname)
        sentences = {
            Join.FULL: f"Room {code} is full: {self.cap} students are in it. A seat frees up when its student "
                       f"leaves or closes the page for {self.limits.active_s:.0f} seconds; the teacher can "
                       "also remove seats from the class panel.",
            Join.LOCKED: f"Room {code} is locked: the teacher has closed it to new students. Ask the teacher to "
                         "unlock it.",
            Join.REMOVED: f"The teacher removed this browser from room {code}.",
        }
        if result in sentences:
            raise ClassError(sentences[result])
        if result is Join.MISSING:
            self.room(code)  # raises the sentence for a missing room
        return result

    @_reaching
    def seen(self, code: str, seat: str) -> bool:
        """The open page's heartbeat: the seat stays active. False when it is no longer seated (removed, or the
        room is gone)."""
        return self.valid_seat(seat) and self.store.seen(normal_code(code), seat)

    @_reaching
    def leave(self, code: str, seat: str) -> None:
        if self.valid_seat(seat):
            self.store.leave(normal_code(code), seat)

    def _limit(self, seat: str) -> None:
        if self.store.hit(f"writes:{seat}", 60) > self.limits.writes_per_minute:
            raise ClassError(f"Too many answers from this browser: at most {self.limits.writes_per_minute} a "
                             "minute. Wait a moment and answer again.")

    @_reaching
    def answer(self, code: str, seat: str, question: str, choice: int, options: int) -> None:
        """Record (or replace) a seat's answer. Safe to call again with the same values after a ClassUnreachable:
        the store writes it once or not at all."""
        if not _QUESTION.fullmatch(str(question)):
            raise ClassError(f"'{shown(question, 40)}' is not a question of this app.")
        if not 0 < options <= MAX_OPTIONS or not isinstance(choice, int) or not 0 <= choice < options:
            raise ClassError(f"Answer {shown(choice)} is not one of the question's {options} options.")
        if not self.valid_seat(seat):
            raise ClassError("This browser's seat is not one this class made: open the join link again.")
        self._limit(seat)
        if not self.store.answer(normal_code(code), seat, question, choice):
            self.room(code)  # a missing room says so
            raise ClassError(f"This browser is not seated in room {normal_code(code)}: open the join link again.")

    @_reaching
    def rename(self, code: str, seat: str, nickname: str | None) -> str:
        """Give a seated student a nickname ("" or None: none); returns the nickname as stored."""
        nickname = normal_nickname(nickname)
        if not self.valid_seat(seat):
            raise ClassError("This browser's seat is not one this class made: open the join link again.")
        self._limit(seat)
        if not self.store.set_nickname(normal_code(code), seat, nickname):
            self.room(code)
            raise ClassError(f"This browser is not seated in room {normal_code(code)}: open the join link again.")
        return nickname

    @_reaching
    def nickname(self, code: str, seat: str) -> str:
        """A student's own nickname ("" for none): the seat token, which only that browser holds, reads it."""
        return self.store.nicknames(normal_code(code)).get(seat, "") if self.valid_seat(seat) else ""

    @_reaching
    def seats(self, code: str, key: str | None) -> list[Seat]:
        """The active seats with their nicknames, for the teacher key only."""
        return self.store.seats(self._teacher(code, key))

    def roster(self, code: str, key: str | None) -> Names:
        """Who is in the room now, for the teacher key only."""
        seats = self.seats(code, key)
        return Names.of([s.token for s in seats], {s.token: s.nickname for s in seats if s.nickname})

    @_reaching
    def answered(self, code: str, key: str | None, question: str) -> tuple[Names, Names]:
        """Who answered ``question`` and who of the active seats has not yet, for the teacher key only."""
        room = self._teacher(code, key)
        nicknames, done = self.store.nicknames(room), self.store.answered(room, question)
        waiting = [s.token for s in self.store.seats(room) if s.token not in done]
        return Names.of(done, nicknames), Names.of(waiting, nicknames)

    @_reaching
    def counts(self, code: str, question: str, options: int) -> list[int]:
        """Seats per option, in the question's order (answers outside the options are not counted)."""
        found = self.store.counts(normal_code(code), question)
        return [found.get(i, 0) for i in range(options)]

    def _teacher(self, code: str, key: str | None) -> str:
        if not self.is_teacher(code, key):
            self.room(code)
            raise ClassError("Only the teacher's browser can do this: it holds the room's teacher key.")
        return normal_code(code)

    @_reaching
    def reveal(self, code: str, key: str | None, question: str) -> None:
        if not _QUESTION.fullmatch(str(question)):
            raise ClassError(f"'{shown(question, 40)}' is not a question of this app.")
        self.store.reveal(self._teacher(code, key), question)

    @_reaching
    def show(self, code: str, key: str | None, view: str) -> None:
        if len(view) > MAX_VIEW_CHARS:
            raise ClassError(f"This page's address is {len(view)} characters long; followers can be sent "
                             f"{MAX_VIEW_CHARS} at most.")
        self.store.set_view(self._teacher(code, key), view)

    @_reaching
    def lock(self, code: str, key: str | None, locked: bool) -> None:
        self.store.lock(self._teacher(code, key), locked)

    @_reaching
    def remove(self, code: str, key: str | None, seat: str) -> None:
        self.store.remove(self._teacher(code, key), seat)

    @_reaching
    def close(self, code: str, key: str | None) -> None:
        self.store.close(self._teacher(code, key))
