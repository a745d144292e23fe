"""The torch backend returns tensors equal to the numpy results; the core imports without torch."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import posenc_core as pc
from posenc_core._backend import BackendStatus
from posenc_core.absolute import learned_lookup, sinusoidal_at
from posenc_core.attention_bias import masked_softmax, shaw_scores, t5_bucket_grid, uniform_attention
from posenc_core.encoders import deberta_bucket
from posenc_core.images import fourier_features, nerf_encoding
from posenc_core.measures import similarity_matrix
from posenc_core.rope import ROPE_LAYOUTS, half_rows_to_interleaved, rope_angles, rope_decay_bound, round_to_dtype
from posenc_core.todays_models import (
    causal_conv,
    fox_attention,
    llama4_attn_temperature,
    path_scores,
    sink_softmax,
    stick_breaking_weights,
)
from posenc_core.why_position import pool

ROOT = str(Path(__file__).resolve().parents[1])

TABLE_CALLS = {
    "sinusoidal": lambda **kw: pc.sinusoidal(64, 32, **kw),
    "sinusoidal_at": lambda **kw: sinusoidal_at([0.5, 3, 1000], 8, layout="concat", **kw),
    "rope_inv_freq": lambda **kw: pc.rope_inv_freq(64, 1e6, {"rope_type": "linear", "factor": 2}, **kw)[0],
    "rope_decay_bound": lambda **kw: rope_decay_bound(64, np.arange(100), **kw),
    "alibi_slopes": lambda **kw: pc.alibi_slopes(12, **kw),
    "alibi_bias": lambda **kw: pc.alibi_bias(4, 8, 12, **kw),
    "t5_bucket": lambda **kw: pc.t5_relative_position_bucket(np.arange(-300, 300), **kw),
    "t5_bucket_grid": lambda **kw: t5_bucket_grid(16, bidirectional=False, **kw),
    "sincos_2d": lambda **kw: pc.sincos_2d(4, 6, 16, **kw),
}


@pytest.mark.parametrize("name", list(TABLE_CALLS))
def test_torch_backend_equals_numpy(name):
    torch = pytest.importorskip("torch")
    expected = TABLE_CALLS[name]()
    got = TABLE_CALLS[name](backend="torch", device=pc.default_device())
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(pc.to_numpy(got), expected)


@pytest.mark.parametrize("layout", ROPE_LAYOUTS)
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
            "try:\n    pc.sinusoidal(4, 4, backend='torch')\nexcept ValueError as e:\n    print('ok', e)\n"
            "print(pc.available_backends())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "ok The torch backend needs PyTorch" in out.stdout
    assert "{'numpy': 'usable', 'torch': 'no_torch', 'torch-cuda': 'no_torch'}" in out.stdout


def test_available_backends_says_why_in_codes_the_page_words():
    from page_kit.controls.settings import BACKEND_LABELS, UNAVAILABLE_BECAUSE

    status = pc.available_backends()
    assert list(status) == list(BACKEND_LABELS)
    assert status["numpy"] == "usable"
    assert status["torch"] == ("usable" if pc.torch_installed() else "no_torch")
    assert status["torch-cuda"] == ("usable" if pc.cuda_available() else
                                    "no_cuda" if pc.torch_installed() else "no_torch")
    assert set(UNAVAILABLE_BECAUSE) == set(BackendStatus.__args__) - {"usable"}  # every code has its words


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


def _arrays(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# Functions a model's tensors go into: each call's array arguments go through ``t`` (numpy as is, or a torch tensor).
KIND_CALLS = {
    "sinusoidal_at": lambda t: sinusoidal_at(t(np.array([0.5, 3.0, 10.0])), 8),
    "t5_bias_grid": lambda t: pc.t5_bias_grid(t(_arrays(32).astype(np.float32)), 6),
    "rope_decay_bound": lambda t: rope_decay_bound(16, t(np.arange(20.0))),
    "t5_relative_position_bucket": lambda t: pc.t5_relative_position_bucket(t(np.arange(-40, 40))),
    "deberta_bucket": lambda t: deberta_bucket(t(np.arange(-300, 300)), 16, 64),
    "learned_lookup": lambda t: learned_lookup(t(_arrays(16, 4)), 8),
    "masked_softmax": lambda t: masked_softmax(t(_arrays(5, 5))),
    "shaw_scores": lambda t: shaw_scores(t(_arrays(4, 8)), t(_arrays(4, 8, seed=1)), t(_arrays(5, 8, seed=2)), 2),
    "uniform_attention": lambda t: uniform_attention(t(_arrays(5, 3))),
    "resample_pos_embed": lambda t: pc.resample_pos_embed(t(_arrays(16, 8).astype(np.float32)), (4, 4), (6, 6)),
    "fourier_features": lambda t: fourier_features(t(_arrays(10, 2)), t(_arrays(4, 2, seed=1))),
    "nerf_encoding": lambda t: nerf_encoding(t(np.linspace(0, 1, 7)), 3),
    "similarity_matrix": lambda t: similarity_matrix(t(_arrays(6, 4)), "cosine"),
    "rope_angles": lambda t: rope_angles(t(np.arange(6)), t(np.array([1.0, 0.1, 0.01]))),
    "half_rows_to_interleaved": lambda t: half_rows_to_interleaved(t(_arrays(16, 4)), 2),
    "round_to_dtype": lambda t: round_to_dtype(t(_arrays(7)), "bfloat16"),
    "llama4_attn_temperature": lambda t: llama4_attn_temperature(t(np.arange(0, 40000, 997))),
    "sink_softmax": lambda t: sink_softmax(t(_arrays(3, 4)), 0.5),
    "causal_conv": lambda t: causal_conv(t(_arrays(6, 3))),
    "fox_attention": lambda t: fox_attention(t(_arrays(5, 5)), t(-np.abs(_arrays(5, seed=1)))),
    "stick_breaking_weights": lambda t: stick_breaking_weights(t(_arrays(5, 5))),
    "path_scores": lambda t: path_scores(t(_arrays(4, 3)), t(_arrays(4, 3, seed=1)), t(_arrays(4, 3, seed=2)),
                                            t(np.full(4, 2.0))),
    "pool": lambda t: pool(t(_arrays(5, 3)), "max"),
}


def _leaves(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # a typed result: its fields, in order
        return [leaf for f in dataclasses.fields(value) for leaf in _leaves(getattr(value, f.name))]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


@pytest.mark.parametrize("name", list(KIND_CALLS))
def test_a_tensor_in_gives_tensors_out_with_the_numpy_values(name):
    torch = pytest.importorskip("torch")
    expected = KIND_CALLS[name](lambda a: a)
    got = KIND_CALLS[name](torch.from_numpy)
    arrays = [(e, g) for e, g in zip(_leaves(expected), _leaves(got), strict=True) if isinstance(e, np.ndarray)]
    assert arrays, "the call returns no array"
    for e, g in arrays:
        assert isinstance(g, torch.Tensor) and g.device.type == "cpu"
        np.testing.assert_array_equal(g.numpy(), e)
