import streamlit as st

import posenc_core as pc
from page_kit import classroom, controls, figures, formula, guard, header, notice, sections, show, source, why_views
from page_kit.code_lines import fold

DEFAULT_SENTENCE = "my kid likes the movie"
HOW = {"custom": "pick an order", "reverse": "reverse", "swap": "swap two", "shuffle": "shuffle"}


@st.cache_data(max_entries=64, show_spinner=False)
def experiment(text: str, dim: int, kind: str, seed: int, i: int, j: int, order: str, positions: bool,
               pooling: str):
    return pc.order_experiment(text, dim, kind, seed=seed, i=i, j=j, order=order, positions=positions,
                               pooling=pooling)


header(
    "Attention has no sense of order",
    "Self-attention lets every token look at every other token and mix in what it finds. Nothing in that "
    "computation says *where* a token sits: the scores compare contents only. So if you reorder the words, "
    "each word's output simply moves along with it, and anything that summarises the whole sequence cannot "
    "notice the change. Try it below with one attention layer and fixed random embeddings."
)


@st.fragment
def lesson():
    c1, c2, c3 = st.columns([4, 4, 2])
    with c1:
        text = controls.text("Sentence", "s", DEFAULT_SENTENCE, max_chars=300,
                             help="Words are split on spaces; each word gets a fixed random embedding seeded "
                                  "from its text, so the same word always gets the same vector.")
    with c2:
        kind = controls.choice("Reorder by", "how", list(HOW), "custom", format_func=HOW.get)
    with c3:
        positions = controls.toggle("Add positions", "pe", False,
                                    help="Add the sinusoidal row of each slot (0, 1, 2, ...) to the embedding "
                                         "of whatever word sits there.")

    with guard():
        tokens = pc.tokenize(text)
        n = len(tokens)
        seed, i, j, order = 0, 0, 1, ""
        r1, r2, r3 = st.columns([5, 2, 2])
        if kind == "shuffle":
            with r1:
                seed = controls.slider("Shuffle seed", "seed", 0, 99, 7)
        elif kind == "swap" and n >= 2:
            s1, s2 = r1.columns(2)
            with s1:
                i = controls.slider("Swap word", "i", 0, n - 1, 0)
            with s2:
                j = controls.slider("with word", "j", 0, n - 1, min(n - 1, 4))
        elif kind == "custom":
            with r1:
                default = [3, 4, 2, 0, 1] if n == 5 else list(range(n))[::-1]
                picked = controls.multiselect(
                    "New order (pick the words in the order you want; the rest follow)", "order", list(range(n)),
                    default, format_func=lambda k: f"{k}: {tokens[k]}")
                order = ",".join(str(k) for k in picked)
        elif kind == "swap":
            r1.caption("Swapping needs at least two words.")
        else:
            r1.caption("Read right to left: the last word comes first.")
        with r2:
            dim = controls.slider("Embedding width d", "d", 2, 64, 16, step=2)
        with r3:
            pooling = controls.choice("Pooling", "pool", list(pc.POOLINGS), "mean")

        result = experiment(text, dim, kind, seed, i, j, order, positions, pooling)
        before = " ".join(result["tokens"])
        after = " ".join(result["reordered"])
        st.markdown(f"**Original:** {before}  \n**Reordered:** {after}")

        tab_out, tab_pool, tab_weights, tab_image = sections(
            ["Outputs follow their tokens", "The pooled summary", "Attention weights", "Shuffle an image"])

        labels = [f"{k}: {w}" for k, w in enumerate(result["tokens"])]
        labels_re = [f"{k}: {w} (was {p})" for k, (w, p) in enumerate(zip(result["reordered"], result["perm"],
                                                                          strict=True))]

        call = classroom.call("order_experiment", text, dim, kind, seed=seed, i=i, j=j, order=order,
                              positions=positions, pooling=pooling)
        if tab_out.open:
            with tab_out:
                gap = result["equivariance_gap"]
                moved = gap < 1e-9  # float64 rounding: the rows are the same vectors in new slots

                def rows_reveal() -> str:
                    return (f"The largest |Attn(PX) − P·Attn(X)| is {gap:.1e}: " +
                            ("rounding, so every row on the right is a row from the left, moved with its word."
                             if moved else "with positions added, a word's output depends on its slot too."))

                classroom.predict("order_rows", "Reorder the words as above"
                                  + (" (positions are added)" if positions else "")
                                  + ". What happens to each word's output row?",
                                  ["it keeps its numbers and moves with the word", "it gets new numbers",
                                   "all rows become one average vector"], 0 if moved else 1, rows_reveal)
                left, right = st.columns(2)
                bound = float(max(abs(result["out"]).max(), abs(result["out_reordered"]).max()))
                with left:
                    show(figures.heatmap(
                        result["out"], y=labels, title="Outputs, original order", x_title="channel",
                        y_title="slot: word", value_name="output", zrange=(-bound, bound), signed=True,
                        height=340, name="order_outputs",
                        alt="Attention outputs for the original sentence, one row per word."))
                with right:
                    show(figures.heatmap(
                        result["out_reordered"], y=labels_re, title="Outputs, reordered", x_title="channel",
                        y_title="slot: word", value_name="output", zrange=(-bound, bound), signed=True,
                        height=340, name="order_outputs_reordered",
                        alt="Attention outputs for the reordered sentence: the same rows as before, moved."))
                classroom.snippet(fold(f"result = {call}", "dict of arrays"),
                                  "out, out_reordered = result['out'], result['out_reordered']",
                                  "# (n, d) each: the two heatmaps")
                formula(r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)\qquad \max\big|\mathrm{Attn}(PX) - "
                        r"P\,\mathrm{Attn}(X)\big| = $gap", gap=result["equivariance_gap"], digits=3)
                if positions:
                    notice("With positions added, the rows no longer just move: a word's output depends on the "
                           "slot it sits in, so the reordered outputs are new numbers. That difference is "
                           "exactly the information a model needs to tell the two sentences apart.")
                else:
                    notice("Each row on the right is a row from the left, moved to the word's new slot (read the "
                           "'was' labels). Attention is *permutation equivariant*: reorder the input and the "
                           "output is reordered the same way, and nothing else changes. The gap above is "
                           "float64 rounding, about 1e-16.")

        if tab_pool.open:
            with tab_pool:
                channels = list(range(dim))
                show(figures.bars(
                    channels, {"original": result["pooled"], "reordered": result["pooled_reordered"],
                               "difference": result["pooled"] - result["pooled_reordered"]},
                    title=f"{pooling} of the outputs, channel by channel", x_title="channel",
                    y_title=f"{pooling}-pooled output", name="order_pooled",
                    alt="Grouped bars of the pooled summary for both orders, and their difference."))
                classroom.snippet(fold(f"result = {call}", "dict of arrays"),
                                  "pooled, pooled_reordered = result['pooled'], result['pooled_reordered']",
                                  "# (d,) each: the bars")
                st.dataframe({"channel": channels[:8], "original": result["pooled"][:8],
                              "reordered": result["pooled_reordered"][:8],
                              "difference": (result["pooled"] - result["pooled_reordered"])[:8]},
                             hide_index=True, width="content",
                             column_config={c: st.column_config.NumberColumn(format="%.6f")
                                            for c in ("original", "reordered", "difference")})
                formula(r"\mathrm{$pool}\big(P\,\mathrm{Attn}(X)\big) = \mathrm{$pool}\big(\mathrm{Attn}(X)\big)"
                        r"\qquad \max|\Delta| = $gap", pool=pooling, gap=result["pooled_gap"], digits=3)
                if positions:
                    notice(f"With positions the two summaries differ (largest gap {result['pooled_gap']:.3f}): "
                           f"'{before}' and '{after}' finally get different representations.")
                else:
                    notice(f"The bars for '{before}' and '{after}' are the same height and the difference bars "
                           "are flat. A sum, a mean or a max does not care about the order of what it "
                           "summarises, so after one attention layer plus pooling the two sentences are the same "
                           "input. Switch on *Add positions* to break the tie.")

        if tab_weights.open:
            with tab_weights:
                left, right = st.columns(2)
                with left:
                    show(figures.heatmap(
                        result["weights"], x=labels, y=labels, title="Weights, original", x_title="key",
                        y_title="query", value_name="weight", zrange=(0, 1), height=360, name="order_weights",
                        alt="Attention weights of the original sentence."))
                with right:
                    show(figures.heatmap(
                        result["weights_reordered"], x=labels_re, y=labels_re, title="Weights, reordered",
                        x_title="key", y_title="query", value_name="weight", zrange=(0, 1), height=360,
                        name="order_weights_reordered",
                        alt="Attention weights of the reordered sentence: the same cells, rows and columns moved."))
                classroom.snippet(fold(f"result = {call}", "dict of arrays"),
                                  "weights, weights_reordered = result['weights'], result['weights_reordered']",
                                  "# (n, n) each: the two grids")
                formula(r"A' = P A P^\top,\quad A = \mathrm{softmax}\!\left(\frac{XW_Q (XW_K)^\top}{\sqrt{$d}}"
                        r"\right)", d=dim)
                notice("How much 'likes' attends to 'movie' is the same number in both grids; only its row and "
                       "column moved. The score of a pair depends on the two words, never on where they are."
                       + (" With positions on, the numbers themselves change." if positions else ""))

        if tab_image.open:
            with tab_image:
                why_views.shuffled_image_section(positions, pooling)


lesson()
source(pc.self_attention, pc.order_experiment, pc.patch_experiment)
