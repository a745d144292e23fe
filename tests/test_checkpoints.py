"""The section checkpoints (page_kit.lesson.checkpoints): every section of the registry has one, of three to five
questions; each question's key, options, answer, text and lesson to revisit are well formed; its misconceptions
have one sentence per wrong option and None exactly at the answer; and every check computes, from posenc_core,
the answer the question gives."""

import pytest

from page_kit.lesson import checkpoints
from page_kit.lesson.checkpoints import CHECKPOINTS, CheckpointQuestion
from page_kit.lesson.misconceptions import MISCONCEPTIONS
from page_kit.navigation import registry

SECTION_KEYS = [section.key for section in registry.SECTIONS]
QUESTIONS = [(section, q) for section, qs in CHECKPOINTS.items() for q in qs]
IDS = [q.key for _, q in QUESTIONS]
CHECKED = [q for _, q in QUESTIONS if q.check is not None]


def test_every_section_has_a_checkpoint_and_nothing_else_does():
    assert set(CHECKPOINTS) == set(SECTION_KEYS)


@pytest.mark.parametrize("section", SECTION_KEYS)
def test_a_checkpoint_asks_three_to_five_questions(section):
    asked = checkpoints.questions(section)
    assert 3 <= len(asked) <= 5, f"{section}: {len(asked)} questions"
    assert all(isinstance(q, CheckpointQuestion) for q in asked)


def test_a_section_with_several_lessons_asks_four_or_more():
    for section in registry.SECTIONS:
        if len(section.pages) > 1:
            assert len(checkpoints.questions(section.key)) >= 4, section.key


def test_a_section_without_a_checkpoint_has_no_questions():
    assert checkpoints.questions("no_such_section") == ()


def test_keys_are_unique_and_all_keys_lists_them_in_order():
    keys = checkpoints.all_keys()
    assert keys == IDS
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("section, q", QUESTIONS, ids=IDS)
def test_a_key_names_its_section(section, q):
    assert q.key.startswith(f"{checkpoints.KEY_PREFIX}{section}_"), q.key
    assert q.key == q.key.lower() and q.key.replace("_", "").isalnum(), q.key
    assert len(q.key) > len(f"cp_{section}_")


@pytest.mark.parametrize("section, q", QUESTIONS, ids=IDS)
def test_options_and_answer(section, q):
    assert isinstance(q.options, tuple)
    assert 2 <= len(q.options) <= 4
    assert len(set(q.options)) == len(q.options), f"{q.key}: repeated options"
    assert all(option.strip() == option and option for option in q.options)
    assert isinstance(q.answer, int) and 0 <= q.answer < len(q.options)


@pytest.mark.parametrize("section, q", QUESTIONS, ids=IDS)
def test_question_and_why_are_plain_text(section, q):
    for text in (q.question, q.why):
        assert text.strip() == text and text, q.key
        assert "$" not in text, f"{q.key}: LaTeX in {text}"
        assert not text.lstrip().startswith("#"), f"{q.key}: a heading in {text}"
        assert "\n" not in text, q.key


@pytest.mark.parametrize("section, q", QUESTIONS, ids=IDS)
def test_the_lesson_to_revisit_is_in_the_same_section(section, q):
    assert q.lesson in [page.url_path for page in registry.section(section).pages], f"{q.key}: {q.lesson}"


@pytest.mark.parametrize("section, q", QUESTIONS, ids=IDS)
def test_a_misconception_per_wrong_option(section, q):
    sentences = MISCONCEPTIONS[q.key]
    assert len(sentences) == len(q.options), q.key
    assert [i for i, sentence in enumerate(sentences) if sentence is None] == [q.answer], q.key


def test_the_right_option_moves_around():
    answers = [q.answer for _, q in QUESTIONS]
    assert len(set(answers)) >= 3
    assert max(answers.count(a) for a in set(answers)) < 0.6 * len(answers)


def test_some_questions_are_checked_against_the_core():
    assert len(CHECKED) >= len(SECTION_KEYS)


@pytest.mark.parametrize("q", CHECKED, ids=[q.key for q in CHECKED])
def test_the_check_computes_the_answer(q):
    assert q.check() == q.answer, f"{q.key}: the core says option {q.check()}, the question says {q.answer}"
