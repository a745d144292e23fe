"""Hostile configs through every function that reads one: a result or a ValueError, never another exception.

The generated trees use the real field names at hostile values (huge, negative, zero, non-finite, the wrong
type, nested), and every reader runs under a time and an allocation budget. Each named hostile case below is
also a regression test with the sentence it must give.
"""

from __future__ import annotations

import json
import math
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import posenc_core as pc
from page_kit.lesson.config_words import layer_table
from posenc_core.configs import (
    config_contexts,
    config_view,
    layer_groups,
    layer_pairs,
    query_scale,
    rope_layer_types,
)
from posenc_core.configs.json_bounds import MAX_CONFIG_DEPTH, POSITION_FIELDS
from posenc_core.configs.reader import POSITION_KEYS
from posenc_core.long_context import score_vs_distance
from posenc_core.multimodal import read_multimodal_config

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TIME_BUDGET_S = 10.0  # per config through all the readers, on a loaded 2-core machine
MEMORY_BUDGET = 64 * 2**20  # bytes allocated at the peak (tracemalloc), per config

MODEL_TYPES = ["llama", "qwen2", "gemma3_text", "gemma3", "mistral", "phi3", "deepseek_v3", "gpt_neox", "cohere2",
               "exaone4", "llama4_text", "smollm3", "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "glm4v", "ernie4_5_vl",
               "qwen3_omni_moe", "no_such_model"]
ROPE_TYPES = ["default", "linear", "dynamic", "yarn", "llama3", "longrope", "proportional", "su", "mrope", "nope"]
FIELDS = sorted((set(POSITION_KEYS) | POSITION_FIELDS) - {"text_config"})

hostile_number = st.one_of(
    st.sampled_from([0, -1, 1, 2, 7, 1e-308, 1e308, -1e308, 1e200, 2**63, 2**64 + 1, 10**300, 10**400, 4096,
                     float("inf"), float("-inf"), float("nan"), 0.5, 1e9, 1 << 40]),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
)
scalar = st.one_of(hostile_number, st.booleans(), st.none(), st.sampled_from(MODEL_TYPES + ROPE_TYPES),
                   st.text(max_size=8))
value = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                     st.dictionaries(st.sampled_from(FIELDS), inner, max_size=6)),
                     max_leaves=30)
rope_dict = st.fixed_dictionaries({"rope_type": st.sampled_from(ROPE_TYPES)},
                                  optional={k: value for k in ("factor", "rope_theta", "beta_fast", "beta_slow",
                                                               "attention_factor", "original_max_position_embeddings",
                                                               "low_freq_factor", "high_freq_factor", "mscale",
                                                               "mscale_all_dim", "short_factor", "long_factor",
                                                               "mrope_section", "partial_rotary_factor")})
layer_types = st.lists(st.sampled_from(["full_attention", "sliding_attention", "chunked_attention",
                                        "linear_attention", "mamba", "conv", "nope", 3, None]), max_size=12)
config = st.fixed_dictionaries(
    {"model_type": st.one_of(st.sampled_from(MODEL_TYPES), st.lists(st.sampled_from(MODEL_TYPES), max_size=2),
                             scalar)},
    optional={"rope_parameters": st.one_of(rope_dict, st.dictionaries(st.sampled_from(["full_attention",
                                                                                       "sliding_attention"]),
                                                                      st.one_of(rope_dict, st.none())), value),
              "rope_scaling": st.one_of(rope_dict, value), "layer_types": st.one_of(layer_types, value),
              "text_config": st.one_of(st.dictionaries(st.sampled_from(FIELDS), value, max_size=8), value),
              **{k: value for k in FIELDS if k not in ("rope_parameters", "rope_scaling", "layer_types",
                                                           "model_type")}})


_WARM: list[bool] = []


def read_everywhere(cfg) -> None:
    """Every reading a page does with a config: the two config pages, the layer strip, the multimodal pages."""
    text = json.dumps(cfg)  # as a page receives it: pasted text (Infinity and NaN as transformers writes them)
    for reader in (lambda: pc.parse_config_json(text), lambda: pc.read_layers(cfg),
                   lambda: rope_layer_types(cfg), lambda: read_multimodal_config(cfg)):
        try:
            reader()
        except ValueError:
            pass
    try:
        layer_strip(cfg)
    except ValueError:
        pass
    try:
        layers = rope_layer_types(cfg) or [None]
    except ValueError:
        return
    for layer in layers[:2]:
        try:
            config_view(cfg, layer)  # the Model presets page's reading
        except ValueError:
            pass
        try:
            config_contexts(pc.read_rope_config(cfg, layer))  # the layer strip's L for one layer
        except ValueError:
            pass


def _warm_up() -> None:
    """Import each model type's config class once, outside the budget (an import is not the reading's cost)."""
    for model_type in MODEL_TYPES:
        read_everywhere({"model_type": model_type})
        read_everywhere({"model_type": model_type, "rope_scaling": {"rope_type": "yarn", "factor": 2.0}})


def layer_strip(cfg) -> None:
    """What the layer strip computes: the groups and table, and one rotating layer's pairs, score and query scale."""
    reading, rows = pc.read_layers(cfg)
    layer_groups(rows)
    layer_table(rows)
    context = reading.get("max_position_embeddings", 4096)
    context = min(int(context), 1 << 20) if isinstance(context, (int, float)) and context >= 2 else 4096
    for row in [r for r in rows if r.rotates][:1] + [r for r in rows if r.query_scale][:1]:
        if row.rotates:
            pairs = layer_pairs(row, context)
            score_vs_distance(pairs.inv_freq, pairs.attention_factor, 2 * context)
        if row.query_scale:
            query_scale(row.query_scale, np.arange(0, 8 * context, 997))


def within_budget(fn, *args) -> None:
    if not _WARM:
        _warm_up()
        _WARM.append(True)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        fn(*args)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    elapsed = time.perf_counter() - start
    assert elapsed < TIME_BUDGET_S * 4, f"{elapsed:.1f} s"  # tracemalloc itself slows Python down
    assert peak < MEMORY_BUDGET, f"{peak / 2**20:.0f} MiB at the peak"


@SETTINGS
@given(config)
def test_generated_configs_give_a_result_or_a_value_error(cfg):
    within_budget(read_everywhere, cfg)


@SETTINGS
@given(st.sampled_from(sorted(pc.PRESETS)), st.sampled_from(sorted(POSITION_FIELDS)), hostile_number)
def test_a_preset_with_one_hostile_field_gives_a_result_or_a_value_error(key, name, number):
    cfg = json.loads(json.dumps(pc.PRESETS[key].config))
    holder = cfg.get("text_config", cfg) if isinstance(cfg.get("text_config"), dict) else cfg
    params = holder.get("rope_parameters") or holder.get("rope_scaling")
    target = params if isinstance(params, dict) and name in params else holder
    target[name] = number
    within_budget(read_everywhere, cfg)


# ------------------------------------------------------------------ the listed cases, with their sentences

def test_deep_nesting_is_refused_before_any_copy():
    for depth in (MAX_CONFIG_DEPTH + 1, 600, 950, 5000):
        text = '{"model_type": "llama", "x": ' + "[" * depth + "]" * depth + "}"
        with pytest.raises(ValueError, match="nested"):
            pc.parse_config_json(text)
        nested: dict = {}
        cfg = {"model_type": "llama", "text_config": nested}
        for _ in range(depth):
            nested["x"] = {}
            nested = nested["x"]
        with pytest.raises(ValueError, match="nested more than"):
            pc.read_layers(cfg)


@pytest.mark.parametrize("field", ["rope_theta", "factor"])
def test_a_401_digit_integer_names_its_field(field):
    body = f'"rope_theta": {"9" * 401}' if field == "rope_theta" else \
        f'"rope_scaling": {{"rope_type": "linear", "factor": {"9" * 401}}}'
    with pytest.raises(ValueError, match=rf"config\[.*'{field}'\] is a whole number of 401 digits"):
        pc.parse_config_json('{"model_type": "llama", ' + body + "}")
    with pytest.raises(ValueError, match="401 digits"):  # the same int in a dict (a preset, a test)
        pc.read_layers({"model_type": "llama", "rope_theta": 10**400})
    with pytest.raises(ValueError, match="digits"):  # past Python's 4,300-digit limit for int()
        pc.parse_config_json('{"rope_theta": ' + "9" * 5000 + "}")


def test_non_finite_tokens_parse_and_are_refused_only_where_they_set_positions():
    # Granite 4.0-H's class default time_step_limit is (0.0, inf): written as the bare token (Python's json) or
    # as transformers 5's tagged form, it reaches the class unchanged and the config reads
    for limit in ("Infinity", '{"__float__": "Infinity"}'):
        text = '{"model_type": "granitemoehybrid", "time_step_limit": [0.0, ' + limit + '], "num_hidden_layers": 4}'
        cfg = pc.parse_config_json(text)
        assert cfg["time_step_limit"] == [0.0, math.inf]
        reading, rows = pc.read_layers(cfg)
        assert len(rows) == 4
    text = '{"model_type": "llama", "attn_logit_softcapping": Infinity, "rope_theta": 500000.0}'
    reading, rows = pc.read_layers(pc.parse_config_json(text))
    assert {r.theta for r in rows} == {500000.0}
    # what transformers' own class refuses is refused with its reason, naming the field
    with pytest.raises(ValueError, match="initializer_range"):
        pc.read_layers(pc.parse_config_json('{"model_type": "llama", "initializer_range": NaN}'))
    for body, field in (('"rope_theta": Infinity', "rope_theta"), ('"rope_theta": 1e400', "rope_theta"),
                        ('"rope_scaling": {"rope_type": "yarn", "factor": NaN}', "factor"),
                        ('"text_config": {"max_position_embeddings": -Infinity}', "max_position_embeddings")):
        with pytest.raises(ValueError, match=rf"\['{field}'\] is .*sets positions"):
            pc.parse_config_json('{"model_type": "llama", ' + body + "}")


def test_yarn_hostile_attention_factor_and_betas_name_the_field():
    base = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 32768}
    for extra, field in (({"attention_factor": 1e308}, "attention_factor"),
                         ({"attention_factor": 1e200}, "attention_factor"),
                         ({"beta_fast": -1, "beta_slow": 1e308}, "beta_")):
        cfg = {**base, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192,
                                        **extra}}
        with pytest.raises(ValueError, match=field) as caught:
            config_view(cfg)
        assert "math domain" not in str(caught.value)


def test_llama3_huge_factor_names_factor_not_an_internal_setting():
    cfg = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
           "rope_scaling": {"rope_type": "llama3", "factor": 1e300, "original_max_position_embeddings": 8192,
                            "low_freq_factor": 1.0, "high_freq_factor": 4.0}}
    with pytest.raises(ValueError, match="factor") as caught:
        config_view(cfg)
    assert "max_distance" not in str(caught.value)


def test_model_type_as_a_list_is_a_sentence():
    with pytest.raises(ValueError, match=r"model_type \['llama'\] is not one of"):
        read_multimodal_config({"model_type": ["llama"]})
    with pytest.raises(ValueError, match="model_type"):
        pc.read_layers({"model_type": ["llama"]})


def test_a_cut_paste_says_it_was_cut_and_an_oversized_one_its_size():
    from page_kit.lesson.config_input import PASTE_CHARS, pasted_config_text

    big = '{"model_type": "llama", "x": "' + "a" * (5 << 20) + '"}'
    with pytest.raises(ValueError, match="cut"):
        pasted_config_text(big[:PASTE_CHARS])  # what the text area hands over
    with pytest.raises(ValueError, match="bytes; a config.json is a few kilobytes"):
        pc.parse_config_json(big)


EXTREMES = (1e308, 1e-308, 10**30)
SCALING_NUMBERS = ("factor", "original_max_position_embeddings", "attention_factor", "beta_fast", "beta_slow",
                   "low_freq_factor", "high_freq_factor", "mscale", "mscale_all_dim", "alpha", "floor_scale")
CONFIG_NUMBERS = ("max_position_embeddings", "rope_theta", "partial_rotary_factor", "head_dim", "hidden_size",
                  "num_attention_heads", "sliding_window", "qk_rope_head_dim", "global_rope_theta", "attn_scale")


@pytest.mark.parametrize("rope_type", ROPE_TYPES)
def test_every_rope_type_with_an_extreme_number_in_every_numeric_field_gives_a_result_or_a_value_error(rope_type):
    """Every number a length or a frequency is formed from, at the ends of what JSON holds, for every rope type: a
    reading or a sentence, never an overflow (random draws missed `dynamic` with factor 1e308, whose example
    length was rounded from infinity, and YaRN with rope_theta 1e-308, whose ramp bounds were infinite)."""
    for name in SCALING_NUMBERS + CONFIG_NUMBERS:
        for number in EXTREMES:
            scaling = {"rope_type": rope_type, "factor": 4.0, "original_max_position_embeddings": 4096}
            cfg = {"model_type": "llama", "max_position_embeddings": 16384, "rope_scaling": scaling}
            (scaling if name in SCALING_NUMBERS else cfg)[name] = number
            read_everywhere(cfg)
