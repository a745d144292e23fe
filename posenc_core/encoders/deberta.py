"""DeBERTa v2 / v3 disentangled attention, as transformers 5.23's ``deberta_v2`` code computes it.

Every score is the sum of three terms: content-to-content q_i·k_j, content-to-position q_i·K^r[δ(i, j)] and
position-to-content k_j·Q^r[δ(i, j)], where K^r and Q^r are the rows of one shared relative embedding table
projected by the layer's key and query weights (v3: ``share_att_key``) and δ(i, j) is the bucket of i − j
(``make_log_bucket_position``: exact up to position_buckets / 2, logarithmic beyond). Each term is divided by
sqrt(3·d), not sqrt(d): three terms of similar size. The arithmetic runs in torch float32 in the same op order
as ``DisentangledSelfAttention``, so tests can hold it to the module bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind, require_torch
from .._checks import MAX_POSITIONS, as_int, check_size
from .._types import ArrayOrTensor

__all__ = [
    "DEBERTA_V3",
    "DebertaBucketCurve",
    "DebertaExample",
    "DebertaQuery",
    "DebertaTableFacts",
    "DebertaTerms",
    "deberta_bucket",
    "deberta_bucket_curve",
    "deberta_query",
    "deberta_table_facts",
    "deberta_example",
    "deberta_relative_positions",
    "deberta_span",
    "deberta_terms",
]

# microsoft/deberta-v3-base config.json: relative_attention true, position_buckets 256, max_relative_positions -1
# (so max_position_embeddings 512 is used), share_att_key true, pos_att_type "p2c|c2p", norm_rel_ebd "layer_norm",
# hidden_size 768, 12 heads. (deberta-v2-xlarge: the same buckets, hidden 1536, 24 heads.)
# (max_relative_positions -1 reads as max_position_embeddings 512)
DEBERTA_V3 = {"position_buckets": 256, "max_relative_positions": 512, "hidden_size": 768, "num_attention_heads": 12}


@dataclass(frozen=True)
class DebertaExample:
    """Seeded inputs for one DeBERTa v3 attention layer (``deberta_example``).

    hidden: (n, hidden) float32 hidden states.
    w_q, w_k: (hidden, hidden) float32 query and key projections, nn.Linear's (out, in) layout; b_q, b_k: (hidden,).
    rel: (2·span, hidden) float32 the shared relative table (after its LayerNorm).
    heads: attention heads; position_buckets, max_relative_positions, max_position_embeddings: the config's values.
    """

    hidden: np.ndarray
    w_q: np.ndarray
    b_q: np.ndarray
    w_k: np.ndarray
    b_k: np.ndarray
    rel: np.ndarray
    heads: int
    position_buckets: int
    max_relative_positions: int
    max_position_embeddings: int = 512


@dataclass(frozen=True)
class DebertaQuery:
    """One query's row of every term of ``deberta_terms`` (``deberta_query``).

    c2c, c2p, p2c, total: (n,) the query's score terms with keys 0 .. n − 1; delta: (n,) the bucket δ(i, j).
    same_bucket: (j1, j2), the farthest-apart two keys that read the same relative row, or None.
    strongest: the key with the largest total score.
    """

    c2c: np.ndarray
    c2p: np.ndarray
    p2c: np.ndarray
    total: np.ndarray
    delta: np.ndarray
    same_bucket: tuple[int, int] | None
    strongest: int
MAX_HIDDEN = 256  # the seeded example is for reading, not for speed


def _buckets(position_buckets, max_relative_positions, max_position_embeddings=512) -> tuple[int, int]:
    """(buckets, top) as DebertaV2's modules read the config: position_buckets <= 0 (the config's -1) means no
    buckets, and max_relative_positions < 1 (its -1) means max_position_embeddings."""
    buckets = max(as_int("position_buckets", position_buckets, maximum=MAX_POSITIONS), 0)
    top = as_int("max_relative_positions", max_relative_positions, maximum=MAX_POSITIONS)
    if top < 1:
        top = as_int("max_position_embeddings", max_position_embeddings, minimum=1, maximum=MAX_POSITIONS)
    if buckets > 0 and buckets < 4:
        raise ValueError(f"position_buckets must be -1 or 0 (no buckets) or at least 4, so that half of it leaves "
                         f"an exact stretch and a log stretch; got {buckets}.")
    if buckets > 0 and top - 1 <= buckets // 2:
        raise ValueError(f"max_relative_positions ({top:,}) must exceed position_buckets / 2 + 1 "
                         f"({buckets // 2 + 1:,}): the log buckets stretch from position_buckets / 2 out to it.")
    return buckets, top


def deberta_span(position_buckets: int = 256, max_relative_positions: int = 512,
                 max_position_embeddings: int = 512) -> int:
    """att_span: half the rows of the relative table (position_buckets, or max_relative_positions without them).

    As in DebertaV2's config, position_buckets -1 means no buckets and max_relative_positions -1 means
    max_position_embeddings.
    """
    buckets, top = _buckets(position_buckets, max_relative_positions, max_position_embeddings)
    return buckets if buckets > 0 else top


@keeps_kind
def deberta_bucket(relative_pos: ArrayLike, position_buckets: int = 256, max_relative_positions: int = 512,
                   max_position_embeddings: int = 512) -> ArrayOrTensor:
    """``make_log_bucket_position``: i − j itself while |i − j| <= position_buckets / 2, then
    sign · (ceil(log(|i − j| / mid) / log((max_relative_positions − 1) / mid) · (mid − 1)) + mid).

    Args:
        relative_pos: integer array of i − j.
    Returns:
        int64 array of the same shape (the bucket; unbucketed i − j when position_buckets is 0 or -1).
    """
    buckets, top = _buckets(position_buckets, max_relative_positions, max_position_embeddings)
    rel = np.asarray(relative_pos)
    if not np.issubdtype(rel.dtype, np.integer) or rel.size > MAX_POSITIONS:
        raise ValueError(f"relative_pos must hold at most {MAX_POSITIONS:,} whole numbers (i − j).")
    if buckets == 0:
        return rel.astype(np.int64)
    torch = require_torch("DeBERTa's buckets, formed with torch as the model forms them,")
    relative = torch.from_numpy(rel.astype(np.int64))
    # transformers' op order, float32 logs included: a reordering could move a ceil across an integer
    sign = torch.sign(relative)
    mid = buckets // 2
    abs_pos = torch.where((relative < mid) & (relative > -mid), torch.tensor(mid - 1).type_as(relative),
                          torch.abs(relative))
    log_pos = torch.ceil(torch.log(abs_pos / mid) / torch.log(torch.tensor((top - 1) / mid)) * (mid - 1)) + mid
    bucket = torch.where(abs_pos <= mid, relative.type_as(log_pos), log_pos * sign)
    return bucket.to(torch.long).numpy()


def deberta_relative_positions(n: int, position_buckets: int = 256, max_relative_positions: int = 512,
                               max_position_embeddings: int = 512) -> np.ndarray:
    """``build_relative_position`` for n tokens: δ(i, j) = bucket(i − j), shape (n, n) int64."""
    n = as_int("tokens", n, minimum=1, maximum=4096)
    ids = np.arange(n, dtype=np.int64)
    return deberta_bucket(ids[:, None] - ids[None, :], position_buckets, max_relative_positions,
                          max_position_embeddings)  # (n, n)


@dataclass(frozen=True)
class DebertaBucketCurve:
    """The bucket and the table row of every distance from −D to D (``deberta_bucket_curve``).

    Attributes:
        distance: i − j from −D to D, int64 (2D + 1,).
        bucket: δ = bucket(distance), int64 (2D + 1,).
        row: clamp(bucket + span, 0, 2·span − 1), the relative table's row the content-to-position term reads,
            int64 (2D + 1,).
        first_shared: the smallest distance d > 0 whose bucket is that of d − 1 (0 if none up to D), an int.
    """

    distance: np.ndarray
    bucket: np.ndarray
    row: np.ndarray
    first_shared: int


def deberta_bucket_curve(max_distance: int, position_buckets: int = 256, max_relative_positions: int = 512,
                         max_position_embeddings: int = 512) -> DebertaBucketCurve:
    """The bucket and the table row of every distance from −max_distance to max_distance.

    Returns a ``DebertaBucketCurve``: ``distance`` (2D + 1,), ``bucket`` and ``row``: clamp(bucket + span, 0,
    2·span − 1), the row of the relative table the content-to-position term reads (the clamp catches buckets past
    the table's ends), and ``first_shared``: the smallest distance d > 0 whose bucket is that of d − 1 (0 if none
    up to max_distance).
    """
    top = as_int("max_distance", max_distance, minimum=1, maximum=MAX_POSITIONS // 2)
    span = deberta_span(position_buckets, max_relative_positions, max_position_embeddings)
    distance = np.arange(-top, top + 1, dtype=np.int64)
    bucket = deberta_bucket(distance, position_buckets, max_relative_positions, max_position_embeddings)
    ahead = bucket[top:]  # (D + 1,): distances 0 .. D
    shared = np.flatnonzero(np.diff(ahead) == 0)
    return DebertaBucketCurve(distance=distance, bucket=bucket, row=np.clip(bucket + span, 0, 2 * span - 1),
                              first_shared=int(shared[0] + 1) if shared.size else 0)


def deberta_example(n: int, hidden: int = 32, heads: int = 2, position_buckets: int = 16,
                    max_relative_positions: int = 64, seed: int = 0,
                    max_position_embeddings: int = 512) -> DebertaExample:
    """Seeded inputs for one DeBERTa v3 attention layer: hidden states, query/key projections (nn.Linear layout,
    (out, in) weight and bias) and the shared relative table of 2·span rows (after its LayerNorm)."""
    n = as_int("tokens", n, minimum=1, maximum=512)
    hidden = as_int("hidden size", hidden, minimum=2, maximum=MAX_HIDDEN)
    heads = as_int("heads", heads, minimum=1, maximum=hidden)
    if hidden % heads:
        raise ValueError(f"The hidden size ({hidden}) must be a multiple of the number of heads ({heads}).")
    span = deberta_span(position_buckets, max_relative_positions, max_position_embeddings)
    check_size(2 * span * hidden + n * hidden, "The relative table and hidden states")
    rng = np.random.default_rng(as_int("seed", seed, minimum=0))
    scale = 1.0 / math.sqrt(hidden)

    def draw(*shape, std=1.0):
        return (rng.standard_normal(shape) * std).astype(np.float32)

    return DebertaExample(draw(n, hidden), draw(hidden, hidden, std=scale), draw(hidden, std=0.1),
                          draw(hidden, hidden, std=scale), draw(hidden, std=0.1), draw(2 * span, hidden), heads,
                          int(position_buckets), int(max_relative_positions), int(max_position_embeddings))


@dataclass(frozen=True)
class DebertaTerms:
    """The three terms of every DeBERTa score, per head (``deberta_terms``); n tokens.

    Attributes:
        c2c, c2p, p2c: content → content, content → position and position → content, float32 (heads, n, n),
            each already divided by ``scale``.
        total: their sum, the score, float32 (heads, n, n).
        weights: softmax(total) over the keys, float32 (heads, n, n).
        delta: the bucket δ(i, j), int64 (n, n).
        c2p_row, p2c_row: the relative table's row each term reads, int64 (n, n).
        scale: sqrt(3·d), d the head size (a float).
    """

    c2c: np.ndarray
    c2p: np.ndarray
    p2c: np.ndarray
    total: np.ndarray
    weights: np.ndarray
    delta: np.ndarray
    c2p_row: np.ndarray
    p2c_row: np.ndarray
    scale: float


def deberta_terms(example: DebertaExample) -> DebertaTerms:
    """The three terms of every score, per head, as ``DisentangledSelfAttention`` adds them (share_att_key,
    pos_att_type p2c|c2p, no dropout).

    Returns:
        A ``DebertaTerms``: ``c2c``, ``c2p``, ``p2c``, ``total`` (heads, n, n) float32 (each already divided by
        sqrt(3·d)), ``weights`` = softmax(total) (heads, n, n), ``delta`` (n, n) the bucket δ(i, j), ``c2p_row`` and
        ``p2c_row`` (n, n) the table row each term reads, and ``scale`` = sqrt(3·d).
    """
    import torch
    import torch.nn.functional as F

    heads = example.heads
    table = (example.position_buckets, example.max_relative_positions, example.max_position_embeddings)
    span = deberta_span(*table)
    h = torch.from_numpy(example.hidden)[None]  # (1, n, hidden)
    w_q, b_q = torch.from_numpy(example.w_q), torch.from_numpy(example.b_q)
    w_k, b_k = torch.from_numpy(example.w_k), torch.from_numpy(example.b_k)

    def per_head(x):  # (1, rows, hidden) -> (heads, rows, d), as transpose_for_scores
        x = x.view(x.size()[:-1] + (heads, -1))
        return x.permute(0, 2, 1, 3).contiguous().view(-1, x.size(1), x.size(-1))

    q, k = per_head(F.linear(h, w_q, b_q)), per_head(F.linear(h, w_k, b_k))  # (heads, n, d)
    rel_table = torch.from_numpy(example.rel)[0: 2 * span][None]  # (1, 2·span, hidden)
    # (heads, 2·span, d): v3 projects the table with the content weights (share_att_key)
    pos_q, pos_k = per_head(F.linear(rel_table, w_q, b_q)), per_head(F.linear(rel_table, w_k, b_k))
    scale = torch.sqrt(torch.tensor(q.size(-1), dtype=torch.float) * 3)
    delta = torch.from_numpy(deberta_relative_positions(q.size(1), *table))  # (n, n)
    c2c = torch.bmm(q, k.transpose(-1, -2) / scale)  # the module divides the keys first
    c2p_row = torch.clamp(delta + span, 0, 2 * span - 1)
    c2p = torch.gather(torch.bmm(q, pos_k.transpose(-1, -2)), -1, c2p_row.expand(q.size(0), -1, -1)) / scale
    # p2c: each key j against the projected rows, gathered at clamp(−δ(j, i) + span) and transposed back to (i, j):
    # since the bucket is odd, −δ(j, i) = δ(i, j), so for the pair (i, j) both terms read the same row
    p2c_index = torch.clamp(-delta + span, 0, 2 * span - 1)
    p2c = torch.gather(torch.bmm(k, pos_q.transpose(-1, -2)), -1, p2c_index.expand(q.size(0), -1, -1))
    p2c = p2c.transpose(-1, -2) / scale
    total = c2c + (c2p + p2c)  # score = 0 + c2p + p2c, then added to the content scores
    return DebertaTerms(c2c=c2c.numpy(), c2p=c2p.numpy(), p2c=p2c.numpy(), total=total.numpy(),
                        weights=torch.softmax(total, dim=-1).numpy(), delta=delta.numpy(),
                        c2p_row=c2p_row.numpy(), p2c_row=p2c_index.transpose(0, 1).numpy(), scale=float(scale))


@dataclass(frozen=True)
class DebertaTableFacts:
    """The relative table of one model (``deberta_table_facts``), each an int.

    Attributes:
        rows: 2·span, the table's rows.
        parameters: rows · hidden, one table shared by every layer.
        span: the table's half size (position_buckets, or max_relative_positions without buckets).
        exact_up_to: the largest distance (tokens) with its own bucket.
        first_shared: the first distance that shares a bucket.
        last_row_from: the first distance i − j > 0 whose row is the table's last, 2·span − 1.
    """

    rows: int
    parameters: int
    span: int
    exact_up_to: int
    first_shared: int
    last_row_from: int


def deberta_table_facts(position_buckets: int = 256, max_relative_positions: int = 512, hidden: int = 768,
                        max_position_embeddings: int = 512) -> DebertaTableFacts:
    """The relative table of one model (a ``DebertaTableFacts``): ``rows`` (2·span), ``parameters`` (rows · hidden,
    one table shared by every layer), ``exact_up_to`` (the largest distance with its own bucket, position_buckets /
    2; span without buckets), ``first_shared`` (the first distance that shares a bucket), ``last_row_from`` (the
    first distance i − j > 0 whose row is the table's last, 2·span − 1)."""
    buckets, top = _buckets(position_buckets, max_relative_positions, max_position_embeddings)
    span = buckets if buckets > 0 else top
    hidden = as_int("hidden_size", hidden, minimum=1, maximum=65536)
    curve = deberta_bucket_curve(4 * max(span, top), buckets, top)
    ahead = curve.distance > 0
    last = curve.distance[ahead & (curve.row == 2 * span - 1)]
    return DebertaTableFacts(rows=2 * span, parameters=2 * span * hidden, span=span,
                             exact_up_to=buckets // 2 if buckets > 0 else span,
                             first_shared=curve.first_shared, last_row_from=int(last[0]))


def deberta_query(terms: DebertaTerms, head: int, i: int) -> DebertaQuery:
    """One query's row of every term (keys 0 .. n − 1), and two keys that read the same relative row (the same
    bucket), if any, as a ``DebertaQuery``."""
    heads, n = terms.total.shape[0], terms.total.shape[1]
    head = as_int("head", head, minimum=0, maximum=heads - 1)
    i = as_int("query", i, minimum=0, maximum=n - 1)
    c2c, c2p, p2c, total = (term[head, i] for term in (terms.c2c, terms.c2p, terms.p2c, terms.total))
    row = terms.c2p_row[i]  # (n,)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if row[a] == row[b]]
    same = max(pairs, key=lambda p: abs(p[1] - p[0])) if pairs else None
    return DebertaQuery(c2c, c2p, p2c, total, terms.delta[i], same, int(np.argmax(total)))
