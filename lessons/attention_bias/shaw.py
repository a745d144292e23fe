import streamlit as st

from lessons.attention_bias import shaw_views as views
from page_kit import (
    N_,
    _,
    classroom,
    controls,
    formula,
    guard,
    header,
    hero,
    ngettext,
    notice,
    show,
    source,
    stage,
    why,
)
from posenc_core.attention_bias import (
    shaw_attention,
    shaw_clipped_distance,
    shaw_effective_keys,
    shaw_relative_index,
    shaw_scores,
)

header(_("Relative positions inside keys and values (Shaw et al.)"),
       _("One learned vector per relative distance, clipped at ±k, added inside attention: to the key when "
         "scoring, to the value when mixing."))
WHY = _("The first relative scheme (Shaw, Uszkoreit and Vaswani, 2018) learns one vector for each relative "
        "distance, clipped at ±k, and adds it inside attention: to the key when scoring, to the value when "
        "mixing. A pair of tokens three apart always gets the same extra vector, wherever it sits. Distances "
        "beyond k share the vector of k, so the table has only 2k + 1 rows, and the model works on any length.")


def index_tab(page, n: int, k: int, dim: int, seed: int) -> None:
    show(hero(views.index_chart, n=n, k=k))
    rows = views.example(n, dim, k, seed).a_k.shape[0]  # the key-side table, (2k + 1, d)

    def table_rows() -> str:
        return _("The table has {rows} rows for k = {k}, for {n} tokens or for a million: distances past ±{k} "
                 "reuse the rows of ±{k}, so the grid has at most {rows} distinct values.").format(rows=rows, k=k, n=n)

    with classroom.predict("shaw_rows", _("With clipping distance k = {k}, how many relative vectors does the "
                                          "model learn (per table)?").format(k=k),
                           [_("one per position of the input"), _("one per pair of tokens"),
                            _("2k + 1, whatever the input length"), _("one per distance in the input, 2n − 1")],
                           2, table_rows):
        classroom.snippet(f"grid = {classroom.call('shaw_clipped_distance', n, None, k)}  # ({n}, {n}) int64",
                          f"table = {classroom.call('shaw_example', n, dim, k, seed)}.a_k"
                          f"  # ({rows}, {dim}): the rows")
        notice(_("Only {rows} distinct values: distances −{k} … {k}. Every pair further apart than {k} falls into "
                 "one of the two flat corners and uses the same vector as distance ±{k}. Unlike T5's logarithmic "
                 "buckets, the clip is a hard wall: 'far' is one value.").format(rows=rows, k=k))
        formula(r"a^K_{ij} = w^K_{\mathrm{clip}(j-i,\,k)},\quad \mathrm{clip}(x, k) = \max(-k, \min(k, x))")
        formula(r"2k + 1 = $rows\ \text{rows of } d = $d", rows=rows, d=dim)


def scores_tab(page, n: int, k: int, dim: int, seed: int) -> None:
    with page.side:
        qi = controls.slider(_("Query i"), "qi", 0, n - 1, min(n - 1, 6))
        kj = controls.slider(_("Key j"), "kj", 0, n - 1, min(n - 1, 2))
    s = views.scores(n, dim, k, seed)
    far_keys = n - 1 - k  # keys 0 .. n-k-2 lie more than k before the last query

    def beyond_k() -> str:
        if far_keys <= 0:
            return _("With k = {k} and {n} tokens no pair is more than k apart, so every distance here has its "
                     "own table row; lower k to see the flat stretch.").format(k=k, n=n)
        row = s.relative[n - 1]  # (n,): the last query's relative term for every key
        return _("Constant: for the last query, keys 0 to {last} all use the row of distance −{k}, and their "
                 "relative term is {value:.4g} for every one of them (the flat left end of the bottom row of the "
                 "middle map).").format(last=far_keys - 1, k=k, value=row[0])

    with classroom.predict("shaw_flat", _("Along one row of the relative term, keys more than k = {k} positions "
                                          "away from the query: how does the term change from key to key?").format(k=k),
                           [_("it keeps falling with distance"), _("not at all: it is constant"),
                            _("it alternates in sign")],
                           1, beyond_k):
        show(hero(views.scores_chart, n=n, k=k, d=dim, seed=seed))
        classroom.snippet(f"e = {classroom.call('shaw_example', n, dim, k, seed)}  # seeded q, k, v, aᴷ, aⱽ",
                          f"s = pc.attention_bias.shaw_scores(e.q, e.k, e.a_k, {k})",
                          f"s.content, s.relative, s.total  # ({n}, {n}) each: the three maps")
        formula(r"e_{$i,$j} = \underbrace{\frac{q_{$i}\cdot k_{$j}}{\sqrt{$d}}}_{$c}"
                r" + \underbrace{\frac{q_{$i}\cdot a^K_{$r}}{\sqrt{$d}}}_{$rel} = $t",
                i=qi, j=kj, d=dim, r=int(views.clipped_grid(n, k)[qi, kj]), c=float(s.content[qi, kj]),
                rel=float(s.relative[qi, kj]), t=float(s.total[qi, kj]))
        notice(_("The relative term depends on the query and on the clipped distance only: along each row it is "
                 "constant once |j − i| > {k}. The content term knows nothing about position. Implementations "
                 "compute q·aᴷ for the 2k + 1 table rows once per query and then pick the right one for each key, "
                 "instead of building an n × n × d tensor of keys.").format(k=k))


def values_tab(page, n: int, k: int, dim: int, seed: int) -> None:
    with page.side:
        causal = controls.toggle(_("Causal mask"), "causal", True)
    show(hero(views.values_chart, n=n, k=k, d=dim, seed=seed, causal=causal))
    classroom.snippet(f"e = {classroom.call('shaw_example', n, dim, k, seed)}",
                      f"out = pc.attention_bias.shaw_attention(e.q, e.k, e.v, e.a_k, e.a_v, {k}, "
                      f"{causal})",
                      f"out.content_out, out.relative_out  # ({n}, {dim}) each: the two maps")
    notice(_("The value side adds a second, position-only contribution: each query mixes the table vectors aⱽ "
             "with the same weights it uses on the values. Many later models (Music Transformer, Transformer-XL, "
             "T5) dropped this half and kept position on the key side or as a bias."))
    formula(r"z_i = \sum_j \alpha_{ij}\,\big(v_j + a^V_{\mathrm{clip}(j-i,\,$k)}\big),\qquad"
            r"\alpha_{ij} = \mathrm{softmax}_j(e_{ij})", k=k)


CACHE_TABLE = N_("| | what the cache holds | extra work per new token |\n|---|---|---|\n"
               "| **RoPE** | the rotated key R_j k_j: final when written, its position baked in | rotate the new q "
               "and k once |\n"
               "| **ALiBi / T5 bias** | plain k_j, v_j | add one number per cached key to the scores (fused into "
               "standard attention kernels) |\n"
               "| **Shaw et al.** | plain k_j, v_j | q·aᴷ for {rows} rows, a gather by clipped distance for every "
               "cached key, and a second weighted sum over aⱽ for the output |")


def cache_tab(page, n: int, k: int, dim: int, seed: int) -> None:
    with page.side:
        j = controls.slider(_("Cached key (token j)"), "j", 0, n - 1, min(2, n - 1))
    changing = views.effective_keys(n, dim, k, j, seed).changing_steps
    show(hero(views.cache_chart, n=n, k=k, j=j, d=dim, seed=seed))
    classroom.snippet(f"eff = {classroom.call('shaw_effective_keys', n, dim, k, j, seed)}",
                      "eff.keys  # (reading queries, d): k_j + aᴷ row by row, queries in eff.queries")
    notice(ngettext("The rows differ for the first {n} step after token {j} is written: the positional part of "
                    "its key depends on who is reading it. A KV cache cannot store a finished key; it stores k_j "
                    "and every decoding step has to add a different table row for every cached token (and do the "
                    "same on the value side).",
                    "The rows differ for the first {n} steps after token {j} is written: the positional part of "
                    "its key depends on who is reading it. A KV cache cannot store a finished key; it stores k_j "
                    "and every decoding step has to add a different table row for every cached token (and do the "
                    "same on the value side).", changing).format(n=changing, j=j))
    st.markdown(_(CACHE_TABLE).format(rows=views.example(n, dim, k, seed).a_k.shape[0]))
    st.caption(_("A common misconception is that the relative positions 'are updated each time a new token is "
                 "added'. More exactly: the stored keys do not change, but the distance from the new query to each "
                 "of them does, so the positional term is recomputed for every cached token at every step, outside "
                 "the usual fused attention kernels."))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    (N_("Clipped distances"), index_tab),
    (N_("Score = content + relative"), scores_tab),
    (N_("Values too"), values_tab),
    (N_("Why a KV cache is awkward"), cache_tab),
]


@st.fragment
def lesson():
    page = stage()
    with page.side:
        n = controls.slider(_("Tokens"), "n", 4, 64, 16, step=2)
        k = controls.slider(_("Clipping distance k"), "k", 0, 16, 4,
                            help=_("Relative distances beyond ±k use the vector of ±k. The paper found k = 16 no "
                                   "better than k = 2 for translation."))
    with page.more:
        dim = controls.slider(_("Head dimension d"), "d", 2, 64, 8, step=2)
        seed = int(controls.number(_("Seed"), "seed", 0, 9999, 0, step=1,
                                   help=_("Draws q, k, v and the two tables.")))
    with guard():
        page.walk(TABS, page, n, k, dim, seed)


lesson()
why(WHY)
source(shaw_clipped_distance, shaw_relative_index, shaw_scores, shaw_attention, shaw_effective_keys)
