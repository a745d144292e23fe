"""The live-class store for one process: an SQLite file in WAL mode (stdlib sqlite3, nothing to set up).

WAL lets the page runs read while one of them writes. Each thread gets its own connection (Streamlit runs
every session's script in its own thread); a write that must check before it changes (the room's size cap, a
limit's window) takes the write lock first (BEGIN IMMEDIATE), so two joins cannot both take the last seat. A write
waits at most BUSY_S for the lock: held longer (another process writing, a backup), the store is unreachable for
that call and the caller retries, instead of the page hanging. The file is durable across a restart of the
server (WAL with synchronous=NORMAL loses at most the last commits of a power cut, never a process crash's).
"""

from __future__ import annotations

import contextlib
import secrets
import sqlite3
import threading
import time
from pathlib import Path

from .store import Answered, AnswerRow, Join, RoomDump, RoomState, Seat, Store, clock_offset_s

SCHEMA_VERSION = 4
SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, key_hash TEXT NOT NULL, view TEXT NOT NULL DEFAULT '',
                                  locked INTEGER NOT NULL DEFAULT 0, ended INTEGER NOT NULL DEFAULT 0,
                                  active REAL NOT NULL);
CREATE TABLE IF NOT EXISTS seats (code TEXT NOT NULL, seat TEXT NOT NULL, nickname TEXT NOT NULL DEFAULT '',
                                  seen REAL NOT NULL, course TEXT NOT NULL DEFAULT '', PRIMARY KEY (code, seat));
CREATE TABLE IF NOT EXISTS removed (code TEXT NOT NULL, seat TEXT NOT NULL, PRIMARY KEY (code, seat));
CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, question TEXT NOT NULL, round INTEGER NOT NULL,
                                    seat TEXT NOT NULL, choice INTEGER NOT NULL, at REAL NOT NULL,
                                    PRIMARY KEY (code, question, round, seat));
CREATE TABLE IF NOT EXISTS revealed (code TEXT NOT NULL, question TEXT NOT NULL, PRIMARY KEY (code, question));
CREATE TABLE IF NOT EXISTS rounds (code TEXT NOT NULL, question TEXT NOT NULL, round INTEGER NOT NULL,
                                   PRIMARY KEY (code, question));
CREATE TABLE IF NOT EXISTS questions (code TEXT NOT NULL, question TEXT NOT NULL, info TEXT NOT NULL,
                                      PRIMARY KEY (code, question));
CREATE TABLE IF NOT EXISTS hits (name TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS hits_by_name ON hits (name, at);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value BLOB NOT NULL);
"""
_ROOM_TABLES = ("seats", "removed", "answers", "revealed", "rounds", "questions", "rooms")
BUSY_S = 1.0
HITS_KEPT_S = 3600  # the longest limit window; older events are cleared when a room is made


class SQLiteStore(Store):
    unreachable = (sqlite3.OperationalError,)  # "database is locked" once BUSY_S has passed

    def __init__(self, path: str | Path, ttl_s: float, active_s: float = 90.0):
        self.path, self.ttl_s, self.active_s = str(path), float(ttl_s), float(active_s)
        self.offset_s = clock_offset_s()
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._ready = False  # the schema is made on first use: a lock held elsewhere then fails that call alone

    def now(self):
        return time.time() + self.offset_s

    def _prepare(self, db: sqlite3.Connection) -> None:
        if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            self._ready = True
            return
        with self._write(db):
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version == 3:  # kept results: the seats gain their course progress, nothing is lost
                db.execute("ALTER TABLE seats ADD COLUMN course TEXT NOT NULL DEFAULT ''")
            elif version < 3:
                # a file of the layout before rounds and kept results, whose rooms lived four hours at most
                for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                    db.execute(f'DROP TABLE "{table}"')
            for statement in SCHEMA.split(";"):  # not executescript: it would commit the open transaction
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self._ready = True

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            # autocommit mode (isolation_level=None): each statement commits unless we BEGIN ourselves
            db = sqlite3.connect(self.path, timeout=BUSY_S, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across a process crash
            self._local.db = db
        if not self._ready:
            self._prepare(db)
        return db

    @staticmethod
    @contextlib.contextmanager
    def _write(db: sqlite3.Connection):
        """A write transaction that holds the lock from its first statement; rolled back if the body fails."""
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def secret(self):
        db = self._db()
        with self._write(db):
            db.execute("INSERT OR IGNORE INTO settings (name, value) VALUES ('seat_secret', ?)",
                       (secrets.token_bytes(32),))
            return bytes(db.execute("SELECT value FROM settings WHERE name = 'seat_secret'").fetchone()[0])

    def _row(self, db, code: str):
        """(key_hash, view, locked, ended, active) of a kept room, or None; a room past its retention is deleted
        on the spot."""
        row = db.execute("SELECT key_hash, view, locked, ended, active FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is not None and row[4] < self.now() - self.ttl_s:
            if db.in_transaction:
                self._delete(db, code)
            return None
        return row

    def _live(self, db, code: str) -> bool:
        return self._row(db, code) is not None

    @staticmethod
    def _delete(db, code: str) -> None:
        for table in _ROOM_TABLES:
            db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))  # noqa: S608 (table names are ours)

    def _touch(self, db, code: str) -> None:
        db.execute("UPDATE rooms SET active = ? WHERE code = ?", (self.now(), code))

    def create(self, code, key_hash):
        db = self._db()
        with self._write(db):
            for (old,) in db.execute("SELECT code FROM rooms WHERE active < ?", (self.now() - self.ttl_s,)).fetchall():
                self._delete(db, old)  # rooms past their retention go when a new one is made: the file stays small
            db.execute("DELETE FROM hits WHERE at < ?", (self.now() - HITS_KEPT_S,))
            if self._live(db, code):
                return False
            db.execute("INSERT INTO rooms (code, key_hash, active) VALUES (?, ?, ?)", (code, key_hash, self.now()))
            return True

    def room(self, code):
        db = self._db()
        row = self._row(db, code)
        if row is None:
            return None
        revealed = frozenset(q for (q,) in db.execute("SELECT question FROM revealed WHERE code = ?", (code,)))
        rounds = dict(db.execute("SELECT question, round FROM rounds WHERE code = ?", (code,)).fetchall())
        return RoomState(row[0], row[1], revealed, self._active(db, code), bool(row[2]), rounds, bool(row[3]),
                         max(0.0, self.now() - row[4]))

    def _active(self, db, code: str) -> int:
        return db.execute("SELECT COUNT(*) FROM seats WHERE code = ? AND seen >= ?",
                          (code, self.now() - self.active_s)).fetchone()[0]

    def _seat(self, db, code: str, seat: str):
        """The seat's last-seen time (0 after it left), or None when it is not in the room."""
        row = db.execute("SELECT seen FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
        return None if row is None else row[0]

    def member(self, code, seat):
        db = self._db()
        return self._live(db, code) and self._seat(db, code, seat) is not None

    def join(self, code, seat, cap, nickname=""):
        db = self._db()
        with self._write(db):
            row = self._row(db, code)
            if row is None:
                return Join.MISSING
            if row[3]:
                return Join.ENDED
            if db.execute("SELECT 1 FROM removed WHERE code = ? AND seat = ?", (code, seat)).fetchone():
                return Join.REMOVED
            seen = self._seat(db, code, seat)
            if seen is None and row[2]:
                return Join.LOCKED
            active = seen is not None and seen >= self.now() - self.active_s
            if not active and self._active(db, code) >= cap:
                return Join.FULL
            db.execute("INSERT INTO seats (code, seat, nickname, seen) VALUES (?, ?, ?, ?) ON CONFLICT (code, seat) "
                       "DO UPDATE SET seen = excluded.seen", (code, seat, nickname, self.now()))
            if nickname:
                db.execute("UPDATE seats SET nickname = ? WHERE code = ? AND seat = ?", (nickname, code, seat))
            self._touch(db, code)
            return Join.ALREADY if active else Join.JOINED

    @contextlib.contextmanager
    def _seated(self, code: str, seat: str):
        """A write on a seat of a kept room, under the write lock: yields the connection and the room's row, or
        (None, None) when the room is gone or the seat is not in it (the caller then returns False)."""
        db = self._db()
        with self._write(db):
            row = self._row(db, code)
            seated = row is not None and self._seat(db, code, seat) is not None
            yield (db, row) if seated else (None, None)

    def seen(self, code, seat):
        with self._seated(code, seat) as (db, _):
            if db is None:
                return False
            db.execute("UPDATE seats SET seen = ? WHERE code = ? AND seat = ?", (self.now(), code, seat))
            return True

    def leave(self, code, seat):
        with self._seated(code, seat) as (db, _):
            if db is not None:
                db.execute("UPDATE seats SET seen = 0 WHERE code = ? AND seat = ?", (code, seat))

    def remove(self, code, seat):
        db = self._db()
        with self._write(db):
            if not self._live(db, code):
                return False
            for table in ("seats", "answers"):
                db.execute(f"DELETE FROM {table} WHERE code = ? AND seat = ?", (code, seat))  # noqa: S608
            db.execute("INSERT OR IGNORE INTO removed (code, seat) VALUES (?, ?)", (code, seat))
            self._touch(db, code)
            return True

    def lock(self, code, locked):
        return self._write_room(code, "UPDATE rooms SET locked = ? WHERE code = ?", (int(bool(locked)), code))

    def end(self, code, ended):
        return self._write_room(code, "UPDATE rooms SET ended = ? WHERE code = ?", (int(bool(ended)), code))

    def seats(self, code):
        now = self.now()
        rows = self._db().execute("SELECT seat, nickname, seen FROM seats WHERE code = ? AND seen >= ? "
                                  "ORDER BY seen DESC", (code, now - self.active_s)).fetchall()
        return [Seat(seat, nickname, max(0.0, now - seen)) for seat, nickname, seen in rows]

    def _set_seat(self, code: str, seat: str, column: str, value: str) -> bool:
        """One column of a seated student's row (``column`` is this module's own word, never a caller's)."""
        with self._seated(code, seat) as (db, _):
            if db is None:
                return False
            db.execute(f"UPDATE seats SET {column} = ? WHERE code = ? AND seat = ?", (value, code, seat))
            self._touch(db, code)
            return True

    def set_nickname(self, code, seat, nickname):
        return self._set_seat(code, seat, "nickname", nickname)

    def set_course(self, code, seat, progress):
        return self._set_seat(code, seat, "course", progress)

    def _kept(self, sql: str, args: tuple) -> list:
        """Rows of a kept room's table (``sql`` joins ``rooms`` and ends with ``active >= ?``): a room past its
        retention has rows until the next create() deletes them."""
        return self._db().execute(sql, (*args, self.now() - self.ttl_s)).fetchall()

    def nicknames(self, code):
        return dict(self._kept("SELECT seat, nickname FROM seats JOIN rooms USING (code) WHERE code = ? "
                               "AND nickname != '' AND active >= ?", (code,)))

    def answered(self, code, question, round=1):
        return frozenset(s for (s,) in self._kept("SELECT seat FROM answers JOIN rooms USING (code) WHERE code = ? "
                                                  "AND question = ? AND round = ? AND active >= ?",
                                                  (code, question, round)))

    def votes(self, code, question, round=1):
        return {s: int(c) for s, c in self._kept("SELECT seat, choice FROM answers JOIN rooms USING (code) "
                                                 "WHERE code = ? AND question = ? AND round = ? AND active >= ?",
                                                 (code, question, round))}

    def answer(self, code, seat, question, round, choice):
        with self._seated(code, seat) as (db, row):
            if db is None:
                return Answered.NOT_SEATED
            if row[3]:
                return Answered.ENDED
            if db.execute("SELECT 1 FROM revealed WHERE code = ? AND question = ?", (code, question)).fetchone():
                return Answered.REVEALED
            now_round = db.execute("SELECT round FROM rounds WHERE code = ? AND question = ?",
                                   (code, question)).fetchone()
            if (now_round[0] if now_round else 1) != round:
                return Answered.OTHER_ROUND
            db.execute("INSERT INTO answers (code, question, round, seat, choice, at) VALUES (?, ?, ?, ?, ?, ?) "
                       "ON CONFLICT (code, question, round, seat) DO UPDATE SET choice = excluded.choice, "
                       "at = excluded.at WHERE choice != excluded.choice",
                       (code, question, round, seat, choice, self.now()))
            db.execute("UPDATE seats SET seen = ? WHERE code = ? AND seat = ?", (self.now(), code, seat))
            self._touch(db, code)
            return Answered.SAVED

    def choices(self, code, seat):
        rows = self._kept("SELECT question, round, choice FROM answers JOIN rooms USING (code) WHERE code = ? "
                          "AND seat = ? AND active >= ?", (code, seat))
        return {(q, int(r)): int(c) for q, r, c in rows}

    def counts(self, code, question, round=1):
        rows = self._kept("SELECT choice, COUNT(*) FROM answers JOIN rooms USING (code) WHERE code = ? "
                          "AND question = ? AND round = ? AND active >= ? GROUP BY choice", (code, question, round))
        return {int(choice): int(n) for choice, n in rows}

    def _write_room(self, code: str, sql: str, args: tuple) -> bool:
        db = self._db()
        with self._write(db):
            if not self._live(db, code):
                return False
            db.execute(sql, args)
            self._touch(db, code)
            return True

    def reveal(self, code, question):
        return self._write_room(code, "INSERT OR IGNORE INTO revealed (code, question) VALUES (?, ?)", (code, question))

    def open_round(self, code, question, round):
        db = self._db()
        with self._write(db):
            if not self._live(db, code) or db.execute("SELECT 1 FROM revealed WHERE code = ? AND question = ?",
                                                      (code, question)).fetchone():
                return False
            db.execute("INSERT INTO rounds (code, question, round) VALUES (?, ?, ?) ON CONFLICT (code, question) "
                       "DO UPDATE SET round = excluded.round", (code, question, round))
            self._touch(db, code)
            return True

    def describe(self, code, question, info):
        return self._write_room(code, "INSERT INTO questions (code, question, info) VALUES (?, ?, ?) ON CONFLICT "
                                "(code, question) DO UPDATE SET info = excluded.info", (code, question, info))

    def set_view(self, code, view):
        return self._write_room(code, "UPDATE rooms SET view = ? WHERE code = ?", (view, code))

    def dump(self, code):
        db = self._db()
        db.execute("BEGIN")  # one read snapshot: the answers, names and questions of the same moment
        try:
            state = self.room(code)
            if state is None:
                return None
            answers = tuple(AnswerRow(q, int(r), s, int(c), float(at)) for q, r, s, c, at in db.execute(
                "SELECT question, round, seat, choice, at FROM answers WHERE code = ? ORDER BY at", (code,)))
            questions = dict(db.execute("SELECT question, info FROM questions WHERE code = ?", (code,)).fetchall())
            courses = dict(db.execute("SELECT seat, course FROM seats WHERE code = ? AND course != ''", (code,)))
            return RoomDump(state, answers, self.nicknames(code), questions, courses)
        finally:
            db.execute("COMMIT")

    def delete(self, code):
        db = self._db()
        with self._write(db):
            self._delete(db, code)

    def hit(self, name, window_s, limit):
        db = self._db()
        with self._write(db):
            if self._count(db, name, window_s) >= limit:
                return False
            db.execute("INSERT INTO hits (name, at) VALUES (?, ?)", (name, self.now()))
            return True

    def _count(self, db, name: str, window_s: float) -> int:
        return db.execute("SELECT COUNT(*) FROM hits WHERE name = ? AND at > ?",
                          (name, self.now() - window_s)).fetchone()[0]

    def hits(self, name, window_s):
        return self._count(self._db(), name, window_s)
