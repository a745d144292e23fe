"""Streaming with attention sinks: the rolling cache read in blocks equals SmolLM2's own forward when nothing is
evicted, and a token-by-token brute force when tokens are evicted; the cache layout and the shipped run hold.

SmolLM2 runs as in tests/test_real.py: loaded once per module, on a few dozen tokens.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from posenc_core.inference import (
    MAX_STREAM_TOKENS,
    SHARE_TOKENS,
    STREAM_CONTEXT,
    STREAM_MODEL,
    STREAM_POSITIONS,
    STREAM_VARIANTS,
    StreamingRun,
    StreamVariantRun,
    cache_curves,
    first_token_shares,
    load_streaming,
    merge_streaming,
    shipped_streaming,
    streaming_cache_layout,
    streaming_hidden,
    streaming_losses,
    streaming_pass,
    streaming_run,
    streaming_summary,
)

real = pc.real_models
MISSING = real.missing_models()
needs_models = pytest.mark.skipif(bool(MISSING), reason=" ".join(MISSING.values()) +
                                  f" Install with `{real.INSTALL_COMMAND}`.")
torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def model():
    return real.load_smollm2()[1]


@needs_models
def test_with_nothing_evicted_the_stream_is_smollm2s_own_forward(model):
    """One block: bit for bit (the same SDPA causal path). Several blocks: the same maths, but each block's softmax
    and value sums run over a (cache + block) key set with an explicit mask instead of one causal pass over all
    keys, so float32 sums are taken in another order: equal to 1e-4 on the logits (values of order 10)."""
    ids = torch.tensor([real.text_tokens(1000, 32)])
    with torch.no_grad():
        expected = model(ids).logits[0]  # (32, 49152)
    for positions in STREAM_POSITIONS:  # nothing evicted: the place in the cache is the place in the text
        one = streaming_hidden(model, ids, sinks=4, window=64, block=32, positions=positions)
        torch.testing.assert_close(model.lm_head(one)[0], expected, rtol=0, atol=0)
        blocks = streaming_hidden(model, ids, sinks=4, window=64, block=8, positions=positions)
        torch.testing.assert_close(model.lm_head(blocks)[0], expected, rtol=0, atol=1e-4)


def brute_force(model, ids, sinks, window, block, positions):
    """Token by token with explicit attention: each token sees the cache as it was at its block's start and its
    block up to itself; every key and value is the one computed when its token was read. Returns the final hidden
    states (n, 576) and each token's attention weights on text tokens 0..3 (n, layers, 9, 4), 0 where not seen."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # hundreds of tiny ops per token: one thread, as the core runs its blocks
    try:
        return _brute_force(model, ids, sinks, window, block, positions)
    finally:
        torch.set_num_threads(threads)


def _brute_force(model, ids, sinks, window, block, positions):
    from transformers.models.llama.modeling_llama import rotate_half

    inner, n = model.model, len(ids)
    layers = inner.layers[: model.config.num_hidden_layers]
    keys = [dict() for _ in layers]  # per layer: token -> unrotated key (3, 64), value (3, 64)
    out = []
    on_first = torch.zeros(n, len(layers), 9, 4, dtype=torch.float64)  # weights on text tokens 0..3
    with torch.no_grad():
        for t in range(n):
            first = block * (t // block)
            held = list(range(first)) if first <= sinks + window else [
                *range(sinks), *range(first - window, first)]
            seen = [*held, *range(first, t + 1)]
            at = list(range(len(seen))) if positions == "cache" else seen
            x = inner.embed_tokens(torch.tensor([[ids[t]]]))  # (1, 1, 576)
            cos, sin = inner.rotary_emb(x, position_ids=torch.tensor([at]))  # (1, k, 64)
            cos, sin = cos[0], sin[0]  # (k, 64)
            for index, layer in enumerate(layers):
                a = layer.self_attn
                h = layer.input_layernorm(x)[0, 0]  # (576,)
                q = a.q_proj(h).view(9, 64)
                keys[index][t] = (a.k_proj(h).view(3, 64), a.v_proj(h).view(3, 64))
                k = torch.stack([keys[index][j][0] for j in seen], dim=1)  # (3, k, 64)
                v = torch.stack([keys[index][j][1] for j in seen], dim=1)
                k = k * cos + rotate_half(k) * sin
                q = q * cos[-1] + rotate_half(q) * sin[-1]
                k, v = k.repeat_interleave(3, dim=0), v.repeat_interleave(3, dim=0)  # (9, k, 64)
                weights = torch.softmax((k @ q[:, :, None])[..., 0] * a.scaling, dim=-1)  # (9, k)
                for j, token in enumerate(seen[:4]):
                    if token < 4:
                        on_first[t, index, :, token] = weights[:, j].double()
                x = x + a.o_proj((weights[:, None, :] @ v).reshape(1, 1, 576))
                x = x + layer.mlp(layer.post_attention_layernorm(x))
            out.append(inner.norm(x)[0, 0])
    return torch.stack(out), on_first.numpy()  # (n, 576), (n, layers, 9, 4)


@needs_models
@pytest.mark.parametrize("block, positions", [(1, "cache"), (8, "cache"), (8, "text")])
def test_eviction_equals_a_token_by_token_brute_force(model, block, positions):
    """Float32 in both, summed in another order (batched matmuls against one query at a time): final hidden
    values reach ~25 in one dimension, so they agree to 2e-4, not bit for bit."""
    ids = real.text_tokens(2000, 40)
    got = streaming_hidden(model, torch.tensor([ids]), sinks=4, window=12, block=block, positions=positions)[0]
    torch.testing.assert_close(got, brute_force(model, ids, 4, 12, block, positions)[0], rtol=0, atol=2e-4)


@needs_models
def test_shares_with_nothing_evicted_are_transformers_own_attention_weights(model):
    """The weights transformers' eager attention returns (output_attentions) for the whole text at once, against
    the pass read in blocks of 16: queries 32..47, nothing evicted, so the second range is empty."""
    ids = torch.tensor([real.text_tokens(1000, 48)])
    run = streaming_pass(model, ids, sinks=4, window=64, block=16, shares=True)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    model.set_attn_implementation("eager")
    try:
        with torch.no_grad():
            attentions = model(ids, output_attentions=True).attentions  # layers x (1, 9, 48, 48)
    finally:
        model.set_attn_implementation("sdpa")
        torch.set_num_threads(threads)
    expected = np.stack([a[0, :, 32:, :4].double().mean(dim=1).numpy() for a in attentions])  # (30, 9, 4)
    assert run.queries == ((32, 48), (48, 48))
    np.testing.assert_allclose(run.shares[0], expected, rtol=0, atol=1e-5)
    assert np.isnan(run.shares[1]).all()
    assert expected[2:, :, 0].mean() > 0.1  # SmolLM2 puts much of it on token 0: the check is not of zeros


@needs_models
@pytest.mark.parametrize("sinks, positions", [(4, "cache"), (1, "text")])
def test_shares_after_eviction_equal_a_token_by_token_brute_force(model, sinks, positions):
    """Cache of S + 36 keys read 8 at a time: the first block after an eviction starts at 48 (the first multiple of
    8 past S + W = 40), so queries 32..47 see everything and 48..63 the rolling cache."""
    ids = real.text_tokens(2000, 64)
    run = streaming_pass(model, torch.tensor([ids]), sinks=sinks, window=40 - sinks, block=8,
                            positions=positions, shares=True)
    _, on_first = brute_force(model, ids, sinks, 40 - sinks, 8, positions)  # (64, 30, 9, 4)
    assert run.queries == ((32, 48), (48, 64))
    np.testing.assert_allclose(run.shares[0], on_first[32:48].mean(axis=0), rtol=0, atol=1e-5)
    np.testing.assert_allclose(run.shares[1], on_first[48:].mean(axis=0), rtol=0, atol=1e-5)
    assert np.all(run.shares[1][..., sinks:] == 0)  # evicted tokens get nothing
    assert np.all(run.shares[1][..., :sinks] > 0)


@needs_models
def test_blocks_change_when_eviction_happens_not_what_is_computed_before_it(model):
    ids = torch.tensor([real.text_tokens(2000, 40)])
    one = streaming_hidden(model, ids, sinks=4, window=16, block=1)[0]
    eight = streaming_hidden(model, ids, sinks=4, window=16, block=8)[0]
    # B = 8 first evicts before token 24 (the block after 20 = S + W tokens); B = 1 before token 21. Before that
    # the same keys, through SDPA with 1 or 8 queries: float32 rounding apart (hidden values reach ~25)
    torch.testing.assert_close(eight[:21], one[:21], rtol=0, atol=2e-4)
    assert (eight[21:] - one[21:]).abs().max() > 1e-2


@needs_models
def test_a_plain_window_is_the_same_in_cache_or_text_positions(model):
    """RoPE scores depend on the distance only: sliding all keys and the query by the same amount changes
    nothing but float rounding; positions matter once sinks sit before a gap."""
    ids = torch.tensor([real.text_tokens(3000, 40)])
    cache = streaming_hidden(model, ids, sinks=0, window=12, block=4, positions="cache")
    text = streaming_hidden(model, ids, sinks=0, window=12, block=4, positions="text")
    torch.testing.assert_close(cache, text, rtol=0, atol=1e-3)
    cache4 = streaming_hidden(model, ids, sinks=4, window=8, block=4, positions="cache")
    text4 = streaming_hidden(model, ids, sinks=4, window=8, block=4, positions="text")
    assert (cache4 - text4).abs().max() > 1e-2


def test_cache_layout_known_values():
    lay = streaming_cache_layout(100, 4, 16, 8)
    expected = [*range(4), *range(80, 101)]
    np.testing.assert_array_equal(lay.text, expected)
    np.testing.assert_array_equal(lay.rotary, np.arange(25))
    assert lay.query == 24 and lay.evicted == 96 - 20
    assert lay.sink.sum() == 4 and lay.cached.sum() == 20
    text = streaming_cache_layout(100, 4, 16, 8, "text")
    np.testing.assert_array_equal(text.rotary, expected)
    assert text.query == 100
    c = cache_curves(100, 4, 16, 8)  # the same keys as curves, a gap where tokens 4..79 were evicted
    assert c.window_start == 80 and c.held == 25 and c.query_cache == 24 and c.query_text == 100
    np.testing.assert_array_equal(c.x[[3, 5]], [3, 80])
    assert np.isnan(c.cache[4]) and np.isnan(c.text[4]) and c.cache[5] == 4 and c.text[5] == 80
    early = streaming_cache_layout(10, 4, 16, 8)  # nothing evicted yet: the whole text so far
    np.testing.assert_array_equal(early.text, np.arange(11))
    assert early.evicted == 0


@settings(max_examples=60, deadline=None)
@given(step=st.integers(0, 5000), sinks=st.integers(0, 8), window=st.integers(1, 300), block=st.integers(1, 64))
def test_cache_layout_holds_the_sinks_and_a_window_of_w_to_w_plus_b(step, sinks, window, block):
    lay = streaming_cache_layout(step, sinks, window, block)
    text = lay.text
    assert text[-1] == step and np.all(np.diff(text) > 0)
    assert len(text) <= sinks + window + block
    if lay.evicted:
        np.testing.assert_array_equal(text[:sinks], np.arange(sinks))
        recent = len(text) - sinks  # the window, and the block up to this token
        assert window < recent <= window + block
        assert text[sinks] == block * (step // block) - window
    else:
        np.testing.assert_array_equal(text, np.arange(step + 1))
    np.testing.assert_array_equal(lay.rotary, np.arange(len(text)))


def test_shipped_run_holds_every_variant_past_the_trained_context():
    result = shipped_streaming()
    assert list(result.variants) == list(STREAM_VARIANTS)
    assert result.tokens >= 2 * STREAM_CONTEXT
    assert len(result.runs) == len(STREAM_VARIANTS)  # one process per cache, merged
    for run in result.runs:
        assert run["command"].startswith("python -m posenc_core.inference.streaming")
        assert {"date", "machine", "load_at_start", "cpu_seconds"} <= set(run)
    for name, entry in result.variants.items():
        assert entry.losses.shape == (result.tokens - 1,)
        assert entry.sinks + entry.window == result.cache
        assert entry.sinks == STREAM_VARIANTS[name].sinks
    s = streaming_summary(result, 512)
    assert s.evict == 1088 and len(s.start) == (result.tokens - 1) // 512
    for label, losses in s.loss.items():
        assert np.all(np.isfinite(losses)) and s.after_ppl[label] == pytest.approx(np.exp(s.after[label]))
    # tokens read before the first eviction see the same keys at the same places in every variant
    base = result.variants["sink4"].losses[: s.evict]
    for entry in result.variants.values():
        np.testing.assert_allclose(entry.losses[: s.evict], base, atol=2e-3)


def test_shipped_run_measured_where_the_attention_goes():
    result = shipped_streaming()
    evict = streaming_summary(result, 512).evict
    layers, heads = 30, 9  # SmolLM2-135M
    before = result.variants["sink4"].shares[0]
    for entry in result.variants.values():
        shares = entry.shares
        assert shares.shape == (2, layers, heads, SHARE_TOKENS)
        assert entry.share_queries == [[pc.real_models.SINK_FROM, evict], [evict, result.tokens]]
        assert np.all(shares >= 0) and np.all(shares.sum(axis=-1) <= 1)
        assert np.all(shares[1][..., entry.sinks:] == 0)  # the tokens a cache dropped get nothing
        # before the first eviction every cache holds the same keys at the same places
        np.testing.assert_allclose(shares[0], before, rtol=0, atol=1e-5)
    four = first_token_shares(result, "sink4")
    assert four.queries == (evict, result.tokens) and four.cache == result.cache
    np.testing.assert_allclose(four.mean, result.variants["sink4"].shares[1].mean(axis=(0, 1)), rtol=1e-12)


def _run(cache=64, block=4, tokens=50, trained_context=8192, **variants):
    """A StreamingRun of the given variants, for the readers' known values."""
    return StreamingRun(model=STREAM_MODEL, text="t", tokens=tokens, cache=cache, block=block, start=0,
                        trained_context=trained_context, variants=variants, seconds={}, runs=[])


def test_a_saved_run_loads_back_the_same(tmp_path):
    """_save writes the shipped file's format (info JSON, loss_ float32 and share_ float64 per variant): the
    shipped run saved and read again is the same run."""
    from posenc_core.inference.streaming_results import _save

    result = shipped_streaming()
    _save(result, tmp_path / "run.npz", {})
    again = load_streaming(tmp_path / "run.npz")
    assert again.runs == result.runs and again.seconds == result.seconds and list(again.variants) == list(
        result.variants)
    for name, entry in result.variants.items():
        np.testing.assert_array_equal(again.variants[name].losses, entry.losses)
        np.testing.assert_array_equal(again.variants[name].shares, entry.shares)
        assert again.variants[name].share_queries == entry.share_queries
    assert dataclasses.replace(again, variants={}) == dataclasses.replace(result, variants={})


def test_first_token_shares_known_values():
    shares = np.zeros((2, 3, 2, SHARE_TOKENS))
    shares[1, :, :, 0] = [[0.1, 0.3], [0.5, 0.7], [0.0, 0.2]]  # layer means 0.2, 0.6, 0.1
    shares[1, :, :, 1] = 0.01
    shares[0, :, :, 0] = 0.4
    result = _run(cache=8, block=4, tokens=20, sink4=StreamVariantRun(
        sinks=4, window=4, positions="cache", losses=np.zeros(19), shares=shares, share_queries=[[32, 12], [12, 20]]))
    s = first_token_shares(result, "sink4")
    np.testing.assert_allclose(s.per_layer[:, 0], [0.2, 0.6, 0.1])
    np.testing.assert_allclose(s.mean, [0.3, 0.01, 0, 0])
    assert s.rest == pytest.approx(0.69) and s.before[0] == pytest.approx(0.4)
    assert (s.low_layer, s.high_layer) == (2, 1) and s.queries == (12, 20)
    # queries 12..19 read blocks of 4 after an eviction: 8 cached keys and 1 to 4 of their own block
    assert s.uniform == pytest.approx(np.mean([1 / 9, 1 / 10, 1 / 11, 1 / 12]))


def test_summary_bins_known_values():
    losses = np.arange(99, dtype=float)
    result = _run(cache=8, block=4, tokens=100, trained_context=50,
                  sink4=StreamVariantRun(sinks=4, window=4, positions="cache", losses=losses))
    s = streaming_summary(result, 10)
    np.testing.assert_array_equal(s.start, np.arange(0, 90, 10))
    np.testing.assert_array_equal(s.loss["sink4"], np.arange(4.5, 90, 10))
    assert s.evict == 12 and s.before["sink4"] == 5.5 and s.after["sink4"] == np.mean(losses[12:])
    assert s.past["sink4"] == np.mean(losses[50:])


@pytest.mark.parametrize("call, message", [
    (lambda: streaming_cache_layout(-1, 4, 16, 8), "step must be at least 0"),
    (lambda: streaming_cache_layout(5, -1, 16, 8), "sinks must be at least 0"),
    (lambda: streaming_cache_layout(5, 4, 0, 8), "window must be at least 1"),
    (lambda: streaming_cache_layout(5, 4, 16, 0), "block must be at least 1"),
    (lambda: streaming_cache_layout(5, 4, 16, 8, "rope"), "positions must be one of"),
    (lambda: streaming_losses("nope", 0, 10, window=4, block=2), "variant must be one of"),
    (lambda: streaming_losses("sink4", 0, 1, window=4, block=2), "tokens must be at least 2"),
    (lambda: streaming_losses("sink4", 0, 10**6, window=4, block=2), "tokens must be at most"),
    (lambda: streaming_run(["sink4"], 100, cache=4, block=2), "cache must be at least 5"),
    (lambda: load_streaming("/nonexistent/run.npz"), "Could not read the streaming results"),
    (lambda: merge_streaming([]), "There are no runs to merge"),
    (lambda: merge_streaming([shipped_streaming(), dataclasses.replace(shipped_streaming(), cache=8)]),
     "The runs differ in cache"),
    (lambda: merge_streaming([shipped_streaming()] * 2), "is in more than one run"),
    (lambda: streaming_summary(shipped_streaming(), 10**6), "is longer than the"),
    (lambda: first_token_shares(shipped_streaming(), "nope"), "variant must be one of"),
    (lambda: first_token_shares(_run(sink4=StreamVariantRun(4, 60, "cache", np.zeros(49)))),
     "did not measure where the attention"),
    (lambda: first_token_shares(_run(cache=64, tokens=50, sink4=StreamVariantRun(
        4, 60, "cache", np.zeros(49), np.zeros((2, 1, 1, 4)), [[32, 50], [50, 50]]))),
     "Nothing left the cache of 64 keys"),
])
def test_bad_input_raises_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@needs_models
def test_streaming_hidden_checks_its_sizes(model):
    with pytest.raises(ValueError, match="tokens must be at most"):
        streaming_hidden(model, torch.zeros(1, MAX_STREAM_TOKENS + 1, dtype=torch.long), sinks=4, window=16,
                            block=8)
    with pytest.raises(ValueError, match="positions must be one of"):
        streaming_hidden(model, torch.zeros(1, 4, dtype=torch.long), sinks=4, window=16, block=8,
                            positions="rope")
