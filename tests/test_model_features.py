"""The position features a config's reading names (posenc_core/configs/features.py), and their words."""

import pytest

import posenc_core as pc
from page_kit.lesson.config_words import FEATURE_LINKS, feature_sentence
from page_kit.lesson.layer_views import FEATURE_LESSONS
from posenc_core.configs import config_features

pytest.importorskip("transformers")

QWEN_1M_DCA = {"chunk_size": 262144, "local_size": 8192, "original_max_position_embeddings": 262144}


def _features(config):
    return {f.code: f for f in config_features(config)}


@pytest.mark.parametrize("preset,expected", [
    ("glm-4.5", {"partial": (32, 64)}),
    ("qwen3-next-80b", {"partial": (32, 128), "hybrid": (36, 48)}),
    ("gemma3-27b", {"window": (1024,), "scaling": (8.0,), "bases": (10000.0, 1000000.0)}),
    ("llama4-scout", {"chunk": (8192,), "scaling": (16.0,), "query_scale": (8191,), "nope_layers": (12, 48)}),
    ("deepseek-v3", {"latent": (64, 192), "scaling": (40.0,)}),
    ("kimi-k2", {"latent": (64, 192), "scaling": (32.0,)}),
    ("gpt-oss-20b", {"window": (128,), "sink": (), "scaling": (32.0,)}),
    ("qwen3-vl-8b", {"mrope": ()}),
    ("qwen3-8b", {}),
])
def test_known_models(preset, expected):
    found = _features(pc.preset_config(preset))
    assert {code: f.numbers for code, f in found.items()} == expected
    for f in found.values():
        assert FEATURE_LINKS[f.code] in FEATURE_LESSONS
        assert feature_sentence(f)


def test_partial_rotary_is_named_from_the_field_whatever_the_model():
    config = dict(pc.preset_config("qwen3-8b"), partial_rotary_factor=0.25)
    f = _features(config)["partial"]
    assert (f.numbers, f.layers, f.of, f.row.partial_rotary_factor) == ((16, 64), 36, 36, 0.25)
    assert feature_sentence(f).startswith("partial rotary 0.25: 16 of 64 pairs")


def test_dual_chunk_attention_is_named_with_its_settings():
    config = dict(pc.preset_config("qwen3-8b"), dual_chunk_attention_config=QWEN_1M_DCA)
    f = _features(config)["dual_chunk"]
    assert f.numbers == (262144, 8192, 262144) and f.problem is None
    assert "dual chunk attention" in feature_sentence(f) and "262,144" in feature_sentence(f)
    assert FEATURE_LESSONS[FEATURE_LINKS["dual_chunk"]][0] == "dual_chunk"
    reading, _ = pc.read_layers(config)
    assert "dual_chunk_attention_config" in dict(reading.read)


def test_an_unreadable_dual_chunk_config_is_named_with_its_refusal():
    config = dict(pc.preset_config("qwen3-8b"), dual_chunk_attention_config={"chunk_size": 64})
    f = _features(config)["dual_chunk"]
    assert f.numbers == () and "local_size" in f.problem
    assert "cannot be read" in feature_sentence(f)
