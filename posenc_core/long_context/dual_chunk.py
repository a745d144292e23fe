"""Dual chunk attention (DCA) as vLLM serves Qwen2.5-1M: which rotary position each query and key uses, and the
relative distance every (query, key) score sees.

vLLM splits the sequence into chunks of ``chunk_len = chunk_size - local_size`` tokens
(``vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py``, ``DualChunkRotaryEmbedding``). Keys rotate by
their position modulo ``chunk_len``. Each query is rotated three ways and each copy meets one block of keys
(``vllm/attention/backends/dual_chunk_flash_attn.py``, ``DualChunkFlashAttentionImpl.``
``_dual_chunk_flash_attn_prefill_func`` and ``_dual_chunk_flash_attn_decoding``, which build the same blocks):

- intra: the keys of the query's own chunk, causal; the query at ``pos % chunk_len`` (``cos_sin_q_cache``);
- successive: every key of the chunk just before; the query at ``min(pos % chunk_len + chunk_len, chunk_size)``
  (``cos_sin_qc_cache``);
- inter: every key of the chunks before that; every query at ``min(2 chunk_len - 1, chunk_size)``
  (``cos_sin_qc_cache[chunk_len - 1]``).

vLLM forms these positions as float32 ``torch.arange`` values (plus ``chunk_len``, clamped, modulo); below 2^24
each of them is a whole number held exactly, so the integers here are its float32 values bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._checks import MAX_ELEMENTS, as_int

__all__ = ["DCA_DEFAULTS", "DCA_KINDS", "DcaKind", "DualChunkGrid", "DualChunkPositions", "DualChunkSettings",
           "DualChunkSummary", "MAX_DCA_POSITION", "dual_chunk_grid", "dual_chunk_positions", "dual_chunk_settings",
           "dual_chunk_summary"]

# What a (query, key) score is: its code in ``DualChunkGrid.kind`` is the index here (0: the causal mask hides it).
DcaKind = Literal["masked", "intra", "successive", "inter"]
DCA_KINDS: tuple[DcaKind, ...] = ("masked", "intra", "successive", "inter")
# The attention backend's defaults for keys a config leaves out (DualChunkFlashAttentionMetadataBuilder.build and
# DualChunkFlashAttentionImpl.__init__: dual_chunk_attention_config.get(key, default)).
DCA_DEFAULTS: dict[str, int] = {"chunk_size": 8192, "local_size": 1024, "original_max_position_embeddings": 0}
MAX_DCA_POSITION = 1 << 24  # every whole number up to here is exact in float32, as vLLM holds the positions
BLOCK_SIZE = 16  # vLLM's default paged-cache block: chunk_len must be a multiple of the block size


@dataclass(frozen=True)
class DualChunkSettings:
    """A ``dual_chunk_attention_config`` as vLLM reads it.

    Fields:
        chunk_size: the largest distance any score sees (the trained range DCA keeps to).
        local_size: the part of a chunk the successive query's offset may run past ``chunk_len`` (clamped there).
        original_max_position_embeddings: the length the attention scale is counted from (0: no scaling).
        chunk_len: ``chunk_size - local_size``, the tokens per chunk.
        defaulted: the keys the config left out, which took the backend's ``DCA_DEFAULTS``.
    """

    chunk_size: int
    local_size: int
    original_max_position_embeddings: int
    chunk_len: int
    defaulted: tuple[str, ...] = ()


def _settings(chunk_size, local_size, block_size=BLOCK_SIZE) -> tuple[int, int, int]:
    chunk_size = as_int("chunk_size", chunk_size, minimum=1, maximum=MAX_DCA_POSITION)
    local_size = as_int("local_size", local_size, minimum=0)
    if local_size >= chunk_size:
        raise ValueError(f"local_size must be smaller than chunk_size ({chunk_size:,}), so that a chunk holds at "
                         f"least one token, but got {local_size:,}.")
    block_size = as_int("block_size", block_size, minimum=1, maximum=MAX_DCA_POSITION)
    chunk_len = chunk_size - local_size
    if chunk_len % block_size:
        raise ValueError(f"chunk_size - local_size must be a multiple of the cache's block_size ({block_size}), as "
                         f"vLLM's dual-chunk attention requires, but got {chunk_len:,}.")
    return chunk_size, local_size, chunk_len


def dual_chunk_settings(config: Mapping, block_size: int = BLOCK_SIZE) -> DualChunkSettings:
    """Read a ``dual_chunk_attention_config`` dict as vLLM does.

    The rotary class takes ``chunk_size`` and ``local_size`` as required arguments (``get_rope`` passes only the keys
    the dict holds), so a dict without them fails to load; the attention backend's defaults (``DCA_DEFAULTS``) then
    only ever fill ``original_max_position_embeddings``, reported in ``defaulted``.

    Args:
        config: the ``dual_chunk_attention_config`` of a config.json.
        block_size: the paged cache's block size (vLLM's default 16).

    Returns:
        ``DualChunkSettings``.
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"dual_chunk_attention_config must be a JSON object, but got {config!r}.")
    for key in ("chunk_size", "local_size"):
        if key not in config:
            raise ValueError(f"dual_chunk_attention_config needs {key}: vLLM's DualChunkRotaryEmbedding takes it "
                             "with no default.")
    chunk_size, local_size, chunk_len = _settings(config["chunk_size"], config["local_size"], block_size)
    defaulted = tuple(k for k in ("original_max_position_embeddings",) if k not in config)
    original = as_int("original_max_position_embeddings",
                      config.get("original_max_position_embeddings", DCA_DEFAULTS["original_max_position_embeddings"]),
                      minimum=0, maximum=MAX_DCA_POSITION)
    return DualChunkSettings(chunk_size, local_size, original, chunk_len, defaulted)


@dataclass(frozen=True)
class DualChunkPositions:
    """The rotary position of every token under DCA, as vLLM's caches index them (float32, as vLLM holds them).

    Fields:
        key: (n,) the key's position, ``pos % chunk_len``.
        query_intra: (n,) the query against its own chunk, ``pos % chunk_len``.
        query_successive: (n,) the query against the chunk before, ``min(pos % chunk_len + chunk_len, chunk_size)``.
        query_inter: (n,) the query against older chunks, ``min(2 chunk_len - 1, chunk_size)`` for every token.
        chunk: (n,) int64, the chunk each token is in, ``pos // chunk_len``.
    """

    key: np.ndarray
    query_intra: np.ndarray
    query_successive: np.ndarray
    query_inter: np.ndarray
    chunk: np.ndarray


def dual_chunk_positions(n: int, chunk_size: int, local_size: int, block_size: int = BLOCK_SIZE
                         ) -> DualChunkPositions:
    """Rotary positions of tokens 0..n-1 under DCA (``DualChunkPositions``).

    Args:
        n: tokens, at most 2^24 (vLLM's float32 positions are whole numbers up to there).
        chunk_size, local_size: the ``dual_chunk_attention_config`` values.
        block_size: the paged cache's block size (chunk_size - local_size must be a multiple of it).

    Returns:
        ``DualChunkPositions``: float32 arrays of shape (n,), and the chunk index (n,) int64.
    """
    n = as_int("n", n, minimum=1, maximum=MAX_DCA_POSITION)
    chunk_size, local_size, chunk_len = _settings(chunk_size, local_size, block_size)
    pos = np.arange(n, dtype=np.int64)  # (n,)
    within = pos % chunk_len  # (n,)
    successive = np.minimum(within + chunk_len, chunk_size)  # (n,)
    inter = np.full(n, min(2 * chunk_len - 1, chunk_size), dtype=np.int64)  # (n,)
    return DualChunkPositions(within.astype(np.float32), within.astype(np.float32),
                              successive.astype(np.float32), inter.astype(np.float32), pos // chunk_len)


@dataclass(frozen=True)
class DualChunkGrid:
    """The relative distance every (query, key) score of a sequence sees under DCA, beside plain RoPE's.

    Fields:
        distance: (n, n) float64, query position minus key position as the score's rotations see it; NaN where the
            causal mask hides the key (key after query).
        kind: (n, n) int8, the index in ``DCA_KINDS`` of the block the score is in (0: masked).
        plain: (n, n) float64, plain RoPE's distance i - j; NaN where masked.
    """

    distance: np.ndarray
    kind: np.ndarray
    plain: np.ndarray


def dual_chunk_grid(n: int, chunk_size: int, local_size: int, block_size: int = BLOCK_SIZE) -> DualChunkGrid:
    """Every (query i, key j) score's distance and kind under DCA for tokens 0..n-1 (``DualChunkGrid``).

    Args:
        n: tokens (n x n pairs, at most the core's element cap).
        chunk_size, local_size: the ``dual_chunk_attention_config`` values.
        block_size: the paged cache's block size (chunk_size - local_size must be a multiple of it).

    Returns:
        ``DualChunkGrid`` of (n, n) arrays.
    """
    n = as_int("n", n, minimum=1, maximum=math.isqrt(MAX_ELEMENTS // 4))  # five (n, n) arrays live at once
    at = dual_chunk_positions(n, chunk_size, local_size, block_size)
    chunk_q, chunk_k = at.chunk[:, None], at.chunk[None, :]  # (n, 1), (1, n)
    pos = np.arange(n)
    causal = pos[:, None] >= pos[None, :]  # (n, n)
    kind = np.where(chunk_q == chunk_k, 1, np.where(chunk_q == chunk_k + 1, 2, 3)).astype(np.int8)  # (n, n)
    kind[~causal] = 0
    query = np.choose(kind, [at.query_intra[:, None], at.query_intra[:, None], at.query_successive[:, None],
                             at.query_inter[:, None]])  # (n, n) float32: the query copy each score uses
    distance = query.astype(np.float64) - at.key[None, :]  # (n, n)
    distance[~causal] = np.nan
    plain = (pos[:, None] - pos[None, :]).astype(np.float64)  # (n, n)
    plain[~causal] = np.nan
    return DualChunkGrid(distance, kind, plain)


@dataclass(frozen=True)
class DualChunkSummary:
    """What DCA does to a sequence of n tokens, without forming its n x n scores.

    Fields:
        n: tokens.
        chunk_len: tokens per chunk.
        chunks: chunks the sequence spans.
        largest: the largest distance any score sees.
        largest_by_kind: the largest distance of each kind present, keyed by ``DcaKind`` (absent: no such score).
        pairs_by_kind: how many (query, key) scores each kind holds, keyed by ``DcaKind`` (masked pairs left out).
        plain_largest: plain RoPE's largest distance, n - 1.
        scaling_factor: the attention scale vLLM multiplies keys and the softmax scale by,
            ``max(0.1 ln(n / original_max_position_embeddings) + 1, 1)`` in float32; 1 where the original is 0.
    """

    n: int
    chunk_len: int
    chunks: int
    largest: int
    largest_by_kind: dict[DcaKind, int]
    pairs_by_kind: dict[DcaKind, int]
    plain_largest: int
    scaling_factor: float


def _scaling_factor(n: int, original: int) -> float:
    """vLLM's ``(0.1 * torch.log(orig_seq_lens_tensor / original) + 1.0).clip(min=1)`` in float32 steps."""
    if original <= 0:
        return 1.0
    ratio = np.float32(n) / np.float32(original)
    return float(max(np.float32(np.float32(0.1) * np.log(ratio)) + np.float32(1.0), np.float32(1.0)))


def dual_chunk_summary(n: int, chunk_size: int, local_size: int, original_max_position_embeddings: int = 0,
                       block_size: int = BLOCK_SIZE) -> DualChunkSummary:
    """The largest distance of each kind and the pair counts for tokens 0..n-1 under DCA (``DualChunkSummary``).

    Args:
        n: tokens, at most 2^24.
        chunk_size, local_size: the ``dual_chunk_attention_config`` values.
        original_max_position_embeddings: the config's value (0: vLLM applies no attention scale).
        block_size: the paged cache's block size (chunk_size - local_size must be a multiple of it).

    Returns:
        ``DualChunkSummary``; counts are formed per chunk in closed form, so n = 1M costs no n x n array.
    """
    at = dual_chunk_positions(n, chunk_size, local_size, block_size)  # validates; (n,) arrays
    n = at.key.size
    chunk_len = chunk_size - local_size
    original = as_int("original_max_position_embeddings", original_max_position_embeddings, minimum=0,
                      maximum=MAX_DCA_POSITION)
    chunks = -(-n // chunk_len)
    sizes = [min(chunk_len, n - c * chunk_len) for c in range(chunks)]
    pairs: dict[DcaKind, int] = {"intra": sum(s * (s + 1) // 2 for s in sizes)}
    largest: dict[DcaKind, int] = {"intra": min(n, chunk_len) - 1}
    if chunks > 1:  # every query of chunk c >= 1 sees all chunk_len keys of chunk c - 1
        pairs["successive"] = sum(sizes[1:]) * chunk_len
        largest["successive"] = int(at.query_successive[chunk_len:].max())  # against key position 0
    if chunks > 2:  # every query of chunk c >= 2 sees the (c - 1) chunk_len keys before chunk c - 1
        pairs["inter"] = sum(s * (c - 1) * chunk_len for c, s in enumerate(sizes) if c >= 2)
        largest["inter"] = int(at.query_inter[0])  # against key position 0
    return DualChunkSummary(n, chunk_len, chunks, max(largest.values()), largest, pairs, n - 1,
                            _scaling_factor(n, original))
