"""The lab's task: look back k tokens.

A sequence of random symbols x_0 .. x_{L-1}; at every position t >= k the model must output x_{t-k}.
The rule is the same at every position and names an offset, not a place, so it is defined at every
length, and a model that has learned "the token k steps back" has nothing new to learn at 8x the
length. Content cannot help (the symbols are independent and uniform), so whatever the model gets
right beyond chance it got from position. numpy only: no torch needed to make data.
"""

from __future__ import annotations

import numpy as np

from .._checks import MAX_POSITIONS, as_int, check_size

__all__ = ["IGNORE", "TASK_DESCRIPTION", "TASK_NAME", "retrieval_batch"]

IGNORE = -100  # the target of positions t < k, where there is nothing k steps back (torch's ignore_index)

TASK_NAME = "retrieve-k-back"
# written to a result file
TASK_DESCRIPTION = ("Sequences of independent, uniformly random symbols; at every position t >= k the model "
                    "predicts the symbol k steps back, x[t-k]. Positions t < k are not scored.")


def retrieval_batch(batch: int, length: int, k: int, vocab: int,
                    seed: int | np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One batch of the look-back-k task.

    Args:
        batch: number of sequences.
        length: tokens per sequence.
        k: how many steps back the answer sits (1 <= k < length).
        vocab: number of distinct symbols (chance accuracy is 1 / vocab).
        seed: an int or a ``numpy.random.Generator`` (the same seed gives the same batch).

    Returns:
        ``(tokens, targets)``, both int64 of shape (batch, length); ``targets[:, t] = tokens[:, t - k]``
        for t >= k and IGNORE before.
    """
    batch = as_int("batch", batch, minimum=1, maximum=4096)
    length = as_int("length", length, minimum=2, maximum=MAX_POSITIONS)
    k = as_int("k (the look-back offset)", k, minimum=1)
    vocab = as_int("vocab", vocab, minimum=2, maximum=4096)
    if k >= length:
        raise ValueError(f"k (the look-back offset) must be shorter than the sequence: k = {k}, length = {length}.")
    check_size(batch * length, "The batch")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(as_int("seed", seed, minimum=0))
    tokens = rng.integers(0, vocab, size=(batch, length), dtype=np.int64)  # (B, L)
    targets = np.full_like(tokens, IGNORE)
    targets[:, k:] = tokens[:, :-k]
    return tokens, targets
