"""The sinusoidal table of "Attention Is All You Need", and the tensor2tensor / fairseq variant readers
meet in code (lessons/absolute/sinusoidal)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._backend import kind_of, require_torch, to_backend, to_numpy
from .._checks import MAX_DIM, MAX_POSITIONS, as_base, as_choice, as_even_dim, as_int, check_size
from .._types import ArrayOrTensor
from ..rope.frequencies import base_freq_divisors, base_inv_freq

__all__ = [
    "LAYOUTS",
    "VARIANTS",
    "BaseDoubling",
    "SinusoidalEntry",
    "sinusoidal",
    "sinusoidal_at",
    "sinusoidal_base_doubling",
    "sinusoidal_coverage",
    "sinusoidal_entry",
    "sinusoidal_frequencies",
    "sinusoidal_full_circles",
    "sinusoidal_shift_error",
    "sinusoidal_shift_matrix",
    "sinusoidal_variant_gap",
    "sinusoidal_wavelength_step",
    "sinusoidal_wavelengths",
]


LAYOUTS = ("interleaved", "concat")
VARIANTS = ("paper", "tensor2tensor")  # the frequency exponent; see sinusoidal_frequencies
_BLOCK_VALUES = 1 << 15


def sinusoidal_frequencies(dim: int, base: float = 10000.0, variant: str = "paper") -> np.ndarray:
    """The angular frequencies of the d/2 (sin, cos) pairs, shape (dim/2,), float64.

    variant="paper": omega_i = base^(-2i/d), so the slowest pair stops just short of 1/base.
    variant="tensor2tensor": omega_i = base^(-i/(d/2 - 1)), so the last pair reaches exactly 1/base.
    The second is what tensor2tensor's get_timing_signal_1d (log_timescale_increment = ln(base) /
    (num_timescales - 1)) and fairseq's SinusoidalPositionalEmbedding.get_embedding (emb = ln(10000) /
    (half_dim - 1)) compute; both also put all sines first, then all cosines (our layout="concat").
    With a single pair (d = 2) the divisor is taken as 1, as later tensor2tensor versions do.
    """
    dim = as_even_dim("dim", dim)
    base = as_base(base)
    half = dim // 2
    if as_choice("variant", variant, VARIANTS) == "tensor2tensor":
        return base ** (-np.arange(half, dtype=np.float64) / max(half - 1, 1))
    return base_inv_freq(base, dim)  # the same frequencies as plain RoPE's


def sinusoidal_wavelengths(dim: int, base: float = 10000.0, variant: str = "paper") -> np.ndarray:
    """Wavelength 2*pi/omega_i of each pair, in positions, shape (dim/2,): from 2*pi up to (almost) 2*pi*base."""
    return 2 * np.pi / sinusoidal_frequencies(dim, base, variant)


def sinusoidal_at(positions: ArrayOrTensor, dim: int, base: float = 10000.0, layout: str = "interleaved", *,
                  dtype: str = "float32", variant: str = "paper",
                  backend: str | None = None, device: str | None = None) -> ArrayOrTensor:
    """Sinusoidal encodings of arbitrary (possibly fractional or negative) positions.

    ``dtype="float32"`` gives the table the models hold, bit-identical to transformers' code for it:
    the paper variant as DistilBERT's ``create_sinusoidal_embeddings`` (and Marian's table) builds it, angles
    pos / base^(2i/d) and their sine and cosine in float64, rounded once to float32; the tensor2tensor variant
    as fairseq's / M2M100's ``SinusoidalPositionalEmbedding.get_embedding``, all in torch float32 (exp of the
    scaled pair index, the products, sin and cos). ``"float64"`` gives the exact values a hand calculation gets.

    Returns an array of shape (len(positions), dim), of the kind ``backend`` names (by default the kind of
    ``positions``: a torch tensor gives a tensor on its device).
    """
    backend, device = kind_of(backend, device, positions)
    positions = to_numpy(positions)
    layout = as_choice("layout", layout, LAYOUTS)
    variant = as_choice("variant", variant, VARIANTS)
    dim = as_even_dim("dim", dim)
    base = as_base(base)
    if as_choice("dtype", dtype, ("float32", "float64")) == "float64":
        check_size(np.size(positions) * dim, "The sinusoidal table")
        return to_backend(_sinusoidal64(positions, dim, base, layout, variant), backend, device)
    positions = np.asarray(to_numpy(positions), dtype=np.float64).reshape(-1)  # (n,)
    n, half = positions.shape[0], dim // 2
    check_size(n * dim, "The sinusoidal table")
    out = np.empty((n, dim), dtype=np.float32)  # (n, d)
    if variant == "paper" and n > 1 and np.array_equal(positions, np.arange(n)):
        _paper_model_rows(n, dim, base, out, layout)  # the whole table: the same bits, ~5x sooner
        return to_backend(out, backend, device)
    sin_cols, cos_cols = (out[:, 0::2], out[:, 1::2]) if layout == "interleaved" else (out[:, :half], out[:, half:])
    fill = _t2t_model_block if variant == "tensor2tensor" else _paper_model_block
    # Row blocks of about 32k values keep the temporaries in cache before the strided copy into place.
    rows = max(1, _BLOCK_VALUES // half)
    for start in range(0, n, rows):
        sin, cos = fill(positions[start:start + rows], dim, base)  # (k, d/2) float32 each
        sin_cols[start:start + rows], cos_cols[start:start + rows] = sin, cos
    return to_backend(out, backend, device)


def _paper_model_block(positions, dim, base):
    """DistilBERT's arithmetic: pos / np.power(base, 2 * (j // 2) / dim) in float64, sin / cos, then float32."""
    angles = np.divide.outer(positions, base_freq_divisors(base, dim))  # (k, d/2) float64
    return np.sin(angles).astype(np.float32), np.cos(angles).astype(np.float32)


def _paper_model_rows(n, dim, base, out, layout) -> None:
    """DistilBERT's table for positions 0 .. n-1 written into ``out`` (n, d): the bits of ``_paper_model_block``,
    in about a fifth of the time.

    float64 sin and cos run ~20x slower than float32 ones in numpy (no SIMD), and the model's table needs them.
    Position p = a + r (a a multiple of the block length, 0 <= r < block) gives, as one complex product,
    sin(p w) + i cos(p w) = (sin(a w) + i cos(a w)) * (cos(r w) - i sin(r w)): float64 sines of a few hundred
    angles, then one multiply whose memory is already the interleaved (sin, cos) row. That value is within
    ``eps`` of the model's float64 value (the angles' roundings, p w ~ n, and a few float64 roundings), so where
    both ends of [value - eps, value + eps] round to one float32 it is the model's float32. The rest (a value
    that close to a float32 rounding midpoint, ~1e-4 of them) is computed as the model does.
    """
    half = dim // 2
    den = base_freq_divisors(base, dim)  # (d/2,) float64, as the model's code forms it
    eps = np.repeat(1e-14 + 1e-15 * (n - 1) / den, 2)  # (d,) bound on |our value - the model's|, 10x margin
    block = 64
    within = np.divide.outer(np.arange(block, dtype=np.float64), den)  # (b, d/2) angles r w
    turn = np.empty((block, half), dtype=np.complex128)  # (b, d/2) e^{-i r w}
    turn.real, turn.imag = np.cos(within), -np.sin(within)
    rows = max(block, (_BLOCK_VALUES // half) // block * block)
    # buffers reused by every row block, so the passes below stay in cache
    product = np.empty((rows // block, block, half), dtype=np.complex128)  # (k/b, b, d/2)
    shifted = np.empty((rows, dim))  # (k, d) float64
    low = np.empty((rows, dim), dtype=np.float32)
    unsure = np.empty((rows, dim), dtype=bool)
    rounded = out if layout == "interleaved" else np.empty((rows, dim), dtype=np.float32)
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        k, blocks = stop - start, -(-(stop - start) // block)
        angle_a = np.divide.outer(np.arange(start, stop, block, dtype=np.float64), den)  # (k/b, d/2)
        first = np.empty((blocks, 1, half), dtype=np.complex128)  # sin(a w) + i cos(a w)
        first.real[:, 0], first.imag[:, 0] = np.sin(angle_a), np.cos(angle_a)
        np.multiply(first, turn, out=product[:blocks])
        value = product[:blocks].view(np.float64).reshape(-1, dim)[:k]  # (k, d): sin, cos, sin, cos, ...
        high = rounded[start:stop] if layout == "interleaved" else rounded[:k]
        np.add(value, eps, out=shifted[:k])
        high[...] = shifted[:k]
        np.subtract(value, eps, out=shifted[:k])
        low[:k] = shifted[:k]
        np.not_equal(low[:k], high, out=unsure[:k])
        row, col = np.divmod(np.flatnonzero(unsure[:k]), dim)
        if row.size:
            angle = (start + row) / den[col // 2]  # the model's own arithmetic
            high[row, col] = np.where(col % 2 == 0, np.sin(angle), np.cos(angle)).astype(np.float32)
        if layout != "interleaved":
            out[start:stop, :half], out[start:stop, half:] = high[:, 0::2], high[:, 1::2]


def _t2t_model_block(positions, dim, base):
    """fairseq / M2M100's get_embedding: emb = ln(base) / (d/2 - 1) in Python, the rest in torch float32."""
    torch = require_torch()
    half = dim // 2
    step = math.log(base) / max(half - 1, 1)  # fairseq divides by zero at d = 2; one pair reaches 1/base
    freqs = torch.exp(torch.arange(half, dtype=torch.int64).float() * -step)  # (d/2,)
    angles = torch.from_numpy(positions).float()[:, None] * freqs[None, :]  # (k, d/2)
    return torch.sin(angles).numpy(), torch.cos(angles).numpy()


def sinusoidal(num_positions: int, dim: int, base: float = 10000.0, layout: str = "interleaved", *,
               dtype: str = "float32", variant: str = "paper",
               backend: str = "numpy", device: str | None = None) -> ArrayOrTensor:
    """The sinusoidal position table for positions 0 .. num_positions-1.

    Args:
        num_positions: number of rows (positions 0, 1, ...).
        dim: model dimension (even).
        base: wavelength base (10000 in the paper).
        layout: "interleaved" (sin, cos, sin, cos, ...; the paper) or "concat" (sines then cosines).
        dtype: "float32" (the models' table, bit-identical to transformers' code; see ``sinusoidal_at``) or
            "float64" (exact, for checking by hand).
        variant: "paper" (omega_i = base^(-2i/d)) or "tensor2tensor" (omega_i = base^(-i/(d/2-1)), the
            exponent of tensor2tensor and fairseq, which also use layout="concat").

    Returns:
        Array of shape (num_positions, dim).

    >>> pc.sinusoidal(2, 4).astype(float).round(4).tolist()  # (positions, dim) float32
    [[0.0, 1.0, 0.0, 1.0], [0.8415, 0.5403, 0.01, 0.9999]]
    """
    n = as_int("num_positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    check_size(n * as_even_dim("dim", dim), "The sinusoidal table")
    return sinusoidal_at(np.arange(n), dim, base, layout, dtype=dtype, variant=variant, backend=backend,
                         device=device)


def sinusoidal_shift_matrix(dim: int, offset: int, base: float = 10000.0, layout: str = "interleaved") -> np.ndarray:
    """The (dim, dim) matrix M with PE(p + offset) = M @ PE(p) for every position p.

    Each (sin, cos) pair at frequency omega is rotated by offset * omega, because
    sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b.
    M depends on the offset only, never on p: that is what lets attention read relative offsets.
    """
    layout = as_choice("layout", layout, LAYOUTS)
    omega = sinusoidal_frequencies(dim, base)  # (d/2,)
    half = omega.shape[0]
    c, s = np.cos(offset * omega), np.sin(offset * omega)
    sin_idx = np.arange(0, 2 * half, 2) if layout == "interleaved" else np.arange(half)
    cos_idx = sin_idx + 1 if layout == "interleaved" else sin_idx + half
    m = np.zeros((2 * half, 2 * half))
    m[sin_idx, sin_idx], m[sin_idx, cos_idx] = c, s
    m[cos_idx, sin_idx], m[cos_idx, cos_idx] = -s, c
    return m


def _sinusoidal64(positions, dim, base, layout, variant="paper") -> np.ndarray:
    """The same table in float64, for exact checks of identities."""
    layout = as_choice("layout", layout, LAYOUTS)
    omega = sinusoidal_frequencies(dim, base, variant)
    angles = np.multiply.outer(np.asarray(positions, dtype=np.float64), omega)  # (n, d/2)
    sin, cos = np.sin(angles), np.cos(angles)
    if layout == "interleaved":
        return np.stack([sin, cos], axis=-1).reshape(angles.shape[0], -1)
    return np.concatenate([sin, cos], axis=1)


@dataclass(frozen=True)
class SinusoidalEntry:
    """Everything that goes into one cell PE(position, column).

    pair: the index i of the column's (sin, cos) pair, 0 to d/2 - 1.
    function: "sin" or "cos", which of the pair the column holds.
    omega: the pair's angular frequency, radians per position.
    angle: position * omega, radians.
    wavelength: 2 pi / omega, positions.
    value: function(angle), the cell's value.
    """

    pair: int
    function: Literal["sin", "cos"]
    omega: float
    angle: float
    wavelength: float
    value: float


def sinusoidal_entry(position: int, column: int, dim: int, base: float = 10000.0,
                     layout: str = "interleaved") -> SinusoidalEntry:
    """Everything that goes into one cell PE(position, column): pair index, frequency, angle, value."""
    dim = as_even_dim("dim", dim)
    column = as_int("column", column, minimum=0, maximum=dim - 1)
    layout = as_choice("layout", layout, LAYOUTS)
    half = dim // 2
    pair, is_cos = (column // 2, column % 2 == 1) if layout == "interleaved" else (column % half, column >= half)
    omega = float(sinusoidal_frequencies(dim, base)[pair])
    angle = float(as_int("position", position, minimum=-MAX_POSITIONS, maximum=MAX_POSITIONS)) * omega
    return SinusoidalEntry(pair=pair, function="cos" if is_cos else "sin", omega=omega, angle=angle,
                           wavelength=2 * np.pi / omega, value=float(np.cos(angle) if is_cos else np.sin(angle)))


def sinusoidal_shift_error(num_positions: int, dim: int, offset: int, base: float = 10000.0,
                           layout: str = "interleaved") -> float:
    """max over p < num_positions of |M_offset PE(p) - PE(p + offset)|, computed in float64."""
    n = as_int("num_positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    dim = as_even_dim("dim", dim)
    check_size(n * dim, "The shift check")
    layout = as_choice("layout", layout, LAYOUTS)
    positions = np.arange(n, dtype=np.float64)
    moved = _sinusoidal64(positions, dim, base, layout) @ sinusoidal_shift_matrix(dim, offset, base, layout).T
    return float(np.abs(moved - _sinusoidal64(positions + offset, dim, base, layout)).max())


# --- Where a training length ends -------------------------------------------------------------------------

def sinusoidal_coverage(train_length: int, dim: int, base: float = 10000.0, variant: str = "paper") -> np.ndarray:
    """For each (sin, cos) pair, the fraction of one full turn that positions 0 .. train_length-1 cover.

    A pair whose wavelength is shorter than the training length has shown the model every value it can
    take (coverage 1); a slower pair has only swept an arc of its circle, so positions past the training
    length give it angles, and value combinations, that training never produced. Shape (dim/2,).
    """
    length = as_int("training length", train_length, minimum=1, maximum=MAX_POSITIONS)
    omega = sinusoidal_frequencies(dim, base, variant)  # (d/2,)
    return np.minimum(1.0, (length - 1) * omega / (2 * np.pi))


def sinusoidal_full_circles(train_length: int, dim: int, base: float = 10000.0, variant: str = "paper") -> int:
    """How many of the d/2 pairs turn a full circle within positions 0 .. train_length-1 (coverage 1).

    Args:
        train_length: the training length L, 1 to the position cap.
        dim, base, variant: the table's, as ``sinusoidal_frequencies``.
    Returns:
        The count, 0 to dim/2.
    """
    return int(np.count_nonzero(sinusoidal_coverage(train_length, dim, base, variant) >= 1.0))


@dataclass(frozen=True)
class BaseDoubling:
    """The slowest pair's wavelength before and after the base doubles.

    now: 2 pi base^((d-2)/d), positions.
    doubled: the same at twice the base, positions.
    ratio: doubled / now = 2^((d-2)/d), just under 2.
    """

    now: float
    doubled: float
    ratio: float


def sinusoidal_base_doubling(dim: int, base: float = 10000.0) -> BaseDoubling:
    """The slowest pair's wavelength 2*pi*base^((d-2)/d) at ``base`` and at twice it.

    Returns:
        A BaseDoubling: both wavelengths (positions) and their ratio.
    """
    now, doubled = (float(sinusoidal_wavelengths(dim, b)[-1]) for b in (as_base(base), 2 * as_base(base)))
    return BaseDoubling(now=now, doubled=doubled, ratio=doubled / now)


def sinusoidal_variant_gap(n: int, dim: int, base: float = 10000.0) -> float:
    """Largest |tensor2tensor - paper| entry over the n x dim float32 tables, both in the concat layout.

    Both variants share sin/cos and the layout, so the gap is the frequency exponent's doing alone.
    """
    paper = sinusoidal(n, dim, base, "concat")  # (n, d)
    t2t = sinusoidal(n, dim, base, "concat", variant="tensor2tensor")  # (n, d)
    return float(np.max(np.abs(t2t - paper)))


def sinusoidal_wavelength_step(dim: int, base: float = 10000.0) -> float:
    """By what factor each pair is slower than the one before: lambda_1 / lambda_0 = base^(2/d) (paper variant).

    Binary codes slow down by exactly 2 per column; the sinusoidal table by this factor. Needs d >= 4 (two pairs).
    """
    wavelengths = sinusoidal_wavelengths(as_int("dim", dim, minimum=4, maximum=MAX_DIM), base)  # (d/2,)
    return float(wavelengths[1] / wavelengths[0])
