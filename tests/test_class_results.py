# ruff: noqa: F811  (the stores fixture "make" is imported from test_live_class_store and taken by name)
"""A class's two votes, its end, its kept results and their downloads, and the limits a school's network meets:
against both stores (SQLite in a temp folder and a real redis-server)."""

from __future__ import annotations

import csv
import io
import threading
import time

import pytest

from live_class import results, rooms
from live_class.results import QuestionInfo
from live_class.rooms import ClassEnded, ClassError, VoteClosed
from live_class.store import Join
from tests.test_live_class_store import _classroom, _seat, make, redis_url  # noqa: F401 (fixtures)

SHIFT = QuestionInfo("shift", "rope", "Move both 10 on: their score?", ("the same", "higher", "lower"), 0,
                     (None, "RoPE adds position, so moving both changes the score", "Far means less, always"))
ORDER = QuestionInfo("order", "why_position", "Shuffle the words: the output?", ("shuffled", "the same"), 0,
                     (None, "Attention alone sees order"))


def _class(store, seats: int = 4, **limits):
    room = _classroom(store, **limits)
    code, key = room.start()
    for i in range(seats):
        room.join(code, _seat(i), f"Student {i}" if i % 2 == 0 else None)
    return room, code, key


def test_a_second_vote_closes_the_first_and_a_reveal_closes_both(make):
    room, code, key = _class(make())
    for i, choice in enumerate([1, 1, 0, 2]):
        room.answer(code, _seat(i), "shift", choice, 3)
    room.open_round(code, key, "shift")
    assert room.room(code).round_of("shift") == 2 and room.room(code).round_of("order") == 1
    with pytest.raises(VoteClosed, match="second vote"):
        room.answer(code, _seat(0), "shift", 0, 3)  # the first round is closed
    for i, choice in enumerate([0, 1, 0]):
        room.answer(code, _seat(i), "shift", choice, 3, round=2)
    assert room.counts(code, "shift", 3) == [1, 2, 1] and room.counts(code, "shift", 3, round=2) == [2, 1, 0]
    assert room.choices(code, _seat(0)) == {"shift": {1: 1, 2: 0}}  # a reload reads its own answers back
    assert room.choices(code, _seat(3)) == {"shift": {1: 2}} and room.choices(code, "forged") == {}
    room.reveal(code, key, "shift")
    room.join(code, late := room.new_seat())
    for seat, r in ((_seat(3), 2), (late, 2), (late, 1)):  # after the reveal nobody's answer counts
        with pytest.raises(VoteClosed):
            room.answer(code, seat, "shift", 0, 3, round=r)
    with pytest.raises(ClassError, match="revealed"):
        room.open_round(code, key, "shift")
    with pytest.raises(ClassError, match="teacher"):
        room.open_round(code, "x" * 32, "order")
    assert room.counts(code, "shift", 3, round=2) == [2, 1, 0]


def test_an_ended_class_keeps_its_results_reopens_and_is_deleted_for_good(make):
    room, code, key = _class(make())
    room.answer(code, _seat(0), "shift", 0, 3)
    room.end(code, key)
    assert room.room(code).ended
    with pytest.raises(ClassEnded, match=f"class in room {code} has ended"):
        room.join(code, room.new_seat())
    with pytest.raises(VoteClosed, match="has ended"):
        room.answer(code, _seat(1), "shift", 1, 3)
    with pytest.raises(ClassEnded):
        room.running(code)
    assert [a.choice for a in room.results(code, key).answers] == [0]
    with pytest.raises(ClassError, match="teacher"):
        room.reopen(code, "x" * 32)
    room.reopen(code, key)
    assert room.join(code, _seat(1)) is Join.ALREADY and not room.room(code).ended
    room.answer(code, _seat(1), "shift", 1, 3)
    for action in (room.results, room.end, room.delete):
        with pytest.raises(ClassError, match="teacher"):
            action(code, None)
    room.delete(code, key)
    with pytest.raises(ClassError, match=f"no class {code}"):
        room.results(code, key)


def test_a_room_left_alone_ends_and_is_kept_until_its_retention(make, monkeypatch):
    store = make(ttl_s=3600)
    room, code, key = _class(store)
    room.answer(code, _seat(0), "shift", 0, 3)
    monkeypatch.setenv("POSENC_CLASS_CLOCK_OFFSET_S", str(rooms.IDLE_S + 60))  # the next day, as a replica sees it
    later = _classroom(make(ttl_s=rooms.IDLE_S + 3600))
    assert later.room(code).ended and later.results(code, key).answers[0].choice == 0
    with pytest.raises(ClassEnded):
        later.join(code, _seat(2))
    later.reopen(code, key)
    assert later.join(code, _seat(2)) is Join.JOINED
    monkeypatch.setenv("POSENC_CLASS_CLOCK_OFFSET_S", str(rooms.IDLE_S + 2 * 3600 + 120))
    with pytest.raises(ClassError, match="no class"):  # past its retention: gone, answers and all
        _classroom(make(ttl_s=3600)).room(code)


def test_retention_is_the_operators_setting(monkeypatch):
    assert rooms.keep_days() == rooms.KEEP_DAYS
    for value, days in (("7", 7), ("0.5", 0.5), ("0", rooms.KEEP_DAYS), ("many", rooms.KEEP_DAYS)):
        monkeypatch.setenv("POSENC_CLASS_KEEP_DAYS", value)
        assert rooms.keep_days() == days


def _two_rounds(room, code, key):
    """Four seats, two questions; "shift" in two rounds: seat 0 wrong then right, seat 1 right then wrong,
    seat 2 wrong twice (the same wrong option), seat 3 only the first round."""
    room.describe(code, key, SHIFT)
    room.describe(code, key, ORDER)
    for i, choice in enumerate([1, 0, 1, 2]):
        room.answer(code, _seat(i), "shift", choice, 3)
    room.open_round(code, key, "shift")
    for i, choice in enumerate([0, 1, 1]):
        room.answer(code, _seat(i), "shift", choice, 3, round=2)
    for i, choice in enumerate([0, 1, 1, 0]):
        room.answer(code, _seat(i), "order", choice, 2)
    room.reveal(code, key, "shift")


def test_results_per_question_and_seat_read_the_two_votes(make):
    room, code, key = _class(make())
    _two_rounds(room, code, key)
    record = room.results(code, key)
    shift, order = results.question_results(record)
    assert (shift.question, order.question) == ("shift", "order") and shift.revealed and not order.revealed
    assert shift.rounds[1] == results.RoundResult((1, 2, 1), 4, 1)
    assert shift.rounds[2] == results.RoundResult((1, 2, 0), 3, 1)
    assert (shift.wrong_to_right, shift.right_to_wrong) == (1, 1)
    assert shift.common_wrong == 1 and shift.common_wrong_count == 2 and shift.misconception == SHIFT.misconceptions[1]
    assert order.rounds[1].share_right == 0.5 and order.misconception == "Attention alone sees order"
    seats = {s.alias: s for s in results.seat_results(record)}
    assert [(s.right, s.graded) for s in seats.values()] == [(2, 2), (0, 2), (0, 2), (1, 2)]
    assert seats["Seat 1"].nickname == "Student 0" and seats["Seat 2"].nickname == ""
    assert seats["Seat 2"].final == {"shift": 1, "order": 1}  # its second vote is its answer
    assert [s.alias for s in results.needs_help(list(seats.values()))] == ["Seat 2", "Seat 3"]


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_csv_rows_are_the_answers_given_and_never_run_a_formula(make):
    room, code, key = _class(make(), seats=0)
    room.join(code, _seat(0), "=HYPERLINK(\"http://x\")")
    room.join(code, _seat(1), "@SUM(A1)")
    room.join(code, _seat(2), "+1 Ana")
    room.join(code, _seat(3), "-Bo")
    _two_rounds(room, code, key)
    record = room.results(code, key)
    rows = _rows(results.answers_csv(record))
    assert tuple(rows[0]) == results.ANSWER_COLUMNS and len(rows) == len(record.answers) == 11
    given = {(r["question"], int(r["round"]), r["seat"]): (int(r["option"]) - 1, r["answer"], r["right"])
             for r in rows}
    for a in record.answers:
        info = {"shift": SHIFT, "order": ORDER}[a.question]
        assert given[(a.question, a.round, record.aliases[a.seat])] == (
            a.choice, info.options[a.choice], "yes" if a.choice == info.answer else "no")
    assert {r["nickname"] for r in rows} == {"'=HYPERLINK(\"http://x\")", "'@SUM(A1)", "'+1 Ana", "'-Bo"}
    assert all(r["room"] == code and r["time"].endswith("Z") for r in rows)
    assert not any(_seat(i) in results.answers_csv(record) for i in range(4))  # a token is a credential
    assert {r["nickname"] for r in _rows(results.answers_csv(record, nicknames=False))} == {""}
    summary = _rows(results.summary_csv(record))
    assert [(r["question"], r["round"], r["answered"], r["right"]) for r in summary] == [
        ("shift", "1", "4", "1"), ("shift", "2", "3", "1"), ("order", "1", "4", "2")]
    assert summary[1]["wrong_to_right"] == "1" and summary[1]["most_common_wrong"] == "higher"
    assert summary[1]["misconception"] == SHIFT.misconceptions[1] and summary[0]["misconception"] == ""


def test_a_limit_counts_in_a_sliding_window_atomically(make):
    store = make()
    assert store.hits("burst", 60) == 0  # the store is set up before the threads race
    outcomes = []
    threads = [threading.Thread(target=lambda: outcomes.append(store.hit("burst", 60, 7))) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count(True) == 7 and store.hits("burst", 60) == 7  # 201 of 200 never happens
    assert store.hit("short", 0.3, 1) and not store.hit("short", 0.3, 1)


def test_a_windows_edge_lets_nothing_extra_through(make):
    """Three a second: three events just before a fixed window's edge and three just after it would all pass a
    counter that restarts at the edge; a sliding window refuses the second three until the first have aged out."""
    store = make()
    assert [store.hit("edge", 1.0, 3) for _ in range(3)] == [True] * 3
    time.sleep(0.5)
    assert [store.hit("edge", 1.0, 3) for _ in range(3)] == [False] * 3 and store.hits("edge", 1.0) == 3
    time.sleep(0.7)  # the first three are more than a second old now
    assert store.hit("edge", 1.0, 3) and store.hits("edge", 1.0) == 1


def test_a_guesser_behind_a_schools_address_blocks_only_their_own_browser(make):
    room, code, key = _class(make(), seats=0, wrong_codes_per_minute=3, seats_per_client=2)
    room.join(code, _seat(0), client="school")
    room.join(code, _seat(1), client="school")
    for wrong in ("AAAAA", "CCCCC", "DDDDD"):
        with pytest.raises(ClassError, match="no class"):
            room.find(wrong, "school", browser="guesser")
    with pytest.raises(ClassError, match="Too many room codes"):
        room.find(code, "school", browser="guesser")  # the guesser is held back, even on the right code...
    assert room.find(code, "school", browser="classmate").seats == 2  # ...the class behind the same address is not
    assert room.find(code, "school", browser="guesser", seat=_seat(0)).seats == 2  # a seated student always comes back
    with pytest.raises(ClassError, match="taken 2 new seats"):
        room.join(code, _seat(2), client="school")
    room.leave(code, _seat(0))
    assert room.join(code, _seat(0), client="school") is Join.JOINED  # a seat the room holds is not a new seat


def test_the_teacher_reads_the_shift_between_the_votes(make):
    room, code, key = _class(make())
    _two_rounds(room, code, key)
    assert room.shift(code, key, "shift", SHIFT.answer) == (1, 1)
    assert room.store.votes(code, "shift", 2) == {_seat(0): 0, _seat(1): 1, _seat(2): 1}
    with pytest.raises(ClassError, match="teacher"):
        room.shift(code, None, "shift", 0)


def test_a_seated_students_course_progress_reaches_the_teachers_results_only(make):
    room, code, key = _class(make(), seats=2)
    room.report_course(code, _seat(0), "p1.0.1121")
    room.report_course(code, _seat(0), "p1.2.11212")  # the newest report replaces the last
    room.report_course(code, _seat(1), "")  # none yet
    assert room.results(code, key).courses == {_seat(0): "p1.2.11212"}
    for bad in ("<script>", "p1.0." + "1" * 2000, "p1.x.1"):
        with pytest.raises(ClassError, match="not one this app writes"):
            room.report_course(code, _seat(0), bad)
    with pytest.raises(ClassError, match="not seated"):
        room.report_course(code, room.new_seat(), "p1..1")
    with pytest.raises(ClassError, match="teacher"):
        room.results(code, None)


def test_a_kept_class_of_the_schema_before_course_progress_keeps_its_results(tmp_path):
    import sqlite3

    from live_class.sqlite_store import SQLiteStore

    path = tmp_path / "class.sqlite3"
    room = _classroom(SQLiteStore(path, ttl_s=3600))
    code, key = room.start()
    room.join(code, _seat(0))
    room.answer(code, _seat(0), "shift", 0, 1)
    with sqlite3.connect(path) as db:  # the file as the layout before course progress left it
        db.execute("ALTER TABLE seats DROP COLUMN course")
        db.execute("PRAGMA user_version = 3")
    upgraded = _classroom(SQLiteStore(path, ttl_s=3600))
    assert [a.choice for a in upgraded.results(code, key).answers] == [0]
    upgraded.report_course(code, _seat(0), "p1.0.1")
    assert upgraded.results(code, key).courses == {_seat(0): "p1.0.1"}
