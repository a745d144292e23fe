"""A live class, whatever the backend: who may do what in a room, and the sentences that say why not.

- The teacher key is a random token the teacher's browser keeps; the store keeps its SHA-256, and every teacher
  action (reveal, a second vote, show a page, lock, remove a seat, end, reopen, delete, read nicknames or
  results) checks it. A student's link has no key.
- A seat is a token the server signed (``rules.Seats``); answers are keyed by seat, so nobody answers for another
  without their token, a made-up token is no seat, and a changed answer replaces the old one.
- Only the teacher key reads nicknames (roster, answered), so no student ever gets another's.
- Limits (``rules.Limits``): active seats a room, writes a seat a minute, new seats an address takes in ten
  minutes and a room in a minute, wrong codes a browser (and, more of them, an address) tries a minute; each is
  a sliding window checked and counted in one step of the shared store, so a second replica does not double them
  and a window's edge lets nothing extra through. A seat already in a room comes back past every limit: limits
  single out the abuser, not the address a school's class shares.
- A class ends when its teacher ends it or after IDLE_S without activity; its results are kept ``keep_days()``
  after its last activity, the teacher may reopen it until then, or delete it for good at any time.
- A store that does not answer in time raises ``ClassUnreachable``; nothing is half-written (each write is one
  transaction or one script), so the caller may retry the same call.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import hmac
import os
import re
import secrets
import tempfile
from pathlib import Path

from .results import QuestionInfo, RoomRecord
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
from .store import Answered, Join, RoomState, Seat, Store

IDLE_S = 4 * 3600           # a room nobody wrote to for this long has ended on its own (its results are kept)
KEEP_DAYS = 21              # how long an ended class's results are kept after its last activity (the default)
MAX_OPTIONS = 12
MAX_VIEW_CHARS = 2000
MAX_INFO_CHARS = 8000
REDIS_URL_ENV, SQLITE_PATH_ENV, SECRET_ENV = "POSENC_REDIS_URL", "POSENC_CLASS_DB", "POSENC_CLASS_SECRET"
KEEP_DAYS_ENV = "POSENC_CLASS_KEEP_DAYS"
_QUESTION = re.compile(r"[a-z0-9_]{1,64}")
MAX_COURSE_CHARS = 1024     # a student's course progress (one digit per item of the course, with room to grow)
_COURSE = re.compile(r"(p[0-9]{1,3}\.[0-9]{0,5}\.[0-9]*)?")  # the app's progress cookie text, or "" for none
ROUNDS = (1, 2)             # a question's first vote, and the second after discussion (peer instruction)
WRONG_CODES_PER_ADDRESS = 10  # an address (a school's NAT) may try this many times a browser's wrong codes
UNREACHABLE = ("The class cannot be reached just now. The lesson works on its own; answers are kept and sent "
               "when the class is back.")


def keep_days() -> float:
    """Days a class's results are kept after its last activity: POSENC_CLASS_KEEP_DAYS, else KEEP_DAYS."""
    try:
        days = float(os.environ.get(KEEP_DAYS_ENV, KEEP_DAYS))
    except ValueError:
        return KEEP_DAYS
    return days if 0 < days <= 3660 else KEEP_DAYS


class ClassEnded(ClassError):
    """The teacher ended the class (its results are kept): a student's page says so and leaves the room."""


class VoteClosed(ClassError):
    """An answer the room no longer takes (revealed, another round, ended): the student keeps their seat."""


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def open_store(ttl_s: float | None = None, active_s: float | None = None) -> Store:
    """Redis when POSENC_REDIS_URL is set (several replicas), else SQLite in POSENC_CLASS_DB or a temp file; rooms
    are kept ``ttl_s`` (default: ``keep_days()``) after their last activity."""
    ttl_s = keep_days() * 86400 if ttl_s is None else ttl_s
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

    def _gone(self, code: str) -> ClassError:
        return ClassError(f"There is no class {code}: check the code on the teacher's screen (an ended class's "
                          f"results are kept {keep_days():g} days, unless the teacher deletes them).")

    @_reaching
    def room(self, code: str) -> RoomState:
        """The room, running or ended (an ended one says ``ended``); ClassError when there is none."""
        code = normal_code(code)
        state = self.store.room(code)
        if state is None:
            raise self._gone(code)
        if not state.ended and state.idle_s > IDLE_S:  # left alone: it ends, and its results are kept
            self.store.end(code, True)
            state = dataclasses.replace(state, ended=True, idle_s=0.0)
        return state

    def running(self, code: str) -> RoomState:
        """The room, or ClassError with the sentence of an ended class."""
        state = self.room(code)
        if state.ended:
            raise ClassEnded(f"The class in room {normal_code(code)} has ended. Thank you for taking part.")
        return state

    @_reaching
    def find(self, code: str, client: str, browser: str = "", seat: str | None = None) -> RoomState:
        """The room a person typed or linked. A seat already in it always finds it; other tries that open no
        room are limited per ``browser`` (a session) and, more loosely, per ``client`` (an address, which a
        school's class shares)."""
        if seat and self.valid_seat(seat) and self.store.member(normal_code(code), seat):
            return self.room(code)
        names = ((f"codes:{client}/{browser}", self.limits.wrong_codes_per_minute),
                 (f"codes:{client}", self.limits.wrong_codes_per_minute * WRONG_CODES_PER_ADDRESS))
        for name, limit in names:
            if self.store.hits(name, 60) >= limit:
                raise ClassError(f"Too many room codes that open no room were tried from this browser (at most "
                                 f"{self.limits.wrong_codes_per_minute} a minute): wait a minute, then check the "
                                 "code on the teacher's screen.")
        try:
            return self.room(code)
        except ClassUnreachable:
            raise
        except ClassError:
            for name, limit in names:
                self.store.hit(name, 60, limit)
            raise

    @_reaching
    def is_teacher(self, code: str, key: str | None) -> bool:
        state = self.store.room(normal_code(code))
        return bool(key) and state is not None and hmac.compare_digest(state.key_hash, _hash(key))

    def _new_seat_allowed(self, code: str, client: str) -> None:
        if not self.store.hit(f"seats:{client}", 600, self.limits.seats_per_client):
            raise ClassError(f"This connection has taken {self.limits.seats_per_client} new seats in the last ten "
                             "minutes, the most it may: wait a few minutes and join again, or ask the teacher.")
        if not self.store.hit(f"room_seats:{code}", 60, self.limits.seats_per_room_minute):
            raise ClassError(f"Room {code} is seating many students at once: wait a few seconds and join again.")

    @_reaching
    def join(self, code: str, seat: str, nickname: str | None = None, client: str = "local") -> Join:
        """Seat a student (``seat``: a token from ``new_seat``); an optional nickname (seen by the teacher only)
        is checked first, and a seat new to the room counts against the limits of ``client`` and of the room."""
        nickname = normal_nickname(nickname)
        if not self.valid_seat(seat):
            raise ClassError("This browser's seat is not one this class made: open the join link again.")
        code = normal_code(code)
        if not self.store.member(code, seat):
            self.running(code)  # a missing or ended room says so before any limit is counted
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
        if result in (Join.MISSING, Join.ENDED):
            self.running(code)  # raises the sentence for a missing or ended room
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
        if not self.store.hit(f"writes:{seat}", 60, self.limits.writes_per_minute):
            raise ClassError(f"Too many answers from this browser: at most {self.limits.writes_per_minute} a "
                             "minute. Wait a moment and answer again.")

    @_reaching
    def answer(self, code: str, seat: str, question: str, choice: int, options: int, round: int = 1) -> None:
        """Record (or replace) a seat's answer in ``round``. Safe to call again with the same values after a
        ClassUnreachable: the store writes it once or not at all."""
        question = _question(question)
        if not 0 < options <= MAX_OPTIONS or not isinstance(choice, int) or not 0 <= choice < options:
            raise ClassError(f"Answer {shown(choice)} is not one of the question's {options} options.")
        if round not in ROUNDS:
            raise ClassError(f"Round {shown(round)} is not a round of a question: 1, or 2 for the second vote.")
        if not self.valid_seat(seat):
            raise ClassError("This browser's seat is not one this class made: open the join link again.")
        self._limit(seat)
        code = normal_code(code)
        result = self.store.answer(code, seat, question, round, choice)
        if result is Answered.NOT_SEATED:
            self.room(code)  # a missing room says so
            raise ClassError(f"This browser is not seated in room {code}: open the join link again.")
        refusals = {
            Answered.REVEALED: "The teacher has revealed this question: its votes are closed.",
            Answered.OTHER_ROUND: "The teacher has opened the second vote on this question: answer it again.",
            Answered.ENDED: f"The class in room {code} has ended: answers are no longer taken.",
        }
        if result in refusals:
            raise VoteClosed(refusals[result])

    @_reaching
    def choices(self, code: str, seat: str) -> dict[str, dict[int, int]]:
        """This seat's own answers, question -> round -> option (only that browser holds its token)."""
        if not self.valid_seat(seat):
            return {}
        mine: dict[str, dict[int, int]] = {}
        for (question, round), choice in self.store.choices(normal_code(code), seat).items():
            mine.setdefault(question, {})[round] = choice
        return mine

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
    def report_course(self, code: str, seat: str, progress: str) -> None:
        """A seated student's course progress, for the teacher's view of the room (``results``): the app's
        progress cookie text, checked for its form and size only."""
        if len(progress) > MAX_COURSE_CHARS or not _COURSE.fullmatch(progress):
            raise ClassError("This browser's course progress is not one this app writes.")
        if not self.valid_seat(seat):
            raise ClassError("This browser's seat is not one this class made: open the join link again.")
        if not self.store.set_course(normal_code(code), seat, progress):
            self.room(code)
            raise ClassError(f"This browser is not seated in room {normal_code(code)}: open the join link again.")

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
    def answered(self, code: str, key: str | None, question: str, round: int = 1) -> tuple[Names, Names]:
        """Who answered ``question`` in ``round`` and who of the active seats has not yet, for the teacher key."""
        room = self._teacher(code, key)
        nicknames, done = self.store.nicknames(room), self.store.answered(room, question, round)
        waiting = [s.token for s in self.store.seats(room) if s.token not in done]
        return Names.of(done, nicknames), Names.of(waiting, nicknames)

    @_reaching
    def counts(self, code: str, question: str, options: int, round: int = 1) -> list[int]:
        """Seats per option in ``round``, in the question's order (answers outside the options are not counted)."""
        found = self.store.counts(normal_code(code), question, round)
        return [found.get(i, 0) for i in range(options)]

    @_reaching
    def shift(self, code: str, key: str | None, question: str, answer: int) -> tuple[int, int]:
        """Between the two votes of ``question``, how many seats (that voted twice) moved from wrong to right and
        from right to wrong, ``answer`` being the right option; for the teacher key only."""
        room = self._teacher(code, key)
        first, second = (self.store.votes(room, question, r) for r in ROUNDS)
        both = first.keys() & second.keys()
        return (sum(first[s] != answer and second[s] == answer for s in both),
                sum(first[s] == answer and second[s] != answer for s in both))

    def _teacher(self, code: str, key: str | None) -> str:
        if not self.is_teacher(code, key):
            self.room(code)
            raise ClassError("Only the teacher's browser can do this: it holds the room's teacher key. A teacher "
                             "link whose key is wrong or from a deleted class opens nothing.")
        return normal_code(code)

    @_reaching
    def reveal(self, code: str, key: str | None, question: str) -> None:
        self.store.reveal(self._teacher(code, key), _question(question))

    @_reaching
    def open_round(self, code: str, key: str | None, question: str) -> None:
        """The second vote: the room answers ``question`` again (its first round closes); not after a reveal."""
        if not self.store.open_round(self._teacher(code, key), _question(question), 2):
            raise ClassError("This question is revealed: a second vote is opened before the reveal.")

    @_reaching
    def describe(self, code: str, key: str | None, info: QuestionInfo) -> None:
        """Keep what a question asks, so its results name its options after the lesson has moved on."""
        text = info.to_json()
        if len(text) > MAX_INFO_CHARS:
            raise ClassError(f"Question {shown(info.question, 40)} is too long to keep ({len(text):,} characters).")
        self.store.describe(self._teacher(code, key), _question(info.question), text)

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
    def end(self, code: str, key: str | None) -> None:
        """End the class: no more joins or answers; its results are kept ``keep_days()`` days."""
        self.store.end(self._teacher(code, key), True)

    @_reaching
    def reopen(self, code: str, key: str | None) -> None:
        self.store.end(self._teacher(code, key), False)

    @_reaching
    def delete(self, code: str, key: str | None) -> None:
        """The room and every answer in it, gone for good."""
        self.store.delete(self._teacher(code, key))

    @_reaching
    def results(self, code: str, key: str | None) -> RoomRecord:
        """Everything the room keeps, for the teacher key only: the source of its results and downloads."""
        room = self._teacher(code, key)
        dump = self.store.dump(room)
        if dump is None:
            raise self._gone(room)
        return RoomRecord.of(room, dump, self.store.now())


def _question(question: str) -> str:
    if not _QUESTION.fullmatch(str(question)):
        raise ClassError(f"'{shown(question, 40)}' is not a question of this app.")
    return str(question)
