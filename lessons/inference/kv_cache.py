import streamlit as st

from lessons.inference import kv_bytes_views as bytes_views
from lessons.inference import kv_cache_views as views
from page_kit import classroom, controls, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.inference import (
    DTYPE_BYTES,
    TINY_CONTEXT,
    TINY_LLAMA,
    cache_bytes,
    cache_contents,
    cache_layout,
    cache_rescaling_error,
)

header("What the cache holds",
       "A model that generates keeps every past key and value. Each key was turned once, at its own position, and "
       "is stored turned; values are never turned. Here is a tiny Llama's cache, read back from transformers.")
WHY = (
    "Generation runs a **prefill** (one forward over the prompt) and then one **decode step** per new token. "
    "Each step needs the keys and values of every earlier token, so the model keeps them: the KV cache. With "
    "RoPE the key of token p is turned by p·θ before it is stored, the query of the new token is turned by its "
    "own position, and the score q·k then depends on the distance alone. Nothing in the cache ever needs to "
    "be turned again, as long as the frequencies θ never change. A scaling whose frequencies depend on the "
    "length (dynamic NTK) breaks that promise: the keys already stored keep the turn they got when they were "
    "written. Everything here runs transformers' own `LlamaForCausalLM` with seeded random weights "
    f"({TINY_LLAMA['num_hidden_layers']} layers, {TINY_LLAMA['num_attention_heads']} query heads, "
    f"{TINY_LLAMA['num_key_value_heads']} KV heads, head_dim {TINY_LLAMA['head_dim']}, float32) and reads "
    "its `DynamicCache`. The cache is also what limits "
    "a long context in memory: every layer that keeps every token adds its keys and values for each new token, "
    "unless it keeps a window, a fixed-size state, or a compressed latent instead."
)
PAIRS = list(range(TINY_LLAMA["head_dim"] // 2))


def decode_tab(page):
    with page.side:
        prefill = controls.slider("Prefill length P", "P", 1, 96, 24)
        decode = controls.slider("Decode steps D", "D", 0, 32, 8)
        pair = controls.select_slider("Rotary pair i", "pair", PAIRS, 1)
    c = views.contents(prefill, decode)
    n = prefill + decode
    show(hero(views.turns_chart, P=prefill, D=decode, pair=pair))
    classroom.snippet(f"c = {classroom.call('cache_contents', prefill, decode)}",
                      f"c.key_turn[0, :, {pair}], c.value_turn[0, :, {pair}]  # ({n},) keys and values")
    found = (f"Every cached key lies on the line p·θ (to {c.turn_gap:.1e} rad, all pairs and KV heads): the "
             f"prefill's {prefill} keys and the {decode} keys written one decode step at a time were each turned "
             "once, at their own position. The values (at 0) "
             f"are never turned. The query of position {n - 1} is turned by its own position "
             f"({c.query_turn[pair]:.3f} rad), so q·k sees the difference of the two turns. The decode-step "
             f"keys equal those of one prefill of all {n} tokens to {c.prefill_all_gap:.1e} (float32 rounding "
             "of a one-row against a many-row matmul).")
    step_question(c, n, found)
    formula(r"\begin{gathered}k^{\text{cache}}_p = R(p\,\theta)\,W_k x_p,\quad v^{\text{cache}}_p = W_v x_p\\ "
            r"q_{$last}\cdot k_p = (W_q x_{$last})^{\top} R\big(($last - p)\,\theta\big)\,W_k x_p\end{gathered}",
            last=n - 1)
    source(cache_contents)


def step_question(c: dict, n: int, found: str):
    """Which cached keys one more decode step changes; ``found`` (what the figure shows) waits for the answer."""
    options = ["none of them", "only the last one", f"all {n}: each is turned again for the new position"]
    answer = 0 if c.kept else 2

    def reveal() -> str:
        return (f"{'None' if c.kept else 'Some'}: after one more decode step the {n} rows already in the cache "
                f"are bit for bit what they were (largest change {c.max_change:g}). The new token's key is "
                f"appended at position {n}, turned by {n}·θ; the old keys keep their turns, and the new query, "
                "turned by its own position, is compared with them as they are.")

    with classroom.predict("kv_next_step", f"Decode one more token (position {n}). Which of the {n} keys already "
                           "in the cache change?", options, answer, reveal):
        st.metric(f"Largest change of the {n} cached keys after one more step", f"{c.max_change:g}")
        notice(found)


CONTEXTS = [4096, 32768, 131072, 262144, 1048576]


def bytes_tab(page):
    with page.side:
        ctx = controls.select_slider("Context length", "ctx", CONTEXTS, 131072, format_func=lambda v: f"{v:,}")
        dtype = controls.choice("Cache dtype", "dtype", list(DTYPE_BYTES), "bfloat16")
        kind = controls.choice("Cache kind", "kind", list(bytes_views.KIND_LABELS), "window",
                               format_func=bytes_views.KIND_LABELS.get, help="Which presets the bars show.")
    r = bytes_views.preset_bytes(ctx, dtype)
    show(hero(bytes_views.bytes_chart, ctx=ctx, dtype=dtype, kind=kind))
    classroom.snippet(f"r = {classroom.call('preset_cache_bytes', ctx, dtype)}", bytes_views.snippet_kind(kind))
    bytes_views.table(r, ctx)
    bytes_views.window_question(r, ctx, dtype)
    notice(bytes_views.counted_text(r))
    with st.expander("Presets not counted, and why"):
        st.markdown(bytes_views.left_out_text(r))
    formula(bytes_views.FORMULA, b=DTYPE_BYTES[dtype])
    source(cache_layout, cache_bytes)


HISTORIES = [0, 64, 96, 128, 192, 256]  # tokens the model ran before this prompt (0: a fresh model)


def dynamic_tab(page):
    with page.side:
        prefill = controls.slider("Prefill length P", "P2", 8, 96, 32, step=8)
        total = controls.slider("Sequence reached N", "N", prefill + 8, 128, 128, step=8)
        factor = controls.select_slider("Scale factor s", "s", [2.0, 4.0, 8.0], 2.0)
        history = controls.select_slider("History length H", "H", HISTORIES, 0,
                                         help="Tokens an earlier request ran through the model; its rotary module "
                                              "keeps their length.")
    runs = {kind: views.rescaling(kind, prefill, total, float(factor), history) for kind in views.RESCALING}
    dynamic, yarn = runs["dynamic"], runs["yarn"]
    error = dynamic.logit_error
    options = ["yes, bit for bit", "yes, up to float32 rounding (under 1e-5)", "no: they differ by more than 1e-5"]
    answer = 0 if error == 0 else 1 if error < 1e-5 else 2

    def reveal() -> str:
        return (f"The last token's logits differ by up to {error:.2g} with dynamic NTK (the prefill found "
                f"max_seq_len_cached = {dynamic.history_len}, and {dynamic.recomputes} decode steps "
                f"recomputed the frequencies) and by {yarn.logit_error:.2g} with YaRN.")

    show(hero(views.frequency_chart, P=prefill, N=total, s=factor, H=history))
    notice(views.frequency_notice(dynamic, prefill, total, history))
    with classroom.predict("kv_dynamic", f"The tiny Llama's original context is {TINY_CONTEXT}. With dynamic "
                           f"NTK (s = {factor:g}), prefill {prefill} tokens and decode up to {total} with the cache"
                           + (f", after the model ran {history} tokens" if history else "") + ". Are the last "
                           f"token's logits those of one forward over all {total} tokens on a fresh model?",
                           options, answer, reveal):
        show(views.error_chart(prefill, total, factor, history))
        show(views.attention_chart(prefill, total, factor, history))
        classroom.snippet(f"r = {{t: pc.inference.cache_rescaling_error(t, {prefill}, {total}, {float(factor)!r}, "
                          f"history={history})\n     for t in ('dynamic', 'yarn')}}",
                          f"r['dynamic'].relative_error, r['yarn'].relative_error  # ({total},) each: the "
                          "curves; .attention_change below")
        notice(views.error_notice(dynamic, yarn, total))
    st.markdown(views.STATE_TEXT.format(L0=TINY_CONTEXT))
    st.markdown(
        "**Why engines use a static rule.** YaRN's frequencies and attention factor are fixed by the config, so "
        "a key written at any step is the key a full recompute writes, and the cache stays valid at every length. "
        "vLLM builds its rotary table once, when the model loads (`RotaryEmbedding.__init__` computes "
        "`cos_sin_cache`, `vllm/model_executor/layers/rotary_embedding/base.py`); its dynamic-NTK class only "
        "overrides how that one table is computed (`dynamic_ntk_scaling_rope.py`), so it never changes "
        "during generation either.")
    formula(r"b' = b\left(\frac{s\cdot L}{L_0} - (s-1)\right)^{d/(d-2)},\quad L = \max(\text{position\_ids}) + 1 "
            r"> L_{\text{cached}}")
    source(cache_rescaling_error)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Prefill and decode", decode_tab),
    ("Bytes per token", bytes_tab),
    ("Dynamic NTK vs a cache", dynamic_tab),
]


@st.fragment
def lesson():
    page = stage()
    with guard():
        page.walk(TABS, page)


lesson()
why(WHY)
