"""The live class in the app (AppTest, SQLite store): start, join by link, answer, count, reveal, end."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from live_class import rooms
from page_kit import registry
from tests.conftest import ROOT

ORDER = next(p for p in registry.all_pages() if p.url_path == "order")  # its question sits beside the first figure
QUESTION = "order_rows"


@pytest.fixture(autouse=True)
def class_db(monkeypatch, tmp_path):
    monkeypatch.delenv(rooms.REDIS_URL_ENV, raising=False)
    monkeypatch.setenv(rooms.SQLITE_PATH_ENV, str(tmp_path / "class.sqlite3"))
    from page_kit import live
    live.classroom.clear()  # a store for this test's file


def _app(**query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def _clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _answered(at: AppTest) -> str:
    return next(m.value for m in at.markdown if "answered" in m.value)


def test_a_class_from_start_to_reveal_to_end():
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code, key = teacher.query_params["room"], teacher.query_params["key"]
    assert len(code) == rooms.CODE_LENGTH and len(key) >= 32
    teacher.switch_page(ORDER.path).run()
    _clean(teacher)
    assert "**0** of 0 answered" in _answered(teacher)

    student = _app(room=code.lower())  # the join link (case forgiven)
    seat = student.query_params["seat"]
    assert rooms.valid_seat(seat) and "key" not in student.query_params
    student.switch_page(ORDER.path).run()
    assert not [m for m in student.markdown if "answered" in m.value]  # a student sees no count, no reveal button
    assert not [b for b in student.button if b.key and b.key.startswith("live_reveal")]
    student.radio(key=f"predict_{QUESTION}").set_value(student.radio(key=f"predict_{QUESTION}").options[1]).run()
    _clean(student)

    late = _app(room=code)  # joins, never answers
    late.switch_page(ORDER.path).run()
    assert late.session_state["live_state"].seats == 2
    teacher.run()
    assert "**1** of 2 answered" in _answered(teacher)
    teacher.toggle(key=f"live_spread_{QUESTION}").set_value(True).run()
    assert teacher.get("vega_lite_chart")  # the spread as a bar chart
    teacher.button(key=f"live_reveal_{QUESTION}").click().run()
    _clean(teacher)

    late.run()  # what the poll's rerun does in the browser
    assert [i.value for i in late.info if i.value.startswith("The answer: ")], "revealed to those who had not answered"

    again = _app(room=code, seat=seat)  # a reload or another replica: the same seat, not a second student
    assert again.session_state["live_state"].seats == 2

    teacher.button(key="live_end").click().run()
    student.run()
    assert any("no open room" in i.value for i in student.sidebar.info), [i.value for i in student.sidebar.info]
    assert "room" not in student.query_params


def test_wrong_codes_and_keys_get_a_sentence_and_no_rights():
    assert any("not a room code" in i.value for i in _app(room="hello").sidebar.info)
    assert any("no open room" in i.value for i in _app(room="ACDEF").sidebar.info)
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code = teacher.query_params["room"]
    forged = _app(room=code, key="x" * 32)
    assert any("does not open room" in i.value for i in forged.sidebar.info)
    assert "live_code" not in forged.session_state and "key" not in forged.query_params
