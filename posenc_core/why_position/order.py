"""Why position matters: one self-attention layer cannot tell the order of its inputs.

Every number here is deterministic: token embeddings are seeded from the token text (SHA-256, see
_tokens.py) and the projection matrices from fixed names, so a link to a view shows the same numbers to
every student. Everything runs in float64, so "identical" means equal to ~1e-15, not to float32 noise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind
from .._checks import MAX_DIM, as_choice, as_int, check_size
from .._tokens import MAX_TOKENS, token_embeddings, token_seed, tokenize
from .._types import ArrayOrTensor
from ..absolute.sinusoidal import _sinusoidal64

__all__ = [
    "PERMUTATIONS",
    "POOLINGS",
    "OrderExperiment",
    "PatchExperiment",
    "demo_image",
    "order_experiment",
    "patch_experiment",
    "permutation",
    "pool",
    "self_attention",
    "shuffle_patches",
    "token_embeddings",
    "tokenize",
]

PERMUTATIONS = ("shuffle", "reverse", "swap", "custom")
POOLINGS = ("mean", "max", "sum")
MAX_IMAGE = 128


def _matrix(name: str, rows: int, cols: int) -> np.ndarray:
    """A fixed random (rows, cols) matrix with entries N(0, 1/rows), seeded from its name."""
    return np.random.default_rng(token_seed(name, "weights")).standard_normal((rows, cols)) / np.sqrt(rows)


@keeps_kind
def self_attention(x: ArrayOrTensor, seed: str = "layer") -> tuple[ArrayOrTensor, ArrayOrTensor]:
    """One head of scaled dot-product self-attention, no mask, fixed random W_q, W_k, W_v (d x d).

    Args:
        x: (n, d) input rows.
        seed: a name; the same name gives the same weights.

    Returns:
        (outputs (n, d), weights (n, n)), weights = softmax(x W_q (x W_k)^T / sqrt(d)) row by row.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"self_attention needs a (tokens, dim) matrix, but got shape {x.shape}.")
    n, d = x.shape
    as_int("dim", d, maximum=MAX_DIM)
    check_size(n * n + 3 * d * d, "The attention layer")
    q, k, v = (x @ _matrix(f"{seed}/{w}", d, d) for w in ("W_q", "W_k", "W_v"))  # (n, d) each
    scores = q @ k.T / np.sqrt(d)  # (n, n)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ v, weights


@keeps_kind
def pool(outputs: ArrayLike, how: str = "mean") -> ArrayOrTensor:
    """Summarise (n, d) outputs into one (d,) vector, as a classifier head or a sentence embedding does."""
    how = as_choice("pooling", how, POOLINGS)
    outputs = np.asarray(outputs, dtype=np.float64)
    reduce: dict[str, Callable[..., np.ndarray]] = {"mean": np.mean, "max": np.max, "sum": np.sum}
    return reduce[how](outputs, axis=0)


def _parse_order(order, n: int) -> list[int]:
    if isinstance(order, str):
        parts = [p.strip() for p in order.split(",") if p.strip()]
        try:
            order = [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"A custom order lists token numbers separated by commas, like '2,0,1'; "
                             f"got {order!r}.") from None
    order = [as_int("a token number", i, minimum=0, maximum=n - 1) for i in (order or [])]
    if len(set(order)) != len(order):
        raise ValueError("A custom order may name each token only once.")
    return order + [i for i in range(n) if i not in order]  # tokens not named keep their relative order


def permutation(n: int, kind: str = "shuffle", *, seed: int = 0, i: int = 0, j: int = 1,
                order: Sequence[int] | None = None) -> np.ndarray:
    """The new order as indices into the old sequence: reordered = tokens[perm]. Shape (n,), int.

    kind: "shuffle" (seeded), "reverse", "swap" (tokens i and j trade places), or "custom" (order is a
    list or a comma-separated string of token numbers; tokens left out follow in their original order).
    """
    n = as_int("the number of tokens", n, minimum=1, maximum=MAX_TOKENS * 64)
    kind = as_choice("reordering", kind, PERMUTATIONS)
    if kind == "reverse":
        return np.arange(n)[::-1].copy()
    if kind == "swap":
        i = as_int("the first token to swap", i, minimum=0, maximum=n - 1)
        j = as_int("the second token to swap", j, minimum=0, maximum=n - 1)
        perm = np.arange(n)
        perm[[i, j]] = perm[[j, i]]
        return perm
    if kind == "custom":
        return np.asarray(_parse_order(order, n))
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    return np.random.default_rng(seed).permutation(n)


@dataclass(frozen=True)
class OrderExperiment:
    """One attention layer run on a sentence and on a reordering of it.

    tokens, reordered: the words in the original and in the new order (lists of n str).
    perm: (n,) int, the new order as indices into the old: reordered = tokens[perm].
    out, out_reordered: (n, d) float64, the layer's outputs for each order.
    weights, weights_reordered: (n, n) float64, the attention weights for each order.
    pooled, pooled_reordered: (d,) float64, the pooled summary of each order's outputs.
    equivariance_gap: max |out_reordered - out[perm]| (0 without positions: outputs move with their tokens).
    pooled_gap: max |pooled - pooled_reordered| (0 without positions: the summary cannot tell).
    pooled_difference: (d,) float64, pooled - pooled_reordered.
    output_bound: the largest |output| of either order (one colour range for both output grids).
    """

    tokens: list[str]
    reordered: list[str]
    perm: np.ndarray
    out: np.ndarray
    out_reordered: np.ndarray
    weights: np.ndarray
    weights_reordered: np.ndarray
    pooled: np.ndarray
    pooled_reordered: np.ndarray
    equivariance_gap: float
    pooled_gap: float
    pooled_difference: np.ndarray
    output_bound: float


def order_experiment(text: str, dim: int = 16, kind: str = "reverse", *, seed: int = 0, i: int = 0, j: int = 1,
                     order: Sequence[int] | None = None, positions: bool = False,
                     pooling: str = "mean", base: float = 10000.0) -> OrderExperiment:
    """Run one attention layer on a sentence and on a reordering of it, and compare.

    Args:
        text: the sentence (split on whitespace).
        dim: embedding width (even when positions is on).
        kind, seed, i, j, order: the reordering (see permutation).
        positions: add the sinusoidal row of each slot (0, 1, ...) to the token embedding first.
        pooling: how the outputs are summarised (see pool).

    Returns:
        An OrderExperiment: both orders' words, outputs, weights and pooled summaries, and the gaps between
        them (0 without positions).
    """
    tokens = tokenize(text)
    n = len(tokens)
    dim = as_int("dim", dim, minimum=2, maximum=1024)
    perm = permutation(n, kind, seed=seed, i=i, j=j, order=order)
    reordered = [tokens[p] for p in perm]
    x, x_re = token_embeddings(tokens, dim), token_embeddings(reordered, dim)  # (n, d), entries of size 1
    if positions:
        pe = _sinusoidal64(np.arange(n), dim, base, "interleaved")  # slot k gets row k, whatever word is there
        x, x_re = x + pe, x_re + pe
    out, weights = self_attention(x)
    out_re, weights_re = self_attention(x_re)
    pooled, pooled_re = pool(out, pooling), pool(out_re, pooling)
    return OrderExperiment(tokens=tokens, reordered=reordered, perm=perm, out=out, out_reordered=out_re,
                           weights=weights, weights_reordered=weights_re, pooled=pooled, pooled_reordered=pooled_re,
                           equivariance_gap=float(np.abs(out_re - out[perm]).max()),
                           pooled_gap=float(np.abs(pooled - pooled_re).max()), pooled_difference=pooled - pooled_re,
                           output_bound=float(max(np.abs(out).max(), np.abs(out_re).max())))


def demo_image(size: int = 48) -> np.ndarray:
    """A small grey-scale picture drawn in code: a house with a door and a window, a sun, a hill.

    Returns a (size, size) float64 array in [0, 1], row 0 at the top.
    """
    size = as_int("image size", size, minimum=8, maximum=MAX_IMAGE)
    y, x = (np.mgrid[0:size, 0:size] + 0.5) / size  # (size, size) each, in (0, 1)
    img = 0.55 + 0.25 * y  # sky, lighter towards the horizon
    img = np.where((x - 0.8) ** 2 + (y - 0.18) ** 2 < 0.012, 1.0, img)  # sun
    hill = y > 0.78 - 0.08 * np.sin(np.pi * x)
    img = np.where(hill, 0.3, img)
    walls = (x > 0.2) & (x < 0.6) & (y > 0.45) & (y < 0.85)
    roof = (y > 0.22) & (y <= 0.45) & (np.abs(x - 0.4) < (y - 0.22) * 0.2 / 0.23 + 0.005)
    img = np.where(walls, 0.85, img)
    img = np.where(roof, 0.12, img)
    img = np.where((x > 0.34) & (x < 0.46) & (y > 0.62) & (y < 0.85), 0.05, img)  # door
    img = np.where((x > 0.24) & (x < 0.32) & (y > 0.52) & (y < 0.6), 0.45, img)  # window
    return np.clip(img, 0.0, 1.0)


def _check_patch(size: int, patch) -> int:
    patch = as_int("patch size", patch, minimum=1, maximum=size)
    if size % patch:
        raise ValueError(f"The patch size must divide the image size ({size}), but {patch} does not.")
    return patch


def _patches(image: np.ndarray, patch: int) -> np.ndarray:
    """(H, W) -> (H/patch * W/patch, patch*patch), patches in raster order (left to right, top to bottom)."""
    h, w = image.shape
    return image.reshape(h // patch, patch, w // patch, patch).transpose(0, 2, 1, 3).reshape(-1, patch * patch)


def _unpatch(patches: np.ndarray, h: int, w: int, patch: int) -> np.ndarray:
    return patches.reshape(h // patch, w // patch, patch, patch).transpose(0, 2, 1, 3).reshape(h, w)


def shuffle_patches(image: ArrayLike, patch: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Cut a square image into patch x patch tiles and put them back in a seeded random order.

    Returns (shuffled image (H, W), perm): tile k of the result is tile perm[k] of the input.
    """
    image = np.asarray(image, dtype=np.float64)
    if image.ndim != 2 or image.shape[0] != image.shape[1]:
        raise ValueError(f"shuffle_patches needs a square grey-scale image, but got shape {image.shape}.")
    patch = _check_patch(image.shape[0], patch)
    tiles = _patches(image, patch)
    perm = np.random.default_rng(as_int("seed", seed, minimum=0, maximum=2**32 - 1)).permutation(len(tiles))
    return _unpatch(tiles[perm], image.shape[0], image.shape[1], patch), perm


@dataclass(frozen=True)
class PatchExperiment:
    """One attention layer's pooled summary of a picture and of a copy with its patches shuffled.

    image, shuffled: (size, size) float64 in [0, 1], the picture and the shuffled copy.
    perm: (tiles,) int, tile k of the copy is tile perm[k] of the picture.
    pooled, pooled_shuffled: (dim,) float64, the pooled summary of each.
    pooled_gap: max |pooled - pooled_shuffled| (0 without positions: the layer sees a bag of patches).
    """

    image: np.ndarray
    shuffled: np.ndarray
    perm: np.ndarray
    pooled: np.ndarray
    pooled_shuffled: np.ndarray
    pooled_gap: float


def patch_experiment(size: int = 48, patch: int = 8, seed: int = 0, dim: int = 32, positions: bool = False,
                     pooling: str = "mean") -> PatchExperiment:
    """A bag of patches: the attention layer's pooled summary of the picture and of a shuffled copy.

    Each patch is flattened and projected to `dim` channels by a fixed random matrix (as ViT's patch
    embedding does), optionally plus the sinusoidal row of its raster slot, then one attention layer and a
    pooling. Without positions the two summaries are equal: the layer sees a bag of patches.

    Returns:
        A PatchExperiment.
    """
    image = demo_image(size)
    shuffled, perm = shuffle_patches(image, patch, seed)
    patch = _check_patch(size, patch)
    dim = as_int("dim", dim, minimum=2, maximum=1024)
    project = _matrix("patch_embedding", patch * patch, dim) * np.sqrt(patch * patch)  # entries of size ~1
    x, x_sh = _patches(image, patch) @ project, _patches(shuffled, patch) @ project  # (tiles, d)
    if positions:
        pe = _sinusoidal64(np.arange(x.shape[0]), dim, 10000.0, "interleaved")
        x, x_sh = x + pe, x_sh + pe
    pooled, pooled_sh = pool(self_attention(x)[0], pooling), pool(self_attention(x_sh)[0], pooling)
    return PatchExperiment(image=image, shuffled=shuffled, perm=perm, pooled=pooled, pooled_shuffled=pooled_sh,
                           pooled_gap=float(np.abs(pooled - pooled_sh).max()))
