"""The live class against a hostile client and a failing store, at Streamlit's protocol level (devtools.st_protocol):
what a prankster can do with nothing but the room code and a websocket, and what a stalled, stopped or restarted
store does to a room that is answering. Each case runs on a real app server, on SQLite (its write lock held by
another process) and on a real redis-server (stopped with SIGSTOP, restarted), and ends with the answers counted
exactly (none lost, none doubled), no error box and nothing from the address drawn as markup.

The servers believe X-Forwarded-For from loopback (POSENC_TRUSTED_PROXY=127.0.0.1, as behind deploy/nginx), so each
tab here says which address it comes from, as the proxy would; one server names no proxy and believes nobody's
header. The join limits are set low so that a flood reaches them in a few joins.
"""

from __future__ import annotations

import subprocess
import threading
import time
import urllib.request

import pytest

from deploy.local_redis import redis_process, redis_server_path
from devtools.sqlite_lock import hold_lock
from devtools.st_protocol import Tab
from devtools.streamlit_server import streamlit_server
from live_class.rooms import Classroom
from live_class.sqlite_store import SQLiteStore

QUESTION, PAGE = "order_rows", "order"
LIMITS = {"POSENC_TRUSTED_PROXY": "127.0.0.1", "POSENC_CLASS_SEATS_PER_CLIENT": "4",
          "POSENC_CLASS_WRONG_CODES_PER_MINUTE": "3"}


class Served:
    """An app server and the same store as the teacher's side reads it."""

    def __init__(self, url: str, classroom: Classroom, stall, restart=None):
        self.url, self.classroom, self.stall, self.restart = url, classroom, stall, restart


@pytest.fixture(scope="module")
def sqlite_app(tmp_path_factory):
    path = tmp_path_factory.mktemp("class") / "class.sqlite3"

    def stall(seconds: float) -> subprocess.Popen:
        return hold_lock(path, seconds)

    with streamlit_server(env={**LIMITS, "POSENC_CLASS_DB": str(path)}) as url:
        yield Served(url, Classroom(SQLiteStore(path, 3600)), stall)


@pytest.fixture(scope="module")
def redis_app():
    if redis_server_path() is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; .ci/run installs it)")
    from live_class.redis_store import RedisStore

    with redis_process(persist=True) as server:
        def stall(seconds: float) -> threading.Thread:
            server.pause()
            resume = threading.Timer(seconds, server.resume)
            resume.start()
            return resume

        with streamlit_server(env={**LIMITS, "POSENC_REDIS_URL": server.url}) as url:
            yield Served(url, Classroom(RedisStore(server.url, 3600)), stall, server.restart)


@pytest.fixture(params=["sqlite", "redis"])
def served(request):
    return request.getfixturevalue(f"{request.param}_app")


def _tab(served: Served, query: str, address: str, page: str = PAGE) -> tuple[Tab, object]:
    tab = Tab(served.url, page, query, headers={"X-Forwarded-For": address})
    return tab, tab.run()


def _answer_through_a_stall(served: Served, students: int, disrupt) -> None:
    code, _ = served.classroom.start()
    tabs = []
    for i in range(students):
        tab, run = _tab(served, f"room={code}", f"10.1.0.{i}")
        assert run.ok and not run.errors() and "seat=" in tab.query, run.errors()
        tabs.append((tab, run.widget(f"predict_{QUESTION}")))
    disrupt()
    for i, (tab, radio) in enumerate(tabs):  # everyone answers while the store is out
        tab.set(radio.id, string_value=radio.options[i % 3])
        run = tab.run(fragment=radio.fragment)
        assert run.ok and not run.errors(), run.errors()
        assert any("Saving your answer" in t or "is saved" in t for t in run.texts("markdown")), run.texts()
    deadline = time.monotonic() + 60
    waiting = list(tabs)
    while waiting:  # the page's poll, ticking as the browser's timer does, until every answer says "saved"
        assert time.monotonic() < deadline, f"{len(waiting)} answers still not saved"
        time.sleep(1.0)
        for tab, radio in list(waiting):
            runs = tab.tick()
            assert all(r.ok and not r.errors() for r in runs), [r.errors() for r in runs]
            again = tab.run(fragment=radio.fragment)  # the lesson as it now reads
            if any("is saved" in t for t in again.texts("markdown")):
                waiting.remove((tab, radio))
    per_option = [len(range(o, students, 3)) for o in range(3)]
    assert served.classroom.counts(code, QUESTION, 3) == per_option and served.classroom.room(code).seats == students
    for tab, _ in tabs:
        tab.close()


def test_no_answer_is_lost_while_the_store_stalls(served):
    """SQLite's write lock held by another process, or Redis frozen (SIGSTOP), for 4 s while a room answers."""
    stalled = []
    _answer_through_a_stall(served, 6, lambda: stalled.append(served.stall(4)))
    for s in stalled:
        s.wait(30) if isinstance(s, subprocess.Popen) else s.join(30)


def test_no_answer_is_lost_while_redis_restarts(redis_app):
    _answer_through_a_stall(redis_app, 4, redis_app.restart)


def test_a_page_opened_while_the_store_is_out_is_a_lesson_and_joins_when_it_is_back(served):
    code, _ = served.classroom.start()
    warm, _ = _tab(served, "", "10.2.0.9")  # a server's first page imports for seconds: not inside the 4 s stall
    warm.close()
    stall = served.stall(4)
    tab, run = _tab(served, f"room={code}", "10.2.0.1")
    assert run.ok and not run.errors(), run.errors()
    assert any("cannot be reached" in t for t in run.texts("alert")) and run.widget(f"predict_{QUESTION}")
    stall.wait(30) if isinstance(stall, subprocess.Popen) else stall.join(30)
    deadline = time.monotonic() + 30
    while "seat=" not in tab.query:  # the poll tries the join again
        assert time.monotonic() < deadline
        time.sleep(1.0)
        assert all(r.ok and not r.errors() for r in tab.tick())
    assert served.classroom.room(code).seats == 1
    tab.close()


def test_a_join_flood_from_one_address_stops_at_its_limit_and_leaving_frees_the_seat(redis_app):
    code, _ = redis_app.classroom.start()
    seated = []
    for _ in range(6):  # one address opens the join link again and again, keeping nothing between loads
        tab, run = _tab(redis_app, f"room={code}", "10.3.0.1", page="")
        seated.append("seat=" in tab.query)
        if not seated[-1]:
            assert any("This connection has taken 4 new seats" in t for t in run.texts("alert")), run.texts("alert")
        tab.close()
    assert seated == [True] * 4 + [False] * 2
    student, run = _tab(redis_app, f"room={code}", "10.3.0.2", page="")  # a real student elsewhere still joins
    assert "seat=" in student.query and redis_app.classroom.room(code).seats == 5
    run = student.run(trigger=run.widget("live_leave").id)  # Leave the class: the seat stops counting at once
    assert run.ok and "room=" not in student.query and redis_app.classroom.room(code).seats == 4
    student.close()


def test_a_made_up_seat_in_a_shared_link_gets_a_fresh_seat_in_every_tab(served):
    code, _ = served.classroom.start()
    seats = set()
    for i in range(3):
        tab, run = _tab(served, f"room={code}&seat=FixedSeatFromALink0001", f"10.4.0.{i}")
        radio = run.widget(f"predict_{QUESTION}")
        tab.set(radio.id, string_value=radio.options[0])
        assert tab.run(fragment=radio.fragment).ok
        seats.add(dict(p.split("=", 1) for p in tab.query.split("&"))["seat"])
        tab.close()
    assert len(seats) == 3 and "FixedSeatFromALink0001" not in seats
    assert served.classroom.counts(code, QUESTION, 3) == [3, 0, 0] and served.classroom.room(code).seats == 3


def _join_by_form(tab: Tab, run, code: str):
    tab.set(run.widget("live_join_code").id, string_value=code)
    join = next(e for e in run.elements if e.kind == "button" and e.text == "Join")
    return tab.run(trigger=join.id)


def test_wrong_codes_hold_back_the_guesser_not_the_class_and_nothing_from_the_address_becomes_markup(sqlite_app):
    for room in ("[Log in](//ev.il)", "![](//x.invalid/a)", "ACDEF"):
        tab, run = _tab(sqlite_app, f"room={room}", "10.5.0.1", page="")
        shown = "\n".join(run.texts("alert") + run.texts("markdown") + run.texts("html"))
        assert "ev.il" not in shown and "x.invalid" not in shown and "](" not in shown
        assert not run.errors()
        tab.close()
    code, _ = sqlite_app.classroom.start()
    guesser, run = _tab(sqlite_app, "", "10.5.0.1", page="")
    for wrong in ("AAAAA", "CCCCC", "DDDDD"):
        run = _join_by_form(guesser, run, wrong)
    run = _join_by_form(guesser, run, code)  # the right code, after three wrong ones from this browser
    assert any("Too many room codes" in t for t in run.texts("alert")) and "seat=" not in guesser.query
    guesser.close()
    classmate, run = _tab(sqlite_app, f"room={code}", "10.5.0.1", page="")  # the same school address, another tab
    assert "seat=" in classmate.query, run.texts("alert")
    classmate.close()
    tab, run = _tab(sqlite_app, f"room={code}&key=", "10.5.0.2", page="")  # an empty key leaves the address
    assert "seat=" in tab.query and "key" not in tab.query
    tab.close()


def test_a_seated_student_always_comes_back_to_one_seat_behind_a_busy_address(served):
    code, _ = served.classroom.start()
    student, _ = _tab(served, f"room={code}", "10.8.0.1", page="")
    seat_query = student.query
    student.close()
    for _ in range(6):  # the rest of the class behind the same address fills its new-seat limit
        tab, _ = _tab(served, f"room={code}", "10.8.0.1", page="")
        tab.close()
    for _ in range(2):  # the seated student reloads: the same seat, counted once
        again, run = _tab(served, seat_query, "10.8.0.1", page="")
        assert "seat=" in again.query and again.query == seat_query, run.texts("alert")
        again.close()
    assert served.classroom.room(code).seats == 4


def test_an_answer_after_the_reveal_changes_nothing(served):
    code, key = served.classroom.start()
    tabs = [_tab(served, f"room={code}", f"10.9.0.{i}") for i in range(2)]
    (first, run), (late, late_run) = tabs
    radio = run.widget(f"predict_{QUESTION}")
    first.set(radio.id, string_value=radio.options[1])
    assert first.run(fragment=radio.fragment).ok
    served.classroom.reveal(code, key, QUESTION)
    late_radio = late_run.widget(f"predict_{QUESTION}")  # drawn before the reveal: sent after it
    late.set(late_radio.id, string_value=late_radio.options[0])
    run = late.run(fragment=late_radio.fragment)
    assert run.ok and not run.errors()
    assert served.classroom.counts(code, QUESTION, 3) == [0, 1, 0]
    for tab, _ in tabs:
        tab.close()


@pytest.mark.parametrize("nickname, sentence", [("\u3164\u2800", "shows nothing"),
                                                ("x" * 10_000, "10,000 characters long: at most 24")])
def test_a_nickname_that_shows_nothing_or_is_too_long_is_refused_whole(sqlite_app, nickname, sentence):
    """Sent straight down the socket, past any box's own limit: refused with its sentence, never cut to fit."""
    code, key = sqlite_app.classroom.start()
    tab, run = _tab(sqlite_app, "", "10.6.0.1", page="")
    tab.set(run.widget("live_join_code").id, string_value=code)
    tab.set(run.widget("live_join_nickname").id, string_value=nickname)
    join = next(e for e in run.elements if e.kind == "button" and e.text == "Join")
    run = tab.run(trigger=join.id)
    assert any(sentence in t for t in run.texts("alert")), run.texts("alert")
    assert "seat=" not in tab.query and sqlite_app.classroom.roster(code, key).named == ()
    tab.close()


def test_a_pasted_config_at_the_ends_of_json_is_read_or_refused_with_a_sentence(sqlite_app):
    tab, run = _tab(sqlite_app, "src=json&how=paste", "10.7.0.1", page="layer_strip")
    box = run.widget("cfg")
    for factor in ("1e308", "1e-308"):
        config = ('{"model_type": "llama", "max_position_embeddings": 4096, '
                  f'"rope_scaling": {{"rope_type": "dynamic", "factor": {factor}}}}}')
        tab.set(box.id, string_value=config)
        run = tab.run(fragment=box.fragment)
        assert run.ok and not [e for e in run.elements if e.kind == "exception"]
        assert not any("Something went wrong" in t for t in run.texts("alert")), run.texts("alert")
    tab.close()


def test_forwarded_addresses_are_believed_only_from_a_named_proxy_and_pages_send_a_referrer_policy(tmp_path):
    """No POSENC_TRUSTED_PROXY: every tab below claims another address, and all of them are the one loopback
    client the server sees, so the new-seat limit counts them together."""
    path = tmp_path / "class.sqlite3"
    with streamlit_server(env={"POSENC_CLASS_SEATS_PER_CLIENT": "2", "POSENC_CLASS_DB": str(path)}) as url:
        served = Served(url, None, None)
        first, _ = _tab(served, "", "10.10.0.1", page="")  # the first page run guards the server
        first.close()
        classroom = Classroom(SQLiteStore(path, 3600))
        code, _ = classroom.start()
        seated = []
        for i in range(3):
            tab, run = _tab(served, f"room={code}", f"10.10.0.{i + 2}", page="")
            seated.append("seat=" in tab.query)
            tab.close()
        assert seated == [True, True, False]
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.headers["Referrer-Policy"] == "same-origin"
            assert response.headers["X-Content-Type-Options"] == "nosniff"
