import streamlit as st

from page_kit import (
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    hero,
    notice,
    see_also,
    show,
    source,
    stage,
    why,
)
from posenc_core.attention_bias import shaw_example, shaw_scores
from posenc_core.encoders import xl_distance_bias, xl_example, xl_relative_sinusoid, xl_strongest_score, xl_terms

TERMS = {"a": "(a) content q·k", "b": "(b) q·W_R R", "c": "(c) global u·k", "d": "(d) global v·W_R R"}


@st.cache_data(max_entries=32, show_spinner=False)
def terms(n: int, d_model: int, d_head: int, seed: int):
    return xl_terms(xl_example(n, d_model, d_head, seed))


@st.cache_data(max_entries=32, show_spinner=False)
def shaw_relative(n: int, d_head: int, clip: int, seed: int):
    e = shaw_example(n, d_head, clip, seed)
    return shaw_scores(e.q, e.k, e.a_k, clip).relative


header("Transformer-XL / XLNet relative attention",
       "Replace the key's absolute position by a fixed sinusoid of the distance, R_{i−j}, and the query's by two "
       "learned vectors u and v: the score splits into four terms, two of which ignore the query.")
WHY = ("Transformer-XL (Dai et al., 2019) reads a long text segment by segment and reuses the previous segment's "
       "hidden states as memory. Absolute positions break there: position 3 of this segment and position 3 of the "
       "last would get the same code. So it expands the absolute score (E_i + U_i)ᵀW_qᵀW_k(E_j + U_j) and makes "
       "every position relative: the key's U_j becomes the sinusoid R_{i−j} with its own projection W_R, and "
       "the query's U_i, which a relative score cannot keep, becomes two learned vectors shared by every query, "
       "u next to the key's content and v next to the key's position. XLNet kept the same attention (its "
       "`r_w_bias` is u, `r_r_bias` is v). It is the step between Shaw, whose learned vectors depend on the query "
       "and stop at ±k, and T5, which keeps only a learned number per distance bucket, term (d) on its own.")


def view(args) -> dict:
    """The figures' view by URL key: a hero figure builds its frames from it."""
    n, d_model, d_head, seed = args
    return {"n": n, "dm": d_model, "dh": d_head, "seed": seed}


def terms_chart(n: int, dm: int, dh: int, seed: int):
    t = terms(n, dm, dh, seed)
    return figures.small_multiples(
        [getattr(t, k) for k in TERMS] + [t.total], [*TERMS.values(), "score: the sum"], cols=3, cell_px=220,
        title="Four terms of every score (random weights)", value_name="score",
        name="xl_terms",
        alt=f"Five {n} x {n} heatmaps on one colour scale: content, content-position, a global content term that "
            "repeats down each column, a global position term constant along each diagonal, and their sum.")


def terms_tab(args, t, i: int) -> None:
    show(hero(terms_chart, **view(args)))
    classroom.snippet(f"t = pc.encoders.xl_terms({classroom.call('xl_example', *args)})",
                      "t.a, t.b, t.c, t.d, t.total  # (n, n) each: the five maps")
    top = xl_strongest_score(t, i)  # query i's largest score, term by term
    formula(r"A_{$i,$j} = \underbrace{$a}_{q\cdot k} + \underbrace{$b}_{q\cdot W_R R_{$o}} + "
            r"\underbrace{$c}_{u\cdot k} + \underbrace{$d}_{v\cdot W_R R_{$o}}",
            i=i, j=top.j, o=top.offset, a=top.a, b=top.b, c=top.c, d=top.d)
    formula(r"A_{$i,$j} = $s\quad\text{(query $i's largest score)}", i=i, j=top.j, s=top.total)
    notice("(c) depends only on the key: a learned 'how much does this word matter to anyone'. (d) depends only on "
           "i − j: a bias per distance, computed from a sinusoid instead of looked up. XLNet's code forms "
           "(a) + (c) as (q + u)·k and (b) + (d) as (q + v)·W_R R, on a table of every offset shifted into place.")


def bias_chart(n: int, dm: int, dh: int, seed: int):
    bias = xl_distance_bias(terms(n, dm, dh, seed))
    return figures.lines(bias.offset, {"(d) v·W_R R_{i−j}": bias.bias}, markers=True,
                         title="Term (d) against the offset: one number per distance", x_title="i − j",
                         y_title="score", name="xl_bias",
                         alt=f"Term (d) for offsets {int(bias.offset[0])} to {int(bias.offset[-1])}: a "
                             "smooth curve, different on the two sides because the sine part of R changes sign.")


def bias_tab(args, t, i: int) -> None:
    bias = xl_distance_bias(t)

    def reveal() -> str:
        return (f"Only on i − j: along every diagonal of map (d) the values differ by at most {bias.spread:.2g}. "
                "v is the same for every query, and R_{i−j} the same for every pair at that distance: a relative "
                "bias, as T5's, but from a fixed sinusoid through a learned projection instead of a learned table.")

    with classroom.predict("xl_d", "Term (d) = v·W_R R_{i−j}. Which of these does it change with?",
                           ["the query's word", "the key's word", "only the distance i − j", "the absolute position"],
                           2, reveal):
        show(hero(bias_chart, **view(args)))
        classroom.snippet(f"t = pc.encoders.xl_terms({classroom.call('xl_example', *args)})",
                          "bias = pc.encoders.xl_distance_bias(t)  # bias.offset, bias.bias: the curve")


def shaw_chart(i: int, k: int, n: int, dm: int, dh: int, seed: int):
    i = min(i, n - 1)  # a frame for fewer tokens: the query slider moves into the new range, as on the page
    shaw, t = shaw_relative(n, dh, k, seed), terms(n, dm, dh, seed)
    return figures.lines(list(range(n)), {"Shaw: q·aᴷ_clip(j−i)": shaw[i], "XL (b): q·W_R R_{i−j}": t.b[i],
                                          "XL (d): v·W_R R_{i−j}": t.d[i]}, markers=True,
                         title=f"Query {i}: position terms, Shaw (±{k}) and XL",
                         x_title="key j", y_title="score", name="xl_shaw", vlines=[(i, "query")],
                         alt=f"Three curves over the keys of query {i}: Shaw's relative term goes flat beyond ±{k} "
                             "of the query; XL's two position terms keep changing with distance.")


def shaw_tab(args, t, i: int, clip: int) -> None:
    n, _, d_head, seed = args
    show(hero(shaw_chart, i=i, k=clip, **view(args)))
    classroom.snippet(f"e = {classroom.call('shaw_example', n, d_head, clip, seed)}",
                      f"shaw = pc.attention_bias.shaw_scores(e.q, e.k, e.a_k, {clip}).relative[{i}]",
                      f"t = pc.encoders.xl_terms({classroom.call('xl_example', *args)})",
                      f"t.b[{i}], t.d[{i}]")
    st.markdown(
        "| | Shaw et al. (2018) | Transformer-XL / XLNet (2019) | T5 (2020) |\n|---|---|---|---|\n"
        "| position enters as | a learned vector per clipped distance, added to the key (and value) | a fixed "
        "sinusoid R_{i−j} through a learned W_R | a learned scalar per log bucket |\n"
        "| depends on the query | yes | yes, term (b); not term (d) | no |\n"
        "| far distances | one vector for all beyond ±k | every distance its own R | one bucket beyond max_distance |\n"
        "| global biases | none | u (content), v (position) | the bucket scalar is one |\n"
        "| value side | yes, aⱽ | no | no |")
    notice("Shaw's relative term is flat once |j − i| passes the clip; Transformer-XL's keeps varying because R is a "
           "sinusoid of the exact distance, so it can be used on any length and with memory from earlier segments. "
           "T5 later dropped the query from the picture altogether: only a (d)-like bias per bucket.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        n = controls.slider("Tokens", "n", 4, 32, 12, step=2)
        i = controls.slider("Query i", "i", 0, n - 1, min(6, n - 1))
        clip = controls.slider("Shaw's clip k", "k", 1, 16, 3, help="Used by the comparison with Shaw.")
    with page.more:
        d_model = controls.select_slider("d_model", "dm", [8, 16, 32, 64], 16, help="Width of R and of the states.")
        d_head = controls.select_slider("d_head", "dh", [4, 8, 16, 32], 8)
        seed = int(controls.number("Seed", "seed", 0, 9999, 0, step=1, help="Draws the states, weights, u and v."))
    args = (n, d_model, d_head, seed)
    tab_terms, tab_bias, tab_shaw = page.sections(["Four terms", "Term (d) is a distance bias", "Compared with Shaw"])
    with guard():
        t = terms(*args)
        for tab, view in ((tab_terms, terms_tab), (tab_bias, bias_tab)):
            if tab.open:
                with tab:
                    view(args, t, i)
        if tab_shaw.open:
            with tab_shaw:
                shaw_tab(args, t, i, clip)


lesson()
why(WHY)
see_also("shaw", "t5", "deberta")
source(xl_relative_sinusoid, xl_terms, xl_distance_bias)
