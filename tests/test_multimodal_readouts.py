"""The numbers the Multimodal lessons state, computed by the core: sequence readouts, counts and what-ifs."""

import numpy as np
import pytest

import posenc_core as pc
from posenc_core.multimodal import (
    MM_FAMILIES,
    SCORE_BANDS,
    TowerWavelengths,
    mm_allocation_summary,
    mm_family_axis_table,
    mm_image_advance,
    mm_image_scores,
    mm_pair_axes,
    mm_pair_wavelengths,
    mm_rope_settings,
    mm_row_end_score,
    mm_score_band,
    mm_segment_starts,
    mm_sequence_summary,
    mm_slow_pairs,
    mm_time_id_table,
    mm_video_groups,
    mm_video_scores,
    mm_wavelength_ranges,
    mm_wider_image,
    parse_segments,
    vision_far_score,
    vision_tower_score_map,
    vision_wavelength_summary,
    vision_wavelengths,
)

MIXED = "text 4, image 3x4, text 3, video 6f 2x2 @2, text 3"
OMNI = "text 4, image 3x4, text 3, video 6f 2x2 @2 +audio, text 3, audio 1s, text 2"


def test_segment_starts_skip_the_start_tokens():
    result = pc.mm_position_ids("qwen2_vl", parse_segments(MIXED))
    starts = mm_segment_starts(result)
    assert len(starts) == 5 and starts[0] == 0
    for index, start in enumerate(starts):
        assert result.segment[start] == index
        if index % 2:  # the image and the video: the first token after the start token
            assert result.kind[start] != 0 and result.kind[start - 1] == 0


def test_sequence_summary_reads_the_ids():
    result = pc.mm_position_ids("qwen2_vl", parse_segments(MIXED))
    summary = mm_sequence_summary(result)
    image, video = np.flatnonzero(result.kind == 1), np.flatnonzero(result.kind == 2)
    assert summary.image_tokens == 12 == image.size
    assert summary.first_image == tuple(result.ids[:, image[0]])
    assert summary.video_top_time == result.ids[0, video].max()
    assert summary.after_video == result.ids[0, video[-1] + 1]
    assert summary.video_audio is None
    omni = mm_sequence_summary(pc.mm_position_ids("qwen3_omni", parse_segments(OMNI)))
    assert omni.video_audio.count > 0 and omni.video_audio.first <= omni.video_audio.last
    text = mm_sequence_summary(pc.mm_position_ids("qwen2_vl", parse_segments("text 5")))
    assert text.first_image is None and text.video_top_time is None


def test_video_groups_step_by_frame_index_or_seconds():
    for family, fps, step in (("qwen2_vl", 1.0, 1.0), ("qwen2_vl", 4.0, 1.0), ("qwen2_5_vl", 1.0, 4.0)):
        result = pc.mm_position_ids(family, parse_segments(f"text 2, video 8f 2x2 @{fps:g}, text 2"))
        groups = mm_video_groups(result, fps)
        assert groups.time_ids.size == 4 and np.all(groups.steps == step)
        assert groups.group_seconds == 2 / fps
    with pytest.raises(ValueError, match="no video"):
        mm_video_groups(pc.mm_position_ids("qwen2_vl", parse_segments("text 3")), 2.0)


def test_wider_image_options_hold_the_answer():
    for family in MM_FAMILIES:
        for h, w in ((3, 4), (8, 2), (1, 1)):
            what_if = mm_wider_image(family, h, w)
            assert what_if.wider == mm_image_advance(family, h, 2 * w).advance
            assert what_if.wider in what_if.candidates and what_if.now in what_if.candidates
            assert what_if.larger_side == max(h, 2 * w) and what_if.added_tokens == h * w


def test_row_end_score_reads_the_wider_map_and_its_band():
    settings = mm_rope_settings("qwen2_vl")
    far = mm_row_end_score("qwen2_vl", settings, 6, 8, 2, 3)
    wider = mm_image_scores("qwen2_vl", settings, 6, 16, 2, 3).map
    assert (far.columns, far.col, far.distance) == (16, 15, 12) and far.score == wider[2, 15]
    assert [mm_score_band(v) for v in (1.0, 0.995, 0.99, 0.5, 0.49)] == [0, 0, 1, 1, 2]
    assert len(SCORE_BANDS) == 3


def test_slow_pairs_family_table_and_allocation_summary():
    settings = mm_rope_settings("qwen2_vl")
    waves = mm_pair_wavelengths(settings)["width"]
    assert mm_slow_pairs(settings, "width", 64) == int(np.sum(waves[np.isfinite(waves)] > 64))
    keys, grid = mm_family_axis_table()
    assert keys == list(MM_FAMILIES) and grid.shape[0] == len(keys)
    for key, row in zip(keys, grid, strict=True):
        axes = mm_pair_axes(mm_rope_settings(key))
        np.testing.assert_array_equal(row[:axes.size], axes)
        assert np.all(np.isnan(row[axes.size:]))
    summary = mm_allocation_summary(mm_rope_settings("glm4v"))
    ranges = mm_wavelength_ranges(mm_rope_settings("glm4v"))
    assert summary.spatial_pairs == ranges["height"].pairs + ranges["width"].pairs
    assert summary.still_dims == 64 and summary.rotary_fraction == 0.5
    assert ranges[summary.slowest_axis].slowest_run == summary.slowest_run > 0
    with pytest.raises(ValueError, match="axis"):
        mm_slow_pairs(settings, "depth", 64)


def test_time_id_table_last_ids_and_spacing():
    table = mm_time_id_table(12, (0.5, 8.0), ("qwen2_vl", "qwen2_5_vl"))
    for name, values in table.series.items():
        assert table.last[name] == values[np.isfinite(values)][-1]
    assert table.group_seconds == {0.5: 4.0, 8.0: 0.25}
    assert table.last_start == {0.5: 20.0, 8.0: 1.25}
    curves = mm_video_scores("qwen2_vl", mm_rope_settings("qwen2_vl"), 8, 2, 2, 2.0, 0, 0, 0)
    assert curves.time_span == curves.time_ids[-1] - curves.time_ids[0]


def test_vision_far_score_and_wavelength_summary():
    far = vision_far_score("qwen2_vl", 10, 20, 3, 19)  # the last column: 16 columns to the left
    assert (far.col, far.distance) == (3, 16)
    assert far.score == vision_tower_score_map("qwen2_vl", 10, 20, 3, 19, relative=True)[3, 3]
    swapped = vision_far_score("qwen2_vl", 10, 20, 3, 19, theta=100.0)
    assert swapped.score == vision_tower_score_map("qwen2_vl", 10, 20, 3, 19, theta=100.0, relative=True)[3, 3]
    summary = vision_wavelength_summary(["qwen2_vl", "gemma4"], 24, 32)
    assert summary.side == 32
    for key, row in summary.towers.items():
        waves = vision_wavelengths(key)
        assert row == TowerWavelengths(shortest=waves.min(), longest=waves.max(), frequencies=waves.size,
                                       over_four_sides=int(np.sum(waves > 128)))
