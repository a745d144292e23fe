"""Another process holding a SQLite database's write lock for a while: the class store's stall, made real.

``hold_lock`` starts the holder and returns once it has the lock (``BEGIN IMMEDIATE``), so a test's next store
call meets a locked database; the holder commits and exits after ``seconds``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_HOLDER = ("import sqlite3, sys, time\n"
           "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
           "db.execute('BEGIN IMMEDIATE')\n"
           "print('locked', flush=True)\n"
           "time.sleep(float(sys.argv[2]))\n"
           "db.execute('COMMIT')\n")


def hold_lock(path: Path | str, seconds: float) -> subprocess.Popen:
    """The holder process, already holding ``path``'s write lock; ``wait()`` on it for the lock's release."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE,
                              text=True)
    if holder.stdout.readline().strip() != "locked":
        holder.kill()
        raise RuntimeError(f"no process could lock {path}")
    return holder
