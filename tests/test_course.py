"""A learner's progress: the items a code counts, the course's stops, the cookie and the code (round trips, merges,
refusals), where *Continue* goes, and the pages that show it (home, the checkpoint page, a lesson's question)."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from page_kit.lesson import checkpoints, course_map
from page_kit.lesson.misconceptions import MISCONCEPTIONS
from page_kit.navigation import progress as pg
from page_kit.navigation import registry
from page_kit.navigation.course_items import ITEMS
from page_kit.navigation.progress import Mark, Progress
from tests.apptest_pages import assert_clean, load

LESSONS = [p.url_path for s in registry.SECTIONS for p in s.pages]


def test_every_item_of_the_course_has_its_place_once():
    assert len(ITEMS) == len(set(ITEMS))
    assert set(LESSONS) | set(MISCONCEPTIONS) | set(checkpoints.all_keys()) <= set(ITEMS)


def test_every_lesson_question_belongs_to_one_lesson():
    asked = [q for stop in course_map.stops() if not stop.is_checkpoint for q in stop.questions]
    lesson_questions = set(MISCONCEPTIONS) - set(checkpoints.all_keys())
    assert sorted(asked) == sorted(lesson_questions)  # each once: a page's question is not counted on another


def test_the_stops_follow_the_sections_each_closed_by_its_checkpoint():
    stops = course_map.stops()
    assert [s.url_path for s in stops if not s.is_checkpoint] == LESSONS
    for section in registry.SECTIONS:
        mine = [s for s in stops if s.section == section.key]
        assert mine[-1].is_checkpoint and mine[-1].questions == tuple(q.key for q in checkpoints.questions(section.key))


marks = st.dictionaries(st.sampled_from(ITEMS), st.sampled_from([Mark.SEEN, Mark.RIGHT]), max_size=60)
lessons = st.one_of(st.none(), st.sampled_from(LESSONS))


@given(marks, lessons)
def test_the_cookie_and_the_code_carry_the_same_progress(held, last):
    progress = Progress(held, last if last in held else None)
    assert pg.from_cookie(pg.to_cookie(progress)) == progress
    assert pg.from_code(pg.to_code(progress)) == progress
    assert pg.from_code(" ".join(pg.to_code(progress))) == progress  # spaces a copy added are ignored


@given(marks, marks)
def test_a_merge_keeps_each_items_larger_mark(a, b):
    merged = Progress(a).merged(Progress(b))
    assert merged == Progress(b).merged(Progress(a))
    assert all(merged.mark(k) == max(Progress(a).mark(k), Progress(b).mark(k)) for k in ITEMS)


def test_a_question_keeps_its_first_answer_and_a_run_time_key_counts_for_its_prefix():
    progress = Progress().answered("order_rows", False).answered("order_rows", True)
    assert progress.mark("order_rows") == Mark.SEEN
    assert pg.item_for("divided_yarn") == "divided_*" and pg.item_for("no_such_question") is None


def test_the_whole_course_fits_a_short_code():
    everything = Progress({item: Mark.RIGHT for item in ITEMS}, LESSONS[-1])
    assert len(pg.to_code(everything)) <= 70
    assert len(pg.to_code(Progress())) <= 8


@pytest.mark.parametrize("code, why", [
    ("", "empty"), ("A" * 500, "at most"), ("!!!!", "characters"), ("AQAA", "check out"),
    (pg.to_code(Progress({"order": Mark.SEEN}))[:-2] + "xx", "check out")])
def test_a_wrong_code_is_refused_with_a_reason(code, why):
    with pytest.raises(ValueError, match=why):
        pg.from_code(code)


def test_a_code_of_another_version_or_mark_is_refused():
    import zlib

    def code(body: bytes) -> str:
        return base64.urlsafe_b64encode(body + (zlib.crc32(body) & 0xFFFF).to_bytes(2, "big")).decode().rstrip("=")

    with pytest.raises(ValueError, match="version 9"):
        pg.from_code(code(bytes([9, 255, 255, 1])))
    with pytest.raises(ValueError, match="mark"):
        pg.from_code(code(bytes([1, 255, 255, 3])))


@pytest.mark.parametrize("cookie", [None, "", "p1", "p9..11", "p1.x.11", "p1.0.3", "p1..1a", "p1." + "1" * 2000])
def test_an_unreadable_cookie_is_no_progress(cookie):
    assert pg.from_cookie(cookie) == Progress()


def test_continue_goes_to_the_last_lesson_until_done_then_on():
    start = Progress()
    assert course_map.next_to_do(start).url_path == LESSONS[0]
    opened = start.opened("naive")
    assert course_map.next_to_do(opened).url_path == "naive"  # its questions are not answered yet
    done = opened.answered("naive_width", True).answered("naive_fraction", False)
    assert course_map.next_to_do(done).url_path == "binary"
    finished = Progress({item: Mark.SEEN for item in ITEMS}, LESSONS[-1])
    assert course_map.next_to_do(finished) is None
    closing = Progress({**finished.marks, "cp_why_position_integer": Mark.NONE}, "binary")
    stop = course_map.next_to_do(closing)
    assert stop.is_checkpoint and stop.section == "why_position"


def _links(at) -> list[str]:
    return [link.proto.label for link in at.get("page_link")]


def _submit(at, code: str):
    at.text_input(key="course_code").input(code)
    next(b for b in at.button if b.label == "Add it to this browser").click().run()
    return at


def test_home_shows_progress_continue_and_the_checkpoints_and_takes_a_code():
    at = load(registry.HOME)
    assert "**Start the course: Attention has no sense of order**" in _links(at)
    assert sum(label.startswith("Checkpoint: ") for label in _links(at)) == len(registry.SECTIONS)
    _submit(at, "not a code!")
    assert_clean_but_refusal(at, "characters a code never holds")
    code = pg.to_code(Progress().opened("order").answered("order_rows", True))
    _submit(at, f"http://example.org/?progress={code}")  # a whole link works too
    texts = " ".join(c.value for c in at.caption)
    assert f"1 of {len(LESSONS)} lessons read; 1 of" in texts and "1 right at the first try" in texts
    assert [t.value for t in at.toast if t.value.startswith(f"Added: 1 of {len(LESSONS)} lessons read")]
    assert any(label.startswith("**Continue: Naive position codes**") for label in _links(at))
    sidebar = [link.proto.label for link in at.sidebar.get("page_link")]
    assert "Attention has no sense of order ✓" in sidebar


def assert_clean_but_refusal(at, refusal: str) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] and all(refusal in e.value for e in at.error), [e.value for e in at.error]


def test_clearing_needs_two_steps_and_empties_the_progress():
    at = load(registry.HOME)
    at.session_state["_course_progress"] = Progress().opened("order")
    at.run()
    at.toggle(key="course_clear_armed").set_value(True).run()
    next(b for b in at.button if b.label == "Clear my progress in this browser").click().run()
    assert_clean(at, "cleared")
    assert not at.session_state["_course_progress"]
    assert "**Start the course: Attention has no sense of order**" in _links(at)


@pytest.mark.parametrize("section", [s.key for s in registry.SECTIONS])
def test_each_checkpoint_explains_every_answer_and_counts_the_first_try(section):
    at = load(registry.CHECKPOINT, section=section)
    asked = checkpoints.questions(section)
    for question in asked:  # a wrong answer first where there is one, then the right one
        wrong = (question.answer + 1) % len(question.options)
        at.radio(key=f"answer_{question.key}").set_value(wrong).run()
        assert_clean(at, question.key)
        assert any(question.lesson in link.proto.page for link in at.get("page_link")), question.key
        at.radio(key=f"answer_{question.key}").set_value(question.answer).run()
    assert_clean(at, section)
    assert f"**Your first tries:** 0 of {len(asked)} right." in " ".join(m.value for m in at.markdown)
    held = at.session_state["_course_progress"]
    assert all(held.mark(q.key) == Mark.SEEN for q in asked)


def test_a_checkpoint_link_with_an_unknown_section_opens_the_first():
    at = load(registry.CHECKPOINT, section="<script>")
    assert_clean(at, "hostile section")
    assert at.query_params["section"] in (registry.SECTIONS[0].key, [registry.SECTIONS[0].key])


def test_a_lesson_question_joins_the_progress_right_at_the_first_try_only_when_not_shown():
    at = load(registry.page("order"))
    assert at.session_state["_course_progress"].mark("order") == Mark.SEEN
    at.radio(key="predict_order_rows").set_value(at.radio(key="predict_order_rows").options[0]).run()
    assert at.session_state["_course_progress"].mark("order_rows") == Mark.RIGHT
