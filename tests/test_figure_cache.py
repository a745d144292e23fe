"""The shared figure cache (page_kit/figures/cache.py): a cached view is the figure its recipe builds, keys tell
views apart, a chart changed outside the kit is never served from the cache, and the stores stay bounded."""

from __future__ import annotations

import threading

import numpy as np
import plotly.io as pio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from page_kit import figures
from page_kit.figures import cache
from page_kit.figures.theme import template_name

pytestmark = pytest.mark.usefixtures("empty_figure_cache")  # every test starts and ends with an empty cache


def _lines(scale: float, n: int = 32):
    x = np.arange(n)
    return figures.lines(x, {"sin": np.sin(x * scale), "cos": np.cos(x * scale)}, title=f"waves x{scale}",
                         x_title="position", y_title="value", alt="two waves", name="waves")


def _uncached(make):
    """What the builder gives with no cache at all: the figure a student must see."""
    with cache.nested():
        return make()


@pytest.mark.parametrize("template", [template_name(), template_name(True, False), template_name(False, True)])
def test_a_cached_view_sends_the_figure_its_recipe_builds(template):
    first = _lines(0.3)
    assert first.key is not None and first.built is not None  # a miss builds, and keeps the key
    sent_first = cache.spec(first, template)
    again = _lines(0.3)
    assert again.key == first.key and again.built is None  # a hit builds nothing ...
    assert cache.spec(again, template) == sent_first  # ... and sends the stored JSON
    assert sent_first == cache.serialised(_uncached(lambda: _lines(0.3)).built, template)
    assert again.alt == first.alt and again.table.keys() == first.table.keys()


def test_a_value_read_off_a_figure_is_read_once_per_view():
    """cache.derived: a draggable figure's handles come from its traces, without building a known view."""
    reads = []

    def last_sin(figure):
        reads.append(figure)
        return float(next(t for t in figure.data if t.name == "sin").y[-1])

    assert cache.derived(_lines(0.3), "end", last_sin) == pytest.approx(np.sin(31 * 0.3))
    again = _lines(0.3)
    assert cache.derived(again, "end", last_sin) == pytest.approx(np.sin(31 * 0.3))
    assert len(reads) == 1 and again.built is None  # the second view read nothing and built nothing
    assert cache.derived(_lines(0.4), "end", last_sin) == pytest.approx(np.sin(31 * 0.4))
    assert len(reads) == 2  # another view is read afresh


def test_steps_are_part_of_the_key_and_replay_on_a_rebuild():
    plain = _lines(0.5)
    marked = figures.reference_lines(_lines(0.5), vlines=[(8.0, "L")])
    assert marked.key not in (None, plain.key)
    hit = figures.reference_lines(_lines(0.5), vlines=[(8.0, "L")])
    assert hit.key == marked.key and hit.built is None
    expected = _uncached(lambda: figures.reference_lines(_lines(0.5), vlines=[(8.0, "L")])).built
    assert pio.to_json(hit.materialised(), validate=False) == pio.to_json(expected, validate=False)
    other = figures.reference_lines(_lines(0.5), vlines=[(9.0, "L")])
    assert other.key != marked.key


def test_a_known_step_keeps_this_pages_note_and_control():
    figures.reference_lines(_lines(0.4), vlines=[(2.0, "A")])  # another page made this view, plainly
    chart = _lines(0.4)
    chart.note, chart.control = "click a point", {"pick": {}}  # as figure_control.pick sets them
    hit = figures.reference_lines(chart, vlines=[(2.0, "A")])
    assert hit.built is None and hit.note == "click a point" and hit.control == {"pick": {}}
    plain = figures.reference_lines(_lines(0.4), vlines=[(2.0, "A")])
    assert plain.note == "" and plain.control is None


def test_taking_the_figure_to_change_it_drops_the_key():
    chart = _lines(0.7)
    chart.figure.update_layout(title="changed by a page")
    assert chart.key is None
    sent, _, _ = cache.spec(chart, template_name())
    assert "changed by a page" in sent
    assert "changed by a page" not in cache.spec(_lines(0.7), template_name())[0]


def test_a_hit_gives_each_page_its_own_table():
    _lines(0.9)
    first, second = _lines(0.9), _lines(0.9)
    first.table["extra"] = np.zeros(3)
    assert "extra" not in second.table and "extra" not in _lines(0.9).table


@settings(max_examples=60, deadline=None)
@given(a=st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=5), st.booleans(), st.none()),
       b=st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=5), st.booleans(), st.none()))
def test_keys_tell_values_and_types_apart(a, b):
    same = type(a) is type(b) and (a == b or (a != a and b != b and repr(a) == repr(b)))
    if isinstance(a, float) and isinstance(b, float):
        same = float.hex(a) == float.hex(b)
    assert (cache.digest(a) == cache.digest(b)) == same


def test_keys_of_containers_and_arrays():
    d = cache.digest
    assert d((1, 2)) != d([1, 2]) and d({"a": 1, "b": 2}) != d({"b": 2, "a": 1})  # legend order matters
    assert d(np.zeros(4, np.float32)) != d(np.zeros(4, np.float64)) != d(np.zeros((2, 2), np.float64))
    assert d(np.arange(6).reshape(2, 3).T) == d(np.ascontiguousarray(np.arange(6).reshape(2, 3).T))
    assert d(range(4)) != d(list(range(4)))
    assert d(lambda: 1) is None and d(object()) is None  # unknown arguments: built as before, never cached


def test_an_unkeyable_argument_builds_without_the_cache():
    chart = figures.lines(range(3), {"a": np.ones(3)}, title="t", x_title="x", y_title="y", alt="a", name="n",
                          dashed=iter(()))  # an iterator cannot be keyed
    assert chart.key is None and chart.built is not None


def test_the_stores_are_bounded_and_evict_the_oldest():
    store = cache.Bounded(max_bytes=100, max_entries=3)
    for i in range(5):
        store.put(i, str(i), 10)
    assert store.stats()["entries"] == 3 and store.get(0) is None and store.get(4) == "4"
    store.put("big", "x", 95)
    assert store.stats()["bytes"] <= 100 and store.get("big") == "x"
    store.put("huge", "y", 101)  # larger than the store: not kept, and nothing evicted for it
    assert store.get("huge") is None and store.get("big") == "x"


def test_sessions_in_threads_share_one_entry():
    results, errors = [], []

    def student():
        try:
            results.append(cache.spec(_lines(1.1), template_name()))
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=student) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len({r[0] for r in results}) == 1
    assert cache.SPECS.stats()["entries"] == 1


def test_cached_functions_keep_their_signature_and_still_key_by_every_argument():
    """page_kit.runtime.cached_signatures: st.cache_data asks for a function's parameters on every call; they are kept
    per function, and the cache still tells calls apart by each argument's name and value."""
    import streamlit as st
    from streamlit import type_util

    import page_kit  # noqa: F401 (installs the memo)

    assert hasattr(type_util.get_func_parameters, "cache_info")

    @st.cache_data(show_spinner=False)
    def scaled(a, b, _ignored=None):
        return a * 10 + b

    assert [scaled(1, 2), scaled(2, 1), scaled(1, 2, _ignored=5), scaled(b=3, a=1)] == [12, 21, 12, 13]
    def plain(x, y=1, *rest, z):
        return x

    assert [p.name for p in type_util.get_func_parameters(plain)] == ["x", "y", "rest", "z"]
    assert type_util.get_func_parameters(plain) is type_util.get_func_parameters(plain)  # read once
