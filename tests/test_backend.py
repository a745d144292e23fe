"""The torch backend returns tensors equal to the numpy results; the core imports without torch."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import posenc_core as pc

ROOT = str(Path(__file__).resolve().parents[1])

TABLE_CALLS = {
    "sinusoidal": lambda **kw: pc.sinusoidal(64, 32, **kw),
    "sinusoidal_at": lambda **kw: pc.sinusoidal_at([0.5, 3, 1000], 8, layout="concat", **kw),
    "rope_inv_freq": lambda **kw: pc.rope_inv_freq(64, 1e6, {"rope_type": "linear", "factor": 2}, **kw)[0],
    "rope_decay_bound": lambda **kw: pc.rope_decay_bound(64, np.arange(100), **kw),
    "alibi_slopes": lambda **kw: pc.alibi_slopes(12, **kw),
    "alibi_bias": lambda **kw: pc.alibi_bias(4, 8, 12, **kw),
    "t5_bucket": lambda **kw: pc.t5_relative_position_bucket(np.arange(-300, 300), **kw),
    "t5_bucket_grid": lambda **kw: pc.t5_bucket_grid(16, bidirectional=False, **kw),
    "sincos_2d": lambda **kw: pc.sincos_2d(4, 6, 16, **kw),
}


@pytest.mark.parametrize("name", list(TABLE_CALLS))
def test_torch_backend_equals_numpy(name):
    torch = pytest.importorskip("torch")
    expected = TABLE_CALLS[name]()
    got = TABLE_CALLS[name](backend="torch", device=pc.default_device())
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(pc.to_numpy(got), expected)


@pytest.mark.parametrize("layout", pc.ROPE_LAYOUTS)
@pytest.mark.parametrize("partial", [1.0, 0.25])
def test_apply_rope_torch_equals_numpy(layout, partial):
    torch = pytest.importorskip("torch")
    inv, _ = pc.rope_inv_freq(64, partial_rotary_factor=partial)
    x = np.random.default_rng(1).standard_normal((2, 3, 50, 64)).astype(np.float32)
    positions = np.arange(50) * 3
    expected = pc.apply_rope(x, positions, inv, layout)
    got = pc.apply_rope(torch.from_numpy(x), positions, inv, layout)
    assert isinstance(got, torch.Tensor)
    np.testing.assert_allclose(got.numpy(), expected, atol=2e-6)
    via_backend = pc.apply_rope(x, positions, inv, layout, backend="torch")
    np.testing.assert_allclose(pc.to_numpy(via_backend), expected, atol=2e-6)


def test_apply_rope_matches_transformers_rotate_half():
    torch = pytest.importorskip("torch")
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    inv, _ = pc.rope_inv_freq(128, 500000.0)
    q = torch.randn(1, 4, 33, 128, generator=torch.Generator().manual_seed(0))
    k = torch.randn(1, 4, 33, 128, generator=torch.Generator().manual_seed(1))
    positions = torch.arange(33)
    freqs = positions[:, None].float() * torch.from_numpy(inv)[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    q_ref, k_ref = llama.apply_rotary_pos_emb(q, k, emb.cos()[None], emb.sin()[None])
    torch.testing.assert_close(pc.apply_rope(q, positions, inv), q_ref)
    torch.testing.assert_close(pc.apply_rope(k, positions, inv), k_ref)


def test_core_imports_and_runs_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import importlib.util; importlib.util.find_spec = lambda name, *a: None if name == 'torch' else "
            "__import__('importlib.machinery').machinery.PathFinder.find_spec(name)\n"
            "import posenc_core as pc\n"
            "assert pc.sinusoidal(4, 4).shape == (4, 4)\n"
            "assert not pc.torch_installed()\n"
            "try:\n    pc.sinusoidal(4, 4, backend='torch')\nexcept ValueError as e:\n    print('ok', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "ok The torch backend needs PyTorch" in out.stdout


def test_core_does_not_import_ui_libraries():
    code = "import sys, posenc_core; print(sorted(m for m in ('streamlit', 'plotly') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stderr


@pytest.mark.parametrize("call, message", [
    (lambda: pc.sinusoidal(4, 4, backend="jax"), "backend must be"),
    (lambda: pc.sinusoidal(4, 4, device="cuda"), "only applies to the torch backend"),
])
def test_backend_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
