"""The class features of the Streaming with attention sinks page: each snippet, run as a student would run it,
gives the arrays the page draws, and the numbers the page prints (what to notice, the predict answer) come from
those same arrays. Each is checked at its default view and at one other view set by a link."""

import numpy as np
import pytest

import posenc_core as pc
from lessons.inference.streaming_views import LABELS, pct
from page_kit import registry
from posenc_core.inference import (
    cache_curves,
    first_token_shares,
    shipped_streaming,
    streaming_summary,
)
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
    s = streaming_summary(shipped_streaming(), bins)
    np.testing.assert_array_equal(ns["start"], s.start)
    for name, values in s.loss.items():
        np.testing.assert_array_equal(ns["losses"][name], values)
    plain, sinks = "window", "sink4"
    revealed = next(e.value for e in [*at.success, *at.info] if e.value.startswith(("Right. ", "Not quite")))
    assert f"mean loss is {ns['s'].after[plain]:.3f} nats" in revealed
    assert f"against {ns['s'].after[sinks]:.3f}" in revealed
    assert f"{ns['s'].before[sinks]:.3f} nats" in _text(at)


def test_shares_snippet_gives_the_per_layer_shares_and_the_page_prints_them():
    at = apptest_pages.load(PAGE)
    at = apptest_pages.open_tab(at, next(iter(apptest_pages.tab_groups(at))), "One sink or four")
    radio = at.radio(key="predict_stream_share")
    radio.set_value(radio.options[0]).run()
    apptest_pages.assert_clean(at, "after answering")
    ns = _snippet_with(at, "per_layer")
    result = shipped_streaming()
    f, one = first_token_shares(result, "sink4"), first_token_shares(result, "sink1")
    np.testing.assert_array_equal(ns["per_layer"], f.per_layer)
    np.testing.assert_array_equal(ns["one_sink"], one.per_layer[:, 0])
    # the page's own numbers, recomputed here from the saved per-head means: layers x heads, every head alike
    shares = result.variants["sink4"].shares[1]  # (layers, heads, 4)
    mean = shares.sum(axis=(0, 1)) / (shares.shape[0] * shares.shape[1])
    revealed = next(e.value for e in [*at.success, *at.info] if e.value.startswith(("Right. ", "Not quite")))
    assert f"token 0 gets {pct(mean[0])} of the attention" in revealed
    assert f"get {pct(mean[1])}, {pct(mean[2])} and {pct(mean[3])}" in revealed
    assert f"(tokens {f.queries[0]:,} to {f.queries[1] - 1:,})" in revealed
    text = _text(at)
    assert f"each key would get {pct(f.uniform)}" in text
    assert f"token 0 gets {pct(one.mean[0])}" in text and f"got {pct(f.before[0])}" in text
    by_layer = shares[..., 0].mean(axis=1)  # (layers,)
    assert f"from {pct(by_layer.min())} in layer {by_layer.argmin() + 1}" in text
    assert f"to {pct(by_layer.max())} in layer {by_layer.argmax() + 1}" in text


@pytest.mark.parametrize("step", [12000, 100])
def test_cache_snippet_gives_the_positions_the_page_draws(step):
    at = apptest_pages.load(PAGE, step=f"{step:,}")
    at = apptest_pages.open_tab(at, next(iter(apptest_pages.tab_groups(at))), "What the cache holds")
    ns = _snippet_with(at, "in_cache")
    c = cache_curves(step, 4, 1020, shipped_streaming().block)
    np.testing.assert_array_equal(ns["x"], c.x)
    np.testing.assert_array_equal(ns["in_cache"], c.cache)
    np.testing.assert_array_equal(ns["in_text"], c.text)
    assert f"it sits at position {c.query_cache:,}" in _text(at)


@pytest.mark.skipif(bool(pc.real_models.missing_models()), reason="SmolLM2 is not installed")
def test_live_run_draws_what_its_snippet_computes():
    at = apptest_pages.load(PAGE, n="512", cache="64", variants=[LABELS["window"], LABELS["sink1"]])
    at = apptest_pages.open_tab(at, next(iter(apptest_pages.tab_groups(at))), "Run it here")
    at.button(key="run").click().run()
    apptest_pages.assert_clean(at, "after Run")
    ns = _snippet_with(at, "result")  # SmolLM2 runs again in the snippet: the same losses
    s = streaming_summary(ns["result"], 32)
    assert list(s.loss) == ["window", "sink1"]
    np.testing.assert_array_equal(ns["s"].start, s.start)
    for name, mean in s.after.items():
        assert f"{LABELS[name]} {mean:.3f} nats" in _text(at)
