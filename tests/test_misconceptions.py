"""The misconception registry (page_kit.lesson.misconceptions): every question a lesson asks has an entry, one
sentence per wrong option, each short plain text; and the lookup's exact, prefix and refusal paths."""

import ast
from pathlib import Path

import pytest

from page_kit.lesson import checkpoints, misconceptions
from page_kit.lesson.misconceptions import MISCONCEPTIONS, entry_for, for_question

LESSONS = Path(__file__).resolve().parents[1] / "lessons"
LONGEST = 110  # characters: a sentence fits one line of the teacher's panel
MARKDOWN = ("*", "`", "$", ":material")


def _is_predict(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    return name == "predict"


def _key_of(argument: ast.expr) -> str:
    """The key as the registry holds it: a string constant, or an f-string's leading constant part and ``*``."""
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value
    if isinstance(argument, ast.JoinedStr) and argument.values and isinstance(argument.values[0], ast.Constant):
        return argument.values[0].value + misconceptions.PREFIX_MARK
    raise AssertionError(f"a question key that is neither a string nor an f-string with a fixed start: "
                         f"{ast.unparse(argument)}")


def _options_of(call: ast.Call) -> ast.expr:
    return call.args[2] if len(call.args) > 2 else next(k.value for k in call.keywords if k.arg == "options")


def _questions() -> list[tuple[str, str, ast.Call]]:
    """(where, key, call) of every predict call under lessons/."""
    found = []
    for path in sorted(LESSONS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if _is_predict(node):
                where = f"{path.relative_to(LESSONS)}:{node.lineno}"
                found.append((where, _key_of(node.args[0]), node))
    return found


QUESTIONS = _questions()


def test_the_sweep_finds_the_lessons_questions():
    assert len(QUESTIONS) >= 70
    assert any(key.endswith(misconceptions.PREFIX_MARK) for _, key, _ in QUESTIONS)


@pytest.mark.parametrize("where, key, call", QUESTIONS, ids=[where for where, _, _ in QUESTIONS])
def test_every_question_has_an_entry(where, key, call):
    built = key.endswith(misconceptions.PREFIX_MARK)  # an f-string key: any run-time ending finds the prefix
    sentences = entry_for(key[:-1] + "any_ending" if built else key)
    options = _options_of(call)
    if isinstance(options, (ast.List, ast.Tuple)):
        assert len(sentences) == len(options.elts), f"{where}: {key} has {len(options.elts)} options"
    answer = call.args[3] if len(call.args) > 3 else None
    if isinstance(answer, ast.Constant):  # a fixed right option: the only place None may stand
        assert sentences[answer.value] is None, f"{where}: {key}'s right option {answer.value} has a sentence"
        assert sum(s is None for s in sentences) == 1
    else:  # computed at run time: every option may be the wrong one
        assert None not in sentences, f"{where}: {key}'s right option is computed, so every option needs a sentence"


def test_every_entry_is_asked_by_a_lesson():
    """A lesson's predict question or a section checkpoint's question (page_kit.lesson.checkpoints)."""
    asked = {key for _, key, _ in QUESTIONS} | set(checkpoints.all_keys())
    assert set(MISCONCEPTIONS) == asked


@pytest.mark.parametrize("key", sorted(MISCONCEPTIONS))
def test_every_sentence_is_short_plain_text(key):
    for sentence in MISCONCEPTIONS[key]:
        if sentence is None:
            continue
        assert sentence.strip() == sentence and sentence, f"{key}: an empty or padded sentence"
        assert len(sentence) <= LONGEST, f"{key}: {len(sentence)} characters: {sentence}"
        assert not any(mark in sentence for mark in MARKDOWN), f"{key}: markdown in {sentence}"
        assert not sentence.endswith("."), f"{key}: a full stop its neighbours lack: {sentence}"


def test_an_exact_key_puts_none_at_the_answer():
    assert for_question("binary_repeat", 4, 2) == MISCONCEPTIONS["binary_repeat"]
    computed = for_question("naive_fraction", 4, 1)
    assert computed[1] is None
    assert computed[0] == MISCONCEPTIONS["naive_fraction"][0]
    assert computed[3] == MISCONCEPTIONS["naive_fraction"][3]


def test_a_key_built_at_run_time_finds_its_prefix():
    sentences = for_question("divided_yarn", 3, 0)
    assert sentences[0] is None
    assert sentences[1:] == MISCONCEPTIONS["divided_*"][1:]


def test_the_longest_prefix_wins(monkeypatch):
    monkeypatch.setitem(MISCONCEPTIONS, "divided_ya*", ("a", "b", "c"))
    assert entry_for("divided_yarn") == ("a", "b", "c")
    assert entry_for("divided_linear") == MISCONCEPTIONS["divided_*"]


def test_an_exact_key_wins_over_a_prefix(monkeypatch):
    monkeypatch.setitem(MISCONCEPTIONS, "divided_linear", ("x", "y", "z"))
    assert entry_for("divided_linear") == ("x", "y", "z")


def test_a_missing_key_is_named():
    with pytest.raises(KeyError, match="no_such_question"):
        for_question("no_such_question", 3, 0)
    with pytest.raises(KeyError, match="divide_yarn"):  # a prefix pattern matches from the start only
        entry_for("divide_yarn")


def test_a_wrong_count_is_refused():
    with pytest.raises(ValueError, match="binary_repeat.*3 options but 4"):
        for_question("binary_repeat", 3, 2)
    with pytest.raises(ValueError, match="no option 4"):
        for_question("binary_repeat", 4, 4)


def test_a_wrong_option_without_a_sentence_is_refused():
    with pytest.raises(ValueError, match=r"binary_repeat.*\[2\]"):  # option 2 is the fixed answer, not option 0
        for_question("binary_repeat", 4, 0)


def test_a_question_with_fewer_options_this_run_takes_the_first_sentences():
    """mm_ids_wider shows two or three ids, lab_longest two to four models: their entries hold the largest count."""
    two = for_question("mm_ids_wider", 2, 0)
    assert two == (None, MISCONCEPTIONS["mm_ids_wider"][1])
    assert len(for_question("lab_longest", 3, 2)) == 3
    with pytest.raises(ValueError, match="5 options but 4"):
        for_question("lab_longest", 5, 0)
    assert misconceptions.VARIABLE_COUNT <= set(MISCONCEPTIONS)
