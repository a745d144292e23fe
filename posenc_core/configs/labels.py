"""A layer's reading in one line (the strip's bottom row, the hover, the groups of equal layers)."""

from __future__ import annotations

from .layer_row import LayerRow
from .rope_config import layer_contexts

__all__ = [
    "layer_groups",
    "layer_label",
]


def _extension(row: LayerRow) -> str:
    """', llama3 × 8 (8,192 → 65,536 tokens)': the type, its factor, and the context it stretches from and to."""
    factor = row.scaling_factor
    text = f", {row.rope_type}" + (f" × {factor:g}" if factor else "")
    try:
        original, target, _ = layer_contexts(row)
    except ValueError:  # a target the config leaves open (dynamic without a factor): the type alone
        return text
    return text + (f" ({original:,} → {target:,} tokens)" if target else f" (from {original:,} tokens)")


def layer_label(row: LayerRow) -> str:
    """A short description of what a layer does with positions, e.g. 'RoPE θ 10,000, 64 of 64 pairs'.

    It names latent attention (the rotated qk_rope_head_dim slice of each query/key head), M-RoPE's sections and
    their layout, and a context extension with the context it was pretrained on and the one it yields.
    """
    if not row.is_attention:
        return f"not attention: order from the {row.mixer} itself"
    if not row.rotates:
        rule = " + query scale" if row.query_scale else ""
        return f"NoPE{rule}"
    total = (row.head_dim or 0) // 2
    text = f"RoPE θ {row.theta:,.0f}, {row.rotated_pairs} of {total} pairs"
    if row.latent and row.qk_nope_head_dim:
        rope_dims = 2 * row.rotated_pairs
        text += f", latent attention ({rope_dims} of {rope_dims + row.qk_nope_head_dim} query/key dims rotate)"
    if row.mrope_section:
        text += f", M-RoPE sections {list(row.mrope_section)} ({row.mrope_layout})"
    if row.rope_type not in (None, "default", "proportional"):
        text += _extension(row)
    if row.query_scale:
        text += " + query scale"
    return text


def layer_groups(rows: list[LayerRow]) -> list[dict]:
    """Layers with the same position setting, in order of first appearance.

    Returns:
        A list of ``{"label", "mixer", "layers" (indices), "row" (the first LayerRow)}``.
    """
    groups: dict[tuple, dict] = {}
    for row in rows:
        key = (row.signature(), row.mixer_name)
        if key not in groups:
            groups[key] = {"label": layer_label(row), "mixer": row.mixer, "layers": [], "row": row}
        groups[key]["layers"].append(row.index)
    return list(groups.values())
