import streamlit as st

from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.encoders import (
    deberta_bucket,
    deberta_bucket_curve,
    deberta_example,
    deberta_query,
    deberta_table_facts,
    deberta_terms,
)

BUCKETS = [4, 8, 16, 32, 64, 256]
TOPS = [16, 32, 64, 128, 256, 512, 1024]
TERMS = {"c2c": "content → content", "c2p": "content → position", "p2c": "position → content"}


@st.cache_data(max_entries=32, show_spinner=False)
def terms(n: int, hidden: int, heads: int, buckets: int, top: int, seed: int):
    return deberta_terms(deberta_example(n, hidden, heads, buckets, top, seed))


@st.cache_data(max_entries=16, show_spinner=False)
def curve(distance: int, buckets: int, top: int):
    return deberta_bucket_curve(distance, buckets, top)


@st.cache_data(max_entries=32, show_spinner=False)
def table_facts(buckets: int, top: int, hidden: int):
    return deberta_table_facts(buckets, top, hidden)


header("DeBERTa: disentangled attention",
       "DeBERTa v2 / v3 keep content and position apart: every score adds what the query's content says about the "
       "key's content, about the key's distance, and what that distance says about the key's content.")
WHY = ("BERT adds a position row to each token once, at the input, and from then on content and position are mixed "
       "in one vector. DeBERTa (He et al., 2021) never adds them: each layer scores content against content and "
       "*content against relative position in both directions*, from one table of relative-position vectors shared "
       "by every layer. v2 / v3 made that table small with log buckets (256 for v3: distances up to 128 exact, "
       "then coarser and coarser out to 512) and project it with the layer's own query and key weights "
       "(`share_att_key`), so positions cost one 512-row table in the whole model. The three terms are each "
       "divided by √(3d), not √d: the sum of three similar terms would otherwise be too large for the softmax. "
       "Its disentangled relative attention is why DeBERTa v3 stayed a strong encoder for classification and "
       "retrieval, and why it can read past 512 tokens (distances past the table's ends share its last rows).")


def tops(buckets: int) -> list[int]:
    return [m for m in TOPS if m - 1 > buckets // 2 + 1]


def view(args, head: int) -> dict:
    """The figures' view by URL key: a hero figure builds its frames from it."""
    return dict(zip(("n", "hidden", "heads", "pb", "mr", "seed"), args, strict=True)) | {"head": head}


def settled(n, hidden, heads, pb, mr, seed, head):
    """A frame's terms and head: a slider whose range follows the one moved goes to its nearest stop, as on the page."""
    mr = min(tops(pb), key=lambda m: abs(m - mr))
    return terms(n, hidden, heads, pb, mr, seed), min(head, heads - 1)


def terms_chart(n, head, **rest):
    t, head = settled(n, head=head, **rest)
    grids = [t.c2c[head], t.c2p[head], t.p2c[head], t.total[head]]
    return figures.small_multiples(
        grids, [*TERMS.values(), "total score"], cols=2, cell_px=260,
        title=f"Head {head}: three terms and their sum",
        value_name="score", name="deberta_terms",
        alt=f"Four {n} x {n} heatmaps on one colour scale: content to content (noisy), content to position and "
            "position to content (banded along the diagonals where the bucket repeats), and their sum.")


def three_terms_tab(args, t, head: int, i: int) -> None:
    show(hero(terms_chart, **view(args, head)))
    classroom.snippet(f"t = pc.encoders.deberta_terms({classroom.call('deberta_example', *args)})",
                      "t.c2c, t.c2p, t.p2c, t.total  # (heads, n, n): the four maps")
    formula(r"A_{ij} = \frac{Q^c_i\cdot K^c_j + Q^c_i\cdot K^r_{\delta(i,j)} + K^c_j\cdot Q^r_{\delta(i,j)}}"
            r"{\sqrt{3\cdot $d}},\quad \delta(i,j) = \mathrm{bucket}(i - j)", d=int(round(t.scale ** 2 / 3)))
    table = table_facts(args[3], args[4], args[1])
    formula(r"K^r = P\,W_k^\top + b_k,\quad Q^r = P\,W_q^\top + b_q")
    formula(r"P:\ $r \times $h", r=table.rows, h=args[1])
    notice(f"P is the one relative table of the whole model ({table.rows} rows here); each layer projects it "
           "with its own W_q and W_k. Content → position depends only on the query and the bucket δ(i, j), "
           "position → content only on the key and δ(i, j): each repeats along the diagonals of the grid where the "
           "bucket does. transformers' code gathers position → content at −δ(j, i) = δ(i, j), the same table row as "
           "content → position; the paper's equation writes δ(j, i). This page follows the code.")


def query_chart(i, n, head, **rest):
    (t, head), i = settled(n, head=head, **rest), min(i, n - 1)  # fewer tokens: the query moves into the range
    q = deberta_query(t, head, i)
    return figures.bars(list(range(n)), {TERMS[k]: getattr(q, k) for k in TERMS} | {"total": q.total},
                        title=f"Query {i}, head {head}: each key's three terms and total", x_title="key j",
                        y_title="score", name="deberta_query",
                        alt=f"Grouped bars for the {n} keys of query {i}: the three terms and their sum. Keys in "
                            "the same bucket have equal content → position bars.")


def one_query_tab(args, t, head: int, i: int) -> None:
    q = deberta_query(t, head, i)
    pair = q.same_bucket

    def reveal() -> str:
        if pair is None:
            return ("Content → content and position → content. With these settings no two keys share a bucket for "
                    f"query {i}; raise the tokens or lower position_buckets to see it.")
        a, b = pair
        return (f"Content → content and position → content. Keys {a} and {b} share bucket {int(q.delta[a])}: "
                f"their content → position terms are both {q.c2p[a]:.4g}, while position → content gives "
                f"{q.p2c[a]:.4g} and {q.p2c[b]:.4g}: it reads each key's own content.")

    with classroom.predict("deberta_same", f"Two keys fall in the same distance bucket of query {i}. Which terms can "
                           "still tell them apart?", ["only content → content", "content → content and position → "
                           "content", "all three", "none: same bucket, same score"], 1, reveal):
        show(hero(query_chart, i=i, **view(args, head)))
        classroom.snippet(f"t = pc.encoders.deberta_terms({classroom.call('deberta_example', *args)})",
                          f"q = pc.encoders.deberta_query(t, {head}, {i})  # q.c2c, q.c2p, q.p2c, "
                          "q.total: (n,)")
        j = q.strongest
        formula(r"A_{$i,$j} = $a + $b + $c = $s", i=i, j=j, a=float(q.c2c[j]), b=float(q.c2p[j]),
                c=float(q.p2c[j]), s=float(q.total[j]))


def buckets_chart(pb: int, mr: int, hidden: int):
    mr = min(tops(pb), key=lambda m: abs(m - mr))  # as settled(): the page moves it into the new range
    c, mine = curve(2 * mr, pb, mr), table_facts(pb, mr, hidden)
    return figures.lines(c.distance, {"bucket δ(i, j)": c.bucket, "table row − span": c.row - mine.span},
                         title=f"The bucket of each i − j ({pb} buckets, up to {mr})",
                         x_title="i − j (query minus key)", y_title="bucket", name="deberta_buckets",
                         vlines=[(mine.exact_up_to, "exact up to here"), (mr - 1, "max_relative_positions − 1")],
                         dashed=["table row − span"],
                         alt=f"Bucket against distance: the identity up to {mine.exact_up_to}, then logarithmic; "
                             f"the table row saturates at ±{mine.span} from distance {mine.last_row_from} on.")


def buckets_tab(args, t, head: int, i: int) -> None:
    buckets, top = args[3], args[4]
    far = 2 * top
    v3 = table_facts(256, 512, 768)
    show(hero(buckets_chart, pb=buckets, mr=top, hidden=args[1]))
    classroom.snippet(f"c = {classroom.call('deberta_bucket_curve', far, buckets, top)}",
                      "c.distance, c.bucket, c.row  # (2·D + 1,) each")

    def reveal() -> str:
        return (f"The table's last row: from distance {v3.last_row_from:,} on, every key reads row "
                f"{v3.rows - 1} (bucket {v3.span - 1}). The bucket function keeps growing past 511, but the "
                "gather clamps its index to the table: one row for 'far', as T5's last bucket.")

    with classroom.predict("deberta_far", "DeBERTa v3 (256 buckets, max_relative_positions 512) reads a key 1,000 "
                           "tokens before the query. Which relative row does it use?",
                           ["its own row for distance 1,000", "the table's last row, shared with every far key",
                            "row 1,000 mod 512"], 1, reveal):
        notice(f"DeBERTa v3: {v3.rows} rows × 768 = {v3.parameters:,} position parameters for the whole "
               f"model. Distances up to {v3.exact_up_to} keep their own row (the first two to share one are "
               f"{v3.first_shared - 1} and {v3.first_shared}); from {v3.last_row_from} on they all read the "
               "last row.")
    formula(r"\mathrm{bucket}(x) = \mathrm{sign}(x)\left(\left\lceil \frac{\log(|x|/$m)}{\log(($M - 1)/$m)}"
            r"\,($m - 1)\right\rceil + $m\right)\ \text{ for } |x| > $m", m=buckets // 2, M=top)


@st.fragment
def lesson():
    page = stage()
    with page.side:
        n = controls.slider("Tokens", "n", 4, 48, 16, step=2)
        i = controls.slider("Query i", "i", 0, n - 1, min(6, n - 1))
        buckets = controls.select_slider("position_buckets", "pb", BUCKETS, 8,
                                         help="DeBERTa v3 uses 256; small values show the buckets in a short input.")
        top = controls.select_slider("Max distance", "mr", tops(buckets), 64,
                                     help="max_relative_positions: how far the log buckets stretch (v3: 512, from "
                                          "max_position_embeddings).")
    with page.more:
        hidden = controls.select_slider("Hidden size", "hidden", [16, 32, 64, 128], 32)
        heads = controls.select_slider("Heads", "heads", [1, 2, 4], 2)
        head = controls.slider("Head shown", "head", 0, heads - 1, 0)
        seed = int(controls.number("Seed", "seed", 0, 9999, 0, step=1, help="Draws the states, weights and table."))
    args = (n, hidden, heads, buckets, top, seed)
    tabs = page.sections(["Three terms", "One query", "Log buckets"])
    with guard():
        t = terms(*args)
        for tab, view in zip(tabs, (three_terms_tab, one_query_tab, buckets_tab), strict=True):
            if tab.open:
                with tab:
                    view(args, t, head, i)


lesson()
why(WHY)
source(deberta_bucket, deberta_terms, deberta_query)
