"""The core call, figures, question, snippet lines and tables of the latent-attention lesson (numbers from the core).

Each figure is built from its controls' values (page_kit.hero draws it ahead of the hand)."""

from __future__ import annotations

import contextlib

import numpy as np
import streamlit as st

from lessons.todays_models.words import KV_LAYOUT_NAMES
from page_kit import classroom, figures
from page_kit.lesson import notice
from posenc_core.todays_models import (
    MLA_PRESETS,
    KvCachePerToken,
    MlaShiftChange,
    kv_cache_per_token,
    mla_demo_scores,
    mla_layout_gap,
    mla_shift_change,
    mla_softmax_scale,
)


@st.cache_data(max_entries=16, show_spinner=False)
def scores(preset: str, heads: int, tokens: int, start: int, seed: int, interleave: bool):
    return mla_demo_scores(preset, heads, tokens, start, seed, interleave)


def layout_names(cache: KvCachePerToken) -> list[str]:
    """The page's name of each cache layout, in the result's order."""
    return [KV_LAYOUT_NAMES[code].format(kv_heads=cache.kv_heads) for code in cache.bytes_per_token]


def causal(grid, tokens: int):
    """Blank the cells above the diagonal, which the causal mask never scores."""
    return figures.blank_masked(np.where(np.tril(np.ones((tokens, tokens))), grid, np.nan))


def view_scores(model: str, n: int, h: int, start: int, interleave: bool | None = None):
    """``scores`` for a view the page's sliders can show. A frame one stop from the hand can ask for one they
    cannot (fewer tokens than the query index, a start past the last one): its build fails, and that move
    takes its round trip, where the sliders move each other."""
    cfg = MLA_PRESETS[model]
    if start > cfg.max_position_embeddings - n:
        raise ValueError(f"{n} tokens starting at {start:,} run past {model}'s positions.")
    return scores(model, h, n, start, 0, cfg.rope_interleave if interleave is None else interleave)


def terms_chart(head: int, i: int, j: int, model: str, n: int, h: int, start: int):
    if head >= h or i >= n or j > i:
        raise ValueError("The head, query and key must lie inside the heads and tokens shown, the key at or "
                         "before the query.")
    out = view_scores(model, n, h, start)
    content, position = float(out.content[head, i, j]), float(out.position[head, i, j])
    return figures.small_multiples(
        [causal(out.content[head], n), causal(out.position[head], n),
         figures.blank_masked(out.logits[head])], ["content", "position", "scaled logit"],
        title=f"Head {head}, positions {start:,}–{start + n - 1:,}", cols=3, value_name="value",
        name="mla_terms", cell_px=300,
        alt=f"Three heatmaps over {n} queries and keys at positions {start:,} to {start + n - 1:,} for "
            f"head {head}: the content term q_nope·k_nope, the position term R q_rot · R k_rot and their scaled sum; "
            f"entries above the diagonal are masked. At query {i}, key {j}: content {content:.3g}, position "
            f"{position:.3g}.")


def k_rot_chart(model: str, n: int, h: int, start: int):
    out = view_scores(model, n, h, start)
    return figures.heatmap(out.k_rot, title="k_rot: one rotated key per token, read by every head",
                           x_title="rotated dimension", y_title="token", value_name="k_rot", name="mla_k_rot",
                           height=340, alt=f"Heatmap of the shared rotated keys: one row per token ({n}), one "
                                           f"column per rotated dimension ({MLA_PRESETS[model].qk_rope_head_dim}).")


def position_heads_chart(model: str, n: int, h: int, start: int):
    out = view_scores(model, n, h, start)
    return figures.small_multiples(
        [causal(p, n) for p in out.position], [f"head {k}" for k in range(h)],
        title="The position term per head: the same keys, each head's own rotated query",
        cols=min(h, 4), value_name="R q_rot · R k_rot", name="mla_position_heads",
        alt=f"One heatmap per head ({h}) of the position term over {n} tokens; the patterns "
            "differ because the queries differ.")


def cache_chart(ctx: int, model: str, dtype: str, kvh: int):
    cfg = MLA_PRESETS[model]
    cache = kv_cache_per_token(cfg, kv_heads=kvh, dtype=dtype, context=ctx)
    kib = dict(zip(layout_names(cache), cache.kib_per_token.values(), strict=True))
    return figures.bars(list(kib), {"KiB per token (all layers)": np.array(list(kib.values()))},
                        title=f"{model}: KV cache per token, {cfg.num_hidden_layers} layers, {dtype}",
                        x_title="attention", y_title="KiB per token", log_y=True, name="mla_cache",
                        alt=f"Bars of cache KiB per token, all {cfg.num_hidden_layers} layers in {dtype}: "
                            + ", ".join(f"{k} {v:,.1f}" for k, v in kib.items()) + ".")


def layout_chart(model: str, n: int, h: int, start: int):
    interleave = MLA_PRESETS[model].rope_interleave
    out, other = view_scores(model, n, h, start), view_scores(model, n, h, start, not interleave)
    gap = mla_layout_gap(out, other)
    return figures.small_multiples(
        [causal(g.position[0], n) for g in (out, other)],
        # short panel titles: the two sentences overlapped on a phone (the caption below says the rest)
        [f"as stored ({'interleaved' if interleave else 'half-split'})",
         f"read {'half-split' if interleave else 'interleaved'}"],
        title="Head 0's position term under the two pairings", cols=2, cell_px=320,
        value_name="R q_rot · R k_rot", name="mla_layouts",
        alt=f"Two heatmaps of head 0's position term: the stored pairing and the wrong one differ by up to {gap:.3g}.")


def scores_code(preset: str, heads: int, tokens: int, start: int, interleave: bool, name: str = "out") -> str:
    """The snippet line that computes the latent-attention scores the figures show."""
    return f"{name} = {classroom.call('mla_demo_scores', preset, heads, tokens, start, 0, interleave)}"


@st.cache_data(max_entries=16, show_spinner=False)
def shift_change(preset: str, heads: int, tokens: int, start: int) -> MlaShiftChange:
    # two demo layers' scores: ~60 ms of torch on every move while it ran uncached (bench/floor.py)
    return mla_shift_change(preset, heads, tokens, start)


def ask_shift(preset: str, heads: int, tokens: int, start: int) -> contextlib.AbstractContextManager:
    """Predict: move every token by the same number of positions; what happens to the position term?"""
    shift = shift_change(preset, heads, tokens, start)
    moved_start, change, size = shift.moved_start, shift.change, shift.size
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
    configs = MLA_PRESETS.values()
    rows = {name: mla_softmax_scale(c) for name, c in MLA_PRESETS.items()}
    st.dataframe({"model": list(rows), "qk_head_dim": [c.qk_head_dim for c in configs],
                  "rope_type": [c.rope_parameters.get("rope_type") for c in configs],
                  "factor": [c.rope_parameters.get("factor", 1.0) for c in configs],
                  "1/√qk_head_dim": [r.base for r in rows.values()],
                  "mscale": [r.mscale for r in rows.values()],
                  "scale = base × mscale²": [r.scale for r in rows.values()],
                  "cos/sin factor": [r.attention_factor for r in rows.values()]},
                 hide_index=True, width="stretch")


def cache_table_and_notice(cache: KvCachePerToken, context: int, dtype: str) -> None:
    """The cache sizes as a table, and what to notice (every number from ``kv_cache_per_token``)."""
    st.dataframe({"attention": layout_names(cache),
                  "values per token and layer": list(cache.values_per_layer.values()),
                  "bytes per token": list(cache.bytes_per_token.values()),
                  f"GiB at {context:,} tokens": list(cache.gib_at_context.values())},
                 hide_index=True, width="stretch")
    notice(f"MLA caches {cache.values_per_layer['mla']} values per token and layer, {cache.mha_over_mla:.0f}× "
           f"less than full multi-head keys and values. The decoupled rotated key is "
           f"{cache.rope_share_of_mla:.1%} of that: the price of keeping positions out of the latent. "
           "Put the rotation on the latent instead and every head's key would have to be cached (or "
           "recomputed for every past token at each step), the last bar. For scale: GLM-4.5, which "
           f"uses grouped-query attention (8 KV heads of 128, 46 layers), caches "
           f"{cache.reference_bytes_per_token / 1024:,.0f} KiB per token in {dtype}. A common "
           "misconception is that GLM-4.5 uses latent attention; its transformers config "
           "(`Glm4MoeConfig`) has 8 key-value heads and rotates half of each head. GLM-5 uses MLA.")
