"""RoPE porting bugs that shipped: each as a pair of computations with one signature, the correct one and the
buggy one, so that one check can be run against both (the lesson *Porting bugs*).

``PORTING_BUGS`` maps each bug's key to its ``BugPair``. The keys are permanent (URL values):

- ``permute``: a Meta (interleaved) checkpoint converted for transformers' half-split ``rotate_half``: the rows of
  W_q and W_k must be permuted head by head (``interleaved_rows_to_half``); the bug copies them as they are.
- ``p_rope``: p-RoPE / proportional RoPE (Gemma 4's global layers): inv_freq zero-padded to head_dim/2, pairs
  (i, i + head_dim/2) across the whole head; the bug rotates a contiguous block, pairs (i, i + k) in the first 2k.
- ``bf16_inv_freq``: inverse frequencies held in float32; the bug rounds them to bfloat16 (a model cast whole).
- ``left_pad``: the first token decoded after a left-padded prompt of L real tokens sits at position L; the bug
  places it at L + 1.
- ``partial_whole``: partial rotary (GPT-NeoX's rotary_pct): only the first rotary_dim dimensions turn; the bug
  turns the whole head with frequencies over head_dim.
- ``yarn_mscale``: YaRN's attention factor 0.1 ln s + 1 on cos and sin; the bug (a conversion that did not write
  it) uses 1.
- ``dynamic_cache``: dynamic NTK frequencies follow the current sequence length; the bug keeps the frequencies of
  the longest sequence seen (a cos/sin cache built past the switch point and reused for a shorter sequence).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._backend import to_numpy
from .._checks import as_base, as_even_dim, as_float, as_int
from .._types import ArrayOrTensor
from ..rope.frequencies import rope_inv_freq
from ..rope.layouts import interleaved_rows_to_half
from ..rope.precision import round_to_dtype
from ..rope.rotation import apply_rope

__all__ = [
    "PORTING_BUGS",
    "BugPair",
    "convert_meta_qk",
    "convert_meta_qk_unpermuted",
    "dynamic_inv_freq",
    "dynamic_inv_freq_cached",
    "left_pad_positions",
    "model_inv_freq",
    "model_inv_freq_bf16",
    "next_position",
    "next_position_off_by_one",
    "p_rope_block",
    "p_rope_half_split",
    "partial_rope",
    "partial_rope_whole_head",
    "yarn_attention_factor",
    "yarn_attention_factor_dropped",
]


class BugPair(NamedTuple):
    """One porting bug: ``correct`` and ``buggy`` take the same arguments and return the same kind of value."""

    correct: Callable[..., Any]
    buggy: Callable[..., Any]


def convert_meta_qk(weight: ArrayLike, n_heads: int) -> np.ndarray:
    """W_q or W_k of a Meta checkpoint (interleaved pairs) made ready for ``rotate_half``: rows permuted per head,
    as transformers' ``convert_llama_weights_to_hf.py`` does. Shape (n_heads * head_dim, in) in and out."""
    return np.asarray(interleaved_rows_to_half(np.asarray(weight, dtype=np.float64), n_heads))


def convert_meta_qk_unpermuted(weight: ArrayLike, n_heads: int) -> np.ndarray:
    """The bug: the rows copied as they are (``n_heads`` checked, then unused)."""
    w = np.asarray(weight, dtype=np.float64)
    interleaved_rows_to_half(w, n_heads)  # the same refusals as the correct conversion
    return w.copy()


def _p_rope_args(x: ArrayOrTensor, inv_freq: ArrayLike) -> tuple[np.ndarray, int]:
    f = np.asarray(to_numpy(inv_freq), dtype=np.float32).reshape(-1)  # (head_dim/2,), zeros after the first k
    if len(x.shape) < 2 or 2 * f.shape[0] != x.shape[-1]:
        raise ValueError(f"p-RoPE's inv_freq has one entry per pair of the whole head ({x.shape[-1] // 2} for "
                         f"head_dim {x.shape[-1]}), but got {f.shape[0]}.")
    turning = int(np.count_nonzero(f))
    if not np.all(f[:turning] > 0) or np.any(f[turning:]):
        raise ValueError("p-RoPE's inv_freq must hold its nonzero frequencies first, then zeros.")
    return f, turning


def p_rope_half_split(x: ArrayOrTensor, positions: ArrayLike, inv_freq: ArrayLike) -> ArrayOrTensor:
    """p-RoPE as transformers' proportional rope runs it: ``inv_freq`` (head_dim/2,) with zeros for the pairs that
    never turn, pairs (i, i + head_dim/2) across the whole head. x (..., n, head_dim) array or tensor (kept),
    positions (n,)."""
    f, _ = _p_rope_args(x, inv_freq)
    return apply_rope(x, positions, f, "half")


def p_rope_block(x: ArrayOrTensor, positions: ArrayLike, inv_freq: ArrayLike) -> ArrayOrTensor:
    """The bug: the k turning frequencies rotate a contiguous block of 2k dimensions, pairs (i, i + k); the rest
    of the head passes through."""
    f, turning = _p_rope_args(x, inv_freq)
    return apply_rope(x, positions, f[:turning], "half")


def model_inv_freq(head_dim: int, base: float) -> np.ndarray:
    """The (head_dim/2,) float32 inverse frequencies a Llama-style rotary module holds (kept in float32)."""
    return rope_inv_freq(head_dim, base)[0]


def model_inv_freq_bf16(head_dim: int, base: float) -> np.ndarray:
    """The bug: the same buffer rounded to bfloat16 (a model cast whole with ``.to(torch.bfloat16)``), as float32."""
    return round_to_dtype(model_inv_freq(head_dim, base), "bfloat16").astype(np.float32)


def left_pad_positions(mask: ArrayLike) -> np.ndarray:
    """Positions of a left-padded batch: (batch, L) mask of 0 (pad) and 1 (token) -> cumsum - 1, pads at 0."""
    m = np.asarray(mask)
    if m.ndim != 2 or not np.isin(m, (0, 1)).all():
        raise ValueError("The attention mask must be a (batch, length) array of 0 (padding) and 1 (token).")
    return np.maximum(np.cumsum(m, axis=-1) - 1, 0)


def next_position(mask: ArrayLike, step: int) -> np.ndarray:
    """(batch,) position of the token decoded at ``step`` (0 = the first new token) after a left-padded prompt."""
    step = as_int("step", step, minimum=0)
    return left_pad_positions(mask).max(axis=-1) + 1 + step


def next_position_off_by_one(mask: ArrayLike, step: int) -> np.ndarray:
    """The bug: one position too far (the prompt's length plus step plus one)."""
    step = as_int("step", step, minimum=0)
    return left_pad_positions(mask).max(axis=-1) + 2 + step


def _partial_args(x: ArrayOrTensor, base: float, partial_rotary_factor: float) -> tuple[int, float, float]:
    if len(x.shape) < 2:
        raise ValueError("x must have a positions axis and a head_dim axis.")
    head_dim = as_even_dim("head_dim", int(x.shape[-1]))
    return head_dim, as_base(base), as_float("partial_rotary_factor", partial_rotary_factor, above=0.0, maximum=1.0)


def partial_rope(x: ArrayOrTensor, positions: ArrayLike, base: float, partial_rotary_factor: float) -> ArrayOrTensor:
    """Partial rotary: the first rotary_dim = head_dim x factor dimensions turn (pairs (i, i + rotary_dim/2),
    frequencies base^(-2i/rotary_dim)); the rest pass through. x (..., n, head_dim) array or tensor (kept),
    positions (n,)."""
    head_dim, base, factor = _partial_args(x, base, partial_rotary_factor)
    inv_freq, _ = rope_inv_freq(head_dim, base, partial_rotary_factor=factor)  # (rotary_dim/2,)
    return apply_rope(x, positions, inv_freq, "half")


def partial_rope_whole_head(x: ArrayOrTensor, positions: ArrayLike, base: float,
                            partial_rotary_factor: float) -> ArrayOrTensor:
    """The bug: the factor is dropped, every dimension turns, frequencies base^(-2i/head_dim)."""
    head_dim, base, _ = _partial_args(x, base, partial_rotary_factor)
    inv_freq, _ = rope_inv_freq(head_dim, base)  # (head_dim/2,)
    return apply_rope(x, positions, inv_freq, "half")


def _yarn_params(rope_parameters: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(rope_parameters, Mapping) or rope_parameters.get("rope_type") != "yarn":
        raise ValueError("The rope parameters must be a YaRN dict (rope_type 'yarn').")
    return dict(rope_parameters)


def yarn_attention_factor(rope_parameters: Mapping[str, Any], head_dim: int = 64) -> float:
    """The factor YaRN multiplies cos and sin by, as transformers computes it (0.1 ln s + 1 by default)."""
    params = _yarn_params(rope_parameters)
    return rope_inv_freq(head_dim, float(params.get("rope_theta", 10000.0)), params)[1]


def yarn_attention_factor_dropped(rope_parameters: Mapping[str, Any], head_dim: int = 64) -> float:
    """The bug: a conversion that writes only an explicit ``attention_factor`` key, so the default mscale
    becomes 1."""
    params = _yarn_params(rope_parameters)
    as_even_dim("head_dim", head_dim)
    return as_float("attention_factor", params.get("attention_factor", 1.0), above=0.0)


def dynamic_inv_freq(seq_len: int, cached_len: int, head_dim: int, base: float, factor: float,
                     original: int) -> np.ndarray:
    """Dynamic NTK's (head_dim/2,) float32 frequencies for a sequence of ``seq_len`` tokens: the trained ones up to
    ``original``, a larger base past it (transformers' ``dynamic`` type). ``cached_len`` (the longest sequence the
    module saw before) does not matter."""
    as_int("cached length", cached_len, minimum=0)
    seq_len = as_int("sequence length", seq_len, minimum=1)
    params = {"rope_type": "dynamic", "factor": as_float("factor", factor, minimum=1.0)}
    return rope_inv_freq(head_dim, base, params, seq_len=seq_len,
                         max_position_embeddings=as_int("original context", original, minimum=1))[0]


def dynamic_inv_freq_cached(seq_len: int, cached_len: int, head_dim: int, base: float, factor: float,
                            original: int) -> np.ndarray:
    """The bug: the frequencies of the longest sequence seen, max(seq_len, cached_len), reused."""
    seq_len = as_int("sequence length", seq_len, minimum=1)
    longest = max(seq_len, as_int("cached length", cached_len, minimum=0))
    return dynamic_inv_freq(longest, 0, head_dim, base, factor, original)


PORTING_BUGS: dict[str, BugPair] = {
    "permute": BugPair(convert_meta_qk, convert_meta_qk_unpermuted),
    "p_rope": BugPair(p_rope_half_split, p_rope_block),
    "bf16_inv_freq": BugPair(model_inv_freq, model_inv_freq_bf16),
    "left_pad": BugPair(next_position, next_position_off_by_one),
    "partial_whole": BugPair(partial_rope, partial_rope_whole_head),
    "yarn_mscale": BugPair(yarn_attention_factor, yarn_attention_factor_dropped),
    "dynamic_cache": BugPair(dynamic_inv_freq, dynamic_inv_freq_cached),
}
