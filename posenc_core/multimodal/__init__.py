"""Multimodal positions: 3D (time, height, width) position ids of mixed text / image / video / audio
sequences, how each vision-language family splits the rotary pairs between those axes, the
scores that follow, the families' config.json fields and presets, their vision towers' 2D RoPE, and
HunYuan-VL's four-axis XD-RoPE.
"""

from .config import ConfigRow, MMConfigReading, read_multimodal_config
from .families import ALLOCATIONS, MM_FAMILIES, TIME_RULES, MMFamily, mm_family
from .presets import MULTIMODAL_PRESET_FAMILY, MULTIMODAL_PRESETS
from .probes import (
    SCORE_BANDS,
    ImageAdvance,
    ImageScores,
    RowEndScore,
    TimeIds,
    TimeIdTable,
    VideoScores,
    WiderImage,
    mm_image_advance,
    mm_image_scores,
    mm_row_end_score,
    mm_score_band,
    mm_time_id_table,
    mm_time_ids,
    mm_video_scores,
    mm_wider_image,
)
from .readouts import SequenceSummary, VideoAudio, VideoGroups, mm_segment_starts, mm_sequence_summary, mm_video_groups
from .rotary import (
    AXIS_NAMES,
    AllocationSummary,
    AxisWavelengths,
    MRopeSettings,
    mm_allocation_summary,
    mm_cos_sin,
    mm_family_axis_table,
    mm_pair_axes,
    mm_pair_wavelengths,
    mm_rope_settings,
    mm_scores,
    mm_slow_pairs,
    mm_wavelength_ranges,
)
from .sequence import (
    MAX_MM_TOKENS,
    SEGMENT_KINDS,
    MixedIds,
    Segment,
    mm_position_ids,
    omni_audio_tokens,
    parse_segments,
)
from .vision_towers import (
    VISION_TOWERS,
    TowerWavelengths,
    VisionFarScore,
    VisionTower,
    WavelengthSummary,
    factorized_learned_table,
    vision_dimension_axes,
    vision_far_score,
    vision_layout_table,
    vision_rope_cos_sin,
    vision_tower_score_map,
    vision_wavelength_summary,
    vision_wavelength_table,
    vision_wavelengths,
)
from .xdrope import XD_AXIS_NAMES, XD_LAYOUTS, XdIds, xd_dim_axes, xd_position_ids

__all__ = [
    "ConfigRow", "ImageAdvance", "ImageScores", "RowEndScore", "TimeIdTable", "TimeIds", "VideoScores", "WiderImage",
    "SequenceSummary", "VideoAudio", "VideoGroups", "AllocationSummary", "AxisWavelengths", "TowerWavelengths",
    "VisionFarScore", "WavelengthSummary",
    "MMConfigReading", "read_multimodal_config", "ALLOCATIONS", "MM_FAMILIES", "TIME_RULES", "MMFamily",
    "mm_family", "MULTIMODAL_PRESETS", "MULTIMODAL_PRESET_FAMILY", "SCORE_BANDS", "mm_image_advance",
    "mm_image_scores", "mm_row_end_score", "mm_score_band", "mm_time_id_table", "mm_time_ids", "mm_video_scores",
    "mm_wider_image", "mm_segment_starts", "mm_sequence_summary", "mm_video_groups", "AXIS_NAMES", "MRopeSettings",
    "mm_allocation_summary", "mm_cos_sin", "mm_family_axis_table", "mm_pair_axes", "mm_pair_wavelengths",
    "mm_rope_settings", "mm_scores", "mm_slow_pairs", "mm_wavelength_ranges", "MAX_MM_TOKENS", "SEGMENT_KINDS",
    "MixedIds", "Segment", "mm_position_ids", "omni_audio_tokens", "parse_segments", "VISION_TOWERS", "VisionTower",
    "factorized_learned_table", "vision_dimension_axes", "vision_far_score", "vision_layout_table",
    "vision_rope_cos_sin", "vision_tower_score_map", "vision_wavelength_summary", "vision_wavelength_table",
    "vision_wavelengths", "XD_AXIS_NAMES", "XD_LAYOUTS", "XdIds", "xd_dim_axes", "xd_position_ids",
]
