"""The one-axis rotary table every diffusion transformer here builds on, as diffusers computes it.

diffusers' ``get_1d_rotary_pos_embed`` forms the inverse frequencies in ``freqs_dtype`` (float64 for FLUX
and Wan, float32 for HunyuanVideo and CogVideoX), multiplies them by the positions, and returns cos and
sin in float32 with each value written twice (pair j fills dimensions 2j and 2j+1). The functions here
run the same torch operations in the same order, so their float32 results are the same bits.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from .._checks import as_even_dim, as_float, check_size
from .._types import ArrayOrTensor

__all__ = ["dit_rotary_1d", "dit_inv_freq", "dit_pair_wavelengths", "dit_turns_across"]

_DTYPES = {"float32": torch.float32, "float64": torch.float64}


def _dtype(freqs_dtype: str) -> torch.dtype:
    if freqs_dtype not in _DTYPES:
        raise ValueError(f"freqs_dtype must be 'float32' or 'float64', but got {freqs_dtype!r}.")
    return _DTYPES[freqs_dtype]


def dit_inv_freq(dim: int, theta: float, *, ntk_factor: float = 1.0, linear_factor: float = 1.0,
                 freqs_dtype: str = "float64") -> torch.Tensor:
    """(dim/2,) angle per unit of position of each pair: 1 / (θ·ntk)^(2j/dim) / linear."""
    dim = as_even_dim("the axis width (dim)", dim)
    theta = as_float("θ (theta)", theta, above=1.0)
    ntk_factor = as_float("ntk_factor", ntk_factor, above=0.0)
    linear_factor = as_float("linear_factor", linear_factor, above=0.0)
    dtype = _dtype(freqs_dtype)
    theta = theta * ntk_factor  # NTK-aware: a larger base slows every pair but the first
    return 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=dtype) / dim)) / linear_factor


def dit_rotary_1d(dim: int, positions: ArrayOrTensor, theta: float, *, ntk_factor: float = 1.0,
                  linear_factor: float = 1.0,
                  freqs_dtype: str = "float64") -> tuple[torch.Tensor, torch.Tensor]:
    """(cos, sin), each (n_positions, dim) float32, every pair's value repeated twice (interleaved pairs)."""
    pos: torch.Tensor = positions if torch.is_tensor(positions) else torch.as_tensor(np.asarray(positions))
    if pos.ndim != 1:
        raise ValueError(f"positions must be one list of numbers, but got an array of shape {tuple(pos.shape)}.")
    check_size(int(pos.numel()) * int(dim), "rotary table values")
    inv = dit_inv_freq(dim, theta, ntk_factor=ntk_factor, linear_factor=linear_factor, freqs_dtype=freqs_dtype)
    angles = torch.outer(pos, inv)  # (S, dim/2): torch promotes float32 positions to float64 when inv is
    half = angles.shape[1]
    cos = angles.cos().repeat_interleave(2, dim=1, output_size=half * 2).float()
    sin = angles.sin().repeat_interleave(2, dim=1, output_size=half * 2).float()
    return cos, sin


def dit_pair_wavelengths(dim: int, theta: float, *, ntk_factor: float = 1.0, linear_factor: float = 1.0) -> np.ndarray:
    """(dim/2,) positions per full turn of each pair, 2π / angle per position (fast pair first)."""
    inv = dit_inv_freq(dim, theta, ntk_factor=ntk_factor, linear_factor=linear_factor).numpy()
    return 2 * math.pi / inv


def dit_turns_across(dim: int, theta: float, extent: float, *, ntk_factor: float = 1.0,
                     linear_factor: float = 1.0) -> np.ndarray:
    """(dim/2,) how many full turns each pair makes between the first and the last id of an axis of ``extent``."""
    extent = as_float("the extent (ids along the axis)", extent, minimum=0.0)
    return extent / dit_pair_wavelengths(dim, theta, ntk_factor=ntk_factor, linear_factor=linear_factor)
