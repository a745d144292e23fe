import streamlit as st

import posenc_core as pc
from lessons.attention_bias import t5_views as views
from page_kit import N_, _, classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.attention_bias import t5_bucket_layout, t5_smallest_max_distance

BUCKETS = [8, 16, 32, 64, 128]

header(_("T5 relative buckets"),
       _("T5 adds one learned number per bucket of key − query distance to each score; far distances share "
         "buckets."))
WHY = _("T5 learns one number per attention head for each *bucket* of relative distance and adds it to the "
        "score. Small distances get a bucket each, so the model can tell 'next word' from 'two words back'. "
        "Larger distances share buckets whose width grows logarithmically, and everything past `max_distance` "
        "lands in one last bucket. The bucket of a pair depends only on key position minus query position.")


def curve_chart(nb: int, mode: str, md: int, span: int) -> figures.Chart:
    bidirectional = mode == "bidirectional"
    info = views.layout(bidirectional, nb, md)  # the page refuses (ValueError) too small a max_distance
    rel, bucket = views.bucket_curve(bidirectional, nb, md, span)
    if bidirectional:  # one label per side, so the two labels never collide
        marks = [(-md, "max_distance"), (-info.last_bucket_from, ""), (md, ""),
                 (info.last_bucket_from, _("last bucket starts"))]
    else:
        marks = [(-md, "max_distance"), (-info.last_bucket_from, "")]
    return figures.lines(
        rel, {_("bucket"): bucket},
        title=_("Bucket of each offset ({mode}, {nb} buckets, max_distance {md})").format(
            mode=_(views.MODES[mode]), nb=nb, md=md),
        x_title=_("relative position (key − query)"), y_title=_("bucket index"), hover_format="d",
        vlines=[m for m in marks if abs(m[0]) <= span], name="t5_bucket_curve",
        shade_x=(-(info.exact - 1), info.exact - 1 if bidirectional else 0, _("exact")),
        alt=_("Step plot of bucket index against offsets from {lo} to {hi}: one step per offset for the "
              "{exact} exact buckets, widening steps further out, flat from distance {last} on.").format(
            lo=-span, hi=span, exact=info.exact, last=info.last_bucket_from))


def share_chart(nb: int, mode: str, md: int) -> figures.Chart:
    info = views.layout(mode == "bidirectional", nb, md)  # the page refuses (ValueError) too small a max_distance
    span = 2 * md
    table = views.spans(mode == "bidirectional", nb, md, span)
    return figures.bars(
        table.bucket, {_("offsets in the bucket"): table.count}, log_y=True,
        title=_("How many offsets share each bucket (offsets within ±{span:,})").format(span=span),
        x_title=_("bucket"), y_title=_("offsets (log scale)"), name="t5_share",
        alt=_("Bar chart of offsets per bucket: one for each exact bucket, then growing, with the last bucket of "
              "each direction holding every offset from {last} to ±{span:,}.").format(
            last=info.last_bucket_from, span=span))


def bucket_tab(page, info, mode: str, buckets: int, max_distance: int) -> None:
    bidirectional = mode == "bidirectional"
    with page.side:
        span = controls.select_slider(_("Offsets shown (±)"), "span", [32, 64, 128, 256, 512, 1024], 256,
                                      format_func=str)
    show(hero(curve_chart, nb=buckets, mode=mode, md=max_distance, span=span))
    st.caption(_("Dotted lines: ±max_distance = {md} (outer) and the first distance of the last bucket, "
                 "{last} (inner). Shaded: the exact region.").format(md=max_distance, last=info.last_bucket_from))
    classroom.snippet(f"rel = list(range({-span}, {span + 1}))  # offsets key − query",
                      f"bucket = pc.t5_relative_position_bucket(rel, {bidirectional}, {buckets}, "
                      f"{max_distance})  # ({2 * span + 1},) int64: the curve above")
    far = [-max_distance, -4 * max_distance]  # keys behind the query: valid in both directions
    near_b, far_b = (int(b) for b in pc.t5_relative_position_bucket(far, bidirectional, buckets, max_distance))

    def far_keys() -> str:
        if near_b != far_b:
            return _("Buckets {near} and {far}.").format(near=near_b, far=far_b)
        return _("Both land in bucket {near}: everything from distance {last} on shares the last bucket, so T5 "
                 "gives a key {far_d:,} tokens back exactly the bias of one {near_d:,} back.").format(
            near=near_b, last=info.last_bucket_from, far_d=4 * max_distance, near_d=max_distance)

    with classroom.predict("t5_far", _("Two keys behind the query, {near:,} and {far:,} tokens back: how do their "
                                       "buckets compare?").format(near=max_distance, far=4 * max_distance),
                           [_("the farther key's bucket is about 4 times larger"),
                            _("the farther key's bucket is a little larger (log steps)"), _("they share one bucket")],
                           2 if near_b == far_b else 0 if far_b >= 4 * near_b else 1, far_keys):
        exact = (_("Near zero every offset has its own bucket: {exact} exact buckets per direction (half of the "
                   "{per} per direction).") if bidirectional else
                 _("Near zero every offset has its own bucket: {exact} exact buckets per direction (half of the "
                   "{per} in total).")).format(exact=info.exact, per=info.per_direction)
        steps = _("Then the steps widen logarithmically until max_distance = {md}, and the curve goes flat. Because "
                  "bucket numbers are rounded down, the last bucket already starts at distance {last}, before "
                  "max_distance.").format(md=max_distance, last=info.last_bucket_from)
        causal = "" if bidirectional else " " + _("Causal mode uses all buckets for keys behind the query; keys "
                                                  "ahead are masked anyway (they fall in bucket 0).")
        notice(exact + " " + steps + causal)
        formula(r"b(r) = \begin{cases} r & r < $exact \\ \min\!\Big($last,\ $exact + \Big\lfloor "
                r"\frac{\ln(r/$exact)}{\ln($md/$exact)}\,($per - $exact)\Big\rfloor\Big) & r \ge $exact "
                r"\end{cases}", exact=info.exact, md=max_distance, per=info.per_direction,
                last=info.per_direction - 1)
        formula(r"r = |\text{key} - \text{query}|" + (r",\ +$per\text{ if key after query}" if bidirectional
                                                      else ""), per=info.per_direction)
        st.caption(_("This is Hugging Face transformers' `_relative_position_bucket`, float32 arithmetic included "
                     "(a test compares them on every offset from -3000 to 3000)."))


def grid_tab(page, info, mode: str, buckets: int, max_distance: int) -> None:
    bidirectional = mode == "bidirectional"
    with page.side:
        n = controls.slider(_("Tokens"), "n", 8, 256, 64, step=8)
    show(hero(views.grid_chart, nb=buckets, mode=mode, md=max_distance, n=n))
    grid_call = classroom.call("t5_bucket_grid", n, None, bidirectional, buckets, max_distance)
    classroom.snippet(f"g = {grid_call}  # ({n}, {n}) int64: bucket of (query i, key j)")
    notice(_("Each diagonal has one bucket (the bucket depends only on j − i). Near the main diagonal the bands are "
             "one diagonal wide; further out a band covers many diagonals, and in the far corners a single colour "
             "fills everything past the last-bucket distance.")
           + (" " + _("Above and below the diagonal are different buckets: direction matters.") if bidirectional
              else ""))


def bias_tab(page, info, mode: str, buckets: int, max_distance: int) -> None:
    bidirectional = mode == "bidirectional"
    with st.container(horizontal=True):  # this tab's own four controls, over its two figures
        seed = controls.number(_("Seed"), "seed", 0, 9999, 0, step=1,
                               help=_("Draws the illustrative bucket values."))
        edit = controls.slider(_("Bucket to edit"), "eb", 0, buckets - 1, 0)
        value = controls.number(_("Its value"), "ev", -10.0, 10.0, 3.0, step=0.5,
                                help=_("Overwrites the chosen bucket's learned scalar."))
        n = controls.slider(_("Tokens"), "bn", 8, 128, 48, step=8)
    drawn = views.values(buckets, bidirectional, int(seed), None, 0.0)
    show(hero(views.values_chart, eb=edit, nb=buckets, mode=mode, md=max_distance, seed=seed, ev=value))
    show(figures.heatmap(
        views.bias(buckets, bidirectional, int(seed), edit, float(value), n, max_distance),
        title=_("Bias grid = scalar of each pair's bucket (bucket {edit} set to {value:g})").format(
            edit=edit, value=value),
        x_title=_("key position j"), y_title=_("query position i"), value_name=_("bias"), name="t5_bias",
        alt=_("Heatmap of the {n} x {n} bias grid built from the bucket scalars; the edited bucket {edit} shows up "
              "as a band of diagonals.").format(n=n, edit=edit)
            + (" " + _("Masked future keys are blank.") if not bidirectional else "")))
    values_call = classroom.call("t5_bucket_values", buckets, bidirectional, int(seed), edit_bucket=edit,
                                 edit_value=float(value))
    classroom.snippet(f"learned = {values_call}  # ({buckets},): the bars",
                      f"bias = pc.t5_bias_grid(learned, {n}, {bidirectional}, {max_distance})  # ({n}, {n})"
                      + ("" if bidirectional else ", -inf where the mask hides future keys"))
    notice(_("Edit a bucket and every diagonal that uses it changes at once. Bucket {edit} had {before:.3f} "
             "before your edit. A model learns {buckets} numbers per head here, no matter how long the input is: "
             "far pairs can only get the biases of the buckets that exist.").format(
        edit=edit, before=drawn[edit], buckets=buckets))
    formula(r"\text{score}_{ij} = \frac{q_i\cdot k_j}{\sqrt d}\ (\text{T5 omits the } \sqrt d) + "
            r"\beta^{(h)}_{b(j-i)},\qquad \beta_{$b} = $v", b=edit, v=float(value))
    st.caption(_("The values are a seeded illustration (falling with distance, plus noise), not weights of a "
                 "trained T5. T5 applies no 1/√d scaling: it folds it into the initialisation."))


def share_tab(page, info, mode: str, buckets: int, max_distance: int) -> None:
    bidirectional = mode == "bidirectional"
    span = 2 * max_distance
    table = views.spans(bidirectional, buckets, max_distance, span)
    show(hero(share_chart, nb=buckets, mode=mode, md=max_distance))
    spans_call = classroom.call("t5_bucket_spans", bidirectional, buckets, max_distance, span)
    classroom.snippet(f"table = {spans_call}  # columns of ({buckets},): bucket, count, nearest, farthest")
    notice(_("The exact buckets hold one offset each; the log buckets hold more and more; the last bucket of a "
             "direction holds every offset from {last} to the end of the input (here up to the window edge, in a "
             "long document thousands). All those pairs get the same bias, so for T5 a token 200 and a token 2,000 "
             "positions away look alike; only their content differs. That keeps the table small and lets T5 run on "
             "longer inputs than it was trained on, at the price of no fine position far away.").format(
        last=info.last_bucket_from))
    st.dataframe({_("bucket"): table.bucket, _("offsets"): table.count, _("nearest |offset|"): table.nearest,
                  _("farthest |offset|"): table.farthest}, hide_index=True, height=300)
    st.caption(_("A count of 0 marks a bucket the formula never reaches (in bidirectional mode, offset 0 always "
                 "uses the first bucket, so the first bucket of the 'key after query' half stays empty)."))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    (N_("Bucket against distance"), bucket_tab),
    (N_("Query x key grid"), grid_tab),
    (N_("Bias from one scalar per bucket"), bias_tab),
    (N_("Why far positions share a bias"), share_tab),
]


@st.fragment
def lesson():
    page = stage(more_label=None)  # every control here drives the figure beside it
    with page.side:
        buckets = controls.select_slider("num_buckets", "nb", BUCKETS, 32,
                                         help=_("Total buckets; bidirectional models split them between the two "
                                                "directions. T5 uses 32."))
        mode = controls.choice(_("Direction"), "mode", list(views.MODES), "bidirectional",
                               help=_("bidirectional: T5's encoder (keys on both sides). causal: its decoder "
                                      "self-attention (only keys at or before the query)."),
                               format_func=lambda m: _(views.MODES[m]))
        bidirectional = mode == "bidirectional"
        smallest = t5_smallest_max_distance(buckets, bidirectional)  # the slider starts where T5 allows
        max_distance = controls.slider("max_distance", "md", smallest, 1024, max(128, smallest),
                                       help=_("Beyond this distance every pair shares the last bucket. It must "
                                              "exceed the exact buckets (a quarter of num_buckets when "
                                              "bidirectional, half when causal), so the slider starts just past "
                                              "them. T5 uses 128."))
    with guard():
        info = views.layout(bidirectional, buckets, max_distance)  # a clear ValueError if max_distance is too small
        page.walk(TABS, page, info, mode, buckets, max_distance)

lesson()
why(WHY)
source(pc.t5_relative_position_bucket, t5_bucket_layout, pc.t5_bias_grid)
