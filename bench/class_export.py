"""A class's results and downloads at the size a school runs: 300 seats, 20 questions, two votes each.

Fills a store directly (one transaction per answer, as the app writes them), then times what the teacher's
*Results* does: ``Classroom.results`` (one read of the whole room), the per-question and per-seat results, and both
CSV files. SQLite in a temp folder, and Redis when redis-server is installed. Prints the median of five reads.

    python -m bench.class_export [--seats 300] [--questions 20]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from deploy.local_redis import redis_server, redis_server_path
from live_class import results
from live_class.results import QuestionInfo
from live_class.rooms import Classroom, Limits, Seats

SECRET = b"bench"


def _fill(room: Classroom, seats: int, questions: int) -> tuple[str, str]:
    code, key = room.start()
    tokens = [Seats(SECRET).token(f"s{i:021d}") for i in range(seats)]
    rng = random.Random(0)
    for i, seat in enumerate(tokens):
        room.store.join(code, seat, seats + 1, f"Student {i}" if i % 3 else "")
    for q in range(questions):
        name = f"q{q:02d}"
        room.describe(code, key, QuestionInfo(name, "rope", f"Question {q}?", ("a", "b", "c", "d"), q % 4,
                                              tuple(None if j == q % 4 else f"belief {j}" for j in range(4))))
        for r in (1, 2):
            if r == 2:
                room.open_round(code, key, name)
            for seat in tokens:
                room.store.answer(code, seat, name, r, rng.randrange(4))
    return code, key


def _read(room: Classroom, code: str, key: str) -> tuple[float, int]:
    start = time.perf_counter()
    record = room.results(code, key)
    results.question_results(record)
    results.needs_help(results.seat_results(record))
    answers, summary = results.answers_csv(record), results.summary_csv(record)
    return time.perf_counter() - start, len(answers) + len(summary)


def measure(name: str, room: Classroom, seats: int, questions: int) -> None:
    code, key = _fill(room, seats, questions)
    times = [_read(room, code, key) for _ in range(5)]
    rows = len(room.results(code, key).answers)
    print(f"{name}: {rows:,} answers, CSV {times[0][1] / 1e6:.2f} MB, results and both CSV files in "
          f"{1000 * statistics.median(t for t, _ in times):.0f} ms (median of 5)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=300)
    parser.add_argument("--questions", type=int, default=20)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    from live_class.sqlite_store import SQLiteStore
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "class.sqlite3", 86400)
        measure("SQLite", Classroom(store, Limits(), secret=SECRET), args.seats, args.questions)
    if redis_server_path():
        from live_class.redis_store import RedisStore
        with redis_server() as url:
            measure("Redis", Classroom(RedisStore(url, 86400), Limits(), secret=SECRET), args.seats, args.questions)
    print(f"load average after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
