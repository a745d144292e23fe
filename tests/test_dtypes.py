"""Tensors a user brings: every floating dtype torch has, computed as the reference code does."""

import logging

import numpy as np
import pytest

import posenc_core as pc
from posenc_core.images import learned_like_grid, patch_similarity_maps
from posenc_core.rope import rope_angles

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from transformers import LlamaConfig  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb  # noqa: E402

logging.getLogger("transformers").setLevel(logging.ERROR)

DTYPES = [torch.bfloat16, torch.float16, torch.float32, torch.float64]
ROPE_PARAMETERS = {
    "default": {"rope_theta": 10000.0},
    "yarn": {"rope_theta": 1e6, "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 256},
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("rope", list(ROPE_PARAMETERS))
def test_apply_rope_is_bit_identical_to_transformers_in_every_dtype(dtype, rope):
    """A model cast to ``dtype`` holds its inv_freq buffer in that dtype too; the rotation must still match."""
    config = LlamaConfig(hidden_size=256, num_attention_heads=4, head_dim=64, max_position_embeddings=1024,
                         rope_parameters=ROPE_PARAMETERS[rope])
    rotary = LlamaRotaryEmbedding(config).to(dtype)
    generator = torch.Generator().manual_seed(0)
    q = torch.randn(2, 4, 300, 64, generator=generator).to(dtype)  # (batch, heads, seq, head_dim)
    positions = torch.arange(700, 1000)
    cos, sin = rotary(q, positions[None])
    expected, _ = apply_rotary_pos_emb(q, q, cos, sin)
    ours = pc.apply_rope(q, positions, rotary.inv_freq, attention_factor=rotary.attention_scaling)
    assert ours.dtype == dtype and ours.shape == q.shape
    torch.testing.assert_close(ours, expected, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_rope_angles_upcast_like_the_model(dtype):
    inv = torch.from_numpy(pc.rope_inv_freq(64)[0]).to(dtype)
    positions = torch.arange(0, 2048, 7).to(dtype)
    angles = rope_angles(positions, inv)  # tensors in, a tensor out
    expected = positions.float()[:, None] * inv.float()[None, :]
    assert angles.dtype == torch.float32
    assert torch.equal(angles, expected)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_to_numpy_holds_every_dtype_exactly(dtype):
    tensor = torch.randn(50, generator=torch.Generator().manual_seed(1)).to(dtype)
    array = pc.to_numpy(tensor)
    numpy_dtype = {torch.bfloat16: np.float32, torch.float16: np.float16, torch.float32: np.float32,
                   torch.float64: np.float64}[dtype]
    assert array.dtype == numpy_dtype
    np.testing.assert_array_equal(array.astype(np.float64), tensor.double().numpy())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_patch_similarity_maps_accept_every_dtype(dtype):
    table = torch.from_numpy(pc.sincos_2d(6, 6, 32)).to(dtype)
    maps = patch_similarity_maps(table, 6, 6)
    np.testing.assert_array_equal(maps, patch_similarity_maps(table.double().numpy(), 6, 6))


def _timm(posemb, old, new, prefix, mode="bicubic", antialias=True):
    """timm's resample_abs_pos_embed: .float(), interpolate, .to(orig_dtype), prefix re-attached."""
    head, grid = posemb[:prefix], posemb[prefix:]
    orig_dtype = grid.dtype
    grid = grid.float().reshape(1, old[0], old[1], -1).permute(0, 3, 1, 2)
    grid = torch.nn.functional.interpolate(grid, size=new, mode=mode, antialias=antialias)
    grid = grid.permute(0, 2, 3, 1).reshape(new[0] * new[1], -1).to(orig_dtype)
    return torch.cat([head, grid], dim=0)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_resample_pos_embed_matches_timm_in_every_dtype(dtype):
    table = torch.from_numpy(np.vstack([np.zeros((1, 24), np.float32), learned_like_grid(7, 7, 24, seed=3)]))
    table = table.to(dtype)
    ours = pc.resample_pos_embed(table, (7, 7), (12, 12), 1)  # a tensor in, timm's tensor out, in its dtype
    expected = _timm(table, (7, 7), (12, 12), 1)
    assert ours.dtype == dtype
    assert torch.equal(ours[1:], expected[1:])
    as_array = pc.resample_pos_embed(table.float().numpy() if dtype != torch.float64 else table.numpy(), (7, 7),
                                     (12, 12), 1)
    assert as_array.dtype == np.float32


def test_numpy_input_with_torch_backend_returns_a_tensor_as_documented():
    x = np.random.default_rng(0).standard_normal((3, 8, 16)).astype(np.float32)
    inv = pc.rope_inv_freq(16)[0]
    as_tensor = pc.apply_rope(x, np.arange(8), inv, backend="torch")
    assert isinstance(as_tensor, torch.Tensor) and as_tensor.dtype == torch.float32
    as_array = pc.apply_rope(x, np.arange(8), inv)
    assert isinstance(as_array, np.ndarray)
    np.testing.assert_allclose(as_tensor.numpy(), as_array, rtol=0, atol=2e-6)
    back = pc.apply_rope(torch.from_numpy(x).to(torch.bfloat16), np.arange(8), inv, backend="numpy")
    assert isinstance(back, np.ndarray) and back.dtype == np.float32  # numpy has no bfloat16
