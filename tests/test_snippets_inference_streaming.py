"""The class features of the Streaming with attention sinks page: each snippet, run as a student would run it,
gives the arrays the page draws, and the numbers the page prints (what to notice, the predict answer) come from
those same arrays. Each is checked at its default view and at one other view set by a link."""

import numpy as np
import pytest

import posenc_core as pc
from page_kit import registry
from tests import apptest_pages

PAGE = registry.page("streaming")


def _snippet_with(at, name: str) -> dict:
    return next(ns for ns in apptest_pages.run_snippets(at) if name in ns)


def _text(at) -> str:
    return " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("query, bins", [({}, 512), ({"bin": "2048"}, 2048)])
def test_streaming_loss_snippet_gives_the_binned_losses_and_the_answer(query, bins):
    at = apptest_pages.load(PAGE, **query)
    radio = at.radio(key="predict_stream_window")
    radio.set_value(radio.options[0]).run()
    apptest_pages.assert_clean(at, "after answering")
    ns = _snippet_with(at, "losses")
    s = pc.streaming_summary(pc.shipped_streaming(), bins)
    np.testing.assert_array_equal(ns["start"], s["start"])
    for label, values in s["loss"].items():
        np.testing.assert_array_equal(ns["losses"][label], values)
    plain, sinks = pc.STREAM_VARIANTS["window"].label, pc.STREAM_VARIANTS["sink4"].label
    revealed = next(e.value for e in [*at.success, *at.info] if e.value.startswith(("Right. ", "Not quite")))
    assert f"mean loss is {ns['s']['after'][plain]:.3f} nats" in revealed
    assert f"against {ns['s']['after'][sinks]:.3f}" in revealed
    assert f"{ns['s']['before'][sinks]:.3f} nats" in _text(at)


@pytest.mark.parametrize("step", [12000, 100])
def test_cache_snippet_gives_the_positions_the_page_draws(step):
    at = apptest_pages.load(PAGE, step=f"{step:,}")
    at = apptest_pages.open_tab(at, next(iter(apptest_pages.tab_groups(at))), "What the cache holds")
    ns = _snippet_with(at, "in_cache")
    c = pc.cache_curves(step, 4, 1020, pc.shipped_streaming()["block"])
    np.testing.assert_array_equal(ns["x"], c["x"])
    np.testing.assert_array_equal(ns["in_cache"], c["cache"])
    np.testing.assert_array_equal(ns["in_text"], c["text"])
    assert f"it sits at position {c['query_cache']:,}" in _text(at)


@pytest.mark.skipif(bool(pc.real_models.missing_models()), reason="SmolLM2 is not installed")
def test_live_run_draws_what_its_snippet_computes():
    at = apptest_pages.load(PAGE, n="512", cache="64", variants=[pc.STREAM_VARIANTS["window"].label,
                                                                pc.STREAM_VARIANTS["sink1"].label])
    at = apptest_pages.open_tab(at, next(iter(apptest_pages.tab_groups(at))), "Run it here")
    at.button(key="run").click().run()
    apptest_pages.assert_clean(at, "after Run")
    ns = _snippet_with(at, "result")  # SmolLM2 runs again in the snippet: the same losses
    s = pc.streaming_summary(ns["result"], 32)
    assert list(s["loss"]) == [pc.STREAM_VARIANTS["window"].label, pc.STREAM_VARIANTS["sink1"].label]
    np.testing.assert_array_equal(ns["s"]["start"], s["start"])
    for label, mean in s["after"].items():
        assert f"{label} {mean:.3f} nats" in _text(at)
