"""RoPE's rotation: each query/key pair turned by m * theta_i, one pair at a time and every pair at once.

``half`` layout pairs dimension i with i + r/2 (``rotate_half`` in transformers and GPT-NeoX);
``interleaved`` pairs (2i, 2i+1) (Meta's reference Llama code, GPT-J, RoFormer). Both are the
same rotation up to a fixed permutation of the dimensions (``layouts``). The lesson *RoPE: one rotation*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._backend import check_backend, keeps_kind, require_torch, to_numpy
from .._checks import MAX_ELEMENTS, MAX_POSITIONS, as_base, as_choice, as_even_dim, as_float, as_int, check_size
from .._types import ArrayOrTensor
from .frequencies import base_inv_freq, rope_inv_freq

__all__ = [
    "ROPE_LAYOUTS",
    "PairRotation",
    "PairShiftScores",
    "PairTurns",
    "apply_rope",
    "rope_angle_table",
    "rope_angles",
    "rope_pair",
    "rope_pair_shift_scores",
    "rope_pair_theta",
    "rope_turns",
]


ROPE_LAYOUTS = ("half", "interleaved")


def _gaussian(seed, *shape) -> np.ndarray:
    # The seeded query, key and weight draws of the relative and layout lessons.
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    return np.random.default_rng(seed).standard_normal(shape)


@keeps_kind
def rope_angles(positions: ArrayOrTensor, inv_freq: ArrayOrTensor) -> ArrayOrTensor:
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


def apply_rope(x: ArrayOrTensor, positions: ArrayOrTensor, inv_freq: ArrayOrTensor, layout: str = "half", *,
               seq_axis: int | None = None, attention_factor: float = 1.0, backend: str | None = None,
               device: str | None = None) -> ArrayOrTensor:
    """Rotate the last dimension of ``x`` by RoPE, as transformers' rotary embedding does.

    The angles are formed in float32 from float32 copies of ``positions`` and ``inv_freq`` (a bfloat16 or
    float16 inv_freq, as in a model cast to half precision, is upcast first, as ``inv_freq.float()`` does),
    cos and sin are cast to x's dtype, and the rotation runs in x's dtype. For torch tensors in the half
    layout this is bit-identical to ``apply_rotary_pos_emb`` with the module's cos and sin, for every
    floating dtype.

    Args:
        x: array or tensor of shape (..., seq, head_dim): the positions run along the second-to-last axis, as in
            transformers' (batch, heads, seq, head_dim) after its transpose, unless ``seq_axis`` names another.
        positions: (seq,) positions of the rows of x, or transformers' (batch, seq) ``position_ids`` for an x of
            shape (batch, ..., seq, head_dim) (a batch of 1 applies to every sequence).
        seq_axis: the axis of x that holds the positions (any axis but the last, which is head_dim), e.g. 1 for
            (batch, seq, heads, head_dim); None means the second-to-last. With None, an x of four or more axes
            whose two axes before head_dim have the same length is refused: (batch, seq, heads, head_dim) with
            seq = heads would otherwise be rotated by head, so such a call names its axis.
        inv_freq: (r/2,) inverse frequencies; dimensions beyond r = 2 * len(inv_freq) pass through.
        layout: "half" (rotate_half) or "interleaved" (pairs 2i, 2i+1).
        attention_factor: multiplies cos and sin (YaRN / LongRoPE), as transformers does.
        backend: None (the default) keeps x's kind; "torch" computes in torch and returns a tensor (a numpy
            x is converted, onto ``device``); "numpy" returns a numpy array (a torch x is brought to the CPU;
            a bfloat16 one as float32, since numpy has no bfloat16).

    Returns:
        The rotated x, same shape and dtype as the input, of the kind the backend names (by default the
        input's own: torch tensors stay on their device).

    >>> import numpy as np
    >>> pc.apply_rope(np.array([[1.0, 0.0]]), np.array([1]), np.array([1.0])).round(4)
    array([[0.5403, 0.8415]])
    """
    layout = as_choice("layout", layout, ROPE_LAYOUTS)
    backend = backend or ("torch" if _is_torch(x) else "numpy")
    check_backend(backend, device)
    axis = _position_axis(tuple(x.shape), seq_axis)
    if axis != len(x.shape) - 2:  # rotate with the positions second to last, then put them back where they were
        moved = x.movedim(axis, -2) if _is_torch(x) else np.moveaxis(x, axis, -2)  # type: ignore[union-attr]
        out = apply_rope(moved, positions, inv_freq, layout, seq_axis=-2, attention_factor=attention_factor,
                         backend=backend, device=device)
        return out.movedim(-2, axis) if _is_torch(out) else np.moveaxis(out, -2, axis)  # type: ignore[union-attr]
    half = int(np.asarray(to_numpy(inv_freq)).reshape(-1).shape[0])
    r = 2 * half
    head_dim = int(x.shape[-1])
    if r > head_dim:
        raise ValueError(f"inv_freq has {half} frequencies, which rotate {r} dimensions, "
                         f"but x has only head_dim = {head_dim}.")
    if int(np.prod(x.shape)) > MAX_ELEMENTS:
        raise ValueError(f"x has {int(np.prod(x.shape)):,} values, above the cap of {MAX_ELEMENTS:,}.")
    rows = _rows_shape(tuple(np.shape(positions) if not _is_torch(positions) else positions.shape), tuple(x.shape))
    check_size(math.prod(rows) * half, "The angle table")
    if backend == "torch":
        return _apply_rope_torch(x, positions, inv_freq, layout, attention_factor, device, rows)
    return _apply_rope_numpy(to_numpy(x), positions, inv_freq, layout, attention_factor, rows)


def _apply_rope_numpy(x, positions, inv_freq, layout, attention_factor, rows) -> np.ndarray:
    pos = np.asarray(to_numpy(positions), dtype=np.float32).reshape(rows)
    angles = pos[..., None] * np.asarray(to_numpy(inv_freq), dtype=np.float32).reshape(-1)  # (*rows, r/2)
    cos = (np.cos(angles) * attention_factor).astype(x.dtype)
    sin = (np.sin(angles) * attention_factor).astype(x.dtype)
    x1, x2, rest = _split(x, 2 * angles.shape[-1], layout)
    out = np.empty_like(x)
    o1, o2, orest = _split(out, 2 * angles.shape[-1], layout)
    o1[...] = x1 * cos - x2 * sin
    o2[...] = x2 * cos + x1 * sin
    orest[...] = rest
    return out


def _position_axis(x_shape: tuple[int, ...], seq_axis: int | None) -> int:
    """The non-negative index of x's position axis: ``seq_axis``, or the second-to-last where it is unambiguous."""
    ndim = len(x_shape)
    if ndim < 2:
        raise ValueError(f"x must have at least two axes (seq, head_dim), but has shape {x_shape}.")
    if seq_axis is None:
        if ndim >= 4 and x_shape[-3] == x_shape[-2]:
            raise ValueError(f"x of shape {x_shape} has two axes of length {x_shape[-2]} before head_dim, so "
                             "(batch, heads, seq, head_dim) and (batch, seq, heads, head_dim) read alike: pass "
                             "seq_axis, the axis that holds the positions (-2 for the first, 1 for the second).")
        return ndim - 2
    axis = as_int("seq_axis", seq_axis, minimum=-ndim, maximum=ndim - 1) % ndim
    if axis == ndim - 1:
        raise ValueError(f"seq_axis = {seq_axis} names x's last axis, which holds head_dim (the rotated pairs); "
                         "the positions run along another axis.")
    return axis


def _rows_shape(positions_shape: tuple[int, ...], x_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape positions take to line up with x's rows: (seq,), or (batch, 1, ..., seq) for (batch, seq) ids,
    as transformers unsqueezes cos and sin over the heads axis."""
    seq = x_shape[-2]
    if len(positions_shape) <= 1:
        count = positions_shape[0] if positions_shape else 1
        if count != seq:
            raise ValueError(f"positions has {count} entries but x has {seq} rows (its second-to-last axis).")
        return (seq,)
    batch = positions_shape[0]
    if len(positions_shape) == 2 and len(x_shape) >= 3 and positions_shape[1] == seq and batch in (1, x_shape[0]):
        return (batch,) + (1,) * (len(x_shape) - 3) + (seq,)
    raise ValueError(f"positions of shape {positions_shape} do not fit x of shape {x_shape}: give (seq,) positions, "
                     "or (batch, seq) position_ids as transformers does, with x's batch first and its rows "
                     "second to last.")


def _apply_rope_torch(x, positions, inv_freq, layout, attention_factor, device, rows):
    torch = require_torch()
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(np.asarray(x))
    if device is not None:
        x = x.to(device)
    inv = torch.as_tensor(to_numpy(inv_freq) if not isinstance(inv_freq, torch.Tensor) else inv_freq,
                          dtype=torch.float32, device=x.device).reshape(-1)
    pos = torch.as_tensor(to_numpy(positions) if not isinstance(positions, torch.Tensor) else positions,
                          device=x.device).to(torch.float32).reshape(rows)
    angles = pos[..., None] * inv  # (*rows, r/2), float32 even under autocast
    cos = (angles.cos() * attention_factor).to(x.dtype)
    sin = (angles.sin() * attention_factor).to(x.dtype)
    r = 2 * inv.shape[0]
    x1, x2, rest = _split(x, r, layout)
    y1 = x1 * cos - x2 * sin
    y2 = x2 * cos + x1 * sin
    if layout == "half":
        return torch.cat((y1, y2, rest), dim=-1)
    return torch.cat((torch.stack((y1, y2), dim=-1).flatten(-2), rest), dim=-1)



def rope_pair_theta(pair: int, head_dim: int, base: float = 10000.0) -> float:
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


@dataclass(frozen=True)
class PairRotation:
    """One query pair and one key pair turned by RoPE (``rope_pair``); every number float64, angles in radians.

    q_rot, k_rot: the turned pairs (x, y). q_angle, k_angle: m theta and n theta. relative_angle: (m - n) theta.
    score: q_rot . k_rot. plain_score: q . k, unturned. q_conj_k, q_conj_k_imag: the real and imaginary parts of
    q conj(k), the content alone. product: q_rot conj(k_rot) as (real, imaginary), whose real part is the score.
    q_arc, k_arc, relative_arc: (start, end) angles of an arc for a drawing, from each vector's direction (q, k,
    q conj(k)) turning by its angle (m theta, n theta, (m - n) theta) taken mod one full turn.
    """

    q_rot: tuple[float, float]
    k_rot: tuple[float, float]
    q_angle: float
    k_angle: float
    relative_angle: float
    score: float
    plain_score: float
    q_conj_k: float
    q_conj_k_imag: float
    product: tuple[float, float]
    q_arc: tuple[float, float]
    k_arc: tuple[float, float]
    relative_arc: tuple[float, float]


def rope_pair(q: ArrayOrTensor, k: ArrayOrTensor, m: float, n: float, theta: float) -> PairRotation:
    """Rotate one query pair by m*theta and one key pair by n*theta, the complex-number way.

    A pair (x, y) is the complex number x + iy; rotating by an angle a multiplies it by e^{ia}.
    The dot product of two pairs is Re(a * conj(b)), so the score is
    Re(q conj(k) e^{i(m-n) theta}): only m - n appears.

    Args:
        q, k: (x, y) pairs.
        m, n: positions of the query and the key.
        theta: rotation speed of the pair, radians per position.

    Returns:
        A ``PairRotation``: the rotated pairs ``q_rot``, ``k_rot`` as (x, y), the angles, the rotated ``score``,
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
    return PairRotation(
        q_rot=(q_rot.real, q_rot.imag), k_rot=(k_rot.real, k_rot.imag),
        q_angle=m * theta, k_angle=n * theta, relative_angle=(m - n) * theta,
        score=q_rot.real * k_rot.real + q_rot.imag * k_rot.imag,
        plain_score=qc.real * kc.real + qc.imag * kc.imag,
        q_conj_k=(qc * kc.conjugate()).real + 0.0, q_conj_k_imag=(qc * kc.conjugate()).imag + 0.0,
        product=(product.real, product.imag),
        # arcs for a drawing: from each vector's direction, turning by its angle (mod one full turn)
        q_arc=(math.atan2(qc.imag, qc.real), math.atan2(qc.imag, qc.real) + math.fmod(m * theta, 2 * math.pi)),
        k_arc=(math.atan2(kc.imag, kc.real), math.atan2(kc.imag, kc.real) + math.fmod(n * theta, 2 * math.pi)),
        relative_arc=(math.atan2((qc * kc.conjugate()).imag, (qc * kc.conjugate()).real),
                      math.atan2((qc * kc.conjugate()).imag, (qc * kc.conjugate()).real)
                      + math.fmod((m - n) * theta, 2 * math.pi)),
    )


@dataclass(frozen=True)
class PairShiftScores:
    """One pair's score as positions move (``rope_pair_shift_scores``), each array (max_shift + 1,) float64.

    shift: s = 0 .. max_shift, positions. together: the score at (m + s, n + s), constant up to rounding.
    key_only: the score at (m, n + s), which turns with s.
    """

    shift: np.ndarray
    together: np.ndarray
    key_only: np.ndarray


def rope_pair_shift_scores(q: ArrayOrTensor, k: ArrayOrTensor, m: float, n: float, theta: float,
                           max_shift: int | None = None) -> PairShiftScores:
    """Scores of one pair as both positions move together (m+s, n+s) and as only the key moves (m, n+s).

    By default the shifts cover about four wavelengths 2 pi / theta (between 24 and 4096 positions).

    Returns:
        A ``PairShiftScores``: ``shift`` (s = 0..max_shift), ``together`` and ``key_only``, each (max_shift + 1,).
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

    return PairShiftScores(shift=s, together=score(m + s, n + s), key_only=score(m + 0 * s, n + s))


def rope_angle_table(n: int, head_dim: int, base: float = 10000.0, part: str = "angle") -> np.ndarray:
    """The table every RoPE layer uses: m * theta_i (mod 2 pi), or its cos / sin.

    Args:
        n: positions 0..n-1.
        head_dim: rotated dimensions (d/2 pairs).
        part: "angle" (m theta_i mod 2 pi, in [0, 2 pi)), "cos" or "sin".

    Returns:
        Array of shape (n, head_dim/2), float32, computed as transformers does (float32 angles).

    >>> pc.rope_angle_table(3, 4).tolist()
    [[0.0, 0.0], [1.0, 0.009999999776482582], [2.0, 0.019999999552965164]]
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
    # Wrapped in float64, so the wrap adds no rounding of its own. Angles are >= 0, where fmod equals mod and is
    # exact; torch's fmod takes a fifth of np.mod's time on a (1024, 512) table (np.mod fixes signs, as here
    # there are none to fix).
    torch = require_torch()
    wrapped = torch.fmod(torch.from_numpy(angles).double(), 2 * np.pi)  # (n, d/2) float64
    return wrapped.float().numpy()


@dataclass(frozen=True)
class PairTurns:
    """How far each pair of a head turns within a context (``rope_turns``); arrays (d/2,).

    pair: the pair index i, int. theta: theta_i, radians per position, float64. wavelength: 2 pi / theta_i,
    positions, float64. turns: context * theta_i / 2 pi, full turns made inside the context, float64.
    full_turn_pairs: how many pairs complete at least one turn, int.
    """

    pair: np.ndarray
    theta: np.ndarray
    wavelength: np.ndarray
    turns: np.ndarray
    full_turn_pairs: int


def rope_turns(head_dim: int, base: float = 10000.0, context: int = 4096) -> PairTurns:
    """How far each pair turns within a context of ``context`` positions, as a ``PairTurns``."""
    d = as_even_dim("head_dim", head_dim)
    context = as_int("context length", context, minimum=1, maximum=MAX_POSITIONS * 64)
    theta = base_inv_freq(as_base(base), d)  # (d/2,)
    turns = context * theta / (2 * np.pi)
    return PairTurns(pair=np.arange(d // 2), theta=theta, wavelength=2 * np.pi / theta, turns=turns,
                     full_turn_pairs=int(np.count_nonzero(turns >= 1.0)))
