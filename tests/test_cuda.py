"""The torch backend on a CUDA device: the same bits as transformers' code on that device.

Skipped where no CUDA device is visible (CI has none); run on a GPU machine with ``python -m pytest
tests/test_cuda.py tests/test_backend.py tests/test_dtypes.py``. The CPU versions of these checks are in
test_backend.py and test_dtypes.py; here the tensors, the rotary module and the rotation all live on the GPU,
where the angle product and cos / sin are CUDA kernels, not the CPU's.
"""

import logging

import numpy as np
import pytest

import posenc_core as pc
from posenc_core.attention_bias import t5_bucket_grid
from posenc_core.lab import lab_settings, run_lab
from posenc_core.rope import ROPE_LAYOUTS

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not pc.cuda_available(), reason="no CUDA device is visible")
pytest.importorskip("transformers")
from transformers import LlamaConfig  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb  # noqa: E402

logging.getLogger("transformers").setLevel(logging.ERROR)

DTYPES = [torch.bfloat16, torch.float16, torch.float32, torch.float64]
ROPE_PARAMETERS = {
    "default": {"rope_theta": 10000.0},
    "llama3": {"rope_theta": 500000.0, "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
    "yarn": {"rope_theta": 1e6, "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 256},
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("rope", list(ROPE_PARAMETERS))
def test_apply_rope_on_cuda_is_bit_identical_to_transformers_on_cuda(dtype, rope):
    config = LlamaConfig(hidden_size=256, num_attention_heads=4, head_dim=64, max_position_embeddings=16384,
                         rope_parameters=ROPE_PARAMETERS[rope])
    rotary = LlamaRotaryEmbedding(config).to("cuda", dtype)
    generator = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(2, 4, 512, 64, generator=generator, device="cuda").to(dtype)  # (batch, heads, seq, head_dim)
    positions = torch.arange(7000, 7512, device="cuda")
    cos, sin = rotary(q, positions[None])
    expected, _ = apply_rotary_pos_emb(q, q, cos, sin)
    ours = pc.apply_rope(q, positions, rotary.inv_freq, attention_factor=rotary.attention_scaling)
    assert ours.device.type == "cuda" and ours.dtype == dtype and ours.shape == q.shape
    torch.testing.assert_close(ours, expected, rtol=0, atol=0)


@pytest.mark.parametrize("layout", ROPE_LAYOUTS)
def test_numpy_input_rotated_on_cuda_matches_the_cpu(layout):
    inv, _ = pc.rope_inv_freq(64, 10000.0)
    x = np.random.default_rng(3).standard_normal((2, 3, 128, 64)).astype(np.float32)
    positions = np.arange(128) * 5
    on_gpu = pc.apply_rope(x, positions, inv, layout, backend="torch", device="cuda")
    assert on_gpu.device.type == "cuda"
    on_cpu = pc.apply_rope(x, positions, inv, layout)
    # cos and sin come from different libraries on the two devices (CUDA's and the CPU's libm): equal to a few ulp
    np.testing.assert_allclose(pc.to_numpy(on_gpu), on_cpu, rtol=0, atol=4e-6)


@pytest.mark.parametrize("call", [
    lambda **kw: pc.sinusoidal(8192, 1024, **kw),
    lambda **kw: pc.alibi_bias(16, 64, 64, **kw),
    lambda **kw: t5_bucket_grid(256, bidirectional=True, **kw),
    lambda **kw: pc.sincos_2d(32, 32, 256, **kw),
    lambda **kw: pc.rope_inv_freq(128, 500000.0, {"rope_type": "yarn", "factor": 4.0,
                                                   "original_max_position_embeddings": 8192}, **kw)[0],
], ids=["sinusoidal", "alibi_bias", "t5_bucket_grid", "sincos_2d", "rope_inv_freq"])
def test_tables_on_cuda_equal_the_numpy_tables(call):
    """Tables are built once with numpy and moved: the GPU copy holds the same bits."""
    got = call(backend="torch", device="cuda")
    assert isinstance(got, torch.Tensor) and got.device.type == "cuda"
    np.testing.assert_array_equal(pc.to_numpy(got), call())


def test_the_lab_trains_and_evaluates_on_cuda():
    result = run_lab(lab_settings(train_len=16, steps=60, device="cuda"), ["rope", "alibi"],
                        with_attention=False)
    for name in ("rope", "alibi"):
        accuracy = result.methods[name].accuracy
        assert len(accuracy) == 4 and all(a is None or 0.0 <= a <= 1.0 for a in accuracy)
