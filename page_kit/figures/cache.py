"""A figure built once for the whole class: a shared, bounded cache of finished figures, keyed by their recipe.

Building a plotly figure (every property validated as it is set) and serialising it took about half of a
slider move's server time (py-spy under bench/load.py), and in a class most moves ask for a figure another
student has already seen: the same page, the same slider values. So every figure the kit builds is keyed by
its recipe, the builder's name and arguments (arrays by their bytes), followed by each kit step applied to it
(``reference_lines``, ``padded``, ...). The process keeps, per key, the chart's own numbers (alt text,
download table) and, per key and template, the finished JSON the browser receives; a move that asks for a
known view sends that JSON without building anything. Builders are pure functions of their arguments (no
session state), which is what makes the key the view. A chart whose figure is taken by code outside the kit
(``chart.figure``, which may change it) loses its key and is built and sent on every run.

Both stores are LRU-bounded in bytes and entries, shared by every session of the process (a lock guards
them: Streamlit runs sessions in threads).

Inside a builder (or a rebuild) plotly does not check the properties the kit sets. Its checks were half the time
of building a figure, and under bench/load.py, where a random walk asks for views nobody has seen yet, building
figures took a fifth of the server's CPU (py-spy, 27 Nov 2026). The kit's builders are the only code that sets
these properties, and tests/test_figures_unchecked.py builds every figure of every tab both ways and compares what
the browser receives, so a misspelt property still fails a test. POSENC_CHECK_FIGURES=1 checks them in the app too.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np
import plotly.basedatatypes

from page_kit.figures.theme import figure_json
from page_kit.i18n import current

# POSENC_FIGURE_CACHE=off builds every figure on every run, without the cache (bench/load.py --no-figure-cache)
ENABLED = os.environ.get("POSENC_FIGURE_CACHE", "on").lower() not in ("off", "0", "false", "no")
MAX_CHART_BYTES = 128 << 20  # charts' own numbers (download tables and matrices)
MAX_SPEC_BYTES = 64 << 20  # finished figure JSON
MAX_ENTRIES = 2048
CHECKED = os.environ.get("POSENC_CHECK_FIGURES", "0").lower() in ("1", "on", "true", "yes")


class _Unkeyable(Exception):
    """An argument the key cannot describe (a callable, an unknown object): the figure is built on every run."""


def _feed(h, value) -> None:
    """Feed ``value`` into the hash with a type tag, so 1, 1.0, "1", (1,) and [1] all differ."""
    if value is None or isinstance(value, bool):
        h.update(b"k" + repr(value).encode())
    elif isinstance(value, int):
        h.update(b"i" + str(value).encode() + b";")
    elif isinstance(value, float):
        h.update(b"f" + float.hex(value).encode() + b";")
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        h.update(b"s" + str(len(data)).encode() + b":" + data)
    elif isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.hasobject:
            _feed(h, array.tolist())
            return
        h.update(b"a" + array.dtype.str.encode() + repr(array.shape).encode())
        h.update(np.ascontiguousarray(array).view(np.uint8).reshape(-1).data)
    elif isinstance(value, (tuple, list)):
        h.update((b"t" if isinstance(value, tuple) else b"l") + str(len(value)).encode() + b"(")
        for item in value:
            _feed(h, item)
        h.update(b")")
    elif isinstance(value, range):
        h.update(b"r" + repr((value.start, value.stop, value.step)).encode())
    elif isinstance(value, Mapping):
        h.update(b"m" + str(len(value)).encode() + b"{")
        for name, item in value.items():  # in order: a legend lists the series as given
            _feed(h, name)
            _feed(h, item)
        h.update(b"}")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(b"d" + type(value).__qualname__.encode())
        _feed(h, [getattr(value, f.name) for f in dataclasses.fields(value)])
    else:
        raise _Unkeyable(type(value).__name__)


def digest(*parts) -> str | None:
    """A 128-bit key for ``parts`` in the reader's language, or None when one of them cannot be keyed.

    A figure's words (titles, notes, alt text) are the reader's language (page_kit/i18n), so every key of the
    shared cache holds it: two sessions share a figure only when they read the same language."""
    h = hashlib.blake2b(digest_size=16)
    try:
        _feed(h, (current().code, parts))
    except _Unkeyable:
        return None
    return h.hexdigest()


def recipe_of(build) -> tuple:
    """What a callable ``build`` is, for telling views apart: its name, and the values it closes over."""
    cells = [cell.cell_contents for cell in (getattr(build, "__closure__", None) or ())]
    return (getattr(build, "__module__", None), getattr(build, "__qualname__", None), cells,
            getattr(build, "__defaults__", None), getattr(build, "__kwdefaults__", None))


class Bounded:
    """A thread-safe LRU mapping bounded by the total size of its values and by their number."""

    def __init__(self, max_bytes: int, max_entries: int = MAX_ENTRIES) -> None:
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self._items: OrderedDict = OrderedDict()  # key -> (value, size)
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key):
        with self._lock:
            item = self._items.get(key)
            if item is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return item[0]

    def put(self, key, value, size: int) -> None:
        if size > self.max_bytes:
            return  # larger than the whole store: not kept
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes or len(self._items) > self.max_entries:
                _, (_, freed) = self._items.popitem(last=False)
                self._bytes -= freed

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def stats(self) -> dict:
        with self._lock:
            return {"entries": len(self._items), "bytes": self._bytes, "hits": self.hits, "misses": self.misses}


CHARTS = Bounded(MAX_CHART_BYTES)  # key -> the chart without its figure
SPECS = Bounded(MAX_SPEC_BYTES)  # (key, template) -> (figure JSON, height in px, digest)
DERIVED = Bounded(8 << 20)  # (key, what) -> a small value read off the figure (derived)

_building = threading.local()  # inside a builder or a rebuild, nested kit calls are part of that recipe


@functools.cache
def _qualname(function) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def _size(chart) -> int:
    arrays = list(chart.table.values()) + ([chart.matrix] if chart.matrix is not None else [])
    return 512 + sum(np.asarray(a).nbytes for a in arrays)


def _remember(chart) -> None:
    # without the recipe: its arguments belong to the run that made it, and would be held uncounted
    CHARTS.put(chart.key, dataclasses.replace(chart, built=None, table=dict(chart.table), recipe=()), _size(chart))


def _from_known(known, key: str, recipe: tuple):
    return dataclasses.replace(known, built=None, table=dict(known.table), key=key, recipe=recipe)


class _Nested:
    def __enter__(self):
        _building.depth = getattr(_building, "depth", 0) + 1

    def __exit__(self, *exc):
        _building.depth -= 1


class _Checks:
    """plotly's per-object ``_validate`` flag, read through the thread: False while this thread is inside a kit
    builder (``nested``), else what plotly set (its own code turns it off for known-good values)."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj.__dict__.get("_posenc_validate", True) and (CHECKED or getattr(_building, "depth", 0) == 0)

    def __set__(self, obj, value) -> None:
        obj.__dict__["_posenc_validate"] = value


plotly.basedatatypes.BasePlotlyType._validate = _Checks()
plotly.basedatatypes.BaseFigure._validate = _Checks()


def nested() -> _Nested:
    """Kit calls made inside this block build eagerly and are keyed by the outer recipe."""
    return _Nested()


def _inside() -> bool:
    """True inside a builder or a rebuild (nested kit calls are part of that recipe), or with the cache off."""
    return not ENABLED or getattr(_building, "depth", 0) > 0


def builder(function):
    """A figure builder whose charts are keyed by its name and arguments (and reused across sessions)."""
    @functools.wraps(function)
    def keyed(*args, **kwargs):
        if _inside():
            with nested():  # built unchecked, also with the cache off
                return function(*args, **kwargs)
        key = digest(_qualname(function), args, kwargs)
        recipe = ((function, args, kwargs),)
        if key is not None:
            known = CHARTS.get(key)
            if known is not None:
                return _from_known(known, key, recipe)
        with nested():
            chart = function(*args, **kwargs)
        if key is not None:
            chart.key, chart.recipe = key, recipe
            _remember(chart)
        return chart
    return keyed


def step(function):
    """A kit function that changes a chart's figure (``reference_lines``, ``padded``, ...): part of the key."""
    @functools.wraps(function)
    def keyed(chart, *args, **kwargs):
        if _inside() or chart.key is None:
            with nested():
                return function(chart, *args, **kwargs)
        key = digest(chart.key, _qualname(function), args, kwargs)
        recipe = chart.recipe + ((function, args, kwargs),)
        # Kit steps change only the figure, so a known step leaves the chart's numbers, note and control as
        # this run set them (a control or a note added before the step belongs to this page, not the key).
        if key is not None and chart.built is None and CHARTS.get(key) is not None:
            chart.key, chart.recipe = key, recipe  # nothing to build yet
            return chart
        with nested():
            result = function(chart, *args, **kwargs)
        if key is not None and result is chart:
            chart.key, chart.recipe = key, recipe
            CHARTS.put(key, True, 64)  # the step is known; the figure itself is built only if it is needed
        return result
    return keyed


def rebuild(recipe: tuple):
    """The figure a recipe describes, built now (a cached chart's figure is only built when it is needed)."""
    (function, args, kwargs), *steps = recipe
    with nested():
        chart = function(*args, **kwargs)
        for change, step_args, step_kwargs in steps:
            chart = change(chart, *step_args, **step_kwargs)
    return chart.built


def serialised(figure, template: str) -> tuple[str, int, str]:
    """The figure as sent: JSON with ``template``, height in px, and the JSON's digest (the chart element skips a
    figure it has already drawn, and finds hero frames by it)."""
    sent = figure_json(figure, template)
    return sent, int(figure.layout.height or 450), hashlib.blake2b(sent.encode(), digest_size=12).hexdigest()


def spec(chart, template: str) -> tuple[str, int, str]:
    """The chart's figure as sent for ``template`` (``serialised``): from the shared store, else made now."""
    if chart.key is None:
        return serialised(chart.materialised(), template)
    known = SPECS.get((chart.key, template))
    if known is not None:
        return known
    made = serialised(chart.materialised(), template)
    SPECS.put((chart.key, template), made, len(made[0]) + 64)
    return made


def derived(chart, what: str, read):
    """``read(figure)`` (a small value read off the chart's figure: where a trace ends), once per view.

    Building the figure to read one number off it, on every run, cost a draggable figure's page about a
    third of its server time."""
    if chart.key is None:
        return read(chart.materialised())
    known = DERIVED.get((chart.key, what))
    if known is None:
        known = read(chart.materialised())
        DERIVED.put((chart.key, what), known, 256)
    return known

