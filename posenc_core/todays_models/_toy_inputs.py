"""Seeded toy inputs for the lessons on positions read from content: a sentence's words and toy weights.

The gates and transforms these lessons show come from these seeded random weights, not from a trained model:
they show what the mechanism can do with data-dependent numbers, not what a trained model learned.
"""

from __future__ import annotations

import numpy as np

from .._checks import as_even_dim, as_int
from .._tokens import token_embeddings, token_seed, tokenize

__all__ = ["MAX_TOY_DIM", "toy_weight", "toy_words"]

MAX_TOY_DIM = 64  # a head on a slide: the path products cost L^2 * d


def toy_words(text, dim) -> tuple[list[str], np.ndarray]:
    """The sentence's words (whitespace split, lower-cased) and one N(0, 1) row per word, seeded by its text.

    Returns ``(tokens, x)`` with x of shape (L, dim): repeated words get identical rows.
    """
    dim = as_even_dim("dim", dim)  # even: RoPE's pairs
    if dim > MAX_TOY_DIM:
        raise ValueError(f"dim must be at most {MAX_TOY_DIM} (a toy head on a slide), but got {dim}.")
    tokens = tokenize(text)
    return tokens, token_embeddings(tokens, dim)  # (L, dim)


def toy_weight(name: str, seed, rows: int, cols: int | None = None) -> np.ndarray:
    """A toy weight of shape (rows, cols) (or (rows,)), entries N(0, 1/rows), seeded by its name and ``seed``.

    The 1/rows variance keeps x @ W of order 1 for x with N(0, 1) entries, as a trained layer's init does.
    """
    seed = as_int("seed", seed, minimum=0, maximum=2**31 - 1)
    rng = np.random.default_rng(token_seed(name, f"toy-weight-{seed}"))
    shape = (rows,) if cols is None else (rows, cols)
    return rng.standard_normal(shape) / np.sqrt(rows)
