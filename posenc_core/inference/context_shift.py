"""llama.cpp's context shift: keep the first n_keep tokens, drop n_discard, turn the cached keys after them back.

When a chat fills the context, llama.cpp's server (``tools/server/server-context.cpp``, ``update_slots``, with
``--context-shift``) keeps the first ``n_keep`` cached tokens, removes the next ``n_discard`` with
``llama_memory_seq_rm`` and moves every later token back by ``n_discard`` positions with ``llama_memory_seq_add``
(``n_discard`` defaults to ``n_left / 2``, integer division, with ``n_left = n_tokens - n_keep``). ``seq_add`` only
adds the delta to each cell's position and to its pending ``shift``; at the next decode
``llama_kv_cache::build_graph_shift`` rotates the first ``n_rot`` dimensions of every cached key by that shift
(``build_rope_shift``: ``ggml_rope_ext_inplace`` on an f16 or f32 cache, the same base, scaling and rope type as
the model). ggml's CPU kernel (``ggml_compute_forward_rope_flt``) reads each pair into float32, rotates it there
with angles ``delta * theta_scale**i`` (``theta_scale = powf(base, -2/n_rot)``, the power formed by repeated
float32 products) and cos and sin from C's ``cosf`` / ``sinf``, and writes it back in the cache's type, so every
shift rounds the keys once more. ``ggml_rope`` reproduces that arithmetic with the C library's own functions.

A rotation by a then by b is a rotation by a + b in exact arithmetic; this module measures what the rounding
of the stored keys adds, against the exact (float64) key at the new position and against a key computed fresh
there by the same rule's rotary: ggml's kernel for llama.cpp (``ggml_rope``), transformers' for transformers
(``apply_rope``, bit-identical to ``apply_rotary_pos_emb``). The lesson
*Context shift*.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._backend import require_torch
from .._checks import MAX_DIM, MAX_ELEMENTS, MAX_POSITIONS, as_base, as_choice, as_even_dim, as_int, check_size
from .._types import ArrayOrTensor
from ..rope.frequencies import base_inv_freq, rope_inv_freq
from ..rope.rotation import apply_rope
from .ggml_rope import ggml_rope_cache, ggml_rope_rows

__all__ = [
    "KSHIFT_ANGLES",
    "KSHIFT_DTYPES",
    "KSHIFT_HEADS",
    "ContextShiftPlan",
    "KShiftCurve",
    "KShiftHead",
    "KShiftScores",
    "context_shift_plan",
    "kshift",
    "kshift_angles",
    "kshift_error_curve",
    "kshift_scores",
]

KSHIFT_DTYPES = ("float32", "float16", "bfloat16")
MAX_SHIFTS = 1000
MAX_KEYS = 4096
MAX_TOKENS = 1 << 20  # a plan's cache: 1,048,576 tokens, the longest contexts served today


@dataclass(frozen=True)
class KShiftHead:
    """One attention head's RoPE settings, from a public config.json (values unchanged).

    Fields:
        name: the model's short name.
        head_dim: rotated dimensions of one head (hidden_size / heads).
        base: rope_theta.
        model_id: the Hugging Face repository whose config.json holds these values.
        hidden_size: the config's hidden_size.
        heads: the config's num_attention_heads.
    """

    name: str
    head_dim: int
    base: float
    model_id: str
    hidden_size: int
    heads: int


KSHIFT_HEADS: dict[str, KShiftHead] = {
    "smollm2-135m": KShiftHead("SmolLM2-135M", 64, 100000.0, "HuggingFaceTB/SmolLM2-135M", 576, 9),
    "llama2-7b": KShiftHead("Llama 2 7B", 128, 10000.0, "meta-llama/Llama-2-7b-hf", 4096, 32),
    "llama3-8b": KShiftHead("Llama 3 8B", 128, 500000.0, "meta-llama/Meta-Llama-3-8B", 4096, 32),
}


def _torch():
    return require_torch("The K-shift, rounded as a cache of float16 or bfloat16 keys is,")


def _dtype(name: str):
    name = as_choice("dtype", name, KSHIFT_DTYPES)
    return getattr(_torch(), name)


@dataclass(frozen=True)
class ContextShiftPlan:
    """Which cached tokens llama.cpp keeps, drops and moves back in one context shift (``context_shift_plan``).

    Fields:
        old: (n_tokens,) int positions 0..n_tokens-1 before the shift.
        new: (n_tokens,) float positions after the shift (NaN for a dropped token).
        status: (n_tokens,) str, each ``"kept"``, ``"dropped"`` or ``"shifted"``.
        delta: (n_tokens,) int the rotation each key gets (0 or -n_discard; 0 for dropped ones).
        n_discard: tokens dropped after the kept ones.
        n_left: n_tokens - n_keep.
        n_keep: the first tokens that stay where they are.
        n_tokens: tokens in the cache when the shift runs.
        default: whether the default rule chose n_discard.
        next_position: where the next token goes.
        survived: how many shifts the newest token lives through at this rule before it is dropped in turn.
        offset_change: how much the distance from the oldest token that stays to the newest one changes
            (-n_discard when the oldest that stays is a kept one, 0 when it moved too).
    """

    old: np.ndarray
    new: np.ndarray
    status: np.ndarray
    delta: np.ndarray
    n_discard: int
    n_left: int
    n_keep: int
    n_tokens: int
    default: bool
    next_position: int
    survived: int
    offset_change: int


def context_shift_plan(n_tokens: int, n_keep: int, n_discard: int = 0) -> ContextShiftPlan:
    """Which cached tokens llama.cpp keeps, drops and moves back when it shifts a full context.

    Args:
        n_tokens: tokens in the cache when the shift runs (the server shifts once ``n_tokens + 1`` reaches n_ctx).
        n_keep: the first tokens that stay where they are (the server adds 1 for a BOS token before this).
        n_discard: tokens dropped after them; 0 means llama.cpp's default ``(n_tokens - n_keep) // 2``.

    Returns:
        a ``ContextShiftPlan``.
    """
    n_tokens = as_int("n_tokens", n_tokens, minimum=2, maximum=MAX_TOKENS)
    n_keep = as_int("n_keep", n_keep, minimum=0, maximum=n_tokens - 1)
    n_left = n_tokens - n_keep
    n_discard = as_int("n_discard", n_discard, minimum=0)
    default = n_discard == 0
    if default:
        n_discard = n_left // 2
        if n_discard == 0:
            raise ValueError(f"n_discard by the default rule is (n_tokens - n_keep) // 2 = {n_left} // 2 = 0: keep "
                             "fewer tokens (n_keep) or give n_discard.")
    if n_keep + n_discard >= n_tokens:
        raise ValueError(f"n_keep + n_discard must be below n_tokens = {n_tokens:,}, so that at least the newest "
                         f"token stays and moves back, but got {n_keep:,} + {n_discard:,}.")
    old = np.arange(n_tokens)  # (n_tokens,)
    dropped = (old >= n_keep) & (old < n_keep + n_discard)
    shifted = old >= n_keep + n_discard
    new = np.where(dropped, np.nan, np.where(shifted, old - n_discard, old)).astype(np.float64)  # (n_tokens,)
    status = np.where(dropped, "dropped", np.where(shifted, "shifted", "kept"))
    delta = np.where(shifted, -n_discard, 0)  # (n_tokens,)
    first = 0 if n_keep else n_discard  # the oldest token that stays: a kept one, or else the first shifted one
    last = n_tokens - 1
    offset_change = int(new[last] - new[first]) - (last - first)
    return ContextShiftPlan(old, new, status, delta, n_discard, n_left, n_keep, n_tokens, default,
                            n_tokens - n_discard, (n_tokens - 1 - n_keep) // n_discard, offset_change)


def _ggml_angles(delta: int, head_dim: int, base: float) -> np.ndarray:
    """delta * theta_scale**i as ggml's CPU kernel forms it (``ggml_rope.ggml_rope_cache``): theta_scale is C's
    ``powf(base, -2.0f / n_dims)``, and the angle of pair i+1 is the float32 product of pair i's and theta_scale."""
    return ggml_rope_cache(delta, head_dim, base).theta


def _transformers_angles(delta: int, head_dim: int, base: float) -> np.ndarray:
    """delta * inv_freq in float32, with transformers' inv_freq (what its rotary does at position delta)."""
    inv_freq, _ = rope_inv_freq(head_dim, base)
    return np.float32(delta) * np.asarray(inv_freq, dtype=np.float32)  # (head_dim/2,)


# How the angles of one shift are formed: llama.cpp's ggml kernel, or transformers' rotary at position delta.
KSHIFT_ANGLES: dict[str, Callable[[int, int, float], np.ndarray]] = {
    "llama.cpp": _ggml_angles,
    "transformers": _transformers_angles,
}


def kshift_angles(delta: int, head_dim: int, base: float = 10000.0, rule: str = "llama.cpp") -> np.ndarray:
    """The angle each rotary pair of a cached key turns by in one shift of ``delta`` positions.

    Args:
        delta: the position change (negative for llama.cpp's shift back).
        head_dim: rotated dimensions of one head (even).
        base: rope_theta.
        rule: "llama.cpp" (ggml's float32 repeated products) or "transformers" (delta * inv_freq).

    Returns:
        (head_dim / 2,) float32 angles in radians.
    """
    delta = as_int("delta", delta, minimum=-MAX_POSITIONS, maximum=MAX_POSITIONS)
    head_dim = as_even_dim("head_dim", head_dim)
    base = as_base(base)
    rule = as_choice("rule", rule, tuple(KSHIFT_ANGLES))
    return KSHIFT_ANGLES[rule](delta, head_dim, base)


def _rotate(keys, cos, sin, dtype):
    """One shift of stored keys: each pair into float32, rotated there (no fused multiply-add), back to dtype.
    rotate_half pairing (i, i + d/2), as transformers; the first member is x1*cos - x2*sin."""
    torch = _torch()
    k = keys.to(torch.float32)
    h = k.shape[-1] // 2
    x1, x2 = k[..., :h], k[..., h:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(dtype)


def _ggml_cos_sin(delta: int, head_dim: int, base: float):
    """C's ``cosf`` / ``sinf`` of ggml's angles, as ``rope_yarn`` fills the kernel's cache."""
    row = ggml_rope_cache(delta, head_dim, base)
    return _torch().from_numpy(row.cos), _torch().from_numpy(row.sin)


def _transformers_cos_sin(delta: int, head_dim: int, base: float):
    """torch's float32 cos and sin of delta * inv_freq, as transformers' rotary module forms them."""
    angles = _torch().from_numpy(_transformers_angles(delta, head_dim, base))  # (head_dim/2,) float32
    return angles.cos(), angles.sin()


# How one shift's cos and sin are formed, by the same rules as KSHIFT_ANGLES.
_KSHIFT_COS_SIN = {"llama.cpp": _ggml_cos_sin, "transformers": _transformers_cos_sin}


def _cos_sin(delta, head_dim, base, rule):
    kshift_angles(delta, head_dim, base, rule)  # checks every argument
    return _KSHIFT_COS_SIN[rule](delta, head_dim, base)


def kshift(keys: ArrayOrTensor, delta: int, base: float = 10000.0, *, dtype: str = "float16",
           rule: str = "llama.cpp", times: int = 1) -> np.ndarray:
    """Rotate cached keys back (or forward) by ``delta`` positions, as llama.cpp's K-shift does, ``times`` times.

    The keys are first stored in ``dtype`` (a key already in it is unchanged); each shift reads every pair into
    float32, rotates it by the angles of ``rule`` and rounds the result back to ``dtype``, as ggml's rope
    kernel does on an f16 or f32 cache. Pairs are (i, i + head_dim/2), transformers' rotate_half layout; llama.cpp
    runs Llama GGUFs with adjacent pairs on Q/K rows permuted at conversion, the same rotation up to a fixed
    permutation of the dimensions.

    Args:
        keys: (..., head_dim) keys, already rotated to their positions.
        delta: position change of one shift (llama.cpp: -n_discard).
        base: rope_theta.
        dtype: the cache's type, "float32", "float16" or "bfloat16".
        rule: how the angles are formed (``KSHIFT_ANGLES``).
        times: how many shifts in a row (each rounds once).

    Returns:
        float32 array of the same shape holding the dtype's values exactly.
    """
    torch = _torch()
    k = keys if isinstance(keys, torch.Tensor) else torch.as_tensor(np.asarray(keys))
    if k.ndim < 1 or not k.is_floating_point():
        raise ValueError("keys must be a float array of shape (..., head_dim).")
    head_dim = as_even_dim("head_dim (the keys' last axis)", int(k.shape[-1]))
    if k.numel() > MAX_ELEMENTS:
        raise ValueError(f"keys has {k.numel():,} values, above the cap of {MAX_ELEMENTS:,}.")
    times = as_int("times", times, minimum=0, maximum=MAX_SHIFTS)
    store = _dtype(dtype)
    cos, sin = _cos_sin(delta, head_dim, base, rule)
    k = k.to(store)
    for _ in range(times):
        k = _rotate(k, cos, sin, store)
    return k.to(torch.float32).numpy()


def _check_head(head_dim, base):
    return as_even_dim("head_dim", head_dim, minimum=2), as_base(base)


def _rotate_f64(x: np.ndarray, angles: np.ndarray) -> np.ndarray:
    h = x.shape[-1] // 2
    c, s = np.cos(angles), np.sin(angles)
    return np.concatenate((x[..., :h] * c - x[..., h:] * s, x[..., h:] * c + x[..., :h] * s), axis=-1)


def _transformers_rows(raw: np.ndarray, positions: np.ndarray, head_dim: int, base: float) -> np.ndarray:
    """Keys turned to ``positions`` by transformers' rotary in float32 (``apply_rope``, its bits)."""
    torch = _torch()
    inv_freq, _ = rope_inv_freq(head_dim, base)
    return np.asarray(apply_rope(torch.from_numpy(raw.astype(np.float32)), torch.from_numpy(positions), inv_freq))


def _ggml_rows(raw: np.ndarray, positions: np.ndarray, head_dim: int, base: float) -> np.ndarray:
    """Keys turned to ``positions`` by ggml's CPU kernel in float32 (``ggml_rope.ggml_rope_rows``)."""
    return ggml_rope_rows(raw, positions, base)


# How a key is turned to its position when it is first computed, by the same rules as KSHIFT_ANGLES.
_KEYS_AT = {"llama.cpp": _ggml_rows, "transformers": _transformers_rows}
MAX_GGML_VALUES = 1 << 22  # values one request turns with ggml's angles (a C cosf and sinf per pair: seconds)


def _check_work(values: int, rule: str) -> None:
    """ggml's rotation calls the C library once per angle: bound what one request asks of it."""
    if rule == "llama.cpp" and values > MAX_GGML_VALUES:
        raise ValueError(f"With llama.cpp's angles this asks for {values:,} key values turned at their positions; "
                         f"the most here is {MAX_GGML_VALUES:,}: ask for fewer keys, a smaller head or fewer "
                         "tokens.")


def _fresh(raw: np.ndarray, positions: np.ndarray, head_dim: int, base: float, dtype: str, rule: str):
    """A key computed at ``positions`` by ``rule``'s rotary in float32, stored in dtype (torch tensor)."""
    rotated = _KEYS_AT[rule](raw, np.asarray(positions, dtype=np.int64), head_dim, base)
    return _torch().from_numpy(np.ascontiguousarray(rotated, dtype=np.float32)).to(_dtype(dtype))


def _log_steps(count: int, points: int = 40) -> np.ndarray:
    return np.unique(np.round(np.geomspace(1, count, points)).astype(int))  # (<= points,)


def _relative(err: np.ndarray, ref: np.ndarray) -> float:
    return float(np.sqrt(np.mean(err**2)) / np.sqrt(np.mean(ref**2)))


@dataclass(frozen=True)
class KShiftCurve:
    """How far K-shifted keys drift from the exact keys, shift after shift (``kshift_error_curve``).

    Fields:
        shifts: (k,) int the shift counts measured (about 40, log-spaced).
        key_error: (k,) relative RMS error of the K-shifted keys against the exact float64 keys.
        fresh_key_error: (k,) the same for keys computed fresh at their new positions and stored in the dtype.
        score_error: (k,) relative RMS error of the scores q·k against the K-shifted keys.
        fresh_score_error: (k,) the same against the freshly computed keys.
        first_position: the first key's position before the first shift.
        last_position: the last key's position before the first shift.
    """

    shifts: np.ndarray
    key_error: np.ndarray
    fresh_key_error: np.ndarray
    score_error: np.ndarray
    fresh_score_error: np.ndarray
    first_position: int
    last_position: int


def _check_curve(head_dim, base, n_discard, shifts, n_keys, rule) -> tuple[int, float, int, int, int, str]:
    """kshift_error_curve's arguments, checked and bounded before anything is drawn."""
    head_dim, base = _check_head(head_dim, base)
    n_discard = as_int("n_discard", n_discard, minimum=1, maximum=MAX_POSITIONS)
    shifts = as_int("shifts", shifts, minimum=1, maximum=MAX_SHIFTS)
    n_keys = as_int("n_keys", n_keys, minimum=1, maximum=MAX_KEYS)
    if head_dim > MAX_DIM // 8:
        raise ValueError(f"head_dim must be at most {MAX_DIM // 8:,} here, but got {head_dim:,}.")
    check_size(n_keys * head_dim * 4, "The cache of keys")
    if n_keys + shifts * n_discard > MAX_POSITIONS:
        raise ValueError(f"The keys would start at position {n_keys + shifts * n_discard:,}, above the cap of "
                         f"{MAX_POSITIONS:,}: ask for fewer shifts or a smaller n_discard.")
    return head_dim, base, n_discard, shifts, n_keys, as_choice("rule", rule, tuple(KSHIFT_ANGLES))


def _curve_point(raw, q_raw, shifted, fresh, positions, base: float) -> tuple[float, float, float, float]:
    """(key, fresh key, score, fresh score) relative errors of keys at ``positions`` against the exact ones."""
    head_dim = raw.shape[-1]
    exact = _rotate_f64(raw, np.multiply.outer(positions.astype(np.float64), base_inv_freq(base, head_dim)))
    # the query sits one past the newest key, wherever the keys are now
    q_now = _rotate_f64(q_raw, np.float64(positions[-1] + 1) * base_inv_freq(base, head_dim))
    exact_scores = exact @ q_now / math.sqrt(head_dim)  # (n_keys,)
    return (_relative(shifted - exact, exact), _relative(fresh - exact, exact),
            _relative((shifted - exact) @ q_now / math.sqrt(head_dim), exact_scores),
            _relative((fresh - exact) @ q_now / math.sqrt(head_dim), exact_scores))


def kshift_error_curve(head_dim: int, base: float, n_discard: int, shifts: int, dtype: str = "float16", *,
                       n_keys: int = 256, rule: str = "llama.cpp", seed: int = 0) -> KShiftCurve:
    """How far K-shifted keys drift from the exact keys at their new positions, shift after shift.

    ``n_keys`` Gaussian keys (seeded) are rotated by ``rule``'s rotary in float32 to positions that end at
    1..n_keys after ``shifts`` shifts of ``n_discard``, stored in ``dtype``, and shifted back ``shifts`` times by
    ``kshift``'s rule. After each of about 40 log-spaced shift counts, the keys and the scores q·k of a fresh
    query (exact, at the position after the last key) are compared with the exact float64 ones; a key computed
    fresh at the new position by the same rotary and stored in ``dtype`` is the baseline.

    Args:
        head_dim: rotated dimensions of one head (even).
        base: rope_theta.
        n_discard: positions each shift moves the keys back (>= 1).
        shifts: number of shifts, 1 to 1,000.
        dtype: the cache's type.
        n_keys: keys in the cache (1 to 4,096).
        rule: how the angles are formed (``KSHIFT_ANGLES``).
        seed: the draw of keys and query.
    """
    head_dim, base, n_discard, shifts, n_keys, rule = _check_curve(head_dim, base, n_discard, shifts, n_keys, rule)
    steps = _log_steps(shifts)
    _check_work(n_keys * head_dim * (steps.shape[0] + 1), rule)
    store = _dtype(dtype)
    rng = np.random.default_rng(as_int("seed", seed, minimum=0, maximum=2**32 - 1))
    raw = rng.standard_normal((n_keys, head_dim))  # (n_keys, head_dim) keys before rotation
    q_raw = rng.standard_normal(head_dim)  # (head_dim,)
    final = np.arange(1, n_keys + 1)  # (n_keys,) positions after the last shift
    k = _fresh(raw, final + shifts * n_discard, head_dim, base, dtype, rule)  # (n_keys, head_dim) in dtype
    cos, sin = _cos_sin(-n_discard, head_dim, base, rule)
    errors = np.empty((steps.shape[0], 4))  # (k, 4): key, fresh key, score, fresh score
    done = 0
    for j, step in enumerate(steps):
        for _ in range(step - done):
            k = _rotate(k, cos, sin, store)
        done = step
        positions = final + (shifts - step) * n_discard  # (n_keys,)
        fresh = _fresh(raw, positions, head_dim, base, dtype, rule).to(_torch().float64).numpy()
        errors[j] = _curve_point(raw, q_raw, k.to(_torch().float64).numpy(), fresh, positions, base)
    return KShiftCurve(steps, errors[:, 0].copy(), errors[:, 1].copy(), errors[:, 2].copy(), errors[:, 3].copy(),
                       int(final[0] + shifts * n_discard), int(final[-1] + shifts * n_discard))


@dataclass(frozen=True)
class KShiftScores:
    """The scores q·k/sqrt(d) one new query gets from the cache after a context shift (``kshift_scores``), over
    the m keys that survive it.

    Fields:
        position: (m,) int the keys' positions before the shift.
        new_position: (m,) int their positions after it.
        status: (m,) str, each ``"kept"`` or ``"shifted"``.
        no_shift: (m,) exact scores with no shift (the query at n_tokens).
        exact: (m,) exact scores after the shift (the query at ``plan.next_position``).
        shifted: (m,) scores against the K-shifted keys.
        fresh: (m,) scores against keys computed fresh at their new positions.
        rounding: (m,) shifted - exact.
        moved: (m,) exact - no_shift.
        plan: the shift (``ContextShiftPlan``).
    """

    position: np.ndarray
    new_position: np.ndarray
    status: np.ndarray
    no_shift: np.ndarray
    exact: np.ndarray
    shifted: np.ndarray
    fresh: np.ndarray
    rounding: np.ndarray
    moved: np.ndarray
    plan: ContextShiftPlan


def kshift_scores(n_tokens: int, n_keep: int, n_discard: int, head_dim: int, base: float, dtype: str = "float16", *,
                  rule: str = "llama.cpp", seed: int = 0) -> KShiftScores:
    """The scores q·k/sqrt(d) one new query gets from the cache after a context shift, and without one.

    Gaussian keys (seeded) are rotated to positions 0..n_tokens-1 by ``rule``'s rotary in float32 and stored in
    ``dtype``; the shift of ``context_shift_plan`` drops n_discard of them and K-shifts the rest. The query is the
    next token: at ``next_position`` after the shift, at n_tokens without it (a context with room to spare).

    Args:
        n_tokens, n_keep, n_discard: as ``context_shift_plan``.
        head_dim: rotated dimensions of one head (even).
        base: rope_theta.
        dtype: the cache's type.
        rule: how the angles are formed (``KSHIFT_ANGLES``).
        seed: the draw of keys and query.
    """
    head_dim, base = _check_head(head_dim, base)
    check_size(as_int("n_tokens", n_tokens, minimum=2) * head_dim * 4, "The cache of keys")
    plan = context_shift_plan(n_tokens, n_keep, n_discard)
    _check_work(2 * plan.n_tokens * head_dim, as_choice("rule", rule, tuple(KSHIFT_ANGLES)))
    torch = _torch()
    rng = np.random.default_rng(as_int("seed", seed, minimum=0, maximum=2**32 - 1))
    raw = rng.standard_normal((plan.n_tokens, head_dim))  # (n_tokens, head_dim)
    q_raw = rng.standard_normal(head_dim)  # (head_dim,)
    inv = base_inv_freq(base, head_dim)
    alive = plan.status != "dropped"
    old = plan.old[alive]  # (m,)
    new = plan.new[alive].astype(np.int64)  # (m,)
    stored = _fresh(raw[alive], old, head_dim, base, dtype, rule)  # (m, head_dim) in dtype, before the shift
    moved = old != new
    cos, sin = _cos_sin(-plan.n_discard, head_dim, base, rule)
    after = stored.clone()
    after[torch.from_numpy(moved)] = _rotate(stored[torch.from_numpy(moved)], cos, sin, stored.dtype)
    q_after = _rotate_f64(q_raw, np.float64(plan.next_position) * inv)
    q_before = _rotate_f64(q_raw, np.float64(plan.n_tokens) * inv)
    scale = 1.0 / math.sqrt(head_dim)
    exact_after = _rotate_f64(raw[alive], np.multiply.outer(new.astype(np.float64), inv))
    exact_before = _rotate_f64(raw[alive], np.multiply.outer(old.astype(np.float64), inv))
    no_shift = exact_before @ q_before * scale
    exact = exact_after @ q_after * scale
    shifted = after.to(torch.float64).numpy() @ q_after * scale
    fresh = _fresh(raw[alive], new, head_dim, base, dtype, rule).to(torch.float64).numpy() @ q_after * scale
    return KShiftScores(old, new, plan.status[alive], no_shift, exact, shifted, fresh, shifted - exact,
                        exact - no_shift, plan)

