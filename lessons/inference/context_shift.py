import streamlit as st

from lessons.inference import context_shift_views as views
from page_kit import classroom, controls, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.lesson import folded
from posenc_core.inference import (
    KSHIFT_DTYPES,
    KSHIFT_HEADS,
    context_shift_plan,
    kshift,
    kshift_error_curve,
    kshift_scores,
)

header("Context shift",
       "When a chat fills the context, llama.cpp keeps the first n_keep tokens, drops the next n_discard and turns "
       "every cached key after them back by n_discard positions: its K-shift.")
WHY = (
    "Keys sit in the cache already rotated to their positions, so when llama.cpp makes room it cannot just renumber "
    "them: it rotates each surviving key back by n_discard positions. A rotation by a and then by b is a rotation "
    "by a + b, so in exact arithmetic the shifted key is the key the model would have computed at its new place, "
    "and every pair of shifted tokens keeps its offset. Only the first kept tokens (the system prompt, the sink) "
    "come n_discard positions nearer to everything after them. What exact arithmetic hides: the cache holds float16 "
    "keys, and each shift rounds them once more.")
LLAMA_CPP = """
**What llama.cpp runs** (ggml-org/llama.cpp, its source as read on 2026-11-29):

- `tools/server/server-context.cpp`, `update_slots`: with `--context-shift` (off by default: `ctx_shift = false`
  in `common/common.h`), once `n_tokens + 1` reaches `n_ctx`, `n_keep` is the request's value (-1: the whole
  prompt; +1 for a BOS token; at most `n_ctx - 4`),
  `n_left = n_tokens - n_keep` and `n_discard` is the request's value or `n_left / 2` (integer division).
  Then `llama_memory_seq_rm(n_keep, n_keep + n_discard)` and
  `llama_memory_seq_add(n_keep + n_discard, n_tokens, -n_discard)`.
- `llama_kv_cells::pos_add` only adds the delta to each cell's position and to its pending `shift`; at the next
  decode `llama_kv_cache::build_graph_shift` calls `build_rope_shift` on the first `n_rot` dimensions of every
  layer's K cache: `ggml_rope_ext_inplace` with the positions set to the shifts, the model's base, scaling and rope
  type (M-RoPE is rotated as NeoX). A quantized cache (`q8_0`, …) is cast to f32, rotated and copied back.
- ggml's CPU kernel (`ggml/src/ggml-cpu/ops.cpp`, `ggml_compute_forward_rope_flt`) accepts F32 and F16 only: it
  reads each pair into float32, rotates it with `cosf`/`sinf` of `delta · theta_scale^i` (`theta_scale =
  powf(base, -2/n_dims)`, the power built by one float32 product per pair) and writes the result back in the
  cache's type. The K cache is f16 unless `--cache-type-k` says otherwise.

**Where this page, papers and a naive account differ.** "Rotations compose, so the shift is exact" holds in
exact arithmetic only: every shift rounds the f16 keys again (tab 2). StreamingLLM (Xiao et al., 2023) caches
keys *before* the rotation and rotates them at each step instead, so nothing accumulates. llama.cpp runs Llama
GGUFs with adjacent pairs (`NORM`) on Q/K rows permuted at conversion; this page pairs (i, i + d/2) as
transformers does: the same rotation up to a fixed permutation, the same error. bfloat16 is not among the CPU
kernel's types: its curve is what the same rule gives a cache that holds bfloat16 keys. The angles, cos and sin
here are ggml's to the bit: this machine's C library's `powf`, `cosf` and `sinf` are called as the kernel calls
them (numpy's float32 power is another implementation and, for some heads, one unit in the last place off, which
every shift repeats), and each product and sum is rounded on its own, as a build without fused multiply-add
rounds it. No YaRN scaling is shown.
"""


def head_text(model: str) -> str:
    head = KSHIFT_HEADS[model]
    return f"{head.name} (d = {head.head_dim}, base {head.base:,.0f})"


def one_shift_tab(page, n, keep, discard, model, rule):
    p = views.plan(n, keep, discard)
    show(hero(views.strip_chart, n=n, keep=keep, discard=discard))
    classroom.snippet(f"plan = {classroom.call('context_shift_plan', n, keep, discard)}",
                      "plan.old, plan.new  # (n,) positions before and after; NaN: dropped")
    first = "kept token 0" if p.n_keep else f"token {p.n_discard} (the oldest that stays, shifted)"
    change = p.offset_change
    options = ["it stays the same", f"it shrinks by {p.n_discard:,}", f"it grows by {p.n_discard:,}",
               "it depends on the base"]

    def reveal() -> str:
        return (f"The offset changes by {change:+,}: token {n - 1} moves from {n - 1:,} to {n - 1 - p.n_discard:,} "
                + ("while token 0 stays at 0. Every pair of shifted tokens keeps its offset; only the kept ones "
                   "come nearer." if p.n_keep else "and so does every token that stays: no offset changes."))

    with classroom.predict("cs_offset", f"After the shift, what happens to the distance between {first} and the "
                           f"newest token ({n - 1:,})?", options, 0 if change == 0 else 1, reveal):
        show(views.offsets_chart(n, keep, discard))
    head = KSHIFT_HEADS[model]
    turn = views.shift_angles(p.n_discard, model, rule)
    formula(r"\begin{gathered}k_{p-n_d} = R(-n_d\,\theta_i)\,k_p,\quad n_d = $d\\ \text{pair } 0:\ $a\ \text{rad},"
            r"\quad \text{pair } $i:\ $b\ \text{rad}\end{gathered}", d=p.n_discard, a=float(turn[0]),
            i=head.head_dim // 2 - 1, b=float(turn[-1]))
    notice(f"{p.n_keep} kept, {p.n_discard:,} dropped, {n - p.n_keep - p.n_discard:,} moved back; the "
           f"next token goes to position {p.next_position:,}. At this rule the newest key lives through "
           f"{p.survived:,} shift{'s' if p.survived != 1 else ''} before it is dropped in turn"
           + (" (the default drops half of what follows the kept tokens each time)." if p.default else "."))
    with folded("What llama.cpp runs, and where accounts differ", "cs_llama_cpp", icon=":material/menu_book:") as o:
        if o:
            st.markdown(LLAMA_CPP)


def many_shifts_tab(page, n, keep, discard, model, rule):
    p = views.plan(n, keep, discard)
    c = views.curves(model, p.n_discard, rule)
    f16 = c["float16"]
    ratio = float(f16.key_error[-1] / f16.fresh_key_error[-1])
    options = ["the same: rotations compose exactly", "within 3× of it", "3× to 30× larger", "more than 30× larger"]

    def reveal() -> str:
        return (f"After {views.SHIFTS:,} shifts of {p.n_discard:,} the float16 keys are {f16.key_error[-1]:.2e} "
                f"from the exact ones (relative RMS), {ratio:.1f}× the {f16.fresh_key_error[-1]:.2e} of a key "
                "computed fresh there: one rounding per shift, and they do not cancel.")

    st.markdown(f"{views.CURVE_KEYS} keys of {head_text(model)} are rotated to their positions in float32 and stored "
                f"in each type, then shifted back by n_discard = {p.n_discard:,} again and again, as a long chat "
                "would: each shift reads them into float32, rotates them and rounds them back.")
    with classroom.predict("cs_many", f"{views.SHIFTS:,} shifts of a float16 cache later: how far are the shifted "
                           "keys from the exact ones, compared with keys computed fresh at the same positions?",
                           options, 0 if ratio < 1.01 else 1 if ratio < 3 else 2 if ratio < 30 else 3, reveal):
        many_shifts_answer(p, c, model, rule)


def many_shifts_answer(p, c, model: str, rule: str) -> None:
    f16, head, shifts, keys = c["float16"], KSHIFT_HEADS[model], views.SHIFTS, views.CURVE_KEYS
    show(views.error_chart(c, "key", p.survived, f"Keys: {head_text(model)}, shifts of {p.n_discard:,}",
                           "relative error of the keys", "context_shift_key_error"))
    show(views.error_chart(c, "score", p.survived, "Scores q·k of the next token",
                           "relative error of the scores", "context_shift_score_error"))
    classroom.snippet(f"curve = {{d: pc.inference.kshift_error_curve({head.head_dim}, {head.base!r}, {p.n_discard}, "
                      f"{shifts}, d, n_keys={keys}, rule={rule!r})\n         for d in "
                      f"{list(KSHIFT_DTYPES)!r}}}", "curve['float16'].key_error  # (k,) at curve[d].shifts")
    formula(r"\begin{gathered}e = \frac{\lVert \tilde k - k^{\star}\rVert}{\lVert k^{\star}\rVert}\\"
            r"\text{float16 after 1 and }$n\text{ shifts: } $a,\ $b\end{gathered}", n=shifts,
            a=float(f16.key_error[0]), b=float(f16.key_error[-1]))
    at = {d: float(v.key_error[-1]) for d, v in c.items()}
    fresh = {d: float(v.fresh_key_error[-1]) for d, v in c.items()}
    lives = f"{p.survived:,} shift{'s' if p.survived != 1 else ''}" + (
        " (the dotted line)" if p.survived <= shifts else "")
    notice(f"{keys} keys start at positions {f16.first_position:,}+ and end at 1 to {keys}. After {shifts:,} "
           f"shifts: float32 {at['float32']:.1e}, float16 {at['float16']:.1e}, bfloat16 {at['bfloat16']:.1e} (a "
           f"key computed fresh: {fresh['float32']:.1e}, {fresh['float16']:.1e}, {fresh['bfloat16']:.1e}). At these "
           f"settings a key lives through {lives}, so only a small n_discard lets the error build up. float32's "
           "first point is the float32 angle error the key got at its first, larger position: the engine's own angles "
           "carry an error that grows with the position, and the shifts move it back with the key.")


def scores_tab(page, n, keep, discard, model, rule):
    with page.side:
        dtype = controls.choice("Cache type", "dtype", list(KSHIFT_DTYPES), "float16",
                                help="llama.cpp's K cache is f16 unless --cache-type-k says otherwise.")
    s = views.scores(n, keep, discard, model, dtype, rule)
    show(views.scores_chart(s))
    show(views.differences_chart(s, dtype))
    head = KSHIFT_HEADS[model]
    classroom.snippet(f"s = pc.inference.kshift_scores({n}, {keep}, {discard}, {head.head_dim}, {head.base!r}, "
                      f"{dtype!r}, "
                      f"rule={rule!r})", "s.no_shift, s.exact, s.shifted  # (m,) one per key that stays")
    kept = s.status == "kept"
    moved = float(abs(s.moved[kept]).max()) if kept.any() else 0.0
    notice(f"Against the shifted keys the scores are those of a context with room to spare, up to the {dtype} "
           f"rounding (largest {abs(s.rounding).max():.1e}). The {int(kept.sum())} kept keys are "
           f"{s.plan.n_discard:,} positions nearer to the query, and their scores change by up to {moved:.2f}: "
           "the shift is not invisible to the model, it moves what it sees of the first tokens.")
    formula(r"s_j = \frac{q_{m}\cdot k_j}{\sqrt{d}},\quad m = $m", m=s.plan.next_position)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("One shift", one_shift_tab),
    ("Error after many shifts", many_shifts_tab),
    ("What the model sees", scores_tab),
]


@st.fragment
def lesson():
    page = stage()
    with page.side:
        n = controls.select_slider("Tokens in the cache", "n", views.TOKENS, 64,
                                   help="n_tokens when the shift runs (the server shifts once n_tokens + 1 = n_ctx).")
        keep = controls.slider("n_keep", "keep", 0, n - 2, min(4, n - 2),
                               help="The first tokens stay where they are (a system prompt, a BOS token).")
        discard = controls.slider("n_discard (0: default)", "discard", 0, n - 1 - keep, 0,
                                  help="Tokens dropped after the kept ones; 0 is llama.cpp's default, "
                                       "(n_tokens - n_keep) / 2.")
        model = controls.select("Attention head", "model", list(KSHIFT_HEADS), 0,
                                format_func=lambda m: KSHIFT_HEADS[m].name,
                                help="The head size d and RoPE base of each model's config.json: "
                                     + "; ".join(head_text(m) for m in KSHIFT_HEADS) + ".")
    with page.more:
        exact = controls.toggle("Angles as transformers forms them", "hf_angles",
                                help="Off: delta · theta_scale^i as ggml builds it. On: delta · inv_freq.")
    with guard():
        page.walk(TABS, page, n, keep, discard, model, views.rule_name(exact))


lesson()
why(WHY)
source(context_shift_plan, kshift, kshift_error_curve, kshift_scores)
