"""What a context-extension method does to each rotary pair, measured against L and L'.

Every number here is derived from ``rope_inv_freq`` (which equals transformers), so the analysis
shows what the model computes: per-pair wavelengths before and after, the ratio new/old, which pairs
are extrapolated (kept), interpolated (divided by s) or blended, the largest angle each pair reaches
at the new length compared with the largest it saw in training, the attention factor, and the score
of a query with itself as a function of distance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from .._checks import MAX_DIM, MAX_POSITIONS, as_base, as_choice, as_float, as_int, check_size
from .._types import ArrayOrTensor
from ..rope.dynamic_calls import DynamicCalls
from ..rope.frequencies import (
    MAX_ATTENTION_FACTOR,
    base_inv_freq,
    rope_inv_freq,
    rotary_dim,
    yarn_correction_dim,
    yarn_mscale,
)

__all__ = [
    "AttentionFactorCurve",
    "BANDS",
    "ExtensionAnalysis",
    "ExtensionBandCounts",
    "ExtensionMethod",
    "FastestPair",
    "fastest_pair_when_doubled",
    "EXTENSION_METHODS",
    "PHI35_LONG_FACTOR",
    "PHI35_SHORT_FACTOR",
    "attention_factor_curve",
    "deepseek_softmax_mscale",
    "dynamic_ntk_base",
    "extension_analysis",
    "extension_at_defaults",
    "extension_band_counts",
    "first_stale_call",
    "ntk_stretched_base",
    "extension_scaling",
    "resample_factors",
    "score_vs_distance",
    "yarn_code_bounds",
    "yarn_paper_ramp",
    "yarn_paper_ratio",
]

# The context-extension methods, by the rope_type each sets: "linear" is position interpolation, "ntk" the static
# NTK-aware rule (not a transformers type), "ntk_alpha" Hunyuan's fixed stretch of the base.
ExtensionMethod = Literal["linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "ntk_alpha"]
EXTENSION_METHODS: tuple[ExtensionMethod, ...] = ("linear", "ntk", "dynamic", "yarn", "llama3", "longrope",
                                                  "ntk_alpha")
BANDS = ("extrapolated", "blended", "interpolated")
MAX_CONTEXT = MAX_POSITIONS * 64  # the largest L' the analysis accepts (268M tokens)
MAX_TURNS = 1e12  # YaRN's beta_fast / beta_slow count turns; 2 pi times more must still be a float
_TOL = 1e-5  # relative tolerance for "kept" / "divided by s"; float32 frequencies carry ~6e-8 error


# LongRoPE's searched factors as Phi-3.5-mini ships them: the comparison resamples them to any head size, and
# the Phi-3.5 preset (configs.presets) quotes them whole.
# microsoft/Phi-3.5-mini-instruct, config.json, rope_scaling (48 pairs: head_dim 96). Checked against three
# independent public copies of that file; the float32-looking digits are as published.
PHI35_LONG_FACTOR = (
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601, 1.5899999141693115,
    1.600000023841858, 1.6200000047683716, 2.620000123977661, 3.2300000190734863, 3.2300000190734863,
    4.789999961853027, 7.400000095367432, 7.700000286102295, 9.09000015258789, 12.199999809265137,
    17.670000076293945, 24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992, 50.340003967285156,
    50.45000457763672, 57.55000305175781, 57.93000411987305, 58.21000289916992, 60.1400032043457,
    62.61000442504883, 62.62000274658203, 62.71000289916992, 63.1400032043457, 63.1400032043457,
    63.77000427246094, 63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688,
    64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938, 64.4800033569336,
    64.51000213623047, 64.52999877929688, 64.83999633789062,
)
PHI35_SHORT_FACTOR = (
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0699999332427979, 1.0999999046325684,
    1.1099998950958252, 1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
    1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083, 1.8499997854232788,
    1.8799997568130493, 1.9099997282028198, 1.9399996995925903, 1.9899996519088745, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0799996852874756,
    2.0899996757507324, 2.189999580383301, 2.2199995517730713, 2.5899994373321533, 2.729999542236328,
    2.749999523162842, 2.8399994373321533,
)


def resample_factors(values: Sequence[float], n_pairs: int) -> np.ndarray:
    """A per-pair factor list stretched to ``n_pairs`` entries by linear interpolation in relative index.

    LongRoPE's lists are searched for one head size; to show them for another head size we keep the
    shape (factor against pair index / number of pairs). Exact (returns the list) when the sizes agree.
    """
    n_pairs = as_int("number of pairs", n_pairs, minimum=1, maximum=8192)
    source = np.asarray(values, dtype=np.float64).reshape(-1)
    if source.size == 0 or not np.all(np.isfinite(source)) or np.any(source <= 0):
        raise ValueError("A factor list must hold at least one positive, finite number.")
    if source.size == n_pairs:
        return source.copy()
    if source.size == 1:
        return np.full(n_pairs, source[0])
    return np.interp(np.linspace(0.0, 1.0, n_pairs), np.linspace(0.0, 1.0, source.size), source)


def extension_scaling(method: str, factor: float, original: int, *, beta_fast: float = 32.0, beta_slow: float = 1.0,
                      mscale: float = 0.0,
                      mscale_all_dim: float = 0.0, truncate: bool = True, low_freq_factor: float = 1.0,
                      high_freq_factor: float = 4.0,
                      short_factor: ArrayLike | None = None, long_factor: ArrayLike | None = None,
                      alpha: float | None = None) -> tuple[dict, int]:
    """The ``rope_scaling`` dict (transformers' keys) for one method, and the max_position_embeddings to pass.

    Args:
        method: one of EXTENSION_METHODS.
        factor: s = L' / L.
        original: L, the context length of pretraining.
        beta_fast, beta_slow, mscale, mscale_all_dim, truncate: YaRN's knobs (an mscale of 0 leaves it out).
        low_freq_factor, high_freq_factor: Llama 3's band edges (wavelengths L / low and L / high).
        short_factor, long_factor: LongRoPE's per-pair lists.
        alpha: Hunyuan's NTK-alpha, a base stretch chosen freely (None: alpha = s, which gives exactly the
            static NTK-aware frequencies).

    Returns:
        ``(scaling, max_position_embeddings)``: dynamic NTK reads L from max_position_embeddings;
        the others from original_max_position_embeddings.
    """
    method = as_choice("method", method, EXTENSION_METHODS)
    factor = as_float("factor s", factor, minimum=1.0, maximum=4096.0)
    original = as_int("original context L", original, minimum=2, maximum=MAX_POSITIONS)
    target = int(round(factor * original))
    if method in ("linear", "ntk", "dynamic"):
        return {"rope_type": method, "factor": factor}, original
    if method == "ntk_alpha":
        alpha = factor if alpha is None else as_float("alpha", alpha, minimum=1.0, maximum=1e6)
        return {"rope_type": "ntk_alpha", "alpha": alpha}, original
    if method == "yarn":
        scaling = {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": original,
                   "beta_fast": as_float("beta_fast", beta_fast, above=0.0, maximum=MAX_TURNS),
                   "beta_slow": as_float("beta_slow", beta_slow, above=0.0, maximum=MAX_TURNS),
                   "truncate": bool(truncate)}
        if mscale:
            scaling["mscale"] = as_float("mscale", mscale, above=0.0)
        if mscale_all_dim:
            scaling["mscale_all_dim"] = as_float("mscale_all_dim", mscale_all_dim, above=0.0)
        return scaling, target
    if method == "llama3":
        return {"rope_type": "llama3", "factor": factor, "original_max_position_embeddings": original,
                "low_freq_factor": as_float("low_freq_factor", low_freq_factor, above=0.0),
                "high_freq_factor": as_float("high_freq_factor", high_freq_factor, above=0.0)}, target
    if short_factor is None or long_factor is None:
        raise ValueError("LongRoPE needs both a short_factor and a long_factor list.")
    return {"rope_type": "longrope", "factor": factor, "original_max_position_embeddings": original,
            "short_factor": [float(v) for v in np.asarray(short_factor).reshape(-1)],
            "long_factor": [float(v) for v in np.asarray(long_factor).reshape(-1)]}, target


def _bands(ratio: np.ndarray, factor: float) -> np.ndarray:
    """extrapolated: frequency kept; interpolated: divided by s (or more); blended: anything between."""
    bands = np.full(ratio.shape, "blended", dtype=object)
    bands[np.abs(ratio - 1.0) <= _TOL] = "extrapolated"
    if factor > 1.0:
        bands[ratio <= (1.0 / factor) * (1.0 + _TOL)] = "interpolated"
    return bands


@dataclass(frozen=True)
class ExtensionAnalysis:
    """Per-pair view of a context extension from L to L'. Arrays have shape (rotary_dim/2,), one entry a pair.

    Attributes:
        pair: the pair index i, float64.
        inv_freq_before, inv_freq_after: theta_i and theta'_i, radians per position, float64.
        wavelength_before, wavelength_after: 2 pi / theta, positions, float64.
        ratio: theta'_i / theta_i, float64.
        band: "extrapolated", "blended" or "interpolated" (``BANDS``), object array of strings.
        angle_train: L theta_i, the angle (radians) a pair turns across the training context, float64.
        angle_unscaled: L' theta_i, the same across the target context without scaling, float64.
        angle_target: L' theta'_i, across the target context after scaling, float64.
        out_of_distribution: whether the pair reaches angles it never met in training, bool.
        attention_factor: the factor the method puts on the attention logits (a float).
        factor: L'/L (a float).
        original, target: L and L', tokens (floats).
    """

    pair: np.ndarray
    inv_freq_before: np.ndarray
    inv_freq_after: np.ndarray
    wavelength_before: np.ndarray
    wavelength_after: np.ndarray
    ratio: np.ndarray
    band: np.ndarray
    angle_train: np.ndarray
    angle_unscaled: np.ndarray
    angle_target: np.ndarray
    out_of_distribution: np.ndarray
    attention_factor: float
    factor: float
    original: float
    target: float


def extension_analysis(head_dim: int, base: float, scaling: Mapping[str, Any] | None, *, original: int, target: int,
                       seq_len: int | None = None, partial_rotary_factor: float = 1.0,
                       max_position_embeddings: int | None = None) -> ExtensionAnalysis:
    """Per-pair view of a context extension, computed with the transformers-equal ``rope_inv_freq``.

    Args:
        head_dim, base, partial_rotary_factor: the model's RoPE.
        scaling: the ``rope_scaling`` dict (None for no scaling).
        original: L, the training context. target: L', the context the model is run at.
        seq_len: the current length for dynamic NTK / LongRoPE (default L').
        max_position_embeddings: passed to rope_inv_freq (dynamic's threshold, YaRN/LongRoPE defaults).

    Returns:
        An ``ExtensionAnalysis`` of (rotary_dim/2,) float64 arrays: ``pair``, ``inv_freq_before``/``after``,
        ``wavelength_before``/``after`` (positions), ``ratio`` (new/old frequency), ``band`` (strings),
        ``angle_train`` (L·θ_i, the angle a pair turns across the training context), ``angle_unscaled``
        (L'·θ_i, unscaled), ``angle_target`` (L'·θ'_i), ``out_of_distribution`` (bool), and the floats
        ``attention_factor``, ``factor`` (L'/L), ``original``, ``target``.
    """
    original = as_int("original context L", original, minimum=2, maximum=MAX_CONTEXT)
    target = as_int("target context L'", target, minimum=2, maximum=MAX_CONTEXT)
    if seq_len is None:
        seq_len = target
    before, _ = rope_inv_freq(head_dim, base, None, partial_rotary_factor=partial_rotary_factor)
    after, attention = rope_inv_freq(head_dim, base, scaling, partial_rotary_factor=partial_rotary_factor,
                                     seq_len=seq_len, max_position_embeddings=max_position_embeddings)
    before = before.astype(np.float64)  # (r/2,)
    after = after.astype(np.float64)  # (r/2,)
    ratio = after / before
    factor = target / original
    # The angle a pair turns across a whole context (L·θ in training, L'·θ' after); position
    # interpolation maps L' onto exactly L, so it stays in distribution by construction.
    angle_train = original * before
    angle_target = target * after
    # A pair that turned a full circle in training has seen every angle; otherwise anything past the
    # largest training angle is new to the model.
    ood = (angle_train < 2 * math.pi) & (angle_target > angle_train * (1 + _TOL))
    return ExtensionAnalysis(
        pair=np.arange(before.shape[0], dtype=np.float64),
        inv_freq_before=before, inv_freq_after=after,
        wavelength_before=2 * math.pi / before, wavelength_after=2 * math.pi / after,
        ratio=ratio, band=_bands(ratio, factor),
        angle_train=angle_train, angle_unscaled=target * before, angle_target=angle_target,
        out_of_distribution=ood,
        attention_factor=float(attention), factor=float(factor),
        original=float(original), target=float(target),
    )


@dataclass(frozen=True)
class ExtensionBandCounts:
    """How many pairs of an ``ExtensionAnalysis`` fall in each band, each an int.

    Attributes:
        extrapolated, blended, interpolated: pairs in each band (``BANDS``); they add up to ``pairs``.
        out_of_distribution: pairs that reach angles they never met in training.
        pairs: all rotary pairs.
    """

    extrapolated: int
    blended: int
    interpolated: int
    out_of_distribution: int
    pairs: int


def extension_band_counts(result: ExtensionAnalysis) -> ExtensionBandCounts:
    """How many pairs of an ``extension_analysis`` result fall in each band, and how many leave their training range.

    Returns:
        An ``ExtensionBandCounts``: ``extrapolated``, ``blended``, ``interpolated``, ``out_of_distribution`` and
        ``pairs``, each an int.
    """
    if not isinstance(result, ExtensionAnalysis):
        raise ValueError("extension_band_counts needs the ExtensionAnalysis extension_analysis returns.")
    band = np.asarray(result.band)  # (pairs,) strings
    extrapolated, blended, interpolated = (int(np.sum(band == name)) for name in BANDS)
    return ExtensionBandCounts(extrapolated=extrapolated, blended=blended, interpolated=interpolated,
                               out_of_distribution=int(np.sum(np.asarray(result.out_of_distribution, dtype=bool))),
                               pairs=int(band.shape[0]))


def ntk_stretched_base(head_dim: int, base: float, stretch: float) -> float:
    """Static NTK-aware (and NTK-alpha's) new base b' = b · stretch^(d/(d-2)), in float64.

    Args:
        head_dim: d, the rotated dimension (at least 4). base: b. stretch: s for static NTK, alpha for NTK-alpha.
    """
    head_dim = as_int("head_dim", head_dim, minimum=4, maximum=MAX_DIM)
    stretch = as_float("stretch", stretch, above=0.0)
    return float(as_base(base) * stretch ** (head_dim / (head_dim - 2)))


def dynamic_ntk_base(head_dim: int, base: float, factor: float, seq_len: int, original: int) -> float:
    """Dynamic NTK's base for ``seq_len`` tokens: b' = b (s n / L − (s − 1))^(d/(d-2)), n = max(seq_len, L).

    Float64, as transformers computes it at init and for lengths within L (the figures' own frequencies come from
    ``rope_inv_freq``, which also follows the forward pass's float32 arithmetic past L).
    """
    head_dim = as_int("head_dim", head_dim, minimum=4, maximum=MAX_DIM)
    factor = as_float("extension factor s", factor, above=0.0)
    original = as_int("original context L", original, minimum=2, maximum=MAX_CONTEXT)
    n = max(as_int("sequence length", seq_len, minimum=1, maximum=4 * MAX_CONTEXT), original)
    return float(as_base(base) * (factor * n / original - (factor - 1)) ** (head_dim / (head_dim - 2)))


def first_stale_call(calls: DynamicCalls) -> int | None:
    """The index of the first call that runs with frequencies cached for another length (``rope_dynamic_calls``).

    Returns:
        The 0-based call index, or None when every call uses what a fresh module would.
    """
    if not isinstance(calls, DynamicCalls):
        raise ValueError("first_stale_call needs the DynamicCalls rope_dynamic_calls returns.")
    stale = np.flatnonzero(np.asarray(calls.stale, dtype=bool))  # (stale calls,)
    return int(stale[0]) if stale.size else None


def extension_at_defaults(method: str, head_dim: int, base: float, original: int,
                          factor: float) -> tuple[ExtensionAnalysis, np.ndarray, np.ndarray]:
    """One method with every knob at its default, as the *Compare extension methods* page draws it.

    ``method`` is one of ``EXTENSION_METHODS``, or None for no scaling. LongRoPE takes Phi-3.5-mini's
    searched factor lists resampled to head_dim/2 pairs; dynamic NTK and LongRoPE are read at the target
    length L' = round(factor * original); the score runs to 4 L'.

    Returns:
        ``(result, distances, scores)``: ``extension_analysis``'s ``ExtensionAnalysis``, and ``score_vs_distance`` of
        the frequencies after scaling (before, for None) with the method's attention factor.
    """
    result, target = _analysis_at_defaults(method, head_dim, base, original, factor)
    if method is None:
        distances, scores = score_vs_distance(result.inv_freq_before, 1.0, 4 * target)
    else:
        distances, scores = score_vs_distance(result.inv_freq_after, result.attention_factor, 4 * target)
    return result, distances, scores


def _analysis_at_defaults(method, head_dim, base, original, factor) -> tuple[ExtensionAnalysis, int]:
    """``extension_analysis`` of one method at its default knobs, and the target length L'."""
    original = as_int("original context L", original, minimum=2, maximum=MAX_CONTEXT)
    factor = as_float("extension factor s", factor, above=0.0)
    target = int(round(factor * original))
    if method is None:
        return extension_analysis(head_dim, base, None, original=original, target=target), target
    n_pairs = rotary_dim(head_dim, 1.0) // 2  # validates head_dim
    scaling, max_pos = extension_scaling(method, factor, original,
                                         short_factor=resample_factors(PHI35_SHORT_FACTOR, n_pairs),
                                         long_factor=resample_factors(PHI35_LONG_FACTOR, n_pairs))
    return extension_analysis(head_dim, base, scaling, original=original, target=target,
                              max_position_embeddings=max_pos), target


@dataclass(frozen=True)
class FastestPair:
    """Each method's fastest pair at s and at 2 s (``fastest_pair_when_doubled``).

    before, after: method -> theta'/theta of pair 0 at s and at 2 s, floats. changed: the methods whose pair 0
    moves by more than 1e-9 of its value, in the order given.
    """

    before: dict[str, float]
    after: dict[str, float]
    changed: list[str]


def fastest_pair_when_doubled(methods: Sequence[str], head_dim: int, base: float, original: int,
                              factor: float) -> FastestPair:
    """What doubling the stretch s does to each method's fastest pair (pair 0), at every knob's default."""
    factor = as_float("extension factor s", factor, above=0.0)
    methods = [as_choice("method", m, EXTENSION_METHODS) for m in methods]
    # the analysis alone: the score curves extension_at_defaults adds are not read here
    before, after = ({m: float(_analysis_at_defaults(m, head_dim, base, original, s)[0].ratio[0]) for m in methods}
                     for s in (factor, 2.0 * factor))
    changed = [m for m in methods if abs(after[m] - before[m]) > 1e-9 * abs(before[m])]
    return FastestPair(before=before, after=after, changed=changed)


def yarn_paper_ramp(head_dim: int, base: float, original: int, beta_fast: float = 32.0, beta_slow: float = 1.0,
                    partial_rotary_factor: float = 1.0) -> np.ndarray:
    """YaRN's ramp as the paper writes it: the fraction of each pair that is interpolated.

    The paper counts rotations r_i = L / lambda_i and sets gamma(r) = 0 below alpha (= beta_slow),
    1 above beta (= beta_fast), linear in r between; the pair's frequency becomes
    (1 - gamma) theta_i / s + gamma theta_i. Returned here is 1 - gamma, the counterpart of
    ``yarn_ramp`` (which the code makes linear in the pair index instead).

    Returns:
        (rotary_dim/2,) float64 array in [0, 1].
    """
    dim = rotary_dim(head_dim, partial_rotary_factor)
    base = as_base(base)
    original = as_int("original context L", original, minimum=2, maximum=MAX_CONTEXT)
    alpha = as_float("beta_slow", beta_slow, above=0.0, maximum=MAX_TURNS)
    beta = as_float("beta_fast", beta_fast, above=0.0, maximum=MAX_TURNS)
    if beta <= alpha:
        raise ValueError(f"beta_fast ({beta:g}) must be larger than beta_slow ({alpha:g}): the ramp runs from "
                         "pairs that turn beta_slow times in L to pairs that turn beta_fast times.")
    theta = base_inv_freq(base, dim)  # (dim/2,)
    rotations = original * theta / (2 * math.pi)
    gamma = np.clip((rotations - alpha) / (beta - alpha), 0.0, 1.0)
    return 1.0 - gamma


def yarn_paper_ratio(head_dim: int, base: float, original: int, factor: float, beta_fast: float = 32.0,
                     beta_slow: float = 1.0) -> np.ndarray:
    """The new/old frequency ratio the paper's ramp implies: w / s + (1 − w), w = ``yarn_paper_ramp``.

    Returns:
        (head_dim/2,) float64 array in [1/s, 1].
    """
    factor = as_float("extension factor s", factor, above=0.0)
    weight = yarn_paper_ramp(head_dim, base, original, beta_fast, beta_slow)  # (head_dim/2,)
    return weight / factor + (1.0 - weight)


def yarn_code_bounds(head_dim: int, base: float, original: int, beta_fast: float = 32.0,
                     beta_slow: float = 1.0) -> tuple[float, float]:
    """The untruncated pair indices where the code's ramp starts and ends (for labels)."""
    head_dim, base = as_int("head_dim", head_dim, minimum=2, maximum=MAX_DIM), as_base(base)
    original = as_int("original context L", original, minimum=2, maximum=MAX_CONTEXT)
    beta_fast = as_float("beta_fast", beta_fast, above=0.0, maximum=MAX_TURNS)
    beta_slow = as_float("beta_slow", beta_slow, above=0.0, maximum=MAX_TURNS)
    return (yarn_correction_dim(beta_fast, head_dim, base, original),
            yarn_correction_dim(beta_slow, head_dim, base, original))


def score_vs_distance(inv_freq: ArrayOrTensor, attention_factor: float = 1.0, max_distance: int = 4096,
                      n_points: int = 1200) -> tuple[np.ndarray, np.ndarray]:
    """Score of a query with an identical key at distance r, per rotated dimension.

    With q = k = (1, ..., 1) each pair contributes 2 cos(r theta_i), and YaRN/LongRoPE's attention
    factor multiplies both cos and sin, so the logit scales by its square:
    score(r) = a^2 * mean_i cos(r theta_i). Distances are log-spaced integers from 0 to max_distance.

    Returns:
        ``(distances, scores)``, both (n,) float64, n <= n_points.
    """
    theta = np.asarray(inv_freq, dtype=np.float64).reshape(-1)
    if theta.size == 0:
        raise ValueError("score_vs_distance needs at least one frequency.")
    check_size(256 * theta.size, "The score's block of cosines")  # (256, pairs) at a time
    # the figures run to 4 L', so the distance cap is four contexts
    max_distance = as_int("max_distance", max_distance, minimum=1, maximum=4 * MAX_CONTEXT)
    n_points = as_int("n_points", n_points, minimum=2, maximum=20000)
    attention_factor = as_float("attention_factor", attention_factor, above=0.0, maximum=MAX_ATTENTION_FACTOR)
    distances = np.unique(np.concatenate([[0], np.round(np.geomspace(1, max_distance, n_points - 1))]))
    scores = np.empty(distances.shape[0])
    for start in range(0, distances.shape[0], 256):  # keeps the (chunk, pairs) buffer small
        block = distances[start:start + 256]
        scores[start:start + 256] = np.cos(np.multiply.outer(block, theta)).mean(axis=1)
    return distances, attention_factor ** 2 * scores


@dataclass(frozen=True)
class AttentionFactorCurve:
    """The default attention factor against the scale factor s, each float64 of shape (n,), one entry an s.

    Attributes:
        yarn: YaRN's 0.1 ln s + 1 (1 when s <= 1).
        longrope: LongRoPE's sqrt(1 + ln s / ln L) (1 when s <= 1).
    """

    yarn: np.ndarray
    longrope: np.ndarray


def attention_factor_curve(factors: ArrayLike, original: int = 4096) -> AttentionFactorCurve:
    """YaRN's 0.1 ln s + 1 and LongRoPE's sqrt(1 + ln s / ln L) for each s (1 when s <= 1).

    Returns:
        An ``AttentionFactorCurve``: ``yarn`` and ``longrope``, (n,) float64 each.
    """
    s = np.asarray(factors, dtype=np.float64).reshape(-1)
    check_size(2 * s.size, "The attention factor curves")
    if s.size == 0 or not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ValueError("Scale factors must be positive, finite numbers.")
    original = as_int("original context L", original, minimum=2, maximum=MAX_CONTEXT)
    yarn = np.where(s <= 1, 1.0, 0.1 * np.log(np.maximum(s, 1.0)) + 1.0)
    longrope = np.where(s <= 1, 1.0, np.sqrt(1 + np.log(np.maximum(s, 1.0)) / math.log(original)))
    return AttentionFactorCurve(yarn=yarn, longrope=longrope)


def deepseek_softmax_mscale(scaling: Mapping | None) -> float:
    """The extra factor DeepSeek-V2/V3 put on the softmax scale: mscale(s, mscale_all_dim)^2.

    transformers' DeepSeek attention multiplies 1/sqrt(d_qk) by this whenever rope_scaling names a
    type and has a non-zero mscale_all_dim; the rotary attention factor (mscale / mscale_all_dim) is
    then 1 for DeepSeek's configs, so this is where their YaRN temperature actually lives.
    """
    if not scaling:
        return 1.0
    if not isinstance(scaling, Mapping):
        raise ValueError("rope_scaling must be a dictionary (JSON object).")
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    mscale_all_dim = scaling.get("mscale_all_dim") or 0
    if rope_type == "default" or not mscale_all_dim:
        return 1.0
    factor = as_float("rope_scaling['factor']", scaling.get("factor"), above=0.0)
    value = yarn_mscale(factor, as_float("rope_scaling['mscale_all_dim']", mscale_all_dim))
    return value * value
