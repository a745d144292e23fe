"""What the cache holds: each snippet, run as a student would paste it, gives the numbers its figure shows, at the
default view and at one view set by a link."""

import base64
import json

import numpy as np
import pytest

from page_kit import registry
from tests import apptest_pages

INFO = registry.page("kv_cache")


def _view(tab: str | None = None, **query):
    at = apptest_pages.load(INFO, **query)
    if tab is not None:
        key = next(k for k, labels in apptest_pages.tab_groups(at).items() if tab in labels)
        at = apptest_pages.open_tab(at, key, tab)
    return at


def _traces(at, name: str) -> dict[str, dict]:
    """The traces of the chart ``name`` as the browser receives them: {trace name: {"x": ..., "y": ...}}."""
    figure = next(json.loads(f) if isinstance(f, str) else f for key, f in apptest_pages.chart_figures(at).items()
                  if key.endswith(f"chart_{name}"))

    def values(v):
        if isinstance(v, dict) and "bdata" in v:
            return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        return np.asarray(v)

    return {t["name"]: {"x": values(t.get("x")), "y": values(t.get("y"))} for t in figure["data"]}


@pytest.mark.parametrize("query, prefill, pair", [({}, 24, 1), ({"P": "10", "D": "4", "pair": "3"}, 10, 3)])
def test_decode_snippet_gives_the_turns(query, prefill, pair):
    at = _view(**query)
    (ns,) = apptest_pages.run_snippets(at)
    c, traces = ns["c"], _traces(at, "kv_cache_turns")
    turns = c.key_turn[0, :, pair].astype(np.float32)
    np.testing.assert_array_equal(traces["cached keys: prefill"]["y"][:prefill], turns[:prefill])
    np.testing.assert_array_equal(traces["cached keys: decode steps"]["y"][prefill:], turns[prefill:])
    np.testing.assert_array_equal(traces["cached values"]["y"], c.value_turn[0, :, pair].astype(np.float32))


@pytest.mark.parametrize("query, kind", [({}, "window"), ({"ctx": "4,096", "dtype": "fp8", "kind": "latent"},
                                                             "latent")])
def test_bytes_snippet_gives_the_bars(query, kind):
    at = _view("Bytes per token", **query)
    (ns,) = apptest_pages.run_snippets(at)
    r, shown = ns["r"], dict(ns["bars"])
    figure = next(json.loads(f) if isinstance(f, str) else f for key, f in apptest_pages.chart_figures(at).items()
                  if key.endswith("chart_kv_cache_bytes"))
    (bars,) = figure["data"]
    picked = sorted((g, k) for k, g, c in zip(r.keys, r.gb, r.kinds, strict=True) if c == kind)
    assert list(bars["y"]) == [k for _, k in picked] and bars["orientation"] == "h"
    values = bars["x"]
    values = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]) if "bdata" in values else values
    np.testing.assert_array_equal(values, np.array([g for g, _ in picked], dtype=np.float32))
    assert shown == {k: g for g, k in picked}


@pytest.mark.parametrize("query", [{}, {"P2": "72", "N": "96", "s": "4.0", "H": "256"}])
def test_dynamic_snippet_gives_the_score_errors(query):
    at = apptest_pages.reveal_answers(_view("Dynamic NTK vs a cache", **query))
    (ns,) = apptest_pages.run_snippets(at)
    errors, weights = _traces(at, "kv_cache_rescaling"), _traces(at, "kv_cache_attention")
    for kind, label in (("dynamic", "dynamic NTK"), ("yarn", "YaRN (static)")):
        np.testing.assert_array_equal(errors[label]["y"], ns["r"][kind].relative_error.astype(np.float32))
        np.testing.assert_array_equal(weights[label]["y"], ns["r"][kind].attention_change.astype(np.float32))
    assert ns["r"]["yarn"].relative_error.max() < 1e-4 < ns["r"]["dynamic"].relative_error.max()
