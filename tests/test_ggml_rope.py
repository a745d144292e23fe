"""ggml's rope arithmetic: the core's emulation against the same arithmetic written in C (tests/ggml_rope_reference.c,
compiled here with the system's C compiler and called through ctypes), bit for bit, on several heads and bases."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest
import torch

import posenc_core as pc
from posenc_core._libm import c_logf
from posenc_core.inference import (
    MAX_CALLS,
    ggml_corr_dims,
    ggml_rope_cache,
    ggml_rope_rows,
    ggml_theta_scale,
    kshift,
    kshift_error_curve,
)

HEADS = [(64, 100000.0), (64, 10000.0), (128, 10000.0), (128, 500000.0), (80, 10000.0), (96, 1000000.0),
         (256, 1000000.0), (32, 25000.0)]
F = ctypes.POINTER(ctypes.c_float)


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler: the ggml reference is compiled C")
    out = tmp_path_factory.mktemp("ggml") / "ggml_rope_reference.so"
    source = __file__.replace("test_ggml_rope.py", "ggml_rope_reference.c")
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-ffp-contract=off", "-o", str(out), source, "-lm"],
                   check=True)
    lib = ctypes.CDLL(str(out))
    lib.ref_cache.argtypes = [ctypes.c_float, ctypes.c_int, ctypes.c_float, ctypes.c_float, ctypes.c_float,
                              ctypes.c_float, F, F, F, F]
    lib.ref_corr_dims.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_float, ctypes.c_float, ctypes.c_float, F]
    lib.ref_rope_rows.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_float]
    for name in ("ref_shift_f32", "ref_shift_f16"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_float, ctypes.c_float,
                                       ctypes.c_int]
    return lib


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(F)


def _c_cache(ref, position, n_dims, base, freq_scale=1.0, ext=0.0, attn=1.0, corr=(0.0, 0.0)):
    out = [np.empty(n_dims // 2, dtype=np.float32) for _ in range(3)]
    dims = np.asarray(corr, dtype=np.float32)
    ref.ref_cache(position, n_dims, base, freq_scale, ext, attn, _ptr(dims), *(_ptr(a) for a in out))
    return out


@pytest.mark.parametrize("n_dims,base", HEADS)
def test_theta_scale_is_the_c_librarys_powf(ref, n_dims, base):
    theta, _, _ = _c_cache(ref, 1.0, n_dims, base)
    assert ggml_theta_scale(n_dims, base) == theta[1]


@pytest.mark.parametrize("n_dims,base", HEADS)
@pytest.mark.parametrize("position", [1, -4, -512, 3000, 131071])
def test_the_cache_row_is_ggmls_bit_for_bit(ref, n_dims, base, position):
    row = ggml_rope_cache(position, n_dims, base)
    theta, cos, sin = _c_cache(ref, position, n_dims, base)
    for mine, theirs in ((row.theta, theta), (row.cos, cos), (row.sin, sin)):
        assert mine.dtype == np.float32
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("n_dims,base,orig,scale", [(128, 1000000.0, 32768, 0.25), (64, 10000.0, 4096, 0.125),
                                                    (128, 500000.0, 8192, 0.5)])
def test_yarn_rows_are_ggmls_bit_for_bit(ref, n_dims, base, orig, scale):
    dims = np.empty(2, dtype=np.float32)
    ref.ref_corr_dims(n_dims, orig, base, 32.0, 1.0, _ptr(dims))
    assert tuple(ggml_corr_dims(n_dims, orig, base, 32.0, 1.0)) == tuple(dims)
    for position in (1, 700, 40000):
        row = ggml_rope_cache(position, n_dims, base, freq_scale=scale, ext_factor=1.0, corr_dims=tuple(dims))
        theta, cos, sin = _c_cache(ref, position, n_dims, base, scale, 1.0, 1.0, tuple(dims))
        np.testing.assert_array_equal(row.theta, theta)
        np.testing.assert_array_equal(row.cos, cos)
        np.testing.assert_array_equal(row.sin, sin)
        assert row.mscale == np.float32(1) * (np.float32(1) + np.float32(0.1) * c_logf(np.float32(1) / scale))


@pytest.mark.parametrize("n_dims,base", HEADS)
def test_rows_rotated_to_their_positions_are_ggmls_bit_for_bit(ref, n_dims, base):
    rows = _keys(50, n_dims, 3)
    positions = np.concatenate((np.arange(40), [1000, 4095, 8191, 32767, 131071, 500000, -3, -700, 2**20, 77]))
    theirs = rows.copy()
    ref.ref_rope_rows(theirs.ctypes.data, positions.astype(np.int64).ctypes.data, 50, n_dims, base)
    np.testing.assert_array_equal(ggml_rope_rows(rows, positions, base), theirs)


def _keys(n, d, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)


@pytest.mark.parametrize("n_dims,base", HEADS)
def test_the_k_shift_in_float32_is_ggmls_bit_for_bit(ref, n_dims, base):
    keys = _keys(24, n_dims)
    theirs = keys.copy()
    ref.ref_shift_f32(theirs.ctypes.data, 24, n_dims, -512.0, base, 50)
    np.testing.assert_array_equal(kshift(keys, -512, base, dtype="float32", times=50), theirs)


@pytest.mark.parametrize("n_dims,base", HEADS[:4])
def test_the_k_shift_in_float16_is_ggmls_bit_for_bit(ref, n_dims, base):
    keys = _keys(24, n_dims, 1).astype(np.float16)
    theirs = keys.copy()
    ref.ref_shift_f16(theirs.ctypes.data, 24, n_dims, -300.0, base, 40)
    mine = kshift(torch.from_numpy(keys), -300, base, dtype="float16", times=40)
    np.testing.assert_array_equal(mine, theirs.astype(np.float32))


def test_the_smollm2_float32_error_after_1000_shifts_is_ggmls(ref):
    """The error curve's float32 keys after 1,000 shifts of SmolLM2's head are the C kernel's keys: turned to their
    first positions and shifted back 1,000 times by the kernel's arithmetic."""
    n_dims, base, n_discard, n_keys = 64, 100000.0, 4, 32
    curve = kshift_error_curve(n_dims, base, n_discard, 1000, "float32", n_keys=n_keys)
    rng = np.random.default_rng(0)
    raw = rng.standard_normal((n_keys, n_dims))
    q_raw = rng.standard_normal(n_dims)
    final = np.arange(1, n_keys + 1)
    stored = raw.astype(np.float32)  # turned to its first position by the kernel, then shifted 1,000 times
    ref.ref_rope_rows(stored.ctypes.data, (final + 1000 * n_discard).astype(np.int64).ctypes.data, n_keys, n_dims,
                      base)
    ref.ref_shift_f32(stored.ctypes.data, n_keys, n_dims, float(-n_discard), base, 1000)
    exact_inv = pc.base_inv_freq(base, n_dims)

    def turn(x, pos):
        a = np.multiply.outer(np.asarray(pos, dtype=np.float64), exact_inv)
        h = n_dims // 2
        return np.concatenate((x[..., :h] * np.cos(a) - x[..., h:] * np.sin(a),
                               x[..., h:] * np.cos(a) + x[..., :h] * np.sin(a)), axis=-1)

    exact = turn(raw, final)
    err = stored.astype(np.float64) - exact
    assert curve.shifts[-1] == 1000
    expected = np.sqrt(np.mean(err**2)) / np.sqrt(np.mean(exact**2))
    assert curve.key_error[-1] == pytest.approx(expected, rel=1e-12)
    q = turn(q_raw, final[-1] + 1)
    score = np.sqrt(np.mean((err @ q) ** 2)) / np.sqrt(np.mean((exact @ q) ** 2))
    assert curve.score_error[-1] == pytest.approx(score, rel=1e-9)


def test_the_emulation_refuses_what_ggml_cannot_be_asked():
    with pytest.raises(ValueError, match="n_dims"):
        ggml_rope_cache(1, 63)
    with pytest.raises(ValueError, match="base"):
        ggml_rope_cache(1, 64, 0.0)
    with pytest.raises(ValueError, match="freq_factors"):
        ggml_rope_cache(1, 8, 10000.0, freq_factors=[1.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="freq_scale"):
        ggml_rope_cache(1, 8, 10000.0, freq_scale=0.0)
    with pytest.raises(ValueError, match="position"):
        ggml_rope_cache(1e12, 8)


def test_requests_past_the_c_librarys_budget_are_refused_before_the_work():
    with pytest.raises(ValueError, match="llama.cpp's angles"):
        kshift_error_curve(2048, 10000.0, 1, 1000, "float32", n_keys=4096)
    with pytest.raises(ValueError, match="rows holds"):
        rows = MAX_CALLS // 64 + 1
        ggml_rope_rows(np.zeros((rows, 64), dtype=np.float32), np.zeros(rows, dtype=int))
