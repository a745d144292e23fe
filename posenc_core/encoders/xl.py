"""Transformer-XL / XLNet relative attention, as transformers 5.23's ``XLNetRelativeAttention`` computes it.

Dai et al. (2019) expand the absolute-position score (E_i + U_i)·W_q·W_k^T·(E_j + U_j) and replace every
absolute U_j of the key by a relative sinusoid R_{i−j} (with its own projection W_R) and the query's U_i by two
learned vectors shared by all queries, u and v. The score splits into four terms:

    (a) q_i·k_j          content             (b) q_i·W_R R_{i−j}   content-dependent position
    (c) u·k_j            global content bias (d) v·W_R R_{i−j}     global position bias

XLNet computes (a) + (c) as (q_i + u)·k_j (``r_w_bias``) and (b) + (d) as (q_i + v)·W_R R (``r_r_bias``), on a
table of every offset from klen down to −qlen + 1, moved into place by ``rel_shift_bnij``. R is [sin, cos]
concatenated (not interleaved), frequencies 1/10000^(2k/d_model) over the model width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._checks import as_int

__all__ = ["XlDistanceBias", "XlExample", "XlStrongestScore", "XlTerms", "xl_distance_bias", "xl_example",
           "xl_relative_sinusoid", "xl_strongest_score", "xl_terms"]


def xl_relative_sinusoid(qlen: int, klen: int, d_model: int) -> tuple[np.ndarray, np.ndarray]:
    """``relative_positional_encoding`` for bidirectional attention without memory or clamping.

    Returns:
        ``(offsets, R)``: offsets klen, klen − 1, ..., −qlen + 1 (klen + qlen,) float32 and R (klen + qlen, d_model)
        float32, row r = [sin(offset_r·f), cos(offset_r·f)] with f = 1 / 10000^(2k / d_model).
    """
    import torch

    qlen = as_int("query length", qlen, minimum=1, maximum=4096)
    klen = as_int("key length", klen, minimum=1, maximum=4096)
    d_model = as_int("d_model", d_model, minimum=2, maximum=4096)
    if d_model % 2:
        raise ValueError(f"d_model must be even: R holds a sine and a cosine per frequency; got {d_model}.")
    freq_seq = torch.arange(0, d_model, 2.0, dtype=torch.int64).float()
    inv_freq = 1 / torch.pow(10000, (freq_seq / d_model))
    pos_seq = torch.arange(klen, -qlen, -1.0, dtype=torch.int64).float()  # (klen + qlen,)
    sinusoid = pos_seq[:, None] * inv_freq
    return pos_seq.numpy(), torch.cat([torch.sin(sinusoid), torch.cos(sinusoid)], dim=-1).numpy()


@dataclass(frozen=True)
class XlExample:
    """Seeded inputs for one head of one Transformer-XL / XLNet layer (``xl_example``).

    hidden: (n, d_model) float32 hidden states.
    w_q, w_k, w_r: (d_model, 1, d_head) float32 projections W_q, W_k, W_R in XLNet's layout.
    u, v: (1, d_head) float32 the biases r_w_bias and r_r_bias.
    """

    hidden: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_r: np.ndarray
    u: np.ndarray
    v: np.ndarray


def xl_example(n: int, d_model: int = 16, d_head: int = 8, seed: int = 0) -> XlExample:
    """Seeded inputs for one head of one layer: hidden states (n, d_model), the projections W_q, W_k, W_R
    (d_model, 1, d_head) in XLNet's layout, and the biases u (r_w_bias) and v (r_r_bias) (1, d_head)."""
    n = as_int("tokens", n, minimum=1, maximum=512)
    d_model = as_int("d_model", d_model, minimum=2, maximum=256)
    d_head = as_int("d_head", d_head, minimum=1, maximum=256)
    rng = np.random.default_rng(as_int("seed", seed, minimum=0))
    std = 1.0 / math.sqrt(d_model)

    def draw(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    return XlExample(draw(n, d_model), draw(d_model, 1, d_head, scale=std), draw(d_model, 1, d_head, scale=std),
                     draw(d_model, 1, d_head, scale=std), draw(1, d_head), draw(1, d_head))


@dataclass(frozen=True)
class XlTerms:
    """The four terms of every Transformer-XL score and their sum, n tokens (``xl_terms``).

    Attributes:
        a, b, c, d: content q·k, q·W_R R, global u·k and global v·W_R R, float32 (n, n), each times 1/sqrt(d_head).
        total: ((q + u)·k + shift((q + v)·W_R R))·scale as ``rel_attn_core`` forms it, float32 (n, n).
        weights: softmax(total) over the keys, float32 (n, n).
        offset: the i − j each cell's R row stands for, (n, n).
        R: the relative sinusoid table, (2n, d_model) float32.
        offsets: the offset of each row of R, (2n,).
    """

    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    d: np.ndarray
    total: np.ndarray
    weights: np.ndarray
    offset: np.ndarray
    R: np.ndarray
    offsets: np.ndarray


def xl_terms(example: XlExample) -> XlTerms:
    """The four terms of every score and their sum, for bidirectional attention of n tokens.

    Returns:
        An ``XlTerms``: ``a``, ``b``, ``c``, ``d`` (n, n) float32, each times 1/sqrt(d_head); ``total`` (n, n) as
        ``rel_attn_core`` forms it, ((q + u)·k + shift((q + v)·W_R R))·scale; ``weights`` = softmax(total);
        ``offset`` (n, n) the i − j each cell's R row stands for; ``R`` and ``offsets`` the table.
    """
    import torch

    h = torch.from_numpy(example.hidden)[:, None]  # (n, 1, d_model): XLNet's (len, batch, width)
    n = h.shape[0]
    w_q, w_k, w_r = (torch.from_numpy(w) for w in (example.w_q, example.w_k, example.w_r))
    u, v = torch.from_numpy(example.u), torch.from_numpy(example.v)
    offsets, table = xl_relative_sinusoid(n, n, h.shape[-1])
    q = torch.einsum("ibh,hnd->ibnd", h, w_q)  # (n, 1, 1, d_head)
    k = torch.einsum("ibh,hnd->ibnd", h, w_k)
    k_r = torch.einsum("ibh,hnd->ibnd", torch.from_numpy(table)[:, None], w_r)  # (2n, 1, 1, d_head): W_R R
    scale = 1 / (q.shape[-1] ** 0.5)
    # rel_shift_bnij keeps, for query i and key j, the row whose offset is i − j: row klen − i + j
    rows = torch.arange(n)[None, :] - torch.arange(n)[:, None] + n  # (n, n)

    def shifted(full):  # (1, 1, n, 2n) -> (n, n)
        return torch.gather(full[0, 0], 1, rows)

    def dot(x, y):
        return torch.einsum("ibnd,jbnd->bnij", x, y)

    ac = dot(q + u, k)[0, 0]
    bd = shifted(dot(q + v, k_r))
    total = (ac + bd) * scale
    zero = torch.zeros_like(q)
    terms = {"a": dot(q, k)[0, 0], "b": shifted(dot(q, k_r)), "c": dot(zero + u, k)[0, 0],
             "d": shifted(dot(zero + v, k_r))}
    scaled = {name: (term * scale).numpy() for name, term in terms.items()}
    return XlTerms(**scaled, total=total.numpy(), weights=torch.softmax(total, dim=-1).numpy(),
                   offset=offsets[rows.numpy()], R=table, offsets=offsets)


@dataclass(frozen=True)
class XlDistanceBias:
    """Term (d) as a function of the offset alone (``xl_distance_bias``), n tokens.

    Attributes:
        offset: i − j from −(n − 1) to n − 1, int64 (2n − 1,).
        bias: term (d) at each offset, float32 (2n − 1,).
        spread: the largest difference between two cells of one diagonal of (d), a float (float32 rounding).
    """

    offset: np.ndarray
    bias: np.ndarray
    spread: float


def xl_distance_bias(terms: XlTerms) -> XlDistanceBias:
    """Term (d) as a function of the offset alone: ``offset`` −(n − 1) .. n − 1 (2n − 1,), ``bias`` (2n − 1,) read
    from the grid's last row and first column, and ``spread``: the largest difference between two cells of one
    diagonal (float32 rounding: v·W_R R_{i−j} knows nothing but i − j)."""
    d = np.asarray(terms.d)  # (n, n)
    n = d.shape[0]
    offset = np.arange(-(n - 1), n)
    bias = np.concatenate([d[0, :0:-1], d[:, 0]])  # i − j = −(n − 1) .. −1 from row 0, then 0 .. n − 1 from column 0
    spread = max(float(np.ptp(np.diagonal(d, k))) for k in range(-(n - 1), n))
    return XlDistanceBias(offset=offset, bias=bias, spread=spread)


@dataclass(frozen=True)
class XlStrongestScore:
    """One query's largest score split into its four terms (``xl_strongest_score``).

    Attributes:
        j: the key (an int). offset: i − j (an int).
        total: the score, as ``xl_terms`` forms it (a float).
        a, b, c, d: its four terms (floats).
    """

    j: int
    offset: int
    total: float
    a: float
    b: float
    c: float
    d: float


def xl_strongest_score(terms: XlTerms, i: int) -> XlStrongestScore:
    """Query ``i``'s largest score split into its four terms (an ``XlStrongestScore``): ``j`` (the key),
    ``offset`` (i − j), ``a``, ``b``, ``c``, ``d`` and ``total`` (their sum as ``xl_terms`` forms it)."""
    total = np.asarray(terms.total)  # (n, n)
    i = as_int("query", i, minimum=0, maximum=total.shape[0] - 1)
    j = int(np.argmax(total[i]))
    a, b, c, d = (float(term[i, j]) for term in (terms.a, terms.b, terms.c, terms.d))
    return XlStrongestScore(j=j, offset=int(terms.offset[i, j]), total=float(total[i, j]), a=a, b=b, c=c, d=d)
