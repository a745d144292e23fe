"""Per-layer rules of today's models against transformers' own code: local/global RoPE, query temperatures,
GPT-OSS sinks, Hunyuan's NTK-alpha, which hybrids rotate; plus properties of the order-aware mixers."""

import dataclasses
import inspect
import json
import logging
import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from lessons.todays_models.words import HYBRID_ATTENTION, HYBRID_POSITIONS
from posenc_core.configs import config_contexts, layer_facts, layer_inv_freq
from posenc_core.long_context import extension_analysis, extension_scaling
from posenc_core.todays_models import (
    HYBRID_MODELS,
    LOCAL_GLOBAL_MODELS,
    MIXERS,
    NOPE_LAYER_MODELS,
    QUERY_SCALE_RULES,
    LayerRope,
    QueryScaleFirstSteps,
    attention_entropy,
    causal_conv,
    gated_recurrence,
    layer_kind_inv_freq,
    llama4_attn_temperature,
    llama_4_scaling_beta,
    local_global_model,
    local_global_scores,
    local_global_view,
    local_global_window_edge,
    nope_attention,
    nope_layer_counts,
    nope_layer_map,
    order_test,
    proportional_inv_freq,
    query_scale_first_steps,
    query_scale_positions,
    query_temperature,
    sink_attention_map,
    sink_mass_by_position,
    sink_mass_by_score,
    sink_softmax,
    streaming_eviction,
    temperature_entropy,
    temperature_positions,
)

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
logging.getLogger("transformers").setLevel(logging.ERROR)

from transformers.models.gemma3 import modeling_gemma3  # noqa: E402
from transformers.models.gemma4 import modeling_gemma4  # noqa: E402
from transformers.models.gpt_oss import modeling_gpt_oss  # noqa: E402
from transformers.models.hunyuan_v1_dense import modeling_hunyuan_v1_dense  # noqa: E402
from transformers.models.hunyuan_v1_moe import modeling_hunyuan_v1_moe  # noqa: E402
from transformers.models.llama4 import modeling_llama4  # noqa: E402
from transformers.models.mimo_v2_flash import modeling_mimo_v2_flash  # noqa: E402
from transformers.models.ministral3 import modeling_ministral3  # noqa: E402
from transformers.models.mistral4 import modeling_mistral4  # noqa: E402
from transformers.models.olmo3 import modeling_olmo3  # noqa: E402

SMALL = dict(vocab_size=32, hidden_size=64, intermediate_size=64, num_hidden_layers=6, num_attention_heads=2,
             num_key_value_heads=1)


# --- local and global layers ----------------------------------------------------------------------------

def _rope_parameters(layer: LayerRope) -> dict:
    params = {"rope_type": layer.rope_type, "rope_theta": layer.base, **layer.scaling}
    if layer.partial_rotary_factor != 1.0:
        params["partial_rotary_factor"] = layer.partial_rotary_factor
    return params


def _hf_model(name):
    """The model's own config class and rotary module, built from the values local_global_model reads."""
    spec = local_global_model(name)
    rope = {"sliding_attention": _rope_parameters(spec.local), "full_attention": _rope_parameters(spec.full)}
    common = dict(SMALL, head_dim=spec.local.head_dim, sliding_window=spec.local.window,
                  max_position_embeddings=spec.context, rope_parameters=rope)
    if name.startswith("Gemma 3"):
        config = transformers.Gemma3TextConfig(**common)
        return config, modeling_gemma3.Gemma3RotaryEmbedding(config)
    if name.startswith("Gemma 4"):
        config = transformers.Gemma4TextConfig(**common, global_head_dim=spec.full.head_dim)
        return config, modeling_gemma4.Gemma4TextRotaryEmbedding(config)
    if name.startswith("Olmo 3"):
        config = transformers.Olmo3Config(**common)
        return config, modeling_olmo3.Olmo3RotaryEmbedding(config)
    config = transformers.MiMoV2FlashConfig(**common)
    return config, modeling_mimo_v2_flash.MiMoV2FlashRotaryEmbedding(config)


@pytest.mark.parametrize("name", list(LOCAL_GLOBAL_MODELS))
def test_local_global_frequencies_match_each_models_rotary_module(name):
    config, rotary = _hf_model(name)
    spec = local_global_model(name)
    assert config.sliding_window == spec.local.window
    for kind, layer_type in (("local", "sliding_attention"), ("full", "full_attention")):
        expected = getattr(rotary, f"{layer_type}_inv_freq").numpy()
        inv, factor = layer_kind_inv_freq(getattr(spec, kind), spec.context)
        assert inv.dtype == np.float32 and inv.shape == expected.shape
        np.testing.assert_array_equal(inv, expected)  # bit for bit, proportional included
        expected_factor = getattr(rotary, f"{layer_type}_attention_scaling", None)
        if expected_factor is None:
            expected_factor = rotary.attention_scaling[layer_type]
        assert factor == pytest.approx(float(expected_factor), rel=1e-9)


def test_gemma4_full_layers_have_their_own_head_dim():
    config, _ = _hf_model("Gemma 4")
    full = config.layer_types.index("full_attention")
    assert config.per_layer_config[full].head_dim == local_global_model("Gemma 4").full.head_dim


@pytest.mark.parametrize("name", list(LOCAL_GLOBAL_MODELS))
def test_local_global_view_counts(name):
    view = local_global_view(name)
    for kind in ("local", "full"):
        v = getattr(view, kind)
        turning = np.isfinite(v.wavelength)
        assert v.rotated_dims == 2 * turning.sum()
        assert v.full_turn_in_span == np.count_nonzero(v.turns_in_span >= 1 - 1e-9)
        np.testing.assert_allclose(v.wavelength[turning] * v.inv_freq[turning], 2 * math.pi, rtol=1e-6)
        assert v.pairs == v.head_dim // 2
        inv, _ = layer_kind_inv_freq(getattr(local_global_model(name), kind), view.context)
        np.testing.assert_array_equal(v.inv_freq[: inv.size], inv)
        assert np.all(v.inv_freq[inv.size:] == 0)
    assert view.local.span == local_global_model(name).local.window
    assert view.full.span == view.context


# The table the Local and global page drew from before it read the preset configs (each value cited to its
# config.json or class defaults); every number the page shows must stay bit for bit what this table gave.
FORMER_TABLE = {
    "Gemma 3 27B": (LayerRope(128, 10_000.0, window=1024), LayerRope(128, 1_000_000.0, "linear", {"factor": 8.0}),
                    131_072),
    "Gemma 4": (LayerRope(256, 10_000.0, window=512),
                LayerRope(512, 1_000_000.0, "proportional", partial_rotary_factor=0.25), 131_072),
    "Olmo 3 7B": (LayerRope(128, 500_000.0, window=4096),
                  LayerRope(128, 500_000.0, "yarn", {"factor": 8.0, "original_max_position_embeddings": 8192,
                                                        "attention_factor": 1.2079441541679836, "beta_fast": 32.0,
                                                        "beta_slow": 1.0}), 65_536),
    "MiMo-V2-Flash": (LayerRope(192, 10_000.0, partial_rotary_factor=0.334, window=129),
                      LayerRope(192, 5_000_000.0, partial_rotary_factor=0.334), 131_072),
}


@pytest.mark.parametrize("name", list(LOCAL_GLOBAL_MODELS))
def test_local_global_reads_the_preset_as_every_config_page_does(name):
    """Each kind's setting is the one reading's (read_layers of the preset), and every number the page shows is
    bit for bit what the former hand table gave, through the same frequency rule. (Gemma 4's proportional
    frequencies now follow transformers' op order, as Layer by layer does: at most one float32 ulp from the numpy
    rule the page used before, checked below.)"""
    spec = local_global_model(name)
    local, full, context = FORMER_TABLE[name]
    assert spec.context == context
    for kind, former in (("local", local), ("full", full)):
        ours = getattr(spec, kind)
        assert (ours.head_dim, ours.base, ours.rope_type, ours.partial_rotary_factor, ours.window) == (
            former.head_dim, former.base, former.rope_type, former.partial_rotary_factor, former.window)
        assert dict(ours.scaling) == dict(former.scaling)
        for a, b in zip(layer_kind_inv_freq(ours, context), layer_kind_inv_freq(former, context), strict=True):
            np.testing.assert_array_equal(a, b)
    view = local_global_view(name)
    pair_view = local_global_view.__globals__["_pair_view"]
    former_views = {"local": pair_view(local, context), "full": pair_view(full, context)}
    for kind in ("local", "full"):
        for field in dataclasses.fields(former_views[kind]):
            np.testing.assert_array_equal(getattr(getattr(view, kind), field.name),
                                          getattr(former_views[kind], field.name))
    # the one reading: the same frequencies as layer_inv_freq of the layer the page picked, and its facts
    _, rows = pc.read_layers(pc.preset_config(LOCAL_GLOBAL_MODELS[name]))
    for kind in ("local", "full"):
        row = rows[spec.layers[kind]]
        inv, factor = layer_inv_freq(row)
        np.testing.assert_array_equal(getattr(view, kind).inv_freq[: inv.size], inv)
        assert getattr(view, kind).attention_factor == factor
        assert spec.facts[kind] == tuple(layer_facts(row))
    assert any(f.feature == "window" for f in spec.facts["local"])
    if full.rope_type == "proportional":
        np.testing.assert_array_max_ulp(view.full.inv_freq.astype(np.float32), proportional_inv_freq(
            full.head_dim, full.base, full.partial_rotary_factor), maxulp=1)


def test_proportional_matches_transformers_and_checks():
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    config = transformers.Gemma4TextConfig(**SMALL, head_dim=64, rope_parameters={
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        "full_attention": {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.5,
                           "factor": 2.0}}, global_head_dim=128)
    full = config.per_layer_config[config.layer_types.index("full_attention")]
    expected, _ = ROPE_INIT_FUNCTIONS["proportional"](full, "cpu", layer_type="full_attention")
    ours = proportional_inv_freq(128, 1e6, 0.5, 2.0)
    np.testing.assert_allclose(ours, expected.numpy(), rtol=2e-6, atol=0)
    assert np.count_nonzero(ours) == 32
    with pytest.raises(ValueError, match="partial_rotary_factor"):
        proportional_inv_freq(64, 1e4, 1.5)
    with pytest.raises(ValueError, match="model must be one of"):
        local_global_view("Gemma 2")


# --- query temperature ----------------------------------------------------------------------------------

def test_llama4_temperature_matches_the_attention_module(monkeypatch):
    captured = {}

    def capture(module, query, key, value, attention_mask, **kwargs):
        captured[module.config.attn_temperature_tuning] = query.detach().clone()
        return torch.zeros(query.shape[0], query.shape[2], query.shape[1], query.shape[3]), None

    monkeypatch.setattr(modeling_llama4, "eager_attention_forward", capture)
    n, floor_scale, attn_scale = 40, 4, 0.3  # a short period puts several steps inside 40 positions
    hidden = torch.randn(1, n, 32, generator=torch.Generator().manual_seed(0))
    for tuning in (False, True):
        config = transformers.Llama4TextConfig(hidden_size=32, num_attention_heads=2, num_key_value_heads=1,
                                               head_dim=16, num_hidden_layers=4, floor_scale=floor_scale,
                                               attn_scale=attn_scale, attn_temperature_tuning=tuning,
                                               intermediate_size=32, intermediate_size_mlp=32)
        config._attn_implementation = "eager"
        layer = config.no_rope_layers.index(0)  # a NoPE layer: every fourth
        torch.manual_seed(1)
        attention = modeling_llama4.Llama4TextAttention(config, layer)
        attention(hidden, position_embeddings=None, attention_mask=None)
    ratio = (captured[True] / captured[False]).numpy()[0, 0, :, 0]  # (n,)
    ours = llama4_attn_temperature(np.arange(n), attn_scale, floor_scale)
    np.testing.assert_allclose(ours, ratio, rtol=1e-6)
    assert ours[floor_scale - 2] == 1.0 and ours[floor_scale - 1] > 1.0  # the +1: the first step is at p = 3


@pytest.mark.parametrize("module", [modeling_ministral3, modeling_mistral4])
def test_llama_4_scaling_beta_matches_transformers(module):
    positions = np.array([0, 1, 16383, 16384, 16385, 40000, 1_000_000, 10_000_000])
    expected = module.get_llama_4_attn_scale(torch.tensor(positions)[None, :], 0.1, 16384)
    np.testing.assert_allclose(llama_4_scaling_beta(positions, 0.1, 16384), expected.numpy()[0, 0, :, 0],
                               rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(list(QUERY_SCALE_RULES)), st.integers(0, 10**7), st.integers(0, 10**7))
def test_query_scales_start_at_one_and_never_fall(rule, a, b):
    low, high = sorted((a, b))
    scales = query_temperature(rule, [0, low, high])
    assert scales[0] == 1.0 and 1.0 <= scales[1] <= scales[2]


def test_temperature_entropy():
    positions = np.array([1, 100, 9000, 100_000])
    result = temperature_entropy("llama4", positions, spread=1.0, margin=4.0)
    assert np.all(result.entropy <= result.uniform + 1e-9)
    assert np.all(np.diff(result.entropy) > 0)  # more keys, flatter attention
    sharper = result.scale > 1
    assert sharper.tolist() == [False, False, True, True]
    assert np.all(result.entropy_scaled[sharper] < result.entropy[sharper])
    assert np.all(result.needle_scaled[sharper] > result.needle[sharper])
    same = ~sharper
    np.testing.assert_array_equal(result.entropy_scaled[same], result.entropy[same])
    # the brute-force softmax agrees
    rng = np.random.default_rng(0)
    scores = rng.standard_normal(100_001)
    scores[0] = 4.0
    p = np.exp(scores[:101] - scores[:101].max())
    p /= p.sum()
    assert result.entropy[1] == pytest.approx(float(-(p * np.log(p)).sum()), rel=1e-12)
    with pytest.raises(ValueError, match="at least 1"):
        temperature_entropy("llama4", [0, 5])
    with pytest.raises(ValueError, match="rule must be one of"):
        temperature_entropy("alibi", [5])
    with pytest.raises(ValueError, match="whole numbers"):
        llama4_attn_temperature([-1, 2])


def _direct_entropy(rule, lengths, scale=None, period=None, spread=1.0, margin=4.0, seed=0) -> dict:
    """temperature_entropy as first written: one softmax over the whole row per position and scale."""
    p = np.unique(np.asarray(lengths, dtype=np.int64).reshape(-1))
    scales = query_temperature(rule, p, scale, period).astype(np.float64)
    scores = spread * np.random.default_rng(seed).standard_normal(int(p.max()) + 1)
    scores[0] = margin
    out = {k: np.empty(p.size) for k in ("entropy", "entropy_scaled", "needle", "needle_scaled")}
    for i, (pos, s) in enumerate(zip(p, scales, strict=True)):
        for suffix, logits in (("", scores[: pos + 1]), ("_scaled", s * scores[: pos + 1])):
            shifted = logits - logits.max()
            weights = np.exp(shifted)
            total = weights.sum()
            probs = weights / total
            out["entropy" + suffix][i] = -(probs * shifted).sum() + math.log(total)
            out["needle" + suffix][i] = probs[0]
    return {"positions": p.astype(np.float64), "scale": scales, "uniform": np.log(p + 1.0), **out}


# temperature_entropy sums each softmax from binned draws; it may differ from the direct softmax by rounding only.
# Each bin's Taylor series stops below 2^-56 of a term, and each exponent s·score - shift is rounded in another
# order: a few ulps of |s·score| + |shift|, at most ~800 for any key whose term is above exp(-745) (key 0's term
# is computed as the direct softmax does). That is <= ~1e-12 relative in the sums and <= ~3e-11 nats in an entropy
# of up to ln(4M) = 15; the lesson's sliders give ~1e-14. 1e-9 (relative, and absolute in nats for entropies near
# 0) keeps a 30x margin, and the page shows entropies to 3 decimals and probabilities to 2-3 significant digits.
DIRECT_SOFTMAX_TOLERANCE = 1e-9


def _assert_matches_direct_softmax(rule, lengths, **kwargs):
    got, want = temperature_entropy(rule, lengths, **kwargs), _direct_entropy(rule, lengths, **kwargs)
    assert {f.name for f in dataclasses.fields(got)} == want.keys()
    for key in ("positions", "scale", "uniform"):
        np.testing.assert_array_equal(getattr(got, key), want[key])
    for key in ("entropy", "entropy_scaled"):
        np.testing.assert_allclose(getattr(got, key), want[key], rtol=DIRECT_SOFTMAX_TOLERANCE,
                                   atol=DIRECT_SOFTMAX_TOLERANCE)
    for key in ("needle", "needle_scaled"):  # down to exp(-745) and below: relative, but for subnormals
        np.testing.assert_allclose(getattr(got, key), want[key], rtol=DIRECT_SOFTMAX_TOLERANCE, atol=1e-300)
    same = got.scale == 1.0
    for key in ("entropy", "needle"):
        np.testing.assert_array_equal(getattr(got, key + "_scaled")[same], getattr(got, key)[same])


@pytest.mark.parametrize("rule", list(QUERY_SCALE_RULES))
@pytest.mark.parametrize("spread, margin", [(0.0, 0.0), (0.0, 50.0), (0.0, -50.0), (1.0, 4.0), (3.0, 10.0),
                                            (10.0, 0.0), (20.0, 50.0), (20.0, -50.0)])
@pytest.mark.parametrize("seed", [0, 7])
def test_temperature_entropy_matches_the_direct_softmax(rule, spread, margin, seed):
    # the step edges of both rules at the default periods, and a log grid past several steps
    lengths = np.concatenate([temperature_positions(300_000, 40), [8190, 8191, 16383, 16384]])
    _assert_matches_direct_softmax(rule, lengths, spread=spread, margin=margin, seed=seed)


@pytest.mark.parametrize("rule", list(QUERY_SCALE_RULES))
@pytest.mark.parametrize("scale, period", [(10.0, 1), (2.0, 100), (0.0, 1)])
def test_temperature_entropy_matches_the_direct_softmax_at_strong_scales(rule, scale, period):
    # scales up to ~130: past the bins' series for most pairs, so the direct softmax takes over row by row
    for spread, margin in ((20.0, -50.0), (1.0, 50.0), (0.05, 4.0)):
        _assert_matches_direct_softmax(rule, temperature_positions(100_000, 24), scale=scale, period=period,
                                       spread=spread, margin=margin, seed=3)


@pytest.mark.parametrize("rule", list(QUERY_SCALE_RULES))
def test_temperature_entropy_matches_the_direct_softmax_on_the_lesson(rule):
    _assert_matches_direct_softmax(rule, temperature_positions(1_048_576), scale=0.1,
                                   period=QUERY_SCALE_RULES[rule].period, spread=3.0, margin=10.0)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(list(QUERY_SCALE_RULES)), st.lists(st.integers(1, 30_000), min_size=1, max_size=12),
       st.floats(0.0, 10.0), st.integers(1, 20_000), st.floats(0.0, 20.0), st.floats(-50.0, 50.0),
       st.integers(0, 2**32 - 1))
def test_temperature_entropy_matches_the_direct_softmax_anywhere(rule, lengths, scale, period, spread, margin, seed):
    _assert_matches_direct_softmax(rule, lengths, scale=scale, period=period, spread=spread, margin=margin,
                                   seed=seed)


def test_temperature_entropy_is_the_same_bits_from_a_cold_cache():
    positions = temperature_positions(200_000)
    warm = temperature_entropy("llama4", positions, spread=2.0, margin=3.0)
    attention_entropy._draw_sums.cache_clear()
    cold = temperature_entropy("llama4", positions, spread=2.0, margin=3.0)
    for field in dataclasses.fields(warm):
        np.testing.assert_array_equal(getattr(cold, field.name), getattr(warm, field.name))
    sums = attention_entropy._draw_sums(0, positions.astype(np.int64).tobytes())[-1]
    with pytest.raises(ValueError, match="read-only"):  # one cached copy serves every caller
        sums[0, 0, 0] = 1.0


# --- attention sinks ------------------------------------------------------------------------------------

def test_sink_softmax_matches_gpt_oss_eager_attention():
    gen = torch.Generator().manual_seed(0)
    heads, n, d = 3, 7, 8
    q, k, v = (torch.randn(1, heads, n, d, generator=gen) for _ in range(3))
    sinks = torch.tensor([-2.0, 0.5, 3.0])
    mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)[None, None]
    module = SimpleNamespace(sinks=sinks, num_key_value_groups=1, training=False)
    _, weights = modeling_gpt_oss.eager_attention_forward(module, q, k, v, mask, scaling=d ** -0.5)
    logits = (q @ k.transpose(2, 3) * d ** -0.5 + mask).numpy()[0]  # (heads, n, n)
    probs, mass = sink_softmax(logits, sinks.numpy()[:, None])
    np.testing.assert_allclose(probs, weights.numpy()[0], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(probs.sum(-1) + mass, 1.0, rtol=1e-12)


def test_sink_properties():
    masked = np.full((1, 4), -np.inf)
    probs, mass = sink_softmax(masked, 0.0)
    assert mass[0] == 1.0 and probs.sum() == 0.0  # a row with nothing visible parks everything on the sink
    by_score = sink_mass_by_score(1.0, np.linspace(-5, 5, 21), 64)
    assert np.all(np.diff(by_score) < 0)
    result = sink_mass_by_position(2.0, 300, 50, spread=0.7, seed=3)
    scores = 0.7 * np.random.default_rng(3).standard_normal(300)
    for p in (0, 49, 50, 299):
        _, direct = sink_softmax(scores[max(0, p - 49): p + 1], 2.0)
        assert result.window[p] == pytest.approx(float(direct), rel=1e-9)
    np.testing.assert_array_equal(result.window[:50], result.full[:50])
    assert result.keys_window.max() == 50 and result.keys_full[-1] == 300
    heat = sink_attention_map(12, 4, 0.0)
    np.testing.assert_allclose(np.nansum(heat.probs, axis=1) + heat.sink, 1.0)
    assert np.isnan(heat.probs[5, 0]) and np.isnan(heat.probs[0, 1])
    with pytest.raises(ValueError, match="finite"):
        sink_softmax([[np.nan]], 0.0)
    with pytest.raises(ValueError, match="window"):
        sink_attention_map(8, 9, 0.0)


def test_streaming_eviction_hurts_only_the_first_token_sink():
    result = streaming_eviction(128, 3.0, first_score=6.0)
    first, learned = result.first_token, result.learned_sink
    assert first.after.parking == 0.0 and first.before.parking > 0.5
    # the kept tokens share what token 0 held (minus the new token's part): growth just under 1 / (1 - m0)
    assert 0.95 / (1 - first.before.parking) < first.growth <= 1 / (1 - first.before.parking)
    assert learned.growth < 1.05 and learned.after.parking > 0
    for case in (first, learned):
        for when in ("before", "after"):
            assert getattr(case, when).parking + getattr(case, when).tokens == pytest.approx(1.0)


# --- Hunyuan's NTK-alpha --------------------------------------------------------------------------------

@pytest.mark.parametrize("model_type,config_cls,rotary_cls", [
    ("hunyuan_v1_dense", transformers.HunYuanDenseV1Config, modeling_hunyuan_v1_dense.HunYuanDenseV1RotaryEmbedding),
    ("hunyuan_v1_moe", transformers.HunYuanMoEV1Config, modeling_hunyuan_v1_moe.HunYuanMoEV1RotaryEmbedding)])
@pytest.mark.parametrize("alpha,head_dim", [(1000.0, 128), (4.0, 64), (2.5, 96)])
def test_ntk_alpha_is_bit_identical_to_hunyuan(model_type, config_cls, rotary_cls, alpha, head_dim):
    raw = {"model_type": model_type, "hidden_size": head_dim * 4, "num_attention_heads": 4, "head_dim": head_dim,
           "max_position_embeddings": 32768,
           "rope_scaling": {"type": "dynamic", "alpha": alpha, "factor": 1.0}, "rope_theta": 10000.0}
    rotary = rotary_cls(config_cls(**{k: v for k, v in raw.items() if k != "model_type"}))
    assert rotary.rope_type == "ntk_alpha"
    inv, factor = pc.rope_from_config(raw, seq_len=100_000)  # fixed: the sequence length does not matter
    np.testing.assert_array_equal(inv, rotary.inv_freq.numpy())
    assert factor == rotary.attention_scaling == 1.0


def test_ntk_alpha_in_the_extension_methods():
    scaling, max_pos = extension_scaling("ntk_alpha", 8.0, 4096)
    assert scaling == {"rope_type": "ntk_alpha", "alpha": 8.0} and max_pos == 4096
    alpha_inv, _ = pc.rope_inv_freq(128, 10000.0, scaling)
    ntk_inv, _ = pc.rope_inv_freq(128, 10000.0, {"rope_type": "ntk", "factor": 8.0})
    np.testing.assert_allclose(alpha_inv, ntk_inv, rtol=2e-6)  # alpha = s is static NTK
    result = extension_analysis(128, 10000.0, {"rope_type": "ntk_alpha", "alpha": 1000.0}, original=4096,
                                   target=32768)
    assert result.ratio[-1] == pytest.approx(1 / 1000, rel=1e-5) and result.ratio[0] == 1.0
    with pytest.raises(ValueError, match="alpha"):
        pc.rope_inv_freq(128, 10000.0, {"rope_type": "ntk_alpha"})
    with pytest.raises(ValueError, match="alpha"):
        extension_scaling("ntk_alpha", 2.0, 4096, alpha=0.5)


def test_hunyuan_config_reads_as_ntk_alpha_everywhere():
    config = {"model_type": "hunyuan_v1_dense", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
              "max_position_embeddings": 32768, "rope_theta": 10000.0,
              "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}}
    read = pc.read_rope_config(config)
    assert read.rope_type == "ntk_alpha"
    assert config_contexts(read)[:2] == (32768, None)  # no target length is invented
    assert pc.parse_config_json(json.dumps(config)) == config  # the paste path reads it unchanged


def test_dynamic_with_alpha_stays_dynamic_outside_hunyuan():
    raw = {"hidden_size": 512, "num_attention_heads": 4, "max_position_embeddings": 4096, "rope_theta": 10000.0,
           "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 2.0}}
    assert pc.read_rope_config(raw).rope_type == "dynamic"
    assert pc.read_rope_config({**raw, "model_type": "hunyuan_v1_moe"}).rope_type == "ntk_alpha"


# --- hybrids --------------------------------------------------------------------------------------------

ATTENTION_CLASSES = {"qwen3_next": "Qwen3NextAttention", "kimi_linear": "KimiLinearAttention",
                     "granitemoehybrid": "GraniteMoeHybridAttention", "nemotron_h": "NemotronHAttention",
                     "falcon_h1": "FalconH1Attention", "lfm2": "Lfm2Attention"}


@pytest.mark.parametrize("name", list(HYBRID_MODELS))
def test_hybrid_table_follows_the_modeling_code(name):
    import importlib
    spec = HYBRID_MODELS[name]
    module = importlib.import_module(f"transformers.models.{spec.module}.modeling_{spec.module}")
    forward = inspect.getsource(getattr(module, ATTENTION_CLASSES[spec.module]).forward)
    rotates = "apply_rotary_pos_emb(" in forward
    assert rotates == (spec.rotates != "none")
    assert HYBRID_POSITIONS[name].startswith(("RoPE", "none unless") if rotates else "none")  # the words agree
    if spec.module == "granitemoehybrid":  # rotation only with a rotary module, built for 'rope' alone
        assert 'position_embedding_type == "rope"' in inspect.getsource(module.GraniteMoeHybridModel.__init__)


def test_qwen3_next_pattern_and_partial_rotary():
    config = transformers.Qwen3NextConfig(num_hidden_layers=8)
    assert config.layer_types == ["linear_attention"] * 3 + ["full_attention"] + ["linear_attention"] * 3 + [
        "full_attention"]
    assert config.rope_parameters["partial_rotary_factor"] == 0.25 and config.head_dim == 256


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 40), st.integers(1, 12), st.integers(0, 10**6))
def test_bidirectional_nope_attention_is_permutation_equivariant(n, dim, seed):
    x = np.random.default_rng(seed).standard_normal((n, dim))
    perm = np.random.default_rng(seed + 1).permutation(n)
    bidirectional = MIXERS["bidirectional"]
    np.testing.assert_allclose(bidirectional(x[perm]), bidirectional(x)[perm], atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(st.integers(4, 40), st.data())
def test_swaps_each_mixer_sees_where_it_should(n, data):
    i = data.draw(st.integers(0, n - 2))
    j = data.draw(st.integers(i + 1, n - 1))
    result = order_test(n, 8, "swap", i=i, j=j, seed=data.draw(st.integers(0, 1000)))
    err = result.errors
    t = np.arange(n)
    assert np.all(err["bidirectional"] < 1e-12)
    causal = err["causal"]
    assert np.all(causal[(t < i) | (t > j)] < 1e-12)  # same query, same set of tokens up to t: same output
    conv = err["conv"]
    outside = ~(((t >= i) & (t < i + 4)) | ((t >= j) & (t < j + 4)))
    assert np.all(conv[outside] < 1e-12)
    assert conv[i] > 0 and err["recurrence"][i] > 0  # both see the new token at i at once
    assert np.all(err["recurrence"][t < i] == 0)


def test_order_test_checks():
    with pytest.raises(ValueError, match="reordering"):
        order_test(8, 4, "custom")
    with pytest.raises(ValueError, match="at most"):
        causal_conv(np.zeros((1000, 4)))
    with pytest.raises(ValueError, match="decay"):
        gated_recurrence(np.zeros((4, 4)), 1.5)


def test_nope_layer_map_follows_the_config_classes():
    names, grid = nope_layer_map(48)
    rows = dict(zip(names, grid, strict=True))
    llama4 = transformers.Llama4TextConfig()
    smol = transformers.SmolLM3Config()
    cohere = transformers.Cohere2Config()
    exaone = transformers.Exaone4Config()
    ministral = transformers.Ministral3Config()
    expected = {
        "Llama 4 Scout": [float(v) for v in llama4.no_rope_layers],  # 1 = this layer uses RoPE
        "SmolLM3": [float(v) for v in smol.no_rope_layers],
        # Cohere2Attention and Exaone4Attention rotate only on sliding layers
        "Cohere2": [float(t == "sliding_attention") for t in cohere.layer_types],
        "EXAONE 4": [float(t == "sliding_attention") for t in exaone.layer_types],
        "Ministral 3": [1.0] * ministral.num_hidden_layers,
    }
    for name, values in expected.items():
        depth = len(values)
        assert NOPE_LAYER_MODELS[name].depth == depth
        np.testing.assert_array_equal(rows[name][:depth], values)
        assert np.all(np.isnan(rows[name][depth:]))
    assert llama4.attention_chunk_size == 8192 and llama4.floor_scale == 8192 and llama4.attn_scale == 0.1
    assert ministral.rope_parameters["llama_4_scaling_beta"] == 0.1
    assert ministral.rope_parameters["original_max_position_embeddings"] == 16384
    cohere_src = inspect.getsource(transformers.models.cohere2.modeling_cohere2.Cohere2Attention.forward)
    assert "if self.sliding_window is not None:" in cohere_src


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=40), st.floats(-30, 30))
def test_a_sink_only_rescales_the_softmax(scores, sink):
    probs, mass = sink_softmax(np.array(scores), sink)
    plain = np.exp(np.array(scores) - max(scores))
    plain /= plain.sum()
    assert probs.sum() + mass == pytest.approx(1.0)
    np.testing.assert_allclose(probs / probs.sum(), plain, rtol=1e-9)  # same ranking and ratios


def test_more_value_errors():
    with pytest.raises(ValueError, match="Offsets"):
        sink_mass_by_score(0.0, [])
    with pytest.raises(ValueError, match="cache size"):
        streaming_eviction(1, 0.0)
    with pytest.raises(ValueError, match="number of layers"):
        nope_layer_map(0)
    with pytest.raises(ValueError, match="at most 512"):
        temperature_entropy("llama4", np.arange(1, 600))
    with pytest.raises(ValueError, match="tokens, dim"):
        nope_attention(np.zeros(5))


def test_kimi_linear_puts_one_full_attention_layer_in_four():
    layer_types = transformers.KimiLinearConfig().layer_types
    full = [i for i, kind in enumerate(layer_types) if kind == "full_attention"]
    assert full == list(range(4, len(layer_types), 4))  # 3 delta layers, then 1 attention layer
    assert HYBRID_MODELS["kimi_linear"].attention == "one_in_four_latent"
    assert "1 layer in 4" in HYBRID_ATTENTION[HYBRID_MODELS["kimi_linear"].attention]


# --- the positions the query-scale and entropy figures are drawn at ----------------------------------------

def test_query_scale_positions_keep_both_sides_of_each_step():
    p = query_scale_positions(65536, (8192, 16384))
    assert p.dtype == np.int64 and p[0] == 1 and p[-1] == 65535 and np.all(np.diff(p) > 0)
    for llama_step in (8191, 16383, 24575):  # Llama 4's multiplier changes between p - 1 and p
        assert {llama_step - 1, llama_step} <= set(p.tolist())
        assert llama4_attn_temperature(np.array([llama_step]), 0.1)[0] > \
            llama4_attn_temperature(np.array([llama_step - 1]), 0.1)[0]
    for mistral_step in (16384, 32768, 49152):
        assert {mistral_step - 1, mistral_step} <= set(p.tolist())


def test_temperature_positions_are_log_spaced_and_capped():
    p = temperature_positions(1_048_576)
    assert p[0] == 1 and p[-1] == min(1_048_576, pc.MAX_POSITIONS - 1) and p.size <= 64
    assert np.all(np.diff(p) > 0)


@pytest.mark.parametrize("call", [lambda: query_scale_positions(1), lambda: query_scale_positions(10, (0, 5)),
                                  lambda: query_scale_positions(10, steps=65),
                                  lambda: temperature_positions(1), lambda: temperature_positions(100, 1),
                                  lambda: local_global_scores("GPT-2")])
def test_the_figure_helpers_reject_bad_input(call):
    with pytest.raises(ValueError):
        call()


def test_local_global_view_states_slowest_wavelengths_and_turns():
    for model in LOCAL_GLOBAL_MODELS:
        result = local_global_view(model)
        for kind in ("local", "full"):
            v = getattr(result, kind)
            finite = v.wavelength[np.isfinite(v.wavelength)]
            assert v.slowest_wavelength == pytest.approx(finite.max())
            assert v.unrotated_pairs == v.pairs - v.rotated_dims // 2
            assert v.most_turns_in_span == pytest.approx(v.turns_in_span.max())
        assert result.slowest_ratio == pytest.approx(result.full.slowest_wavelength
                                                       / result.local.slowest_wavelength)


def test_local_global_window_edge_reads_the_curves_at_the_last_distance_inside_the_window():
    distances, curves = local_global_scores("Gemma 3 27B")
    edge = local_global_window_edge("Gemma 3 27B")
    window = local_global_view("Gemma 3 27B").local.span
    assert edge.distance <= window - 1 < distances[list(distances).index(edge.distance) + 1]
    assert edge.far == pytest.approx(curves["full"][-1])
    with pytest.raises(ValueError):
        local_global_window_edge("no such model")


def test_nope_layer_counts_and_the_first_query_scale_steps():
    counts = nope_layer_counts()
    names, grid = nope_layer_map(64)
    for name, row in zip(names, grid, strict=True):
        assert counts[name] == (int(np.nansum(row == 0)), int(np.count_nonzero(np.isfinite(row))))
    first = query_scale_first_steps(np.arange(1, 40000), 16384)
    assert (first.llama, first.mistral) == (8191, 16384)
    assert query_scale_first_steps([1, 2, 3], 16384) == QueryScaleFirstSteps(llama=None, mistral=None)
