import streamlit as st

import posenc_core as pc
from lessons.attention_bias import t5_views as views
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.attention_bias import t5_bucket_layout, t5_smallest_max_distance

BUCKETS = [8, 16, 32, 64, 128]

header("T5 relative buckets",
       "T5 adds one learned number per bucket of key − query distance to each score; far distances share buckets.")
WHY = ("T5 learns one number per attention head for each *bucket* of relative distance and adds it to the "
       "score. Small distances get a bucket each, so the model can tell 'next word' from 'two words back'. "
       "Larger distances share buckets whose width grows logarithmically, and everything past `max_distance` "
       "lands in one last bucket. The bucket of a pair depends only on key position minus query position.")


def curve_chart(nb: int, mode: str, md: int, span: int) -> figures.Chart:
    bidirectional = mode == "bidirectional"
    info = views.layout(bidirectional, nb, md)  # the page refuses (ValueError) too small a max_distance
    rel, bucket = views.bucket_curve(bidirectional, nb, md, span)
    if bidirectional:  # one label per side, so the two labels never collide
        marks = [(-md, "max_distance"), (-info.last_bucket_from, ""), (md, ""),
                 (info.last_bucket_from, "last bucket starts")]
    else:
        marks = [(-md, "max_distance"), (-info.last_bucket_from, "")]
    return figures.lines(
        rel, {"bucket": bucket}, title=f"Bucket of each offset ({mode}, {nb} buckets, max_distance {md})",
        x_title="relative position (key − query)", y_title="bucket index", hover_format="d",
        vlines=[m for m in marks if abs(m[0]) <= span], name="t5_bucket_curve",
        shade_x=(-(info.exact - 1), info.exact - 1 if bidirectional else 0, "exact"),
        alt=f"Step plot of bucket index against offsets from {-span} to {span}: one step per offset for the "
            f"{info.exact} exact buckets, widening steps further out, flat from distance "
            f"{info.last_bucket_from} on.")


def share_chart(nb: int, mode: str, md: int) -> figures.Chart:
    info = views.layout(mode == "bidirectional", nb, md)  # the page refuses (ValueError) too small a max_distance
    span = 2 * md
    table = views.spans(mode == "bidirectional", nb, md, span)
    return figures.bars(
        table.bucket, {"offsets in the bucket": table.count}, log_y=True,
        title=f"How many offsets share each bucket (offsets within ±{span:,})", x_title="bucket",
        y_title="offsets (log scale)", name="t5_share",
        alt=f"Bar chart of offsets per bucket: one for each exact bucket, then growing, with the last bucket of "
            f"each direction holding every offset from {info.last_bucket_from} to ±{span:,}.")


def bucket_tab(page, info, mode: str, buckets: int, max_distance: int) -> None:
    bidirectional = mode == "bidirectional"
    with page.side:
        span = controls.select_slider("Offsets shown (±)", "span", [32, 64, 128, 256, 512, 1024], 256,
                                      format_func=str)
    show(hero(curve_chart, nb=buckets, mode=mode, md=max_distance, span=span))
    st.caption(f"Dotted lines: ±max_distance = {max_distance} (outer) and the first distance of the last bucket, "
               f"{info.last_bucket_from} (inner). Shaded: the exact region.")
    classroom.snippet(f"rel = list(range({-span}, {span + 1}))  # offsets key − query",
                      f"bucket = pc.t5_relative_position_bucket(rel, {bidirectional}, {buckets}, "
                      f"{max_distance})  # ({2 * span + 1},) int64: the curve above")
    far = [-max_distance, -4 * max_distance]  # keys behind the query: valid in both directions
    near_b, far_b = (int(b) for b in pc.t5_relative_position_bucket(far, bidirectional, buckets, max_distance))

    def far_keys() -> str:
        return (f"Both land in bucket {near_b}: everything from distance {info.last_bucket_from} on shares the "
                f"last bucket, so T5 gives a key {4 * max_distance:,} tokens back exactly the bias of one "
                f"{max_distance:,} back." if near_b == far_b else f"Buckets {near_b} and {far_b}.")

    with classroom.predict("t5_far", f"Two keys behind the query, {max_distance:,} and {4 * max_distance:,} tokens "
                           "back: how do their buckets compare?",
                           ["the farther key's bucket is about 4 times larger",
                            "the farther key's bucket is a little larger (log steps)", "they share one bucket"],
                           2 if near_b == far_b else 0 if far_b >= 4 * near_b else 1, far_keys):
        notice(f"Near zero every offset has its own bucket: {info.exact} exact buckets per direction (half of "
               f"the {info.per_direction} {'per direction' if bidirectional else 'in total'}). Then the steps "
               f"widen logarithmically until max_distance = {max_distance}, and the curve goes flat. Because bucket "
               f"numbers are rounded down, the last bucket already starts at distance {info.last_bucket_from}, "
               "before max_distance."
               + ("" if bidirectional else " Causal mode uses all buckets for keys behind the query; keys ahead "
                                           "are masked anyway (they fall in bucket 0)."))
        formula(r"b(r) = \begin{cases} r & r < $exact \\ \min\!\Big($last,\ $exact + \Big\lfloor "
                r"\frac{\ln(r/$exact)}{\ln($md/$exact)}\,($per - $exact)\Big\rfloor\Big) & r \ge $exact "
                r"\end{cases}", exact=info.exact, md=max_distance, per=info.per_direction,
                last=info.per_direction - 1)
        formula(r"r = |\text{key} - \text{query}|" + (r",\ +$per\text{ if key after query}" if bidirectional
                                                      else ""), per=info.per_direction)
        st.caption("This is Hugging Face transformers' `_relative_position_bucket`, float32 arithmetic included (a "
                   "test compares them on every offset from -3000 to 3000).")


def grid_tab(page, info, mode: str, buckets: int, max_distance: int) -> None:
    bidirectional = mode == "bidirectional"
    with page.side:
        n = controls.slider("Tokens", "n", 8, 256, 64, step=8)
    show(hero(views.grid_chart, nb=buckets, mode=mode, md=max_distance, n=n))
    grid_call = classroom.call("t5_bucket_grid", n, None, bidirectional, buckets, max_distance)
    classroom.snippet(f"g = {grid_call}  # ({n}, {n}) int64: bucket of (query i, key j)")
    notice("Each diagonal has one bucket (the bucket depends only on j − i). Near the main diagonal the bands are "
           "one diagonal wide; further out a band covers many diagonals, and in the far corners a single colour "
           "fills everything past the last-bucket distance."
           + (" Above and below the diagonal are different buckets: direction matters." if bidirectional else ""))


def bias_tab(page, info, mode: str, buckets: int, max_distance: int) -> None:
    bidirectional = mode == "bidirectional"
    with st.container(horizontal=True):  # this tab's own four controls, over its two figures
        seed = controls.number("Seed", "seed", 0, 9999, 0, step=1, help="Draws the illustrative bucket values.")
        edit = controls.slider("Bucket to edit", "eb", 0, buckets - 1, 0)
        value = controls.number("Its value", "ev", -10.0, 10.0, 3.0, step=0.5,
                                help="Overwrites the chosen bucket's learned scalar.")
        n = controls.slider("Tokens", "bn", 8, 128, 48, step=8)
    drawn = views.values(buckets, bidirectional, int(seed), None, 0.0)
    show(hero(views.values_chart, eb=edit, nb=buckets, mode=mode, md=max_distance, seed=seed, ev=value))
    show(figures.heatmap(
        views.bias(buckets, bidirectional, int(seed), edit, float(value), n, max_distance),
        title=f"Bias grid = scalar of each pair's bucket (bucket {edit} set to {value:g})",
        x_title="key position j", y_title="query position i", value_name="bias", name="t5_bias",
        alt=f"Heatmap of the {n} x {n} bias grid built from the bucket scalars; the edited bucket {edit} shows up "
            "as a band of diagonals." + (" Masked future keys are blank." if not bidirectional else "")))
    values_call = classroom.call("t5_bucket_values", buckets, bidirectional, int(seed), edit_bucket=edit,
                                 edit_value=float(value))
    classroom.snippet(f"learned = {values_call}  # ({buckets},): the bars",
                      f"bias = pc.t5_bias_grid(learned, {n}, {bidirectional}, {max_distance})  # ({n}, {n})"
                      + ("" if bidirectional else ", -inf where the mask hides future keys"))
    notice(f"Edit a bucket and every diagonal that uses it changes at once. Bucket {edit} had {drawn[edit]:.3f} "
           f"before your edit. A model learns {buckets} numbers per head here, no matter how long the input is: far "
           "pairs can only get the biases of the buckets that exist.")
    formula(r"\text{score}_{ij} = \frac{q_i\cdot k_j}{\sqrt d}\ (\text{T5 omits the } \sqrt d) + "
            r"\beta^{(h)}_{b(j-i)},\qquad \beta_{$b} = $v", b=edit, v=float(value))
    st.caption("The values are a seeded illustration (falling with distance, plus noise), not weights of a trained "
               "T5. T5 applies no 1/√d scaling: it folds it into the initialisation.")


def share_tab(page, info, mode: str, buckets: int, max_distance: int) -> None:
    bidirectional = mode == "bidirectional"
    span = 2 * max_distance
    table = views.spans(bidirectional, buckets, max_distance, span)
    show(hero(share_chart, nb=buckets, mode=mode, md=max_distance))
    spans_call = classroom.call("t5_bucket_spans", bidirectional, buckets, max_distance, span)
    classroom.snippet(f"table = {spans_call}  # columns of ({buckets},): bucket, count, nearest, farthest")
    notice(f"The exact buckets hold one offset each; the log buckets hold more and more; the last bucket of a "
           f"direction holds every offset from {info.last_bucket_from} to the end of the input (here up to the "
           "window edge, in a long document thousands). All those pairs get the same bias, so for T5 a token 200 "
           "and a token 2,000 positions away look alike; only their content differs. That keeps the table small "
           "and lets T5 run on longer inputs than it was trained on, at the price of no fine position far away.")
    st.dataframe({"bucket": table.bucket, "offsets": table.count, "nearest |offset|": table.nearest,
                  "farthest |offset|": table.farthest}, hide_index=True, height=300)
    st.caption("A count of 0 marks a bucket the formula never reaches (in bidirectional mode, offset 0 always uses "
               "the first bucket, so the first bucket of the 'key after query' half stays empty).")


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Bucket against distance", bucket_tab),
    ("Query x key grid", grid_tab),
    ("Bias from one scalar per bucket", bias_tab),
    ("Why far positions share a bias", share_tab),
]


@st.fragment
def lesson():
    page = stage(more_label=None)  # every control here drives the figure beside it
    with page.side:
        buckets = controls.select_slider("num_buckets", "nb", BUCKETS, 32,
                                         help="Total buckets; bidirectional models split them between the two "
                                              "directions. T5 uses 32.")
        mode = controls.choice("Direction", "mode", ["bidirectional", "causal"], "bidirectional",
                               help="bidirectional: T5's encoder (keys on both sides). causal: its decoder "
                                    "self-attention (only keys at or before the query).")
        bidirectional = mode == "bidirectional"
        smallest = t5_smallest_max_distance(buckets, bidirectional)  # the slider starts where T5 allows
        max_distance = controls.slider("max_distance", "md", smallest, 1024, max(128, smallest),
                                       help="Beyond this distance every pair shares the last bucket. It must exceed "
                                            "the exact buckets (a quarter of num_buckets when bidirectional, half "
                                            "when causal), so the slider starts just past them. T5 uses 128.")
    with guard():
        info = views.layout(bidirectional, buckets, max_distance)  # a clear ValueError if max_distance is too small
        page.walk(TABS, page, info, mode, buckets, max_distance)

lesson()
why(WHY)
source(pc.t5_relative_position_bucket, t5_bucket_layout, pc.t5_bias_grid)
