"""RoPE is relative, and decays: the score grid q_m . k_n, RoFormer's decay bound and measured mean scores.

The lesson *RoPE is relative, and decays*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import kind_of, to_backend, to_numpy
from .._checks import MAX_POSITIONS, as_base, as_even_dim, as_int, check_size
from .._types import ArrayOrTensor
from .frequencies import base_inv_freq, rope_inv_freq
from .rotation import _gaussian, apply_rope

__all__ = [
    "DecayCurves",
    "MeanAbsScores",
    "rope_decay_bound",
    "rope_decay_curves",
    "rope_mean_abs_scores",
    "rope_score_matrix",
]


def rope_score_matrix(n: int, head_dim: int, base: float = 10000.0, layout: str = "half", seed: int = 0) -> np.ndarray:
    """q_m . k_n for one random query vector q and key vector k placed at every position 0..n-1.

    q and k are drawn once (standard normal, seeded) and rotated by apply_rope at every position;
    entry [m, n] is their score. RoPE makes it depend only on m - n (a Toeplitz matrix), up to the
    float32 rounding of the angles.

    Returns:
        Array of shape (n, n), float64.

    >>> pc.rope_score_matrix(4, 8).shape
    (4, 4)
    """
    n = as_int("positions", n, minimum=1, maximum=4096)
    d = as_even_dim("head_dim", head_dim)
    check_size(n * n + 2 * n * d, "The score matrix")
    q, k = _gaussian(seed, 2, d)
    inv_freq, _ = rope_inv_freq(d, base)
    positions = np.arange(n)
    q_rot = apply_rope(np.broadcast_to(q, (n, d)).copy(), positions, inv_freq, layout)  # (n, d)
    k_rot = apply_rope(np.broadcast_to(k, (n, d)).copy(), positions, inv_freq, layout)  # (n, d)
    return q_rot @ k_rot.T


@dataclass(frozen=True)
class MeanAbsScores:
    """Mean |q . R_r k| over seeded random vectors at each distance (``rope_mean_abs_scores``).

    random, identical: (len(distances),) float64, the mean score of independent q and k, and of q = k.
    random_at_zero, identical_at_zero: each case's mean score at distance 0 (its natural scale), floats.
    random_bound_factor, identical_bound_factor: the mean over the samples of RoFormer's content factor
    max_j |h_{j+1} - h_j| (h_j = q_j conj(k_j), h_{d/2} = 0), floats.
    """

    random: np.ndarray
    identical: np.ndarray
    random_at_zero: float
    identical_at_zero: float
    random_bound_factor: float
    identical_bound_factor: float


def rope_mean_abs_scores(head_dim: int, distances: ArrayLike, base: float = 10000.0, *, samples: int = 256,
                         seed: int = 0) -> MeanAbsScores:
    """Mean |q . R_r k| over random vectors, at each relative distance r.

    Two cases: q and k independent standard-normal vectors, and q = k (a query meeting its own key).
    Each pair i contributes Re(z_i e^{i r theta_i}) with z_i = q_i conj(k_i) (the pair as a complex
    number), so the score at every distance costs one matrix product.

    Returns:
        A ``MeanAbsScores``: ``random`` and ``identical``, each shape (len(distances),), float64; the mean score
        at distance 0 of each (``<name>_at_zero``); and ``<name>_bound_factor``, the mean over the samples of
        RoFormer's content factor, so that ``<name>_bound_factor * (d/2) * rope_decay_bound(d, r)`` is the mean
        of the per-sample bound, which is never below the mean |q . k| at the same distance.
    """
    d = as_even_dim("head_dim", head_dim)
    samples = as_int("samples", samples, minimum=1, maximum=8192)
    r = np.asarray(distances, dtype=np.float64).reshape(-1)  # (N,)
    if not np.all(np.isfinite(r)):
        raise ValueError("distances must be finite numbers.")
    check_size(r.shape[0] * (samples + d // 2), "The decay curves")
    theta = base_inv_freq(as_base(base), d)  # (d/2,)
    phase = np.multiply.outer(theta, r)  # (d/2, N)
    cos, sin = np.cos(phase), np.sin(phase)
    q, k = _gaussian(seed, 2, samples, d)  # half layout: pair i is (i, i + d/2)
    out = {}
    for name, (a, b) in {"random": (q, k), "identical": (q, q)}.items():
        za = a[:, : d // 2] + 1j * a[:, d // 2:]
        zb = b[:, : d // 2] + 1j * b[:, d // 2:]
        z = za * np.conj(zb)  # (S, d/2)
        scores = z.real @ cos - z.imag @ sin  # Re(z e^{i r theta}), (S, N)
        out[name] = np.abs(scores).mean(axis=0)
        out[f"{name}_at_zero"] = float(np.abs(z.real.sum(axis=1)).mean())
        # Abel summation needs h_{d/2} = 0: the last pair's own size is one of the differences.
        steps = np.abs(np.diff(np.concatenate([z, np.zeros((z.shape[0], 1))], axis=1), axis=1))  # (S, d/2)
        out[f"{name}_bound_factor"] = float(steps.max(axis=1).mean())
    return MeanAbsScores(**out)


@dataclass(frozen=True)
class DecayCurves:
    """RoFormer's bound and the measured mean |q . k| against distance (``rope_decay_curves``).

    Arrays are (N,) float64 over the distances, N at most about 1,200. distance: the relative distances,
    positions. bound, random, identical: the bound, the mean score of random q, k and that of q = k, each
    divided by its value at distance 0 (1.0 means as large as at distance 0). bound_at_zero, random_at_zero,
    identical_at_zero: those values at distance 0, floats. partial_sums_at_zero: sum_j |S_j(0)| = sum_j j.
    identical_score, random_score: the mean |q . k| in the score's own units. identical_bound, random_bound:
    the mean of RoFormer's per-sample bound max_j |h_{j+1} - h_j| * sum_j |S_j| over the same samples, in the
    same units. identical_bound_factor, random_bound_factor: the content factors, floats. identical_slack,
    random_slack: the smallest ratio bound / score over the distances (at least 1), floats. random_low,
    random_high: the smallest and largest mean |q . k| of random q, k over the distances, floats.
    normalised_bound_below: how many distances have the normalised bound below the normalised q = k score, int.
    """

    distance: np.ndarray
    bound: np.ndarray
    random: np.ndarray
    identical: np.ndarray
    bound_at_zero: float
    random_at_zero: float
    identical_at_zero: float
    partial_sums_at_zero: float
    identical_score: np.ndarray
    identical_bound: np.ndarray
    identical_bound_factor: float
    identical_slack: float
    random_score: np.ndarray
    random_bound: np.ndarray
    random_bound_factor: float
    random_slack: float
    random_low: float
    random_high: float
    normalised_bound_below: int


def rope_decay_curves(head_dim: int, max_distance: int, base: float = 10000.0, *, log_distance: bool = False,
                      samples: int = 512, seed: int = 0) -> DecayCurves:
    """RoFormer's bound and the measured mean |q . k| against distance, each divided by its value at distance 0,
    and the same curves in the score's own units, where the bound is a bound (a ``DecayCurves``).

    Args:
        max_distance: largest relative distance shown.
        log_distance: log-spaced integer distances from 1 (for a log axis) instead of an even grid from 0.

    Divided by their own values at distance 0, bound and score no longer compare: the bound is loosest
    at distance 0 (where every partial sum S_j has its largest size, j), so its normalised curve can
    fall below the normalised score although the bound itself never does.
    """
    d = as_even_dim("head_dim", head_dim)
    max_distance = as_int("max distance", max_distance, minimum=2, maximum=MAX_POSITIONS)
    if log_distance:
        distances = np.unique(np.geomspace(1, max_distance, 1200).round())
    else:
        distances = np.arange(0, max_distance + 1, -(-max_distance // 1200), dtype=np.float64)
    bound = rope_decay_bound(d, np.concatenate([[0.0], distances]), base).astype(np.float64)
    scores = rope_mean_abs_scores(d, distances, base, samples=samples, seed=seed)
    partial_sums = bound[1:] * (d // 2)  # sum_j |S_j(r)|, (N,)
    normalised = {"bound": bound[1:] / bound[0], "identical": scores.identical / scores.identical_at_zero}
    out = {"distance": distances, **normalised, "random": scores.random / scores.random_at_zero,
           "bound_at_zero": float(bound[0]), "random_at_zero": scores.random_at_zero,
           "identical_at_zero": scores.identical_at_zero,
           "partial_sums_at_zero": float(bound[0]) * (d // 2)}  # sum_j |S_j(0)| = sum_j j
    for name in ("identical", "random"):
        measured, factor = getattr(scores, name), getattr(scores, f"{name}_bound_factor")
        ceiling = factor * partial_sums  # (N,)
        out[f"{name}_score"], out[f"{name}_bound"], out[f"{name}_bound_factor"] = measured, ceiling, factor
        out[f"{name}_slack"] = float(np.min(ceiling / np.maximum(measured, np.finfo(np.float64).tiny)))
    # distances where the normalised shapes mislead
    return DecayCurves(**out, random_low=float(scores.random.min()), random_high=float(scores.random.max()),
                       normalised_bound_below=int(np.sum(normalised["bound"] < normalised["identical"])))



def rope_decay_bound(head_dim: int, distances: ArrayOrTensor, base: float = 10000.0, *, backend: str | None = None,
                     device: str | None = None) -> ArrayOrTensor:
    """RoFormer's relative upper bound on |q . k| as a function of relative distance r.

    (1 / (d/2)) * sum_{j=1..d/2} |sum_{k<j} exp(i r theta_k)|, with theta_k = base^(-2k/d).

    Returns:
        Array of shape (len(distances),), float32, of the kind ``backend`` names (by default that of ``distances``).
    """
    backend, device = kind_of(backend, device, distances)
    d = as_even_dim("head_dim", head_dim)
    theta = base_inv_freq(as_base(base), d)  # (d/2,)
    r = np.asarray(to_numpy(distances), dtype=np.float64).reshape(-1)  # (n,)
    check_size(r.shape[0] * theta.shape[0], "The decay bound")
    out = np.empty(r.shape[0], dtype=np.float64)
    chunk = max(1, (1 << 20) // theta.shape[0])  # keep the complex work buffer near 16 MiB
    for start in range(0, r.shape[0], chunk):
        phases = np.exp(1j * np.multiply.outer(r[start:start + chunk], theta))  # (c, d/2)
        out[start:start + chunk] = np.abs(np.cumsum(phases, axis=1)).mean(axis=1)
    return to_backend(out.astype(np.float32), backend, device)
