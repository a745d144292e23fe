"""A class's results in real browsers, from the votes to the teacher's CSV a day later, on the deployed store.

A teacher and three students, each its own browser context (own cookies), on one app server with a real redis-server
(with its append-only file, as deploy/compose.yaml keeps it) as the class's store. The SQLite store runs the same
rounds, ends, reopens, results and CSV at the store level (tests/test_class_results.py, every test on both stores)
and at Streamlit's protocol level (tests/test_live_class_hostile.py); this flow is the browser's. Two questions
(``order_rows`` on the order lesson, ``naive_width`` on the naive one, where the teacher's move takes the
followers), two votes each: the students answer, the teacher opens the second vote, they answer again (some move
wrong to right, some right to wrong), the teacher reveals. One student reloads between their vote and the reveal and
finds their own answer chosen; after each reveal every student reads their own verdict. The teacher's results dialog
counts the moves, the teacher ends the class and the students read that it ended. Then the app server stops (and the
redis-server restarts from its file), and a new one starts a day later on the store's clock
(POSENC_CLASS_CLOCK_OFFSET_S): the teacher's same browser opens the app's home address, is the ended class's teacher
again (the cookie), reopens it and downloads every answer as CSV, whose rows are exactly the answers given.
"""

from __future__ import annotations

import csv
import io
import re
import time
from pathlib import Path

import pytest

from deploy.local_redis import redis_process, redis_server_path
from devtools.streamlit_server import browser_page, chromium_path, streamlit_server, wait_until_idle
from live_class import rooms
from live_class.results import ANSWER_COLUMNS
from live_class.store import CLOCK_OFFSET_ENV

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]
NICKNAME = "Quinn"
WAIT_MS = 30000
# the two questions, their options as the pages draw them in their first view, and the right one's index
QUESTIONS = {
    "order_rows": ("order", ["it keeps its numbers and moves with the word", "it gets new numbers",
                             "all rows become one average vector"], 0),
    "naive_width": ("naive", ["it doubles", "it grows by √2", "it stays the same", "it halves"], 2),
}
# per question, per student (a, b, the named one c), the option chosen in vote 1 and in vote 2
VOTES = {
    "order_rows": {"a": (0, 1), "b": (1, 0), "c": (2, 0)},     # a: right to wrong; b, c: wrong to right
    "naive_width": {"a": (2, 2), "b": (0, 2), "c": (2, 1)},    # b: wrong to right; c: right to wrong
}
STUDENTS = ("a", "b", "c")


@pytest.fixture
def store():
    """(the app's store environment, a restart of the store itself)."""
    if redis_server_path() is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; .ci/run installs it)")
    with redis_process(persist=True) as server:  # an append-only file, as deploy/compose.yaml keeps
        yield {rooms.REDIS_URL_ENV: server.url}, server.restart


def _context(browser):
    # each wait is on what the page shows, not settle_after's run count: on a loaded machine that count once
    # never came even on the teacher's page, whose timed fragments rerun every second
    return browser_page(browser)


def _go(page, address: str) -> None:
    page.goto(address, wait_until="domcontentloaded")
    wait_until_idle(page)


def _button(page, key: str):
    """The button keyed ``key`` (a button with help also draws a hidden copy of itself: not this one)."""
    return page.locator(f".st-key-{key}").get_by_role("button")


def _radio(page, question: str, vote: int):
    return page.locator(f'.st-key-predict_{question}{"_vote2" if vote == 2 else ""} [role="radiogroup"] label')


def _close(page) -> None:
    """Close the open dialog (the join code, the results) and wait until it is gone."""
    page.get_by_role("dialog").wait_for(timeout=WAIT_MS)
    page.keyboard.press("Escape")
    page.get_by_role("dialog").wait_for(state="detached", timeout=WAIT_MS)


def _vote(page, question: str, vote: int, choice: int) -> None:
    options = QUESTIONS[question][1]
    _radio(page, question, vote).nth(choice).click()
    page.get_by_text(f"Your answer “{options[choice]}” is saved.").wait_for(timeout=WAIT_MS)


def _chosen(page, question: str, vote: int) -> str:
    label = _radio(page, question, vote).filter(has=page.locator("input:checked"))
    label.wait_for(timeout=WAIT_MS)
    return label.inner_text().strip()


def _wait_url(page, pattern: str) -> None:
    """Until the address bar matches (a follower's browser loads the teacher's page after its next poll)."""
    page.wait_for_url(re.compile(pattern), timeout=WAIT_MS, wait_until="commit")


def _clean(page, errors, who: str) -> None:
    for selector in ('[data-testid="stException"]', '[data-testid="stAlertContentError"]'):
        assert page.locator(selector).count() == 0, f"{who}: {page.locator(selector).first.inner_text()}"
    assert not errors, f"{who}: {errors}"


def _question(teacher, students: dict, question: str) -> None:
    """Two votes on ``question``, the second vote opened and the answer revealed by the teacher."""
    _, options, answer = QUESTIONS[question]
    for vote in (1, 2):
        for name in STUDENTS:  # one after the other: seats are numbered ("Seat N") in the order they first answer
            _vote(students[name], question, vote, VOTES[question][name][vote - 1])
        second = " (second vote)" if vote == 2 else ""
        teacher.get_by_text(f"3 of 3 answered{second}").wait_for(timeout=WAIT_MS)  # the teacher's 1 s count
        if vote == 1:
            _button(teacher, f"live_round_{question}").click()
            teacher.locator(f".st-key-live_round_{question}").wait_for(state="detached", timeout=WAIT_MS)  # opened
            for name in STUDENTS:  # each student's poll reruns the page: a vote of its own, the first one recalled
                page = students[name]
                _radio(page, question, 2).first.wait_for(timeout=WAIT_MS)
                first = options[VOTES[question][name][0]]
                assert page.get_by_text(f"Your first vote: “{first}”").count() == 1
    if question == "order_rows":  # b reloads between the vote and the reveal: its own answer comes back
        page = students["b"]
        page.reload(wait_until="domcontentloaded")
        wait_until_idle(page)
        assert _chosen(page, question, 2) == options[VOTES[question]["b"][1]]
        assert page.get_by_text(f"Your first vote: “{options[VOTES[question]['b'][0]]}”").count() == 1
        assert page.get_by_text("Right.").count() == 0 and page.get_by_text("Not quite").count() == 0
    _button(teacher, f"live_reveal_{question}").click()
    teacher.locator(f".st-key-live_reveal_{question}").get_by_role("button", name="Revealed").wait_for(timeout=WAIT_MS)
    for name in STUDENTS:  # each reads the verdict on their own last answer
        page, final = students[name], VOTES[question][name][1]
        verdict = page.locator(f'[class*="st-key-answer_open_{question}"]')
        verdict.wait_for(timeout=WAIT_MS)
        verdicts = page.locator('[data-testid="stMain"] [data-testid="stAlert"]').filter(
            has_text=re.compile(r"Right\.|Not quite: "))
        mine = "Right." if final == answer else f"Not quite: {options[answer]}."
        verdicts.filter(has_text=mine).wait_for(timeout=WAIT_MS)
        assert verdicts.count() == 1, f"{name} reads {verdicts.all_inner_texts()}"


def _expected_rows(code: str) -> list[dict[str, str]]:
    aliases = {name: f"Seat {i}" for i, name in enumerate(STUDENTS, 1)}
    rows = []
    for question, (lesson, options, answer) in QUESTIONS.items():
        for vote in (1, 2):
            for name in STUDENTS:
                choice = VOTES[question][name][vote - 1]
                rows.append({"room": code, "question": question, "lesson": lesson, "round": str(vote),
                             "seat": aliases[name], "nickname": NICKNAME if name == "c" else "",
                             "answer": options[choice], "option": str(choice + 1),
                             "right": "yes" if choice == answer else "no"})
    return rows


def test_two_votes_results_and_the_csv_a_day_later(chromium, store):
    env, restart_store = store
    started = time.monotonic()
    opened = [_context(chromium) for _ in range(4)]
    (_, teacher, _), *pupils = opened
    students = {name: page for name, (_, page, _) in zip(STUDENTS, pupils, strict=True)}
    try:
        with streamlit_server(env=env) as url:
            _go(teacher, f"{url}/order")
            _button(teacher, "live_start").click()
            code = teacher.locator(".live-code").inner_text(timeout=WAIT_MS).strip()
            assert re.fullmatch(f"[{rooms.ALPHABET}]{{{rooms.CODE_LENGTH}}}", code)
            _close(teacher)

            # the three load at once: by link on the teacher's lesson (a, b), by the sidebar's form with a nickname (c)
            for name in STUDENTS:
                students[name].goto(f"{url}/order" + ("" if name == "c" else f"?room={code}"), wait_until="commit")
            c = students["c"]
            c.get_by_label("Room code").fill(code.lower(), timeout=WAIT_MS)
            c.get_by_role("textbox", name="Nickname (optional)").fill(NICKNAME)
            c.get_by_role("button", name="Join").click()
            c.get_by_text(f"You are in room {code}").wait_for(timeout=WAIT_MS)
            for page in students.values():  # seated (a seat in the address) and asked
                _wait_url(page, r"/order\?.*seat=")
                _radio(page, "order_rows", 1).first.wait_for(timeout=WAIT_MS)

            _question(teacher, students, "order_rows")
            # the teacher moves on by the sidebar's navigation (the room stays in the address); the followers come
            teacher.get_by_role("link", name="Naive position codes").first.click()
            _wait_url(teacher, r"/naive\?room=")
            wait_until_idle(teacher)
            for page in students.values():
                _wait_url(page, r"/naive\?.*room=")
                _radio(page, "naive_width", 1).first.wait_for(timeout=WAIT_MS)
            _question(teacher, students, "naive_width")

            _button(teacher, "live_results").click()
            dialog = teacher.get_by_role("dialog")
            dialog.get_by_text("3 seats answered · 12 answers kept").wait_for(timeout=WAIT_MS)
            dialog.locator(".live-spread p").nth(1).wait_for(timeout=WAIT_MS)  # both questions' spreads drawn
            shifts = [" ".join(s.split()) for s in dialog.locator(".live-spread p").all_inner_texts()]
            assert shifts == ["Between the votes: 2 moved from wrong to right, 1 from right to wrong.",
                              "Between the votes: 1 moved from wrong to right, 1 from right to wrong."]
            shares = dialog.get_by_text(re.compile(r"^vote 1: ")).all_inner_texts()
            assert [s.split(" · ")[:2] for s in shares] == [
                ["vote 1: 3 answered, 33 % right", "vote 2: 3 answered, 67 % right"],
                ["vote 1: 3 answered, 67 % right", "vote 2: 3 answered, 67 % right"]]
            assert NICKNAME not in dialog.get_by_role("tabpanel", name="Room").inner_text()  # no names in it
            _close(teacher)

            _button(teacher, "live_end").click()
            _button(teacher, "live_reopen").wait_for(timeout=WAIT_MS)
            for page in students.values():
                # above the lesson, where a phone (its sidebar folded) reads it too
                page.get_by_test_id("stMainBlockContainer").get_by_text(
                    f"The class in room {code} has ended").wait_for(timeout=WAIT_MS)
            for (_, page, errors), who in zip(opened, ("teacher", *STUDENTS), strict=True):
                _clean(page, errors, who)
        class_s = time.monotonic() - started

        restart_store()  # redis-server: stopped (its append-only file written) and started on the same folder
        with streamlit_server(env={**env, CLOCK_OFFSET_ENV: "86400"}) as url:  # the next day, a new app server
            # the home address, no room in it: the cookie makes this browser the teacher again
            teacher.goto(f"{url}/", wait_until="commit")
            teacher.get_by_text(f"Class {code} has ended").wait_for(timeout=WAIT_MS)
            _button(teacher, "live_reopen").click()
            teacher.get_by_text(f"You teach room {code}").wait_for(timeout=WAIT_MS)
            _button(teacher, "live_results").click()
            dialog = teacher.get_by_role("dialog")
            dialog.get_by_role("tab", name="Seats (teacher only)").click()
            with teacher.expect_download(timeout=WAIT_MS) as download:
                _button(dialog, "live_answers_csv").click()
            text = Path(download.value.path()).read_text(encoding="utf-8")
            assert download.value.suggested_filename == f"class-{code}-answers.csv"
            _clean(teacher, opened[0][2], "teacher")
    finally:
        for context, _, _ in opened:
            context.close()

    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames) == ANSWER_COLUMNS
    rows = list(reader)
    times = [row.pop("time") for row in rows]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", t) for t in times) and times == sorted(times)
    key = ("question", "round", "seat")
    assert sorted(rows, key=lambda r: [r[k] for k in key]) == sorted(_expected_rows(code),
                                                                      key=lambda r: [r[k] for k in key])
    assert len({row["seat"] for row in rows}) <= 4
    print(f"{env}: the class {class_s:.1f} s, in all {time.monotonic() - started:.1f} s")
