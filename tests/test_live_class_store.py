"""The live-class store and its rules, against both backends: SQLite in a temp folder and a real redis-server."""

from __future__ import annotations

import threading
import time

import pytest

from deploy.local_redis import redis_server, redis_server_path
from live_class import rooms
from live_class.rooms import ClassError, Classroom
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


def _seat(i: int) -> str:
    return f"seat{i:018d}"  # 22 characters, like rooms.new_seat()


def test_codes_are_short_unambiguous_and_forgiving():
    assert not set(rooms.ALPHABET) & set("0O1IL2Z5S6G8B")
    assert rooms.normal_code(" ac-d3 f") == "ACD3F"
    for bad in ("ACD3", "ACD3FF", "AC0D3", "", "ACD3F; DROP"):
        with pytest.raises(ClassError, match="not a room code"):
            rooms.normal_code(bad)


def test_answers_are_counted_once_per_seat_and_question(make):
    room = Classroom(make())
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
    with pytest.raises(ClassError, match="has not joined"):
        room.answer(code, _seat(9), "shift", 0, 3)  # an unknown seat cannot vote
    for bad_question, choice, options in (("Shift!", 0, 3), ("shift", 3, 3), ("shift", -1, 3), ("shift", 0, 99)):
        with pytest.raises(ClassError):
            room.answer(code, _seat(1), bad_question, choice, options)
    assert room.counts(code, "shift", 3) == [0, 3, 2]


def test_only_the_teacher_key_reveals_shows_and_closes(make):
    room = Classroom(make())
    code, key = room.start()
    room.join(code, _seat(1))
    room.answer(code, _seat(1), "q", 1, 2)
    for wrong in (None, "", "x" * 32, key[:-1] + ("A" if key[-1] != "A" else "B")):
        for action, argument in ((room.reveal, "q"), (room.show, "rope"), (room.close, None)):
            with pytest.raises(ClassError, match="teacher"):
                action(code, wrong, *([argument] if argument else []))
    assert room.room(code).revealed == frozenset() and room.room(code).view == ""
    room.reveal(code, key, "q")
    room.show(code, key, "rope?T=64")
    assert room.room(code).revealed == {"q"} and room.room(code).view == "rope?T=64"
    room.close(code, key)
    with pytest.raises(ClassError, match=f"no open room {code}"):
        room.room(code)
    assert room.counts(code, "q", 2) == [0, 0]  # closing deleted the answers
    with pytest.raises(ClassError, match="no open room"):
        room.join(code, _seat(2))


def test_a_full_room_says_so_and_concurrent_joins_never_pass_the_cap(make):
    store = make()
    room = Classroom(store, cap=12)
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
    assert [o for o in outcomes if isinstance(o, str)] == [f"Room {code} is full: it holds 12 students."] * 8


def test_writes_per_seat_are_limited(make):
    room = Classroom(make(), writes_per_minute=4)
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
    room = Classroom(make(ttl_s=0.6))
    code, _ = room.start()
    for _ in range(3):  # activity keeps it open past its first expiry...
        time.sleep(0.3)
        room.join(code, new := rooms.new_seat())
        room.answer(code, new, "q", 0, 2)
    assert room.room(code).seats == 3 and room.counts(code, "q", 2) == [3, 0]
    time.sleep(0.9)  # ...and quiet ends it, answers and all
    with pytest.raises(ClassError, match="no open room"):
        room.room(code)
    assert room.counts(code, "q", 2) == [0, 0]


def test_two_replicas_see_one_room(make):
    """Two store objects on the same backend stand for two app processes: a student lands on either."""
    teacher, student = Classroom(make()), Classroom(make())
    code, key = teacher.start()
    student.join(code, _seat(1))
    student.answer(code, _seat(1), "q", 1, 2)
    assert teacher.counts(code, "q", 2) == [0, 1]
    teacher.reveal(code, key, "q")
    assert student.room(code).revealed == {"q"}


def test_nicknames_are_checked_folded_and_read_by_the_teacher_only(make):
    room = Classroom(make())
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
    with pytest.raises(ClassError, match="has not joined"):
        room.rename(code, _seat(9), "Eve")
    room.close(code, key)
    assert room.store.nicknames(code) == {} and room.nickname(code, _seat(1)) == ""  # gone with the room
    code2, _ = room.start()
    with pytest.raises(ClassError, match="has not joined"):
        room.rename(code2, _seat(1), "Ana")  # a seat of another room is not seated here


def test_nicknames_expire_with_the_room(make):
    room = Classroom(make(ttl_s=0.5))
    code, _ = room.start()
    room.join(code, _seat(1), "Ana")
    time.sleep(0.8)
    assert room.store.nicknames(code) == {}
