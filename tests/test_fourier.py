import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core.images import (
    DETAIL_CHANGES,
    ENCODINGS,
    CoordinateFit,
    EncodingFit,
    EncodingRanges,
    FitSpectra,
    FitStep,
    detail_what_if,
    encoding_ranges,
    encoding_tables,
    fit_coordinates,
    fourier_features,
    gaussian_frequencies,
    nerf_as_sinusoidal,
    nerf_encoding,
    radial_spectrum,
    spectrum_1d,
    target_image,
    target_signal,
    worst_encoding,
)


def test_nerf_encoding_matches_the_paper_formula():
    p = np.array([0.0, 0.25, 0.7])
    enc = nerf_encoding(p, 3).astype(np.float64)
    expected = np.stack([[math.sin(2**k * math.pi * v), math.cos(2**k * math.pi * v)] for v in p
                         for k in range(3)]).reshape(3, 6)
    np.testing.assert_allclose(enc, expected, atol=1e-6)
    assert enc.dtype == np.float64 and nerf_encoding(p, 3).dtype == np.float32


def test_nerf_encoding_code_variant_and_multidimensional_order():
    xyz = np.array([[0.1, 0.2, 0.3]])
    enc = nerf_encoding(xyz, 2, include_pi=False, include_input=True)[0].astype(np.float64)
    # official code: [x, sin(x), cos(x), sin(2x), cos(2x)], each block over all 3 coordinates
    expected = np.concatenate([xyz[0], np.sin(xyz[0]), np.cos(xyz[0]), np.sin(2 * xyz[0]), np.cos(2 * xyz[0])])
    np.testing.assert_allclose(enc, expected, atol=1e-6)


def test_gaussian_features_are_seeded_and_match_the_formula():
    b1, b2 = gaussian_frequencies(8, 2, 10.0, seed=3), gaussian_frequencies(8, 2, 10.0, seed=3)
    np.testing.assert_array_equal(b1, b2)
    assert not np.array_equal(b1, gaussian_frequencies(8, 2, 10.0, seed=4))
    np.testing.assert_allclose(b1, np.random.default_rng(3).normal(0, 10.0, (8, 2)))
    v = np.array([[0.2, 0.9], [0.5, 0.1]])
    feats = fourier_features(v, b1).astype(np.float64)
    angles = 2 * np.pi * v @ b1.T
    np.testing.assert_allclose(feats, np.concatenate([np.cos(angles), np.sin(angles)], axis=1), atol=2e-5)


def test_gaussian_sigma_is_the_standard_deviation():
    b = gaussian_frequencies(1024, 2, 7.0, seed=0)
    assert b.std() == pytest.approx(7.0, rel=0.05)


@settings(max_examples=40, deadline=None)
@given(st.floats(-50, 50), st.integers(1, 10))
def test_every_sin_cos_pair_has_unit_norm(p, octaves):
    enc = nerf_encoding([p], octaves).astype(np.float64).reshape(octaves, 2)
    np.testing.assert_allclose((enc**2).sum(axis=1), 1.0, atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(st.floats(-3, 3), st.integers(1, 12))
def test_duality_nerf_is_a_reordered_transformer_row(p, octaves):
    dual = nerf_as_sinusoidal(p, octaves)
    assert dual.max_difference < 1e-9
    assert dual.dim == 2 * octaves and dual.base == 2.0**octaves


def test_spectra_find_the_right_frequency():
    x = np.arange(128) / 128
    freqs, amp = spectrum_1d(np.sin(2 * np.pi * 9 * x))
    assert freqs[np.argmax(amp)] == 9 and amp.max() == pytest.approx(0.5)
    y, xx = np.meshgrid(x, x, indexing="ij")
    bins, radial = radial_spectrum(np.cos(2 * np.pi * 6 * xx))
    assert bins[np.argmax(radial)] == 6


def test_targets_have_the_documented_shapes_and_ranges():
    x, y = target_signal()
    assert x.shape == y.shape == (256,) and x[0] == 0 and x[-1] < 1
    image = target_image()
    assert image.shape == (64, 64) and image.min() >= 0 and image.max() <= 1


def test_fit_is_deterministic_and_encodings_beat_raw_coordinates():
    pytest.importorskip("torch")
    steps = []
    first = fit_coordinates("1d", steps=150, n_features=32, width=32, progress=lambda f, t: steps.append((f, t)))
    again = fit_coordinates("1d", steps=150, n_features=32, width=32)
    for encoding in ENCODINGS:
        np.testing.assert_array_equal(first.fits[encoding].prediction, again.fits[encoding].prediction)
        assert first.fits[encoding].train_loss.shape == (150,)
    calls = [f for f, _ in steps]
    assert calls and calls[-1] == pytest.approx(1.0) and calls == sorted(calls)
    assert steps[-1][1] == FitStep("gaussian", 150, 150) and {t.encoding for _, t in steps} == set(ENCODINGS)
    # spectral bias: raw coordinates cannot follow the 20-cycle wave and the step; encodings can
    assert first.fits["nerf"].final_test_psnr > first.fits["raw"].final_test_psnr + 8
    assert first.fits["gaussian"].final_test_psnr > first.fits["raw"].final_test_psnr + 8
    assert set(first.spectra.fits) == set(ENCODINGS)
    assert first.spectra.frequency.shape == first.spectra.target.shape


def test_huge_sigma_memorises_but_does_not_generalise():
    pytest.importorskip("torch")
    good = fit_coordinates("1d", steps=200, sigma=10, encodings=("gaussian",)).fits["gaussian"]
    noisy = fit_coordinates("1d", steps=200, sigma=100, encodings=("gaussian",)).fits["gaussian"]
    assert noisy.final_train_psnr > 35
    assert noisy.final_test_psnr < good.final_test_psnr - 10


def test_fit_2d_shapes():
    pytest.importorskip("torch")
    result = fit_coordinates("2d", steps=5, width=8, encodings=("raw", "nerf"))
    assert result.target.shape == result.fits["raw"].prediction.shape == (64, 64)
    assert result.train_mask.sum() == 32 * 32
    assert "gaussian" not in result.fits and result.spectra.fits["nerf"].shape == (32,)


@pytest.mark.parametrize("call, message", [
    (lambda: nerf_encoding([0.1], 0), "at least 1"),
    (lambda: nerf_encoding([0.1], 99), "at most"),
    (lambda: nerf_encoding([np.nan], 2), "finite"),
    (lambda: nerf_encoding(np.zeros((2, 2, 2)), 2), "shape"),
    (lambda: gaussian_frequencies(8, 2, 0.0), "greater than 0"),
    (lambda: gaussian_frequencies(0, 2, 1.0), "at least 1"),
    (lambda: gaussian_frequencies(8, 2, 1.0, seed=-1), "at least 0"),
    (lambda: fourier_features(np.zeros((3, 2)), np.zeros((4, 3))), "one column per coordinate"),
    (lambda: fit_coordinates("3d"), "task must be one of"),
    (lambda: fit_coordinates("1d", steps=0), "at least 1"),
    (lambda: fit_coordinates("1d", steps=10**6), "at most"),
    (lambda: fit_coordinates("1d", encodings=("siren",)), "encoding must be one of"),
    (lambda: fit_coordinates("1d", encodings=()), "at least one encoding"),
    (lambda: fit_coordinates("1d", lr=0), "greater than 0"),
    (lambda: spectrum_1d([1.0, 2.0]), "at least 4"),
    (lambda: radial_spectrum(np.zeros((4, 6))), "square"),
    (lambda: target_image(4), "at least 8"),
    (lambda: target_signal(8), "at least 16"),
    (lambda: nerf_as_sinusoidal(float("inf"), 3), "finite"),
])
def test_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_encoding_tables_are_sorted_by_frequency_and_seeded():
    tables = encoding_tables(4, 10.0, 16, seed=3, samples=64)
    assert tables.p.shape == (64,) and tables.nerf.shape == (64, 8) and tables.fourier.shape == (64, 32)
    assert np.all(np.diff(tables.frequency) >= 0)
    again = encoding_tables(4, 10.0, 16, seed=3, samples=64)
    np.testing.assert_array_equal(tables.fourier, again.fourier)


def test_encoding_ranges_and_the_detail_what_if():
    ranges = encoding_ranges(4, 5.0, 32)
    frequency = encoding_tables(4, 5.0, 32).frequency
    assert ranges == EncodingRanges(nerf_fastest=4.0, gaussian_slowest=frequency[0], gaussian_fastest=frequency[-1])
    what_if = detail_what_if(5.0, 32)
    assert what_if.now == frequency[-1]
    assert what_if.wider_sigma == pytest.approx(2 * what_if.now)  # σ scales every draw
    assert what_if.more_features == encoding_tables(4, 5.0, 64).frequency[-1]
    doubles = [getattr(what_if, k) >= 1.5 * what_if.now for k in ("more_features", "wider_sigma")]
    assert DETAIL_CHANGES[what_if.answer] == {(True, True): "either", (True, False): "features",
                                                     (False, True): "sigma", (False, False): "neither"}[tuple(doubles)]
    with pytest.raises(ValueError, match="sigma"):
        detail_what_if(0.0, 32)


def test_worst_encoding_is_the_lowest_held_out_psnr():
    def fit(psnr):
        return EncodingFit(np.zeros(4), np.zeros(1), np.ones(1), np.full(1, psnr), 1, psnr, psnr)

    def result(fits):
        return CoordinateFit(np.zeros(4), np.zeros(4), np.ones(4, bool), fits, FitSpectra(np.zeros(2), np.zeros(2), {}))

    assert worst_encoding(result({"raw": fit(18.0), "nerf": fit(30.0), "gaussian": fit(25.0)})) == "raw"
    with pytest.raises(ValueError, match="no fit"):
        worst_encoding(result({}))
