"""Fewer frequencies: rotating only part of each head.

Three ways to leave dimensions unrotated, which look alike and are not:

* partial rotary (GPT-NeoX ``rotary_pct``, ``partial_rotary_factor`` in GLM, Phi, Qwen3.5): the first
  r = int(head_dim x f) dimensions get a complete RoPE spectrum of their own, exponents over r, so the
  wavelengths still run from 2 pi to almost 2 pi x base, with fewer pairs in between;
* p-RoPE (Barbero et al. 2025, "Round and round we go! What makes Rotary Positional Encodings useful?",
  section 6): the full head's spectrum theta_i = base^(-2i/d), with the lowest frequencies set to zero so
  those pairs become position-free channels; RoPE keeps the fraction p of the highest ones;
* ``proportional`` (transformers, Gemma 4's full-attention layers): p-RoPE as the model code computes it,
  keeping int(p x head_dim // 2) of the fastest pairs (see ``scaling._proportional``).

Everything here is in the half (rotate_half) layout: pair i is dimensions (i, i + r/2). numpy only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._checks import MAX_POSITIONS, as_base, as_choice, as_even_dim, as_float, as_int, check_size
from ..rope.frequencies import base_inv_freq, rope_inv_freq

__all__ = [
    "FEWER_FREQUENCY_METHODS",
    "FEWER_FREQUENCY_MODELS",
    "FewerFrequencies",
    "FrequencyScoreCurves",
    "dimension_frequencies",
    "dimension_frequency_table",
    "fewer_frequencies",
    "fewer_frequency_summaries",
    "frequency_score_curves",
    "p_rope_inv_freq",
]

FEWER_FREQUENCY_METHODS = ("RoPE", "partial rotary", "p-RoPE", "proportional")

# Who rotates part of each head (head_dim, fraction, method), from transformers' config classes and config.json;
# keyed by a code the page words with the model's name and the config fields read
FEWER_FREQUENCY_MODELS: dict[str, tuple[int, float, str]] = {
    "gpt_neox_20b": (96, 0.25, "partial rotary"),
    "glm_4_5": (128, 0.5, "partial rotary"),
    "qwen3_5": (256, 0.25, "partial rotary"),
    "gemma4": (512, 0.25, "proportional"),
}


@dataclass(frozen=True)
class FewerFrequencies:
    """What one method keeps of a head's frequencies (``fewer_frequencies``).

    inv_freq: (block/2,) the rotated block's pair frequencies, rad per position (0: never turns).
    wavelengths: (d/2,) positions per turn of each pair index, NaN where a pair never turns or, for partial
        rotary, lies outside the block.
    rotated_dims: dimensions that turn.
    still_dims: dimensions that never turn.
    pairs: rotating pairs.
    block: the width of the rotated block (the head for all but partial rotary).
    longest_wavelength: positions, the slowest rotating pair's wavelength.
    shortest_wavelength: positions, the fastest rotating pair's wavelength.
    full_turn: pairs that turn at least once within the context.
    under_quarter: rotating pairs that turn less than a quarter turn (pi/2) within the context.
    still_share: the fraction of the head's dimensions whose part of the score never depends on position.
    unambiguous: positions, half the longest wavelength: up to that distance the slowest pair's angle grows with
        the distance; beyond it, distances Delta and lambda - Delta give that pair the same cosine.
    slowest_omega: rad per position, the slowest turning pair.
    """

    inv_freq: np.ndarray
    wavelengths: np.ndarray
    rotated_dims: int
    still_dims: int
    pairs: int
    block: int
    longest_wavelength: float
    shortest_wavelength: float
    full_turn: int
    under_quarter: int
    still_share: float
    unambiguous: float
    slowest_omega: float


@dataclass(frozen=True)
class FrequencyScoreCurves:
    """q . R(Delta) q / |q|^2 against the distance, per method (``frequency_score_curves``).

    distance: (P,) the distances Delta, 0 then log-spaced, positions.
    scores: {method: (P,)} the normalised score at each distance, in FEWER_FREQUENCY_METHODS order.
    far_mean: {method: float} the mean score over the far half of the distances, Delta > max_distance / 2
        (NaN where none lies there).
    """

    distance: np.ndarray
    scores: dict[str, np.ndarray]
    far_mean: dict[str, float]


def p_rope_inv_freq(head_dim: int, base: float = 10000.0, p: float = 1.0) -> np.ndarray:
    """p-RoPE's frequencies (Barbero et al. 2025, sec. 6): theta_i = base^(-2i/d), the lowest set to 0.

    Keeps the first floor(p x d/2) pairs (the fastest); shape (d/2,), float64. p = 1 is RoPE, p = 0 is NoPE.
    """
    d = as_even_dim("head_dim", head_dim)
    p = as_float("p (the kept fraction)", p, minimum=0.0, maximum=1.0)
    inv_freq = base_inv_freq(as_base(base), d)  # (d/2,)
    kept = math.floor(p * d / 2)
    inv_freq[kept:] = 0.0
    return inv_freq


def _pair_frequencies(method: str, head_dim: int, base: float, fraction: float) -> tuple[np.ndarray, int]:
    """(inv_freq of the rotated block, width of that block) for one method."""
    if method == "RoPE":
        return rope_inv_freq(head_dim, base)[0].astype(np.float64), head_dim
    if method == "partial rotary":
        inv_freq = rope_inv_freq(head_dim, base, partial_rotary_factor=fraction)[0]
        return inv_freq.astype(np.float64), 2 * inv_freq.shape[0]
    if method == "p-RoPE":
        return p_rope_inv_freq(head_dim, base, fraction), head_dim
    scaling = {"rope_type": "proportional", "partial_rotary_factor": fraction}
    return rope_inv_freq(head_dim, base, scaling)[0].astype(np.float64), head_dim


def dimension_frequencies(method: str, head_dim: int, base: float = 10000.0, fraction: float = 1.0) -> np.ndarray:
    """How fast each dimension of a head turns (radians per position; 0 = never), shape (head_dim,).

    In the half layout, pair i of a rotated block of width r is dimensions i and i + r/2; dimensions past
    the block (partial rotary) pass through unrotated.
    """
    method = as_choice("method", method, FEWER_FREQUENCY_METHODS)
    d = as_even_dim("head_dim", head_dim)
    inv_freq, width = _pair_frequencies(method, d, as_base(base), fraction)
    out = np.zeros(d)
    out[:width] = np.concatenate([inv_freq, inv_freq])  # (r,) = cat(freqs, freqs), as transformers builds cos
    return out


def dimension_frequency_table(head_dim: int, base: float = 10000.0, fraction: float = 1.0) -> np.ndarray:
    """log10 of each dimension's angular speed, one row per method (FEWER_FREQUENCY_METHODS order; RoPE at
    fraction 1), NaN where a dimension never turns. Shape (4, head_dim)."""
    rows = [dimension_frequencies(m, head_dim, base, 1.0 if m == "RoPE" else fraction)
            for m in FEWER_FREQUENCY_METHODS]
    table = np.stack(rows)  # (4, d)
    with np.errstate(divide="ignore"):
        return np.where(table > 0, np.log10(table), np.nan)


def fewer_frequencies(method: str, head_dim: int, base: float = 10000.0, fraction: float = 1.0,
                      context: int = 4096) -> FewerFrequencies:
    """What one method keeps: which pairs turn, their wavelengths, and what a context of ``context`` sees.

    Returns:
        a ``FewerFrequencies``.
    """
    method = as_choice("method", method, FEWER_FREQUENCY_METHODS)
    d = as_even_dim("head_dim", head_dim)
    base = as_base(base)
    context = as_int("context", context, minimum=1, maximum=MAX_POSITIONS * 64)
    inv_freq, width = _pair_frequencies(method, d, base, fraction)
    turning = inv_freq[inv_freq > 0]
    rotated = 2 * int(turning.shape[0])
    if turning.size == 0:
        raise ValueError(f"With {method} at fraction {fraction:g}, no pair of a {d}-dimensional head rotates; "
                         "choose a larger fraction.")
    angle_at_context = turning * (context - 1)
    wavelengths = 2 * np.pi / turning
    with np.errstate(divide="ignore"):
        per_pair = np.where(inv_freq > 0, 2 * np.pi / inv_freq, np.nan)  # (block/2,), NaN: never turns
    per_pair = np.concatenate([per_pair, np.full(d // 2 - per_pair.shape[0], np.nan)])  # (d/2,) for any method
    return FewerFrequencies(inv_freq=inv_freq, wavelengths=per_pair, rotated_dims=rotated, still_dims=d - rotated,
                            pairs=rotated // 2, block=width, longest_wavelength=float(wavelengths.max()),
                            shortest_wavelength=float(wavelengths.min()),
                            full_turn=int((angle_at_context >= 2 * np.pi).sum()),
                            under_quarter=int((angle_at_context < np.pi / 2).sum()),
                            still_share=(d - rotated) / d, unambiguous=float(wavelengths.max() / 2),
                            slowest_omega=float(turning.min()))


def fewer_frequency_summaries(head_dim: int, base: float = 10000.0, fraction: float = 1.0,
                              context: int = 4096) -> dict[str, FewerFrequencies]:
    """``fewer_frequencies`` of every method at one setting: RoPE rotates the whole head, the others
    ``fraction`` of it. Returns {method: summary} in FEWER_FREQUENCY_METHODS order."""
    return {m: fewer_frequencies(m, head_dim, base, 1.0 if m == "RoPE" else fraction, context)
            for m in FEWER_FREQUENCY_METHODS}


def frequency_score_curves(head_dim: int, base: float = 10000.0, fraction: float = 0.25, max_distance: int = 4096,
                           points: int = 600) -> FrequencyScoreCurves:
    """q . R(Delta) q / |q|^2 for q with every coordinate equal, against the distance Delta, per method.

    That is the mean over dimensions of cos(Delta x omega_dim): each rotating dimension adds a cosine, each
    still dimension adds exactly 1, the part of the score that no distance can change.

    Returns a ``FrequencyScoreCurves``.
    """
    d = as_even_dim("head_dim", head_dim)
    max_distance = as_int("max_distance", max_distance, minimum=1, maximum=MAX_POSITIONS * 64)
    points = as_int("points", points, minimum=2, maximum=4096)
    check_size(points * d, "The score curves")
    # 0, then log-spaced: the fast pairs decorrelate within a few positions, the slow ones over thousands
    distance = np.unique(np.concatenate([[0.0], np.round(np.geomspace(1, max_distance, points - 1))]))  # (P,)
    curves: dict[str, np.ndarray] = {}
    omegas = [dimension_frequencies(m, d, base, fraction) for m in FEWER_FREQUENCY_METHODS]  # 4 x (d,)
    # The cosines are the cost: each pair's frequency sits in two dimensions, still dimensions are all 0 and
    # the methods share frequencies, so take each distinct one once and gather every method's (P, d) table
    # from those columns: the same elementwise cosines, averaged over the same table as one built per method.
    unique, column = np.unique(np.concatenate(omegas), return_inverse=True)  # (U,), (4 d,)
    cosines = np.cos(np.multiply.outer(distance, unique))  # (P, U)
    done = {}  # methods with the same frequencies (all but p-RoPE at fraction 1) have the same curve
    for i, method in enumerate(FEWER_FREQUENCY_METHODS):
        key = omegas[i].tobytes()
        if key not in done:
            # take, not cosines[:, idx]: that one is laid out by column, and a mean across a row of it sums in
            # another order than the pairwise sum along a C-ordered table built per method
            table = np.ascontiguousarray(np.take(cosines, column[i * d:(i + 1) * d], axis=1))  # (P, d) C-ordered
            done[key] = table.mean(axis=1)  # (P,)
        curves[method] = done[key].copy()  # (P,) an array of its own per method
    far = distance > max_distance / 2
    far_mean = {m: float(curves[m][far].mean()) for m in FEWER_FREQUENCY_METHODS}
    return FrequencyScoreCurves(distance=distance, scores=curves, far_mean=far_mean)
