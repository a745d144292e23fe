"""Rotary position embedding: rotate query/key pairs by position-dependent angles.

``half`` layout pairs dimension i with i + r/2 (``rotate_half`` in transformers and GPT-NeoX);
``interleaved`` pairs (2i, 2i+1) (Meta's reference Llama code, GPT-J, RoFormer). Both are the
same rotation up to a fixed permutation of the dimensions.
"""

from __future__ import annotations

import math

import numpy as np

from ._backend import check_backend, require_torch, to_backend, to_numpy
from ._checks import MAX_DIM, MAX_ELEMENTS, MAX_POSITIONS, as_base, as_choice, as_even_dim, as_float, as_int, check_size
from .scaling import base_inv_freq, rope_inv_freq, rotary_dim

__all__ = [
    "ANGLE_DTYPES",
    "ROPE_LAYOUTS",
    "ROPE_MODEL_PRESETS",
    "apply_rope",
    "half_rows_to_interleaved",
    "half_to_interleaved_permutation",
    "interleaved_rows_to_half",
    "round_to_dtype",
    "rope_angle_error_curve",
    "rope_angle_table",
    "rope_angles",
    "rope_angles_in_dtype",
    "rope_conversion_scores",
    "rope_cos_table",
    "rope_decay_bound",
    "rope_decay_curves",
    "rope_first_bad_position",
    "rope_float32_pow_difference",
    "rope_inv_freq_float32_pow",
    "rope_layout_check",
    "rope_mean_abs_scores",
    "rope_model_costs",
    "rope_pair",
    "rope_pair_shift_scores",
    "rope_pair_theta",
    "rope_score_matrix",
    "rope_turns",
]


ROPE_LAYOUTS = ("half", "interleaved")


def rope_angles(positions, inv_freq) -> np.ndarray:
    """m * theta_i for each position m and pair i, shape (len(positions), len(inv_freq)), float32.

    Both are taken as float32 first (any dtype, numpy or torch), as transformers does with
    ``position_ids.float()`` and ``inv_freq.float()``.
    """
    positions = np.asarray(to_numpy(positions), dtype=np.float32).reshape(-1)
    inv_freq = np.asarray(to_numpy(inv_freq), dtype=np.float32).reshape(-1)
    check_size(positions.shape[0] * inv_freq.shape[0], "The angle table")
    return np.multiply.outer(positions, inv_freq)  # (seq, r/2)


def _split(x, r, layout):
    """The two members of each rotated pair, and the pass-through tail."""
    rot, rest = x[..., :r], x[..., r:]
    if layout == "half":
        return rot[..., : r // 2], rot[..., r // 2:], rest
    return rot[..., 0::2], rot[..., 1::2], rest


def _is_torch(x) -> bool:
    return type(x).__module__.startswith("torch")


def apply_rope(x, positions, inv_freq, layout="half", *, attention_factor=1.0, backend=None, device=None):
    """Rotate the last dimension of ``x`` by RoPE, as transformers' rotary embedding does.

    The angles are formed in float32 from float32 copies of ``positions`` and ``inv_freq`` (a bfloat16 or
    float16 inv_freq, as in a model cast to half precision, is upcast first, as ``inv_freq.float()`` does),
    cos and sin are cast to x's dtype, and the rotation runs in x's dtype. For torch tensors in the half
    layout this is bit-identical to ``apply_rotary_pos_emb`` with the module's cos and sin, for every
    floating dtype.

    Args:
        x: array or tensor of shape (..., seq, head_dim).
        positions: (seq,) positions of the rows of x.
        inv_freq: (r/2,) inverse frequencies; dimensions beyond r = 2 * len(inv_freq) pass through.
        layout: "half" (rotate_half) or "interleaved" (pairs 2i, 2i+1).
        attention_factor: multiplies cos and sin (YaRN / LongRoPE), as transformers does.
        backend: None (the default) keeps x's kind; "torch" computes in torch and returns a tensor (a numpy
            x is converted, onto ``device``); "numpy" returns a numpy array (a torch x is brought to the CPU;
            a bfloat16 one as float32, since numpy has no bfloat16).

    Returns:
        The rotated x, same shape and dtype as the input, of the kind the backend names (by default the
        input's own: torch tensors stay on their device).
    """
    layout = as_choice("layout", layout, ROPE_LAYOUTS)
    backend = backend or ("torch" if _is_torch(x) else "numpy")
    check_backend(backend, device)
    half = int(np.asarray(to_numpy(inv_freq)).reshape(-1).shape[0])
    r = 2 * half
    head_dim, seq = int(x.shape[-1]), int(x.shape[-2])
    if r > head_dim:
        raise ValueError(f"inv_freq has {half} frequencies, which rotate {r} dimensions, "
                         f"but x has only head_dim = {head_dim}.")
    if int(np.prod(x.shape)) > MAX_ELEMENTS:
        raise ValueError(f"x has {int(np.prod(x.shape)):,} values, above the cap of {MAX_ELEMENTS:,}.")
    if len(positions) != seq:
        raise ValueError(f"positions has {len(positions)} entries but x has {seq} rows (its second-to-last axis).")
    if backend == "torch":
        return _apply_rope_torch(x, positions, inv_freq, layout, attention_factor, device)

    x = to_numpy(x)
    angles = rope_angles(positions, inv_freq)  # (seq, r/2)
    cos = (np.cos(angles) * attention_factor).astype(x.dtype)
    sin = (np.sin(angles) * attention_factor).astype(x.dtype)
    x1, x2, rest = _split(x, r, layout)
    out = np.empty_like(x)
    o1, o2, orest = _split(out, r, layout)
    o1[...] = x1 * cos - x2 * sin
    o2[...] = x2 * cos + x1 * sin
    orest[...] = rest
    return out


def _apply_rope_torch(x, positions, inv_freq, layout, attention_factor, device):
    torch = require_torch()
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(np.asarray(x))
    if device is not None:
        x = x.to(device)
    inv = torch.as_tensor(to_numpy(inv_freq) if not isinstance(inv_freq, torch.Tensor) else inv_freq,
                          dtype=torch.float32, device=x.device).reshape(-1)
    pos = torch.as_tensor(to_numpy(positions) if not isinstance(positions, torch.Tensor) else positions,
                          device=x.device).to(torch.float32).reshape(-1)
    angles = pos[:, None] * inv[None, :]  # (seq, r/2), float32 even under autocast
    cos = (angles.cos() * attention_factor).to(x.dtype)
    sin = (angles.sin() * attention_factor).to(x.dtype)
    r = 2 * inv.shape[0]
    x1, x2, rest = _split(x, r, layout)
    y1 = x1 * cos - x2 * sin
    y2 = x2 * cos + x1 * sin
    if layout == "half":
        return torch.cat((y1, y2, rest), dim=-1)
    return torch.cat((torch.stack((y1, y2), dim=-1).flatten(-2), rest), dim=-1)


def half_to_interleaved_permutation(rotary_dim) -> np.ndarray:
    """perm with x_interleaved = x_half[..., perm]: half-layout index i -> 2i, i + r/2 -> 2i + 1.

    This is the fixed permutation a checkpoint needs on its W_q / W_k rows when converted
    between the two layouts.
    """
    r = as_even_dim("rotary_dim", rotary_dim)
    return np.stack([np.arange(r // 2), np.arange(r // 2) + r // 2], axis=-1).reshape(-1)


def rope_decay_bound(head_dim, distances, base=10000.0, *, backend="numpy", device=None):
    """RoFormer's relative upper bound on |q . k| as a function of relative distance r.

    (1 / (d/2)) * sum_{j=1..d/2} |sum_{k<j} exp(i r theta_k)|, with theta_k = base^(-2k/d).

    Returns:
        Array of shape (len(distances),), float32.
    """
    d = as_even_dim("head_dim", head_dim)
    theta = base_inv_freq(as_base(base), d)  # (d/2,)
    r = np.asarray(distances, dtype=np.float64).reshape(-1)  # (n,)
    check_size(r.shape[0] * theta.shape[0], "The decay bound")
    out = np.empty(r.shape[0], dtype=np.float64)
    chunk = max(1, (1 << 20) // theta.shape[0])  # keep the complex work buffer near 16 MiB
    for start in range(0, r.shape[0], chunk):
        phases = np.exp(1j * np.multiply.outer(r[start:start + chunk], theta))  # (c, d/2)
        out[start:start + chunk] = np.abs(np.cumsum(phases, axis=1)).mean(axis=1)
    return to_backend(out.astype(np.float32), backend, device)


# ---------------------------------------------------------------------------------------------------------
# One pair: the 2D picture behind every RoPE formula.

def rope_pair_theta(pair, head_dim, base=10000.0) -> float:
    """theta_i = base^(-2i/d) for pair ``pair`` of a head of size ``head_dim`` (float64, exact formula)."""
    d = as_even_dim("head_dim", head_dim)
    i = as_int("pair index", pair, minimum=0, maximum=d // 2 - 1)
    return float(base_inv_freq(as_base(base), d)[i])


def _as_pair(name, value) -> complex:
    try:
        x, y = (as_float(f"{name}[{j}]", v) for j, v in enumerate(value))
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be two finite numbers (x, y); {error}") from None
    return complex(x, y)


def rope_pair(q, k, m, n, theta) -> dict:
    """Rotate one query pair by m*theta and one key pair by n*theta, the complex-number way.

    A pair (x, y) is the complex number x + iy; rotating by an angle a multiplies it by e^{ia}.
    The dot product of two pairs is Re(a * conj(b)), so the score is
    Re(q conj(k) e^{i(m-n) theta}): only m - n appears.

    Args:
        q, k: (x, y) pairs.
        m, n: positions of the query and the key.
        theta: rotation speed of the pair, radians per position.

    Returns:
        dict with the rotated pairs ``q_rot``, ``k_rot`` as (x, y), the angles, the rotated ``score``,
        the unrotated ``plain_score`` = q . k, the complex ``q_conj_k`` = q conj(k) and
        ``product`` = q_rot conj(k_rot), all float64.
    """
    qc, kc = _as_pair("q", q), _as_pair("k", k)
    m = as_float("m", m, minimum=-MAX_POSITIONS, maximum=MAX_POSITIONS)
    n = as_float("n", n, minimum=-MAX_POSITIONS, maximum=MAX_POSITIONS)
    theta = as_float("theta", theta, minimum=-1e3, maximum=1e3)
    q_rot, k_rot = qc * complex(math.cos(m * theta), math.sin(m * theta)), \
        kc * complex(math.cos(n * theta), math.sin(n * theta))
    product = q_rot * k_rot.conjugate()
    return {
        "q_rot": (q_rot.real, q_rot.imag), "k_rot": (k_rot.real, k_rot.imag),
        "q_angle": m * theta, "k_angle": n * theta, "relative_angle": (m - n) * theta,
        "score": q_rot.real * k_rot.real + q_rot.imag * k_rot.imag,
        "plain_score": qc.real * kc.real + qc.imag * kc.imag,
        "q_conj_k": (qc * kc.conjugate()).real + 0.0, "q_conj_k_imag": (qc * kc.conjugate()).imag + 0.0,
        "product": (product.real, product.imag),
        # arcs for a drawing: from each vector's direction, turning by its angle (mod one full turn)
        "q_arc": (math.atan2(qc.imag, qc.real), math.atan2(qc.imag, qc.real) + math.fmod(m * theta, 2 * math.pi)),
        "k_arc": (math.atan2(kc.imag, kc.real), math.atan2(kc.imag, kc.real) + math.fmod(n * theta, 2 * math.pi)),
        "relative_arc": (math.atan2((qc * kc.conjugate()).imag, (qc * kc.conjugate()).real),
                         math.atan2((qc * kc.conjugate()).imag, (qc * kc.conjugate()).real)
                         + math.fmod((m - n) * theta, 2 * math.pi)),
    }


def rope_pair_shift_scores(q, k, m, n, theta, max_shift=None) -> dict:
    """Scores of one pair as both positions move together (m+s, n+s) and as only the key moves (m, n+s).

    By default the shifts cover about four wavelengths 2 pi / theta (between 24 and 4096 positions).

    Returns:
        dict with ``shift`` (s = 0..max_shift), ``together`` and ``key_only``, each shape (max_shift + 1,).
    """
    qc, kc = _as_pair("q", q), _as_pair("k", k)
    theta = as_float("theta", theta, minimum=-1e3, maximum=1e3)
    if max_shift is None:
        max_shift = int(min(4096, max(24, 8 * math.pi / abs(theta)))) if theta else 24
    max_shift = as_int("max_shift", max_shift, minimum=1, maximum=MAX_POSITIONS)
    m = as_float("m", m, minimum=-MAX_POSITIONS, maximum=MAX_POSITIONS)
    n = as_float("n", n, minimum=-MAX_POSITIONS, maximum=MAX_POSITIONS)
    s = np.arange(max_shift + 1, dtype=np.float64)  # (S,)
    z = qc * kc.conjugate()

    def score(pos_q, pos_k):  # Re(q conj(k) e^{i (m - n) theta}), computed from the two rotations
        return np.real(z * np.exp(1j * pos_q * theta) * np.exp(-1j * pos_k * theta))

    return {"shift": s, "together": score(m + s, n + s), "key_only": score(m + 0 * s, n + s)}


# ---------------------------------------------------------------------------------------------------------
# All pairs at once.

def rope_angle_table(n, head_dim, base=10000.0, part="angle") -> np.ndarray:
    """The table every RoPE layer uses: m * theta_i (mod 2 pi), or its cos / sin.

    Args:
        n: positions 0..n-1.
        head_dim: rotated dimensions (d/2 pairs).
        part: "angle" (m theta_i mod 2 pi, in [0, 2 pi)), "cos" or "sin".

    Returns:
        Array of shape (n, head_dim/2), float32, computed as transformers does (float32 angles).
    """
    n = as_int("positions", n, minimum=1, maximum=MAX_POSITIONS)
    part = as_choice("part", part, ("angle", "cos", "sin"))
    d = as_even_dim("head_dim", head_dim)
    check_size(n * d // 2, "The angle table")
    inv_freq, _ = rope_inv_freq(d, base)
    angles = rope_angles(np.arange(n), inv_freq)  # (n, d/2) float32
    if part == "cos":
        return np.cos(angles)
    if part == "sin":
        return np.sin(angles)
    return np.mod(angles.astype(np.float64), 2 * np.pi).astype(np.float32)


def rope_turns(head_dim, base=10000.0, context=4096) -> dict:
    """How far each pair turns within a context of ``context`` positions.

    Returns:
        dict with ``pair`` (d/2,), ``theta`` (rad per position), ``wavelength`` (2 pi / theta, positions)
        and ``turns`` (context * theta / 2 pi, full turns made inside the context), all float64, plus
        ``full_turn_pairs``: how many pairs complete at least one turn.
    """
    d = as_even_dim("head_dim", head_dim)
    context = as_int("context length", context, minimum=1, maximum=MAX_POSITIONS * 64)
    theta = base_inv_freq(as_base(base), d)  # (d/2,)
    turns = context * theta / (2 * np.pi)
    return {"pair": np.arange(d // 2), "theta": theta, "wavelength": 2 * np.pi / theta, "turns": turns,
            "full_turn_pairs": int(np.count_nonzero(turns >= 1.0))}


# ---------------------------------------------------------------------------------------------------------
# Relative: the score grid, and long-term decay.

def _gaussian(seed, *shape) -> np.ndarray:
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    return np.random.default_rng(seed).standard_normal(shape)


def rope_score_matrix(n, head_dim, base=10000.0, layout="half", seed=0) -> np.ndarray:
    """q_m . k_n for one random query vector q and key vector k placed at every position 0..n-1.

    q and k are drawn once (standard normal, seeded) and rotated by apply_rope at every position;
    entry [m, n] is their score. RoPE makes it depend only on m - n (a Toeplitz matrix), up to the
    float32 rounding of the angles.

    Returns:
        Array of shape (n, n), float64.
    """
    n = as_int("positions", n, minimum=1, maximum=4096)
    d = as_even_dim("head_dim", head_dim)
    check_size(n * n + 2 * n * d, "The score matrix")
    q, k = _gaussian(seed, 2, d)
    inv_freq, _ = rope_inv_freq(d, base)
    positions = np.arange(n)
    q_rot = apply_rope(np.broadcast_to(q, (n, d)).copy(), positions, inv_freq, layout)  # (n, d)
    k_rot = apply_rope(np.broadcast_to(k, (n, d)).copy(), positions, inv_freq, layout)  # (n, d)
    return q_rot @ k_rot.T


def rope_mean_abs_scores(head_dim, distances, base=10000.0, *, samples=256, seed=0) -> dict:
    """Mean |q . R_r k| over random vectors, at each relative distance r.

    Two cases: q and k independent standard-normal vectors, and q = k (a query meeting its own key).
    Each pair i contributes Re(z_i e^{i r theta_i}) with z_i = q_i conj(k_i) (the pair as a complex
    number), so the score at every distance costs one matrix product.

    Returns:
        dict with ``random`` and ``identical``, each shape (len(distances),), float64; the mean score at
        distance 0 of each (their natural scale, ``<name>_at_zero``); and ``<name>_bound_factor``, the mean
        over the samples of RoFormer's content factor max_j |h_{j+1} - h_j| (h_j = q_j conj(k_j), h_{d/2} = 0),
        so that ``<name>_bound_factor * (d/2) * rope_decay_bound(d, r)`` is the mean of the per-sample bound,
        which is never below the mean |q . k| at the same distance.
    """
    d = as_even_dim("head_dim", head_dim)
    samples = as_int("samples", samples, minimum=1, maximum=8192)
    r = np.asarray(distances, dtype=np.float64).reshape(-1)  # (N,)
    if not np.all(np.isfinite(r)):
        raise ValueError("distances must be finite numbers.")
    check_size(r.shape[0] * (samples + d // 2), "The decay curves")
    theta = base_inv_freq(as_base(base), d)  # (d/2,)
    phase = np.multiply.outer(theta, r)  # (d/2, N)
    cos, sin = np.cos(phase), np.sin(phase)
    q, k = _gaussian(seed, 2, samples, d)  # half layout: pair i is (i, i + d/2)
    out = {}
    for name, (a, b) in {"random": (q, k), "identical": (q, q)}.items():
        za = a[:, : d // 2] + 1j * a[:, d // 2:]
        zb = b[:, : d // 2] + 1j * b[:, d // 2:]
        z = za * np.conj(zb)  # (S, d/2)
        scores = z.real @ cos - z.imag @ sin  # Re(z e^{i r theta}), (S, N)
        out[name] = np.abs(scores).mean(axis=0)
        out[f"{name}_at_zero"] = float(np.abs(z.real.sum(axis=1)).mean())
        # Abel summation needs h_{d/2} = 0: the last pair's own size is one of the differences.
        steps = np.abs(np.diff(np.concatenate([z, np.zeros((z.shape[0], 1))], axis=1), axis=1))  # (S, d/2)
        out[f"{name}_bound_factor"] = float(steps.max(axis=1).mean())
    return out


def rope_decay_curves(head_dim, max_distance, base=10000.0, *, log_distance=False, samples=512, seed=0) -> dict:
    """RoFormer's bound and the measured mean |q . k| against distance, each divided by its value at distance 0.

    Args:
        max_distance: largest relative distance shown.
        log_distance: log-spaced integer distances from 1 (for a log axis) instead of an even grid from 0.

    Returns:
        dict with ``distance``, ``bound``, ``random``, ``identical`` (same length, at most about 1,200
        points, float64, 1.0 means "as large as at distance 0"), and the unnormalised scales at
        distance 0: ``bound_at_zero``, ``random_at_zero``, ``identical_at_zero``.

        The same curves in the score's own units, where the bound is a bound: ``identical_score`` and
        ``random_score`` (mean |q . k|) and ``identical_bound`` and ``random_bound`` (the mean of RoFormer's
        bound max_j |h_{j+1} - h_j| * sum_j |S_j| over the same samples), and ``identical_slack`` /
        ``random_slack``, the smallest ratio bound / score over the distances (at least 1), with the content
        factors ``identical_bound_factor`` / ``random_bound_factor``;
        ``normalised_bound_below`` counts the distances where the normalised bound is below the normalised
        q = k score.

        Divided by their own values at distance 0, bound and score no longer compare: the bound is loosest
        at distance 0 (where every partial sum S_j has its largest size, j), so its normalised curve can
        fall below the normalised score although the bound itself never does.
    """
    d = as_even_dim("head_dim", head_dim)
    max_distance = as_int("max distance", max_distance, minimum=2, maximum=MAX_POSITIONS)
    if log_distance:
        distances = np.unique(np.geomspace(1, max_distance, 1200).round())
    else:
        distances = np.arange(0, max_distance + 1, -(-max_distance // 1200), dtype=np.float64)
    bound = rope_decay_bound(d, np.concatenate([[0.0], distances]), base).astype(np.float64)
    scores = rope_mean_abs_scores(d, distances, base, samples=samples, seed=seed)
    partial_sums = bound[1:] * (d // 2)  # sum_j |S_j(r)|, (N,)
    out = {"distance": distances, "bound": bound[1:] / bound[0],
           "random": scores["random"] / scores["random_at_zero"],
           "identical": scores["identical"] / scores["identical_at_zero"],
           "bound_at_zero": float(bound[0]), "random_at_zero": scores["random_at_zero"],
           "identical_at_zero": scores["identical_at_zero"],
           "partial_sums_at_zero": float(bound[0]) * (d // 2)}  # sum_j |S_j(0)| = sum_j j
    for name in ("identical", "random"):
        ceiling = scores[f"{name}_bound_factor"] * partial_sums  # (N,)
        out[f"{name}_score"], out[f"{name}_bound"] = scores[name], ceiling
        out[f"{name}_bound_factor"] = scores[f"{name}_bound_factor"]
        out[f"{name}_slack"] = float(np.min(ceiling / np.maximum(scores[name], np.finfo(np.float64).tiny)))
    out["normalised_bound_below"] = int(np.sum(out["bound"] < out["identical"]))  # distances where shapes mislead
    return out


# ---------------------------------------------------------------------------------------------------------
# Layouts, checkpoint conversion, partial rotary.

def rope_layout_check(n, head_dim, base=10000.0, seed=0) -> dict:
    """Numerical proof that the two layouts are one rotation up to the fixed permutation.

    Returns:
        dict with ``x`` (n, d) random vectors in half layout, ``half`` = RoPE_half(x) and
        ``interleaved`` = RoPE_interleaved(x[:, perm]), ``permuted_half`` = RoPE_half(x)[:, perm],
        ``perm``, and the largest differences: ``with_perm`` (tiny) and ``without_perm`` (the two
        layouts applied to the same unpermuted vector, large).
    """
    n = as_int("positions", n, minimum=1, maximum=4096)
    d = as_even_dim("head_dim", head_dim)
    check_size(4 * n * d, "The layout check")
    x = _gaussian(seed, n, d)
    inv_freq, _ = rope_inv_freq(d, base)
    positions = np.arange(n)
    perm = half_to_interleaved_permutation(d)
    half = apply_rope(x, positions, inv_freq, "half")
    inter = apply_rope(x[:, perm], positions, inv_freq, "interleaved")
    return {"x": x, "perm": perm, "half": half, "interleaved": inter, "permuted_half": half[:, perm],
            "with_perm": float(np.abs(half[:, perm] - inter).max()),
            "without_perm": float(np.abs(half - apply_rope(x, positions, inv_freq, "interleaved")).max())}


def _rows_per_head(weight, n_heads):
    w = np.asarray(to_numpy(weight))
    if w.ndim != 2:
        raise ValueError(f"A projection weight must be 2D (out_features x in_features), but has shape {w.shape}.")
    n_heads = as_int("n_heads", n_heads, minimum=1, maximum=4096)
    if w.shape[0] % n_heads or (w.shape[0] // n_heads) % 2:
        raise ValueError(f"The weight has {w.shape[0]} rows, which do not split into {n_heads} heads of an even "
                         "head_dim.")
    return w.reshape(n_heads, w.shape[0] // n_heads, w.shape[1])  # (heads, head_dim, in)


def interleaved_rows_to_half(weight, n_heads) -> np.ndarray:
    """Reorder the rows of W_q or W_k from interleaved pairs to the half layout, head by head.

    This is what converting Meta's Llama checkpoints for transformers does: in every head, row 2i
    goes to i and row 2i+1 goes to i + head_dim/2. Shape (n_heads * head_dim, in) in and out.
    """
    w = _rows_per_head(weight, n_heads)
    inverse = np.argsort(half_to_interleaved_permutation(w.shape[1]))
    return w[:, inverse, :].reshape(-1, w.shape[2])


def half_rows_to_interleaved(weight, n_heads) -> np.ndarray:
    """The inverse of ``interleaved_rows_to_half``: row i goes to 2i and row i + head_dim/2 to 2i+1."""
    w = _rows_per_head(weight, n_heads)
    return w[:, half_to_interleaved_permutation(w.shape[1]), :].reshape(-1, w.shape[2])


def rope_conversion_scores(n, head_dim, base=10000.0, *, d_model=None, seed=0) -> dict:
    """Attention scores of one head in half layout, and after converting it to interleaved.

    A model trained with the half layout has weights W_q, W_k (head_dim x d_model). Run with the
    interleaved layout, it gives the same scores only if the rows of W_q and W_k are permuted.

    Returns:
        dict with ``half`` (original model), ``converted`` (permuted rows, interleaved rotation),
        ``naive`` (same weights, interleaved rotation), each (n, n) float64, and the largest
        differences ``converted_error`` and ``naive_error`` from ``half``.
    """
    n = as_int("positions", n, minimum=1, maximum=4096)
    d = as_even_dim("head_dim", head_dim)
    d_model = 2 * d if d_model is None else as_int("d_model", d_model, minimum=1, maximum=MAX_DIM)
    check_size(3 * n * n + 2 * d * d_model + n * d_model, "The conversion check")
    rng_x, rng_q, rng_k = (_gaussian(seed + j, *shape) for j, shape in
                           enumerate([(n, d_model), (d, d_model), (d, d_model)]))
    x, w_q, w_k = rng_x, rng_q / math.sqrt(d_model), rng_k / math.sqrt(d_model)
    inv_freq, _ = rope_inv_freq(d, base)
    positions = np.arange(n)

    def scores(wq, wk, layout):
        q = apply_rope(x @ wq.T, positions, inv_freq, layout)  # (n, d)
        k = apply_rope(x @ wk.T, positions, inv_freq, layout)  # (n, d)
        return q @ k.T

    half = scores(w_q, w_k, "half")
    converted = scores(half_rows_to_interleaved(w_q, 1), half_rows_to_interleaved(w_k, 1), "interleaved")
    naive = scores(w_q, w_k, "interleaved")
    return {"half": half, "converted": converted, "naive": naive,
            "converted_error": float(np.abs(converted - half).max()),
            "naive_error": float(np.abs(naive - half).max())}


def rope_cos_table(n, head_dim, base=10000.0, *, partial_rotary_factor=1.0, layout="half") -> dict:
    """The cos coefficient each dimension of a head gets at each position, pass-through dimensions included.

    With partial rotary (GPT-NeoX's rotary_pct), only the first rotary_dim = int(head_dim * factor)
    dimensions rotate; the rest keep cos = 1, sin = 0 (they are copied through unchanged).

    Returns:
        dict with ``cos`` (n, head_dim) float32, ``pair`` (head_dim,) the pair index of each dimension
        (-1 for pass-through) and ``rotary_dim``.
    """
    n = as_int("positions", n, minimum=1, maximum=MAX_POSITIONS)
    d = as_even_dim("head_dim", head_dim)
    layout = as_choice("layout", layout, ROPE_LAYOUTS)
    check_size(n * d, "The cos table")
    inv_freq, _ = rope_inv_freq(d, base, partial_rotary_factor=partial_rotary_factor)
    r = 2 * inv_freq.shape[0]
    cos_pairs = np.cos(rope_angles(np.arange(n), inv_freq))  # (n, r/2)
    pair_of_dim = np.full(d, -1)
    pair_of_dim[:r] = np.tile(np.arange(r // 2), 2) if layout == "half" else np.repeat(np.arange(r // 2), 2)
    table = np.ones((n, d), dtype=np.float32)
    table[:, :r] = cos_pairs[:, pair_of_dim[:r]]
    return {"cos": table, "pair": pair_of_dim, "rotary_dim": r}


# ---------------------------------------------------------------------------------------------------------
# Precision of the angles.

ANGLE_DTYPES = ("bfloat16", "float16", "float32")
_UNIT_ROUNDOFF = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 2.0**-24}
_FLOAT16_MAX = 65504.0


def round_to_dtype(x, dtype) -> np.ndarray:
    """Round float values to bfloat16, float16 or float32 (nearest, ties to even); float64 out.

    bfloat16 keeps the top 16 bits of a float32 (8 significant bits), which is what torch does when
    it casts float32 to bfloat16. float16 overflows to inf above 65504.
    """
    dtype = as_choice("dtype", dtype, ANGLE_DTYPES)
    x = np.asarray(x, dtype=np.float64)
    if dtype == "float16":
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float64)
    x32 = x.astype(np.float32)
    if dtype == "float32":
        return x32.astype(np.float64)
    bits = x32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # round to nearest even on the low 16 bits
    out = rounded.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(np.isfinite(x32), out, x32)  # inf / nan stay as they are


def rope_inv_freq_float32_pow(head_dim, base=10000.0) -> np.ndarray:
    """inv_freq as transformers builds it: 1 / base ** (arange(0, d, 2) / d) with torch's float32 pow.

    The same bits as ``rope_inv_freq(head_dim, base)``, which forms every rope type this way.
    Shape (head_dim / 2,), float32.
    """
    d = as_even_dim("head_dim", head_dim)
    return rope_inv_freq(d, base)[0]


def rope_float32_pow_difference(head_dim, base=10000.0, position=1500) -> dict:
    """The measured gap between the float32 angles transformers forms and the exact ones.

    transformers forms theta_i with a float32 pow and a float32 division, which can land a few units in the
    last place (ulp) away from the exact value, and then the angle m * theta_i with one more float32
    rounding. Both are measured here against float64.

    Returns:
        dict with ``n_pairs``; ``pairs_differing``: how many theta_i differ from the correctly rounded
        float32 value; ``max_ulp``: the largest |theta_model - theta_exact| in float32 ulps of theta_exact;
        ``angle_shift``: the largest |m theta_model - m theta_exact| at ``position`` (exact products: the
        frequency error alone); ``angle_error``: the largest |fl32(m * theta_model) - m theta_exact| at
        ``position``, the true error of the angle transformers forms; ``rounded_angle_error``: the same with
        the correctly rounded theta (what float32 multiplication alone costs). Radians, floats.
    """
    d = as_even_dim("head_dim", head_dim)
    position = as_int("position", position, minimum=0, maximum=MAX_POSITIONS * 64)
    model = rope_inv_freq(d, base)[0]  # (d/2,) float32, transformers' bits
    exact = rope_inv_freq(d, base, ideal=True)[0]  # (d/2,) float64
    rounded = exact.astype(np.float32)  # correctly rounded theta
    ulp = np.spacing(rounded).astype(np.float64)
    m32 = np.float32(position)  # position_ids.float()
    exact_angle = position * exact
    return {
        "n_pairs": d // 2,
        "pairs_differing": int(np.count_nonzero(model != rounded)),
        "max_ulp": float(np.max(np.abs(model.astype(np.float64) - exact) / ulp)),
        "angle_shift": float(np.max(np.abs(position * model.astype(np.float64) - exact_angle))),
        "angle_error": float(np.max(np.abs((m32 * model).astype(np.float64) - exact_angle))),
        "rounded_angle_error": float(np.max(np.abs((m32 * rounded).astype(np.float64) - exact_angle))),
    }


def _model_inv_freq(head_dim, base, dtype) -> np.ndarray:
    """The inv_freq a model holds in ``dtype`` (float64 values): transformers' float32 buffer, then cast."""
    inv_freq, _ = rope_inv_freq(head_dim, base)  # float32, bit-identical to transformers
    return round_to_dtype(inv_freq, dtype)


def _angle_errors(positions, theta_exact, theta_model, dtype) -> np.ndarray:
    """|m theta computed in dtype - m theta exact|, shape (len(positions), d/2), inf on overflow."""
    m = np.asarray(positions, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        computed = round_to_dtype(np.multiply.outer(round_to_dtype(m, dtype), theta_model), dtype)
        return np.abs(computed - np.multiply.outer(m, theta_exact))


def rope_angles_in_dtype(start, count, head_dim, base=10000.0, *, pair=0, dtype="bfloat16") -> dict:
    """m * theta_pair for positions start..start+count-1, exact (float64) and as computed in ``dtype``.

    In dtype, the position is cast, theta is cast, and their product is rounded, as when a model's
    position ids and inv_freq live in that dtype.

    Returns:
        dict with ``position``, ``exact`` and ``computed`` (count,), float64 (inf where float16 overflows).
    """
    dtype = as_choice("dtype", dtype, ANGLE_DTYPES)
    d = as_even_dim("head_dim", head_dim)
    pair = as_int("pair index", pair, minimum=0, maximum=d // 2 - 1)
    start = as_int("start", start, minimum=0, maximum=MAX_POSITIONS * 64)
    count = as_int("count", count, minimum=1, maximum=1 << 16)
    m = np.arange(start, start + count, dtype=np.float64)
    theta_exact = rope_pair_theta(pair, d, base)
    theta_model = _model_inv_freq(d, base, dtype)[pair]
    with np.errstate(invalid="ignore", over="ignore"):
        computed = round_to_dtype(round_to_dtype(m, dtype) * theta_model, dtype)
    return {"position": m, "exact": m * theta_exact, "computed": computed}


def rope_angle_error_curve(max_position, head_dim, base=10000.0, dtype="bfloat16", *, bins=240,
                           per_bin=48) -> dict:
    """The worst angle error (over all pairs) of m * theta_i in ``dtype`` against float64, up to max_position.

    Positions 1..max_position are cut into ``bins`` log-spaced bins; in each bin ``per_bin`` evenly
    spread integer positions are measured (every position while a bin is small) and the largest
    error is kept, so the curve shows the worst case a model meets around that length.

    Returns:
        dict with ``position`` (right edge of each bin) and ``error`` (radians), shape (bins,), float64;
        where the angle overflows (float16 above 65,504) the error is NaN and ``overflow_from`` gives the
        first such bin's position (None if nothing overflows); ``worst`` is the largest finite error.
        The model's theta is transformers' own float32 inv_freq (cast to ``dtype``), so the curve includes
        the error of its float32 pow, not only that of the multiplication.
    """
    dtype = as_choice("dtype", dtype, ANGLE_DTYPES)
    d = as_even_dim("head_dim", head_dim)
    max_position = as_int("max_position", max_position, minimum=2, maximum=MAX_POSITIONS)
    bins = as_int("bins", bins, minimum=2, maximum=2000)
    per_bin = as_int("per_bin", per_bin, minimum=1, maximum=1024)
    check_size(bins * per_bin * d // 2, "The error curve")
    theta_exact = base_inv_freq(as_base(base), d)
    theta_model = _model_inv_freq(d, base, dtype)
    edges = np.unique(np.geomspace(1, max_position, bins + 1).round().astype(np.int64))
    positions, errors = [], []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        sample = np.unique(np.linspace(lo + 1, hi, min(per_bin, hi - lo)).round())
        positions.append(float(hi))
        errors.append(float(_angle_errors(sample, theta_exact, theta_model, dtype).max()))
    errors = np.array(errors)
    overflow = ~np.isfinite(errors)
    finite = errors[~overflow]
    return {"position": np.array(positions), "error": np.where(overflow, np.nan, errors),
            "overflow_from": float(np.array(positions)[overflow][0]) if overflow.any() else None,
            "worst": float(finite.max()) if finite.size else math.nan}


def rope_first_bad_position(head_dim, base=10000.0, dtype="bfloat16", *, threshold=1.0,
                            max_position=1 << 20) -> int | None:
    """The first position whose angle error (any pair) reaches ``threshold`` radians in ``dtype``.

    Scans every position 0..max_position (in chunks, stopping at the first hit). None if none does.
    A chunk is skipped when a rounding-error bound proves no position in it can reach the threshold
    (the error is at most hi * |theta_model - theta| + two roundings of at most u * hi * theta each).
    """
    dtype = as_choice("dtype", dtype, ANGLE_DTYPES)
    d = as_even_dim("head_dim", head_dim)
    threshold = as_float("threshold", threshold, above=0.0)
    max_position = as_int("max_position", max_position, minimum=1, maximum=MAX_POSITIONS)
    theta_exact = base_inv_freq(as_base(base), d)
    theta_model = _model_inv_freq(d, base, dtype)
    chunk = max(1, (1 << 20) // (d // 2))
    drift, u = float(np.abs(theta_model - theta_exact).max()), _UNIT_ROUNDOFF[dtype]
    for start in range(0, max_position + 1, chunk):
        m = np.arange(start, min(start + chunk, max_position + 1), dtype=np.float64)
        hi = float(m[-1])
        if hi * drift + 2.5 * u * hi * float(theta_model.max()) < threshold:
            continue
        bad = np.nonzero((_angle_errors(m, theta_exact, theta_model, dtype) >= threshold).any(axis=1))[0]
        if bad.size:
            return int(m[bad[0]])
    return None


# ---------------------------------------------------------------------------------------------------------
# Where RoPE lives in a model.

def rope_model_costs(n_layers, n_heads, n_kv_heads, head_dim, seq_len, *, partial_rotary_factor=1.0,
                     d_model=None) -> dict:
    """What RoPE adds to a decoder: no parameters, and a few rotations per token.

    Returns:
        dict with ``parameters`` (always 0), ``rotated_vectors_per_token`` (queries and keys of every
        head in every layer; values are not rotated), ``rotations_per_token`` (2D rotations, one per
        pair), ``table_values`` (the cos and sin tables for seq_len positions, shared by every layer),
        and ``learned_table_parameters`` (what a learned absolute table of seq_len x d_model would cost);
        per token and layer, ``projection_macs_per_layer`` (x W_q, x W_k, x W_v), ``rope_multiplies_per_layer``
        and ``rope_share_per_layer``, the rotations' fraction of the two together.
    """
    n_layers = as_int("n_layers", n_layers, minimum=1, maximum=1024)
    n_heads = as_int("n_heads", n_heads, minimum=1, maximum=4096)
    n_kv_heads = as_int("n_kv_heads", n_kv_heads, minimum=1, maximum=n_heads)
    if n_heads % n_kv_heads:
        raise ValueError(f"n_heads ({n_heads}) must be a multiple of n_kv_heads ({n_kv_heads}): each group of "
                         "query heads shares one key head.")
    d = as_even_dim("head_dim", head_dim)
    seq_len = as_int("seq_len", seq_len, minimum=1, maximum=MAX_POSITIONS * 64)
    r = rotary_dim(d, partial_rotary_factor)
    d_model = n_heads * d if d_model is None else as_int("d_model", d_model, minimum=1, maximum=MAX_DIM * 64)
    vectors = n_layers * (n_heads + n_kv_heads)
    # per token and layer: x W_q, x W_k, x W_v as multiply-adds; each 2D rotation is 4 multiplies
    projection, rotation = d_model * (n_heads + 2 * n_kv_heads) * d, 4 * (n_heads + n_kv_heads) * r // 2
    return {"parameters": 0, "rotated_vectors_per_token": vectors, "rotations_per_token": vectors * r // 2,
            "table_values": 2 * seq_len * r // 2, "learned_table_parameters": seq_len * d_model,
            "rotary_dim": r, "projection_macs_per_layer": projection, "rope_multiplies_per_layer": rotation,
            "rope_share_per_layer": rotation / (rotation + projection)}


# Published configs (config.json on the Hugging Face Hub), for the "where it lives" lesson.
ROPE_MODEL_PRESETS = {
    "Llama 2 7B": dict(n_layers=32, n_heads=32, n_kv_heads=32, head_dim=128, d_model=4096, base=10000.0,
                       context=4096, partial_rotary_factor=1.0),
    "Llama 3 8B": dict(n_layers=32, n_heads=32, n_kv_heads=8, head_dim=128, d_model=4096, base=500000.0,
                       context=8192, partial_rotary_factor=1.0),
    "Qwen2 7B": dict(n_layers=28, n_heads=28, n_kv_heads=4, head_dim=128, d_model=3584, base=1000000.0,
                     context=32768, partial_rotary_factor=1.0),
    "GPT-NeoX 20B": dict(n_layers=44, n_heads=64, n_kv_heads=64, head_dim=96, d_model=6144, base=10000.0,
                         context=2048, partial_rotary_factor=0.25),
}
