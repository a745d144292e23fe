"""The live-class store for one process: an SQLite file in WAL mode (stdlib sqlite3, nothing to set up).

WAL lets the page runs read while one of them writes. Each thread gets its own connection (Streamlit runs
every session's script in its own thread); a write that must check before it changes (the room's size cap)
takes the write lock first (BEGIN IMMEDIATE), so two joins cannot both take the last seat. A write waits at most
BUSY_S for the lock: held longer (another process writing, a backup), the store is unreachable for that call and
the caller retries, instead of the page hanging.
"""

from __future__ import annotations

import contextlib
import secrets
import sqlite3
import threading
import time
from pathlib import Path

from .store import Join, RoomState, Seat, Store

SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, key_hash TEXT NOT NULL, view TEXT NOT NULL DEFAULT '',
                                  locked INTEGER NOT NULL DEFAULT 0, active REAL NOT NULL);
CREATE TABLE IF NOT EXISTS seats (code TEXT NOT NULL, seat TEXT NOT NULL, nickname TEXT NOT NULL DEFAULT '',
                                  seen REAL NOT NULL, PRIMARY KEY (code, seat));
CREATE TABLE IF NOT EXISTS removed (code TEXT NOT NULL, seat TEXT NOT NULL, PRIMARY KEY (code, seat));
CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, question TEXT NOT NULL, seat TEXT NOT NULL,
                                    choice INTEGER NOT NULL, PRIMARY KEY (code, question, seat));
CREATE TABLE IF NOT EXISTS revealed (code TEXT NOT NULL, question TEXT NOT NULL, PRIMARY KEY (code, question));
CREATE TABLE IF NOT EXISTS hits (name TEXT NOT NULL, window INTEGER NOT NULL, n INTEGER NOT NULL,
                                 PRIMARY KEY (name, window));
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value BLOB NOT NULL);
"""
_ROOM_TABLES = ("seats", "removed", "answers", "revealed", "rooms")
BUSY_S = 1.0


class SQLiteStore(Store):
    unreachable = (sqlite3.OperationalError,)  # "database is locked" once BUSY_S has passed

    def __init__(self, path: str | Path, ttl_s: float, active_s: float = 90.0):
        self.path, self.ttl_s, self.active_s = str(path), float(ttl_s), float(active_s)
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._ready = False  # the schema is made on first use: a lock held elsewhere then fails that call alone

    def _prepare(self, db: sqlite3.Connection) -> None:
        if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            self._ready = True
            return
        with self._write(db):
            if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                # a file of an older layout: rooms live hours, so starting empty loses no class in progress
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
        with self._write(db):
            for (old,) in db.execute("SELECT code FROM rooms WHERE active < ?", (time.time() - self.ttl_s,)).fetchall():
                self._delete(db, old)  # expired rooms go when a new one is made: the file does not grow for ever
            db.execute("DELETE FROM hits WHERE window < ?", (int(time.time()) // 60 - 120,))
            if self._live(db, code):
                return False
            db.execute("INSERT INTO rooms (code, key_hash, active) VALUES (?, ?, ?)", (code, key_hash, time.time()))
            return True

    def room(self, code):
        db = self._db()
        row = db.execute("SELECT key_hash, view, locked, active FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None or row[3] < time.time() - self.ttl_s:
            return None
        revealed = frozenset(q for (q,) in db.execute("SELECT question FROM revealed WHERE code = ?", (code,)))
        return RoomState(row[0], row[1], revealed, self._active(db, code), bool(row[2]))

    def _active(self, db, code: str) -> int:
        return db.execute("SELECT COUNT(*) FROM seats WHERE code = ? AND seen >= ?",
                          (code, time.time() - self.active_s)).fetchone()[0]

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
            if not self._live(db, code):
                return Join.MISSING
            (locked,) = db.execute("SELECT locked FROM rooms WHERE code = ?", (code,)).fetchone()
            if db.execute("SELECT 1 FROM removed WHERE code = ? AND seat = ?", (code, seat)).fetchone():
                return Join.REMOVED
            seen = self._seat(db, code, seat)
            if seen is None and locked:
                return Join.LOCKED
            active = seen is not None and seen >= time.time() - self.active_s
            if not active and self._active(db, code) >= cap:
                return Join.FULL
            db.execute("INSERT INTO seats (code, seat, nickname, seen) VALUES (?, ?, ?, ?) ON CONFLICT (code, seat) "
                       "DO UPDATE SET seen = excluded.seen", (code, seat, nickname, time.time()))
            if nickname:
                db.execute("UPDATE seats SET nickname = ? WHERE code = ? AND seat = ?", (nickname, code, seat))
            self._touch(db, code)
            return Join.ALREADY if active else Join.JOINED

    @contextlib.contextmanager
    def _seated(self, code: str, seat: str):
        """A write on a seat of a live room, under the write lock: yields the connection, or None when the
        room has expired or the seat is not in it (the caller then returns False)."""
        db = self._db()
        with self._write(db):
            seated = self._live(db, code) and self._seat(db, code, seat) is not None
            yield db if seated else None

    def seen(self, code, seat):
        with self._seated(code, seat) as db:
            if db is None:
                return False
            db.execute("UPDATE seats SET seen = ? WHERE code = ? AND seat = ?", (time.time(), code, seat))
            return True

    def leave(self, code, seat):
        with self._seated(code, seat) as db:
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

    def seats(self, code):
        now = time.time()
        rows = self._db().execute("SELECT seat, nickname, seen FROM seats WHERE code = ? AND seen >= ? "
                                  "ORDER BY seen DESC", (code, now - self.active_s)).fetchall()
        return [Seat(seat, nickname, max(0.0, now - seen)) for seat, nickname, seen in rows]

    def _name(self, db, code: str, seat: str, nickname: str) -> None:
        db.execute("UPDATE seats SET nickname = ? WHERE code = ? AND seat = ?", (nickname, code, seat))
        self._touch(db, code)

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
            db.execute("UPDATE seats SET seen = ? WHERE code = ? AND seat = ?", (time.time(), code, seat))
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
        with self._write(db):
            if not self._live(db, code):
                return False
            db.execute(sql, args)
            self._touch(db, code)
            return True

    def reveal(self, code, question):
        return self._write_room(code, "INSERT OR IGNORE INTO revealed (code, question) VALUES (?, ?)", (code, question))

    def set_view(self, code, view):
        return self._write_room(code, "UPDATE rooms SET view = ? WHERE code = ?", (view, code))

    def close(self, code):
        db = self._db()
        with self._write(db):
            self._delete(db, code)

    def hit(self, name, window_s):
        window = int(time.time() // window_s) * int(window_s) // 60  # minutes: old windows are cleared by create()
        row = self._db().execute("INSERT INTO hits (name, window, n) VALUES (?, ?, 1) ON CONFLICT (name, window) "
                                 "DO UPDATE SET n = n + 1 RETURNING n", (f"{name}/{window_s}", window)).fetchone()
        return int(row[0])

    def hits(self, name, window_s):
        window = int(time.time() // window_s) * int(window_s) // 60
        row = self._db().execute("SELECT n FROM hits WHERE name = ? AND window = ?",
                                 (f"{name}/{window_s}", window)).fetchone()
        return 0 if row is None else int(row[0])
