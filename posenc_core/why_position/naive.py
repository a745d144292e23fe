"""Naive position codes: the raw integer and position / length, and why they fail (lessons/why_position/naive)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import MAX_DIM, MAX_POSITIONS, as_choice, as_even_dim, as_int, check_size
from .._tokens import token_embeddings
from ..absolute.sinusoidal import _sinusoidal64

__all__ = [
    "NAIVE_KINDS",
    "NaiveInputs",
    "fraction_code_order",
    "fraction_codes",
    "naive_codes",
    "naive_inputs",
    "naive_norm_ratio",
]


NAIVE_KINDS = ("integer", "fraction")


def naive_codes(num_positions: int, kind: str = "integer") -> np.ndarray:
    """The scalar code of each position of a sequence of num_positions tokens, shape (n,), float64.

    "integer": the position itself, p = 0, 1, 2, ... (grows without bound).
    "fraction": p / n, the position divided by the sequence's length (always in [0, 1), but the same
    position gets a different code in a sequence of a different length).
    Added to a token embedding, the code goes into every channel: x_p + code(p) * (1, ..., 1).
    """
    n = as_int("the number of positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    positions = np.arange(n, dtype=np.float64)
    if as_choice("kind", kind, NAIVE_KINDS) == "fraction":
        return positions / n
    return positions


def fraction_codes(lengths: Sequence[int]) -> np.ndarray:
    """p / L for several sequence lengths L at once: row k holds lengths[k]'s codes, NaN past its end.

    Returns float64 array of shape (len(lengths), max(lengths)).
    """
    lengths = [as_int("a sequence length", n, minimum=1, maximum=1 << 16) for n in lengths]
    if not lengths:
        raise ValueError("fraction_codes needs at least one sequence length.")
    check_size(len(lengths) * max(lengths), "The code table")
    out = np.full((len(lengths), max(lengths)), np.nan)
    for row, n in enumerate(lengths):
        out[row, :n] = naive_codes(n, "fraction")
    return out


def fraction_code_order(short: int, long: int, p: int) -> str:
    """How position p's code p / L compares in a sequence of ``short`` and one of ``long`` words.

    Returns "missing" (one of them has no position p), "same", "shorter" (larger in the shorter sequence) or
    "longer"; the order of the codes read from ``fraction_codes``, so the answer matches its table.
    """
    a, b = fraction_codes([short, long])[:, p]
    if np.isnan(a) or np.isnan(b):
        return "missing"
    if a == b:
        return "same"
    return "shorter" if (a > b) == (short < long) else "longer"


def naive_norm_ratio(num_positions: int, kind: str = "integer", dim: int = 64) -> np.ndarray:
    """||position code|| / ||token embedding|| at every position, for token entries of size 1.

    A token embedding with d entries of variance 1 has a norm of about sqrt(d). A scalar code c added to all
    d channels has norm |c| sqrt(d), so the ratio is |c|: the integer code outweighs the word from position
    2 on. kind="sinusoidal" gives the paper's table for comparison: its norm is exactly sqrt(d/2) (one
    sin^2 + cos^2 = 1 per pair), a constant ratio of 1/sqrt(2) at every position. Shape (n,).
    """
    n = as_int("the number of positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    dim = as_even_dim("dim", dim)
    token_norm = np.sqrt(dim)
    if kind == "sinusoidal":
        check_size(n * dim, "The sinusoidal table")
        return np.linalg.norm(_sinusoidal64(np.arange(n), dim, 10000.0, "interleaved"), axis=1) / token_norm
    return np.abs(naive_codes(n, kind)) * np.sqrt(dim) / token_norm


@dataclass(frozen=True)
class NaiveInputs:
    """A sequence's first-layer input with a naive position code, each (n, dim) float64.

    token: the token embeddings (entries of size 1).
    code: the scalar code of each position, broadcast over the channels.
    sum: token + code, what the first layer would see.
    """

    token: np.ndarray
    code: np.ndarray
    sum: np.ndarray


def naive_inputs(num_positions: int, dim: int, kind: str = "integer") -> NaiveInputs:
    """Token embeddings (entries of size 1) plus a naive code, for a sequence of made-up words w0, w1, ...

    Returns a NaiveInputs of (n, dim) float64 arrays.
    """
    n = as_int("the number of positions", num_positions, minimum=1, maximum=4096)
    dim = as_int("dim", dim, minimum=1, maximum=MAX_DIM)
    check_size(n * dim, "The inputs")
    token = token_embeddings([f"w{p}" for p in range(n)], dim)  # (n, d)
    code = np.repeat(naive_codes(n, kind)[:, None], dim, axis=1)  # (n, d)
    return NaiveInputs(token=token, code=code, sum=token + code)
