"""The live class in the app (AppTest, SQLite store): start, join by link or code (with a nickname), answer, count,
reveal, end; nicknames reach the teacher only, as plain text; no verdict before the reveal; nothing from the URL
drawn as markup; forged seats, bad nicknames and a store that cannot be reached, each with its sentence."""

from __future__ import annotations

import re
import sqlite3

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
    code, key = teacher.query_params["room"], teacher.session_state["live_key"]
    assert len(code) == rooms.CODE_LENGTH and len(key) >= 32 and "key" not in teacher.query_params  # projected
    teacher.switch_page(ORDER.path).run()
    _clean(teacher)
    assert "**0** of 0 answered" in _answered(teacher)

    student = _app(room=code.lower())  # the join link (case forgiven)
    seat = student.query_params["seat"]
    assert _classroom().valid_seat(seat) and "key" not in student.query_params
    student.switch_page(ORDER.path).run()
    assert not [m for m in student.markdown if "answered" in m.value]  # a student sees no count, no reveal button
    assert not [b for b in student.button if b.key and b.key.startswith("live_reveal")]
    assert not [b for b in student.button if b.key == f"predict_{QUESTION}_show"]  # no "Show me" in a room
    picked = student.radio(key=f"predict_{QUESTION}").options[1]
    student.radio(key=f"predict_{QUESTION}").set_value(picked).run()
    _clean(student)
    assert any(f"Your answer “{picked}” is saved" in c.value for c in student.caption)
    assert not _verdicts(student), "no verdict before the teacher reveals it"

    late = _app(room=code)  # joins, never answers
    late.switch_page(ORDER.path).run()
    assert late.session_state["live_state"].seats == 2
    teacher.run()
    assert "**1** of 2 answered" in _answered(teacher)
    teacher.toggle(key=f"live_spread_{QUESTION}").set_value(True).run()
    spread = _html(teacher).split('class="live-spread"')[1]  # the spread as bars, under each option's whole text
    assert [int(n) for n in re.findall(r"<strong>(\d+)</strong>", spread)] == [0, 1, 0]
    teacher.button(key=f"live_reveal_{QUESTION}").click().run()
    _clean(teacher)

    late.run()  # what the poll's rerun does in the browser
    assert [i.value for i in late.info if i.value.startswith("The answer: ")], "revealed to those who had not answered"
    assert _verdicts(student.run()) == ["Not quite"], "the verdict once revealed"

    again = _app(room=code, seat=seat)  # a reload or another replica: the same seat, not a second student
    assert again.session_state["live_state"].seats == 2
    again.switch_page(ORDER.path).run()
    assert again.radio(key=f"predict_{QUESTION}").value == picked, "a reload reads its own answer back"
    assert _verdicts(again) == ["Not quite"], "and its own verdict after the reveal"

    teacher.button(key="live_end").click().run()
    student.run()
    assert any(f"class in room {code} has ended" in i.value for i in student.sidebar.info)
    assert "room" not in student.query_params
    assert teacher.session_state["live_state"].ended and teacher.button(key="live_reopen")
    teacher.button(key="live_results").click().run()
    _clean(teacher)
    downloads = {b.label for b in teacher.get("download_button")}
    assert {"Summary per question (CSV)", "Every answer (CSV)"} <= downloads
    teacher.button(key="live_reopen").click().run()
    assert not teacher.session_state["live_state"].ended
    assert _app(room=code, seat=seat).session_state["live_seat"] == seat, "back in the reopened class, same seat"


def test_a_second_vote_asks_again_and_the_teacher_sees_the_shift():
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code = teacher.query_params["room"]
    teacher.switch_page(ORDER.path).run()
    student = _app(room=code)
    student.switch_page(ORDER.path).run()
    options = student.radio(key=f"predict_{QUESTION}").options
    student.radio(key=f"predict_{QUESTION}").set_value(options[1]).run()
    teacher.run()
    teacher.button(key=f"live_round_{QUESTION}").click().run()
    _clean(teacher)
    assert "(second vote)" in _answered(teacher)
    student.run()  # what the poll's rerun does on a change of round
    assert any("Second vote." in c.value and options[1] in c.value for c in student.caption)
    student.radio(key=f"predict_{QUESTION}_vote2").set_value(options[0]).run()
    _clean(student)
    teacher.toggle(key=f"live_spread_{QUESTION}").set_value(True).run()
    spread = _html(teacher).split('class="live-spread"')[1]
    assert "Between the votes: <strong>1</strong> moved from wrong to right" in spread
    teacher.button(key=f"live_reveal_{QUESTION}").click().run()
    assert _verdicts(student.run()) == ["Right"], "the verdict on the second vote"


def _classroom():
    from page_kit import live
    return live.classroom()


def _verdicts(at: AppTest) -> list[str]:
    return [a.value.split(":")[0].split(".")[0] for a in [*at.success, *at.info]
            if a.value.startswith(("Right.", "Not quite"))]


def test_wrong_codes_and_keys_get_a_sentence_and_no_rights():
    assert any("not a room code" in i.value for i in _app(room="hello").sidebar.info)
    assert any("no class ACDEF" in i.value for i in _app(room="ACDEF").sidebar.info)
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code = teacher.query_params["room"]
    forged = _app(room=code, key="x" * 32)
    assert any("does not open room" in i.value for i in forged.sidebar.info)
    assert "live_code" not in forged.session_state and "key" not in forged.query_params
    empty_key = _app(room=code, key="")  # an empty key: a student, and the address loses it
    assert "key" not in empty_key.query_params and empty_key.session_state["live_seat"]
    second_device = _app(room=code, key=teacher.session_state["live_key"])  # the teacher link, opened elsewhere
    assert second_device.session_state["live_key"] and "key" not in second_device.query_params


@pytest.mark.parametrize("room", ["[Log in](//ev.il)", "![](//x.invalid/a)", "<img src=//x.invalid/b>",
                                  "https://ev.il/login", ":red[**OPEN**]"])
def test_a_room_code_from_the_url_is_never_drawn_as_markup(room):
    at = _app(room=room)
    sentences = [i.value for i in at.sidebar.info]
    assert len(sentences) == 1 and "not a room code" in sentences[0]
    assert re.fullmatch(r"[A-Za-z0-9 -]*", "".join(re.findall(r"'([^']*)'", sentences[0])))  # letters and digits
    assert not set(sentences[0]) & set("[]()!<>/*")


def test_a_made_up_seat_gets_a_fresh_seat_of_its_own():
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code = teacher.query_params["room"]
    owner = _app(room=code)
    owner.text_input(key="live_nickname").input("Owner")
    next(b for b in owner.button if b.label == "Save nickname").click().run()
    seats = set()
    for forged in ("FixedSeatFromALink0001", owner.query_params["seat"][:-1] + "x"):
        for _ in range(2):  # the same link opened in two browsers
            at = _app(room=code, seat=forged)
            seats.add(at.query_params["seat"])
            assert at.text_input(key="live_nickname").value == "" and "Owner" not in _everything(at)
    assert len(seats) == 4 and owner.query_params["seat"] not in seats
    assert _classroom().room(code).seats == 5


def test_leaving_frees_the_seat_and_joining_again_takes_it_back():
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code = teacher.query_params["room"]
    student = _app(room=code)
    seat = student.query_params["seat"]
    student.button(key="live_leave").click().run()
    assert "room" not in student.query_params and _classroom().room(code).seats == 0  # it stops counting at once
    student.text_input(key="live_join_code").input(code)
    next(b for b in student.button if b.label == "Join").click().run()
    assert student.query_params["seat"] == seat and _classroom().room(code).seats == 1


def test_nicknames_that_show_nothing_or_are_too_long_are_refused_with_their_sentence():
    teacher = _app()
    teacher.button(key="live_start").click().run()
    student = _app(room=teacher.query_params["room"])
    for nickname, sentence in (("\u3164\u2800", "shows nothing"), ("x" * 10_000, "10,000 characters long")):
        student.text_input(key="live_nickname").input(nickname)
        next(b for b in student.button if b.label == "Save nickname").click().run()
        assert any(sentence in i.value for i in student.sidebar.info), [i.value for i in student.sidebar.info]
    assert _classroom().nickname(teacher.query_params["room"], student.query_params["seat"]) == ""


def test_a_store_that_cannot_be_reached_loses_no_answer_and_breaks_no_lesson(tmp_path):
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code = teacher.query_params["room"]
    student = _app(room=code)
    student.switch_page(ORDER.path).run()
    other = sqlite3.connect(str(tmp_path / "class.sqlite3"), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's write lock, held
    picked = student.radio(key=f"predict_{QUESTION}").options[0]
    student.radio(key=f"predict_{QUESTION}").set_value(picked).run()
    _clean(student)
    assert any(f"Saving your answer “{picked}”" in c.value for c in student.caption)
    late = _app(room=code)  # a page opened while the class cannot be reached: the lesson, and one sentence
    late.switch_page(ORDER.path).run()
    _clean(late)
    assert any("cannot be reached" in i.value for i in late.sidebar.info)
    assert late.radio(key=f"predict_{QUESTION}") is not None
    other.execute("COMMIT")
    student.session_state["live_retry_at"] = 0.0  # the backoff's wait, over
    student.run()  # the poll's next tick
    assert any(f"Your answer “{picked}” is saved" in c.value for c in student.caption)
    assert _classroom().counts(code, QUESTION, 3) == [1, 0, 0]
    late.run()
    assert late.session_state["live_seat"] and _classroom().room(code).seats == 2
    assert not any("cannot be reached" in i.value for i in late.sidebar.info)  # the sentence goes once joined




def _html(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def _everything(at: AppTest) -> str:
    """Every text the page sent: markdown, captions, alerts, HTML and the widgets' labels and values."""
    parts = [str(e.value) for kind in ("markdown", "caption", "info", "success", "warning") for e in getattr(at, kind)]
    parts += [str(w.value) for w in at.text_input] + [w.label for w in at.text_input]
    return "\n".join(parts) + _html(at)


def test_a_nickname_is_shown_to_the_teacher_only_and_as_plain_text():
    nickname = "<b>Zoe</b> **x**"
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code = teacher.query_params["room"]
    teacher.switch_page(ORDER.path).run()

    named = _app()  # types the code and a nickname in the sidebar
    named.text_input(key="live_join_code").input(code)
    named.text_input(key="live_join_nickname").input(f"  {nickname}\t")
    next(b for b in named.button if b.label == "Join").click().run()
    _clean(named)
    assert named.text_input(key="live_nickname").value == nickname  # folded, and shown back to its owner only
    named.switch_page(ORDER.path).run()
    named.radio(key=f"predict_{QUESTION}").set_value(named.radio(key=f"predict_{QUESTION}").options[0]).run()

    other = _app(room=code)  # by the link: anonymous, then names itself in the class panel
    other.text_input(key="live_nickname").input("Ann")
    next(b for b in other.button if b.label == "Save nickname").click().run()
    _clean(other)
    other.switch_page(ORDER.path).run()

    teacher.run()
    assert "Zoe" not in _everything(teacher)  # the nicknames start hidden: the teacher's screen may be projected
    teacher.toggle(key="live_roster").set_value(True).run()
    teacher.toggle(key=f"live_who_{QUESTION}").set_value(True).run()
    _clean(teacher)
    shown = _html(teacher)
    escaped = "&lt;b&gt;Zoe&lt;/b&gt; **x**"
    assert '<span class="live-name" style=' in shown and "<b>Zoe" not in shown
    assert "Joined (2):" in shown and shown.count(escaped) == 2  # in the roster and among who answered
    answered, waiting = shown.split("Answered:")[1].split("Not yet:")
    assert escaped in answered and ">Ann<" in waiting

    anonymous = _app(room=code)  # a third, without a nickname, counted as anonymous
    anonymous.switch_page(ORDER.path).run()
    teacher.run()
    assert "Joined (3):" in _html(teacher) and "1 anonymous" in _html(teacher)

    for student in (other, anonymous):  # no student gets another's nickname, anywhere on the page
        student.run()
        assert "Zoe" not in _everything(student) and "live-name" not in _html(student)
    assert "Ann" not in _everything(anonymous) and "Ann" not in _everything(named.run())


def test_a_bad_nickname_gets_a_sentence_and_no_seat():
    teacher = _app()
    teacher.button(key="live_start").click().run()
    student = _app()
    student.text_input(key="live_join_code").input(teacher.query_params["room"])
    student.text_input(key="live_join_nickname").input("Bo\u202e")
    next(b for b in student.button if b.label == "Join").click().run()
    assert any("nickname holds characters that do not print" in i.value for i in student.sidebar.info)
    assert "live_code" not in student.session_state


def _join_dialog(at: AppTest) -> str:
    return "\n".join([_html(at), *[w.value for w in at.warning]])


def test_the_join_link_is_an_address_phones_reach_or_says_it_is_not(monkeypatch):
    from page_kit import live
    monkeypatch.setenv(live.PUBLIC_URL_ENV, "https://class.example.org/posenc")
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code = teacher.query_params["room"]
    assert f"https://class.example.org/posenc/?room={code}" in _join_dialog(teacher)
    monkeypatch.delenv(live.PUBLIC_URL_ENV)
    monkeypatch.setattr(live, "network_address", lambda: "192.168.1.20")  # opened at localhost: the network's
    on_lan = _app()
    on_lan.button(key="live_start").click().run()
    assert "http://192.168.1.20:8501/?room=" in _join_dialog(on_lan)
    monkeypatch.setattr(live, "network_address", lambda: None)  # a laptop with no network: only loopback is known
    alone = _app()
    alone.button(key="live_start").click().run()
    shown = _join_dialog(alone)
    assert "Phones cannot open this link" in shown and "localhost:8501/?room=" in shown


def test_the_machines_network_address_is_never_a_loopback_one():
    from page_kit import live
    found = live.network_address()
    assert found is None or not live._loopback(found)


@pytest.mark.parametrize("host, loopback", [("localhost", True), ("127.0.0.1", True), ("[::1]", True),
                                            ("app.localhost", True), ("192.168.1.20", False),
                                            ("class.example.org", False), (None, True)])
def test_loopback_hosts_are_told_apart(host, loopback):
    from page_kit import live
    assert live._loopback(host) is loopback


def test_the_teacher_sees_the_rooms_course_progress_counted_never_named():
    teacher = _app()
    teacher.button(key="live_start").click().run()
    code = teacher.query_params["room"]
    student = _app(room=code)
    student.switch_page(ORDER.path).run()  # opening a lesson is progress; the run reports it to the room
    _clean(student)
    assert not [b for b in student.button if b.key == "course_room"], "a student has no view of the room's progress"
    teacher.button(key="course_room").click().run()
    _clean(teacher)
    assert any("1 seat reported its course progress" in c.value for c in teacher.caption)
    table = teacher.dataframe[0].value
    first = table.iloc[0]
    assert first["Section"] == registry.SECTIONS[0].title and first["Started"] == 1 and first["Read every lesson"] == 0


def test_no_timed_fragment_in_the_main_area():
    """A timed fragment whose run ends just after a page switch updates the next page's elements, and Streamlit's
    frontend throws ("'setIn' cannot be called on an ElementNode"), leaving the page broken. Timers live only in
    the sidebar, which is the same on every page, and in the join dialog, whose dismissal reruns the app."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    timed = set()
    for path in [root / "app.py", *(root / "page_kit").rglob("*.py"), *(root / "lessons").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and any(k.arg == "run_every" for k in d.keywords)
                    for d in node.decorator_list):
                timed.add(f"{path.relative_to(root).as_posix()}:{node.name}")
    assert timed == {"page_kit/live/poll.py:_publish", "page_kit/live/poll.py:_poll",
                     "page_kit/live/teacher_panel.py:_roster", "page_kit/live/panel.py:_joined_count"}
    source = (root / "page_kit/live/panel.py").read_text()
    assert 'on_dismiss="rerun"' in source.split("def join_code")[0].rsplit("@st.dialog", 1)[1]
