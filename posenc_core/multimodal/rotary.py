"""Which rotary pairs carry which axis, and the cos / sin / scores of 3D position ids.

Every family here computes one angle table per axis, ``ids[axis] * inv_freq`` (float32), and then
picks, pair by pair, the table of the axis that pair belongs to (``recomposition_frequencies`` in
transformers). Only that pick differs: contiguous blocks (Qwen2-VL, Qwen2.5-VL, GLM-4V), a t-h-w
cycle (Qwen3-VL, Qwen3.5, Qwen3-Omni), or ERNIE's height/width alternation on the fast pairs with
time on the slow ones. After the pick, pair j always turns at frequency inv_freq[j].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import require_torch, torch_installed
from .._checks import MAX_DIM, as_base, as_choice, as_float, as_int, check_size
from ..rope import rope_inv_freq_float32_pow
from ._blocks import padded_rows
from .families import ALLOCATIONS, MM_FAMILIES, mm_family

__all__ = [
    "AXIS_NAMES",
    "MRopeSettings",
    "AllocationSummary",
    "AxisWavelengths",
    "mm_allocation_summary",
    "mm_cos_sin",
    "mm_family_axis_table",
    "mm_pair_axes",
    "mm_pair_wavelengths",
    "mm_rope_settings",
    "mm_scores",
    "mm_slow_pairs",
    "mm_wavelength_ranges",
]

AXIS_NAMES = ("time", "height", "width")


@dataclass(frozen=True)
class MRopeSettings:
    family: str
    allocation: str
    pair_layout: str
    head_dim: int
    rotary_dim: int  # head_dim · partial_rotary_factor: the first rotary_dim dimensions turn, the rest pass
    rope_theta: float
    mrope_section: tuple[int, int, int]

    @property
    def n_pairs(self) -> int:
        return self.rotary_dim // 2


def mm_rope_settings(family_key: str, *, head_dim: int | None = None, partial_rotary_factor: float | None = None,
                     rope_theta: float | None = None,
                     mrope_section: Sequence[int] | None = None, allocation: str | None = None,
                     rotary_dim: int | None = None) -> MRopeSettings:
    """A family's rotary settings, any of them overridden (by a config or a slider), checked together.

    ``rotary_dim`` (the rotated dimensions, already known) takes the place of ``partial_rotary_factor``.
    """
    family = mm_family(family_key)
    head_dim = as_int("head_dim", family.head_dim if head_dim is None else head_dim, minimum=2, maximum=MAX_DIM)
    factor = as_float("partial_rotary_factor", family.partial_rotary_factor if partial_rotary_factor is None
                      else partial_rotary_factor, above=0.0, maximum=1.0)
    rotary_dim = int(head_dim * factor) if rotary_dim is None else as_int("rotary_dim", rotary_dim, minimum=0,
                                                                           maximum=head_dim)  # int() truncates
    if rotary_dim < 2 or rotary_dim % 2:
        raise ValueError(f"head_dim x partial_rotary_factor = {head_dim} x {factor:g} gives {rotary_dim} rotated "
                         "dimensions; it must be an even number of at least 2 (rotation pairs).")
    theta = as_base(family.rope_theta if rope_theta is None else rope_theta)
    section = tuple(family.mrope_section if mrope_section is None else mrope_section)
    if len(section) != 3:
        raise ValueError(f"mrope_section must list 3 numbers of pairs, one per axis, but got {list(section)}.")
    t, h, w = (as_int("Each mrope_section entry", s, minimum=0, maximum=MAX_DIM) for s in section)
    section = (t, h, w)
    if sum(section) != rotary_dim // 2:
        raise ValueError(f"mrope_section {list(section)} sums to {sum(section)} pairs, but the head rotates "
                         f"{rotary_dim} dimensions = {rotary_dim // 2} pairs; the sections must add up to that.")
    allocation = as_choice("allocation", family.allocation if allocation is None else allocation, ALLOCATIONS)
    if allocation == "ernie3d" and section[0] != section[1]:
        raise ValueError(f"ERNIE's 3D layout alternates height and width pair by pair, so its mrope_section "
                         f"(height, width, time) needs equal height and width parts; got {list(section)}.")
    return MRopeSettings(family.key, allocation, family.pair_layout, head_dim, rotary_dim, theta, section)


def mm_pair_axes(settings: MRopeSettings) -> np.ndarray:
    """The axis (0 time, 1 height, 2 width) of each rotary pair, shape (n_pairs,), in the model's pair order."""
    n, (s_0, s_1, s_2) = settings.n_pairs, settings.mrope_section
    if settings.allocation == "chunked":  # freq.split(mrope_section): chunk i takes axis i % 3
        return np.repeat(np.arange(3), settings.mrope_section).astype(np.int8)
    axes = np.zeros(n, dtype=np.int8)
    if settings.allocation == "interleaved":  # time everywhere, then H at 1, 4, ... < 3·s_h and W at 2, 5, ... < 3·s_w
        axes[1:3 * s_1:3] = 1
        axes[2:3 * s_2:3] = 2
        return axes
    # ERNIE lists its sections as (height, width, time). inv_freq is pre-permuted so that after stacking
    # (h, w) pair j < s_0 + s_1 turns at inv_freq[j], by height for even j and by width for odd j; time
    # takes the last s_2 pairs, the slowest.
    axes[:s_0 + s_1] = np.tile(np.array([1, 2], np.int8), s_0)
    return axes


def mm_pair_wavelengths(settings: MRopeSettings) -> dict[str, np.ndarray]:
    """Each pair's wavelength 2π/θ_j (positions) under the axis that turns it: {axis: (n_pairs,), NaN elsewhere}."""
    wavelength = 2 * np.pi / rope_inv_freq_float32_pow(settings.rotary_dim, settings.rope_theta).astype(np.float64)
    axes = mm_pair_axes(settings)
    return {name: np.where(axes == a, wavelength, np.nan) for a, name in enumerate(AXIS_NAMES)}


@dataclass(frozen=True)
class AxisWavelengths:
    """The rotary pairs one axis of M-RoPE turns (``mm_wavelength_ranges``).

    Attributes:
        pairs: how many pairs the axis owns (an int).
        shortest, longest: the shortest and longest wavelength 2π/θ among them, positions (floats; NaN without
            pairs).
        slowest_run: how many of the slowest pairs in a row it owns (0 unless it owns the slowest pair; an int).
    """

    pairs: int
    shortest: float
    longest: float
    slowest_run: int


def mm_wavelength_ranges(settings: MRopeSettings) -> dict[str, AxisWavelengths]:
    """For each axis (``AXIS_NAMES``), an ``AxisWavelengths``: how many pairs, the shortest and longest wavelength
    2π/θ among them (in positions), and ``slowest_run``: how many of the slowest pairs in a row it owns (0 unless
    it owns the slowest pair)."""
    inv_freq = rope_inv_freq_float32_pow(settings.rotary_dim, settings.rope_theta).astype(np.float64)
    axes = mm_pair_axes(settings)
    # how many of the slowest pairs in a row belong to one axis (the tail past Qwen3-VL's t-h-w cycle)
    tail = int(np.argmax(axes[::-1] != axes[-1])) or axes.size
    out: dict[str, AxisWavelengths] = {}
    for a, name in enumerate(AXIS_NAMES):
        waves = 2 * np.pi / inv_freq[axes == a]
        out[name] = AxisWavelengths(pairs=int(waves.size), shortest=float(waves.min()) if waves.size else float("nan"),
                                    longest=float(waves.max()) if waves.size else float("nan"),
                                    slowest_run=tail if axes[-1] == a else 0)
    return out


def mm_cos_sin(settings: MRopeSettings, ids: ArrayLike, *, backend: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin, each (n, rotary_dim) float32, for 3D ids of shape (3, n), as the model's rotary embedding.

    With torch (the default when installed) the angles and cos/sin are computed on the same (3, 1, n, pairs)
    float32 tensor as in the model, so the values are bit-identical; numpy agrees to float32 rounding.
    """
    ids = np.asarray(ids, dtype=np.float64)
    if ids.ndim != 2 or ids.shape[0] != 3:
        raise ValueError(f"Position ids must have shape (3, n): one row each for time, height and width; got "
                         f"{ids.shape}.")
    check_size(ids.shape[1] * settings.rotary_dim * 3, "The cos/sin table")
    backend = backend or ("torch" if torch_installed() else "numpy")
    inv_freq = rope_inv_freq_float32_pow(settings.rotary_dim, settings.rope_theta)  # (pairs,) float32
    axes = mm_pair_axes(settings)
    pick = np.arange(settings.n_pairs)
    if backend == "torch":
        torch = require_torch()
        positions = torch.from_numpy(ids.astype(np.float32))[:, None, :]  # (3, 1, n)
        freqs = positions[..., None] * torch.from_numpy(inv_freq)  # (3, 1, n, pairs)
        cos3, sin3 = freqs.cos().numpy()[:, 0], freqs.sin().numpy()[:, 0]  # (3, n, pairs)
    else:
        freqs = ids.astype(np.float32)[..., None] * inv_freq  # (3, n, pairs)
        cos3, sin3 = np.cos(freqs), np.sin(freqs)
    cos, sin = cos3[axes, :, pick].T, sin3[axes, :, pick].T  # (n, pairs): pair j from its axis's table
    if settings.pair_layout == "half":  # torch.cat((freq, freq)): pair j is dimensions (j, j + r/2)
        return np.concatenate([cos, cos], axis=-1), np.concatenate([sin, sin], axis=-1)
    return np.repeat(cos, 2, axis=-1), np.repeat(sin, 2, axis=-1)  # repeat_interleave(2): pair j is (2j, 2j+1)


def _rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, layout: str) -> np.ndarray:
    """x · cos + rotate(x) · sin on the rotated dimensions; the rest of the head passes through."""
    r = cos.shape[-1]
    rot, rest = x[..., :r], x[..., r:]
    if layout == "half":
        turned = np.concatenate([-rot[..., r // 2:], rot[..., :r // 2]], axis=-1)
    else:
        turned = np.stack([-rot[..., 1::2], rot[..., ::2]], axis=-1).reshape(rot.shape)
    return np.concatenate([rot * cos + turned * sin, rest], axis=-1)


def mm_scores(settings: MRopeSettings, ids: ArrayLike, query: int, *, vectors: str = "ones",
              seed: int = 0) -> np.ndarray:
    """q·k of the token at index ``query`` with every token, same content everywhere, so position alone varies.

    vectors: "ones" (each pair adds 2 cos(Δangle), pass-through dimensions add 1) or "random" (one seeded
    random vector as both q and k). Returns (n,) float64.
    """
    vectors = as_choice("vectors", vectors, ("ones", "random"))
    ids = np.asarray(ids, dtype=np.float64)
    n = ids.shape[1] if ids.ndim == 2 else 0
    query = as_int("query", query, minimum=0, maximum=max(n - 1, 0))
    cos, sin = mm_cos_sin(settings, ids, backend="numpy")
    cos, sin = cos.astype(np.float64), sin.astype(np.float64)
    if vectors == "ones":
        content = np.ones(settings.head_dim)
    else:
        content = np.random.default_rng(as_int("seed", seed, minimum=0)).standard_normal(settings.head_dim)
    rotated = _rotate(np.broadcast_to(content, (n, settings.head_dim)), cos, sin, settings.pair_layout)  # (n, d)
    return rotated @ rotated[query]


def mm_slow_pairs(settings: MRopeSettings, axis: str, span: float) -> int:
    """How many of ``axis``'s pairs have a wavelength over ``span`` positions: they turn less than once across
    an image (or clip) ``span`` tokens long."""
    axis = as_choice("axis", axis, AXIS_NAMES)
    span = as_float("span", span, above=0.0, maximum=1e12)
    waves = mm_pair_wavelengths(settings)[axis]  # NaN where another axis turns the pair; NaN > span is False
    return int(np.sum(waves > span))


def mm_family_axis_table() -> tuple[list[str], np.ndarray]:
    """The axis of each rotary pair for every family at its released settings, one row per family.

    Returns:
        (family keys in ``MM_FAMILIES`` order, (families, most pairs) float64: 0 time, 1 height, 2 width,
        NaN past a family's last pair).
    """
    keys = list(MM_FAMILIES)
    return keys, padded_rows([mm_pair_axes(mm_rope_settings(key)) for key in keys])


@dataclass(frozen=True)
class AllocationSummary:
    """The numbers the pair-axes lesson states about one family's split (``mm_allocation_summary``).

    slowest_axis: the axis that turns the slowest pair (a name of ``AXIS_NAMES``).
    slowest_run: how many of the slowest pairs in a row it owns.
    spatial_pairs: height + width pairs; spatial_shortest: the shortest wavelength of either, in positions.
    rotary_fraction: rotary_dim / head_dim; still_dims: dimensions that carry no position.
    """

    slowest_axis: str
    slowest_run: int
    spatial_pairs: int
    spatial_shortest: float
    rotary_fraction: float
    still_dims: int


def mm_allocation_summary(settings: MRopeSettings) -> AllocationSummary:
    """The numbers the lesson states about one family's split, next to ``mm_wavelength_ranges``.

    Returns:
        An ``AllocationSummary``: ``slowest_axis``, ``slowest_run``, ``spatial_pairs``, ``spatial_shortest``,
        ``rotary_fraction`` and ``still_dims``.
    """
    ranges = mm_wavelength_ranges(settings)
    slowest = next(name for name, r in ranges.items() if r.slowest_run)
    height, width = ranges["height"], ranges["width"]
    return AllocationSummary(slowest, ranges[slowest].slowest_run, height.pairs + width.pairs,
                             float(np.fmin(height.shortest, width.shortest)),
                             settings.rotary_dim / settings.head_dim, settings.head_dim - settings.rotary_dim)
