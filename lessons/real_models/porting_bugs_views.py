"""The cards of the lesson *Porting bugs*: what each bug is, what its users saw, where it was reported, the correct
and the wrong code, and the one-line check that catches it (tests/test_porting_bugs.py runs each ``check`` against
both of the bug's functions in ``posenc_core.real_models.PORTING_BUGS``).

No math here: the numbers come from ``posenc_core.real_models`` (``porting_runs.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import posenc_core as pc

real = pc.real_models


@dataclass(frozen=True)
class Card:
    title: str  # the bug in a few words
    short: str  # the select box's label: fits a phone's sidebar
    symptom: str  # what the people who hit it saw, in the reports' words
    links: tuple[tuple[str, str], ...]  # (label, address) of the public reports and fixes
    correct: str  # short code, the right way
    wrong: str  # the same code with the bug
    check: str  # the one-line test: run with ``fn`` the implementation under test
    setup: str  # what was measured on SmolLM2


CARDS: dict[str, Card] = {
    "permute": Card(
        "Half-split vs interleaved pairs (checkpoint conversion)", "Unpermuted q/k rows",
        "The model loads and starts fluently, then \"starts degenerating and printing gibberish after ~20 or more "
        "tokens\" (llama2.c); GGUF files that \"convert and quantise fine, but always produce gibberish\" "
        "(llama.cpp, Llama 2 70B).",
        (("karpathy/llama2.c#286", "https://github.com/karpathy/llama2.c/pull/286"),
         ("huggingface/transformers#25199", "https://github.com/huggingface/transformers/issues/25199"),
         ("ggml-org/llama.cpp#2376", "https://github.com/ggml-org/llama.cpp/issues/2376"),
         ("jzhang38/TinyLlama#24", "https://github.com/jzhang38/TinyLlama/issues/24")),
        "w_q = permute(meta['wq'], n_heads)  # rows 2i, 2i+1 -> i, i + d/2\nq = rope_half(x @ w_q.T, pos)",
        "w_q = meta['wq']  # copied as stored: interleaved rows\nq = rope_half(x @ w_q.T, pos)",
        'assert np.allclose(scores(fn(w_meta, 1), "half"), scores(w_meta, "interleaved"))',
        "SmolLM2's W_q and W_k rows put back into Meta's interleaved order, then converted with and without the "
        "permutation, in every layer; rotated by SmolLM2's own half-split RoPE."),
    "p_rope": Card(
        "p-RoPE paired over the wrong half", "p-RoPE wrong half",
        "\"The frequencies are identical; only the dim pairing differs, so the result is silently wrong for "
        "partial-rotary models\" (found while porting Gemma 4's global layers).",
        (("apple/coreai-models#66", "https://github.com/apple/coreai-models/issues/66"),
         ("zml/zml#660", "https://github.com/zml/zml/pull/660")),
        "inv_freq = cat(inv_freq[:k], zeros(d // 2 - k))  # frozen pairs: 0\nq = rope_half(q, pos, inv_freq)"
        "  # pairs (i, i + d/2)",
        "q = cat(rope_half(q[..., :2 * k], pos, inv_freq[:k]), q[..., 2 * k:])  # pairs (i, i + k)",
        "assert np.allclose(fn(x, pos, p_inv)[:, frozen], x[:, frozen])",
        "SmolLM2 made a p-RoPE model: its 8 slowest pairs frozen (transformers' proportional rope, 24 of 32 pairs "
        "turning); both rotations use those 24 frequencies."),
    "bf16_inv_freq": Card(
        "Inverse frequencies in bfloat16", "bfloat16 inv_freq",
        "After casting the model to bfloat16, \"sin_cached and cos_cached tensors ... will be incorrect due to "
        "precision issues\", causing \"large model quality issues\" (Mistral, long inputs); training losses that "
        "drift from a float32-RoPE run.",
        (("huggingface/transformers#29496", "https://github.com/huggingface/transformers/issues/29496"),
         ("huggingface/transformers#29285", "https://github.com/huggingface/transformers/pull/29285"),
         ("EleutherAI/gpt-neox#1003", "https://github.com/EleutherAI/gpt-neox/issues/1003")),
        "inv_freq = 1.0 / base ** (arange(0, d, 2).float() / d)  # kept float32\nangles = pos.float()[:, None] "
        "* inv_freq",
        "model.to(torch.bfloat16)  # the inv_freq buffer is cast too\nangles = pos.float()[:, None] * "
        "inv_freq.float()  # already rounded",
        "assert np.abs(fn(64, 100000.0) - pc.base_inv_freq(100000.0, 64)).max() * 8191 < 0.01",
        "SmolLM2 with its 32 inverse frequencies rounded to bfloat16 (the angles still formed in float32)."),
    "left_pad": Card(
        "Position ids off by one under left padding", "Left pad, off by one",
        "The first token decoded after a right-aligned (left-padded) prompt of L tokens is placed at L + 1: a "
        "reader asked why the code adds step + 1 instead of step (openpi; the fix is one line). Nearby, one "
        "position tensor shared by a left-padded batch made \"sequences that require padding produce "
        "garbage/incorrect output\" (unsloth).",
        (("Physical-Intelligence/openpi#705", "https://github.com/Physical-Intelligence/openpi/issues/705"),
         ("Physical-Intelligence/openpi#707", "https://github.com/Physical-Intelligence/openpi/pull/707"),
         ("unslothai/unsloth#3699", "https://github.com/unslothai/unsloth/issues/3699")),
        "positions = mask.cumsum(-1) - 1  # the prompt's real tokens: 0 .. L - 1\nnext_pos = L + step",
        "next_pos = L + step + 1  # a gap of one before every decoded token",
        "assert (fn(mask, 0) == mask.sum(-1)).all()",
        "SmolLM2 on the same tokens: the first 32 are the prompt, their positions read from a left-padded mask (5 "
        "pads, which the mask keeps out of every score, so the run leaves them out), every later one a decoded "
        "token at its position or one further."),
    "partial_whole": Card(
        "Partial rotary applied to the whole head", "Whole-head partial",
        "\"RoPE was applied to every channel of the head instead of the leading quarter. Nothing raises and every "
        "shape stays valid, so the disagreement ... is silent\" (maxtext, two Qwen3.5 configs with "
        "partial_rotary_factor 0.25).",
        (("AI-Hypercomputer/maxtext#4616", "https://github.com/AI-Hypercomputer/maxtext/issues/4616"),
         ("AI-Hypercomputer/maxtext#4615", "https://github.com/AI-Hypercomputer/maxtext/pull/4615")),
        "r = int(head_dim * partial_rotary_factor)\nq = cat(rope_half(q[..., :r], pos, base ** (-arange(0, r, 2) "
        "/ r)), q[..., r:])",
        "q = rope_half(q, pos, base ** (-arange(0, head_dim, 2) / head_dim))  # the factor never read",
        "assert np.array_equal(fn(x, pos, 10000.0, 0.25)[:, 16:], x[:, 16:])",
        "The p-RoPE SmolLM2 of the card above laid out as a partial-rotary model (rotary_dim 48 of 64, base "
        "100,000^(48/64) ≈ 5,623: the same 24 frequencies, the frozen pairs' 16 dimensions moved to the end of each "
        "head, which leaves every score as it was); the bug turns all 64 dimensions."),
    "yarn_mscale": Card(
        "YaRN's attention factor dropped by a conversion", "YaRN factor dropped",
        "A Mistral-format checkpoint with YaRN's scale on was converted with it off, \"leading to poor performance "
        "for mid-long context\" (llama.cpp); in another engine, without the factor, \"repetitive/looping output\".",
        (("ggml-org/llama.cpp#22612", "https://github.com/ggml-org/llama.cpp/pull/22612"),
         ("guoqingbao/xinfer#329", "https://github.com/guoqingbao/xinfer/pull/329")),
        "cos = emb.cos() * attention_factor  # 0.1 ln s + 1\nsin = emb.sin() * attention_factor",
        "params = {'factor': s}  # attention_factor not carried over\ncos, sin = emb.cos(), emb.sin()  # x 1",
        "assert fn(yarn) == pytest.approx(0.1 * math.log(4.0) + 1)",
        "SmolLM2 with YaRN at s = 4 (transformers' yarn rope over its 8,192 positions), never fine-tuned for it; "
        "the bug sets the factor on cos and sin to 1."),
    "dynamic_cache": Card(
        "Dynamic NTK cached across its switch point", "Stale dynamic NTK",
        "\"Long context inference will impact short context inference\": the same prompt, asked before and after a "
        "long one, got different answers.",
        (("huggingface/transformers#25306", "https://github.com/huggingface/transformers/issues/25306"),
         ("huggingface/transformers#27226", "https://github.com/huggingface/transformers/issues/27226"),
         ("huggingface/transformers#32135", "https://github.com/huggingface/transformers/pull/32135")),
        "inv_freq = dynamic_inv_freq(seq_len)  # every call: the trained ones up to 8,192",
        "if seq_len > self.max_seq_len_cached:  # grows, never shrinks back\n    self.set_cos_sin_cache(seq_len)",
        "assert np.array_equal(fn(256, 16384, 64, 1e5, 2.0, 8192), fn(256, 0, 64, 1e5, 2.0, 8192))",
        "SmolLM2 with dynamic NTK at s = 2 (transformers' dynamic rope); the bug reads the stretch with the "
        "frequencies of a 16,384-token sequence read before it."),
}


def title(bug: str) -> str:
    return CARDS[bug].title


def short(bug: str) -> str:
    return CARDS[bug].short


def card(bug: str, s: real.BugSummary) -> None:
    """The bug's card: symptom, reports, the two snippets, what was measured, the test."""
    c = CARDS[bug]
    with st.container(border=True):
        st.markdown(f"**{c.title}**\n\n:material/report: **What users saw.** {c.symptom}")
        st.markdown("Reported: " + " · ".join(f"[{label}]({url})" for label, url in c.links))
        right, wrong = st.columns(2)
        with right:
            st.markdown(":material/check_circle: **Correct**")
            st.code(c.correct, language="python", wrap_lines=True)
        with wrong:
            st.markdown(":material/cancel: **With the bug**")
            st.code(c.wrong, language="python", wrap_lines=True)
        st.markdown(f":material/science: **Measured on SmolLM2-135M.** {c.setup} Mean loss over {s.tokens - 1:,} "
                    f"next tokens: {s.correct:.4f} nats correct, {s.buggy:.4f} with the bug ({s.change:+.4f} "
                    f"nats, perplexity x {s.ratio:.3f}); SmolLM2 as it is: {s.plain:.4f}.")
        st.markdown(":material/bug_report: **The one-line test that catches it** (it passes on the correct "
                    "function and fails on the buggy one, in `tests/test_porting_bugs.py`):")
        st.code(c.check, language="python", wrap_lines=True)
