"""Token + position: the norm balance between a token embedding and the position code added to it
(lessons/absolute/token_position)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._checks import as_base, as_choice, as_even_dim, as_int, check_size
from .._tokens import token_embeddings
from .sinusoidal import _sinusoidal64

__all__ = [
    "EMBEDDING_INITS",
    "embedding_norm_balance",
    "norm_ratio_doubling",
    "token_plus_position",
]


# How token embedding entries are initialised, and where each convention comes from.
EMBEDDING_INITS = {
    "normal(0, 1)": "torch.nn.Embedding's default",
    "normal(0, 0.02)": "BERT and GPT-2 (initializer_range = 0.02)",
    "normal(0, 1/sqrt(d))": "tensor2tensor and fairseq (d^-0.5), meant to be multiplied by sqrt(d)",
}


def _init_std(init: str, dim: int) -> float:
    init = as_choice("init", init, tuple(EMBEDDING_INITS))
    return {"normal(0, 1)": 1.0, "normal(0, 0.02)": 0.02, "normal(0, 1/sqrt(d))": dim ** -0.5}[init]


def token_plus_position(tokens: Sequence[str], dim: int, init: str = "normal(0, 1/sqrt(d))", scale: bool = True,
                        base: float = 10000.0) -> dict:
    """The model's input for a sentence: token embedding (times sqrt(d) when scale) + sinusoidal row.

    Args:
        tokens: list of words (see tokenize); repeated words get identical token rows.
        dim: model width (even).
        init: one of EMBEDDING_INITS.
        scale: multiply token embeddings by sqrt(d) first, as the Transformer paper (section 3.4) does.

    Returns:
        dict with "token", "position", "input" (each (n, d) float64) and the row norms "token_norm",
        "position_norm", "input_norm" (each (n,)).
    """
    dim = as_even_dim("dim", dim)
    std = _init_std(init, dim) * (np.sqrt(dim) if scale else 1.0)
    token = token_embeddings(tokens, dim, std)  # (n, d)
    position = _sinusoidal64(np.arange(token.shape[0]), dim, as_base(base), "interleaved")  # (n, d)
    total = token + position
    return {"token": token, "position": position, "input": total,
            "token_norm": np.linalg.norm(token, axis=1), "position_norm": np.linalg.norm(position, axis=1),
            "input_norm": np.linalg.norm(total, axis=1)}


def embedding_norm_balance(dims: Sequence[int], init: str = "normal(0, 1/sqrt(d))", scale: bool = True,
                           samples: int = 256) -> dict:
    """||position row|| / ||token row|| as the width changes, measured on `samples` made-up words.

    The sinusoidal row has norm sqrt(d/2) at every position; a token row with entries of standard
    deviation s has norm about s sqrt(d). Their ratio is about 1 / (s sqrt(2)): a constant 0.71 when the
    entries have size 1 (init 1/sqrt(d) times sqrt(d), or normal(0, 1)), but it grows like sqrt(d) for an
    unscaled 1/sqrt(d) init, and is about 35 for 0.02: then the position code drowns the word.

    Returns:
        dict with "dim" (k,), "measured" (k,) mean ratio over the samples, "expected" (k,) 1/(s sqrt 2),
        "std" (k,) the effective entry size s (after the sqrt(d) factor when scale).
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
    return {"dim": np.asarray(dims), "measured": np.asarray(measured), "expected": np.asarray(expected),
            "std": np.asarray(stds)}


def norm_ratio_doubling(dim: int, init: str = "normal(0, 1/sqrt(d))", scale: bool = True) -> str:
    """What doubling the width does to the expected ||position row|| / ||token row|| = 1 / (s sqrt 2).

    Returns "same" when the entry size s does not depend on d (normal(0, 1), 0.02, or 1/sqrt(d) times sqrt(d)),
    "grows" (by sqrt 2, s = 1/sqrt(d) unscaled) or "shrinks" (by sqrt 2, an entry size growing with d).
    """
    before, after = embedding_norm_balance([dim, 2 * dim], init, scale, samples=1)["expected"]
    if abs(after - before) < 1e-9 * before:  # 1/sqrt(d) * sqrt(d) is 1 only up to rounding
        return "same"
    return "grows" if after > before else "shrinks"
