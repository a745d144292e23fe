"""The question, snippet lines and tables of the latent-attention lesson (numbers from the core)."""

from __future__ import annotations

import contextlib

import streamlit as st

import posenc_core as pc
from page_kit import classroom
from page_kit.lesson import notice


def scores_code(preset: str, heads: int, tokens: int, start: int, interleave: bool, name: str = "out") -> str:
    """The snippet line that computes the latent-attention scores the figures show."""
    return f"{name} = {classroom.call('mla_demo_scores', preset, heads, tokens, start, 0, interleave)}"


def ask_shift(preset: str, heads: int, tokens: int, start: int) -> contextlib.AbstractContextManager:
    """Predict: move every token by the same number of positions; what happens to the position term?"""
    shift = pc.mla_shift_change(preset, heads, tokens, start)
    moved_start, change, size = shift["moved_start"], shift["change"], shift["size"]
    answer = 0 if change <= 0.1 * size else 1  # float32 angles far out round by a few hundredths of a radian

    def reveal() -> str:
        return (f"Starting at {moved_start:,} instead of {start:,}, the position term changes by at most "
                f"{change:.2g} (its entries reach {size:.3g}): float32 rounding. The same tokens keep the same "
                "offsets i − j, and that is all the rotated slice sees.")

    return classroom.predict("mla_shift", f"Move all {tokens} tokens so they start at position {moved_start:,} instead "
                             f"of {start:,}. What happens to the middle panel, the position term?",
                             ["nothing, up to rounding", "it changes everywhere", "it fades towards 0"], answer, reveal)


def scale_table() -> None:
    """Every preset's softmax scale and the pieces it is made of."""
    configs = pc.MLA_PRESETS.values()
    rows = {name: pc.mla_softmax_scale(c) for name, c in pc.MLA_PRESETS.items()}
    st.dataframe({"model": list(rows), "qk_head_dim": [c.qk_head_dim for c in configs],
                  "rope_type": [c.rope_parameters.get("rope_type") for c in configs],
                  "factor": [c.rope_parameters.get("factor", 1.0) for c in configs],
                  "1/√qk_head_dim": [r["base"] for r in rows.values()],
                  "mscale": [r["mscale"] for r in rows.values()],
                  "scale = base × mscale²": [r["scale"] for r in rows.values()],
                  "cos/sin factor": [r["attention_factor"] for r in rows.values()]},
                 hide_index=True, width="stretch")


def cache_table_and_notice(cache: dict, context: int, dtype: str) -> None:
    """The cache sizes as a table, and what to notice (every number from ``kv_cache_per_token``)."""
    st.dataframe({"attention": list(cache["bytes_per_token"]),
                  "values per token and layer": list(cache["values_per_layer"].values()),
                  "bytes per token": list(cache["bytes_per_token"].values()),
                  f"GiB at {context:,} tokens": list(cache["gib_at_context"].values())},
                 hide_index=True, width="stretch")
    notice(f"MLA caches {cache['values_per_layer']['MLA']} values per token and layer, {cache['mha_over_mla']:.0f}× "
           f"less than full multi-head keys and values. The decoupled rotated key is "
           f"{cache['rope_share_of_mla']:.1%} of that: the price of keeping positions out of the latent. "
           "Put the rotation on the latent instead and every head's key would have to be cached (or "
           "recomputed for every past token at each step), the last bar. For scale: GLM-4.5, which "
           f"uses grouped-query attention (8 KV heads of 128, 46 layers), caches "
           f"{cache['reference_bytes_per_token'] / 1024:,.0f} KiB per token in {dtype}. A common "
           "misconception is that GLM-4.5 uses latent attention; its transformers config "
           "(`Glm4MoeConfig`) has 8 key-value heads and rotates half of each head. GLM-5 uses MLA.")
