"""What the pages show for the layers of a model: the table, one layer's pairs (labels and groups: ``labels``)."""

from __future__ import annotations

import numpy as np

from .._checks import MAX_POSITIONS, as_int
from .layer_rope import layer_inv_freq
from .layer_row import LayerRow

__all__ = [
    "PAIR_BANDS",
    "layer_pairs",
    "layer_table",
]

PAIR_BANDS = ("turns in its window", "turns in the context", "never a full turn", "frequency 0")


def _sees(r: LayerRow) -> str:
    if r.window:
        return f"{r.window - 1:,} on each side" if r.bidirectional else f"{r.window:,} tokens"
    if r.chunk:
        return f"chunks of {r.chunk:,}"
    if r.is_attention:
        return "all tokens, both sides" if r.bidirectional else "all earlier tokens"
    return "its running state"


def layer_table(rows: list[LayerRow]) -> dict[str, list]:
    """One column per property, one entry per layer (the table under the strip, and its CSV)."""
    def fmt(value, pattern="{:,}"):
        return "" if value is None else pattern.format(value)

    return {
        "layer": [r.index for r in rows],
        "layer type": [r.layer_type for r in rows],
        "mixer": [r.mixer_name for r in rows],
        "sees": [_sees(r) for r in rows],
        "positions": ["RoPE" if r.rotates else ("NoPE" if r.is_attention else "-") for r in rows],
        "θ": [fmt(r.theta, "{:,.0f}") for r in rows],
        "pairs turning": [f"{r.rotated_pairs} of {(r.head_dim or 0) // 2}" if r.rotates else "" for r in rows],
        "head_dim": [fmt(r.head_dim) if r.is_attention else "" for r in rows],
        "rope_type": [r.rope_type or "" for r in rows],
        "factor": [fmt(r.scaling_factor, "{:g}") for r in rows],
        "query scale": [(r.query_scale or {}).get("rule", "") for r in rows],
        "sink": [r.sink for r in rows],
        "why": [r.why for r in rows],
    }


def layer_pairs(row: LayerRow, context: int, seq_len: int | None = None) -> dict:
    """Each rotary pair of one layer against that layer's window and the model's context.

    Returns:
        ``pair`` (head_dim/2,) float64, ``inv_freq`` and ``wavelength`` (positions; inf for a frequency of 0,
        as proportional RoPE gives its unrotated pairs), ``band`` (one of PAIR_BANDS per pair), ``span`` (the
        window or chunk the layer attends over, or the context), ``attention_factor``, ``band_counts``
        ({band: pairs} for every band of PAIR_BANDS), ``turning`` (pairs with a frequency above 0) and
        ``turn_in_span`` (pairs whose wavelength fits in the span).
    """
    context = as_int("context", context, minimum=2, maximum=MAX_POSITIONS * 64)
    inv_freq, attention_factor = layer_inv_freq(row, seq_len)
    inv = np.asarray(inv_freq, dtype=np.float64)  # (pairs,)
    with np.errstate(divide="ignore"):
        wavelength = np.where(inv > 0, 2 * np.pi / np.where(inv > 0, inv, 1.0), np.inf)
    span = min(row.window or row.chunk or context, context)
    band = np.where(inv == 0, PAIR_BANDS[3], np.where(wavelength <= span, PAIR_BANDS[0] if span < context else
                                                       PAIR_BANDS[1],
                                                       np.where(wavelength <= context, PAIR_BANDS[1], PAIR_BANDS[2])))
    return {"pair": np.arange(inv.shape[0], dtype=np.float64), "inv_freq": inv, "wavelength": wavelength,
            "band": band.astype(object), "span": int(span), "attention_factor": float(attention_factor),
            "band_counts": {name: int(np.sum(band == name)) for name in PAIR_BANDS},
            "turning": int(np.count_nonzero(inv > 0)), "turn_in_span": int(np.count_nonzero(wavelength <= span))}
