"""Multimodal config.json reading, the presets, the vision towers' 2D RoPE and the score probes."""

import copy
import json
import types

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from page_kit.lesson import preset_words
from posenc_core import multimodal as mm
from posenc_core.configs import MAX_CONFIG_BYTES

# ---------- presets and the config reader ----------

@pytest.mark.parametrize("key", list(mm.MULTIMODAL_PRESETS))
def test_presets_read_back_to_their_family(key):
    preset = mm.MULTIMODAL_PRESETS[key]
    assert isinstance(preset, pc.Preset) and preset.model_id and preset.source
    assert preset_words.PRESET_SOURCES[key] and preset_words.PRESET_NOTES[key]  # where from, what to check
    reading = mm.read_multimodal_config(json.loads(json.dumps(preset.config)))
    assert reading.family == mm.MULTIMODAL_PRESET_FAMILY[key]
    family = mm.MM_FAMILIES[reading.family]
    # the rotary fields of every preset are the family's (transformers' defaults for the split and layout)
    assert reading.settings.mrope_section == family.mrope_section
    assert reading.settings.rotary_dim == int(family.head_dim * family.partial_rotary_factor)
    assert reading.settings.rope_theta == family.rope_theta
    assert all(isinstance(row, mm.ConfigRow) and (row.path or row.origin != "file") for row in reading.rows)


@pytest.mark.parametrize("key", list(mm.MULTIMODAL_PRESETS))
def test_presets_build_transformers_configs(key):
    """Each preset, handed to its transformers configuration class, gives the same rotary settings."""
    import transformers
    classes = {"qwen2_vl": "Qwen2VLConfig", "qwen2_5_vl": "Qwen2_5_VLConfig", "qwen3_vl": "Qwen3VLConfig",
               "qwen3_5_moe": "Qwen3_5MoeConfig", "glm4v": "Glm4vConfig", "ernie4_5_vl_moe": "Ernie4_5_VLMoeConfig",
               "qwen3_omni_moe": "Qwen3OmniMoeConfig"}
    config = copy.deepcopy(mm.MULTIMODAL_PRESETS[key].config)
    cls = getattr(transformers, classes[config.pop("model_type")])
    built = cls(**config)
    text = built.thinker_config.text_config if hasattr(built, "thinker_config") else built.text_config
    reading = mm.read_multimodal_config(mm.MULTIMODAL_PRESETS[key].config)
    assert list(text.rope_parameters["mrope_section"]) == list(reading.settings.mrope_section)
    assert float(text.rope_parameters["rope_theta"]) == reading.settings.rope_theta
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    assert head_dim == reading.settings.head_dim
    factor = text.rope_parameters.get("partial_rotary_factor", getattr(text, "partial_rotary_factor", 1.0)) or 1.0
    assert int(head_dim * factor) == reading.settings.rotary_dim


def test_reader_lists_unknown_keys_and_never_raises_for_them():
    config = copy.deepcopy(mm.MULTIMODAL_PRESETS["qwen3-vl-8b"].config)
    config["my_new_field"] = 3
    config["text_config"]["another"] = [1, 2]
    reading = mm.read_multimodal_config(config)
    assert "my_new_field" in reading.unused and "text_config.another" in reading.unused
    assert "interleaved_flag" in reading.notes


def test_reader_rope_parameters_and_fallbacks():
    # transformers 5 style: rope_parameters inside text_config, head_dim from hidden_size / heads
    config = {"model_type": "glm4v", "text_config": {"hidden_size": 2048, "num_attention_heads": 16,
                                                     "rope_parameters": {"rope_theta": 500.0,
                                                                         "partial_rotary_factor": 0.5,
                                                                         "mrope_section": [8, 12, 12]}}}
    reading = mm.read_multimodal_config(config)
    assert reading.settings.head_dim == 128 and reading.settings.rotary_dim == 64
    assert reading.settings.rope_theta == 500.0
    # nothing rotary in the file: the family's defaults, said so
    bare = mm.read_multimodal_config({"model_type": "qwen2_vl"})
    assert bare.settings.mrope_section == (16, 24, 24)
    assert any(row.origin in ("class_default", "all_rotate", "module_default") and not row.path for row in bare.rows)
    # Qwen2.5-VL's tokens_per_second and Qwen3-Omni's position_id_per_seconds reach the ids
    omni = mm.read_multimodal_config(mm.MULTIMODAL_PRESETS["qwen3-omni-30b-a3b"].config)
    assert omni.time == {"position_id_per_seconds": 13, "n_window": 50}


@pytest.mark.parametrize("config, message", [
    ([1, 2], "JSON object"),
    ({"model_type": "llama"}, "not one of the vision-language"),
    ({}, "not one of the vision-language"),
    ({"model_type": "qwen2_vl", "rope_scaling": {"mrope_section": 16}}, "list of 3"),
    ({"model_type": "qwen2_vl", "rope_scaling": {"mrope_section": [16, 24, 20]}}, "sums to"),
    ({"model_type": "qwen2_vl", "rope_theta": "big"}, "number"),
    ({"model_type": "ernie4_5_vl_moe", "text_config": {"rope_parameters": {"mrope_section": [24, 20, 20]}}},
     "equal height and width"),
])
def test_reader_bad_configs(config, message):
    with pytest.raises(ValueError, match=message):
        mm.read_multimodal_config(config)


def test_reader_through_parse_config_json():
    text = json.dumps(mm.MULTIMODAL_PRESETS["ernie-4.5-vl-28b-a3b"].config)
    reading = mm.read_multimodal_config(pc.parse_config_json(text))
    assert reading.settings.allocation == "ernie3d"
    with pytest.raises(ValueError, match="bytes"):
        pc.parse_config_json("x" * (MAX_CONFIG_BYTES + 1))


# ---------- vision towers ----------

def _tower_module(key):
    from transformers.models.gemma4.modeling_gemma4 import Gemma4VisionRotaryEmbedding
    from transformers.models.glm4v.modeling_glm4v import Glm4vVisionRotaryEmbedding
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLVisionRotaryEmbedding
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLVisionRotaryEmbedding
    tower = mm.VISION_TOWERS[key]
    config = types.SimpleNamespace(rope_parameters={"rope_type": "axial", "rope_theta": tower.theta},
                                   head_dim=tower.head_dim)
    cls = {"qwen2_vl": Qwen2VLVisionRotaryEmbedding, "qwen3_vl": Qwen3VLVisionRotaryEmbedding,
           "glm4v": Glm4vVisionRotaryEmbedding, "gemma4": Gemma4VisionRotaryEmbedding}[key]
    return cls(config)


@pytest.mark.parametrize("key", list(mm.VISION_TOWERS))
def test_vision_cos_sin_bit_identical(key):
    rows, cols = np.divmod(np.arange(7 * 9), 9)
    module = _tower_module(key)
    if key == "gemma4":  # pixel_position_ids are (x, y) = (column, row), batched
        cos, sin = module(torch.zeros(1), torch.tensor(np.stack([cols, rows], 1))[None])
        cos, sin = cos[0], sin[0]
    else:  # (n, 2) = (row, column)
        cos, sin = module(torch.zeros(1), torch.tensor(np.stack([rows, cols], 1)))
    mine = mm.vision_rope_cos_sin(key, rows, cols, backend="torch")
    np.testing.assert_array_equal(mine[0], cos.numpy())
    np.testing.assert_array_equal(mine[1], sin.numpy())


def test_gemma_score_map_is_the_images_sections_axial_rope_with_columns_first():
    h, w, row, col = 5, 7, 2, 3
    ones = np.ones((h * w, 64), dtype=np.float64)
    rows, cols = np.divmod(np.arange(h * w), w)
    rotated = pc.rope_2d_axial(ones, cols, rows, base=100.0)  # first half by the column, as Gemma 4
    expected = (rotated @ rotated[row * w + col]).reshape(h, w)
    np.testing.assert_allclose(mm.vision_tower_score_map("gemma4", h, w, row, col), expected, rtol=1e-5)


def _score_map_whole_grid(key, h, w, row, col, head_dim, theta, vectors, seed, relative):
    """vision_tower_score_map before it rotated one row and one column of patches: the whole grid's cos, sin."""
    rows, cols = np.divmod(np.arange(h * w), w)
    cos, sin = mm.vision_rope_cos_sin(key, rows, cols, head_dim=head_dim, theta=theta, backend="numpy")
    d = cos.shape[-1]
    content = np.ones(d) if vectors == "ones" else np.random.default_rng(seed).standard_normal(d)
    rotated = mm.vision_towers._rotate_tower(np.broadcast_to(content, (h * w, d)), cos.astype(np.float64),
                                             sin.astype(np.float64), mm.VISION_TOWERS[key].layout)
    scores = (rotated @ rotated[row * w + col]).reshape(h, w)
    return scores / scores[row, col] if relative else scores


@settings(max_examples=40, deadline=None)
@given(key=st.sampled_from(list(mm.VISION_TOWERS)), h=st.integers(1, 64), w=st.integers(1, 64),
       cell=st.floats(0, 1), head_dim=st.sampled_from([None, 4, 12, 64, 256]),
       theta=st.sampled_from([None, 100.0, 10_000.0, 1e6]), vectors=st.sampled_from(["ones", "random"]),
       seed=st.integers(0, 99), relative=st.booleans())
def test_vision_score_map_matches_the_whole_grid_bit_for_bit(key, h, w, cell, head_dim, theta, vectors, seed,
                                                              relative):
    row, col = int(cell * (h - 1)), int((1 - cell) * (w - 1))
    args = (key, h, w, row, col)
    mine = mm.vision_tower_score_map(*args, head_dim=head_dim, theta=theta, vectors=vectors, seed=seed,
                                     relative=relative)
    assert np.array_equal(mine, _score_map_whole_grid(*args, head_dim, theta, vectors, seed, relative))


def test_vision_score_map_keeps_the_whole_grids_size_cap():
    with pytest.raises(ValueError, match="The vision cos/sin table would hold 134,217,728 values"):
        mm.vision_tower_score_map("gemma4", 256, 256, 0, 0, head_dim=1024)


def test_vision_layouts_and_wavelengths():
    assert list(mm.vision_dimension_axes("qwen2_vl")[::20]) == [0, 1, 0, 1]
    assert list(mm.vision_dimension_axes("gemma4")[::16]) == [1, 1, 0, 0]
    waves = mm.vision_wavelengths("gemma4")
    assert waves.shape == (16,) and waves[0] == pytest.approx(2 * np.pi)
    assert waves[-1] == pytest.approx(2 * np.pi * 100 ** (15 / 16), rel=1e-6)
    table = mm.vision_wavelength_table(["qwen2_vl", "gemma4"])
    assert table.shape == (2, 20) and np.isnan(table[1, 16:]).all()
    assert mm.vision_layout_table(["qwen2_vl", "gemma4"]).shape == (2, 80)


def test_factorized_learned_table_shares_rows_and_columns():
    maps = mm.factorized_learned_table(6, 8, 64)
    assert maps.shape == (48, 6, 8)
    np.testing.assert_allclose(maps[10].reshape(6, 8)[1, 2], 1.0, atol=1e-6)


@pytest.mark.parametrize(("h", "w", "seed"), [(1, 1, 0), (6, 8, 0), (48, 48, 3), (13, 5, 7)])
def test_factorized_learned_table_one_query_is_that_map(h, w, seed):
    """A query's map from one matrix-vector product: the full maps' row, to float32 (the products' last float64
    bit may differ, which float32 all but always rounds away)."""
    maps = mm.factorized_learned_table(h, w, 64, seed)  # (h·w, h, w)
    for row, col in {(0, 0), (h - 1, w - 1), (h // 2, w // 3)}:
        one = mm.factorized_learned_table(h, w, 64, seed, query=(row, col))
        assert one.shape == (h, w) and one.dtype == np.float32
        np.testing.assert_allclose(one, maps[row * w + col], rtol=0, atol=1e-7)
    with pytest.raises(ValueError, match="query row"):
        mm.factorized_learned_table(h, w, 64, seed, query=(h, 0))


@pytest.mark.parametrize("call, message", [
    (lambda: mm.vision_rope_cos_sin("clip", [0], [0]), "tower"),
    (lambda: mm.vision_rope_cos_sin("gemma4", [0], [0], head_dim=66), "multiple of 4"),
    (lambda: mm.vision_tower_score_map("gemma4", 4, 4, 4, 0), "at most 3"),
    (lambda: mm.vision_tower_score_map("gemma4", 0, 4, 0, 0), "at least 1"),
    (lambda: mm.vision_rope_cos_sin("gemma4", [0], [0], theta=1.0), "greater than 1"),
])
def test_vision_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------- probes ----------

@pytest.mark.parametrize("key", list(mm.MM_FAMILIES))
def test_image_scores_peak_at_the_query(key):
    settings = mm.mm_rope_settings(key)
    result = mm.mm_image_scores(key, settings, 5, 6, 2, 3)
    assert result.map.shape == (5, 6) and result.map[2, 3] == pytest.approx(1.0)
    assert result.map.max() == pytest.approx(1.0) and result.self_score == pytest.approx(settings.head_dim)
    assert result.right == pytest.approx(result.map[2, 4])


def test_chunked_widths_are_nearly_flat_and_interleaved_are_not():
    flat = mm.mm_image_scores("qwen2_vl", mm.mm_rope_settings("qwen2_vl"), 8, 8, 4, 4)
    sharp = mm.mm_image_scores("qwen3_vl", mm.mm_rope_settings("qwen3_vl"), 8, 8, 4, 4)
    assert 1 - flat.right < 1e-4 < 1 - sharp.right


def test_video_scores_and_time_ids():
    curve = mm.mm_video_scores("qwen2_5_vl", mm.mm_rope_settings("qwen2_5_vl"), 8, 2, 2, 1.0, 0, 0, 1)
    assert list(curve.seconds) == [0, 2, 4, 6] and curve.scores[1] == pytest.approx(1.0)
    assert list(np.diff(curve.time_ids)) == [4, 4, 4]
    assert list(mm.mm_time_ids("qwen2_vl", 8, 4.0).time_ids) == [0, 1, 2, 3]
    assert list(mm.mm_time_ids("qwen3_omni", 4, 1.0).time_ids) == [0, 26]
    table = mm.mm_time_id_table(4, (1.0, 2.0), ("qwen2_vl",))
    assert list(table.seconds) == [0, 1, 2]
    assert np.isnan(table.series[("qwen2_vl", 1.0)][1])
    with pytest.raises(ValueError, match="at most 3"):
        mm.mm_video_scores("qwen2_vl", mm.mm_rope_settings("qwen2_vl"), 8, 2, 2, 1.0, 0, 0, 4)
