import contextlib

import streamlit as st

from lessons.long_context import dual_chunk_views as views
from page_kit import classroom, controls, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.long_context import dual_chunk_grid, dual_chunk_positions, dual_chunk_summary

LENGTHS = [32768, 131072, 262144, 524288, 1000000]  # the "at length" tab's choices, tokens

header("Dual chunk attention (Qwen2.5-1M)",
       "vLLM serves Qwen2.5-1M past its trained length by counting positions inside chunks: every score is "
       "rotated for a distance no larger than chunk_size, however long the input.")
WHY = ("Dual chunk attention (DCA) never extends the rotation; it changes which positions the rotation is given. "
       "Keys count from 0 again in every chunk of chunk_size − local_size tokens. Each query is rotated three "
       "times: at its own offset for keys of its own chunk (exactly plain RoPE there), one chunk later, clamped at "
       "chunk_size, for keys of the chunk before, and at chunk_size for every older key. So no score ever sees a "
       "distance the model was not trained on. The price: far keys lose their order (a key ten chunks back and "
       "one two chunks back at the same offset look the same). This page follows vLLM's code, which serves these "
       "models; transformers has no DCA. The sparse-attention path also forms 'critical' query copies, used only "
       "to pick which keys to keep; the scores themselves use the three copies shown here.")


def grid_tab(page) -> None:
    with page.side:
        n = controls.slider("Tokens", "n", 32, 480, 192, step=16)
        cs = controls.slider("chunk_size", "cs", 32, 256, 80, step=16,
                             help="The largest distance any score may see (Qwen2.5-1M: 262,144).")
        ls = controls.slider("local_size", "ls", 0, cs - 16, min(16, cs - 16), step=16,
                             help="How far the successive query may run past a chunk before it is clamped at "
                                  "chunk_size; a chunk holds chunk_size − local_size tokens (Qwen2.5-1M: 8,192).")
    show(hero(views.distance_chart, n=n, cs=cs, ls=ls))
    s = views.summary(n, cs, ls)
    classroom.snippet(f"g = {classroom.call('dual_chunk_grid', n, cs, ls)}  # ({n}, {n}): the figure",
                      "print(g.distance, g.plain, g.kind)  # DCA's distance, plain RoPE's, the kind code")
    notice(f"Chunks of chunk_len = {cs} − {ls} = {s.chunk_len} tokens: {n} tokens span {s.chunks} chunk"
           f"{'s' if s.chunks != 1 else ''}. Inside a chunk the distance is plain RoPE's; across chunks it is "
           f"reset, so the largest distance any score sees is {s.largest:,} (plain RoPE: {s.plain_largest:,}), "
           f"never above chunk_size = {cs}.")
    show(views.kind_chart(n, cs, ls))
    formula(r"k_j = j \bmod $L,\qquad q^{\text{intra}}_i = i \bmod $L", L=s.chunk_len)
    formula(r"q^{\text{succ}}_i = \min(i \bmod $L + $L,\ $c)", L=s.chunk_len, c=cs)
    formula(r"q^{\text{inter}} = \min(2\cdot $L - 1,\ $c) = $qi", L=s.chunk_len, c=cs, qi=min(2 * s.chunk_len - 1, cs))
    st.caption("Positions as vLLM builds them: `DualChunkRotaryEmbedding._compute_cos_sin_cache` and "
               "`forward_native` (vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py); which keys meet "
               "which query copy: `DualChunkFlashAttentionImpl._dual_chunk_flash_attn_prefill_func` "
               "(vllm/attention/backends/dual_chunk_flash_attn.py). A test walks that loop and compares every score.")


def length_tab(page) -> None:
    with page.side:
        length = controls.select_slider("Input length (tokens)", "len", LENGTHS, 1000000, format_func="{:,}".format)
    cfg = views.QWEN_1M
    s = views.summary(length, cfg["chunk_size"], cfg["local_size"], cfg["original_max_position_embeddings"])
    values = [s.plain_largest, cfg["chunk_size"], s.chunk_len - 1, 32768]
    options = [f"{values[0]:,} (the input's length − 1)", f"{values[1]:,} (chunk_size)",
               f"{values[2]:,} (one chunk − 1)", f"{values[3]:,} (a typical trained length)"]
    asked = s.largest in values  # every length offered lands on one; otherwise the table shows unasked

    def reveal() -> str:
        return (f"{s.largest:,}. With Qwen2.5-1M's chunk_size {cfg['chunk_size']:,} and local_size "
                f"{cfg['local_size']:,}, {length:,} tokens span {s.chunks} chunk{'s' if s.chunks != 1 else ''} of "
                f"{s.chunk_len:,}; plain RoPE would reach {s.plain_largest:,}.")

    st.code(views.QWEN_1M_LINES, language="text")
    st.caption("The config.json lines behind DCA in Qwen2.5-7B-Instruct-1M and Qwen2.5-14B-Instruct-1M (as public "
               "copies quote them). vLLM builds its dual-chunk rotary class whenever dual_chunk_attention_config is "
               "present, and Qwen's instructions select the matching attention backend with "
               "VLLM_ATTENTION_BACKEND=DUAL_CHUNK_FLASH_ATTN (on vLLM's V0 engine, VLLM_USE_V1=0), as they do for "
               "the 1M-token Qwen3-2507 models. chunk_size and local_size have no default in the rotary class; "
               "original_max_position_embeddings defaults to 0 (no attention scale).")
    question = (classroom.predict("dca_far", f"Qwen2.5-1M reads {length:,} tokens under DCA. What is the largest "
                                  "relative distance any attention score's rotation sees?", options,
                                  values.index(s.largest), reveal) if asked else contextlib.nullcontext())
    with question:
        st.dataframe({"kind of score": [views.KIND_WORDS[k] for k in s.pairs_by_kind],
                      "scores": [f"{v:,}" for v in s.pairs_by_kind.values()],
                      "largest distance": [f"{s.largest_by_kind[k]:,}" for k in s.pairs_by_kind]},
                     hide_index=True, width="content")
        notice(f"Every score stays within chunk_size = {cfg['chunk_size']:,}. vLLM also multiplies the keys and "
               f"the softmax scale by max(0.1·ln(n / original_max_position_embeddings) + 1, 1) = "
               f"{s.scaling_factor:.4f} at n = {length:,}, so the logits grow by its square, "
               f"{s.scaling_factor ** 2:.4f}.")
        formula(r"s = \max\!\left(0.1\,\ln\frac{$n}{$o} + 1,\ 1\right) = $s", n=length,
                o=cfg["original_max_position_embeddings"], s=s.scaling_factor)
    call = classroom.call("dual_chunk_summary", length, cfg["chunk_size"], cfg["local_size"],
                          cfg["original_max_position_embeddings"])
    classroom.snippet(f"s = {call}", "print(s.largest, s.largest_by_kind, s.pairs_by_kind, s.scaling_factor)")


TABS = [("Distance grid", grid_tab), ("At a million tokens", length_tab)]


@st.fragment
def lesson():
    page = stage(more_label=None)
    with guard():
        page.walk(TABS, page)


lesson()
why(WHY)
source(dual_chunk_positions, dual_chunk_grid, dual_chunk_summary)
