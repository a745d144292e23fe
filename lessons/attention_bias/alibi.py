import streamlit as st

import posenc_core as pc
from lessons.attention_bias import alibi_guide_views
from lessons.attention_bias import alibi_views as views
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.chart import figure_control
from page_kit.figures import animation
from page_kit.lesson import guide
from posenc_core.attention_bias import (
    alibi_attention,
    alibi_gentlest_head,
    alibi_geometric_heads,
    alibi_mass_beyond,
    alibi_receptive_field,
    alibi_receptive_field_limit,
)

PLAY_CONTEXTS = [int(round(2 ** (k / 3))) for k in range(12, 43)]  # 16 to 16,384 tokens, 3 frames an octave
CONTEXTS = [64, 256, 1024, 4096, 16384]

header("ALiBi: attention with linear biases",
       "ALiBi lowers every attention score by a penalty that grows linearly with the distance, at a fixed slope "
       "per head: steep heads look at their neighbours, gentle heads look far back.", alibi_guide_views.GUIDE)
WHY = ("ALiBi adds no vector to any token. Instead, every attention score is lowered by a penalty that grows "
       "linearly with the distance between query and key, and each head gets its own slope: steep heads look "
       "only at their neighbours, gentle heads look far back. The slopes are fixed numbers, not learned, and "
       "nothing about the penalty depends on the training length, which is why ALiBi copes with longer inputs.")


def grid_length(page) -> int:
    """The grids' size, beside the bias and attention figures that use it."""
    with page.side:
        return controls.slider("Grid size n", "n", 4, 96, 24, step=4,
                               help="Queries and keys in the grids of the bias and attention tabs.")


def slopes_chart(h: int) -> figures.Chart:
    table = views.slope_table(h)
    return figures.bars(
        table.head, {"authors' code (used by models)": table.code, "paper: 2^(-8h/n)": table.paper},
        title=f"Slopes for {h} head{'s' if h > 1 else ''}", x_title="head h",
        y_title="slope m (log scale)", log_y=True, name="alibi_slopes",
        alt=f"Bar chart of the {h} ALiBi slopes from the authors' code next to the paper's geometric "
            "sequence; they agree for powers of two and differ otherwise.")


def bias_chart(h: int, n: int, causal: bool) -> figures.Chart:
    shown, grids = views.bias_panels(h, n, causal)
    slopes = views.slope_table(h).code
    return figure_control.pick(figures.small_multiples(
        grids, [f"head {k + 1}: m = {slopes[k]:.4g}" for k in shown],
        title=f"ALiBi bias per head ({'causal' if causal else 'symmetric'}), {n} x {n}", value_name="bias",
        name="alibi_bias",
        alt=f"{len(shown)} bias grids, one per head: zero on the diagonal and falling linearly away from it; "
            "steeper heads fall faster." + (" Masked future keys are blank." if causal else "")), distance="off")


def attention_chart(h: int, n: int, causal: bool) -> figures.Chart:
    shown, weights = views.attention_panels(h, n, causal)
    return figures.small_multiples(
        weights, [f"head {k + 1}" for k in shown], title="softmax(bias) when all content scores are equal",
        value_name="weight", name="alibi_attention",
        alt="Attention grids produced by the bias alone: steep heads put nearly all weight on the diagonal, "
            "gentle heads spread it over many keys.")


def field_chart(h: int, ctx, mass: float) -> figures.Chart:
    return figures.bars(
        views.slope_table(h).head, {"receptive field": views.receptive_fields(h, int(ctx), mass)},
        log_y=True, y_range=(0, 4.3),
        title=f"Distance that holds {mass:.0%} of the last query's attention ({ctx:,} tokens)",
        x_title="head h", y_title="distance back (tokens, log scale)", name="alibi_fields",
        alt="Bar chart of the effective receptive field per head; it grows as the slope shrinks.")


def slopes_tab(page, heads: int, causal: bool) -> None:
    table = views.slope_table(heads)
    show(hero(slopes_chart, h=heads))
    classroom.snippet(f"slopes = {classroom.call('alibi_slopes', heads)}  # one per head, as plotted")
    now, later = float(table.code[0]), float(views.slope_table(2 * heads).code[0])
    first, first_doubled = alibi_geometric_heads(heads), alibi_geometric_heads(2 * heads)

    def doubled() -> str:
        return (f"With {2 * heads} heads head 1's slope is {later:.4g} = 2^(-8/{first_doubled}), up from {now:.4g}: "
                "the first slope is 2^(-8/n') for the largest power of two n' up to the head count, so more heads "
                "start gentler and step down to 2^(-8) = 1/256 more finely.")

    with classroom.predict("doubled", f"The chart shows {heads} head{'s' if heads > 1 else ''}. Double them to "
                           f"{2 * heads}: what becomes of head 1's slope, now {now:.4g}?",
                           [f"it stays {now:.4g}", "it grows", "it halves"], 1, doubled):
        formula(r"m_1 = 2^{-8/n'}:\quad $now\ (n = $h)\ \to\ $later\ (n = $h2,\ n' = $p2)",
                now=now, h=heads, later=later, h2=2 * heads, p2=first_doubled)
    if first == heads:
        notice(f"{heads} is a power of two, so the code and the paper agree: a geometric sequence that starts at "
               f"2^(-8/{heads}) and ends at 2^(-8) = 1/256.")
    else:
        notice(f"{heads} is not a power of two. The code takes the {first} slopes of a {first}-head model (heads "
               f"1-{first}) and fills heads {first + 1}-{heads} with every other slope of the {2 * first}-head "
               "sequence, so the extra heads sit halfway between existing ones. The paper's formula would instead "
               "spread all heads evenly; models such as BLOOM use the code, so this page does too.")
    formula(r"m_h = 2^{-8h/n'}\ (h \le n')")  # one rule a row: each fits a phone's width
    formula(r"m_{n'+k} = 2^{-8(2k-1)/(2n')}\ (k = 1..n-n')")
    formula(r"n' = 2^{\lfloor\log_2 n\rfloor} = $p", p=first)
    number = {c: st.column_config.NumberColumn(format=f) for c, f in
              (("slope (code)", "%.6f"), ("log2 slope", "%.2f"), ("slope (paper)", "%.6f"))}
    st.dataframe({"head": table.head, "group": table.group, "slope (code)": table.code,
                  "log2 slope": table.log2_code, "slope (paper)": table.paper},
                 hide_index=True, height=min(36 * heads + 40, 320), column_config=number)
    st.caption("A common misconception gives 1/2¹ … 1/2¹⁶ for 16 heads. In fact 16 heads start at 2^(-0.5) ≈ "
               "0.707 and halve every second head, ending at 2^(-8) = 1/256, as the table shows for h = 16. The "
               "rule '1/2^h' holds only for 8 heads.")


def bias_tab(page, heads: int, causal: bool) -> None:
    n = grid_length(page)
    shown, grids = views.bias_panels(heads, n, causal)
    slopes = views.slope_table(heads).code
    show(hero(bias_chart, h=heads, n=n, causal=causal))
    # a click on a cell picks its distance i − j for the formula below; this slider is its twin
    with page.side:
        off = controls.slider("Distance i − j (or click a cell)", "off", 0, n - 1, n - 1)
    if len(shown) < heads:
        st.caption(f"Showing heads {', '.join(str(h + 1) for h in shown)} of {heads}.")
    notice("Every diagonal has one value: the bias depends only on the distance i - j, like the sinusoidal dot "
           "products, but here it is put straight into the score. All panels share one colour scale, so the "
           "steep heads' dark corners are real: their penalties are large.")
    formula(r"B^{(h)}_{ij} = -m_h\,(i - j)\ \ (j \le i), \qquad B^{(1)}_{$last,$j} = -$m \times $off = $value",
            last=n - 1, j=n - 1 - off, off=off, m=float(slopes[0]), value=float(grids[0][n - 1, n - 1 - off]))


def attention_tab(page, heads: int, causal: bool) -> None:
    n = grid_length(page)
    show(hero(attention_chart, h=heads, n=n, causal=causal))
    notice("With equal content scores the content cancels in the softmax and only the bias is left. Steep heads "
           "attend almost only to the token itself and its neighbours; the gentlest heads spread their weight over "
           "the whole window. This is each head's default receptive field; content scores then move weight "
           "around inside it.")
    c1, c2 = st.columns(2)
    with c1:
        length = controls.select_slider("Context for the receptive field", "ctx", CONTEXTS, 1024,
                                        format_func=lambda v: f"{v:,}")
    with c2:
        mass = controls.slider("Share of the attention", "mass", 0.5, 0.99, 0.9, step=0.01)
    guide.report("mass_099", mass >= 0.99)
    fields = views.receptive_fields(heads, length, mass)

    chart = hero(field_chart, h=heads, ctx=length, mass=mass)
    if controls.toggle("Animate the context growing", "play_ctx",
                       help="A scrub bar and a Play button under the bars: the context grows from 16 to 16,384 "
                            "tokens; steep heads stop growing at once, gentle heads keep going."):
        animation.attach(chart, lambda context: field_chart(heads, context, mass), "context", PLAY_CONTEXTS,
                         start_value=length)
    show(chart)
    gentle = alibi_gentlest_head(heads)
    formula(r"w_d = \frac{e^{-m d}}{\sum_{d'=0}^{L-1} e^{-m d'}}")
    formula(r"D = \left\lceil\frac{\ln\big(1/(1-$mass)\big)}{m}\right\rceil - 1 = $limit\ \text{for } m = $m"
            r"\ \text{(head } $h\text{); bar: } $exact",
            mass=mass, m=float(views.slope_table(heads).code[gentle]),
            limit=int(alibi_receptive_field_limit(heads, mass)[gentle]), h=gentle + 1, exact=int(fields[gentle]))
    st.caption("The formula is the long-sequence limit (geometric weights); the bars are exact for the chosen "
               "context, which cuts the tail of the gentlest heads.")


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Slopes per head", slopes_tab),
    ("Bias grids", bias_tab),
    ("Bias alone = attention pattern", attention_tab),
    ("Longer than training", lambda page, heads, causal: views.longer_tab(page, heads)),
]


@st.fragment
def lesson():
    guide.panel(alibi_guide_views.GUIDE)
    page = stage()
    with page.side:
        heads = controls.slider("Heads", "h", 1, 64, 8,
                                help="Any count from 1 to 64; non-powers of two use the authors' fill-in rule.")
        mask = controls.choice("Attention", "mask", ["causal", "symmetric"], "causal",
                               help="causal: decoders, future keys are masked. symmetric: the penalty uses "
                                    "|i - j| in both directions (encoders).")
    guide.report("heads_not_power", alibi_geometric_heads(heads) != heads)
    guide.report("symmetric", mask == "symmetric")
    with guard():
        page.walk(TABS, page, heads, mask == "causal")


lesson()
why(WHY)
source(pc.alibi_slopes, pc.alibi_bias, alibi_attention, alibi_receptive_field, alibi_mass_beyond)
