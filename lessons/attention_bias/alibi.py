import streamlit as st

import posenc_core as pc
from lessons.attention_bias import alibi_guide_views
from lessons.attention_bias import alibi_views as views
from page_kit import (
    N_,
    _,
    classroom,
    controls,
    figures,
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

header(_("ALiBi: attention with linear biases"),
       _("ALiBi lowers every attention score by a penalty that grows linearly with the distance, at a fixed slope "
         "per head: steep heads look at their neighbours, gentle heads look far back."), alibi_guide_views.GUIDE)
WHY = _("ALiBi adds no vector to any token. Instead, every attention score is lowered by a penalty that grows "
        "linearly with the distance between query and key, and each head gets its own slope: steep heads look "
        "only at their neighbours, gentle heads look far back. The slopes are fixed numbers, not learned, and "
        "nothing about the penalty depends on the training length, which is why ALiBi copes with longer inputs.")


def grid_length(page) -> int:
    """The grids' size, beside the bias and attention figures that use it."""
    with page.side:
        return controls.slider(_("Grid size n"), "n", 4, 96, 24, step=4,
                               help=_("Queries and keys in the grids of the bias and attention tabs."))


def slopes_chart(h: int) -> figures.Chart:
    table = views.slope_table(h)
    return figures.bars(
        table.head, {_("authors' code (used by models)"): table.code, _("paper: 2^(-8h/n)"): table.paper},
        title=ngettext("Slopes for {h} head", "Slopes for {h} heads", h).format(h=h), x_title=_("head h"),
        y_title=_("slope m (log scale)"), log_y=True, name="alibi_slopes",
        alt=_("Bar chart of the {h} ALiBi slopes from the authors' code next to the paper's geometric "
              "sequence; they agree for powers of two and differ otherwise.").format(h=h))


def bias_chart(h: int, n: int, causal: bool) -> figures.Chart:
    shown, grids = views.bias_panels(h, n, causal)
    slopes = views.slope_table(h).code
    return figure_control.pick(figures.small_multiples(
        grids, [_("head {k}: m = {m:.4g}").format(k=k + 1, m=slopes[k]) for k in shown],
        title=(_("ALiBi bias per head (causal), {n} x {n}") if causal else
               _("ALiBi bias per head (symmetric), {n} x {n}")).format(n=n), value_name=_("bias"),
        name="alibi_bias",
        alt=_("{count} bias grids, one per head: zero on the diagonal and falling linearly away from it; "
              "steeper heads fall faster.").format(count=len(shown))
        + (" " + _("Masked future keys are blank.") if causal else "")), distance="off")


def slopes_tab(page, heads: int, causal: bool) -> None:
    table = views.slope_table(heads)
    show(hero(slopes_chart, h=heads))
    classroom.snippet(f"slopes = {classroom.call('alibi_slopes', heads)}  # one per head, as plotted")
    now, later = float(table.code[0]), float(views.slope_table(2 * heads).code[0])
    first, first_doubled = alibi_geometric_heads(heads), alibi_geometric_heads(2 * heads)

    def doubled() -> str:
        return _("With {h2} heads head 1's slope is {later:.4g} = 2^(-8/{p2}), up from {now:.4g}: "
                 "the first slope is 2^(-8/n') for the largest power of two n' up to the head count, so more heads "
                 "start gentler and step down to 2^(-8) = 1/256 more finely.").format(
                     h2=2 * heads, later=later, p2=first_doubled, now=now)

    with classroom.predict("doubled", ngettext(
            "The chart shows {h} head. Double them to {h2}: what becomes of head 1's slope, now {now:.4g}?",
            "The chart shows {h} heads. Double them to {h2}: what becomes of head 1's slope, now {now:.4g}?",
            heads).format(h=heads, h2=2 * heads, now=now),
                           [_("it stays {now:.4g}").format(now=now), _("it grows"), _("it halves")], 1, doubled):
        formula(r"m_1 = 2^{-8/n'}:\quad $now\ (n = $h)\ \to\ $later\ (n = $h2,\ n' = $p2)",
                now=now, h=heads, later=later, h2=2 * heads, p2=first_doubled)
    if first == heads:
        notice(_("{h} is a power of two, so the code and the paper agree: a geometric sequence that starts at "
                 "2^(-8/{h}) and ends at 2^(-8) = 1/256.").format(h=heads))
    else:
        notice(_("{h} is not a power of two. The code takes the {p} slopes of a {p}-head model (heads "
                 "1-{p}) and fills heads {next}-{h} with every other slope of the {p2}-head "
                 "sequence, so the extra heads sit halfway between existing ones. The paper's formula would instead "
                 "spread all heads evenly; models such as BLOOM use the code, so this page does too.").format(
                     h=heads, p=first, next=first + 1, p2=2 * first))
    formula(r"m_h = 2^{-8h/n'}\ (h \le n')")  # one rule a row: each fits a phone's width
    formula(r"m_{n'+k} = 2^{-8(2k-1)/(2n')}\ (k = 1..n-n')")
    formula(r"n' = 2^{\lfloor\log_2 n\rfloor} = $p", p=first)
    code, log2, paper = _("slope (code)"), _("log2 slope"), _("slope (paper)")
    number = {c: st.column_config.NumberColumn(format=f) for c, f in ((code, "%.6f"), (log2, "%.2f"), (paper, "%.6f"))}
    st.dataframe({_("head"): table.head, _("group"): table.group, code: table.code,
                  log2: table.log2_code, paper: table.paper},
                 hide_index=True, height=min(36 * heads + 40, 320), column_config=number)
    st.caption(_("A common misconception gives 1/2¹ … 1/2¹⁶ for 16 heads. In fact 16 heads start at 2^(-0.5) ≈ "
                 "0.707 and halve every second head, ending at 2^(-8) = 1/256, as the table shows for h = 16. The "
                 "rule '1/2^h' holds only for 8 heads."))


def bias_tab(page, heads: int, causal: bool) -> None:
    n = grid_length(page)
    shown, grids = views.bias_panels(heads, n, causal)
    slopes = views.slope_table(heads).code
    show(hero(bias_chart, h=heads, n=n, causal=causal))
    # a click on a cell picks its distance i − j for the formula below; this slider is its twin
    with page.side:
        off = controls.slider(_("Distance i − j (or click a cell)"), "off", 0, n - 1, n - 1)
    if len(shown) < heads:
        st.caption(_("Showing heads {shown} of {n}.").format(shown=", ".join(str(h + 1) for h in shown), n=heads))
    notice(_("Every diagonal has one value: the bias depends only on the distance i - j, like the sinusoidal dot "
             "products, but here it is put straight into the score. All panels share one colour scale, so the "
             "steep heads' dark corners are real: their penalties are large."))
    formula(r"B^{(h)}_{ij} = -m_h\,(i - j)\ \ (j \le i), \qquad B^{(1)}_{$last,$j} = -$m \times $off = $value",
            last=n - 1, j=n - 1 - off, off=off, m=float(slopes[0]), value=float(grids[0][n - 1, n - 1 - off]))


def attention_tab(page, heads: int, causal: bool) -> None:
    n = grid_length(page)
    show(hero(views.attention_chart, h=heads, n=n, causal=causal))
    notice(_("With equal content scores the content cancels in the softmax and only the bias is left. Steep heads "
             "attend almost only to the token itself and its neighbours; the gentlest heads spread their weight "
             "over the whole window. This is each head's default receptive field; content scores then move weight "
             "around inside it."))
    c1, c2 = st.columns(2)
    with c1:
        length = controls.select_slider(_("Context for the receptive field"), "ctx", CONTEXTS, 1024,
                                        format_func=lambda v: f"{v:,}")
    with c2:
        mass = controls.slider(_("Share of the attention"), "mass", 0.5, 0.99, 0.9, step=0.01)
    guide.report("mass_099", mass >= 0.99)
    fields = views.receptive_fields(heads, length, mass)

    chart = hero(views.field_chart, h=heads, ctx=length, mass=mass)
    if controls.toggle(_("Animate the context growing"), "play_ctx",
                       help=_("A scrub bar and a Play button under the bars: the context grows from 16 to 16,384 "
                              "tokens; steep heads stop growing at once, gentle heads keep going.")):
        animation.attach(chart, lambda context: views.field_chart(heads, context, mass), "context", PLAY_CONTEXTS,
                         start_value=length)
    show(chart)
    gentle = alibi_gentlest_head(heads)
    formula(r"w_d = \frac{e^{-m d}}{\sum_{d'=0}^{L-1} e^{-m d'}}")
    formula(r"D = \left\lceil\frac{\ln\big(1/(1-$mass)\big)}{m}\right\rceil - 1 = $limit\ \text{for } m = $m"
            r"\ \text{(head } $h\text{); bar: } $exact",
            mass=mass, m=float(views.slope_table(heads).code[gentle]),
            limit=int(alibi_receptive_field_limit(heads, mass)[gentle]), h=gentle + 1, exact=int(fields[gentle]))
    st.caption(_("The formula is the long-sequence limit (geometric weights); the bars are exact for the chosen "
                 "context, which cuts the tail of the gentlest heads."))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
# Labels are marked N_() and shown translated by page.walk; a guide step's view keeps the English label.
TABS = [
    (N_("Slopes per head"), slopes_tab),
    (N_("Bias grids"), bias_tab),
    (N_("Bias alone = attention pattern"), attention_tab),
    (N_("Longer than training"), lambda page, heads, causal: views.longer_tab(page, heads)),
]
MASKS = {"causal": N_("causal"), "symmetric": N_("symmetric")}


@st.fragment
def lesson():
    guide.panel(alibi_guide_views.GUIDE)
    page = stage()
    with page.side:
        heads = controls.slider(_("Heads"), "h", 1, 64, 8,
                                help=_("Any count from 1 to 64; non-powers of two use the authors' fill-in rule."))
        mask = controls.choice(_("Attention"), "mask", list(MASKS), "causal", format_func=lambda k: _(MASKS[k]),
                               help=_("causal: decoders, future keys are masked. symmetric: the penalty uses "
                                      "|i - j| in both directions (encoders)."))
    guide.report("heads_not_power", alibi_geometric_heads(heads) != heads)
    guide.report("symmetric", mask == "symmetric")
    with guard():
        page.walk(TABS, page, heads, mask == "causal")


lesson()
why(WHY)
source(pc.alibi_slopes, pc.alibi_bias, alibi_attention, alibi_receptive_field, alibi_mass_beyond)
