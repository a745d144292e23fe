import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.todays_models import class_views
from page_kit import (
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    notice,
    show,
    source,
    stage,
    why,
)

PRESETS = list(pc.MLA_PRESETS)


@st.cache_data(max_entries=16, show_spinner=False)
def scores(preset: str, heads: int, tokens: int, start: int, seed: int, interleave: bool):
    return pc.mla_demo_scores(preset, heads, tokens, start, seed, interleave)


@st.cache_data(max_entries=8, show_spinner=False)
def facts(preset: str) -> list[tuple[str, str]]:
    """The layer facts of the preset's config.json, read as every config page reads it."""
    return pc.latent_config(pc.MLA_CONFIGS[preset])[1]


header("Latent attention's shared rotated key",
       "Latent attention rotates one small key per token, shared by every head: each score is content plus "
       "position.")
WHY = ("DeepSeek V3, Kimi K2, GLM-5 and Mistral Small 4 use multi-head latent attention (MLA): instead of keys and "
       "values per head, the cache keeps one compressed vector per token. A rotation cannot sit on that compressed "
       "vector, so MLA rotates a separate small slice: each head's query gets `qk_rope_head_dim` extra dimensions, "
       "and each token gets **one** rotated key of that size, shared by every head. The score is a content term "
       "plus a position term. The figures use a layer with the preset's per-head sizes and rope settings (a few "
       "heads, random weights) and compute both the same way transformers' `DeepseekV3Attention` does.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        preset = controls.select("Model", "model", PRESETS, help="Per-head sizes and rope settings of this model.")
    cfg = pc.MLA_PRESETS[preset]
    page.side.caption(f"Sizes from {cfg.source}.")
    with page.more:
        tokens = controls.slider("Tokens", "n", 4, 24, 12)
        heads = controls.slider("Heads shown", "h", 1, 8, 4, help=f"{preset} has {cfg.num_attention_heads}.")
        start = controls.slider("First position", "start", 0, cfg.max_position_embeddings - tokens, 0, step=1,
                                help="Where the tokens sit; past the original length YaRN's slowed pairs matter.")
    st.caption(f"{preset}, as Layer by layer reads its config: "  # the one reading's sentences, under the figure
               + "; ".join(sentence for _, sentence in facts(preset)) + ".")
    tab_terms, tab_shared, tab_scale, tab_cache, tab_layout = page.sections(
        ["Content + position", "The shared rotated key", "Softmax scale", "KV cache per token", "Interleaved pairs"])

    with guard():
        out = scores(preset, heads, tokens, start, 0, cfg.rope_interleave)
        scale = out["scale"]
        if tab_terms.open:
            with tab_terms:
                with page.side:
                    head = controls.slider("Head", "head", 0, heads - 1, 0) if heads > 1 else 0
                    i = controls.slider("Query i", "i", 1, tokens - 1, tokens - 1)
                    j = controls.slider("Key j", "j", 0, i, max(0, i - 3))
                grids = [figures.blank_masked(np.where(np.tril(np.ones((tokens, tokens))), g[head], np.nan))
                         for g in (out["content"], out["position"])] + [figures.blank_masked(out["logits"][head])]
                show(figures.small_multiples(
                    grids, ["content", "position", "scaled logit"],
                    title=f"Head {head}, positions {start:,}–{start + tokens - 1:,}", cols=3, value_name="value",
                    name="mla_terms", cell_px=300,
                    alt=f"Three heatmaps over {tokens} queries and keys at positions {start:,} to "
                        f"{start + tokens - 1:,} for head {head}: the content term q_nope·k_nope, the position term "
                        f"R q_rot · R k_rot and their scaled sum; entries above the diagonal are masked. At query "
                        f"{i}, key {j}: content {float(out['content'][head, i, j]):.3g}, position "
                        f"{float(out['position'][head, i, j]):.3g}."))
                classroom.snippet(class_views.scores_code(preset, heads, tokens, start, cfg.rope_interleave),
                                  f'out["content"][{head}], out["position"][{head}], out["logits"][{head}]  '
                                  f'# ({tokens}, {tokens}) each: the three panels (masked above the diagonal)')
                content, position = float(out["content"][head, i, j]), float(out["position"][head, i, j])
                formula(r"s_{$i,$j} = \underbrace{$scale}_{\text{scale}}\times\big(\underbrace{$c}_{q^{nope}"
                        r"\cdot k^{nope}} + \underbrace{$p}_{R_{$pi}q^{rot}\cdot R_{$pj}k^{rot}}\big) = $s",
                        i=i, j=j, scale=scale["scale"], c=content, p=position, pi=start + i, pj=start + j,
                        s=float(out["logits"][head, i, j]))
                with class_views.ask_shift(preset, heads, tokens, start, out):
                    notice(f"Only {cfg.qk_rope_head_dim} of the {cfg.qk_head_dim} query-key dimensions carry "
                           f"position; for these random weights the position term is "
                           f"{out['position_share'][head]:.0%} of the mean absolute score in this head. Slide the "
                           "first position: neither panel changes (up to float32 rounding far out), because the "
                           "same tokens keep the same offsets. Only the rotated slice ever sees a position, and it "
                           "sees only the offset i − j.")

        if tab_shared.open:
            with tab_shared:
                show(figures.heatmap(out["k_rot"], title="k_rot: one rotated key per token, read by every head",
                                     x_title="rotated dimension", y_title="token", value_name="k_rot",
                                     name="mla_k_rot", height=340,
                                     alt=f"Heatmap of the shared rotated keys: one row per token ({tokens}), one "
                                         f"column per rotated dimension ({cfg.qk_rope_head_dim})."))
                classroom.snippet(class_views.scores_code(preset, heads, tokens, start, cfg.rope_interleave),
                                  f'out["k_rot"]  # ({tokens}, {cfg.qk_rope_head_dim}) one rotated key per token',
                                  f'out["position"]  # ({heads}, {tokens}, {tokens}) the position term per head')
                show(figures.small_multiples(
                    [figures.blank_masked(np.where(np.tril(np.ones((tokens, tokens))), p, np.nan))
                     for p in out["position"]], [f"head {h}" for h in range(heads)],
                    title="The position term per head: the same keys, each head's own rotated query",
                    cols=min(heads, 4), value_name="R q_rot · R k_rot", name="mla_position_heads",
                    alt=f"One heatmap per head ({heads}) of the position term over {tokens} tokens; the patterns "
                        "differ because the queries differ."))
                cache = pc.kv_cache_per_token(cfg)
                notice(f"Every head reads the same k_rot row for a token; heads differ only in their queries. The "
                       f"cache keeps the {cfg.kv_lora_rank}-value latent plus this {cfg.qk_rope_head_dim}-value "
                       f"key per token and layer ({cache['values_per_layer']['MLA']} values). Because no rotation "
                       "touches the latent, the key up-projection W_UK can be multiplied into the query once, and "
                       "scores are computed against the compressed cache directly.")

        if tab_scale.open:
            with tab_scale:
                rows = {name: pc.mla_softmax_scale(c) for name, c in pc.MLA_PRESETS.items()}
                st.dataframe({"model": list(rows), "qk_head_dim": [c.qk_head_dim for c in pc.MLA_PRESETS.values()],
                              "rope_type": [c.rope_parameters.get("rope_type") for c in pc.MLA_PRESETS.values()],
                              "factor": [c.rope_parameters.get("factor", 1.0) for c in pc.MLA_PRESETS.values()],
                              "1/√qk_head_dim": [r["base"] for r in rows.values()],
                              "mscale": [r["mscale"] for r in rows.values()],
                              "scale = base × mscale²": [r["scale"] for r in rows.values()],
                              "cos/sin factor": [r["attention_factor"] for r in rows.values()]},
                             hide_index=True, width="stretch")
                params = cfg.rope_parameters
                formula(r"\text{scale} = \frac{1}{\sqrt{$d}}\cdot\big(0.1\cdot $m\cdot\ln $f + 1\big)^2 = $s",
                        d=cfg.qk_head_dim, m=params.get("mscale_all_dim", 0.0), f=params.get("factor", 1.0),
                        s=scale["scale"])
                notice("YaRN's temperature enters MLA twice. The rotary embedding multiplies cos and sin by "
                       "mscale(factor, mscale)/mscale(factor, mscale_all_dim), which is 1 when the two are equal "
                       "(DeepSeek V3, Kimi K2). The attention's softmax scale multiplies 1/√qk_head_dim by "
                       "mscale(factor, mscale_all_dim) **squared** (transformers' `yarn_apply_mscale`), so every "
                       f"score, content and position alike, is sharpened: {preset} uses {scale['scale']:.4g} "
                       f"instead of {scale['base']:.4g}.")

        if tab_cache.open:
            with tab_cache:
                with page.side:
                    dtype = controls.choice("Cache dtype", "dtype", list(pc.KV_CACHE_DTYPES), "bfloat16")
                    groups = [g for g in (1, 2, 4, 8, 16) if cfg.num_attention_heads % g == 0]
                    kv_heads = controls.select("GQA key-value heads", "kvh", groups, groups.index(8))
                    context = controls.select_slider("Context", "ctx", [4096, 32768, 131072, 262144, 1048576],
                                                     131072, format_func=lambda v: f"{v:,}")
                cache = pc.kv_cache_per_token(cfg, kv_heads=kv_heads, dtype=dtype, context=context)
                names = list(cache["bytes_per_token"])
                show(figures.bars(names, {"KiB per token (all layers)":
                                          np.array([cache["bytes_per_token"][k] / 1024 for k in names])},
                                  title=f"{preset}: KV cache per token, {cfg.num_hidden_layers} layers, {dtype}",
                                  x_title="attention", y_title="KiB per token", log_y=True, name="mla_cache",
                                  alt=f"Bars of cache KiB per token, all {cfg.num_hidden_layers} layers in {dtype}: "
                                      + ", ".join(f"{k} {cache['bytes_per_token'][k] / 1024:,.1f}" for k in names)
                                      + "."))
                classroom.snippet(f"cache = pc.kv_cache_per_token(pc.MLA_PRESETS[{preset!r}], kv_heads={kv_heads}, "
                                  f"dtype={dtype!r}, context={context})",
                                  'cache["bytes_per_token"]  # {attention: bytes per token, all layers}; the bars '
                                  'are these / 1024')
                mla, mha = cache["bytes_per_token"]["MLA"], cache["bytes_per_token"]["MHA"]
                st.dataframe({"attention": names,
                              "values per token and layer": list(cache["values_per_layer"].values()),
                              "bytes per token": list(cache["bytes_per_token"].values()),
                              f"GiB at {context:,} tokens": list(cache["gib_at_context"].values())},
                             hide_index=True, width="stretch")
                notice(f"MLA caches {cache['values_per_layer']['MLA']} values per token and layer, {mha / mla:.0f}× "
                       f"less than full multi-head keys and values. The decoupled rotated key is "
                       f"{cache['rope_share_of_mla']:.1%} of that: the price of keeping positions out of the latent. "
                       "Put the rotation on the latent instead and every head's key would have to be cached (or "
                       "recomputed for every past token at each step), the last bar. For scale: GLM-4.5, which "
                       f"uses grouped-query attention (8 KV heads of 128, 46 layers), caches "
                       f"{cache['reference_bytes_per_token'] / 1024:,.0f} KiB per token in {dtype}. A common "
                       "misconception is that GLM-4.5 uses latent attention; its transformers config "
                       "(`Glm4MoeConfig`) has 8 key-value heads and rotates half of each head. GLM-5 uses MLA.")

        if tab_layout.open:
            with tab_layout:
                other = scores(preset, heads, tokens, start, 0, not cfg.rope_interleave)
                gap = pc.mla_layout_gap(out, other)
                mask = np.tril(np.ones((tokens, tokens)))
                show(figures.small_multiples(
                    [np.where(mask, g["position"][0], np.nan) for g in (out, other)],
                    [f"pairs as stored (rope_interleave = {cfg.rope_interleave})",
                     f"same weights read as {'half-split' if cfg.rope_interleave else 'interleaved'} pairs"],
                    title="Head 0's position term under the two pairings", cols=2, cell_px=320,
                    value_name="R q_rot · R k_rot", name="mla_layouts",
                    alt=f"Two heatmaps of head 0's position term: the stored pairing and the wrong one differ by "
                        f"up to {gap:.3g}."))
                classroom.snippet(class_views.scores_code(preset, heads, tokens, start, cfg.rope_interleave),
                                  class_views.scores_code(preset, heads, tokens, start, not cfg.rope_interleave,
                                                           "other"),
                                  'out["position"][0], other["position"][0]  # the two panels',
                                  "gap = pc.mla_layout_gap(out, other)  # the largest difference, printed below")
                formula(r"\begin{gathered}\text{interleaved: pairs }(2i, 2i{+}1)\qquad\text{half: pairs }(i, i{+}r/2)"
                        r"\\ \max|\Delta\,\text{position term}| = $gap\end{gathered}", gap=gap)
                notice(f"{preset}'s checkpoint stores the rotated slice with interleaved pairs "
                       f"(`rope_interleave = {cfg.rope_interleave}`). transformers rotates them with "
                       "`apply_rotary_pos_emb_interleave`, which reads the even and odd dimensions as pairs "
                       "(and writes the result back in half layout for both q and k, which leaves every dot "
                       "product unchanged). Reading the same weights as half-split pairs rotates the wrong "
                       f"dimensions together: here the position term moves by up to {gap:.3g}. The content term "
                       "is untouched either way.")


lesson()
why(WHY)
source(pc.mla_scores, pc.mla_softmax_scale, pc.kv_cache_per_token)
