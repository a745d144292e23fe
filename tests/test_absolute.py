import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc

# The seeds' worked 4x4 example (d_model = 4, positions 0..3).
SEED_TABLE = np.array([
    [0.0, 1.0, 0.0, 1.0],
    [0.84147098, 0.54030231, 0.00999983, 0.99995],
    [0.90929743, -0.41614684, 0.01999867, 0.99980001],
    [0.14112001, -0.9899925, 0.0299955, 0.99955003],
])


def test_seed_table_at_d4():
    np.testing.assert_allclose(pc.sinusoidal(4, 4), SEED_TABLE, atol=1e-6)
    exact = pc.sinusoidal(4, 4, dtype="float64")
    assert exact.dtype == np.float64
    np.testing.assert_allclose(exact, SEED_TABLE, atol=5e-9)  # the seed's 8-digit values


def test_interleaved_columns_follow_the_paper():
    pe = pc.sinusoidal(50, 16, base=10000.0).astype(np.float64)
    pos = np.arange(50)[:, None]
    i = np.arange(8)[None, :]
    angle = pos / 10000.0 ** (2 * i / 16)
    np.testing.assert_allclose(pe[:, 0::2], np.sin(angle), atol=2e-6)
    np.testing.assert_allclose(pe[:, 1::2], np.cos(angle), atol=2e-6)


def test_concat_is_a_column_permutation_of_interleaved():
    inter = pc.sinusoidal(33, 12, layout="interleaved")
    concat = pc.sinusoidal(33, 12, layout="concat")
    np.testing.assert_array_equal(concat[:, :6], inter[:, 0::2])
    np.testing.assert_array_equal(concat[:, 6:], inter[:, 1::2])


def test_dtype_and_shape():
    pe = pc.sinusoidal(7, 10)
    assert pe.shape == (7, 10) and pe.dtype == np.float32


@settings(max_examples=40, deadline=None)
@given(dim=st.sampled_from([2, 4, 8, 32, 128]), offset=st.integers(-200, 200),
       layout=st.sampled_from(pc.LAYOUTS), base=st.floats(2.0, 1e5))
def test_shift_matrix_moves_every_position_by_offset(dim, offset, layout, base):
    positions = np.arange(0, 300, 7)
    pe = pc.sinusoidal_at(positions, dim, base, layout).astype(np.float64)
    shifted = pc.sinusoidal_at(positions + offset, dim, base, layout).astype(np.float64)
    m = pc.sinusoidal_shift_matrix(dim, offset, base, layout)
    np.testing.assert_allclose(pe @ m.T, shifted, atol=2e-4)


@settings(max_examples=20, deadline=None)
@given(dim=st.sampled_from([4, 16, 64]), n=st.integers(2, 80))
def test_dot_product_depends_only_on_offset(dim, n):
    sim = pc.similarity_matrix(pc.sinusoidal(n, dim), "dot")
    assert pc.toeplitz_deviation(sim) < 5e-4
    # and it equals sum_i cos((p - q) omega_i)
    omega = pc.sinusoidal_frequencies(dim)
    delta = np.arange(n)
    np.testing.assert_allclose(sim[0], np.cos(np.multiply.outer(delta, omega)).sum(1), atol=5e-4)


@pytest.mark.parametrize("call, message", [
    (lambda: pc.sinusoidal(10, 3), "even"),
    (lambda: pc.sinusoidal(10, 0), "at least 2"),
    (lambda: pc.sinusoidal(0, 4), "at least 1"),
    (lambda: pc.sinusoidal(10, 4, base=1.0), "greater than 1"),
    (lambda: pc.sinusoidal(10, 4, base=float("nan")), "finite"),
    (lambda: pc.sinusoidal(10, 4, layout="zigzag"), "layout"),
    (lambda: pc.sinusoidal("ten", 4), "whole number"),
    (lambda: pc.sinusoidal(10**9, 4096), "at most"),
    (lambda: pc.sinusoidal(1 << 20, 4096), "cap"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
