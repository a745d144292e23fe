"""FoPE, the Fourier position embedding of Intern-S1-Pro, as vLLM serves it.

vLLM's ``FourierRotaryEmbedding`` (``vllm/model_executor/layers/rotary_embedding/fope.py``) keeps RoPE's
float32 base frequencies above ``2π / max_position_embeddings`` (or the first ``num_inv_freq`` of them),
and builds each output pair's cos and sin as a learned mix of the kept frequencies' cos and sin
(``_compute_cos_sin_cache``: one (D, D) ``cos_coef`` and ``sin_coef`` per KV head). The clipped pairs get a
constant pad (cos = 1, sin = 1 in vLLM and in XTuner, the training code): zero frequency, the same turn at
every position. The rotation is the neox half split, ``x * cos + rotate_neox(x) * sin``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import require_torch
from .._checks import MAX_DIM, MAX_HEADS, MAX_POSITIONS, as_even_dim, as_float, as_int, check_size
from .precision import rope_inv_freq_float32_pow

__all__ = [
    "FOPE_SIN_PADS",
    "FopeCoefficients",
    "FopeFrequencies",
    "FopeScores",
    "fope_cos_sin",
    "fope_demo_coefficients",
    "fope_distance_scores",
    "fope_inv_freq",
    "fope_mix_by_pair",
    "fope_rotate",
]

FOPE_SIN_PADS = (1.0, 0.0)  # vLLM's and XTuner's pad, and the zero-phase pad an open vLLM pull request proposes


@dataclass(frozen=True)
class FopeFrequencies:
    """The base frequencies FoPE keeps (``fope_inv_freq``).

    all_inv_freq: (rotary_dim / 2,) float32, RoPE's θ_i = 1 / base ** (2i / rotary_dim) in vLLM's float32 ops.
    inv_freq: (n_kept,) float32, the kept ones: the fastest, a prefix of ``all_inv_freq``.
    threshold: float, 2π / max_position_embeddings, the bound a frequency must exceed (compared in float32);
    None when ``num_inv_freq`` fixes the count. n_kept, n_clipped: ints, kept and clipped pairs.
    """

    all_inv_freq: np.ndarray
    inv_freq: np.ndarray
    threshold: float | None
    n_kept: int
    n_clipped: int


def fope_inv_freq(rotary_dim: int, base: float, max_position_embeddings: int,
                  num_inv_freq: int | None = None) -> FopeFrequencies:
    """Which RoPE frequencies FoPE keeps, as ``FourierRotaryEmbedding._compute_inv_freq``.

    Args:
        rotary_dim: rotated dimensions of a head (even).
        base: rope_theta.
        max_position_embeddings: the trained length L; without ``num_inv_freq`` the kept θ are those > 2π / L.
        num_inv_freq: keep exactly the first this many instead (the config's ``num_inv_freq``).

    Returns:
        A ``FopeFrequencies``.

    >>> pc.rope.fope_inv_freq(128, 5e6, 262144).n_kept
    45
    """
    r = as_even_dim("rotary_dim", rotary_dim)
    length = as_int("max_position_embeddings", max_position_embeddings, minimum=1, maximum=MAX_POSITIONS)
    all_inv = rope_inv_freq_float32_pow(r, base)  # (r/2,) float32, vLLM's expression
    if num_inv_freq is not None:
        count = as_int("num_inv_freq", num_inv_freq, minimum=1, maximum=r // 2)
        return FopeFrequencies(all_inv, all_inv[:count].copy(), None, count, r // 2 - count)
    threshold = 2.0 * math.pi / length
    torch = require_torch("FoPE's frequency filter")
    keep = (torch.from_numpy(all_inv) > threshold).numpy()  # torch compares a float32 tensor in float32
    if not keep.any():
        raise ValueError(f"No frequency exceeds 2π / max_position_embeddings = {threshold:.3g} with rotary_dim {r} "
                         f"and base {base:g}: FoPE would keep nothing. Use a shorter length or a smaller base.")
    kept = all_inv[keep]
    return FopeFrequencies(all_inv, kept, threshold, kept.size, r // 2 - kept.size)


@dataclass(frozen=True)
class FopeCoefficients:
    """A deterministic demo set of FoPE coefficients, not a checkpoint's (``fope_demo_coefficients``).

    cos_coef, sin_coef: (n_kv_heads, D, D) float32, identity plus Gaussian noise. std: float, the noise's standard
    deviation, XTuner's ``xavier_normal_(gain=fope_init_factor)`` for that shape.
    """

    cos_coef: np.ndarray
    sin_coef: np.ndarray
    std: float


def fope_demo_coefficients(n_kv_heads: int, n_freq: int, init_factor: float = 0.5, seed: int = 0) -> FopeCoefficients:
    """Seeded coefficients at the scale FoPE is trained from: identity + N(0, std²), std of xavier_normal.

    vLLM allocates the coefficients empty and loads them from the checkpoint; XTuner, which trained Intern-S1-Pro,
    initialises each (n_kv_heads, D, D) tensor with ``xavier_normal_(gain=fope_init_factor)`` and adds the identity.
    For a 3-D tensor torch's fans are fan_in = D·D and fan_out = n_kv_heads·D, so
    std = gain · sqrt(2 / (D·D + n_kv_heads·D)). The draws here are numpy's, not torch's.

    Args:
        n_kv_heads: KV heads (one mix each).
        n_freq: D, the kept frequencies (``fope_inv_freq(...).n_kept``).
        init_factor: fope_init_factor, the gain.
        seed: the numpy generator's seed.

    Returns:
        A ``FopeCoefficients``.
    """
    heads = as_int("n_kv_heads", n_kv_heads, minimum=1, maximum=MAX_HEADS)
    d = as_int("n_freq", n_freq, minimum=1, maximum=MAX_DIM // 2)
    gain = as_float("fope_init_factor", init_factor, minimum=0.0, maximum=10.0)
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    check_size(2 * heads * d * d, "The FoPE coefficients")
    std = gain * math.sqrt(2.0 / (d * d + heads * d))
    rng = np.random.default_rng(seed)
    eye = np.eye(d, dtype=np.float32)[None]  # (1, D, D)
    cos_coef = (rng.standard_normal((heads, d, d)) * std).astype(np.float32) + eye  # (h, D, D)
    sin_coef = (rng.standard_normal((heads, d, d)) * std).astype(np.float32) + eye
    return FopeCoefficients(cos_coef, sin_coef, std)


def _coefficients(cos_coef: ArrayLike, sin_coef: ArrayLike, n_freq: int) -> tuple[np.ndarray, np.ndarray]:
    cos_c = np.asarray(cos_coef, dtype=np.float32)
    sin_c = np.asarray(sin_coef, dtype=np.float32)
    for name, c in (("cos_coef", cos_c), ("sin_coef", sin_c)):
        if c.ndim != 3 or c.shape[1:] != (n_freq, n_freq):
            raise ValueError(f"{name} must have shape (n_kv_heads, {n_freq}, {n_freq}): one ({n_freq} x {n_freq}) "
                             f"mix of the kept frequencies per KV head; got {c.shape}.")
        if not np.isfinite(c).all():
            raise ValueError(f"{name} must hold finite numbers.")
    if cos_c.shape != sin_c.shape:
        raise ValueError(f"cos_coef and sin_coef must have the same shape; got {cos_c.shape} and {sin_c.shape}.")
    as_int("n_kv_heads", cos_c.shape[0], minimum=1, maximum=MAX_HEADS)
    return cos_c, sin_c


def fope_mix_by_pair(coef: ArrayLike, rotary_dim: int) -> np.ndarray:
    """One KV head's (D, D) coefficient mix over the rotary dimensions' output pairs, as a grid to look at.

    Output pair d < D takes column d of the mix; the pairs from D to rotary_dim / 2 are the clipped ones, which vLLM
    pads (cos 1, sin ``sin_pad``) instead of mixing, so their columns hold NaN.

    Args:
        coef: (D, D) one KV head's ``cos_coef`` or ``sin_coef``.
        rotary_dim: rotated dimensions (even, at least 2·D).

    Returns:
        (D, rotary_dim / 2) float64.

    >>> import posenc_core as pc
    >>> pc.rope.fope_mix_by_pair([[1.0]], 4).tolist()
    [[1.0, nan]]
    """
    c = np.asarray(coef, dtype=np.float64)
    r = as_even_dim("rotary_dim", rotary_dim)
    if c.ndim != 2 or c.shape[0] != c.shape[1] or c.shape[0] == 0:
        raise ValueError(f"coef must be one KV head's (D, D) mix; got shape {c.shape}.")
    if c.shape[0] > r // 2:
        raise ValueError(f"coef mixes {c.shape[0]} frequencies, more than the {r // 2} pairs of rotary_dim {r}.")
    grid = np.full((c.shape[0], r // 2), np.nan)  # (D, r/2): the clipped output pairs hold no mix
    grid[:, :c.shape[0]] = c
    return grid


def fope_cos_sin(positions: ArrayLike, head_size: int, rotary_dim: int, base: float, max_position_embeddings: int,
                 cos_coef: ArrayLike, sin_coef: ArrayLike, *, num_inv_freq: int | None = None,
                 sin_pad: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """FoPE's cos and sin rows for ``positions``, with the float32 operations of vLLM's ``_compute_cos_sin_cache``.

    t (float32) times θ (``einsum("j,i->ji")``), cos and sin, each mixed per KV head by
    ``einsum("htD,hDd->thd")`` with the coefficients, padded to head_size / 2 (cos with 1, sin with
    ``sin_pad``) and concatenated with itself. vLLM then casts the table to the model's dtype; these are the
    float32 values before that cast.

    Args:
        positions: (n,) whole numbers in [0, max_position_embeddings): vLLM's table has one row per trained position.
        head_size: the head's dimensions (even).
        rotary_dim: rotated dimensions (even, at most head_size).
        base: rope_theta.
        max_position_embeddings: the trained length L (the frequency filter and the table's size).
        cos_coef, sin_coef: (n_kv_heads, D, D) with D the kept frequencies.
        num_inv_freq: the config's fixed count of kept frequencies, if any.
        sin_pad: 1.0 as vLLM and XTuner pad, or 0.0 (``FOPE_SIN_PADS``).

    Returns:
        (cos, sin), each (n, n_kv_heads, head_size) float32.
    """
    hs = as_even_dim("head_size", head_size)
    r = as_even_dim("rotary_dim", rotary_dim)
    if r > hs:
        raise ValueError(f"rotary_dim ({r}) cannot exceed head_size ({hs}).")
    if sin_pad not in FOPE_SIN_PADS:
        raise ValueError(f"sin_pad must be 1.0 (vLLM's pad) or 0.0, but got {sin_pad!r}.")
    freqs = fope_inv_freq(r, base, max_position_embeddings, num_inv_freq)
    cos_c, sin_c = _coefficients(cos_coef, sin_coef, freqs.n_kept)
    pos = np.asarray(positions)
    if pos.ndim != 1 or pos.size == 0 or not np.issubdtype(pos.dtype, np.integer):
        raise ValueError(f"positions must be a non-empty 1-D list of whole numbers; got shape {pos.shape}, "
                         f"dtype {pos.dtype}.")
    if pos.min() < 0 or pos.max() >= max_position_embeddings:
        raise ValueError(f"positions must lie in [0, {max_position_embeddings - 1:,}]: vLLM's FoPE table has one row "
                         f"per position below max_position_embeddings; got {pos.min():,} to {pos.max():,}.")
    heads = cos_c.shape[0]
    check_size(2 * pos.size * heads * hs, "The FoPE cos/sin table")
    torch = require_torch("FoPE's cos/sin table")
    functional = torch.nn.functional
    t = torch.from_numpy(pos.astype(np.float32))  # (n,) float32, as vLLM's arange(dtype=float)
    angles = torch.einsum("j,i->ji", t, torch.from_numpy(freqs.inv_freq))  # (n, D)
    pos_cos = angles.cos().unsqueeze(0).expand(heads, -1, -1)  # (h, n, D)
    pos_sin = angles.sin().unsqueeze(0).expand(heads, -1, -1)
    sin = torch.einsum("htD,hDd->thd", pos_sin, torch.from_numpy(sin_c))  # (n, h, D)
    cos = torch.einsum("htD,hDd->thd", pos_cos, torch.from_numpy(cos_c))
    sin = functional.pad(sin, (0, hs // 2 - sin.size(-1)), mode="constant", value=sin_pad)  # (n, h, hs/2)
    cos = functional.pad(cos, (0, hs // 2 - cos.size(-1)), mode="constant", value=1.0)
    return torch.cat((cos, cos), dim=-1).numpy(), torch.cat((sin, sin), dim=-1).numpy()  # (n, h, hs) each


def fope_rotate(x: ArrayLike, cos: ArrayLike, sin: ArrayLike) -> np.ndarray:
    """vLLM's neox rotation in float32: ``x * cos + rotate_neox(x) * sin``, rotate_neox(x) = [-x2, x1].

    Args:
        x: (..., head_size) vectors; cos, sin: broadcastable to x (rows of ``fope_cos_sin``).

    Returns:
        (..., head_size) float32.
    """
    x = np.asarray(x, dtype=np.float32)
    cos, sin = np.asarray(cos, dtype=np.float32), np.asarray(sin, dtype=np.float32)
    if x.ndim == 0 or x.shape[-1] % 2 or x.shape[-1] != cos.shape[-1] or cos.shape != sin.shape:
        raise ValueError(f"x, cos and sin must end in the same even head size; got {x.shape}, {cos.shape}, "
                         f"{sin.shape}.")
    half = x.shape[-1] // 2
    rotated = np.concatenate((-x[..., half:], x[..., :half]), axis=-1)  # rotate_neox
    return x * cos + rotated * sin


@dataclass(frozen=True)
class FopeScores:
    """A query at position p against a key at position 0, RoPE and FoPE (``fope_distance_scores``).

    distance: (n,) int64, p. rope_total, fope_total: (n,) float64 scores q·k over the whole head.
    rope_clipped, fope_clipped: (n,) float64, the part of the score from the pairs FoPE clips (both halves of each).
    n_kept, n_clipped: ints. fope_clipped_spread: float, max - min of ``fope_clipped`` (0: constant).
    rope_clipped_spread: float, the same for RoPE.
    """

    distance: np.ndarray
    rope_total: np.ndarray
    fope_total: np.ndarray
    rope_clipped: np.ndarray
    fope_clipped: np.ndarray
    n_kept: int
    n_clipped: int
    rope_clipped_spread: float
    fope_clipped_spread: float


def fope_distance_scores(head_size: int, base: float, max_position_embeddings: int, *, init_factor: float = 0.5,
                         n_kv_heads: int = 4, seed: int = 0, points: int = 400, sin_pad: float = 1.0) -> FopeScores:
    """Score against distance over the trained range for RoPE and FoPE (demo coefficients, KV head 0).

    q and k are seeded standard-normal vectors (float32); the key sits at position 0, the query at p, sampled on a
    log grid over [0, max_position_embeddings). RoPE is vLLM's plain rotation with every θ_i; FoPE uses
    ``fope_cos_sin`` with ``fope_demo_coefficients(n_kv_heads, n_kept, init_factor, seed)``.

    Args:
        head_size: d (the whole head rotates).
        base: rope_theta.
        max_position_embeddings: L.
        init_factor: fope_init_factor of the demo coefficients.
        n_kv_heads: KV heads of the demo coefficients.
        seed: seeds q, k and the coefficients.
        points: positions sampled (at most 2,000).
        sin_pad: ``FOPE_SIN_PADS``.

    Returns:
        A ``FopeScores``.
    """
    d = as_even_dim("head_size", head_size)
    points = as_int("points", points, minimum=2, maximum=2000)
    length = as_int("max_position_embeddings", max_position_embeddings, minimum=2, maximum=MAX_POSITIONS)
    freqs = fope_inv_freq(d, base, length)
    coef = fope_demo_coefficients(n_kv_heads, freqs.n_kept, init_factor, seed)
    grid = np.geomspace(1, length - 1, points - 1)
    p = np.unique(np.concatenate(([0], np.rint(grid)))).astype(np.int64)  # (n,) the query's positions
    cos, sin = fope_cos_sin(p, d, d, base, length, coef.cos_coef, coef.sin_coef, sin_pad=sin_pad)
    q, k = np.random.default_rng(seed).standard_normal((2, d)).astype(np.float32)
    half = d // 2
    clipped = np.zeros(d, dtype=bool)
    clipped[freqs.n_kept:half] = clipped[half + freqs.n_kept:] = True  # (d,) both halves of each clipped pair
    fope_q = fope_rotate(q, cos[:, 0], sin[:, 0])  # (n, d)
    fope_k = fope_rotate(k, cos[:1, 0], sin[:1, 0])  # (1, d) at position 0
    angles = (p.astype(np.float32)[:, None] * freqs.all_inv_freq[None, :]).astype(np.float32)  # (n, d/2)
    rope_cos = np.tile(np.cos(angles), 2)
    rope_sin = np.tile(np.sin(angles), 2)
    rope_q = fope_rotate(q, rope_cos, rope_sin)
    rope_k = k  # position 0: cos 1, sin 0
    rope_terms = rope_q.astype(np.float64) * rope_k.astype(np.float64)  # (n, d)
    fope_terms = fope_q.astype(np.float64) * fope_k.astype(np.float64)
    rope_clip, fope_clip = rope_terms[:, clipped].sum(axis=1), fope_terms[:, clipped].sum(axis=1)
    return FopeScores(p, rope_terms.sum(axis=1), fope_terms.sum(axis=1), rope_clip, fope_clip, freqs.n_kept,
                      freqs.n_clipped, float(np.ptp(rope_clip)) if freqs.n_clipped else 0.0,
                      float(np.ptp(fope_clip)) if freqs.n_clipped else 0.0)
