"""What the pages show for the layers of a model: one layer's pairs against its span, and the groups of equal layers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from .._checks import MAX_POSITIONS, as_int
from .layer_rope import layer_inv_freq
from .layer_row import LayerRow, MixerCode

__all__ = [
    "PAIR_BANDS",
    "Band",
    "LayerGroup",
    "LayerPairs",
    "layer_groups",
    "layer_pairs",
]

# Where a pair completes its first turn: inside the window or chunk the layer sees (in_span), inside the context
# (in_context), never within the context (never), or not at all: frequency 0 (zero).
Band = Literal["in_span", "in_context", "never", "zero"]
PAIR_BANDS: tuple[Band, ...] = ("in_span", "in_context", "never", "zero")


@dataclass(frozen=True)
class LayerPairs:
    """Each rotary pair of one layer against that layer's span and the model's context.

    Fields:
        pair: (pairs,) float64 pair index i.
        inv_freq: (pairs,) float64 frequency of each pair, rad per position.
        wavelength: (pairs,) float64 positions per turn, inf for a frequency of 0 (proportional RoPE's
            unrotated pairs).
        band: (pairs,) object array, one ``Band`` code per pair.
        span: the window or chunk the layer attends over, or the context, tokens.
        attention_factor: the factor the rotary module scales cos and sin by.
        band_counts: pairs per band, every band of ``PAIR_BANDS``.
        turning: pairs with a frequency above 0.
        turn_in_span: pairs whose wavelength fits in the span.
    """

    pair: np.ndarray
    inv_freq: np.ndarray
    wavelength: np.ndarray
    band: np.ndarray
    span: int
    attention_factor: float
    band_counts: dict[Band, int]
    turning: int
    turn_in_span: int


def layer_pairs(row: LayerRow, context: int, seq_len: int | None = None) -> LayerPairs:
    """Each rotary pair of one layer against that layer's window and the model's context (``LayerPairs``).

    A pair is ``in_span`` when it turns inside the window or chunk the layer sees (a layer that sees the whole
    context: ``in_context``), ``in_context`` when it turns only inside the context, ``never`` when it never turns
    within the context, and ``zero`` for a frequency of 0.
    """
    context = as_int("context", context, minimum=2, maximum=MAX_POSITIONS * 64)
    inv_freq, attention_factor = layer_inv_freq(row, seq_len)
    inv = np.asarray(inv_freq, dtype=np.float64)  # (pairs,)
    with np.errstate(divide="ignore"):
        wavelength = np.where(inv > 0, 2 * np.pi / np.where(inv > 0, inv, 1.0), np.inf)
    span = min(row.window or row.chunk or context, context)
    band = np.where(inv == 0, "zero", np.where(wavelength <= span, "in_span" if span < context else "in_context",
                                               np.where(wavelength <= context, "in_context", "never")))
    return LayerPairs(pair=np.arange(inv.shape[0], dtype=np.float64), inv_freq=inv, wavelength=wavelength,
                      band=band.astype(object), span=int(span), attention_factor=float(attention_factor),
                      band_counts={name: int(np.sum(band == name)) for name in PAIR_BANDS},
                      turning=int(np.count_nonzero(inv > 0)), turn_in_span=int(np.count_nonzero(wavelength <= span)))


class LayerGroup(NamedTuple):
    """Layers with the same position setting.

    Fields:
        mixer: what they mix tokens with (a ``MixerCode``, a value of ``MIXER_KINDS``).
        layers: their indices, in order.
        row: the first of them (``LayerRow``).
    """

    mixer: MixerCode
    layers: list[int]
    row: LayerRow


def layer_groups(rows: list[LayerRow]) -> list[LayerGroup]:
    """Layers with the same position setting (``LayerRow.signature``) and mixer, in order of first appearance."""
    groups: dict[tuple, LayerGroup] = {}
    for row in rows:
        key = (row.signature(), row.mixer_family)
        if key not in groups:
            groups[key] = LayerGroup(row.mixer, [], row)
        groups[key].layers.append(row.index)
    return list(groups.values())
