import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.real_models.encoder_views import heads, heads_panels, labels, order_code, order_experiment, past_table
from lessons.real_models.real_views import models_ready
from page_kit import classroom, controls, figures, formula, guard, header, notice, show, source, stage, why

real = pc.real_models
SENTENCES = ["the dog bit the man", "my kid likes the movie", "she gave him the book before he left",
             "the cat sat on the mat because it was warm"]


header("Positions in a real encoder (MiniLM)",
       "MiniLM reads your sentence and its shuffle, with and without its 512 learned position rows.")
WHY = (
    "all-MiniLM-L6-v2 is a 6-layer BERT that turns a sentence into one 384-number vector (the mean of its "
    "token vectors, normalised), used for search and clustering. Its only sense of order is a learned table of "
    "512 position rows added to the word vectors. Here the real model runs on your sentence, with that table "
    "and with its rows removed, so you can measure what the positions do."
)


def order_tab(page, text: str, seed: int):
    r = order_experiment(text, seed)
    cosine, change = r.cosine[False], r.max_abs_diff[False]
    show(figures.lines(np.arange(384), {"with position rows": r.shuffle_change[True]},
                       title="Shuffled minus typed embedding, with the trained position rows",
                       x_title="embedding dimension", y_title="difference", name="encoder_shuffle_rows",
                       alt="The change of each of the 384 embedding numbers when the words are shuffled, with the "
                           f"trained position rows: up to {r.max_abs_diff[True]:.3f} (cosine "
                           f"{r.cosine[True]:.4f})."))
    st.markdown(f"**As typed:** `{' '.join(r.tokens)}`  \n**Shuffled:** `{' '.join(r.shuffled_tokens)}`")

    def unordered() -> str:
        return (f"Without the rows the two embeddings differ by at most {change:.1e} (cosine {cosine:.10f}): "
                f"float32 rounding. With the rows the cosine is {r.cosine[True]:.4f}. Attention itself does not "
                "see order; a common misconception is that it does.")

    with classroom.predict("encoder_no_rows", "Remove the 512 learned position rows and shuffle the words. How do "
                           "the sentence embeddings of the typed and the shuffled sentence compare?",
                           ["identical, up to float rounding", "close, but clearly different",
                            "very different: the words now sit elsewhere"],
                           0 if change < 1e-4 else 1 if cosine > 0.9 else 2, unordered):
        order_answer(r, text, seed)
    source(real.encoder_order_experiment)


def order_answer(r: real.EncoderOrderExperiment, text: str, seed: int):
    """The cosines and the per-dimension change that answer the shuffle question."""
    m1, m2 = st.columns(2)
    m1.metric("Cosine, typed vs shuffled, with position rows", f"{r.cosine[True]:.6f}")
    m2.metric("Cosine, typed vs shuffled, rows removed", f"{r.cosine[False]:.12f}")
    dims = np.arange(384)
    diff = {"with position rows": r.shuffle_change[True], "position rows removed": r.shuffle_change[False]}
    show(figures.lines(dims, diff, title="Shuffled minus typed, with the rows and with the rows removed",
                       x_title="embedding dimension", y_title="difference", name="encoder_shuffle_diff",
                       legend_right=True,
                       alt="The change of each of the 384 embedding numbers when the words are shuffled: large "
                           f"with the position rows (largest {r.max_abs_diff[True]:.3f}), a flat zero line "
                           f"without them (largest {r.max_abs_diff[False]:.1e})."))
    order_code(text, seed, "# (384,) each: shuffled minus typed embedding, the two lines",
               "with_rows, without = r.shuffle_change[True], r.shuffle_change[False]",
               "print(r.cosine)  # {True: cosine with the rows, False: without}")
    notice(f"With the trained rows, shuffling the words moves the embedding: cosine {r.cosine[True]:.4f}, largest "
           f"change {r.max_abs_diff[True]:.3f}. With the rows removed the model cannot tell the orders apart: "
           f"the largest change is {r.max_abs_diff[False]:.1e}, float32 rounding (the sums run in another "
           "order), and every token's final vector is the same vector moved to its new place (largest "
           f"difference {r.hidden_diff[False]:.1e}). Everything BERT knows about order comes from those rows.")
    formula(r"e = \frac{\bar h}{\lVert \bar h\rVert},\ \bar h = \frac1n\sum_{i=1}^{n} h_i")
    formula(r"\cos(e, e_{\text{shuffled}}) = $a\ \text{(rows)},\quad $b\ \text{(no rows)}",
            a=r.cosine[True], b=r.cosine[False], digits=10)


def maps_tab(page, text: str, seed: int):
    r = order_experiment(text, seed)
    with page.side:
        layer = controls.slider("Layer", "layer", 1, 6, 1)
        head = controls.slider("Head", "head", 1, 12, 3)
    names = labels(r.tokens)
    grids = [r.attention[True][layer - 1, head - 1], r.attention[False][layer - 1, head - 1]]
    prev = [real.previous_token_weight(g) for g in grids]
    show(figures.small_multiples(grids, ["trained position rows", "position rows removed"], cols=2,
                                 title=f"Layer {layer}, head {head}: attention weights", value_name="weight",
                                 x_title="key token", y_title="query token", name="encoder_attention",
                                 alt=f"Attention of layer {layer} head {head} over the sentence's {len(names)} "
                                     "tokens, with and without the position rows, on one colour scale; mean weight "
                                     f"on the previous token {prev[0]:.3f} and {prev[1]:.3f}."))
    order_code(text, seed, f"# ({len(names)}, {len(names)}) attention weights, query rows and key columns",
               f"with_rows = r.attention[True][{layer - 1}, {head - 1}]",
               f"without = r.attention[False][{layer - 1}, {head - 1}]")
    st.caption("Tokens, top to bottom and left to right: " + ", ".join(names))
    top = heads().top["previous"]
    notice(f"Mean weight on the previous token in this head: {prev[0]:.3f} with the rows, {prev[1]:.3f} without "
           "(a diagonal just below the main one is a head that reads its left neighbour). Without rows, the same "
           "word at two places gets the same row and column, so a head can only follow content. Measured on the "
           f"shipped text, the clearest previous-token head is layer {top[0]}, head {top[1]} ({top[2]:.3f}): see "
           "the next tab.")
    formula(r"A = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{32}}\right)")
    formula(r"\overline{A_{i,i-1}} = $p\ \text{(rows)},\ $q\ \text{(no rows)}", p=prev[0], q=prev[1])


def heads_tab(page, text: str, seed: int):
    h = heads()
    layer, head, kept = h.top["previous"]
    removed = float(h.previous[False][layer - 1, head - 1])

    def switched_off() -> str:
        return (f"Layer {layer}, head {head} puts {kept:.3f} of its weight on the previous token with the rows and "
                f"{removed:.3f} without them (an even spread: {h.uniform:.4f}); the bottom-left panel shows it.")

    with classroom.predict("encoder_prev_head", f"Layer {layer}, head {head} is MiniLM's clearest previous-token "
                           f"head ({kept:.3f} of its weight on the word piece just before). Remove the position "
                           "rows: its weight on the previous token...",
                           ["keeps at least half of it: the head reads the words", "falls below half of it",
                            "grows"], 2 if removed > kept else 0 if removed >= kept / 2 else 1, switched_off):
        heads_panels(h)
    source(real.positional_heads)


def past_tab(page, text: str, seed: int):
    p = past_table()
    st.markdown(f"**{p.tokens} word pieces through the model** (transformers' own error): `{p.error}`"
                if p.error else f"{p.tokens} word pieces ran without an error.")
    series = {"cosine of the two texts' embeddings": np.array([p.st_cosine, p.model_cosine])}
    show(figures.bars(["sentence-transformers (cut at 256)", "the model reading up to 512"], series,
                      title=f"Two texts that share their first {p.shared_pieces} word pieces, then differ",
                      x_title="how the text is read", y_title="cosine", name="encoder_past",
                      alt=f"Cosine similarity of the two texts' embeddings: {p.st_cosine:.4f} when cut at "
                          f"{p.st_length} word pieces, {p.model_cosine:.4f} when the model reads up to its "
                          f"{p.rows} rows."))
    classroom.snippet("# MiniLM and sentence-transformers on two texts from the shipped text",
                      "p = pc.real_models.encoder_past_table()",
                      "print(p.st_cosine, p.model_cosine)  # the two bars")
    notice(f"The table has {p.rows} rows, so position {p.rows} has no vector and the forward fails. "
           f"sentence-transformers never gets there: it cuts every input at {p.st_length} word pieces. Two texts "
           f"sharing their first {p.shared_pieces} pieces then get the same embedding (cosine "
           f"{p.st_cosine:.8f}) however different their endings; read up to 512 pieces "
           f"({p.pieces[0]} and {p.pieces[1]}) they differ (cosine {p.model_cosine:.4f}).")
    formula(r"\text{rows} = $r,\quad \text{cut} = $c", r=p.rows, c=p.st_length)
    formula(r"\cos_{\text{cut}} = $a,\quad \cos_{512} = $b", a=p.st_cosine, b=p.model_cosine, digits=8)
    source(real.encoder_past_table)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Shuffle the words", order_tab),
    ("Attention maps", maps_tab),
    ("Positional heads", heads_tab),
    ("Past row 512", past_tab),
]


@st.fragment
def lesson():
    page = stage()
    with page.side:
        picked = controls.select("Pick a sentence", "pick", SENTENCES)
        typed = controls.text("…or type your own", "text", "", max_chars=real.MAX_ENCODER_CHARS,
                              help="Leave empty to use the sentence picked above.")
    with page.more:
        seed = controls.number("Shuffle seed", "seed", 0, 999, 0, help="Which shuffle of the words.")
    text = typed.strip() or picked
    with page.main:
        if not models_ready(real.MINILM_NAME):
            return
    with guard():
        page.walk(TABS, page, text, int(seed))


lesson()
why(WHY)
