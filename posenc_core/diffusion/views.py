"""What the diffusion lessons draw, from the exact functions of this package (pages do no math)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._checks import as_choice, as_float, as_int
from .._types import ArrayLike
from .flux import flux2_image_ids, flux2_text_ids, flux_image_ids, flux_text_ids
from .presets import DitPreset, dit_preset
from .qwen import qwen_text_start, qwen_token_ids
from .rotary import dit_pair_wavelengths
from .sd3 import sd3_grid_coordinates, sd3_sincos_1d, sd3_unseen_patches

__all__ = ["DIT_ID_AXES", "DitAxisExtents", "dit_image_id_grids", "dit_axis_series", "dit_axis_extents",
           "sd3_similarity_grid", "dit_resolution_turns", "dit_resolution_view", "RESOLUTION_METHODS",
           "dit_sequence_ids", "dit_frame_time_id", "dit_value_range", "sd3_window_facts", "PairTurns",
           "ResolutionTurns", "ResolutionView", "Sd3WindowFacts"]

# family -> (axis names in id order, function (rows, cols, centred) -> (rows*cols, n_axes) ids)
DIT_ID_AXES = {
    "flux1": (("time", "row", "column"), lambda r, c, _: flux_image_ids(r, c)),
    "flux2": (("time", "row", "column", "text index l"), lambda r, c, _: flux2_image_ids(r, c)),
    "qwen": (("frame", "row", "column"), lambda r, c, centred: qwen_token_ids(1, r, c, centred)),
}


def dit_image_id_grids(family: str, rows: int, cols: int, centred: bool = True) -> dict[str, np.ndarray]:
    """{axis name: (rows, cols) id of each image token on that axis} for a FLUX.1, FLUX.2 or Qwen-Image image."""
    as_choice("the model family", family, list(DIT_ID_AXES))
    names, build = DIT_ID_AXES[family]
    ids = build(rows, cols, centred).numpy().astype(np.int64)  # (rows*cols, n_axes)
    return {name: ids[:, i].reshape(rows, cols) for i, name in enumerate(names)}


@dataclass(frozen=True)
class DitAxisExtents:
    """How many ids an image or a clip spans along each axis of a DiT's rotary ids (``dit_axis_extents``), ints.

    Attributes:
        time: time ids (1 for an image; latent frames, or pairs of them, for a clip).
        height: rows of tokens.
        width: columns of tokens.
    """

    time: int
    height: int
    width: int


def dit_axis_extents(preset: DitPreset, width_px: int, height_px: int, frames: int = 1) -> DitAxisExtents:
    """The ids the image or clip spans along each axis (a ``DitAxisExtents``): time ids, then rows and columns of
    tokens."""
    w = as_int("the width (pixels)", width_px, minimum=preset.pixels_per_token, maximum=8192)
    h = as_int("the height (pixels)", height_px, minimum=preset.pixels_per_token, maximum=8192)
    n = as_int("the number of frames", frames, minimum=1, maximum=1024)
    if preset.frames_per_token == 1:
        t = 1
    else:  # the VAE keeps the first frame alone, then one latent per 4 frames; CogVideoX 1.5 pairs latents
        latents = (n - 1) // 4 + 1
        per = preset.frames_per_token // 4
        t = -(-latents // per)
    return DitAxisExtents(time=t, height=h // preset.pixels_per_token, width=w // preset.pixels_per_token)


def dit_axis_series(preset: DitPreset, extents: DitAxisExtents, label: str = "") -> dict[str, np.ndarray]:
    """{axis: (n_pairs,) turns each pair of the head makes across that axis's extent, NaN on other axes' pairs}.

    The pairs are in head order, one block per axis (time, height, width; FLUX.2 adds its text axis).
    """
    names = ["time", "height", "width", "text"][:len(preset.axes)]
    total = sum(preset.axes) // 2
    out: dict[str, np.ndarray] = {}
    start = 0
    for name, dim in zip(names, preset.axes, strict=True):
        series = np.full(total, np.nan)
        # ids 0..n-1 span n-1 steps; FLUX.2's text axis has no extent in an image: one id
        extent = max(getattr(extents, name, 1) - 1, 0)
        series[start:start + dim // 2] = extent / dit_pair_wavelengths(dim, preset.theta)
        out[f"{name}{label}"] = series
        start += dim // 2
    return out


def sd3_similarity_grid(embed_dim: int, max_size: int, base_size: int, row: int, col: int) -> np.ndarray:
    """(max_size, max_size) cosine similarity of every cell of SD3's table with cell (row, col).

    The table is [column code | row code], each code of D/4 sin-cos pairs, so every vector has squared
    length D/2 and the dot product splits into a column part and a row part (computed in float64).
    """
    row = as_int("the row", row, minimum=0, maximum=max_size - 1)
    col = as_int("the column", col, minimum=0, maximum=max_size - 1)
    code = sd3_sincos_1d(embed_dim // 2, sd3_grid_coordinates(max_size, base_size)).numpy()  # (max, D/2)
    along = code @ code[col]  # (max,) column part, by column
    down = code @ code[row]  # (max,) row part, by row
    return (down[:, None] + along[None, :]) / (embed_dim / 2)


# remedies against ids left as they are: interpolate the ids, or diffusers' linear_factor / ntk_factor
RESOLUTION_METHODS = ("interpolate_ids", "linear_factor", "ntk_factor")


class ResolutionTurns(NamedTuple):
    """Turns of each pair of one axis across the image, (dim/2,) each (``dit_resolution_turns``).

    trained: at the trained size; unchanged: at the new size with the ids left as they are;
    remedied: at the new size with the remedy.
    """

    trained: np.ndarray
    unchanged: np.ndarray
    remedied: np.ndarray


class PairTurns(NamedTuple):
    """One pair's turns across the image in each ``ResolutionTurns`` series (trained, unchanged, remedied)."""

    trained: float
    unchanged: float
    remedied: float


@dataclass(frozen=True)
class ResolutionView:
    """What the resolution lesson draws for one model (``dit_resolution_view``).

    dim: the width block's dimensions; trained, new: the trained and new widths in tokens; ratio: new / trained.
    series: the ``ResolutionTurns`` of the width pairs.
    fastest, slowest: the first and the last pair's turns in each series.
    keeps_fastest: True when the remedy leaves the fastest pair's turns as with the ids unchanged.
    """

    dim: int
    trained: int
    new: int
    ratio: float
    series: ResolutionTurns
    fastest: PairTurns
    slowest: PairTurns
    keeps_fastest: bool


@dataclass(frozen=True)
class Sd3WindowFacts:
    """What the SD3 lesson states about one image's window in the table (``sd3_window_facts``).

    patches: rows x cols; unseen: patches reading cells outside the centred base_size² window.
    unseen_side: how many of the patches read outside it: 0 none, 1 some, 2 all.
    step: base_size / max_size, the distance of two neighbouring patches in the table's coordinates.
    free: table cells left unused on the image's longer side.
    """

    patches: int
    unseen: int
    unseen_side: int
    step: float
    free: int


def dit_resolution_turns(dim: int, theta: float, trained: int, new: int, method: str) -> ResolutionTurns:
    """Turns of each pair of one axis across the image: trained size, new size, new size with ``method``.

    'interpolate_ids' spaces the new ids trained/new apart (as CogVideoX 1.0's linspace grid does);
    linear_factor = new/trained divides every frequency; ntk_factor = (new/trained)^(dim/(dim-2)) raises θ
    so the slowest pair slows by exactly new/trained while the fastest keeps its speed.
    """
    trained = as_int("the trained size (tokens)", trained, minimum=2, maximum=4096)
    new = as_int("the new size (tokens)", new, minimum=2, maximum=4096)
    as_choice("method", method, RESOLUTION_METHODS)
    scale = as_float("new / trained", new / trained, above=0.0)
    base = dit_pair_wavelengths(dim, theta)
    if method == "interpolate_ids":
        turns = (new - 1) / scale / base
    elif method == "linear_factor":
        turns = (new - 1) / dit_pair_wavelengths(dim, theta, linear_factor=scale)
    else:
        turns = (new - 1) / dit_pair_wavelengths(dim, theta, ntk_factor=scale ** (dim / (dim - 2)))
    return ResolutionTurns((trained - 1) / base, (new - 1) / base, turns)


def _qwen_sequence(rows: int, cols: int, n_text: int):
    start = qwen_text_start(rows, cols)
    text = np.repeat(np.arange(start, start + n_text)[:, None], 3, axis=1)  # (n_text, 3): same id on each axis
    return ["image", "text"], [qwen_token_ids(1, rows, cols).numpy(), text]


# family -> (rows, cols, n_text) -> (part names in sequence order, their (n, n_axes) ids)
_SEQUENCES = {
    "flux1": lambda r, c, n: (["text", "image"], [flux_text_ids(n).numpy(), flux_image_ids(r, c).numpy()]),
    "flux2": lambda r, c, n: (["text", "image"], [flux2_text_ids(n).numpy(), flux2_image_ids(r, c).numpy()]),
    "qwen": _qwen_sequence,
}


def dit_sequence_ids(family: str, rows: int, cols: int, n_text: int, keep: int = 3) -> tuple[list[str], np.ndarray]:
    """(kinds, (n, n_axes) int ids): text and image tokens in the order the model attends them, the first
    ``keep`` tokens of each part (a table's worth)."""
    as_choice("the model family", family, list(_SEQUENCES))
    parts, blocks = _SEQUENCES[family](rows, cols, n_text)
    kinds = [p for p, b in zip(parts, blocks, strict=True) for _ in range(min(keep, len(b)))]
    return kinds, np.concatenate([b[:keep] for b in blocks]).astype(np.int64)


def dit_frame_time_id(preset: DitPreset, num_frames: int, frame: int) -> int:
    """The time id of video frame ``frame`` (0-based) in a clip of ``num_frames`` frames.

    The VAE keeps frame 0 alone and folds each next 4 frames into one latent, so frame f lands in latent
    ceil(f / 4). CogVideoX 1.5 pairs latents (patch_size_t = 2); when their count is odd its pipeline puts
    one extra latent in front (and drops it after decoding), which moves every real frame one latent on.
    """
    n = as_int("the number of frames", num_frames, minimum=1, maximum=4096)
    f = as_int("the frame", frame, minimum=0, maximum=n - 1)
    if preset.frames_per_token == 1:
        return 0
    latent, per = -(-f // 4), preset.frames_per_token // 4
    latents = (n - 1) // 4 + 1
    return (latent + (-latents) % per) // per


def dit_value_range(values: ArrayLike) -> tuple[float, float]:
    """(smallest, largest) of an array of ids, turns or similarities, NaN cells (an axis's other pairs, the cells
    an image never reads) left out; an int array gives ints."""
    values = np.asarray(values)
    if values.size == 0 or (values.dtype.kind == "f" and np.isnan(values).all()):
        raise ValueError("There are no values to read a range from.")
    low, high = np.nanmin(values), np.nanmax(values)
    cast = int if values.dtype.kind in "iu" else float
    return cast(low), cast(high)


def dit_resolution_view(name: str, trained_px: int, new_px: int, method: str) -> ResolutionView:
    """What the resolution lesson draws for one model: its width block, the trained and new widths in tokens, and
    ``dit_resolution_turns`` with each series' fastest and slowest pair (a ``ResolutionView``).
    """
    preset = dit_preset(name)
    dim = preset.axes[2]
    trained, new = trained_px // preset.pixels_per_token, new_px // preset.pixels_per_token
    series = dit_resolution_turns(dim, preset.theta, trained, new, method)
    fastest = PairTurns(*(float(v[0]) for v in series))
    slowest = PairTurns(*(float(v[-1]) for v in series))
    return ResolutionView(dim, trained, new, new / trained, series, fastest, slowest,
                          bool(np.isclose(fastest.remedied, fastest.unchanged)))


def sd3_window_facts(max_size: int, base_size: int, rows: int, cols: int) -> Sd3WindowFacts:
    """What the SD3 lesson states about one image's window in the table (an ``Sd3WindowFacts``)."""
    unseen = sd3_unseen_patches(max_size, rows, cols, base_size)
    patches = rows * cols
    side = 0 if unseen == 0 else 2 if unseen == patches else 1
    return Sd3WindowFacts(patches, unseen, side, base_size / max_size, max_size - max(rows, cols))
