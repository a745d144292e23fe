"""rope_inv_freq / rope_from_config against transformers' own RoPE init functions."""

import logging

import numpy as np
import pytest

import posenc_core as pc
from posenc_core.rope import yarn_ramp, yarn_ramp_bounds

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from transformers import GPTNeoXConfig, LlamaConfig, Phi3Config  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding  # noqa: E402

logging.getLogger("transformers").setLevel(logging.ERROR)

RNG = np.random.default_rng(0)
PHI3_SHORT = list(np.round(1 + RNG.random(48) * 0.1, 4))
PHI3_LONG = list(np.round(1 + RNG.random(48) * 40, 4))


def llama(scaling=None, *, head_dim=128, theta=10000.0, max_pos=4096, **extra):
    config = {"hidden_size": head_dim * 8, "num_attention_heads": 8, "head_dim": head_dim,
              "rope_theta": theta, "max_position_embeddings": max_pos, **extra}
    if scaling is not None:
        config["rope_scaling"] = scaling
    return config


def hf_inv_freq(config, seq_len=None, cls=LlamaConfig):
    cfg = cls.from_dict(dict(config))
    rope_type = cfg.rope_parameters.get("rope_type", "default")
    if rope_type == "default":
        inv, factor = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(cfg)
    else:
        inv, factor = ROPE_INIT_FUNCTIONS[rope_type](cfg, "cpu", seq_len=seq_len)
    return inv.numpy(), float(factor)


CASES = {
    "default": (llama(), None),
    "default-llama3-base": (llama(theta=500000.0), None),
    "default-partial": (llama(head_dim=64, partial_rotary_factor=0.5), None),
    "linear": (llama({"rope_type": "linear", "factor": 4.0}), None),
    "linear-legacy-type": (llama({"type": "linear", "factor": 2.0}, head_dim=64), None),
    "dynamic-short": (llama({"rope_type": "dynamic", "factor": 2.0}), 1000),
    "dynamic-none": (llama({"rope_type": "dynamic", "factor": 2.0}), None),
    "dynamic-long": (llama({"type": "dynamic", "factor": 2.0}), 20000),
    "dynamic-partial": (llama({"rope_type": "dynamic", "factor": 4.0}, partial_rotary_factor=0.5), 9000),
    "yarn-qwen": (llama({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
                        theta=1e6, max_pos=131072), None),
    "yarn-deepseek": (llama({"rope_type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                             "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
                            head_dim=64, max_pos=163840), None),
    "yarn-mscale-only": (llama({"rope_type": "yarn", "factor": 16, "original_max_position_embeddings": 4096,
                                "mscale": 0.707}), None),
    "yarn-mscale-pair": (llama({"rope_type": "yarn", "factor": 16, "original_max_position_embeddings": 4096,
                                "mscale": 0.707, "mscale_all_dim": 1.2}), None),
    "yarn-beta-zero": (llama({"rope_type": "yarn", "factor": 8, "original_max_position_embeddings": 2048,
                              "beta_fast": 0, "beta_slow": 0}), None),
    "yarn-no-truncate": (llama({"rope_type": "yarn", "factor": 8, "original_max_position_embeddings": 2048,
                                "truncate": False, "beta_fast": 24, "beta_slow": 2}), None),
    "yarn-truncate-none": (llama({"rope_type": "yarn", "factor": 8, "original_max_position_embeddings": 2048,
                                  "truncate": None}), None),
    "yarn-attention-factor": (llama({"rope_type": "yarn", "factor": 8, "original_max_position_embeddings": 2048,
                                     "attention_factor": 1.25}), None),
    "yarn-factor-none": (llama({"rope_type": "yarn", "factor": None, "original_max_position_embeddings": 4096},
                               max_pos=32768), None),
    "yarn-no-original": (llama({"rope_type": "yarn", "factor": 4.0}), None),
    "yarn-partial": (llama({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096},
                           head_dim=64, partial_rotary_factor=0.5), None),
    "yarn-narrow-ramp": (llama({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64,
                                "beta_fast": 2, "beta_slow": 2}, head_dim=16), None),
    "llama3.1": (llama({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                        "original_max_position_embeddings": 8192}, theta=500000.0, max_pos=131072), None),
    "llama3.2": (llama({"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                        "original_max_position_embeddings": 8192}, head_dim=64, theta=500000.0,
                       max_pos=131072), None),
    "llama3-partial": (llama({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 2.0,
                              "high_freq_factor": 8.0, "original_max_position_embeddings": 4096},
                             partial_rotary_factor=0.5, max_pos=32768), None),
    "longrope-short": (llama({"rope_type": "longrope", "short_factor": PHI3_SHORT, "long_factor": PHI3_LONG,
                              "original_max_position_embeddings": 4096}, head_dim=96, max_pos=131072), None),
    "longrope-long": (llama({"rope_type": "longrope", "short_factor": PHI3_SHORT, "long_factor": PHI3_LONG,
                             "original_max_position_embeddings": 4096}, head_dim=96, max_pos=131072), 8000),
    "longrope-at-original": (llama({"rope_type": "longrope", "short_factor": PHI3_SHORT,
                                    "long_factor": PHI3_LONG, "original_max_position_embeddings": 4096},
                                   head_dim=96, max_pos=131072), 4096),
    "longrope-factor": (llama({"type": "longrope", "short_factor": PHI3_SHORT, "long_factor": PHI3_LONG,
                               "original_max_position_embeddings": 4096, "factor": 8.0,
                               "attention_factor": 1.1}, head_dim=96, max_pos=131072), 5000),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rope_from_config_matches_transformers(name):
    config, seq_len = CASES[name]
    expected_inv, expected_factor = hf_inv_freq(config, seq_len)
    inv, factor = pc.rope_from_config(config, seq_len=seq_len)
    assert inv.dtype == np.float32 and inv.shape == expected_inv.shape
    np.testing.assert_allclose(inv, expected_inv, rtol=2e-6, atol=0)
    assert factor == pytest.approx(expected_factor, rel=1e-12)


def test_phi3_top_level_original_context_wins():
    config = {"hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
              "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
              "rope_scaling": {"type": "longrope", "short_factor": PHI3_SHORT, "long_factor": PHI3_LONG,
                               "original_max_position_embeddings": 2048}}
    for seq_len in (None, 3000, 5000):
        expected_inv, expected_factor = hf_inv_freq(config, seq_len, cls=Phi3Config)
        inv, factor = pc.rope_from_config(config, seq_len=seq_len)
        np.testing.assert_allclose(inv, expected_inv, rtol=2e-6)
        assert factor == pytest.approx(expected_factor)


def test_gpt_neox_legacy_keys():
    config = {"model_type": "gpt_neox", "hidden_size": 2048, "num_attention_heads": 16,
              "rotary_emb_base": 10000, "max_position_embeddings": 2048}
    expected_inv, _ = hf_inv_freq(config, cls=GPTNeoXConfig)
    inv, _ = pc.rope_from_config(config)
    assert inv.shape == (16,)  # 25% of a 128-dim head is rotated
    np.testing.assert_allclose(inv, expected_inv, rtol=2e-6)
    read = pc.read_rope_config({**config, "rotary_pct": 0.5})
    assert read.partial_rotary_factor == 0.5 and read.rotary_dim == 64


def test_rope_parameters_v5_form_and_nested_layers():
    flat = {"hidden_size": 1024, "num_attention_heads": 8, "max_position_embeddings": 8192,
            "rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e6}}
    inv, _ = pc.rope_from_config(flat)
    np.testing.assert_allclose(inv, pc.rope_inv_freq(128, 1e6)[0] / 2, rtol=1e-6)
    nested = {"hidden_size": 1024, "num_attention_heads": 8, "head_dim": 256,
              "layer_types": ["sliding_attention", "full_attention"],
              "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                                  "full_attention": {"rope_type": "linear", "factor": 8.0,
                                                     "rope_theta": 1e6}}}
    assert pc.read_rope_config(nested).layer_type == "full_attention"
    local, _ = pc.rope_from_config(nested, layer_type="sliding_attention")
    np.testing.assert_allclose(local, pc.rope_inv_freq(256)[0], rtol=1e-6)


def test_static_ntk_rescales_the_base():
    inv, factor = pc.rope_inv_freq(128, 10000.0, {"rope_type": "ntk", "factor": 4.0})
    new_base = 10000.0 * 4.0 ** (128 / 126)
    np.testing.assert_allclose(inv, 1 / new_base ** (np.arange(0, 128, 2) / 128), rtol=1e-6)
    assert inv[0] == 1.0 and factor == 1.0
    # the slowest pair is interpolated by exactly the factor: (b s^(d/(d-2)))^(-(d-2)/d) = b^(-(d-2)/d) / s
    assert inv[-1] * 4.0 == pytest.approx(pc.rope_inv_freq(128)[0][-1], rel=1e-6)


def test_yarn_ramp_regions():
    low, high = yarn_ramp_bounds({"beta_fast": 32, "beta_slow": 1}, 128, 10000.0, 4096)
    ramp = yarn_ramp(low, high, 64)
    assert ramp[0] == 0 and ramp[-1] == 1 and np.all(np.diff(ramp) >= 0)


@pytest.mark.parametrize("call, message", [
    (lambda: pc.rope_inv_freq(64, scaling={"rope_type": "magic"}), "rope_type must be one of"),
    (lambda: pc.rope_inv_freq(64, scaling={"rope_type": "linear"}), "needs the key 'factor'"),
    (lambda: pc.rope_inv_freq(64, scaling={"rope_type": "linear", "factor": "two"}), "must be a number"),
    (lambda: pc.rope_inv_freq(64, scaling={"rope_type": "linear", "factor": -1}), "greater than 0"),
    (lambda: pc.rope_inv_freq(64, scaling={"rope_type": "yarn", "factor": 4}), "original_max_position"),
    (lambda: pc.rope_inv_freq(64, scaling={"rope_type": "dynamic", "factor": 2}), "max_position_embeddings"),
    (lambda: pc.rope_inv_freq(2, scaling={"rope_type": "ntk", "factor": 2}), "at least 4"),
    (lambda: pc.rope_inv_freq(64, scaling={"rope_type": "llama3", "factor": 8, "low_freq_factor": 1,
                                           "original_max_position_embeddings": 8192}), "high_freq_factor"),
    (lambda: pc.rope_inv_freq(64, scaling={"rope_type": "longrope", "short_factor": [1.0] * 3,
                                           "long_factor": [1.0] * 32,
                                           "original_max_position_embeddings": 4096}), "one entry per"),
    (lambda: pc.rope_inv_freq(64, scaling={"rope_type": "longrope", "short_factor": "1,2",
                                           "long_factor": [1.0] * 32,
                                           "original_max_position_embeddings": 4096}), "list of numbers"),
    (lambda: pc.rope_inv_freq(64, scaling=[1, 2]), "dictionary"),
    (lambda: pc.rope_from_config([]), "JSON object"),
    (lambda: pc.rope_from_config({"hidden_size": 64}), "num_attention_heads"),
    (lambda: pc.rope_from_config({"hidden_size": "big", "num_attention_heads": 2}), "whole number"),
    (lambda: pc.rope_from_config({"head_dim": 64, "rope_theta": "ten thousand"}), "must be a number"),
    (lambda: pc.rope_from_config({"head_dim": 64, "rope_scaling": "yarn"}), "JSON object"),
    (lambda: pc.rope_from_config({"head_dim": 10**9}), "at most"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
