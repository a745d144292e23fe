"""RoPE's layouts: half-split against interleaved pairs, checkpoint conversion, partial rotary's cos table.

The first part of the lesson *RoPE layouts, partial rotary and precision*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind, to_numpy
from .._checks import MAX_DIM, MAX_POSITIONS, as_choice, as_even_dim, as_int, check_size
from .._types import ArrayOrTensor
from .frequencies import rope_inv_freq
from .rotation import ROPE_LAYOUTS, _gaussian, apply_rope, rope_angles

__all__ = [
    "ConversionScores",
    "CosTable",
    "LayoutCheck",
    "half_rows_to_interleaved",
    "half_to_interleaved_permutation",
    "interleaved_rows_to_half",
    "rope_conversion_scores",
    "rope_cos_table",
    "rope_layout_check",
]


@dataclass(frozen=True)
class LayoutCheck:
    """The two layouts as one rotation up to a permutation (``rope_layout_check``); arrays float64 unless said.

    x: (n, d) seeded standard-normal vectors in the half layout. perm: (d,) int, the half-to-interleaved
    permutation. half: (n, d) RoPE_half(x). interleaved: (n, d) RoPE_interleaved(x[:, perm]). permuted_half:
    (n, d) RoPE_half(x)[:, perm]. with_perm: the largest |permuted_half - interleaved|, float (rounding only).
    without_perm: the largest |RoPE_half(x) - RoPE_interleaved(x)|, float (the layouts on the same, unpermuted
    vector: large).
    """

    x: np.ndarray
    perm: np.ndarray
    half: np.ndarray
    interleaved: np.ndarray
    permuted_half: np.ndarray
    with_perm: float
    without_perm: float


def rope_layout_check(n: int, head_dim: int, base: float = 10000.0, seed: int = 0) -> LayoutCheck:
    """Numerical proof that the two layouts are one rotation up to the fixed permutation, as a ``LayoutCheck``."""
    n = as_int("positions", n, minimum=1, maximum=4096)
    d = as_even_dim("head_dim", head_dim)
    check_size(4 * n * d, "The layout check")
    x = _gaussian(seed, n, d)
    inv_freq, _ = rope_inv_freq(d, base)
    positions = np.arange(n)
    perm = half_to_interleaved_permutation(d)
    half = apply_rope(x, positions, inv_freq, "half")
    inter = apply_rope(x[:, perm], positions, inv_freq, "interleaved")
    return LayoutCheck(x=x, perm=perm, half=half, interleaved=inter, permuted_half=half[:, perm],
                       with_perm=float(np.abs(half[:, perm] - inter).max()),
                       without_perm=float(np.abs(half - apply_rope(x, positions, inv_freq, "interleaved")).max()))


def _rows_per_head(weight, n_heads):
    w = np.asarray(to_numpy(weight))
    if w.ndim != 2:
        raise ValueError(f"A projection weight must be 2D (out_features x in_features), but has shape {w.shape}.")
    n_heads = as_int("n_heads", n_heads, minimum=1, maximum=4096)
    if w.shape[0] % n_heads or (w.shape[0] // n_heads) % 2:
        raise ValueError(f"The weight has {w.shape[0]} rows, which do not split into {n_heads} heads of an even "
                         "head_dim.")
    return w.reshape(n_heads, w.shape[0] // n_heads, w.shape[1])  # (heads, head_dim, in)


@keeps_kind
def interleaved_rows_to_half(weight: ArrayLike, n_heads: int) -> ArrayOrTensor:
    """Reorder the rows of W_q or W_k from interleaved pairs to the half layout, head by head.

    This is what converting Meta's Llama checkpoints for transformers does: in every head, row 2i
    goes to i and row 2i+1 goes to i + head_dim/2. Shape (n_heads * head_dim, in) in and out.
    """
    w = _rows_per_head(weight, n_heads)
    inverse = np.argsort(half_to_interleaved_permutation(w.shape[1]))
    return w[:, inverse, :].reshape(-1, w.shape[2])


@keeps_kind
def half_rows_to_interleaved(weight: ArrayLike, n_heads: int) -> ArrayOrTensor:
    """The inverse of ``interleaved_rows_to_half``: row i goes to 2i and row i + head_dim/2 to 2i+1."""
    w = _rows_per_head(weight, n_heads)
    return w[:, half_to_interleaved_permutation(w.shape[1]), :].reshape(-1, w.shape[2])


@dataclass(frozen=True)
class ConversionScores:
    """One head's scores across a layout conversion (``rope_conversion_scores``); grids (n, n) float64.

    half: the original model's scores (half layout). converted: the rows of W_q and W_k permuted, interleaved
    rotation. naive: the same weights, interleaved rotation. converted_error, naive_error: the largest
    |converted - half| and |naive - half|, floats.
    """

    half: np.ndarray
    converted: np.ndarray
    naive: np.ndarray
    converted_error: float
    naive_error: float


def rope_conversion_scores(n: int, head_dim: int, base: float = 10000.0, *, d_model: int | None = None,
                           seed: int = 0) -> ConversionScores:
    """Attention scores of one head in half layout, and after converting it to interleaved.

    A model trained with the half layout has weights W_q, W_k (head_dim x d_model). Run with the
    interleaved layout, it gives the same scores only if the rows of W_q and W_k are permuted.

    Returns:
        A ``ConversionScores``: ``half``, ``converted``, ``naive`` and their largest differences from ``half``.
    """
    n = as_int("positions", n, minimum=1, maximum=4096)
    d = as_even_dim("head_dim", head_dim)
    d_model = 2 * d if d_model is None else as_int("d_model", d_model, minimum=1, maximum=MAX_DIM)
    check_size(3 * n * n + 2 * d * d_model + n * d_model, "The conversion check")
    rng_x, rng_q, rng_k = (_gaussian(seed + j, *shape) for j, shape in
                           enumerate([(n, d_model), (d, d_model), (d, d_model)]))
    x, w_q, w_k = rng_x, rng_q / math.sqrt(d_model), rng_k / math.sqrt(d_model)
    inv_freq, _ = rope_inv_freq(d, base)
    positions = np.arange(n)

    def scores(q_in, k_in, layout):  # the projected queries and keys, (n, d) each
        q = apply_rope(q_in, positions, inv_freq, layout)  # (n, d)
        k = apply_rope(k_in, positions, inv_freq, layout)  # (n, d)
        return q @ k.T

    q_in, k_in = x @ w_q.T, x @ w_k.T  # (n, d) each: the half and the naive runs project with the same weights
    half = scores(q_in, k_in, "half")
    converted = scores(x @ half_rows_to_interleaved(w_q, 1).T, x @ half_rows_to_interleaved(w_k, 1).T, "interleaved")
    naive = scores(q_in, k_in, "interleaved")
    return ConversionScores(half=half, converted=converted, naive=naive,
                            converted_error=float(np.abs(converted - half).max()),
                            naive_error=float(np.abs(naive - half).max()))


@dataclass(frozen=True)
class CosTable:
    """The cos coefficient of every dimension of a head (``rope_cos_table``).

    cos: (n, head_dim) float32, 1 on the pass-through dimensions. pair: (head_dim,) int, the pair index of each
    dimension, -1 for pass-through. rotary_dim: how many dimensions rotate, int.
    """

    cos: np.ndarray
    pair: np.ndarray
    rotary_dim: int


def rope_cos_table(n: int, head_dim: int, base: float = 10000.0, *, partial_rotary_factor: float = 1.0,
                   layout: str = "half") -> CosTable:
    """The cos coefficient each dimension of a head gets at each position, pass-through dimensions included.

    With partial rotary (GPT-NeoX's rotary_pct), only the first rotary_dim = int(head_dim * factor)
    dimensions rotate; the rest keep cos = 1, sin = 0 (they are copied through unchanged).

    Returns:
        A ``CosTable``: ``cos`` (n, head_dim) float32, ``pair`` (head_dim,) and ``rotary_dim``.
    """
    n = as_int("positions", n, minimum=1, maximum=MAX_POSITIONS)
    d = as_even_dim("head_dim", head_dim)
    layout = as_choice("layout", layout, ROPE_LAYOUTS)
    check_size(n * d, "The cos table")
    inv_freq, _ = rope_inv_freq(d, base, partial_rotary_factor=partial_rotary_factor)
    r = 2 * inv_freq.shape[0]
    cos_pairs = np.cos(rope_angles(np.arange(n), inv_freq))  # (n, r/2)
    pair_of_dim = np.full(d, -1)
    pair_of_dim[:r] = np.tile(np.arange(r // 2), 2) if layout == "half" else np.repeat(np.arange(r // 2), 2)
    # Block copies, not a gather by pair_of_dim: the same values at a fifth of the time on a (513, 512) table
    table = np.empty((n, d), dtype=np.float32)
    if layout == "half":  # [c_0 .. c_{r/2-1}, c_0 .. c_{r/2-1}]
        table[:, : r // 2] = cos_pairs
        table[:, r // 2 : r] = cos_pairs
    else:  # [c_0, c_0, c_1, c_1, ...]
        table[:, :r].reshape(n, r // 2, 2)[:] = cos_pairs[:, :, None]  # (n, r/2, 2) view of the table
    table[:, r:] = 1.0  # pass-through dimensions
    return CosTable(cos=table, pair=pair_of_dim, rotary_dim=r)



def half_to_interleaved_permutation(rotary_dim: int) -> np.ndarray:
    """perm with x_interleaved = x_half[..., perm]: half-layout index i -> 2i, i + r/2 -> 2i + 1.

    This is the fixed permutation a checkpoint needs on its W_q / W_k rows when converted
    between the two layouts.
    """
    r = as_even_dim("rotary_dim", rotary_dim)
    return np.stack([np.arange(r // 2), np.arange(r // 2) + r // 2], axis=-1).reshape(-1)
