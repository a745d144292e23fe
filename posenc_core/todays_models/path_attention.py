"""PaTH attention (Yang, Shen, Wen, Tan, Mishra, Ren, Panda, Kim 2025, arXiv:2505.16381, section 3).

Every token t brings a Householder-like transform H_t = I - beta_t w_t w_t^T, with w_t a unit vector and
beta_t = 2 sigmoid(u . x_t) in (0, 2), both read from the token. Query i sees key j through the product of the
transforms of the tokens after j, up to and including i:

    s_ij = q_i^T H_i H_{i-1} ... H_{j+1} k_j        (s_ii = q_i . k_i)

flash-linear-attention's decoding step does exactly this: each new token applies its H to every cached key.
RoPE is the special case of one fixed transform for every token, the rotation R^T by -theta per pair:
s_ij = q_i^T (R^T)^(i-j) k_j = (R^i q_i) . (R^j k_j), which depends on i - j only. A rotation in one plane is
itself two reflections (beta = 2): R(theta) = H(w2) H(w1) with w1 at angle 0 and w2 at theta/2.
numpy; O(L^2 d) with one rank-one update per step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind
from .._checks import as_base, as_even_dim, as_float, check_size
from .._types import ArrayOrTensor
from ._toy_inputs import toy_weight, toy_words

__all__ = ["PathReflections", "PathSentence", "path_householder", "path_rope_transform", "path_scores",
           "path_sentence", "path_transform_scores", "path_two_reflections"]


@dataclass(frozen=True)
class PathReflections:
    """A 2-D rotation written as two Householder reflections (``path_two_reflections``).

    w1, w2: (2,) the unit directions of the two reflections.
    rotation: (2, 2) their product H(w2) H(w1), beta = 2.
    target: (2, 2) R(theta), the rotation it equals.
    """

    w1: np.ndarray
    w2: np.ndarray
    rotation: np.ndarray
    target: np.ndarray


@dataclass(frozen=True)
class PathSentence:
    """PaTH's and RoPE's scores for a sentence probed with one fixed q and k (``path_sentence``).

    tokens: the sentence's words, L of them.
    rope: (L, L) RoPE's scores, -inf above the diagonal.
    path: (L, L) PaTH's scores, -inf above the diagonal.
    beta: (L,) each word's beta_t, in (0, 2).
    w: (L, d) each word's Householder direction w_t (before normalising).
    offsets: (L,) 0..L-1, the offsets i - j.
    spread: {"rope", "path", "fixed"}: (L,) the range (max - min) of the scores at each offset over every pair
        ("fixed" for ``wordless``).
    wordless: (L, L) PaTH's scores when every word has word 0's w and beta (one data-independent transform).
    largest_spread: {"rope", "path", "fixed"}: the largest of each spread.
    widest_offset: the offset of PaTH's largest spread.
    beta_range: (min, max) of beta.
    """

    tokens: list[str]
    rope: np.ndarray
    path: np.ndarray
    beta: np.ndarray
    w: np.ndarray
    offsets: np.ndarray
    spread: dict[str, np.ndarray]
    wordless: np.ndarray
    largest_spread: dict[str, float]
    widest_offset: int
    beta_range: tuple[float, float]


@keeps_kind
def path_householder(w: ArrayLike, beta: ArrayLike) -> ArrayOrTensor:
    """H = I - beta w w^T for each row of ``w`` (normalised to unit length first), shape (..., d, d)."""
    w = np.asarray(w, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    norm = np.linalg.norm(w, axis=-1, keepdims=True)
    if np.any(norm == 0):
        raise ValueError("Every Householder direction w must be a nonzero vector.")
    unit = w / norm
    eye = np.eye(unit.shape[-1])
    return eye - beta[..., None, None] * unit[..., :, None] * unit[..., None, :]


def _check_qk(q, k) -> tuple[np.ndarray, np.ndarray]:
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    if q.ndim != 2 or q.shape != k.shape:
        raise ValueError(f"q and k must both be (L, d) with the same shape, but got {q.shape} and {k.shape}.")
    check_size(q.shape[0] ** 2 * q.shape[1], "The PaTH score computation")
    return q, k


@keeps_kind
def path_scores(q: ArrayOrTensor, k: ArrayOrTensor, w: ArrayLike, beta: ArrayLike) -> ArrayOrTensor:
    """PaTH's scores s_ij = q_i^T H_i ... H_{j+1} k_j with H_t = I - beta_t w_t w_t^T (w_t normalised).

    Args:
        q, k: (L, d) queries and keys; w: (L, d) directions; beta: (L,) strengths (2 is a true reflection).

    Returns:
        (L, L) float64 scores (no 1/sqrt(d) scale), -inf above the diagonal.
    """
    q, k = _check_qk(q, k)
    w, beta = np.asarray(w, dtype=np.float64), np.asarray(beta, dtype=np.float64)
    if w.shape != q.shape or beta.shape != (q.shape[0],):
        raise ValueError(f"w must be (L, d) = {q.shape} and beta (L,), but got {w.shape} and {beta.shape}.")
    unit = w / np.linalg.norm(w, axis=-1, keepdims=True)
    length = q.shape[0]
    scores = np.full((length, length), -np.inf)  # (L, L)
    # Every query i >= j takes its step j at once, one loop over keys instead of L^2 / 2 Python steps. A
    # stacked (1, d) @ (d,) is one dot per row, the same dot as the per-row v @ k[j], so the bits do not
    # change; a (n, d) @ (d,) would be one gemv, whose sums run in another order.
    v = q.copy()  # (L, d) row i: q_i^T H_i ... H_{j+1}, as a column (each H is symmetric)
    for j in range(length - 1, -1, -1):
        scores[j:, j] = (v[j:, None, :] @ k[j])[:, 0]  # (L - j,)
        v[j:] -= beta[j] * (unit[j] @ v[j:, :, None]) * unit[j]  # (L - j, d) one more transform, H_j
    return scores


@keeps_kind
def path_transform_scores(q: ArrayOrTensor, k: ArrayOrTensor, transforms: ArrayLike) -> ArrayOrTensor:
    """s_ij = q_i^T M_i M_{i-1} ... M_{j+1} k_j for any per-token matrices ``transforms`` (L, d, d).

    The general form behind ``path_scores`` (M_t = H_t) and RoPE (M_t = R^T for every t). (L, L), -inf above.
    """
    q, k = _check_qk(q, k)
    m = np.asarray(transforms, dtype=np.float64)
    if m.shape != (q.shape[0], q.shape[1], q.shape[1]):
        raise ValueError(f"transforms must be (L, d, d) = {(q.shape[0], q.shape[1], q.shape[1])}, got {m.shape}.")
    length = q.shape[0]
    scores = np.full((length, length), -np.inf)  # (L, L)
    # As in path_scores, one step j for every query i >= j at once; a stacked (1, d) @ (d, d) is the same gemv
    # per row as the per-row row @ m[j] (a (n, d) @ (d, d) would be one gemm, summed in another order).
    row = q.copy()  # (L, d) row i: the row vector q_i^T M_i ... M_{j+1}
    for j in range(length - 1, -1, -1):
        scores[j:, j] = (row[j:, None, :] @ k[j])[:, 0]  # (L - j,)
        row[j:] = (row[j:, None, :] @ m[j])[:, 0]  # (L - j, d)
    return scores


def path_rope_transform(dim: int, base: float = 10000.0) -> np.ndarray:
    """RoPE's step as one fixed transform, (d, d): R^T, the rotation by -theta_p of each half-split pair p.

    With it for every token, ``path_transform_scores`` equals (R^i q_i) . (R^j k_j) of ``apply_rope``.
    """
    dim = as_even_dim("dim", dim)
    # (d/2,) base^(-2p/d) in float64: rope_inv_freq(dim, base, ideal=True) without its torch import, which
    # would cost a cold page seconds
    theta = as_base(base) ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)
    half = dim // 2
    rot = np.eye(dim)
    p = np.arange(half)
    c, s = np.cos(theta), np.sin(theta)
    rot[p, p], rot[p + half, p + half] = c, c
    rot[p, p + half], rot[p + half, p] = s, -s  # R^T: x' = x c + y s, y' = -x s + y c
    return rot


def path_two_reflections(theta: float) -> PathReflections:
    """A 2-D rotation by ``theta`` written as two Householder reflections: R(theta) = H(w2) H(w1), beta = 2.

    Returns a ``PathReflections``.
    """
    theta = as_float("theta", theta, minimum=-10.0, maximum=10.0)
    w1, w2 = np.array([1.0, 0.0]), np.array([np.cos(theta / 2), np.sin(theta / 2)])
    product = path_householder(w2, 2.0) @ path_householder(w1, 2.0)
    c, s = np.cos(theta), np.sin(theta)
    return PathReflections(w1=w1, w2=w2, rotation=product, target=np.array([[c, -s], [s, c]]))


def path_sentence(text: str, dim: int = 8, seed: int = 0, base: float = 10000.0,
                  sharpness: float = 1.0) -> PathSentence:
    """PaTH's and RoPE's scores for a sentence, probed with one fixed q and k so that only position shows.

    Every word gets the same query q and key k (seeded toy vectors), so any difference between two cells is
    made by the transforms between them. PaTH's w_t = W x_t and beta_t = 2 sigmoid(sharpness * u . x_t) come
    from seeded toy weights (not a trained model) and each word's seeded embedding x_t.

    Returns a ``PathSentence``.
    """
    sharpness = as_float("sharpness", sharpness, minimum=0.0, maximum=10.0)
    tokens, x = toy_words(text, dim)  # (L, d)
    length, d = x.shape
    q = np.tile(toy_weight("path-probe-q", seed, d) * np.sqrt(d), (length, 1))  # (L, d), the same every word
    k = np.tile(toy_weight("path-probe-k", seed, d) * np.sqrt(d), (length, 1))
    w = x @ toy_weight("path-w", seed, d, d)  # (L, d)
    beta = 2.0 / (1.0 + np.exp(-sharpness * (x @ toy_weight("path-beta", seed, d))))  # (L,) in (0, 2)
    rope = path_transform_scores(q, k, np.broadcast_to(path_rope_transform(d, base), (length, d, d)))
    path = path_scores(q, k, w, beta)
    wordless = path_scores(q, k, np.tile(w[:1], (length, 1)), np.full(length, beta[0]))

    # (L, L) row t: grid[i + t, i] over i, the entries at offset t, padded past the edge with -inf (max), inf (min)
    rows = np.arange(length)[:, None] + np.arange(length)  # (L, L)
    inside = rows < length

    def spread(grid):
        entries = grid[np.minimum(rows, length - 1), np.arange(length)]  # (L, L)
        high = np.where(inside, entries, -np.inf).max(axis=1)  # (L,) per offset
        return high - np.where(inside, entries, np.inf).min(axis=1)  # (L,) np.ptp of each diagonal

    spreads = {"rope": spread(rope), "path": spread(path), "fixed": spread(wordless)}  # (L,) each
    return PathSentence(tokens=tokens, rope=rope, path=path, beta=beta, w=w, offsets=np.arange(length),
                        spread=spreads, wordless=wordless,
                        largest_spread={k: float(v.max()) for k, v in spreads.items()},
                        widest_offset=int(np.argmax(spreads["path"])),
                        beta_range=(float(beta.min()), float(beta.max())))
