"""Dual chunk attention (posenc_core/long_context/dual_chunk.py) against an independent re-implementation of vLLM's
position arithmetic, written here from its source:

- vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py, DualChunkRotaryEmbedding._compute_cos_sin_cache
  (the float32 position tables q_t, qc_t, k_t) and forward_native (which table each query copy and the key index);
- vllm/attention/backends/dual_chunk_flash_attn.py, DualChunkFlashAttentionImpl._dual_chunk_flash_attn_prefill_func
  (the loop over chunks: intra keys [prev_chunk_end_pos, end) causal, successive keys one chunk back, inter keys
  [0, prev_chunk_end_pos - chunk_len)), and DualChunkFlashAttentionMetadata.prefill_metadata / decode_metadata
  (scaling_factor = (0.1 * log(orig_seq_lens / original) + 1).clip(min=1)).
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core.long_context import (
    DCA_DEFAULTS,
    DCA_KINDS,
    dual_chunk_grid,
    dual_chunk_positions,
    dual_chunk_settings,
    dual_chunk_summary,
)

torch = pytest.importorskip("torch")


def vllm_tables(chunk_size, local_size, max_positions):
    """The five float32 position tables of _compute_cos_sin_cache, before they become angles."""
    chunk_len = chunk_size - local_size
    q_t = torch.arange(chunk_len, dtype=torch.float)
    qc_t = (torch.arange(chunk_len, dtype=torch.float) + chunk_len).clamp(max=chunk_size)
    k_t = torch.arange(max_positions, dtype=torch.float) % chunk_len
    return q_t, qc_t, k_t


def vllm_scores(n, chunk_size, local_size):
    """(query, key) -> (query position, key position, stage) for a whole prompt, walking the prefill loop."""
    chunk_len = chunk_size - local_size
    q_t, qc_t, k_t = vllm_tables(chunk_size, local_size, n)
    positions = torch.arange(n)
    key = k_t[positions]
    query = q_t[positions % chunk_len]
    query_succ = qc_t[positions % chunk_len]
    query_inter = qc_t[chunk_len - 1].repeat(n)
    seen = {}
    begin, k_length = 0, n  # q.shape[0] == k_length: the whole prompt at once
    while begin < k_length:
        prev_chunk_end_pos = (begin // chunk_len) * chunk_len
        end = min(prev_chunk_end_pos + chunk_len, k_length)
        for i in range(begin, end):
            for j in range(prev_chunk_end_pos, i + 1):  # causal=True, equal lengths
                seen[i, j] = (query[i].item(), key[j].item(), "intra")
            if prev_chunk_end_pos - chunk_len >= 0:
                for j in range(prev_chunk_end_pos - chunk_len, prev_chunk_end_pos):  # causal=False
                    seen[i, j] = (query_succ[i].item(), key[j].item(), "successive")
            if prev_chunk_end_pos - chunk_len * 2 >= 0:
                for j in range(0, prev_chunk_end_pos - chunk_len):
                    seen[i, j] = (query_inter[i].item(), key[j].item(), "inter")
        begin = end
    return seen


@pytest.mark.parametrize("n,chunk_size,local_size", [(40, 12, 4), (37, 8, 0), (50, 20, 12), (9, 16, 8)])
def test_grid_equals_vllms_prefill_blocks_and_float32_positions(n, chunk_size, local_size):
    grid = dual_chunk_grid(n, chunk_size, local_size, block_size=1)
    seen = vllm_scores(n, chunk_size, local_size)
    for i in range(n):
        for j in range(n):
            if (i, j) not in seen:
                assert grid.kind[i, j] == 0 and np.isnan(grid.distance[i, j])
                continue
            q, k, stage = seen[i, j]
            assert DCA_KINDS[grid.kind[i, j]] == stage
            assert grid.distance[i, j] == q - k
    assert len(seen) == n * (n + 1) // 2  # every causal pair is scored once


def test_positions_are_vllms_float32_tables_bit_for_bit():
    chunk_size, local_size, n = 262144, 8192, 1 << 20
    at = dual_chunk_positions(n, chunk_size, local_size)
    q_t, qc_t, k_t = vllm_tables(chunk_size, local_size, n)
    chunk_len = chunk_size - local_size
    idx = torch.arange(n) % chunk_len
    assert at.key.dtype == np.float32
    assert np.array_equal(at.key.view(np.int32), k_t.numpy().view(np.int32))
    assert np.array_equal(at.query_intra.view(np.int32), q_t[idx].numpy().view(np.int32))
    assert np.array_equal(at.query_successive.view(np.int32), qc_t[idx].numpy().view(np.int32))
    assert np.all(at.query_inter == qc_t[chunk_len - 1].item())


def test_qwen25_1m_at_a_million_tokens():
    # Qwen2.5-7B/14B-Instruct-1M config.json: chunk_size 262144, local_size 8192, original 262144
    s = dual_chunk_summary(1_000_000, 262144, 8192, 262144)
    assert (s.chunk_len, s.chunks, s.largest, s.plain_largest) == (253952, 4, 262144, 999_999)
    assert s.largest_by_kind == {"intra": 253951, "successive": 262144, "inter": 262144}
    assert sum(s.pairs_by_kind.values()) == 1_000_000 * 1_000_001 // 2
    expected = (0.1 * torch.log(torch.tensor([1_000_000], dtype=torch.int) / 262144) + 1.0).clip(min=1)
    assert s.scaling_factor == expected.item()


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 3000), original=st.integers(1, 1 << 20))
def test_scaling_factor_is_torchs_float32(n, original):
    expected = (0.1 * torch.log(torch.tensor([n], dtype=torch.int) / original) + 1.0).clip(min=1)
    assert dual_chunk_summary(n, 64, 16, original).scaling_factor == expected.item()
    assert dual_chunk_summary(n, 64, 16, 0).scaling_factor == 1.0


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 160), chunk_len=st.integers(1, 40), local=st.integers(0, 40))
def test_properties(n, chunk_len, local):
    chunk_size = chunk_len + local
    grid = dual_chunk_grid(n, chunk_size, local, block_size=1)
    scored = grid.kind > 0
    assert np.array_equal(scored, ~np.isnan(grid.plain))
    d = grid.distance[scored]
    assert d.min() >= 0 and d.max() <= chunk_size  # no score sees a distance past the trained range
    intra = grid.kind == 1
    assert np.array_equal(grid.distance[intra], grid.plain[intra])  # inside a chunk: plain RoPE's distance
    succ = grid.kind == 2
    assert np.all(grid.distance[succ] >= 1)  # a key of an earlier chunk is never at distance 0
    # the successive query keeps the exact distance while pos % chunk_len <= local_size
    exact = succ & (np.arange(n)[:, None] % chunk_len <= local)
    assert np.array_equal(grid.distance[exact], grid.plain[exact])
    summary = dual_chunk_summary(n, chunk_size, local, block_size=1)
    assert summary.largest == d.max()
    for code, kind in enumerate(DCA_KINDS[1:], start=1):
        mask = grid.kind == code
        assert summary.pairs_by_kind.get(kind, 0) == mask.sum()
        if mask.any():
            assert summary.largest_by_kind[kind] == grid.distance[mask].max()


def test_small_sequence_is_one_chunk_of_plain_rope():
    grid = dual_chunk_grid(16, 48, 16)  # chunk_len 32 > 16 tokens
    assert np.array_equal(grid.distance, grid.plain, equal_nan=True)
    assert set(np.unique(grid.kind)) == {0, 1}


def test_settings_read_as_vllm_reads_them():
    s = dual_chunk_settings({"chunk_size": 262144, "local_size": 8192, "original_max_position_embeddings": 32768})
    assert (s.chunk_size, s.local_size, s.original_max_position_embeddings, s.chunk_len, s.defaulted) == \
        (262144, 8192, 32768, 253952, ())
    s = dual_chunk_settings({"chunk_size": 8192, "local_size": 1024})
    assert s.original_max_position_embeddings == DCA_DEFAULTS["original_max_position_embeddings"] == 0
    assert s.defaulted == ("original_max_position_embeddings",)


@pytest.mark.parametrize("call,field", [
    (lambda: dual_chunk_settings([1, 2]), "dual_chunk_attention_config"),
    (lambda: dual_chunk_settings({"local_size": 8}), "chunk_size"),
    (lambda: dual_chunk_settings({"chunk_size": 64}), "local_size"),
    (lambda: dual_chunk_settings({"chunk_size": 64, "local_size": 16, "original_max_position_embeddings": -1}),
     "original_max_position_embeddings"),
    (lambda: dual_chunk_positions(0, 64, 16), "n"),
    (lambda: dual_chunk_positions((1 << 24) + 1, 64, 16), "n"),
    (lambda: dual_chunk_positions(8, 0, 0), "chunk_size"),
    (lambda: dual_chunk_positions(8, (1 << 24) + 16, 0), "chunk_size"),
    (lambda: dual_chunk_positions(8, 64, -1), "local_size"),
    (lambda: dual_chunk_positions(8, 64, 64), "local_size"),
    (lambda: dual_chunk_positions(8, 64, 8), "block_size"),
    (lambda: dual_chunk_positions(8, 64, 0, block_size=0), "block_size"),
    (lambda: dual_chunk_positions(8.5, 64, 16), "n"),
    (lambda: dual_chunk_grid(math.isqrt(1 << 25), 64, 16), "n"),
    (lambda: dual_chunk_summary(8, 64, 16, -5), "original_max_position_embeddings"),
])
def test_refusals_name_the_field(call, field):
    with pytest.raises(ValueError, match=field):
        call()
