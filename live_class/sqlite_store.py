"""The live-class store for one process: an SQLite file in WAL mode (stdlib sqlite3, nothing to set up).

WAL lets the page runs read while one of them writes. Each thread gets its own connection (Streamlit runs
every session's script in its own thread); a write that must check before it changes (the room's size cap)
takes the write lock first (BEGIN IMMEDIATE), so two joins cannot both take the last seat.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from pathlib import Path

from .store import Join, RoomState, Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, key_hash TEXT NOT NULL, view TEXT NOT NULL DEFAULT '',
                                  active REAL NOT NULL);
CREATE TABLE IF NOT EXISTS seats (code TEXT NOT NULL, seat TEXT NOT NULL, nickname TEXT NOT NULL DEFAULT '',
                                  PRIMARY KEY (code, seat));
CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, question TEXT NOT NULL, seat TEXT NOT NULL,
                                    choice INTEGER NOT NULL, PRIMARY KEY (code, question, seat));
CREATE TABLE IF NOT EXISTS revealed (code TEXT NOT NULL, question TEXT NOT NULL, PRIMARY KEY (code, question));
CREATE TABLE IF NOT EXISTS hits (seat TEXT NOT NULL, window INTEGER NOT NULL, n INTEGER NOT NULL,
                                 PRIMARY KEY (seat, window));
"""
_ROOM_TABLES = ("seats", "answers", "revealed", "rooms")


class SQLiteStore(Store):
    def __init__(self, path: str | Path, ttl_s: float):
        self.path, self.ttl_s = str(path), float(ttl_s)
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with self._db() as db:
            db.executescript(SCHEMA)
            if "nickname" not in {row[1] for row in db.execute("PRAGMA table_info(seats)")}:
                db.execute("ALTER TABLE seats ADD COLUMN nickname TEXT NOT NULL DEFAULT ''")  # a file from before

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            # autocommit mode (isolation_level=None): each statement commits unless we BEGIN ourselves
            db = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across a process crash
            self._local.db = db
        return db

    def _live(self, db, code: str) -> bool:
        """Whether the room exists and has not expired; an expired room is deleted on the spot."""
        row = db.execute("SELECT active FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None:
            return False
        if row[0] < time.time() - self.ttl_s:
            self._delete(db, code)
            return False
        return True

    @staticmethod
    def _delete(db, code: str) -> None:
        for table in _ROOM_TABLES:
            db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))  # noqa: S608 (table names are ours)

    def _touch(self, db, code: str) -> None:
        db.execute("UPDATE rooms SET active = ? WHERE code = ?", (time.time(), code))

    def create(self, code, key_hash):
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            for (old,) in db.execute("SELECT code FROM rooms WHERE active < ?", (time.time() - self.ttl_s,)).fetchall():
                self._delete(db, old)  # expired rooms go when a new one is made: the file does not grow for ever
            db.execute("DELETE FROM hits WHERE window < ?", (int(time.time()) - 3600,))
            if self._live(db, code):
                return False
            db.execute("INSERT INTO rooms (code, key_hash, active) VALUES (?, ?, ?)", (code, key_hash, time.time()))
            return True
        finally:
            db.execute("COMMIT")

    def room(self, code):
        db = self._db()
        row = db.execute("SELECT key_hash, view, active FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None or row[2] < time.time() - self.ttl_s:
            return None
        revealed = frozenset(q for (q,) in db.execute("SELECT question FROM revealed WHERE code = ?", (code,)))
        (seats,) = db.execute("SELECT COUNT(*) FROM seats WHERE code = ?", (code,)).fetchone()
        return RoomState(row[0], row[1], revealed, seats)

    def join(self, code, seat, cap, nickname=""):
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            if not self._live(db, code):
                return Join.MISSING
            if db.execute("SELECT 1 FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone():
                if nickname:
                    self._name(db, code, seat, nickname)
                return Join.ALREADY
            if db.execute("SELECT COUNT(*) FROM seats WHERE code = ?", (code,)).fetchone()[0] >= cap:
                return Join.FULL
            db.execute("INSERT INTO seats (code, seat, nickname) VALUES (?, ?, ?)", (code, seat, nickname))
            self._touch(db, code)
            return Join.JOINED
        finally:
            db.execute("COMMIT")

    def _name(self, db, code: str, seat: str, nickname: str) -> None:
        db.execute("UPDATE seats SET nickname = ? WHERE code = ? AND seat = ?", (nickname, code, seat))
        self._touch(db, code)

    @contextlib.contextmanager
    def _seated(self, code: str, seat: str):
        """A write on a seat of a live room, under the write lock: yields the connection, or None when the
        room has expired or the seat is not in it (the caller then returns False)."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            seated = self._live(db, code) and db.execute(
                "SELECT 1 FROM seats WHERE code = ? AND seat = ?", (code, seat)).fetchone()
            yield db if seated else None
        finally:
            db.execute("COMMIT")

    def set_nickname(self, code, seat, nickname):
        with self._seated(code, seat) as db:
            if db is None:
                return False
            self._name(db, code, seat, nickname)
            return True

    def nicknames(self, code):
        rows = self._db().execute("SELECT seat, nickname FROM seats JOIN rooms USING (code) WHERE code = ? "
                                  "AND nickname != '' AND active >= ?", (code, time.time() - self.ttl_s))
        return dict(rows.fetchall())

    def answered(self, code, question):
        rows = self._db().execute("SELECT seat FROM answers JOIN rooms USING (code) WHERE code = ? AND question = ? "
                                  "AND active >= ?", (code, question, time.time() - self.ttl_s))
        return frozenset(seat for (seat,) in rows)

    def answer(self, code, seat, question, choice):
        with self._seated(code, seat) as db:
            if db is None:
                return False
            db.execute("INSERT INTO answers (code, question, seat, choice) VALUES (?, ?, ?, ?) "
                       "ON CONFLICT (code, question, seat) DO UPDATE SET choice = excluded.choice",
                       (code, question, seat, choice))
            self._touch(db, code)
            return True

    def counts(self, code, question):
        # only a live room's answers: an expired room's rows wait for the next create() to be deleted
        rows = self._db().execute("SELECT choice, COUNT(*) FROM answers JOIN rooms USING (code) WHERE code = ? "
                                  "AND question = ? AND active >= ? GROUP BY choice",
                                  (code, question, time.time() - self.ttl_s))
        return {int(choice): int(n) for choice, n in rows}

    def _write_room(self, code: str, sql: str, args: tuple) -> bool:
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            if not self._live(db, code):
                return False
            db.execute(sql, args)
            self._touch(db, code)
            return True
        finally:
            db.execute("COMMIT")

    def reveal(self, code, question):
        return self._write_room(code, "INSERT OR IGNORE INTO revealed (code, question) VALUES (?, ?)", (code, question))

    def set_view(self, code, view):
        return self._write_room(code, "UPDATE rooms SET view = ? WHERE code = ?", (view, code))

    def close(self, code):
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            self._delete(db, code)
        finally:
            db.execute("COMMIT")

    def hit(self, seat, window_s):
        window = int(time.time() // window_s)
        row = self._db().execute("INSERT INTO hits (seat, window, n) VALUES (?, ?, 1) ON CONFLICT (seat, window) "
                                 "DO UPDATE SET n = n + 1 RETURNING n", (seat, window)).fetchone()
        return int(row[0])
