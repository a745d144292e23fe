"""Coordinates in, signal out: NeRF's positional encoding, Gaussian random Fourier features, and a
small MLP that fits a 1D signal or a 2D image from raw coordinates or from either encoding.

Conventions:
- NeRF (Mildenhall et al. 2020), paper: gamma(p) = (sin(2^0 pi p), cos(2^0 pi p), ..., sin(2^(L-1) pi p),
  cos(2^(L-1) pi p)). The official code multiplies by 2^k without pi and prepends p itself; both are
  options here (``include_pi``, ``include_input``). For D-dimensional inputs the code's order is used:
  frequency by frequency, the sines of all D coordinates, then their cosines.
- Fourier features (Tancik et al. 2020): gamma(v) = [cos(2 pi B v), sin(2 pi B v)], B ~ N(0, sigma^2),
  shape (features, D), drawn once from a seed and never trained.

Coordinates live in [0, 1). Training runs on the CPU with torch (imported lazily).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._backend import keeps_kind, one_torch_thread, require_torch
from .._checks import as_choice, as_float, as_int, check_size
from .._types import ArrayLike, ArrayOrTensor
from ..absolute.sinusoidal import sinusoidal_at

__all__ = [
    "DETAIL_CHANGES",
    "ENCODINGS",
    "FIT_TASKS",
    "CoordinateFit",
    "DetailWhatIf",
    "EncodingFit",
    "EncodingRanges",
    "EncodingTables",
    "FitSpectra",
    "FitStep",
    "NerfDuality",
    "detail_what_if",
    "encoding_ranges",
    "encoding_tables",
    "fit_coordinates",
    "fourier_features",
    "gaussian_frequencies",
    "nerf_as_sinusoidal",
    "nerf_encoding",
    "nerf_frequencies",
    "radial_spectrum",
    "spectrum_1d",
    "target_image",
    "target_signal",
    "worst_encoding",
]

ENCODINGS = ("raw", "nerf", "gaussian")
FIT_TASKS = ("1d", "2d")
MAX_OCTAVES = 16
MAX_FEATURES = 1024
MAX_STEPS = 5000
SIGNAL_SAMPLES = 256  # 1D task: 256 samples, the network sees every other one
SPECTRUM_FLOOR = 1e-5  # amplitudes below this are shown as this on log axes
IMAGE_SIZE = 64  # 2D task: 64 x 64 pixels, the network sees every other row and column


@dataclass(frozen=True)
class EncodingFit:
    """One network's fit in ``fit_coordinates``.

    prediction: the network's output at every point, the target's shape ((256,) or (64, 64)), float64.
    train_loss: (steps,) the training MSE at each step.
    logged_steps: (logs,) the steps at which the held-out score was measured.
    test_psnr: (logs,) held-out PSNR in dB at those steps.
    input_features: the network's input width.
    final_test_psnr, final_train_psnr: PSNR in dB on the held-out and on the training points after the last step.
    """

    prediction: np.ndarray
    train_loss: np.ndarray
    logged_steps: np.ndarray
    test_psnr: np.ndarray
    input_features: int
    final_test_psnr: float
    final_train_psnr: float


@dataclass(frozen=True)
class FitSpectra:
    """Amplitude spectra of the target and of each fit (``spectrum_1d`` or ``radial_spectrum``).

    frequency: (bins,) cycles per unit.
    target: (bins,) the target's amplitude.
    fits: {encoding: (bins,) the fit's amplitude}.
    """

    frequency: np.ndarray
    target: np.ndarray
    fits: dict[str, np.ndarray]


@dataclass(frozen=True)
class CoordinateFit:
    """The result of ``fit_coordinates``.

    x: (256,) the 1D coordinates, or (64,) the 2D axis.
    target: (256,) or (64, 64) the signal or image fitted.
    train_mask: the target's shape, True on the points the networks trained on.
    fits: {encoding: its ``EncodingFit``}, for each encoding trained.
    spectra: the ``FitSpectra`` of the target and of each fit.
    """

    x: np.ndarray
    target: np.ndarray
    train_mask: np.ndarray
    fits: dict[str, EncodingFit]
    spectra: FitSpectra


class FitStep(NamedTuple):
    """Where ``fit_coordinates`` stands, passed to its ``progress`` callback.

    encoding: the encoding being trained (a key of ``ENCODINGS``).
    step: the steps done on it; steps: the steps it will take.
    """

    encoding: str
    step: int
    steps: int


@dataclass(frozen=True)
class NerfDuality:
    """NeRF's gamma(p) against a row of the Transformer's sinusoidal table (``nerf_as_sinusoidal``).

    nerf: (2L,) float64 gamma(p); transformer: (2L,) the table row, pairs reversed.
    position: t = 2^(L-1) pi p, the row read; base: 2^L; dim: 2L.
    max_difference: the largest |nerf - transformer|.
    """

    nerf: np.ndarray
    transformer: np.ndarray
    position: float
    base: float
    dim: int
    max_difference: float


@dataclass(frozen=True)
class EncodingTables:
    """Both encodings of evenly spaced coordinates in [0, 1) (``encoding_tables``).

    p: (samples,) the coordinates.
    nerf: (samples, 2L) float32 NeRF encoding; fourier: (samples, 2m) float32 Gaussian features, sorted slow to fast.
    frequency: (m,) |frequency| of each Gaussian feature, cycles per unit, sorted.
    """

    p: np.ndarray
    nerf: np.ndarray
    fourier: np.ndarray
    frequency: np.ndarray


@dataclass(frozen=True)
class EncodingRanges:
    """How fast each encoding's waves turn over [0, 1), in cycles per unit (``encoding_ranges``).

    nerf_fastest: octave L - 1 completes 2^(L-1) / 2 cycles.
    gaussian_slowest, gaussian_fastest: the smallest and largest |frequency| of the m Gaussian draws.
    """

    nerf_fastest: float
    gaussian_slowest: float
    gaussian_fastest: float


@dataclass(frozen=True)
class DetailWhatIf:
    """The fastest Gaussian feature now and under two changes, in cycles per unit (``detail_what_if``).

    now: the fastest |frequency| now; more_features: with m doubled; wider_sigma: with σ doubled.
    answer: the index in ``DETAIL_CHANGES`` of the change(s) that make the fastest feature about twice as fast.
    """

    now: float
    more_features: float
    wider_sigma: float
    answer: int


def _as_points(x, name: str = "coordinates") -> np.ndarray:
    """(n,) or (n, D) coordinates -> (n, D) float64."""
    points = np.asarray(x, dtype=np.float64)
    if points.ndim == 1:
        points = points[:, None]
    if points.ndim != 2 or points.shape[1] < 1:
        raise ValueError(f"{name} must be a list of numbers or a (points, dimensions) array, "
                         f"but has shape {points.shape}.")
    if not np.all(np.isfinite(points)):
        raise ValueError(f"{name} must be finite numbers.")
    return points


def nerf_frequencies(n_octaves: int, *, include_pi: bool = True) -> np.ndarray:
    """Angular frequencies 2^k (times pi in the paper) for k < n_octaves, shape (L,), float64."""
    n_octaves = as_int("number of octaves", n_octaves, minimum=1, maximum=MAX_OCTAVES)
    return 2.0 ** np.arange(n_octaves) * (math.pi if include_pi else 1.0)


@keeps_kind
def nerf_encoding(p: ArrayLike, n_octaves: int, *, include_pi: bool = True,
                  include_input: bool = False) -> ArrayOrTensor:
    """NeRF's positional encoding gamma(p).

    Args:
        p: coordinates, shape (n,) or (n, D).
        n_octaves: L, the number of frequencies 2^0 .. 2^(L-1).
        include_pi: multiply by pi as the paper writes (True) or not, as the official code does (False).
        include_input: prepend p itself, as the official code does.

    Returns:
        (n, D * 2L) float32 (plus D columns first with ``include_input``). For each frequency: the
        sines of all D coordinates, then their cosines; for D = 1 this is the paper's (sin, cos) pairs.
    """
    points = _as_points(p)
    freqs = nerf_frequencies(n_octaves, include_pi=include_pi)  # (L,)
    n, dims = points.shape
    check_size(n * dims * (2 * freqs.size + 1), "The NeRF encoding")
    angles = points[:, None, :] * freqs[None, :, None]  # (n, L, D)
    blocks = np.concatenate([np.sin(angles), np.cos(angles)], axis=2).reshape(n, -1)  # (n, L * 2D)
    if include_input:
        blocks = np.concatenate([points, blocks], axis=1)
    return blocks.astype(np.float32)


def gaussian_frequencies(n_features: int, in_dim: int, sigma: float, seed: int = 0) -> np.ndarray:
    """The fixed random matrix B ~ N(0, sigma^2) of Gaussian Fourier features, shape (features, D), float64.

    The same seed always gives the same B (numpy's PCG64 generator).
    """
    n_features = as_int("number of features", n_features, minimum=1, maximum=MAX_FEATURES)
    in_dim = as_int("input dimension", in_dim, minimum=1, maximum=8)
    sigma = as_float("sigma", sigma, above=0.0, maximum=1e4)
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    return np.random.default_rng(seed).normal(0.0, sigma, size=(n_features, in_dim))


@keeps_kind
def fourier_features(x: ArrayOrTensor, B: ArrayLike) -> ArrayOrTensor:
    """gamma(v) = [cos(2 pi B v), sin(2 pi B v)] for every row v of x.

    Args:
        x: coordinates, shape (n,) or (n, D).
        B: frequencies in cycles per unit, shape (features, D).

    Returns:
        (n, 2 * features) float32: all cosines, then all sines.
    """
    points = _as_points(x)
    freqs = np.asarray(B, dtype=np.float64)
    if freqs.ndim != 2 or freqs.shape[1] != points.shape[1]:
        raise ValueError(f"B must have one column per coordinate dimension ({points.shape[1]}), "
                         f"but has shape {freqs.shape}.")
    check_size(points.shape[0] * freqs.shape[0] * 2, "The Fourier features")
    angles = 2.0 * math.pi * points @ freqs.T  # (n, features)
    return np.concatenate([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)


def target_signal(n: int = SIGNAL_SAMPLES) -> tuple[np.ndarray, np.ndarray]:
    """The 1D signal to fit: slow and fast waves plus a sharp step, on x = i / n in [0, 1).

    Returns:
        x (n,) and y (n,), float64. The fastest wave has 20 cycles per unit; the step has every frequency.
    """
    n = as_int("number of samples", n, minimum=16, maximum=1 << 16)
    x = np.arange(n) / n
    y = (0.5 * np.sin(2 * np.pi * 2 * x) + 0.25 * np.sin(2 * np.pi * 7 * x + 1.0)
         + 0.15 * np.sin(2 * np.pi * 20 * x) + 0.35 * ((x > 0.55) & (x < 0.8)))
    return x, y


def target_image(size: int = IMAGE_SIZE) -> np.ndarray:
    """The 2D image to fit (grey levels in [0, 1]), generated so that it ships as code, not a file.

    A smooth shading, a sharp-edged disc, a checkerboard patch and rings whose frequency grows
    outwards (a chirp): from coarse to fine detail in one picture. Shape (size, size), float64,
    row 0 at the top.
    """
    size = as_int("image size", size, minimum=8, maximum=1024)
    y, x = np.meshgrid(np.arange(size) / size, np.arange(size) / size, indexing="ij")
    image = 0.25 + 0.25 * x + 0.1 * np.cos(2 * np.pi * y)
    disc = (x - 0.3) ** 2 + (y - 0.3) ** 2 < 0.17**2
    image = np.where(disc, 0.85, image)
    checker = ((np.floor(x * 10) + np.floor(y * 10)) % 2 == 0) & (x > 0.58) & (x < 0.92) & (y > 0.1) & (y < 0.42)
    image = np.where((x > 0.58) & (x < 0.92) & (y > 0.1) & (y < 0.42), np.where(checker, 0.95, 0.1), image)
    r2 = (x - 0.5) ** 2 + (y - 0.78) ** 2
    rings = r2 < 0.2**2
    image = np.where(rings, 0.5 + 0.45 * np.cos(2 * np.pi * 30 * r2), image)
    return np.clip(image, 0.0, 1.0)


def spectrum_1d(signal: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Amplitude spectrum of a signal sampled at n points of [0, 1): frequency in cycles per unit, |FFT| / n.

    The mean is removed first, so the plot starts with the slowest wave. Amplitudes are floored at
    SPECTRUM_FLOOR so that exact zeros (a pure sum of sines has many) stay on a log axis.
    """
    y = np.asarray(signal, dtype=np.float64)
    if y.ndim != 1 or y.size < 4:
        raise ValueError("spectrum_1d needs a 1D signal with at least 4 samples.")
    amplitude = np.maximum(np.abs(np.fft.rfft(y - y.mean())) / y.size, SPECTRUM_FLOOR)
    return np.arange(amplitude.size, dtype=np.float64), amplitude


def radial_spectrum(image: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Radially averaged amplitude spectrum of a square image on [0, 1)^2.

    Returns:
        frequencies 1 .. size/2 (cycles per unit) and the mean |FFT| / size^2 over each ring (floored at
        SPECTRUM_FLOOR).
    """
    img = np.asarray(image, dtype=np.float64)
    if img.ndim != 2 or img.shape[0] != img.shape[1] or img.shape[0] < 4:
        raise ValueError("radial_spectrum needs a square 2D image of at least 4 x 4 pixels.")
    size = img.shape[0]
    amplitude = np.abs(np.fft.fft2(img - img.mean())) / img.size  # (size, size)
    k = np.fft.fftfreq(size, d=1.0 / size)  # cycles per unit
    radius = np.rint(np.hypot(*np.meshgrid(k, k, indexing="ij"))).astype(int)
    bins = np.arange(1, size // 2 + 1)
    totals = np.bincount(radius.ravel(), weights=amplitude.ravel(), minlength=size)
    counts = np.bincount(radius.ravel(), minlength=size)
    return bins.astype(np.float64), np.maximum(totals[bins] / np.maximum(counts[bins], 1), SPECTRUM_FLOOR)


def _encode(points: np.ndarray, encoding: str, n_octaves: int, sigma: float, n_features: int,
            seed: int) -> np.ndarray:
    """(n, D) coordinates -> (n, features) network inputs for one encoding."""
    if encoding == "raw":
        return points.astype(np.float32)
    if encoding == "nerf":
        return nerf_encoding(points, n_octaves)
    return fourier_features(points, gaussian_frequencies(n_features, points.shape[1], sigma, seed))


def _psnr(mse: float) -> float:
    """Peak signal-to-noise ratio in dB for signals with a peak-to-peak range of 1."""
    return float(10.0 * math.log10(1.0 / max(mse, 1e-12)))


def _train_one(torch, inputs, targets, train_mask, *, width, depth, steps, lr, seed, log_every, report):
    """Full-batch Adam on the training points; returns predictions at every point and the curves."""
    generator = torch.Generator().manual_seed(seed)
    sizes = [inputs.shape[1]] + [width] * depth + [1]
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        layer = torch.nn.Linear(fan_in, fan_out)
        bound = 1.0 / math.sqrt(fan_in)  # torch's default Linear init, drawn from our own generator
        with torch.no_grad():
            layer.weight.copy_((torch.rand(layer.weight.shape, generator=generator) * 2 - 1) * bound)
            layer.bias.copy_((torch.rand(layer.bias.shape, generator=generator) * 2 - 1) * bound)
        layers += [layer, torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])  # no ReLU after the output layer
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    x_all = torch.from_numpy(inputs)  # (n, features)
    y_all = torch.from_numpy(targets.astype(np.float32))[:, None]  # (n, 1)
    mask = torch.from_numpy(train_mask)
    x_train, y_train = x_all[mask], y_all[mask]
    train_loss, logged_steps, test_psnr = np.empty(steps), [], []
    for step in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss = torch.mean((model(x_train) - y_train) ** 2)
        loss.backward()
        optimizer.step()
        train_loss[step] = loss.item()
        if (step + 1) % log_every == 0 or step == steps - 1:
            with torch.no_grad():
                test_mse = torch.mean((model(x_all[~mask]) - y_all[~mask]) ** 2).item()
            logged_steps.append(step + 1)
            test_psnr.append(_psnr(test_mse))
            report(step + 1)
    with torch.no_grad():
        prediction = model(x_all)[:, 0].numpy().astype(np.float64)
    return prediction, train_loss, np.array(logged_steps), np.array(test_psnr)


def fit_coordinates(task: str = "1d", *, n_octaves: int = 6, sigma: float = 10.0, n_features: int = 64,
                    steps: int = 300, width: int = 64, depth: int = 3,
                    lr: float = 2e-3, seed: int = 0, encodings: Sequence[str] = ENCODINGS,
                    progress: Callable[[float, FitStep], None] | None = None) -> CoordinateFit:
    """Fit the 1D signal or the 2D image with one small ReLU MLP per encoding, on the CPU.

    The network sees every other sample (1D) or every other row and column (2D); the points in
    between are held out, so the test error shows whether a method generalises or only memorises.

    Args:
        task: "1d" (256 samples of ``target_signal``) or "2d" (the 64 x 64 ``target_image``).
        n_octaves: L for the NeRF encoding.
        sigma, n_features: scale and number of the Gaussian Fourier features (B has n_features rows).
        steps, width, depth, lr: full-batch Adam steps, hidden width, hidden layers, learning rate.
        seed: seeds B and every network's initial weights; the same seed gives the same result.
        encodings: which of "raw", "nerf", "gaussian" to train.
        progress: called as progress(fraction_done, FitStep(encoding, step, steps)) while training.

    Returns:
        A ``CoordinateFit``: ``x``, ``target``, ``train_mask``, ``fits`` {encoding: ``EncodingFit``} and
        ``spectra``.
    """
    task = as_choice("task", task, FIT_TASKS)
    n_octaves = as_int("number of octaves", n_octaves, minimum=1, maximum=MAX_OCTAVES)
    sigma = as_float("sigma", sigma, above=0.0, maximum=1e4)
    n_features = as_int("number of features", n_features, minimum=1, maximum=MAX_FEATURES)
    steps = as_int("steps", steps, minimum=1, maximum=MAX_STEPS)
    width = as_int("width", width, minimum=4, maximum=512)
    depth = as_int("depth", depth, minimum=1, maximum=8)
    lr = as_float("learning rate", lr, above=0.0, maximum=1.0)
    seed = as_int("seed", seed, minimum=0, maximum=2**31 - 1)
    encodings = tuple(as_choice("encoding", e, ENCODINGS) for e in encodings)
    if not encodings:
        raise ValueError("Pick at least one encoding to train.")
    torch = require_torch()

    if task == "1d":
        x, target = target_signal()
        points = x[:, None]  # (256, 1)
        train_mask = np.arange(x.size) % 2 == 0
        flat_target = target
    else:
        target = target_image()
        x = np.arange(IMAGE_SIZE) / IMAGE_SIZE
        rows, cols = np.meshgrid(x, x, indexing="ij")
        points = np.stack([cols.ravel(), rows.ravel()], axis=1)  # (4096, 2) as (x, y)
        index = np.arange(IMAGE_SIZE)
        train_mask = ((index[:, None] % 2 == 0) & (index[None, :] % 2 == 0)).ravel()
        flat_target = target.ravel()

    log_every = max(1, steps // 25)
    with one_torch_thread():  # a network this small trains fastest on one thread (and shares the machine)
        return _fit(torch, task, x, points, target, flat_target, train_mask, encodings, n_octaves, sigma,
                    n_features, steps, width, depth, lr, seed, log_every, progress)


def _fit(torch, task, x, points, target, flat_target, train_mask, encodings, n_octaves, sigma, n_features,
         steps, width, depth, lr, seed, log_every, progress) -> CoordinateFit:
    fits: dict[str, EncodingFit] = {}
    total = steps * len(encodings)
    for number, encoding in enumerate(encodings):
        inputs = _encode(points, encoding, n_octaves, sigma, n_features, seed)

        def report(done, number=number, encoding=encoding):
            if progress is not None:
                progress((number * steps + done) / total, FitStep(encoding, done, steps))

        prediction, train_loss, logged, test_psnr = _train_one(
            torch, inputs, flat_target, train_mask, width=width, depth=depth, steps=steps, lr=lr,
            seed=seed + 1 + ENCODINGS.index(encoding), log_every=log_every, report=report)
        train_mse = float(np.mean((prediction[train_mask] - flat_target[train_mask]) ** 2))
        fits[encoding] = EncodingFit(prediction.reshape(target.shape), train_loss, logged, test_psnr,
                                     int(inputs.shape[1]), float(test_psnr[-1]), _psnr(train_mse))
    spectrum = spectrum_1d if task == "1d" else radial_spectrum
    freqs, amplitude = spectrum(target)
    spectra = FitSpectra(freqs, amplitude, {e: spectrum(fits[e].prediction)[1] for e in encodings})
    return CoordinateFit(x, target, train_mask.reshape(target.shape), fits, spectra)


def nerf_as_sinusoidal(p: float, n_octaves: int) -> NerfDuality:
    """The duality in one identity: NeRF's gamma(p) with L octaves is a row of the Transformer's sinusoidal
    table with d = 2L and base = 2^L, read at position t = 2^(L-1) pi p, with its (sin, cos) pairs in
    reverse order. (omega_i = (2^L)^(-2i/2L) = 2^-i, and 2^-i * 2^(L-1) pi p = 2^(L-1-i) pi p.)

    Returns:
        A ``NerfDuality``: ``nerf`` and ``transformer`` (2L,) float64, ``position`` t, ``base``, ``dim`` and
        ``max_difference``.
    """
    value = as_float("coordinate p", p, minimum=-1e6, maximum=1e6)
    n_octaves = as_int("number of octaves", n_octaves, minimum=1, maximum=MAX_OCTAVES)
    dim, base, position = 2 * n_octaves, 2.0**n_octaves, 2.0 ** (n_octaves - 1) * math.pi * value
    angles = 2.0 ** np.arange(n_octaves) * math.pi * value  # exact float64 version of nerf
    nerf = np.stack([np.sin(angles), np.cos(angles)], axis=1).reshape(-1)
    row = np.asarray(sinusoidal_at([position], dim, base, "interleaved", dtype="float64"))[0]  # (2L,)
    transformer = row.reshape(n_octaves, 2)[::-1].reshape(-1)  # pairs reversed: slowest first -> fastest last
    return NerfDuality(nerf, transformer, position, base, dim, float(np.abs(nerf - transformer).max()))


def encoding_tables(n_octaves: int, sigma: float, n_features: int, seed: int = 0,
                    samples: int = 512) -> EncodingTables:
    """Both encodings of ``samples`` evenly spaced coordinates in [0, 1), for drawing them side by side.

    The Gaussian features are sorted by the magnitude of their frequency so the table reads from slow to fast.

    Returns:
        An ``EncodingTables``: ``p`` (samples,), ``nerf`` (samples, 2L), ``fourier`` (samples, 2m) and
        ``frequency`` (m,).
    """
    p = np.linspace(0.0, 1.0, int(samples), endpoint=False)  # (samples,)
    freqs = gaussian_frequencies(n_features, 1, sigma, seed)  # (m, 1)
    order = np.argsort(np.abs(freqs[:, 0]))
    return EncodingTables(p, nerf_encoding(p, n_octaves), fourier_features(p, freqs[order]), np.abs(freqs[order, 0]))


def encoding_ranges(n_octaves: int, sigma: float, n_features: int, seed: int = 0) -> EncodingRanges:
    """How fast each encoding's waves turn over [0, 1), in cycles per unit: what the encodings tab states.

    Returns:
        An ``EncodingRanges``: ``nerf_fastest``, ``gaussian_slowest`` and ``gaussian_fastest``.
    """
    n_octaves = as_int("number of octaves", n_octaves, minimum=1, maximum=MAX_OCTAVES)
    magnitudes = np.abs(gaussian_frequencies(n_features, 1, sigma, seed)[:, 0])  # (m,)
    return EncodingRanges(2.0 ** (n_octaves - 1) / 2, float(magnitudes.min()), float(magnitudes.max()))


# the options of the question "which change makes the fastest Gaussian feature about twice as fast?"
DETAIL_CHANGES = ("features", "sigma", "either", "neither")


def detail_what_if(sigma: float, n_features: int, seed: int = 0) -> DetailWhatIf:
    """The fastest Gaussian feature now, with twice the features and with twice the spread σ.

    "About twice as fast" means over 1.5 times the current fastest frequency.

    Returns:
        A ``DetailWhatIf``: ``now``, ``more_features`` (m doubled: the same draws plus as many more),
        ``wider_sigma`` (σ doubled: every frequency doubled), in cycles per unit, and ``answer``: the index in
        ``DETAIL_CHANGES`` of the change(s) that make the fastest feature about twice as fast.
    """
    n_features = as_int("number of features", n_features, minimum=1, maximum=MAX_FEATURES // 2)
    sigma = as_float("sigma", sigma, above=0.0, maximum=1e4)
    fastest = {key: float(np.abs(gaussian_frequencies(m, 1, s, seed)).max())
               for key, m, s in (("now", n_features, sigma), ("more_features", 2 * n_features, sigma),
                                 ("wider_sigma", n_features, 2 * sigma))}
    doubles = [fastest[key] >= 1.5 * fastest["now"] for key in ("more_features", "wider_sigma")]
    answer = 2 if all(doubles) else 0 if doubles[0] else 1 if doubles[1] else 3
    return DetailWhatIf(fastest["now"], fastest["more_features"], fastest["wider_sigma"], answer)


def worst_encoding(result: CoordinateFit) -> str:
    """The input (a key of ``ENCODINGS``) whose fit scores the lowest held-out PSNR in a ``fit_coordinates`` result."""
    scores = {e: result.fits[e].final_test_psnr for e in ENCODINGS if e in result.fits}
    if not scores:
        raise ValueError("The result holds no fit to compare: run fit_coordinates first.")
    return min(scores, key=scores.__getitem__)
