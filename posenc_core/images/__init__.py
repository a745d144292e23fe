"""Images and coordinates: 2D positions on a patch grid, resizing it, Fourier features and NeRF (lessons/images)."""

from .axial_rope import AXIAL_QK, rope_2d_axial, rope_2d_relative_check, rope_2d_score_maps
from .fourier import (
    DETAIL_CHANGES,
    ENCODINGS,
    FIT_TASKS,
    detail_what_if,
    encoding_ranges,
    encoding_tables,
    fit_coordinates,
    fourier_features,
    gaussian_frequencies,
    nerf_as_sinusoidal,
    nerf_encoding,
    nerf_frequencies,
    radial_spectrum,
    spectrum_1d,
    target_image,
    target_signal,
    worst_encoding,
)
from .grid_resize import (
    RESIZE_MODES,
    matching_cell,
    prefix_change,
    resample_pos_embed,
    resample_sincos_error,
    resample_source_coords,
    resize_neighbour,
    resize_plan,
    resize_profile,
    resize_what_if_size,
    sincos_resize_errors,
    vit_position_table,
)
from .patch_grid import grid_neighbours, learned_like_grid, patch_similarity_maps
from .sincos_grid import flattened_sincos, sincos_2d, sincos_2d_at, sincos_layout, sincos_neighbours

__all__ = [
    "AXIAL_QK", "rope_2d_axial", "rope_2d_relative_check", "rope_2d_score_maps", "DETAIL_CHANGES", "ENCODINGS",
    "FIT_TASKS", "detail_what_if", "encoding_ranges", "encoding_tables", "fit_coordinates", "fourier_features",
    "gaussian_frequencies", "nerf_as_sinusoidal", "nerf_encoding", "nerf_frequencies", "radial_spectrum",
    "spectrum_1d", "target_image", "target_signal", "worst_encoding", "RESIZE_MODES", "matching_cell",
    "prefix_change", "resample_pos_embed", "resample_sincos_error", "resample_source_coords", "resize_neighbour",
    "resize_plan", "resize_profile", "resize_what_if_size", "sincos_resize_errors", "vit_position_table",
    "grid_neighbours", "learned_like_grid", "patch_similarity_maps", "flattened_sincos", "sincos_2d",
    "sincos_2d_at", "sincos_layout", "sincos_neighbours"
]
