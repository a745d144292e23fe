"""The live-class store and its rules, against both backends: SQLite in a temp folder and a real redis-server."""

from __future__ import annotations

import threading
import time

import pytest

from deploy.local_redis import redis_process, redis_server, redis_server_path
from devtools.sqlite_lock import hold_lock
from live_class import rooms
from live_class.rooms import ClassError, Classroom, ClassUnreachable, Limits, Seats
from live_class.sqlite_store import SQLiteStore
from live_class.store import Join


@pytest.fixture(scope="module")
def redis_url():
    if redis_server_path() is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; .ci/run installs it)")
    pytest.importorskip("redis", reason="the redis client is pinned in requirements.txt")
    with redis_server() as url:
        yield url


_FLUSHED = pytest.StashKey[bool]()


def _store(kind: str, request, tmp_path, ttl_s: float):
    if kind == "sqlite":
        return SQLiteStore(tmp_path / "class.sqlite3", ttl_s)
    import redis

    from live_class.redis_store import RedisStore
    url = request.getfixturevalue("redis_url")
    if not request.node.stash.get(_FLUSHED, False):  # each test starts on an empty server (seats reused)
        redis.Redis.from_url(url).flushdb()
        request.node.stash[_FLUSHED] = True
    return RedisStore(url, ttl_s)


@pytest.fixture(params=["sqlite", "redis"])
def make(request, tmp_path):
    return lambda ttl_s=3600.0: _store(request.param, request, tmp_path, ttl_s)


SECRET = b"a secret every store object of a test shares"


def _seat(i: int) -> str:
    return Seats(SECRET).token(f"seat{i:018d}")  # a seat the server signed, under a name a test can repeat


def _classroom(store, **limits) -> Classroom:
    return Classroom(store, Limits(**limits), secret=SECRET)


def test_codes_are_short_unambiguous_and_forgiving():
    assert not set(rooms.ALPHABET) & set("0O1IL2Z5S6G8B")
    assert rooms.normal_code(" ac-d3 f") == "ACD3F"
    for bad in ("ACD3", "ACD3FF", "AC0D3", "", "ACD3F; DROP"):
        with pytest.raises(ClassError, match="not a room code"):
            rooms.normal_code(bad)


def test_answers_are_counted_once_per_seat_and_question(make):
    room = _classroom(make())
    code, key = room.start()
    assert len(code) == 5 and key not in code
    for i in range(5):
        assert room.join(code, _seat(i)) is Join.JOINED
    assert room.join(code, _seat(0)) is Join.ALREADY  # a reload: still one seat
    for i, choice in enumerate([0, 1, 1, 2, 1]):
        room.answer(code, _seat(i), "shift", choice, 3)
    room.answer(code, _seat(0), "shift", 2, 3)  # a changed answer replaces the old one
    assert room.counts(code, "shift", 3) == [0, 3, 2]
    assert room.counts(code, "other", 3) == [0, 0, 0]
    assert room.room(code).seats == 5
    with pytest.raises(ClassError, match="not seated"):
        room.answer(code, _seat(9), "shift", 0, 3)  # an unknown seat cannot vote
    for bad_question, choice, options in (("Shift!", 0, 3), ("shift", 3, 3), ("shift", -1, 3), ("shift", 0, 99)):
        with pytest.raises(ClassError):
            room.answer(code, _seat(1), bad_question, choice, options)
    assert room.counts(code, "shift", 3) == [0, 3, 2]


def test_only_the_teacher_key_reveals_shows_and_deletes(make):
    room = _classroom(make())
    code, key = room.start()
    room.join(code, _seat(1))
    room.answer(code, _seat(1), "q", 1, 2)
    for wrong in (None, "", "x" * 32, key[:-1] + ("A" if key[-1] != "A" else "B")):
        for action, argument in ((room.reveal, "q"), (room.show, "rope"), (room.delete, None)):
            with pytest.raises(ClassError, match="teacher"):
                action(code, wrong, *([argument] if argument else []))
    assert room.room(code).revealed == frozenset() and room.room(code).view == ""
    room.reveal(code, key, "q")
    room.show(code, key, "rope?T=64")
    assert room.room(code).revealed == {"q"} and room.room(code).view == "rope?T=64"
    room.delete(code, key)
    with pytest.raises(ClassError, match=f"no class {code}"):
        room.room(code)
    assert room.counts(code, "q", 2) == [0, 0]  # deleting took the answers
    with pytest.raises(ClassError, match="no class"):
        room.join(code, _seat(2))


def test_a_full_room_says_so_and_concurrent_joins_never_pass_the_cap(make):
    store = make()
    room = _classroom(store, students=12)
    code, _ = room.start()
    outcomes = []

    def join(i):  # threads as Streamlit runs sessions; each thread its own connection
        try:
            outcomes.append(room.join(code, _seat(i)))
        except ClassError as error:
            outcomes.append(str(error))

    threads = [threading.Thread(target=join, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count(Join.JOINED) == 12 and room.room(code).seats == 12
    assert [o for o in outcomes if isinstance(o, str)] == [f"Room {code} is full: 12 students are in it. A seat "
                                                           "frees up when its student leaves or closes the page "
                                                           "for 90 seconds; the teacher can also remove seats "
                                                           "from the class panel."] * 8


def test_writes_per_seat_are_limited(make):
    room = _classroom(make(), writes_per_minute=4)
    code, _ = room.start()
    room.join(code, _seat(1))
    room.join(code, _seat(2))
    for i in range(4):
        room.answer(code, _seat(1), "q", i % 2, 2)
    with pytest.raises(ClassError, match="at most 4 a minute"):
        room.answer(code, _seat(1), "q", 0, 2)
    room.answer(code, _seat(2), "q", 0, 2)  # another seat is not held back
    assert room.counts(code, "q", 2) == [1, 1]


def test_rooms_expire_after_their_last_activity(make):
    room = _classroom(make(ttl_s=0.6))
    code, _ = room.start()
    for _ in range(3):  # activity keeps it open past its first expiry...
        time.sleep(0.3)
        room.join(code, new := room.new_seat())
        room.answer(code, new, "q", 0, 2)
    assert room.room(code).seats == 3 and room.counts(code, "q", 2) == [3, 0]
    time.sleep(0.9)  # ...and quiet ends it, answers and all
    with pytest.raises(ClassError, match="no class"):
        room.room(code)
    assert room.counts(code, "q", 2) == [0, 0]


def test_two_replicas_see_one_room(make):
    """Two store objects on the same backend stand for two app processes: a student lands on either."""
    teacher, student = _classroom(make()), _classroom(make())
    code, key = teacher.start()
    student.join(code, _seat(1))
    student.answer(code, _seat(1), "q", 1, 2)
    assert teacher.counts(code, "q", 2) == [0, 1]
    teacher.reveal(code, key, "q")
    assert student.room(code).revealed == {"q"}


def test_nicknames_are_checked_folded_and_read_by_the_teacher_only(make):
    room = _classroom(make())
    code, key = room.start()
    assert room.join(code, _seat(1), "  Ana \t  Lee\n") is Join.JOINED
    room.join(code, _seat(2))  # no nickname: anonymous
    room.join(code, _seat(3), "<b>Bo</b> & **x**")  # stored as typed: the page escapes it
    assert room.nickname(code, _seat(1)) == "Ana Lee" and room.nickname(code, _seat(2)) == ""
    assert room.roster(code, key) == rooms.Names(("<b>Bo</b> & **x**", "Ana Lee"), 1)
    room.answer(code, _seat(1), "q", 0, 2)
    room.answer(code, _seat(2), "q", 1, 2)
    assert room.answered(code, key, "q") == (rooms.Names(("Ana Lee",), 1), rooms.Names(("<b>Bo</b> & **x**",), 0))
    for wrong in (None, "x" * 32):  # a student's link has no key: no names
        for read in (lambda k: room.roster(code, k), lambda k: room.answered(code, k, "q")):
            with pytest.raises(ClassError, match="teacher"):
                read(wrong)
    room.rename(code, _seat(2), "Cy")  # named later, from the class panel
    assert room.join(code, _seat(1), "Ana") is Join.ALREADY  # a nickname on a second join replaces the first
    room.rename(code, _seat(3), "")  # and an empty one removes it
    assert room.roster(code, key) == rooms.Names(("Ana", "Cy"), 1)
    for bad, sentence in (("x" * (rooms.MAX_NICKNAME_CHARS + 1), "nickname is 25 characters long: at most 24"),
                          ("A\x00B", "nickname holds characters that do not print"),
                          ("A\u202eB", "nickname holds characters that do not print")):
        with pytest.raises(ClassError, match=sentence):
            room.join(code, _seat(4), bad)
        with pytest.raises(ClassError, match=sentence):
            room.rename(code, _seat(1), bad)
    assert room.nickname(code, _seat(1)) == "Ana" and room.room(code).seats == 3
    with pytest.raises(ClassError, match="not seated"):
        room.rename(code, _seat(9), "Eve")
    room.delete(code, key)
    assert room.store.nicknames(code) == {} and room.nickname(code, _seat(1)) == ""  # gone with the room
    code2, _ = room.start()
    with pytest.raises(ClassError, match="not seated"):
        room.rename(code2, _seat(1), "Ana")  # a seat of another room is not seated here


def test_nicknames_expire_with_the_room(make):
    room = _classroom(make(ttl_s=0.5))
    code, _ = room.start()
    room.join(code, _seat(1), "Ana")
    time.sleep(0.8)
    assert room.store.nicknames(code) == {}


def test_a_seat_is_one_the_server_signed(make):
    room = _classroom(make())
    code, _ = room.start()
    real = room.new_seat()
    assert room.valid_seat(real) and room.join(code, real) is Join.JOINED
    raw, signature = real.split(".")
    other = Classroom(make(), Limits(), secret=b"another deployment's secret").new_seat()
    for forged in ("FixedSeatFromALink0001", f"{raw}.{'A' * 22}", f"{'A' * 22}.{signature}", other, real + "x", ""):
        assert not room.valid_seat(forged)
        with pytest.raises(ClassError, match="not one this class made"):
            room.join(code, forged)
        with pytest.raises(ClassError, match="not one this class made"):
            room.answer(code, forged, "q", 0, 2)
    assert room.room(code).seats == 1


def test_the_store_keeps_one_secret_for_every_replica(make):
    first, second = Classroom(make(), Limits()), Classroom(make(), Limits())  # no secret given: the store's own
    seat = first.new_seat()
    assert second.valid_seat(seat) and first.store.secret() == second.store.secret()


def test_seats_that_left_or_went_quiet_stop_counting_and_come_back_to_their_answers(make):
    store = make()
    store.active_s = 0.4  # a seat counts 0.4 s after its browser was last seen
    room = _classroom(store, students=2)
    code, key = room.start()
    room.join(code, _seat(1))
    room.join(code, _seat(2))
    room.answer(code, _seat(1), "q", 1, 2)
    with pytest.raises(ClassError, match="is full"):
        room.join(code, _seat(3))
    room.leave(code, _seat(1))  # Leave the class: its seat is free at once
    assert room.room(code).seats == 1 and room.join(code, _seat(3)) is Join.JOINED
    time.sleep(0.5)  # both quiet now
    assert room.room(code).seats == 0 and room.roster(code, key) == rooms.Names((), 0)
    assert room.join(code, _seat(1)) is Join.JOINED  # back, to the same seat and its answer
    assert room.counts(code, "q", 2) == [0, 1] and room.room(code).seats == 1
    assert room.seen(code, _seat(1)) and not room.seen(code, _seat(9))


def test_the_teacher_locks_the_room_and_removes_a_seat(make):
    room = _classroom(make())
    code, key = room.start()
    room.join(code, _seat(1), "Ann")
    room.join(code, _seat(2))
    room.answer(code, _seat(1), "q", 0, 2)
    room.answer(code, _seat(2), "q", 1, 2)
    for action in (lambda k: room.lock(code, k, True), lambda k: room.remove(code, k, _seat(2))):
        with pytest.raises(ClassError, match="teacher"):
            action("x" * 32)
    room.lock(code, key, True)
    assert room.room(code).locked
    with pytest.raises(ClassError, match="locked"):
        room.join(code, _seat(3))
    room.leave(code, _seat(2))
    assert room.join(code, _seat(2)) is Join.JOINED  # a seat the room holds comes back through the lock
    room.remove(code, key, _seat(2))
    assert room.counts(code, "q", 2) == [1, 0] and room.room(code).seats == 1  # its answer went with it
    with pytest.raises(ClassError, match="removed this browser"):
        room.join(code, _seat(2))
    with pytest.raises(ClassError, match="not seated"):
        room.answer(code, _seat(2), "q", 1, 2)
    room.lock(code, key, False)
    assert room.join(code, _seat(3)) is Join.JOINED
    assert [s.nickname for s in room.seats(code, key)].count("Ann") == 1


def test_new_seats_are_limited_per_client_and_per_room_and_wrong_codes_per_client(make):
    room = _classroom(make(), seats_per_client=3, seats_per_room_minute=5, wrong_codes_per_minute=4)
    code, _ = room.start()
    for i in range(3):
        room.join(code, _seat(i), client="10.0.0.1")
    with pytest.raises(ClassError, match="This connection has taken 3 new seats"):
        room.join(code, _seat(3), client="10.0.0.1")
    assert room.join(code, _seat(0), client="10.0.0.1") is Join.ALREADY  # a reload takes no new seat
    room.join(code, _seat(3), client="10.0.0.2")
    room.join(code, _seat(4), client="10.0.0.3")
    with pytest.raises(ClassError, match="seating many students at once"):
        room.join(code, _seat(5), client="10.0.0.4")
    assert room.room(code).seats == 5
    for wrong in ("AAAAA", "CCCCC", "not a code", "DDDDD"):
        with pytest.raises(ClassError, match="no class|not a room code"):
            room.find(wrong, "10.0.0.9")
    with pytest.raises(ClassError, match="Too many room codes"):
        room.find(code, "10.0.0.9")  # even the right one, until the minute is over
    assert room.find(code, "10.0.0.8").seats == 5  # another address is not held back


def test_nicknames_that_show_nothing_or_are_too_long_get_their_sentence():
    for invisible in ("\u3164", "\u2800\u2800", "\u3164 \u115f", "\uffa0"):
        with pytest.raises(ClassError, match="shows nothing"):
            rooms.normal_nickname(invisible)
    with pytest.raises(ClassError, match="10,000 characters long: at most 24"):
        rooms.normal_nickname("x" * 10_000)
    assert rooms.normal_nickname("Zoë 李 🙂") == "Zoë 李 🙂"




def _answer_until_taken(room, code, seats, stalled, tries):
    """Each seat answers the way the app's outbox does: again after a ClassUnreachable, until the store takes it.
    Every failed try must come back within the store's own timeout (plus slack for a busy machine)."""
    def answer(i, seat):
        while True:
            started = time.monotonic()
            try:
                room.answer(code, seat, "q", i % 3, 3)
                return
            except ClassUnreachable:
                tries.append(time.monotonic() - started)
                time.sleep(0.2)

    threads = [threading.Thread(target=answer, args=(i, s)) for i, s in enumerate(seats)]
    for t in threads:
        t.start()
    stalled()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)


def test_no_answer_is_lost_while_another_process_holds_sqlites_write_lock(tmp_path):
    store = SQLiteStore(tmp_path / "class.sqlite3", 3600)
    room = _classroom(store)
    code, _ = room.start()
    seats = [_seat(i) for i in range(30)]
    for seat in seats:
        room.join(code, seat)
    holder = hold_lock(tmp_path / "class.sqlite3", 3)
    tries: list[float] = []
    _answer_until_taken(room, code, seats, lambda: holder.wait(timeout=30), tries)
    assert tries and max(tries) < 5, "a try waits for the lock at most BUSY_S (1 s), not the whole stall"
    assert room.counts(code, "q", 3) == [10, 10, 10] and room.room(code).seats == 30  # none lost, none doubled


@pytest.fixture(scope="module")
def redis_proc():
    if redis_server_path() is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; .ci/run installs it)")
    with redis_process(persist=True) as server:
        yield server


def test_no_answer_is_lost_while_redis_is_stopped_or_restarted(redis_proc):
    from live_class.redis_store import RedisStore
    room = _classroom(RedisStore(redis_proc.url, 3600))
    code, _ = room.start()
    seats = [_seat(100 + i) for i in range(30)]
    for seat in seats:
        room.join(code, seat)
    tries: list[float] = []

    def stall():
        time.sleep(3)  # the threads meet a frozen server...
        redis_proc.resume()

    redis_proc.pause()
    _answer_until_taken(room, code, seats[:15], stall, tries)
    assert tries and max(tries) < 5
    tries.clear()
    _answer_until_taken(room, code, seats[15:], redis_proc.restart, tries)  # ...then one that restarts
    assert room.counts(code, "q", 3) == [10, 10, 10] and room.room(code).seats == 30
