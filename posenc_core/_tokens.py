"""Words and their deterministic embeddings, shared by the attention and token + position lessons.

An embedding is drawn from a normal distribution whose seed is a SHA-256 hash of the token text, so
"movie" gets the same vector on every machine, in every session and in every position of a sentence.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ._checks import MAX_DIM, as_float, as_int, check_size

__all__ = ["MAX_TOKENS", "MAX_TOKEN_CHARS", "token_embeddings", "token_seed", "tokenize"]

MAX_TOKENS = 64  # a sentence on a slide, not a document
MAX_TOKEN_CHARS = 40


def tokenize(text: str) -> list[str]:
    """Split a sentence on whitespace, lower-cased; a readable error for empty or overlong input."""
    if not isinstance(text, str):
        raise ValueError(f"The sentence must be text, but got {type(text).__name__}.")
    tokens = text.lower().split()
    if not tokens:
        raise ValueError("Type a sentence with at least one word.")
    if len(tokens) > MAX_TOKENS:
        raise ValueError(f"The sentence has {len(tokens)} words; this lesson takes at most {MAX_TOKENS}.")
    long = [t for t in tokens if len(t) > MAX_TOKEN_CHARS]
    if long:
        raise ValueError(f"Words may have at most {MAX_TOKEN_CHARS} characters; {long[0][:20]!r}... is longer.")
    return tokens


def token_seed(token: str, salt: str = "") -> int:
    """A stable 64-bit seed from the token text (Python's hash() changes between runs, SHA-256 does not)."""
    return int.from_bytes(hashlib.sha256(f"{salt}\x00{token}".encode()).digest()[:8], "little")


def token_embeddings(tokens: Sequence[str], dim: int, std: float = 1.0) -> np.ndarray:
    """One row per token, entries drawn from N(0, std^2) with a seed taken from the token's text.

    Args:
        tokens: a list of strings (repeated tokens get identical rows).
        dim: embedding width.
        std: standard deviation of each entry.

    Returns:
        float64 array of shape (len(tokens), dim).
    """
    tokens = list(tokens)
    if not tokens or not all(isinstance(t, str) for t in tokens):
        raise ValueError("token_embeddings needs a non-empty list of words.")
    dim = as_int("dim", dim, minimum=1, maximum=MAX_DIM)
    std = as_float("std", std, above=0.0, maximum=1e6)
    check_size(len(tokens) * dim, "The token embeddings")
    out = np.empty((len(tokens), dim))  # (n, d)
    generator = np.random.Generator(np.random.PCG64(0))  # a holder: each row restores its token's seeded state
    for row, token in enumerate(tokens):
        generator.bit_generator.state = _seeded_state(token)
        out[row] = generator.standard_normal(dim)
    return out * std


@functools.lru_cache(maxsize=4096)  # the pages' made-up words w0 .. w4095, or as many typed ones
def _seeded_state(token: str) -> Mapping[str, Any]:
    """The PCG64 state ``default_rng(token_seed(token, "embedding"))`` starts from: restoring it gives the very
    generator seeding gives, the same draws. Seeding (SHA-256, then numpy's SeedSequence) costs about 3x a
    64-wide draw, and every slider move on Naive and Token + position re-draws the same words. Read-only."""
    return np.random.default_rng(token_seed(token, "embedding")).bit_generator.state
