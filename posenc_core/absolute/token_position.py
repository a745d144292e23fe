"""Token + position: the norm balance between a token embedding and the position code added to it
(lessons/absolute/token_position)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import as_base, as_choice, as_even_dim, as_int, check_size
from .._tokens import token_embeddings
from .sinusoidal import _sinusoidal64

__all__ = [
    "EMBEDDING_INITS",
    "NormBalance",
    "TokenPlusPosition",
    "embedding_norm_balance",
    "norm_ratio_doubling",
    "token_plus_position",
]


# How token embedding entries are initialised: torch.nn.Embedding's default, BERT's and GPT-2's
# initializer_range 0.02, and tensor2tensor's and fairseq's d^-0.5 (meant to be multiplied by sqrt(d))
EMBEDDING_INITS = ("normal(0, 1)", "normal(0, 0.02)", "normal(0, 1/sqrt(d))")


def _init_std(init: str, dim: int) -> float:
    init = as_choice("init", init, EMBEDDING_INITS)
    return {"normal(0, 1)": 1.0, "normal(0, 0.02)": 0.02, "normal(0, 1/sqrt(d))": dim ** -0.5}[init]


@dataclass(frozen=True)
class TokenPlusPosition:
    """A sentence's first-layer input, its two parts, and the row norms of all three.

    token: (n, d) float64, the token embeddings (times sqrt(d) when scaled).
    position: (n, d) float64, the sinusoidal rows of positions 0 .. n-1.
    input: (n, d) float64, token + position.
    token_norm, position_norm, input_norm: (n,) float64, the norm of each row of the three.
    """

    token: np.ndarray
    position: np.ndarray
    input: np.ndarray
    token_norm: np.ndarray
    position_norm: np.ndarray
    input_norm: np.ndarray


def token_plus_position(tokens: Sequence[str], dim: int, init: str = "normal(0, 1/sqrt(d))", scale: bool = True,
                        base: float = 10000.0) -> TokenPlusPosition:
    """The model's input for a sentence: token embedding (times sqrt(d) when scale) + sinusoidal row.

    Args:
        tokens: list of words (see tokenize); repeated words get identical token rows.
        dim: model width (even).
        init: one of EMBEDDING_INITS.
        scale: multiply token embeddings by sqrt(d) first, as the Transformer paper (section 3.4) does.

    Returns:
        A TokenPlusPosition: the three (n, d) float64 tables and their (n,) row norms.
    """
    dim = as_even_dim("dim", dim)
    std = _init_std(init, dim) * (np.sqrt(dim) if scale else 1.0)
    token = token_embeddings(tokens, dim, std)  # (n, d)
    position = _sinusoidal64(np.arange(token.shape[0]), dim, as_base(base), "interleaved")  # (n, d)
    total = token + position
    return TokenPlusPosition(token=token, position=position, input=total,
                             token_norm=np.linalg.norm(token, axis=1), position_norm=np.linalg.norm(position, axis=1),
                             input_norm=np.linalg.norm(total, axis=1))


@dataclass(frozen=True)
class NormBalance:
    """||position row|| / ||token row|| at several widths, each (k,) for the k widths.

    dim: int, the widths.
    measured: float64, the mean ratio over the made-up words.
    expected: float64, 1 / (s sqrt 2).
    std: float64, the effective entry size s of a token row (after the sqrt(d) factor when scaled).
    """

    dim: np.ndarray
    measured: np.ndarray
    expected: np.ndarray
    std: np.ndarray


def embedding_norm_balance(dims: Sequence[int], init: str = "normal(0, 1/sqrt(d))", scale: bool = True,
                           samples: int = 256) -> NormBalance:
    """||position row|| / ||token row|| as the width changes, measured on `samples` made-up words.

    The sinusoidal row has norm sqrt(d/2) at every position; a token row with entries of standard
    deviation s has norm about s sqrt(d). Their ratio is about 1 / (s sqrt(2)): a constant 0.71 when the
    entries have size 1 (init 1/sqrt(d) times sqrt(d), or normal(0, 1)), but it grows like sqrt(d) for an
    unscaled 1/sqrt(d) init, and is about 35 for 0.02: then the position code drowns the word.

    Returns:
        A NormBalance of (k,) arrays: the widths, the measured and expected ratios, the entry sizes.
    """
    dims = [as_even_dim("dim", d) for d in dims]
    samples = as_int("samples", samples, minimum=1, maximum=4096)
    check_size(samples * sum(dims), "The norm balance")
    measured, expected, stds = [], [], []
    words = [f"w{i}" for i in range(samples)]
    for d in dims:
        std = _init_std(init, d) * (np.sqrt(d) if scale else 1.0)
        token_norm = np.linalg.norm(token_embeddings(words, d, std), axis=1)  # (samples,)
        measured.append(float(np.mean(np.sqrt(d / 2) / token_norm)))
        expected.append(1 / (std * np.sqrt(2)))
        stds.append(std)
    return NormBalance(dim=np.asarray(dims), measured=np.asarray(measured), expected=np.asarray(expected),
                       std=np.asarray(stds))


def norm_ratio_doubling(dim: int, init: str = "normal(0, 1/sqrt(d))", scale: bool = True) -> str:
    """What doubling the width does to the expected ||position row|| / ||token row|| = 1 / (s sqrt 2).

    Returns "same" when the entry size s does not depend on d (normal(0, 1), 0.02, or 1/sqrt(d) times sqrt(d)),
    "grows" (by sqrt 2, s = 1/sqrt(d) unscaled) or "shrinks" (by sqrt 2, an entry size growing with d).
    """
    before, after = embedding_norm_balance([dim, 2 * dim], init, scale, samples=1).expected
    if abs(after - before) < 1e-9 * before:  # 1/sqrt(d) * sqrt(d) is 1 only up to rounding
        return "same"
    return "grows" if after > before else "shrinks"
