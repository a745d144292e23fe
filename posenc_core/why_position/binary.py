"""The binary analogy: the bits of a position against smooth waves of the same periods
(lessons/why_position/binary)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import MAX_POSITIONS, as_int, check_size
from .._types import ArrayOrTensor

__all__ = [
    "MAX_BITS",
    "BinaryColumn",
    "binary_codes",
    "binary_column",
    "binary_column_curve",
    "binary_period",
    "binary_waves",
]


MAX_BITS = 24


def binary_period(bits: int) -> int:
    """After how many positions a ``bits``-bit code starts over: 2^bits (the slowest bit flips every 2^(bits-1)).

    Args:
        bits: 1 to MAX_BITS.
    Returns:
        2^bits, an int.
    """
    return 2 ** as_int("bits", bits, minimum=1, maximum=MAX_BITS)


def binary_codes(num_positions: int, bits: int) -> np.ndarray:
    """Bit k of each position p (column 0 is the least significant bit), shape (n, bits), int8.

    Column k repeats every 2^(k+1) positions: each column alternates half as fast as the one before. With
    fewer bits than log2(n) the codes wrap around and repeat.
    """
    n = as_int("the number of positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    bits = as_int("bits", bits, minimum=1, maximum=MAX_BITS)
    check_size(n * bits, "The binary table")
    return ((np.arange(n)[:, None] >> np.arange(bits)[None, :]) & 1).astype(np.int8)


def binary_waves(positions: ArrayOrTensor, bits: int) -> np.ndarray:
    """The smooth twin of each bit: cos(pi (p - (2^k - 1)/2) / 2^k), shape (len(positions), bits), float64.

    Column k has the period of bit k, 2^(k+1), and its phase puts a crest in the middle of every run of
    zeros, so at whole positions sign(wave_k(p)) = 1 - 2 bit_k(p): rounding the wave gives the bit back.
    Between whole positions (and at fractional ones) the wave is defined and continuous; the bit is not.
    """
    bits = as_int("bits", bits, minimum=1, maximum=MAX_BITS)
    p = np.asarray(positions, dtype=np.float64).reshape(-1)  # (n,)
    check_size(p.shape[0] * bits, "The wave table")
    scale = 2.0 ** np.arange(bits)  # (bits,)
    return np.cos(np.pi * (p[:, None] - (scale - 1) / 2) / scale)


@dataclass(frozen=True)
class BinaryColumn:
    """One bit of a list of positions next to its smooth twin, each (n,) float64.

    bit: floor(p / 2^k) mod 2, 0 or 1.
    signed: 1 - 2 bit, in {-1, 1} (the scale of the wave).
    wave: column k of binary_waves.
    """

    bit: np.ndarray
    signed: np.ndarray
    wave: np.ndarray


def binary_column(positions: ArrayOrTensor, bit: int) -> BinaryColumn:
    """Bit `bit` of (possibly fractional) positions, floor(p / 2^k) mod 2, next to its smooth twin.

    Returns a BinaryColumn of (n,) float64 arrays.
    """
    bit = as_int("bit", bit, minimum=0, maximum=MAX_BITS - 1)
    p = np.asarray(positions, dtype=np.float64).reshape(-1)
    check_size(p.shape[0], "The column")
    value = np.mod(np.floor(p / 2.0 ** bit), 2)
    return BinaryColumn(bit=value, signed=1 - 2 * value, wave=binary_waves(p, bit + 1)[:, bit])


def binary_column_curve(bit: int, periods: int = 2, samples: int = 801) -> tuple[np.ndarray, BinaryColumn]:
    """binary_column on a fine grid of positions covering `periods` periods of bit `bit` (2^(bit+1) each).

    Returns (positions (samples,), the BinaryColumn of binary_column).
    """
    bit = as_int("bit", bit, minimum=0, maximum=MAX_BITS - 1)
    periods = as_int("periods", periods, minimum=1, maximum=64)
    samples = as_int("samples", samples, minimum=2, maximum=100_000)
    positions = np.linspace(0, periods * 2.0 ** (bit + 1), samples)
    return positions, binary_column(positions, bit)
