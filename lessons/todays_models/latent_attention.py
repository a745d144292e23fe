import streamlit as st

from lessons.todays_models import latent_views
from lessons.todays_models.words import MLA_SOURCES
from page_kit import (
    classroom,
    controls,
    formula,
    guard,
    header,
    hero,
    notice,
    show,
    source,
    stage,
    why,
)
from page_kit.lesson.config_words import fact_sentence
from posenc_core.todays_models import (
    KV_CACHE_DTYPES,
    MLA_CONFIGS,
    MLA_PRESETS,
    kv_cache_per_token,
    latent_config,
    mla_layout_gap,
    mla_scores,
    mla_softmax_scale,
)

PRESETS = list(MLA_PRESETS)


@st.cache_data(max_entries=8, show_spinner=False)
def facts(preset: str) -> list[str]:
    """The layer facts of the preset's config.json, read as every config page reads it, in words."""
    return [fact_sentence(fact) for fact in latent_config(MLA_CONFIGS[preset])[1]]


header("Latent attention's shared rotated key",
       "Latent attention rotates one small key per token, shared by every head: each score is content plus "
       "position.")
WHY = ("DeepSeek V3, Kimi K2, GLM-5 and Mistral Small 4 use multi-head latent attention (MLA): instead of keys and "
       "values per head, the cache keeps one compressed vector per token. A rotation cannot sit on that compressed "
       "vector, so MLA rotates a separate small slice: each head's query gets `qk_rope_head_dim` extra dimensions, "
       "and each token gets **one** rotated key of that size, shared by every head. The score is a content term "
       "plus a position term. The figures use a layer with the preset's per-head sizes and rope settings (a few "
       "heads, random weights) and compute both the same way transformers' `DeepseekV3Attention` does.")


def hands(view: dict) -> dict:
    """The view under its controls' URL keys: what the scores depend on."""
    return {"model": view["preset"], "n": view["tokens"], "h": view["heads"], "start": view["start"]}


def terms_tab(page, view, out) -> None:
    preset, heads, tokens, start, cfg = view["preset"], view["heads"], view["tokens"], view["start"], view["cfg"]
    with page.side:
        head = controls.slider("Head", "head", 0, heads - 1, 0) if heads > 1 else 0
        i = controls.slider("Query i", "i", 1, tokens - 1, tokens - 1)
        j = controls.slider("Key j", "j", 0, i, max(0, i - 3))
    content, position = float(out.content[head, i, j]), float(out.position[head, i, j])
    show(hero(latent_views.terms_chart, head=head, i=i, j=j, **hands(view)))
    classroom.snippet(latent_views.scores_code(preset, heads, tokens, start, cfg.rope_interleave),
                      f'out.content[{head}], out.position[{head}], out.logits[{head}]  '
                      f'# ({tokens}, {tokens}) each: the three panels (masked above the diagonal)')
    # the rule, then its numbers: on one line it ran past a phone's width
    formula(r"\begin{gathered}s_{$i,$j} = \text{scale}\times\big(q^{nope}\cdot k^{nope} + R_{$pi}q^{rot}\cdot "
            r"R_{$pj}k^{rot}\big)\\ = $scale\times\big($c + $p\big) = $s\end{gathered}",
            i=i, j=j, scale=out.scale.scale, c=content, p=position, pi=start + i, pj=start + j,
            s=float(out.logits[head, i, j]))
    with latent_views.ask_shift(preset, heads, tokens, start):
        notice(f"Only {cfg.qk_rope_head_dim} of the {cfg.qk_head_dim} query-key dimensions carry position; for "
               f"these random weights the position term is {out.position_share[head]:.0%} of the mean absolute "
               "score in this head. Slide the first position: neither panel changes (up to float32 rounding far "
               "out), because the same tokens keep the same offsets. Only the rotated slice ever sees a position, "
               "and it sees only the offset i − j.")


def shared_tab(page, view, out) -> None:
    preset, heads, tokens, start, cfg = view["preset"], view["heads"], view["tokens"], view["start"], view["cfg"]
    show(hero(latent_views.k_rot_chart, **hands(view)))
    classroom.snippet(latent_views.scores_code(preset, heads, tokens, start, cfg.rope_interleave),
                      f'out.k_rot  # ({tokens}, {cfg.qk_rope_head_dim}) one rotated key per token',
                      f'out.position  # ({heads}, {tokens}, {tokens}) the position term per head')
    show(hero(latent_views.position_heads_chart, **hands(view)))
    cache = kv_cache_per_token(cfg)
    notice(f"Every head reads the same k_rot row for a token; heads differ only in their queries. The cache keeps "
           f"the {cfg.kv_lora_rank}-value latent plus this {cfg.qk_rope_head_dim}-value key per token and layer "
           f"({cache.values_per_layer['mla']} values). Because no rotation touches the latent, the key "
           "up-projection W_UK can be multiplied into the query once, and scores are computed against the "
           "compressed cache directly.")


def scale_tab(page, view, out) -> None:
    cfg, scale = view["cfg"], out.scale
    latent_views.scale_table()
    params = cfg.rope_parameters
    formula(r"\text{scale} = \frac{1}{\sqrt{$d}}\cdot\big(0.1\cdot $m\cdot\ln $f + 1\big)^2 = $s",
            d=cfg.qk_head_dim, m=params.get("mscale_all_dim", 0.0), f=params.get("factor", 1.0), s=scale.scale)
    notice("YaRN's temperature enters MLA twice. The rotary embedding multiplies cos and sin by "
           "mscale(factor, mscale)/mscale(factor, mscale_all_dim), which is 1 when the two are equal "
           "(DeepSeek V3, Kimi K2). The attention's softmax scale multiplies 1/√qk_head_dim by "
           "mscale(factor, mscale_all_dim) **squared** (transformers' `yarn_apply_mscale`), so every "
           f"score, content and position alike, is sharpened: {view['preset']} uses {scale.scale:.4g} "
           f"instead of {scale.base:.4g}.")


def cache_tab(page, view, out) -> None:
    preset, cfg = view["preset"], view["cfg"]
    with page.side:
        dtype = controls.choice("Cache dtype", "dtype", list(KV_CACHE_DTYPES), "bfloat16")
        groups = [g for g in (1, 2, 4, 8, 16) if cfg.num_attention_heads % g == 0]
        kv_heads = controls.select("GQA key-value heads", "kvh", groups, groups.index(8))
        context = controls.select_slider("Context", "ctx", [4096, 32768, 131072, 262144, 1048576],
                                         131072, format_func=lambda v: f"{v:,}")
    cache = kv_cache_per_token(cfg, kv_heads=kv_heads, dtype=dtype, context=context)
    show(hero(latent_views.cache_chart, ctx=context, model=preset, dtype=dtype, kvh=kv_heads))
    classroom.snippet(f"cache = pc.todays_models.kv_cache_per_token(pc.todays_models.MLA_PRESETS[{preset!r}], "
                      f"kv_heads={kv_heads}, "
                      f"dtype={dtype!r}, context={context})",
                      'cache.kib_per_token  # {layout code: KiB per token, all layers}: the bars')
    latent_views.cache_table_and_notice(cache, context, dtype)


def layout_tab(page, view, out) -> None:
    preset, heads, tokens, start, cfg = view["preset"], view["heads"], view["tokens"], view["start"], view["cfg"]
    gap = mla_layout_gap(out, latent_views.scores(preset, heads, tokens, start, 0, not cfg.rope_interleave))
    show(hero(latent_views.layout_chart, **hands(view)))
    classroom.snippet(latent_views.scores_code(preset, heads, tokens, start, cfg.rope_interleave),
                      latent_views.scores_code(preset, heads, tokens, start, not cfg.rope_interleave, "other"),
                      'out.position[0], other.position[0]  # the two panels',
                      "gap = pc.todays_models.mla_layout_gap(out, other)  # the largest difference, printed below")
    formula(r"\begin{gathered}\text{interleaved: pairs }(2i, 2i{+}1)\\ \text{half: pairs }(i, i{+}r/2)"
            r"\\ \max|\Delta\,\text{position term}| = $gap\end{gathered}", gap=gap)
    notice(f"{preset}'s checkpoint stores the rotated slice with interleaved pairs (`rope_interleave = "
           f"{cfg.rope_interleave}`). transformers rotates them with `apply_rotary_pos_emb_interleave`, which reads "
           "the even and odd dimensions as pairs (and writes the result back in half layout for both q and k, which "
           "leaves every dot product unchanged). Reading the same weights as half-split pairs rotates the wrong "
           f"dimensions together: here the position term moves by up to {gap:.3g}. The content term is untouched "
           "either way.")


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Content + position", terms_tab),
    ("The shared rotated key", shared_tab),
    ("Softmax scale", scale_tab),
    ("KV cache per token", cache_tab),
    ("Interleaved pairs", layout_tab),
]


@st.fragment
def lesson():
    page = stage()
    with page.side:
        preset = controls.select("Model", "model", PRESETS, help="Per-head sizes and rope settings of this model.")
    cfg = MLA_PRESETS[preset]
    page.side.caption(f"Sizes from {MLA_SOURCES.get(cfg.source, cfg.source)}.")
    with page.more:
        tokens = controls.slider("Tokens", "n", 4, 24, 12)
        heads = controls.slider("Heads shown", "h", 1, 8, 4, help=f"{preset} has {cfg.num_attention_heads}.")
        start = controls.slider("First position", "start", 0, cfg.max_position_embeddings - tokens, 0, step=1,
                                help="Where the tokens sit; past the original length YaRN's slowed pairs matter.")
    st.caption(f"{preset}, as Layer by layer reads its config: "  # the one reading's sentences, under the figure
               + "; ".join(facts(preset)) + ".")
    view = {"preset": preset, "cfg": cfg, "tokens": tokens, "heads": heads, "start": start}
    with guard():
        out = latent_views.scores(preset, heads, tokens, start, 0, cfg.rope_interleave)
        page.walk(TABS, page, view, out)


lesson()
why(WHY)
source(mla_scores, mla_softmax_scale, kv_cache_per_token)
