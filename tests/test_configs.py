"""The config reader and the per-layer scheme: generic reading, class reading, properties, every error."""

from __future__ import annotations

import dataclasses
import json
import typing

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import posenc_core as pc
from page_kit.lesson.config_words import (
    BAND_WORDS,
    MIXER_FAMILY_WORDS,
    MIXER_WORDS,
    fact_sentence,
    ignored_why,
    layer_label,
    layer_table,
    layout_name,
    mixer_name,
    mixer_words,
    reading_notes,
    why_sentence,
)
from posenc_core.configs import (
    ConfigView,
    LayerFact,
    LayerRow,
    MixerCode,
    MixerFamily,
    ReasonCode,
    RotationReason,
    add_presets,
    config_contexts,
    config_view,
    describe_rope_config,
    layer_contexts,
    layer_facts,
    layer_groups,
    layer_inv_freq,
    layer_pairs,
    model_contexts,
    normalise_config,
    query_scale,
    query_scale_start,
    rope_layer_types,
)
from posenc_core.configs.rotation import OWN_LAYOUT
from posenc_core.long_context import deepseek_softmax_mscale, extension_analysis, score_vs_distance
from posenc_core.multimodal import ALLOCATIONS, MM_FAMILIES, MULTIMODAL_PRESETS, read_multimodal_config

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def generic(**fields):
    """A config with no model_type: read without a transformers class."""
    return {"hidden_size": 512, "num_attention_heads": 8, "num_hidden_layers": 4, **fields}


# ------------------------------------------------------------------ the three RoPE forms, read generically

def test_generic_reading_of_the_three_forms():
    legacy = generic(rope_theta=5e5, rope_scaling={"type": "linear", "factor": 4.0})
    flat = generic(rope_parameters={"rope_type": "linear", "factor": 4.0, "rope_theta": 5e5})
    for config in (legacy, flat):
        reading, rows = pc.read_layers(config)
        assert reading.class_name is None and "no model_type" in reading_notes(reading)[0]
        assert reading.source == "no_model_type" and reading.generic
        assert {(r.theta, r.rope_type, r.scaling_factor) for r in rows} == {(5e5, "linear", 4.0)}
    nested = generic(layer_types=["sliding_attention", "full_attention"] * 2, sliding_window=256,
                     rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
                                      "full_attention": None})
    _, rows = pc.read_layers(nested)
    assert [r.rotates for r in rows] == [True, False, True, False]
    assert [r.window for r in rows] == [256, None, 256, None]
    assert [(r.code, r.detail) for r in rows[1].reasons] == [("rope_parameters_null", "full_attention")]
    assert why_sentence(rows[1]) == "rope_parameters['full_attention'] is null: NoPE"


# The sentences the reading said before it returned codes, word for word (the pages show them unchanged).
REASON_SENTENCES = {
    ("no_rope_layers_one", None): "no_rope_layers[i] = 1 (the code rotates `if self.use_rope`)",
    ("no_rope_layers_zero", None): "no_rope_layers[i] = 0: this layer skips the rotation (NoPE; the code rotates "
                                   "`if self.use_rope`)",
    ("no_rope_layers_missing", None): "no no_rope_layers entry for this layer: it rotates",
    ("sliding_only", None): "a sliding-window layer: the code rotates only where the layer has a window",
    ("sliding_only_not_sliding", None): "not a sliding-window layer: the code rotates only sliding layers, so this "
                                        "one is NoPE",
    ("force_rope", None): "force_rope: a dense prefix layer with prefix_dense_sliding_window_pattern = 1 rotates",
    ("sliding_window_null", None): "sliding_window is null: every layer rotates",
    ("sliding_rotates", None): "a sliding-window layer rotates (`if self.sliding_window is None or self.is_sliding`)",
    ("global_skips", None): "a global layer of a model with sliding_window skips the rotation (NoPE)",
    ("mem_rope_on", None): "use_mem_rope = true: the shared attention rotates",
    ("mem_rope_off", None): "use_mem_rope = false (the class default): the attention uses no positions",
    ("rotary_type", None): "position_embedding_type = 'rotary'",
    ("not_rotary_type", "absolute"): "position_embedding_type = 'absolute', not 'rotary': no rotation",
    ("not_rotary_type", None): "position_embedding_type = None, not 'rotary': no rotation",
    ("no_rotary_embedding", "sine"): "position_embedding_type = 'sine': the model builds no rotary embedding, so its "
                                     "attention layers use no positions",
    ("no_rotary_module", None): "the model's code has no rotary module: its attention layers never rotate (NoPE)",
    ("unread_condition", "self.x"): "the code rotates only `if self.x`, a condition this reading does not evaluate",
    ("rope_parameters_entry", "full_attention"): "rope_parameters['full_attention']",
    ("rope_parameters_null", "full_attention"): "rope_parameters['full_attention'] is null: NoPE",
    ("rope_parameters_missing", "full_attention"): "rope_parameters has no entry for 'full_attention': NoPE",
    ("one_setting", None): "one RoPE setting for every layer",
    ("no_settings", None): "no RoPE settings in the config",
    ("not_attention", None): "not an attention layer: order comes from the recurrence or convolution itself",
}


def _row_with(*reasons: RotationReason) -> LayerRow:
    return LayerRow(0, "full_attention", "full_attention", None, reasons=reasons)


def test_every_rotation_reason_code_has_its_old_sentence():
    for (code, detail), sentence in REASON_SENTENCES.items():
        assert why_sentence(_row_with(RotationReason(code, detail))) == sentence, code
    spoken = {code for code, _ in REASON_SENTENCES} | {"no_settings_given"}
    assert spoken == set(typing.get_args(ReasonCode))
    # several conditions that all rotate join with '; '; settings missing after them add a parenthesis
    row = _row_with(RotationReason("sliding_only"), RotationReason("mem_rope_on"),
                    RotationReason("no_settings_given"))
    assert why_sentence(row) == ("a sliding-window layer: the code rotates only where the layer has a window; "
                                 "use_mem_rope = true: the shared attention rotates (but the config gives no RoPE "
                                 "settings)")


def test_every_mixer_code_and_family_has_words():
    assert set(MIXER_WORDS) == set(typing.get_args(MixerCode)) - {"other"}
    assert set(MIXER_FAMILY_WORDS) == set(typing.get_args(MixerFamily))
    other = LayerRow(0, "rwkv", "other", None)
    assert (mixer_words(other), mixer_name(other)) == ("rwkv", "rwkv")
    mamba = LayerRow(0, "mamba", "state_space", "mamba2")
    assert (mixer_words(mamba), mixer_name(mamba)) == ("state space", "Mamba-2 (state space)")


def test_an_mrope_layout_of_the_models_own_is_named_so():
    assert OWN_LAYOUT == "own_code" and OWN_LAYOUT not in ALLOCATIONS
    row = LayerRow(0, "full_attention", "full_attention", None, rotates=True, mrope=True, mrope_section=(8, 4, 4),
                   mrope_layout=OWN_LAYOUT)
    assert layout_name(row) == "the model's own"
    assert fact_sentence(LayerFact("mrope", "mrope", row)) == ("multimodal RoPE (M-RoPE): the pairs are split "
                                                               "[8, 4, 4] between time, height and width, in the "
                                                               "model's own layout")


def test_unknown_model_type_and_unknown_fields_are_listed_not_raised():
    reading, rows = pc.read_layers(generic(model_type="my_new_model", favourite_colour="blue", rope_theta=1e4))
    assert "no config class" in reading_notes(reading)[0] and len(rows) == 4
    assert reading.source == "unknown_model_type"
    assert ("favourite_colour", "not_generic_field") in reading.ignored
    assert ignored_why(reading, "not_generic_field") == "not a field the generic reading knows"
    reading, _ = pc.read_layers({**pc.preset_config("qwen3-8b"), "favourite_colour": "blue"})
    assert any(k == "favourite_colour" and "Qwen3Config" in ignored_why(reading, why) for k, why in reading.ignored)


def test_multimodal_configs_are_read_through_text_config():
    reading, rows = pc.read_layers(pc.preset_config("gemma3-27b"))
    assert reading.nested_from == "text_config" and reading.class_name == "Gemma3TextConfig"
    reading, _ = pc.read_layers({"text_config": generic(rope_theta=1e4)})  # generic reading, nested
    assert reading.nested_from == "text_config"


# ------------------------------------------------------------------ read as each class reads it

def test_phi3_class_default_wins_over_the_inner_original_length():
    config = {**pc.preset_config("phi3.5-mini")}
    config.pop("original_max_position_embeddings")
    config["rope_scaling"] = {**config["rope_scaling"], "original_max_position_embeddings": 8192}
    read = pc.read_rope_config(config)
    assert read.scaling["original_max_position_embeddings"] == 4096  # Phi3Config's class default
    from transformers import AutoConfig
    cls = AutoConfig.for_model("phi3", **{k: v for k, v in config.items() if k != "model_type"})
    assert cls.rope_parameters["original_max_position_embeddings"] == 4096


def test_gpt_neox_fields_win_over_generic_names():
    config = {**pc.preset_config("gpt-neox-20b"), "rope_theta": 5.0, "partial_rotary_factor": 0.5}
    read = pc.read_rope_config(config)
    from transformers import AutoConfig
    cls = AutoConfig.for_model("gpt_neox", **{k: v for k, v in config.items() if k != "model_type"})
    assert (read.base, read.partial_rotary_factor) == (cls.rope_parameters["rope_theta"],
                                                       cls.rope_parameters["partial_rotary_factor"])


# ------------------------------------------------------------------ training and target lengths

@pytest.mark.parametrize("key, expected", [
    ("llama3.1-8b", (8192, 65536)),  # factor 8, not max_position_embeddings / L = 16
    ("llama4-scout", (8192, 131072)),  # not 10,485,760
    ("gemma3-27b", (16384, 131072)),  # linear: L' = max_position_embeddings, L = L' / 8
    ("phi3.5-mini", (4096, 131072)),  # LongRoPE without factor: max_position_embeddings / L
    ("qwen2.5-7b-yarn", (32768, 131072)),
    ("llama2-7b", (4096, None)),  # no scaling: no invented target
    ("qwen3-8b", (40960, None)),
])
def test_config_contexts_per_rope_type(key, expected):
    read = pc.read_rope_config(pc.preset_config(key))
    original, target, how = config_contexts(read)
    assert (original, target) == expected and how
    if target is not None and read.scaling.get("factor"):
        assert target == pytest.approx(read.scaling["factor"] * original)


@pytest.mark.parametrize("rope_type, extra", [("dynamic", {}), ("yarn", {"original_max_position_embeddings": 4096}),
                                             ("linear", {})])
@pytest.mark.parametrize("factor", [1e308, 1e6])
def test_a_factor_no_model_can_use_is_refused_by_name_never_cut_short(rope_type, extra, factor):
    config = {"model_type": "llama", "hidden_size": 512, "num_attention_heads": 8, "max_position_embeddings": 8192,
              "rope_scaling": {"rope_type": rope_type, "factor": factor, **extra}}
    # linear: L = L' / factor, a context below 2 tokens; the others: L' = factor × L, past the largest context read
    words = "divided by rope_scaling" if rope_type == "linear" else r"rope_scaling\['factor'\] = 1e\+(308|06) times"
    with pytest.raises(ValueError, match=words):
        config_contexts(pc.read_rope_config(config))


# ------------------------------------------------------------------ properties of the per-layer scheme

layer_kinds = st.sampled_from(["full_attention", "sliding_attention", "linear_attention", "chunked_attention"])


@st.composite
def nested_configs(draw):
    n = draw(st.integers(1, 12))
    types = draw(st.lists(layer_kinds, min_size=n, max_size=n))
    params = {}
    for kind in sorted(set(types)):
        if draw(st.booleans()):
            params[kind] = None  # NoPE
        else:
            params[kind] = {"rope_type": "default", "rope_theta": draw(st.sampled_from([1e4, 5e5, 1e6])),
                            "partial_rotary_factor": draw(st.sampled_from([0.25, 0.5, 1.0]))}
    return generic(num_hidden_layers=n, layer_types=types, rope_parameters=params, head_dim=64,
                   sliding_window=draw(st.integers(16, 4096)), attention_chunk_size=draw(st.integers(16, 4096)))


@SETTINGS
@given(nested_configs())
def test_scheme_follows_layer_types_and_their_rope_dicts(config):
    _, rows = pc.read_layers(config)
    assert [r.index for r in rows] == list(range(config["num_hidden_layers"]))
    for row, kind in zip(rows, config["layer_types"], strict=True):
        params = config["rope_parameters"].get(kind)
        assert row.layer_type == kind
        assert row.is_attention == (kind != "linear_attention")
        assert row.rotates == (row.is_attention and params is not None)
        assert (row.window is not None) == (kind == "sliding_attention")
        assert (row.chunk is not None) == (kind == "chunked_attention")
        if row.rotates:
            assert row.theta == params["rope_theta"]
            assert row.rotated_pairs == int(64 * params["partial_rotary_factor"]) // 2
            inv, factor = layer_inv_freq(row)
            np.testing.assert_array_equal(inv, pc.rope_inv_freq(64, params["rope_theta"],
                                                                partial_rotary_factor=params["partial_rotary_factor"])[0])
            assert factor == 1.0
    groups = layer_groups(rows)
    assert sorted(i for g in groups for i in g.layers) == list(range(len(rows)))
    table = layer_table(rows)
    assert all(len(column) == len(rows) for column in table.values())


@SETTINGS
@given(nested_configs())
def test_reading_survives_a_json_round_trip(config):
    text = json.dumps(config)
    _, direct = pc.read_layers(config)
    _, pasted = pc.read_layers(pc.parse_config_json(text))
    assert direct == pasted


@SETTINGS
@given(st.integers(2, 20), st.sampled_from([1e4, 1e6]), st.integers(16, 1 << 20))
def test_layer_pairs_bands_agree_with_wavelengths(n_layers, theta, context):
    _, rows = pc.read_layers(generic(num_hidden_layers=n_layers, head_dim=64, rope_theta=theta))
    pairs = layer_pairs(rows[0], context)
    wavelength = pairs.wavelength
    assert np.all(np.diff(wavelength) > 0)  # slower and slower pairs
    inside = pairs.band == "in_context"
    assert BAND_WORDS["in_context"] == "turns in the context"
    assert np.all(wavelength[inside] <= context) and np.all(wavelength[~inside] > context)


@SETTINGS
@given(st.lists(st.integers(0, 1 << 24), min_size=1, max_size=50), st.floats(0.01, 1.0), st.integers(1, 1 << 16))
def test_query_scale_is_one_before_its_start_and_never_decreases(positions, beta, step):
    for rule in ({"rule": "llama4_beta", "beta": beta, "original": float(step)},
                 {"rule": "llama4_temperature", "attn_scale": beta, "floor_scale": float(step)}):
        p = np.sort(np.asarray(positions))
        scale = query_scale(rule, p)
        start = query_scale_start(rule)
        assert np.all(scale[p < start] == 1.0) and np.all(scale[p >= start] > 1.0)
        assert np.all(np.diff(scale) >= 0)


# ------------------------------------------------------------------ every ValueError path

@pytest.mark.parametrize("call, message", [
    (lambda: normalise_config([1]), "JSON object"),
    (lambda: normalise_config({"model_type": 7}), "must be a string"),
    (lambda: normalise_config({"model_type": "llama", "hidden_size": "wide"}), "whole number"),
    (lambda: normalise_config({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 3}),
     "refuses this config"),
    (lambda: normalise_config({"num_hidden_layers": 10 ** 6}), "at most"),
    (lambda: normalise_config({"layer_types": ["full_attention"] * 2000}), "at most 1,024"),
    (lambda: pc.read_layers({"hidden_size": 64, "num_attention_heads": 2}), "neither num_hidden_layers"),
    (lambda: pc.read_layers(generic(layer_types=["full_attention"])), "lists 1 layers"),
    (lambda: pc.read_layers(generic(sliding_window=[None])), "whole number"),  # a case of the fuzz test below
    (lambda: pc.read_layers({**generic(), "model_type": "llama", "text_config": []}), "text_config"),
    (lambda: pc.read_layers(generic(layer_types=[1, 2, 3, 4])), "list of strings"),
    (lambda: pc.read_layers(generic(rope_parameters=[1])), "JSON object"),
    (lambda: pc.read_layers(generic(rope_theta="big")), "must be a number"),
    (lambda: pc.read_layers(generic(partial_rotary_factor=2.0)), "at most 1"),
    (lambda: layer_inv_freq(pc.read_layers(pc.preset_config("kimi-linear-48b"))[1][0]), "does not rotate"),
    (lambda: pc.read_rope_config(pc.preset_config("granite4-h-small")), "No layer of this model rotates"),
    (lambda: pc.read_rope_config(pc.preset_config("gemma3-27b"), "global"), "layer_type must be one of"),
    (lambda: layer_pairs(pc.read_layers(generic(rope_theta=1e4))[1][0], 1), "at least 2"),
    (lambda: query_scale({"rule": "magic"}, [1]), "query-scale rule"),
    (lambda: query_scale_start({"rule": "magic"}), "query-scale rule"),
    (lambda: query_scale({"rule": "llama4_beta", "beta": 0.1, "original": 8.0}, [[1, 2]]), "1-D"),
    (lambda: query_scale({"rule": "llama4_beta", "beta": 0.1, "original": 8.0}, [-16.0]), "not finite"),
    (lambda: query_scale({"rule": "llama4_beta", "beta": 0.1}, [1]), "needs the numbers original and beta"),
    (lambda: query_scale_start({"rule": "llama4_temperature", "floor_scale": 0, "attn_scale": 0.1}),
     "floor_scale must be a positive number"),
    (lambda: add_presets({"gemma3-27b": pc.PRESETS["gemma3-27b"]}), "already exists"),
    (lambda: add_presets({"new": {"model_type": "llama"}}), "must be a Preset"),
    (lambda: pc.preset_config("gpt-5"), "Unknown preset"),
])
def test_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_add_presets_extends_the_registry():
    preset = pc.Preset("Tiny", "example/tiny", "config.json", {"model_type": "llama", "hidden_size": 64,
                                                                "num_attention_heads": 4, "num_hidden_layers": 2})
    add_presets({"tiny-test": preset})
    try:
        assert pc.preset_config("tiny-test")["hidden_size"] == 64
    finally:
        del pc.PRESETS["tiny-test"]


def test_multimodal_rope_is_flagged_and_its_frequencies_are_plain_rope():
    config = {"model_type": "qwen2_vl", "text_config": {
        "model_type": "qwen2_vl_text", "hidden_size": 3584, "num_attention_heads": 28, "num_hidden_layers": 2,
        "rope_theta": 1e6, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}}
    reading, rows = pc.read_layers(config)
    assert reading.class_name == "Qwen2VLTextConfig" and all(r.mrope for r in rows)
    inv, factor = layer_inv_freq(rows[0])
    np.testing.assert_array_equal(inv, pc.rope_inv_freq(128, 1e6)[0])  # the sections split pairs, not frequencies
    assert factor == 1.0
    assert not any(r.mrope for r in pc.read_layers(pc.preset_config("qwen3-8b"))[1])


# ------------------------------------------------------------------ hostile configs: a sentence, never a traceback

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
keys = st.sampled_from(["hidden_size", "num_attention_heads", "num_hidden_layers", "head_dim", "layer_types",
                        "rope_theta", "rope_scaling", "rope_parameters", "partial_rotary_factor", "sliding_window",
                        "no_rope_layers", "attention_chunk_size", "max_position_embeddings", "text_config",
                        "kv_lora_rank", "qk_rope_head_dim", "rotary_pct", "use_sliding_window"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(keys, json_values, max_size=8),
       st.sampled_from([None, "llama", "gemma3_text", "smollm3", "gpt_oss", "deepseek_v3", "qwen3_next", "phi3",
                        "nosuch_model"]))
def test_any_json_config_reads_or_raises_a_value_error(fields, model_type):
    config = {"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2, **fields}
    if model_type:
        config["model_type"] = model_type
    try:
        _, rows = pc.read_layers(config)
        for row in rows:
            if row.rotates:
                layer_pairs(row, 4096)
    except ValueError:
        pass
    for layer in [None] + (rope_layer_types(config) if _ok(rope_layer_types, config) else []):
        try:
            describe_rope_config(config, layer)
            read = pc.read_rope_config(config, layer)
            original, target, _ = config_contexts(read)
        except ValueError:
            continue


def _ok(fn, *a):
    try:
        fn(*a)
        return True
    except ValueError:
        return False


# ------------------------------------------------------------------ one reading of any config

def _rotary(model_type, config):
    """The model's own rotary module, built from its config class (the reference every value is compared with)."""
    import copy
    import importlib

    from transformers import AutoConfig

    hf = AutoConfig.for_model(model_type, **copy.deepcopy({k: v for k, v in config.items() if k != "model_type"}))
    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    cls = next(c for n, c in vars(module).items() if n.endswith("RotaryEmbedding"))
    return cls(hf)


BOTH_LENGTHS = {  # a top-level original_max_position_embeddings (4,096) and a different one inside the RoPE dict
    "yarn": ("llama", {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}, 1.0),
    "llama3": ("llama", {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192}, 1.0),
    "longrope": ("phi3", {"rope_type": "longrope", "short_factor": [1.0] * 48,
                          "long_factor": [2.0 + i / 10 for i in range(48)],
                          "original_max_position_embeddings": 2048}, 0.75),
}


@pytest.mark.parametrize("name", list(BOTH_LENGTHS))
@pytest.mark.parametrize("seq_len", [None, 8192])
def test_top_level_original_length_wins_bit_identically(name, seq_len):
    pytest.importorskip("transformers")
    model_type, params, partial = BOTH_LENGTHS[name]
    config = {"model_type": model_type, "hidden_size": 3072, "num_attention_heads": 24, "num_hidden_layers": 2,
              "max_position_embeddings": 131072, "partial_rotary_factor": partial,
              "rope_parameters": {"rope_theta": 10000.0, **params}, "original_max_position_embeddings": 4096}
    rotary = _rotary(model_type, config)
    _, rows = pc.read_layers(config)
    assert rows[0].scaling["original_max_position_embeddings"] == 4096  # not the inner 8,192 / 2,048
    inv, factor = layer_inv_freq(rows[0], seq_len)
    if seq_len:  # past the pretraining context LongRoPE switches to its long factors (4,096 decides, not 2,048)
        from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

        if name != "longrope":
            pytest.skip("only LongRoPE's frequencies depend on the sequence length")
        expected, expected_factor = ROPE_INIT_FUNCTIONS[name](rotary.config, None, seq_len)
    else:
        expected, expected_factor = rotary.inv_freq, rotary.attention_scaling
    np.testing.assert_array_equal(inv, expected.numpy())
    assert factor == expected_factor
    original, target, _ = model_contexts(rows)
    assert original == 4096 and target == int(params["factor"] * 4096 if "factor" in params else 131072)


QWEN3_YARN = {**pc.preset_config("qwen3-8b"), "max_position_embeddings": 40960,
              "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}


@pytest.mark.parametrize("key", [*pc.PRESETS, "qwen3 + yarn x 4"])
def test_model_presets_and_layer_by_layer_state_the_same_lengths(key):
    config = QWEN3_YARN if key == "qwen3 + yarn x 4" else pc.preset_config(key)
    _, rows = pc.read_layers(config)
    if not any(r.rotates for r in rows):
        pytest.skip("no layer rotates: Model presets shows no lengths")
    view = config_view(config)  # what Model presets draws
    assert (view.original, view.target) == model_contexts(rows)[:2]  # what Layer by layer draws
    if key == "qwen3 + yarn x 4":
        assert model_contexts(rows)[:2] == (32768, 131072)


def test_odd_rotary_dims_and_unused_window_read_as_transformers_does():
    pytest.importorskip("transformers")
    _, rows = pc.read_layers({"model_type": "glm4_moe"})  # the class default: head_dim 42 x 0.5 = 21 dims
    inv, _ = layer_inv_freq(rows[0])
    assert rows[0].head_dim * rows[0].partial_rotary_factor == 21 and inv.shape == (11,)
    _, rows = pc.read_layers({"model_type": "qwen2_moe", "sliding_window": 0, "use_sliding_window": False})
    assert all(r.window is None and r.mixer == "full_attention" for r in rows)


def test_per_layer_configs_are_read_layer_by_layer():
    pytest.importorskip("transformers")
    reading, rows = pc.read_layers({"model_type": "neomme"})
    windows = [reading.obj.per_layer_config[i].sliding_window for i in range(len(rows))]
    assert [r.window for r in rows if r.mixer == "sliding_window"] == [w for w in windows if w]
    reading, rows = pc.read_layers({"model_type": "dots3_note"})
    assert all(r.latent for r in rows if r.is_attention)


def test_a_validation_error_of_the_class_becomes_a_sentence_with_its_numbers():
    pytest.importorskip("transformers")
    config = {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 24, "num_hidden_layers": 2,
              "partial_rotary_factor": 0.75, "max_position_embeddings": 131072,
              "original_max_position_embeddings": 4096,
              "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0] * 44, "long_factor": [1.0] * 48}}
    with pytest.raises(ValueError) as error:
        pc.read_layers(config)
    text = str(error.value)
    assert "StrictDataclass" not in text and "lists 44 values" in text and "needs 48" in text
    assert "3,072 / num_attention_heads 24 = 128" in text and "0.75 = 96 rotated dimensions, in 48 pairs" in text


@pytest.mark.parametrize("key,layer,feature,words", [
    ("deepseek-v3", 0, "latent", "64-dim qk_rope_head_dim slice of each 192-dim"),
    ("mistral-small4", 0, "latent", "64-dim qk_rope_head_dim slice of each 128-dim"),
    ("qwen2-vl-7b", 0, "mrope", "[16, 24, 24]"),
    ("qwen3-vl-8b", 0, "mrope", "interleaved"),
    ("gemma4", 5, "fraction", "proportional RoPE"),
    ("mimo-v2-flash", 1, "sink", "attention sink"),
    ("olmo3-7b", 0, "window", "last 4,096 tokens"),
    ("glm-4.5", 0, "fraction", "0.5 of each 128-dim head"),
    ("llama3.1-8b", 0, "scaling", "pretrained on 8,192 tokens"),
])
def test_each_reading_names_its_feature(key, layer, feature, words):
    _, rows = pc.read_layers(pc.preset_config(key))
    facts = layer_facts(rows[layer])
    assert any(f.feature == feature and words in fact_sentence(f) for f in facts), facts



@pytest.mark.parametrize("key,words", [
    ("deepseek-v3", "latent attention (64 of 192 query/key dims rotate), yarn × 40 (4,096 → 163,840 tokens)"),
    ("mistral-small4", "latent attention (64 of 128 query/key dims rotate), yarn × 128 (8,192 → 1,048,576 tokens)"),
    ("qwen3-vl-8b", "M-RoPE sections [24, 20, 20] (interleaved)"),
    ("qwen2-vl-7b", "M-RoPE sections [16, 24, 24] (chunked)"),
    ("llama3.1-8b", "llama3 × 8 (8,192 → 65,536 tokens)"),
])
def test_the_strip_label_names_latent_attention_mrope_and_the_extended_context(key, words):
    """The one-line reading of the strip and its groups, as a pasted config gets it."""
    _, rows = pc.read_layers(pc.preset_config(key))
    assert words in layer_label(rows[0])
    assert words in layer_label(layer_groups(rows)[0].row)


# ------------------------------------------------------------------ M-RoPE as the rotary module's code takes it

MROPE_TYPES = {"qwen2_vl": "qwen2_vl", "qwen2_5_vl": "qwen2_5_vl", "qwen3_vl": "qwen3_vl", "glm4v": "glm4v",
               "ernie4_5_vl_moe": "ernie4_5_vl", "qwen3_5": "qwen3_5", "qwen3_omni_moe": "qwen3_omni"}


@pytest.mark.parametrize("model_type", MROPE_TYPES)
def test_mrope_sections_at_class_defaults_are_the_rotary_modules(model_type):
    """A config that names no mrope_section gets the one the model's rotary module falls back to in its code."""
    pytest.importorskip("transformers")
    import importlib
    import inspect

    from transformers.models.auto.configuration_auto import model_type_to_module_name

    reading, rows = pc.read_layers({"model_type": model_type})
    row = next(r for r in rows if r.rotates)
    name = model_type_to_module_name(model_type)
    module = importlib.import_module(f"transformers.models.{name}.modeling_{name}")
    built = []
    for cls_name, cls in vars(module).items():
        if inspect.isclass(cls) and cls_name.endswith("RotaryEmbedding") and hasattr(cls, "recomposition_frequencies"):
            try:
                built.append(cls(reading.obj))
            except Exception:  # noqa: BLE001, S112 (a rotary module of another sub-config)
                continue
    assert built and tuple(built[0].mrope_section) == row.mrope_section
    assert "mrope_section" not in reading.obj.rope_parameters  # the class leaves it to the code
    assert row.mrope_layout == MM_FAMILIES[MROPE_TYPES[model_type]].allocation
    assert any(f.feature == "mrope" and str(list(row.mrope_section)) in fact_sentence(f) for f in layer_facts(row))


@pytest.mark.parametrize("key", list(MULTIMODAL_PRESETS))
def test_the_multimodal_pages_read_what_layer_by_layer_reads(key):
    """head_dim, rotated dims, θ, sections and their layout: the multimodal reading is the one reading."""
    config = pc.preset_config(key)
    settings = read_multimodal_config(config).settings
    row = next(r for r in pc.read_layers(config)[1] if r.rotates)
    assert (settings.head_dim, settings.rotary_dim, settings.rope_theta, settings.mrope_section,
            settings.allocation) == (row.head_dim, 2 * row.rotated_pairs, row.theta, row.mrope_section,
                                     row.mrope_layout)


def test_the_multimodal_reading_follows_the_class_defaults():
    """Qwen3-VL's class default base is 500,000 (the released 8B writes 5,000,000 in its file): the class wins."""
    pytest.importorskip("transformers")
    settings = read_multimodal_config({"model_type": "qwen3_vl"}).settings
    assert settings.rope_theta == 500_000.0 and settings.mrope_section == (24, 20, 20)
    rows = {r.setting: r for r in read_multimodal_config({"model_type": "qwen3_vl"}).rows}
    assert (rows["rope_theta"].origin, rows["rope_theta"].detail) == ("class_default", ("Qwen3VLTextConfig",))
    assert rows["mrope_section"].origin == "module_default"


def _offered(key):
    """Every (preset, layer type) Model presets offers: its default view and each entry of its layer picker."""
    config = pc.preset_config(key)
    if not any(r.rotates for r in pc.read_layers(config)[1]):
        return []
    return [(key, None)] + [(key, t) for t in rope_layer_types(config)]


@pytest.mark.parametrize("key,layer", [p for k in pc.PRESETS for p in _offered(k)])
def test_model_presets_shows_the_one_readings_numbers(key, layer):
    """L, L′, θ, head size, rotated pairs and the feature sentences of Model presets are those of the layer the one
    reading (read_layers, what Layer by layer draws) gives for the same setting."""
    config = pc.preset_config(key)
    view = config_view(config, layer)
    row = pc.read_layers(config)[1][view.layer]
    read = view.read
    assert (view.original, view.target) == layer_contexts(row)[:2]
    assert (read.head_dim, read.base, read.rope_type) == (row.head_dim, row.theta, row.rope_type)
    pairs = view.pairs.inv_freq_after if view.target is not None else view.pairs.inv_freq
    assert np.count_nonzero(pairs) == row.rotated_pairs
    assert view.facts == layer_facts(row)
    if row.mrope_section:
        assert any(f.feature == "mrope" and str(list(row.mrope_section)) in fact_sentence(f) for f in view.facts)


def test_layer_pairs_counts_its_bands():
    _, rows = pc.read_layers(pc.preset_config("gemma3-27b"))
    pairs = layer_pairs(rows[0], 131072)
    assert sum(pairs.band_counts.values()) == len(pairs.pair)
    assert pairs.band_counts["in_span"] == int(np.sum(pairs.band == "in_span"))
    assert pairs.turning == int(np.sum(pairs.inv_freq > 0))
    assert pairs.turn_in_span == int(np.sum(pairs.wavelength <= pairs.span))


# ------------------------------------------------------------------ config_view against its former code

def _config_view_before(config, layer_type=None):
    """config_view as it was before it read the config once: each part through its own public function, each
    of which reads the config through the transformers class again."""
    read = pc.read_rope_config(config, layer_type)
    original, target, how = config_contexts(read)
    _, layers = pc.read_layers(config)
    row = next(r for r in layers if r.rotates and r.rope_label == read.layer_type)
    view = {"read": read, "rows": describe_rope_config(config, layer_type), "original": original,
            "target": target, "how": how, "softmax_scale": deepseek_softmax_mscale(read.scaling),
            "facts": layer_facts(row), "layer": row.index}
    if target is None:
        pairs = layer_pairs(row, original)
        distances, before = score_vs_distance(pairs.inv_freq, pairs.attention_factor, 4 * original)
        return ConfigView(**view, pairs=pairs, distances=distances, before=before, after=None)
    pairs = extension_analysis(read.head_dim, read.base, read.scaling or None, original=original, target=target,
                                  partial_rotary_factor=read.partial_rotary_factor,
                                  max_position_embeddings=read.max_position_embeddings)
    distances, before = score_vs_distance(pairs.inv_freq_before, 1.0, 4 * target)
    _, after = score_vs_distance(pairs.inv_freq_after, pairs.attention_factor, 4 * target)
    return ConfigView(**view, pairs=pairs, distances=distances, before=before, after=after)


def _same(new, old, where="view"):
    """Exact equality down the tree: arrays bit for bit (dtype, shape, NaN where NaN), scalars of the same type."""
    assert type(new) is type(old), f"{where}: {type(new).__name__} vs {type(old).__name__}"
    if dataclasses.is_dataclass(new):
        _same({f.name: getattr(new, f.name) for f in dataclasses.fields(new)},
              {f.name: getattr(old, f.name) for f in dataclasses.fields(old)}, where)
    elif isinstance(new, dict):
        assert list(new) == list(old), where
        for key in new:
            _same(new[key], old[key], f"{where}[{key!r}]")
    elif isinstance(new, (list, tuple)):
        assert len(new) == len(old), where
        for i, (a, b) in enumerate(zip(new, old, strict=True)):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(new, np.ndarray):
        assert new.dtype == old.dtype and new.shape == old.shape, where
        if new.dtype.kind == "f":
            assert np.array_equal(new.view(f"u{new.itemsize}"), old.view(f"u{old.itemsize}")), where
        else:
            assert np.array_equal(new, old), where
    elif isinstance(new, float) and new != new:
        assert old != old, where
    else:
        assert new == old, where


def _view_as_before(config, layer):
    """config_view gives what its former code gave, or refuses with the same message."""
    try:
        old = _config_view_before(config, layer)
    except ValueError as error:
        with pytest.raises(ValueError) as raised:
            config_view(config, layer)
        assert str(raised.value) == str(error)
        return
    _same(config_view(config, layer), old)


VIEW_CASES = [(k, t) for k in pc.PRESETS for t in [None, *rope_layer_types(pc.preset_config(k))]]


@pytest.mark.parametrize("key,layer", VIEW_CASES)
def test_config_view_matches_its_former_code_bit_for_bit(key, layer):
    """One reading of the config gives the view the four readings gave: every number, bit for bit, and the same
    refusal (NoPE-only models) with the same message."""
    _view_as_before(pc.preset_config(key), layer)


@pytest.mark.parametrize("config,layer", [
    ({"hidden_size": 512, "num_attention_heads": 8, "rope_theta": 1e4}, None),  # no layer count: read_layers refuses
    ({"hidden_size": 512, "num_attention_heads": 8, "rope_theta": 1e4,
      "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, None),  # no L: config_contexts refuses first
    (pc.preset_config("gemma3-27b"), "no_such_layer"),
    (QWEN3_YARN, None),
    ({**QWEN3_YARN, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}, None),
])
def test_config_view_refuses_and_reads_pasted_configs_as_before(config, layer):
    _view_as_before(config, layer)
