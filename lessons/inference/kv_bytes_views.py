"""'What the cache holds', its bytes tab: the cached count for every preset, the bar chart of one cache kind, the
table of every preset, and the words for what the core returns as codes."""

from __future__ import annotations

import streamlit as st

import posenc_core as pc
from page_kit import classroom, figures
from posenc_core.inference import MAX_CONTEXT, CacheBytes, CacheLayerPlan, PresetCacheBytes, preset_cache_bytes

# The cache kinds (pc.inference.CACHE_KINDS), as the control and the table name them.
KIND_LABELS = {"full": "full", "window": "windows", "latent": "latent", "hybrid": "hybrid"}
KIND_WORDS = {"full": "every layer keeps every token", "window": "some layers keep a sliding window",
              "latent": "layers keep a compressed latent or compressed entries",
              "hybrid": "some layers keep no tokens (recurrent, convolution or shared-KV layers)"}
HOLDS_WORDS = {"all": "all", "window": "window", "compressed": "compressed", "none": "none"}
# Why a preset is not in the table, by PresetLeftOut.reason.
LEFT_OUT = {
    "keys": "the preset keeps only the RoPE keys (no {missing})",
    "no_build": "no tiny build of model type {model_type} checks the count",
    "not_released": "its sizes are a config class's defaults, not a released model's",
}


@st.cache_data(max_entries=32, show_spinner=False)
def preset_bytes(tokens: int, dtype: str) -> PresetCacheBytes:
    return preset_cache_bytes(tokens, dtype)


def bytes_chart(ctx: int, dtype: str, kind: str):
    """Bars, one row per preset of the chosen cache kind: the GB the cache holds at ``ctx`` tokens."""
    r = preset_bytes(ctx, dtype)
    shown = [i for i, k in enumerate(r.kinds) if k == kind]
    order = sorted(shown, key=lambda i: r.gb[i])  # smallest at the bottom, the largest on top
    names = [r.keys[i] for i in order]  # preset keys: short enough for a phone's tick labels
    return figures.bars(
        names, {f"GB at {ctx:,} tokens": r.gb[order]}, horizontal=True,
        title=f"KV cache of one sequence of {ctx:,} tokens, {dtype}: {KIND_LABELS[kind]}", x_title="preset",
        y_title="GB (10⁹ bytes)", name="kv_cache_bytes", height=max(300, 120 + 34 * len(names)),
        alt=f"Bars of the DynamicCache size at {ctx:,} tokens in {dtype} for the {len(names)} presets where "
            f"{KIND_WORDS[kind]}, smallest first: "
            + "; ".join(f"{r.keys[i]} {r.gb[i]:.3g} GB" for i in order) + ".")


def _entry(plan: CacheLayerPlan) -> str:
    """One token in one layer: 2×kv×head_dim, a latent + its rotated key, or one head that is key and value."""
    e = plan.entry
    text = {"heads": f"2×{e.kv_heads}×{e.head_dim}", "latent": f"{e.latent}+{e.head_dim}",
            "shared": f"{e.head_dim} (K=V)"}[e.form]
    if plan.holds == "compressed":
        text += f" per token in the window, {e.width}{f'+{e.index}' if e.index else ''} per {plan.rate} tokens"
    elif e.index:
        text += f" +{e.index} index"
    return text


def layers_text(row: CacheBytes) -> str:
    """Each distinct layer plan: its count, what it keeps, and what one token writes into one such layer."""
    parts = []
    for plan, count in row.layout.plans:
        kept = HOLDS_WORDS[plan.holds] + (f" {plan.window - 1:,}" if plan.window else "")
        parts.append(f"{count} {kept}" + (f": {_entry(plan)}" if plan.entry else ""))
    return " · ".join(parts)


def table(r: PresetCacheBytes, ctx: int) -> None:
    """Every counted preset: its GB at ``ctx``, the bytes the next tokens add there, and its layers."""
    st.dataframe({"preset": r.keys, f"GB at {ctx:,}": r.gb, "KB per token here": r.next_token / 1e3,
                  "kind": [KIND_LABELS[k] for k in r.kinds], "layers (kept tokens: per-token elements)":
                  [layers_text(row) for row in r.rows], "model": r.names},
                 hide_index=True, width="stretch",
                 column_config={"preset": st.column_config.TextColumn(pinned=True),
                                f"GB at {ctx:,}": st.column_config.NumberColumn(format="%.3g"),
                                "KB per token here": st.column_config.NumberColumn(format="%.1f")})


def left_out_text(r: PresetCacheBytes) -> str:
    return "\n".join(f"- {pc.PRESETS[k].name}: " + LEFT_OUT[why.reason].format(
        missing=", ".join(why.missing), model_type=why.model_type) for k, why in r.left_out.items())


def window_question(r: PresetCacheBytes, ctx: int, dtype: str) -> None:
    """Doubling the context for the model with the most window layers: does its cache double?"""
    pick = max(range(len(r.rows)), key=lambda i: r.rows[i].layers["window"])
    name, now, row = r.names[pick], r.gb[pick], r.rows[pick]
    later = preset_bytes(2 * ctx, dtype).gb[pick] if 2 * ctx <= MAX_CONTEXT else now
    ratio = later / now
    options = ["it doubles exactly", "it grows, by less than x2", "it stays the same"]
    answer = 0 if ratio == 2 else 2 if ratio == 1 else 1

    def reveal() -> str:
        return (f"{name}: {now:.4g} GB at {ctx:,} tokens, {later:.4g} GB at {2 * ctx:,} (x{ratio:.4f}). Its "
                f"{row.layers['window']} window layers keep {row.window_tokens:,} tokens whatever the length; only "
                "the other layers grow.")

    with classroom.predict("kv_double", f"{name} keeps {row.layers['window']} of its layers in a sliding window. "
                           f"Double the context from {ctx:,} to {2 * ctx:,} tokens. What does its cache do?",
                           options, answer, reveal):
        st.metric(f"{name} at {2 * ctx:,} tokens ({dtype})", f"{later:.4g} GB", f"x{ratio:.4f}")


def _row(r: PresetCacheBytes, key: str) -> CacheBytes | None:
    return r.rows[r.keys.index(key)] if key in r.keys else None


def counted_text(r: PresetCacheBytes) -> str:
    """How the count reads a cache, with the numbers of the presets it names taken from their rows."""
    v4, e2b = _row(r, "deepseek-v4-flash"), _row(r, "gemma4-e2b")
    shared = f": {e2b.layers['none']} of Gemma 4 E2B's layers" if e2b else ""
    if v4:
        plans = [p for p, _ in v4.layout.plans if p.holds == "compressed"]
        rates = " or ".join(str(m) for m in sorted({p.rate for p in plans}))
        compressed = (f"DeepSeek V4 Flash keeps one head that is both key and value for its {plans[0].window:,}-token "
                      f"window, one compressed entry per {rates} tokens (with an indexer's key where the rate is "
                      f"{min(p.rate for p in plans)}), and the projections of a window not yet closed "
                      f"(`DeepseekV4HCACache`, `DeepseekV4CSACache`); its \"KB per token\" is an average over "
                      f"{v4.span} tokens. ")
    else:
        compressed = ""
    return (
        "Counted: what transformers' `DynamicCache` holds for one sequence, layer by layer, as the cache layer "
        "classes it builds from the config keep it, with each layer's own sizes (Gemma 4's full layers have their "
        "own head size and KV heads). Sliding-window and chunked layers keep the last window − 1 tokens "
        "(`DynamicSlidingWindowLayer.update`); Mamba, linear-attention and convolution layers keep a fixed-size "
        "state instead (not counted: it does not grow), and layers that reuse another layer's keys and values or "
        f"have no attention keep nothing (`DummyLayer`{shared}). Latent attention (DeepSeek V3, Kimi K2, Mistral "
        "Small 4) caches its compressed latent and one shared rotated key, kv_lora_rank + qk_rope_head_dim per "
        "token and layer; DeepSeek V3.2's sparse attention adds its indexer's key. " + compressed +
        "A multimodal model's cache is its text model's: an image adds its image tokens, each costing what a text "
        "token costs. Each model type's count equals the bytes in the cache of a tiny random build with the same "
        "layer pattern, a multimodal one built with its vision tower (a test, after a prefill and after decode "
        "steps)."
    )


FORMULA = (r"\begin{gathered}B(n) = b\textstyle\sum_\ell k_\ell(n)\,w_\ell\\ "
           r"k_{\text{all}} = n,\quad k_{\text{win}} = \min(n, W{-}1)\\ "
           r"k_{\text{comp}} = \min(n, W{-}1) + \lfloor n/m \rfloor + \dots\\ "
           r"w_\ell = 2\,h_{kv}\,d_{\text{head}}\ \text{or}\ r_{kv} + d_{\text{rope}}\ (+\,d_{\text{index}})\\ "
           r"b = $b\ \text{bytes}\end{gathered}")


def snippet_kind(kind: str) -> str:
    return f"bars = [(k, g) for k, g, c in zip(r.keys, r.gb, r.kinds) if c == {kind!r}]  # unsorted"

