"""The core's shape, read from its source (devtools/core_shape.py): no sentence meant for the screen, no bare dict
returned by a public function, modules, lessons and functions of a size a reader can hold; and the curated top
level, every name of which carries an example in its docstring that runs here."""

from __future__ import annotations

import doctest
import inspect

import pytest

import posenc_core as pc
from devtools import core_shape

CORE_FILES = core_shape.python_files("posenc_core")


def _where(path) -> str:
    return str(path.relative_to(core_shape.ROOT))


@pytest.mark.parametrize("path", CORE_FILES, ids=_where)
def test_the_core_holds_no_sentence_for_the_screen(path):
    assert list(core_shape.sentences(path)) == [], "words for readers belong to the lesson's views"


@pytest.mark.parametrize("path", CORE_FILES, ids=_where)
def test_no_public_function_returns_a_bare_dict(path):
    assert list(core_shape.bare_dict_returns(path)) == []


RECORD_SAMPLE = '''
def scores(q, k):
    return {"content": q, "relative": k, "total": q + k}


def via_a_name(q, k):
    out = {"q": q, "k": k}
    return out


def spread(out):
    return {"tokens": 1, **out, "share": 0.5}


def annotated() -> dict:
    return {}


def rope_scaling(factor):  # a config payload
    return {"rope_type": "linear", "factor": factor}


def yarn(factor,
         original):  # a config payload
    return {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": original}


def written(x):
    return {"rope_type": "linear",
            "factor": x}  # a config payload


def by_method(methods):
    return {m: len(m) for m in methods}


def one_key(x):
    return {"x": x}


def keyed_by_data(x):
    return {0: x, 1: x}


def _private(x):
    return {"a": x, "b": x}


def inner_only(x):
    def helper():
        return {"a": x, "b": x}
    return helper


class Holder:
    def to_json(self):
        return {"a": 1, "b": 2}
'''


def test_a_record_returned_as_a_dict_is_caught_and_a_payload_or_mapping_is_not():
    found = [name for _, name in core_shape.bare_dict_returns_in(RECORD_SAMPLE)]
    assert found == ["scores", "via_a_name", "spread", "annotated"]


def test_modules_lessons_and_functions_stay_a_readable_size():
    long = [f"{_where(p)}:{line} {name} ({lines} lines)" for top in core_shape.MAX_LINES
            for p in core_shape.python_files(top) for line, name, lines in core_shape.long_functions(p)]
    assert long + list(core_shape.long_files()) == []


def _top_level_callables() -> list[str]:
    return [name for name in pc.__all__ if inspect.isfunction(getattr(pc, name, None))
            or inspect.isclass(getattr(pc, name, None)) and not issubclass(getattr(pc, name), BaseException)]


@pytest.mark.parametrize("name", _top_level_callables())
def test_every_top_level_call_has_an_example_that_runs(name):
    obj = getattr(pc, name)
    tests = doctest.DocTestFinder(recurse=False).find(obj, name, globs={"pc": pc, "np": __import__("numpy")})
    examples = [t for t in tests if t.examples]
    assert examples, f"pc.{name}'s docstring has no example (>>>)"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    for test in examples:
        runner.run(test)
    assert runner.failures == 0, f"pc.{name}'s example does not give what it shows"
