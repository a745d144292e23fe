"""Context-extension analysis, presets and config.json parsing; parity with transformers."""

import json
import logging
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from page_kit.lesson.config_words import setting_table
from page_kit.lesson.preset_words import preset_note, preset_source
from posenc_core.configs import MAX_CONFIG_BYTES, config_contexts, describe_rope_config, rope_layer_types
from posenc_core.long_context import (
    BANDS,
    PHI35_LONG_FACTOR,
    PHI35_SHORT_FACTOR,
    attention_factor_curve,
    deepseek_softmax_mscale,
    dynamic_ntk_base,
    extension_analysis,
    extension_band_counts,
    extension_scaling,
    fastest_pair_when_doubled,
    first_stale_call,
    ntk_stretched_base,
    resample_factors,
    score_vs_distance,
    yarn_code_bounds,
    yarn_paper_ramp,
    yarn_paper_ratio,
)
from posenc_core.rope import rope_dynamic_calls, yarn_ramp, yarn_ramp_bounds

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from transformers import (  # noqa: E402
    DeepseekV3Config,
    GPTNeoXConfig,
    LlamaConfig,
    MistralConfig,
    Phi3Config,
    Qwen2Config,
)
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.deepseek_v3.modeling_deepseek_v3 import yarn_apply_mscale  # noqa: E402

logging.getLogger("transformers").setLevel(logging.ERROR)

PHI_SHORT, PHI_LONG = list(PHI35_SHORT_FACTOR), list(PHI35_LONG_FACTOR)


def hf(config, seq_len=None, cls=LlamaConfig):
    """transformers' (inv_freq, attention factor) for a config dict."""
    cfg = cls.from_dict(json.loads(json.dumps(config)))
    rope_type = cfg.rope_parameters.get("rope_type", "default")
    if rope_type == "default":
        base = cfg.rope_parameters["rope_theta"]
        dim = int(cfg.head_dim * cfg.rope_parameters.get("partial_rotary_factor", 1.0)) if hasattr(cfg, "head_dim") \
            else None
        if dim is None:
            dim = int(cfg.hidden_size // cfg.num_attention_heads * cfg.rope_parameters.get("partial_rotary_factor", 1))
        inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        return inv.numpy(), 1.0
    inv, factor = ROPE_INIT_FUNCTIONS[rope_type](cfg, "cpu", seq_len=seq_len)
    return inv.numpy(), float(factor)


# ---------------------------------------------------------------- every method of the page = transformers

METHOD_KNOBS = {
    "linear": {},
    "dynamic": {},
    "yarn": {"beta_fast": 32.0, "beta_slow": 1.0},
    "yarn-mscale": {"beta_fast": 24.0, "beta_slow": 2.0, "mscale": 0.707, "mscale_all_dim": 1.0},
    "yarn-no-truncate": {"beta_fast": 16.0, "beta_slow": 1.5, "truncate": False},
    "llama3": {"low_freq_factor": 1.0, "high_freq_factor": 4.0},
    "llama3-wide": {"low_freq_factor": 0.5, "high_freq_factor": 8.0},
    "longrope": {"short_factor": PHI_SHORT, "long_factor": PHI_LONG},
}


@pytest.mark.parametrize("case", list(METHOD_KNOBS))
@pytest.mark.parametrize("factor, original", [(4.0, 4096), (8.0, 8192), (2.5, 2048)])
def test_page_methods_equal_transformers(case, factor, original):
    method = case.split("-")[0]
    head_dim = 96 if method == "longrope" else 128
    scaling, max_pos = extension_scaling(method, factor, original, **METHOD_KNOBS[case])
    target = int(round(factor * original))
    config = {"hidden_size": head_dim * 8, "num_attention_heads": 8, "head_dim": head_dim, "rope_theta": 10000.0,
              "max_position_embeddings": max_pos, "rope_scaling": scaling}
    for seq_len in (original // 2, target):
        expected, expected_attn = hf(config, seq_len)
        result = extension_analysis(head_dim, 10000.0, scaling, original=original, target=target,
                                       seq_len=seq_len, max_position_embeddings=max_pos)
        np.testing.assert_allclose(result.inv_freq_after, expected, rtol=2e-6)
        assert result.attention_factor == pytest.approx(expected_attn, rel=1e-12)


def test_static_ntk_method_is_the_base_rescaling():
    scaling, _ = extension_scaling("ntk", 8.0, 4096)
    result = extension_analysis(64, 10000.0, scaling, original=4096, target=32768)
    new_base = 10000.0 * 8.0 ** (64 / 62)
    np.testing.assert_allclose(result.inv_freq_after, new_base ** (-np.arange(0, 64, 2) / 64), rtol=1e-6)
    assert result.band[0] == "extrapolated" and result.band[-1] == "interpolated"
    assert set(result.band[1:-1]) == {"blended"}


# ---------------------------------------------------------------- presets = transformers with their own classes

PRESET_CLASSES = {"llama2-7b": LlamaConfig, "llama3.1-8b": LlamaConfig, "mistral-7b": MistralConfig,
                  "qwen2.5-7b-yarn": Qwen2Config, "gpt-neox-20b": GPTNeoXConfig, "phi3.5-mini": Phi3Config,
                  "deepseek-v3": DeepseekV3Config}


def test_every_preset_is_tested():
    # the classic presets are compared here; the 2025-26 ones layer by layer in tests/test_presets.py
    assert set(PRESET_CLASSES) <= set(pc.PRESETS)


@pytest.mark.parametrize("key", list(PRESET_CLASSES))
def test_presets_equal_transformers(key):
    config = pc.preset_config(key)
    read = pc.read_rope_config(config)
    original, target, _ = config_contexts(read)
    for seq_len in (None, original, target):
        expected, expected_attn = hf(config, seq_len, PRESET_CLASSES[key])
        inv, attn = pc.rope_from_config(config, seq_len=seq_len)
        assert inv.shape == expected.shape
        np.testing.assert_allclose(inv, expected, rtol=2e-6)
        assert attn == pytest.approx(expected_attn, rel=1e-12)


def test_preset_facts():
    assert pc.read_rope_config(pc.preset_config("deepseek-v3")).head_dim == 64  # qk_rope_head_dim, not 7168/128
    neox = pc.read_rope_config(pc.preset_config("gpt-neox-20b"))
    assert (neox.head_dim, neox.rotary_dim) == (96, 24)
    assert len(PHI35_LONG_FACTOR) == len(PHI35_SHORT_FACTOR) == 48
    assert config_contexts(pc.read_rope_config(pc.preset_config("qwen2.5-7b-yarn")))[:2] == (32768, 131072)
    # llama3's rule is built for factor x L (x 8), not max_position_embeddings / L (x 16)
    assert config_contexts(pc.read_rope_config(pc.preset_config("llama3.1-8b")))[:2] == (8192, 65536)
    assert config_contexts(pc.read_rope_config(pc.preset_config("llama2-7b")))[:2] == (4096, None)
    for key, preset in pc.PRESETS.items():
        assert preset.model_id.count("/") == 1 and preset_source(key) and preset_note(key)
    with pytest.raises(ValueError, match="Unknown preset"):
        pc.preset_config("gpt-5")


def test_preset_copies_are_independent():
    pc.preset_config("phi3.5-mini")["rope_scaling"]["long_factor"][0] = 99.0
    assert pc.preset_config("phi3.5-mini")["rope_scaling"]["long_factor"][0] == pytest.approx(1.08)


def test_phi3_su_alias_equals_transformers():
    config = {**pc.preset_config("phi3.5-mini")}
    # transformers 5 validates before renaming "su", so it also needs the original length inside rope_scaling
    config["rope_scaling"] = {**config["rope_scaling"], "type": "su", "original_max_position_embeddings": 4096}
    for seq_len in (2000, 9000):
        expected, expected_attn = hf(config, seq_len, Phi3Config)
        inv, attn = pc.rope_from_config(config, seq_len=seq_len)
        np.testing.assert_allclose(inv, expected, rtol=2e-6)
        assert attn == pytest.approx(expected_attn)


def test_deepseek_softmax_mscale_equals_transformers():
    for scaling in (pc.preset_config("deepseek-v3")["rope_scaling"],
                    {"rope_type": "yarn", "factor": 16, "mscale_all_dim": 0.707},
                    {"rope_type": "yarn", "factor": 16, "mscale": 1.0},
                    None):
        params = {"rope_type": "default"} if scaling is None else \
            {**scaling, "rope_type": scaling.get("rope_type", scaling.get("type"))}
        assert deepseek_softmax_mscale(scaling) == pytest.approx(yarn_apply_mscale(params, 1.0), rel=1e-12)
    assert deepseek_softmax_mscale(pc.preset_config("deepseek-v3")["rope_scaling"]) == \
        pytest.approx((0.1 * math.log(40) + 1) ** 2)


# ---------------------------------------------------------------- analysis: known values and properties

def test_linear_interpolates_every_pair_and_stays_in_distribution():
    scaling, _ = extension_scaling("linear", 4.0, 2048)
    result = extension_analysis(128, 10000.0, scaling, original=2048, target=8192)
    np.testing.assert_allclose(result.ratio, 0.25, rtol=1e-6)
    assert set(result.band) == {"interpolated"}
    assert not result.out_of_distribution.any()
    np.testing.assert_allclose(result.wavelength_after, 4 * result.wavelength_before, rtol=1e-6)


def test_no_scaling_puts_slow_pairs_out_of_distribution():
    result = extension_analysis(128, 10000.0, None, original=4096, target=16384)
    assert set(result.band) == {"extrapolated"}
    slow = result.angle_train < 2 * math.pi  # pairs that never turned a full circle in 4096 tokens
    assert slow.any() and np.array_equal(result.out_of_distribution, slow)
    np.testing.assert_allclose(result.angle_target, 4 * result.angle_train, rtol=1e-12)


def test_yarn_bands_follow_the_code_ramp():
    scaling, _ = extension_scaling("yarn", 16.0, 4096)
    result = extension_analysis(128, 10000.0, scaling, original=4096, target=65536)
    low, high = yarn_ramp_bounds(scaling, 128, 10000.0, 4096)
    ramp = yarn_ramp(low, high, 64)
    assert np.array_equal(result.band == "extrapolated", ramp == 0)
    assert np.array_equal(result.band == "interpolated", ramp == 1)
    assert not result.out_of_distribution.any()  # YaRN's point: every pair stays in what it saw
    assert result.attention_factor == pytest.approx(0.1 * math.log(16) + 1)


def test_llama3_bands_follow_the_wavelength_thresholds():
    scaling, _ = extension_scaling("llama3", 8.0, 8192, low_freq_factor=1.0, high_freq_factor=4.0)
    result = extension_analysis(128, 500000.0, scaling, original=8192, target=65536)
    wavelength = result.wavelength_before
    assert np.all(result.band[wavelength < 8192 / 4] == "extrapolated")
    assert np.all(result.band[wavelength > 8192] == "interpolated")
    assert np.all(result.band[(wavelength > 8192 / 4) & (wavelength < 8192)] == "blended")


def test_yarn_paper_ramp_is_linear_in_rotations():
    ramp = yarn_paper_ramp(128, 10000.0, 4096, beta_fast=32, beta_slow=1)
    theta = 10000.0 ** (-np.arange(0, 128, 2) / 128)
    rotations = 4096 * theta / (2 * math.pi)
    assert np.all(ramp[rotations >= 32] == 0) and np.all(ramp[rotations <= 1] == 1)
    middle = (rotations > 1) & (rotations < 32)
    np.testing.assert_allclose(ramp[middle], 1 - (rotations[middle] - 1) / 31)
    # the code's ramp is linear in the pair index instead: the two differ inside the ramp
    low, high = yarn_ramp_bounds({}, 128, 10000.0, 4096)
    code = yarn_ramp(low, high, 64)
    assert np.abs(code - ramp).max() > 0.1
    lo, hi = yarn_code_bounds(128, 10000.0, 4096)
    assert math.floor(lo) == low and math.ceil(hi) == high


def test_score_vs_distance_known_values():
    inv = np.array([1.0, 0.01])
    d, s = score_vs_distance(inv, attention_factor=2.0, max_distance=100, n_points=50)
    assert d[0] == 0 and d[-1] == 100 and np.all(np.diff(d) > 0)
    assert s[0] == pytest.approx(4.0)  # a^2 at distance 0
    np.testing.assert_allclose(s, 4.0 * (np.cos(d * 1.0) + np.cos(d * 0.01)) / 2)


def test_attention_factor_curve_and_resampling():
    curves = attention_factor_curve([0.5, 1.0, math.e ** 10], original=4096)
    np.testing.assert_allclose(curves.yarn, [1.0, 1.0, 2.0])
    assert curves.longrope[2] == pytest.approx(math.sqrt(1 + 10 / math.log(4096)))
    np.testing.assert_array_equal(resample_factors(PHI_LONG, 48), PHI_LONG)
    stretched = resample_factors(PHI_LONG, 64)
    assert stretched.shape == (64,) and stretched[0] == PHI_LONG[0] and stretched[-1] == PHI_LONG[-1]
    np.testing.assert_array_equal(resample_factors([3.0], 5), [3.0] * 5)


@settings(max_examples=40, deadline=None)
@given(method=st.sampled_from(["linear", "ntk", "yarn", "llama3"]), factor=st.floats(1.5, 64),
       log_original=st.integers(8, 15), half=st.integers(4, 64), base=st.sampled_from([1e4, 5e5, 1e6]))
def test_every_pair_is_slowed_by_at_most_s(method, factor, log_original, half, base):
    original = 2 ** log_original
    scaling, max_pos = extension_scaling(method, factor, original)
    result = extension_analysis(2 * half, base, scaling, original=original,
                                   target=int(round(factor * original)), max_position_embeddings=max_pos)
    ratio = result.ratio
    assert np.all(ratio <= 1 + 1e-5) and np.all(ratio >= 1 / factor * (1 - 1e-5))
    assert np.all(np.diff(result.wavelength_after) > 0)  # order of the pairs is kept
    assert set(result.band) <= set(BANDS)


# ---------------------------------------------------------------- config.json parsing

def test_parse_config_json_accepts_text_and_bytes():
    text = json.dumps(pc.preset_config("llama3.1-8b"))
    assert pc.parse_config_json(text) == pc.parse_config_json(("\ufeff" + text).encode("utf-8"))


def _described(config, layer_type=None):
    """describe_rope_config's rows as the page words them: {setting: (setting, value, read from)}."""
    read = pc.read_rope_config(config, layer_type)
    return {r[0]: r for r in setting_table(describe_rope_config(config, layer_type), read.rope_type)}


def test_describe_rope_config_rows():
    rows = _described(pc.preset_config("gpt-neox-20b"))
    assert rows["head_dim"][1] == "96" and "rotary_pct" in rows["partial rotary"][2]
    assert "24 of 96" in rows["partial rotary"][1] and "rotary_emb_base" in rows["base (rope_theta)"][2]
    rows = _described(pc.preset_config("phi3.5-mini"))
    assert rows["long_factor"][1].startswith("48 values")
    assert "top-level" in rows["original_max_position_embeddings"][2]
    assert rows["original_max_position_embeddings"][1] == "4,096"  # lengths with separators, as in the table
    rows = _described(pc.preset_config("deepseek-v3"))
    assert "qk_rope_head_dim" in rows["head_dim"][2]
    nested = {"hidden_size": 1024, "num_attention_heads": 8, "head_dim": 256,
              "layer_types": ["sliding_attention", "full_attention"],
              "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                                  "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6}}}
    assert rope_layer_types(nested) == ["sliding_attention", "full_attention"]
    rows = _described(nested, "sliding_attention")
    assert rows["layer type"][1] == "sliding_attention" and rows["rope_type"][1] == "default"
    assert rope_layer_types({"rope_parameters": {"full_attention": {}}, "layer_types": 5}) == \
        ["full_attention"]


@pytest.mark.parametrize("data, message", [
    ("x" * (MAX_CONFIG_BYTES + 1), "the limit here is"),
    (b"\xff\xfe{}", "not UTF-8"),
    ("   ", "empty"),
    ('{"head_dim": 64,}', "not valid JSON.*line 1"),
    ("{'head_dim': 64}", "not valid JSON"),
    ('{"rope_theta": NaN}', "NaN"),
    ("[1, 2]", "JSON array"),
    ('"config"', "JSON string"),
    (None, "as text"),
    ("[" * 100000 + "]" * 100000, "nested too deeply|not valid JSON"),
])
def test_parse_config_json_errors(data, message):
    with pytest.raises(ValueError, match=message):
        pc.parse_config_json(data)


@pytest.mark.parametrize("call, message", [
    (lambda: extension_scaling("magic", 2, 4096), "method must be one of"),
    (lambda: extension_scaling("linear", 0.5, 4096), "at least 1"),
    (lambda: extension_scaling("linear", 2, 1), "at least 2"),
    (lambda: extension_scaling("longrope", 2, 4096), "short_factor and a long_factor"),
    (lambda: extension_scaling("yarn", 2, 4096, beta_fast=-1), "greater than 0"),
    (lambda: extension_analysis(64, 1e4, None, original=4096, target=1), "at least 2"),
    (lambda: extension_analysis(64, 1e4, {"rope_type": "yarn", "factor": 2}, original=8, target=16),
     "original_max_position"),
    (lambda: yarn_paper_ramp(64, 1e4, 4096, beta_fast=1, beta_slow=2), "must be larger"),
    (lambda: score_vs_distance([], max_distance=10), "at least one"),
    (lambda: score_vs_distance([1.0], max_distance=10 ** 12), "at most"),
    (lambda: attention_factor_curve([0.0]), "positive"),
    (lambda: score_vs_distance(np.ones(1 << 18)), "cap"),
    (lambda: attention_factor_curve(np.ones(1 << 25)), "cap"),
    (lambda: fastest_pair_when_doubled(["linear", "magic"], 64, 1e4, 4096, 2.0), "method must be one of"),
    (lambda: resample_factors([], 4), "at least one"),
    (lambda: resample_factors([1.0, -1.0], 4), "positive"),
    (lambda: deepseek_softmax_mscale([1]), "dictionary"),
    (lambda: deepseek_softmax_mscale({"type": "yarn", "mscale_all_dim": 1}), "must be a number"),
    (lambda: config_contexts(pc.read_rope_config({"head_dim": 64, "rope_scaling": {
        "rope_type": "yarn", "original_max_position_embeddings": 4096}})), "target length is unknown"),
    (lambda: describe_rope_config({"head_dim": 64, "rope_scaling": {"rope_type": "rope9"}}),
     "rope_type must be one of"),
    (lambda: describe_rope_config({"hidden_size": 64}), "num_attention_heads"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_doubling_the_stretch_moves_only_the_fastest_pair_of_position_interpolation():
    out = fastest_pair_when_doubled(("linear", "ntk", "yarn", "llama3"), 128, 10000.0, 4096, 4.0)
    assert out.changed == ["linear"]  # the others leave pair 0 (a wavelength of 2 pi) alone
    assert out.before["linear"] == pytest.approx(1 / 4) and out.after["linear"] == pytest.approx(1 / 8)
    assert out.before["yarn"] == out.after["yarn"] == 1.0


# --- the numbers the Extension lesson states ---------------------------------------------------------------------

def test_band_counts_add_up_and_match_the_bands():
    scaling, max_pos = extension_scaling("yarn", 8.0, 4096)
    result = extension_analysis(128, 10000.0, scaling, original=4096, target=32768,
                                   max_position_embeddings=max_pos)
    counts = extension_band_counts(result)
    assert counts.pairs == 64 == counts.extrapolated + counts.blended + counts.interpolated
    assert counts.interpolated == int((result.band == "interpolated").sum())
    assert counts.out_of_distribution == int(result.out_of_distribution.sum())
    with pytest.raises(ValueError):
        extension_band_counts({"pair": 1})


def test_ntk_stretched_base_is_the_base_the_ntk_frequencies_use():
    base = ntk_stretched_base(128, 10000.0, 4.0)
    assert base == pytest.approx(10000.0 * 4.0 ** (128 / 126))
    theta, _ = pc.rope_inv_freq(128, 10000.0, {"rope_type": "ntk", "factor": 4.0})
    assert theta[-1] == pytest.approx(base ** (-126 / 128), rel=1e-5)
    with pytest.raises(ValueError):
        ntk_stretched_base(2, 10000.0, 4.0)


def test_dynamic_ntk_base_keeps_the_base_up_to_L_and_grows_past_it():
    assert dynamic_ntk_base(128, 10000.0, 4.0, 1000, 4096) == pytest.approx(10000.0)
    grown = dynamic_ntk_base(128, 10000.0, 4.0, 8192, 4096)
    assert grown == pytest.approx(10000.0 * (4.0 * 2 - 3.0) ** (128 / 126))
    with pytest.raises(ValueError):
        dynamic_ntk_base(128, 10000.0, 4.0, 0, 4096)


def test_first_stale_call_finds_the_shorter_call_after_a_longer_one():
    calls = rope_dynamic_calls(64, 10000.0, 4.0, 4096, [8192, 6000, 2000])
    k = first_stale_call(calls)
    assert k == 1 and calls.stale[1] and not calls.stale[0]
    assert first_stale_call(rope_dynamic_calls(64, 10000.0, 4.0, 4096, [1000, 2000])) is None
    with pytest.raises(ValueError):
        first_stale_call({})


def test_yarn_paper_ratio_runs_from_one_to_one_over_s():
    ratio = yarn_paper_ratio(128, 10000.0, 4096, 8.0)
    assert ratio[0] == pytest.approx(1.0) and ratio[-1] == pytest.approx(1 / 8)
    assert np.allclose(ratio, yarn_paper_ramp(128, 10000.0, 4096) / 8 + 1 - yarn_paper_ramp(128, 10000.0, 4096))
