"""Rotary position embedding: rotate query/key pairs by position-dependent angles.

``half`` layout pairs dimension i with i + r/2 (``rotate_half`` in transformers and GPT-NeoX);
``interleaved`` pairs (2i, 2i+1) (Meta's reference Llama code, GPT-J, RoFormer). Both are the
same rotation up to a fixed permutation of the dimensions.
"""

from __future__ import annotations

import numpy as np

from ._backend import check_backend, require_torch, to_backend, to_numpy
from ._checks import MAX_ELEMENTS, as_base, as_choice, as_even_dim, check_size

__all__ = [
    "ROPE_LAYOUTS",
    "apply_rope",
    "half_to_interleaved_permutation",
    "rope_angles",
    "rope_decay_bound",
]


ROPE_LAYOUTS = ("half", "interleaved")


def rope_angles(positions, inv_freq) -> np.ndarray:
    """m * theta_i for each position m and pair i, shape (len(positions), len(inv_freq)), float32."""
    positions = np.asarray(positions, dtype=np.float32).reshape(-1)
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
    """Rotate the last dimension of ``x`` by RoPE.

    Args:
        x: array or tensor of shape (..., seq, head_dim).
        positions: (seq,) positions of the rows of x.
        inv_freq: (r/2,) inverse frequencies; dimensions beyond r = 2 * len(inv_freq) pass through.
        layout: "half" (rotate_half) or "interleaved" (pairs 2i, 2i+1).
        attention_factor: multiplies cos and sin (YaRN / LongRoPE), as transformers does.
        backend: "numpy" or "torch"; by default the type of ``x`` decides.

    Returns:
        The rotated x, same shape, type and dtype as the input (torch tensors stay on their device).
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

    x = np.asarray(x)
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
    theta = as_base(base) ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # (d/2,)
    r = np.asarray(distances, dtype=np.float64).reshape(-1)  # (n,)
    check_size(r.shape[0] * theta.shape[0], "The decay bound")
    out = np.empty(r.shape[0], dtype=np.float64)
    chunk = max(1, (1 << 20) // theta.shape[0])  # keep the complex work buffer near 16 MiB
    for start in range(0, r.shape[0], chunk):
        phases = np.exp(1j * np.multiply.outer(r[start:start + chunk], theta))  # (c, d/2)
        out[start:start + chunk] = np.abs(np.cumsum(phases, axis=1)).mean(axis=1)
    return to_backend(out.astype(np.float32), backend, device)
