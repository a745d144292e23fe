"""What the KV cache holds (posenc_core.inference.kv_cache): the cached keys of transformers' ``DynamicCache``
through ``LlamaForCausalLM`` (tiny random weights) against its own projections and rotary module, bit for bit in
float32, and the cache against a full recompute under dynamic NTK and YaRN."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from posenc_core.inference import (
    CACHE_KINDS,
    CACHE_LAYER_RULES,
    DTYPE_BYTES,
    ENTRY_FORMS,
    PresetLeftOut,
    cache_bytes,
    cache_layout,
    cache_presets,
    measured_cache_bytes,
    preset_cache_bytes,
    tiny_cache_config,
)

torch = pytest.importorskip("torch")
from posenc_core.inference import kv_cache  # noqa: E402


def _prefill_and_decode(model, tokens, prefill: int):
    """Run the model as the page does and capture what each forward's first attention receives."""
    seen = []
    attention = model.model.layers[0].self_attn
    handle = attention.register_forward_pre_hook(
        lambda m, a, kw: seen.append(kw["hidden_states"]), with_kwargs=True)
    try:
        with torch.no_grad():
            cache = model(tokens[:, :prefill], use_cache=True).past_key_values
            for i in range(prefill, tokens.shape[1]):
                model(tokens[:, i:i + 1], past_key_values=cache, use_cache=True)
    finally:
        handle.remove()
    return cache, seen


def test_cached_keys_are_k_proj_turned_by_the_rotary_module_bit_for_bit():
    """Each cached key is k_proj of its own forward's input, turned by LlamaRotaryEmbedding at its position;
    each cached value is v_proj's output, never turned."""
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    model = kv_cache.tiny_llama(seed=3)
    tokens = torch.randint(0, 128, (1, 21), generator=torch.Generator().manual_seed(5))
    cache, seen = _prefill_and_decode(model, tokens, 13)
    assert type(cache).__name__ == "DynamicCache" and len(seen) == 1 + 8
    attention, hd = model.model.layers[0].self_attn, kv_cache.TINY_LLAMA["head_dim"]
    k = torch.cat([attention.k_proj(x) for x in seen], dim=1).view(1, 21, -1, hd).transpose(1, 2)  # (1, kv, n, hd)
    v = torch.cat([attention.v_proj(x) for x in seen], dim=1).view(1, 21, -1, hd).transpose(1, 2)
    cos, sin = model.model.rotary_emb(seen[0], torch.arange(21)[None])
    _, k_turned = apply_rotary_pos_emb(k, k, cos, sin)
    assert torch.equal(cache.layers[0].keys, k_turned)
    assert torch.equal(cache.layers[0].values, v)


def test_cache_contents_reads_the_cache_and_the_turns():
    c = kv_cache.cache_contents(10, 6, seed=0)
    assert c.keys.shape == (2, 16, 16) and c.values.shape == (2, 16, 16)
    assert c.kept and c.max_change == 0.0  # one more decode step leaves every cached row as it was
    assert c.prefill_all_gap < 1e-5  # one prefill of all 16 tokens: the same keys up to matmul rounding
    assert c.turn_gap == np.abs(c.key_turn - c.expected[None]).max() < 1e-5  # each key: position x theta
    np.testing.assert_allclose(c.expected, np.arange(16)[:, None] * c.theta[None])
    assert np.abs(c.value_turn).max() < 1e-6  # values: never turned
    assert np.abs(c.query_turn - c.expected[-1]).max() < 1e-5
    np.testing.assert_array_equal(c.theta, 1.0 / 10000.0 ** (np.arange(0, 16, 2, dtype=np.float32) / 16))


def test_cache_contents_layer_one_and_no_decode():
    c = kv_cache.cache_contents(5, 0, layer=1)
    assert c.keys.shape == (2, 5, 16) and c.kept


def test_decode_keys_match_one_prefill_of_everything():
    model = kv_cache.tiny_llama(seed=1)
    tokens = torch.randint(0, 128, (1, 30), generator=torch.Generator().manual_seed(2))
    cache, _ = _prefill_and_decode(model, tokens, 20)
    with torch.no_grad():
        whole = model(tokens, use_cache=True).past_key_values
    for layer in range(2):
        torch.testing.assert_close(cache.layers[layer].keys, whole.layers[layer].keys, rtol=0, atol=1e-5)


def test_dynamic_ntk_leaves_old_keys_with_the_old_rotation():
    r = kv_cache.cache_rescaling_error("dynamic", 40, 96, 2.0)
    ctx = kv_cache.TINY_CONTEXT
    # keys written before the sequence passed the original context keep the original frequencies ...
    theta_last = 1.0 / 10000.0 ** (14 / 16)
    np.testing.assert_allclose(r.written_freq[:ctx], theta_last, rtol=1e-6)
    # ... and each decode step past it recomputed them (seq_len = max(position_ids) + 1 > max_seq_len_cached)
    assert r.recomputes == 96 - ctx
    assert np.all(np.diff(r.written_freq[ctx - 1:]) < 0)
    assert r.full_freq == pytest.approx(r.written_freq[-1])  # the last key: the same as the full recompute
    assert r.score_error[0] < 1e-6  # position 0 is turned by 0 under any frequencies
    assert r.score_error[1:ctx].min() > 1e-4 and r.logit_error > 1e-4
    assert r.key_error[-1] < 1e-5


def test_the_full_recompute_is_a_no_cache_forward():
    """The reference reads its keys from the cache of one forward over everything: the same logits, bit for bit,
    as a forward without a cache (dynamic NTK, past the original context)."""
    tokens = torch.randint(0, 128, (1, 100), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        cached = kv_cache.tiny_llama("dynamic", 2.0)(tokens, use_cache=True).logits
        plain = kv_cache.tiny_llama("dynamic", 2.0)(tokens, use_cache=False).logits
    assert torch.equal(cached, plain)


@pytest.mark.parametrize("rope_type", ["yarn", "default"])
def test_static_rope_cache_equals_a_full_recompute(rope_type):
    r = kv_cache.cache_rescaling_error(rope_type, 40, 96, 4.0)
    assert r.recomputes == 0 and np.ptp(r.written_freq) == 0
    assert r.score_error.max() < 1e-5 and r.key_error.max() < 1e-5 and r.logit_error < 1e-5


def test_under_the_original_context_dynamic_is_plain_rope():
    a = kv_cache.cache_rescaling_error("dynamic", 10, 50, 2.0)
    assert a.recomputes == 0 and a.score_error.max() < 1e-5


def _dynamic_inv_freq(length: int, s: float) -> np.ndarray:
    """Dynamic NTK's frequencies for a sequence of ``length`` tokens, written out: base' = b (s L / L0 - (s - 1))
    ^ (d / (d - 2)) with L = max(length, L0), L0 the tiny model's 64, d = 16."""
    ctx, d = kv_cache.TINY_CONTEXT, kv_cache.TINY_LLAMA["head_dim"]
    base = 10000.0 * (s * max(length, ctx) / ctx - (s - 1)) ** (d / (d - 2))
    return 1.0 / base ** (np.arange(0, d, 2) / d)  # (d/2,)


def _lengths_used(prefill: int, total: int, history: int) -> tuple[list[int], int]:
    """The length whose frequencies each forward uses, walking the rule of dynamic_rope_update written out: grow to
    seq_len when it passes the cached length, go back to L0 when seq_len < L0 < cached; each prefill position
    gets the prefill's. Returns (length per position, the cached length the prompt found)."""
    ctx, cached = kv_cache.TINY_CONTEXT, kv_cache.TINY_CONTEXT

    def forward(seq_len: int) -> int:
        nonlocal cached
        before = cached
        if seq_len > cached:
            cached = seq_len
        if seq_len < ctx < before:
            cached = ctx
        return cached

    if history:
        forward(history)
    found = cached
    lengths = [forward(prefill)] * prefill + [forward(p + 1) for p in range(prefill, total)]
    return lengths, found


def _independent_errors(prefill: int, total: int, s: float, history: int) -> dict:
    """Layer 0's last-query scores and attention weights, cache against full recompute, in float64 numpy from the
    tiny model's weights: RMSNorm, q/k projections, the half-split rotation by position x the frequencies of the
    length each key was written at (the full recompute: all at ``total``)."""
    model = kv_cache.tiny_llama("dynamic", s)
    w = {k: v.double().numpy() for k, v in model.state_dict().items()}
    hd, heads, kv = 16, 4, 2
    x = w["model.embed_tokens.weight"][kv_cache._tokens(total, 0)[0].numpy()]  # (total, hidden)
    x = x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * w["model.layers.0.input_layernorm.weight"]
    q = (x[-1] @ w["model.layers.0.self_attn.q_proj.weight"].T).reshape(heads, hd)
    k = (x @ w["model.layers.0.self_attn.k_proj.weight"].T).reshape(total, kv, hd)

    def turn(v, angle):  # v (..., hd), angle broadcast to (..., hd/2)
        c, sn, a, b = np.cos(angle), np.sin(angle), v[..., :hd // 2], v[..., hd // 2:]
        return np.concatenate([a * c - b * sn, b * c + a * sn], axis=-1)

    lengths, found = _lengths_used(prefill, total, history)
    pos = np.arange(total)
    out = {"found": found, "lengths": lengths}
    for name, freqs in (("cache", np.stack([_dynamic_inv_freq(n, s) for n in lengths])),
                        ("full", np.tile(_dynamic_inv_freq(total, s), (total, 1)))):
        keys = turn(k, (pos[:, None] * freqs)[:, None, :])  # (total, kv, hd)
        query = turn(q, (total - 1) * freqs[-1])  # (heads, hd)
        scores = np.einsum("hd,nhd->hn", query, np.repeat(keys, heads // kv, axis=1)) / np.sqrt(hd)
        weights = np.exp(scores - scores.max(1, keepdims=True))
        out[name] = (scores, weights / weights.sum(1, keepdims=True))
    gap = np.abs(out["cache"][0] - out["full"][0])
    sigma = out["full"][0].std(axis=1)
    moved = np.abs(out["cache"][1] - out["full"][1])
    return {**out, "score_error": gap.max(0), "relative_error": (gap / sigma[:, None]).max(0), "sigma": sigma,
            "attention_change": moved.max(0), "attention_moved": 0.5 * moved.sum(1)}


@pytest.mark.parametrize("prefill, total, s, history, update", [
    (32, 128, 2.0, 0, "none"),  # the page's defaults
    (64, 128, 4.0, 96, "none"),  # a prompt of L0 tokens keeps the 96-token history's frequencies
    (72, 96, 2.0, 64, "growth"),
    (32, 96, 2.0, 256, "reset"),  # a prompt under L0 resets them
    (80, 128, 8.0, 256, "none"),  # all turned for 256 tokens: the cache agrees with itself, not with a fresh model
])
def test_rescaling_error_against_an_independent_computation(prefill, total, s, history, update):
    r = kv_cache.cache_rescaling_error("dynamic", prefill, total, s, history=history)
    ref = _independent_errors(prefill, total, s, history)
    assert r.prefill_update == update and r.history_len == ref["found"]
    np.testing.assert_array_equal(r.written_len, ref["lengths"])
    np.testing.assert_allclose(r.written_freq, [_dynamic_inv_freq(n, s)[-1] for n in ref["lengths"]], rtol=1e-6)
    np.testing.assert_allclose(r.score_spread, ref["sigma"], rtol=1e-4)
    np.testing.assert_allclose(r.score_error, ref["score_error"], rtol=1e-3, atol=1e-6)
    np.testing.assert_allclose(r.relative_error, ref["relative_error"], rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(r.attention_change, ref["attention_change"], rtol=1e-3, atol=1e-8)
    np.testing.assert_allclose(r.attention_moved, ref["attention_moved"], rtol=1e-3, atol=1e-8)
    written = np.array([_dynamic_inv_freq(n, s)[-1] for n in ref["lengths"]])
    assert r.stale_keys == np.count_nonzero(~np.isclose(written[1:], _dynamic_inv_freq(total, s)[-1], rtol=1e-7))


def test_the_page_defaults_relative_error_and_attention():
    """At the page's defaults (P 32, N 128, s 2, fresh model) the stale keys are off by several score spreads; the
    attention weights, nearly uniform on random weights, move by well under the uniform 1/128."""
    r = kv_cache.cache_rescaling_error("dynamic", 32, 128, 2.0)
    assert r.relative_error.max() > 1 and r.attention_change.max() < 1 / 128
    assert r.stale_keys == 126  # every key after 0 but the last was written with other frequencies
    y = kv_cache.cache_rescaling_error("yarn", 32, 128, 2.0)
    assert y.relative_error.max() < 1e-4 and y.attention_change.max() < 1e-7 and y.stale_keys == 0


def test_rope_parameters():
    assert kv_cache.tiny_rope_parameters("yarn", 4) == {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                                                          "original_max_position_embeddings": 64}
    assert kv_cache.tiny_rope_parameters() == {"rope_type": "default", "rope_theta": 10000.0}


@pytest.mark.parametrize("call, field", [
    (lambda: kv_cache.tiny_rope_parameters("ntk"), "rope type"),
    (lambda: kv_cache.tiny_rope_parameters("dynamic", 1.0), "scale factor"),
    (lambda: kv_cache.tiny_llama(seed=-1), "seed"),
    (lambda: kv_cache.cache_contents(0, 4), "prefill length"),
    (lambda: kv_cache.cache_contents(200, 100), "decode steps"),
    (lambda: kv_cache.cache_contents(4, 4, layer=2), "layer"),
    (lambda: kv_cache.cache_rescaling_error("dynamic", 10, 300), "sequence length"),
    (lambda: kv_cache.cache_rescaling_error("dynamic", 10, 10), "prefill length"),
    (lambda: kv_cache.cache_rescaling_error("linear", 10, 20), "rope type"),
    (lambda: kv_cache.cache_rescaling_error("dynamic", 10, 20, history=-1), "history length"),
    (lambda: kv_cache.cache_rescaling_error("dynamic", 10, 20, history=257), "history length"),
])
def test_bad_input_names_the_field(call, field):
    with pytest.raises(ValueError, match=field):
        call()


# ---- Bytes per token: the count against what a tiny random build's DynamicCache holds ----

CACHE_KEYS = cache_presets().keys
# the families the table must show, with a preset each (a text key and its config's nesting as published)
SERVED = {"llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "deepseek-v3", "deepseek-v4-flash", "gemma3-27b",
          "gemma4-31b", "gemma4-e2b", "llama4-scout", "mistral-7b", "ministral3-8b", "mistral-small4",
          "qwen2.5-7b-yarn", "qwen3-vl-8b", "qwen3.5-27b", "qwen3.5-397b-a17b", "olmo3-7b", "phi3.5-mini"}


@pytest.mark.parametrize("key", CACHE_KEYS)
def test_cache_bytes_equal_what_a_tiny_build_holds(key):
    """The count (read from the config) against the bytes of every tensor the DynamicCache of a random build with
    the preset's layer pattern holds (a multimodal preset's image-text model, vision tower included): after a
    prefill inside the tiny window (4) and past it, and after a prefill and decode steps; the fixed-size states
    of linear-attention and convolution layers keep their size."""
    config = tiny_cache_config(key)
    layout = cache_layout(config)
    assert layout.holds == cache_layout(pc.PRESETS[key].config).holds  # the tiny build keeps the pattern
    short, long = measured_cache_bytes(config, 2), measured_cache_bytes(config, 9)
    decoded = measured_cache_bytes(config, 9, prefill=5)
    assert short.classes == layout.classes == decoded.classes
    assert short.held == cache_bytes(config, 2, "float32").total
    assert long.held == decoded.held == cache_bytes(config, 9, "float32").total
    assert long.states == short.states


def test_the_served_families_are_counted():
    assert SERVED <= set(CACHE_KEYS)
    rows = {k: cache_layout(pc.PRESETS[k].config) for k in CACHE_KEYS}
    assert {h for lay in rows.values() for h in lay.holds} == {"all", "window", "compressed", "none"}
    assert {p.entry.form for lay in rows.values() for p in lay.layers if p.entry} == set(ENTRY_FORMS)
    assert {lay.kind for lay in rows.values()} == set(CACHE_KINDS)
    assert cache_presets().left_out["llama2-7b"] == PresetLeftOut("keys", ("num_hidden_layers",
                                                                                 "num_key_value_heads"), "llama")
    assert cache_presets().left_out["gemma4"].reason == "not_released"


def test_cache_bytes_known_values():
    """Counts by hand, bfloat16 unless said: Qwen3 8B (36 layers, 8 KV heads of 128); Kimi K2's latent (512 + 64
    per layer, 61 layers, fp8); GPT-OSS 20B (12 full layers, 12 keeping 127 tokens of a 128 window, float16);
    DeepSeek V3.2's indexer key; Llama 3.1 405B; Gemma 4 31B's two head sizes; Gemma 4 E2B's shared layers;
    Phi-3.5's window longer than its context; DeepSeek V4 Flash's compressed layers."""
    qwen = cache_bytes(pc.PRESETS["qwen3-8b"].config, 1000, "bfloat16")
    assert qwen.per_token == 36 * 2 * 8 * 128 * 2 == qwen.total / 1000 == qwen.next_token
    kimi = cache_bytes(pc.PRESETS["kimi-k2"].config, 10, "fp8")
    assert kimi.per_token == 61 * (512 + 64) and kimi.layout.layers[0].entry.width == 576
    oss = cache_bytes(pc.PRESETS["gpt-oss-20b"].config, 5000, "float16")
    assert oss.per_token == 12 * 2 * 8 * 64 * 2 and oss.window_tokens == 127
    assert oss.total == 12 * 2 * 8 * 64 * 2 * (5000 + 127)
    dsa = cache_bytes(pc.PRESETS["deepseek-v3.2"].config, 10, "bfloat16")
    assert dsa.per_token == 61 * (512 + 64 + 128) * 2  # the latent, the shared rotated key, the indexer's key
    assert cache_bytes(pc.PRESETS["llama3.1-405b"].config, 7).total == 7 * 126 * 2 * 8 * 128 * 2
    n = 4000
    gemma = cache_bytes(pc.PRESETS["gemma4-31b"].config, n)
    assert gemma.total == (10 * n * 2 * 4 * 512 + 50 * 1023 * 2 * 16 * 256) * 2 and gemma.layers["window"] == 50
    e2b = cache_bytes(pc.PRESETS["gemma4-e2b"].config, n)
    assert e2b.layers == {"all": 3, "window": 12, "compressed": 0, "none": 20}
    assert e2b.total == (3 * n * 2 * 512 + 12 * 511 * 2 * 256) * 2
    phi = cache_bytes(pc.PRESETS["phi3.5-mini"].config, 131072)
    assert phi.per_token == 0 and phi.next_token == 32 * 2 * 32 * 96 * 2 and phi.window_tokens == 131072
    v4 = cache_bytes(pc.PRESETS["deepseek-v4-flash"].config, 1000)
    assert v4.layers["compressed"] == 43 and v4.span == 128
    hca, csa = 23, 20  # layers: 512-wide entries, 128 tokens each; 4 tokens each with a 128-wide indexer key
    assert v4.per_token == pytest.approx((hca * 512 / 128 + csa * (512 + 128) / 4) * 2)
    window = 127 * 512
    hca_held = window + 1000 // 128 * 512 + 1000 % 128 * 2 * 512
    csa_held = window + 250 * 640 + 0 + 2 * 4 * 640  # 1000 = 250 windows of 4: no buffer, the overlap kept
    assert v4.total == (hca * hca_held + csa * csa_held) * 2
    r = preset_cache_bytes(4096, "float32")
    assert r.keys == CACHE_KEYS and r.gb.shape == (len(CACHE_KEYS),) and len(r.kinds) == len(CACHE_KEYS)


@settings(max_examples=40, deadline=None)
@given(key=st.sampled_from(CACHE_KEYS), n=st.integers(1, 1 << 20), dtype=st.sampled_from(list(DTYPE_BYTES)))
def test_the_next_tokens_add_per_token_once_everything_is_full(key, n, dtype):
    """Past every window and compression rate, each span of tokens adds per_token each; before that, a window
    layer adds a token only while it holds fewer than W - 1. The count scales with the element size."""
    config = pc.PRESETS[key].config
    now = cache_bytes(config, n, dtype)
    layout, size = now.layout, DTYPE_BYTES[dtype]
    full = max([p.window for p in layout.layers if p.window] + [p.rate or 0 for p in layout.layers] + [1])
    later = cache_bytes(config, n + now.span, dtype)
    assert now.next_token == (later.total - now.total) / now.span
    if n >= full:
        assert later.total - now.total == pytest.approx(now.span * now.per_token)
    if not layout.layers or all(p.holds in ("all", "window", "none") for p in layout.layers):
        filling = sum(p.entry.width for p in layout.layers if p.holds == "window" and n < p.window - 1)
        assert now.next_token == now.per_token + filling * size
    assert now.total == cache_bytes(config, n, "fp8").total * size


def test_an_uncovered_cache_layer_is_refused():
    """A layer type whose cache class this count has no rule for is refused by name, not counted as zero."""
    with pytest.MonkeyPatch.context() as m:
        m.delitem(CACHE_LAYER_RULES, "DeepseekV4CSACache")
        with pytest.raises(ValueError, match="DeepseekV4CSACache"):
            cache_layout(pc.PRESETS["deepseek-v4-flash"].config)


@pytest.mark.parametrize("call, field", [
    (lambda: cache_bytes(pc.PRESETS["qwen3-8b"].config, 0), "tokens"),
    (lambda: cache_bytes(pc.PRESETS["qwen3-8b"].config, 10, "int4"), "cache dtype"),
    (lambda: cache_layout({"model_type": "no_such_model"}), "model_type"),
    (lambda: tiny_cache_config("llama2-7b"), "tiny build"),
    (lambda: measured_cache_bytes(pc.PRESETS["qwen3-8b"].config, 65), "tokens"),
    (lambda: measured_cache_bytes(pc.PRESETS["qwen3-8b"].config, 9, prefill=10), "prefill"),
])
def test_cache_bytes_bad_input(call, field):
    with pytest.raises(ValueError, match=field):
        call()
