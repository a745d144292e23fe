import streamlit as st

import posenc_core as pc
from page_kit import animation, classroom, controls, figures, formula, guard, header, notice, show, source, stage, why

TRAIN_LENGTHS = [128, 256, 512, 1024, 2048]
MAX_PANELS = 8
PLAY_CONTEXTS = [int(round(2 ** (k / 3))) for k in range(12, 43)]  # 16 to 16,384 tokens, 3 frames an octave


@st.cache_data(max_entries=32, show_spinner=False)
def slope_table(heads: int):
    return pc.alibi_slope_table(heads)


@st.cache_data(max_entries=32, show_spinner=False)
def bias_panels(heads: int, n: int, causal: bool):
    shown = list(range(0, heads, -(-heads // MAX_PANELS)))  # at most 8 heads, spread over all of them
    grids = pc.alibi_bias(heads, n, n, causal)
    return shown, [figures.blank_masked(grids[h]) for h in shown]


@st.cache_data(max_entries=32, show_spinner=False)
def attention_panels(heads: int, n: int, causal: bool):
    shown = list(range(0, heads, -(-heads // MAX_PANELS)))
    weights = pc.alibi_attention(heads, n, causal)
    return shown, [weights[h] for h in shown]


@st.cache_data(max_entries=32, show_spinner=False)
def receptive_fields(heads: int, length: int, mass: float):
    return pc.alibi_receptive_field(heads, length, mass)


@st.cache_data(max_entries=32, show_spinner=False)
def distance_bias(heads: int, length: int):
    return pc.alibi_bias_by_distance(heads, length)


@st.cache_data(max_entries=32, show_spinner=False)
def beyond(heads: int, train_len: int, eval_len: int):
    return pc.alibi_mass_beyond(heads, train_len, eval_len)


header("ALiBi: attention with linear biases",
       "ALiBi lowers every attention score by a penalty that grows linearly with the distance, at a fixed slope "
       "per head: steep heads look at their neighbours, gentle heads look far back.")
WHY = ("ALiBi adds no vector to any token. Instead, every attention score is lowered by a penalty that grows "
       "linearly with the distance between query and key, and each head gets its own slope: steep heads look "
       "only at their neighbours, gentle heads look far back. The slopes are fixed numbers, not learned, and "
       "nothing about the penalty depends on the training length, which is why ALiBi copes with longer inputs.")


def grid_length(page) -> int:
    """The grids' size, beside the bias and attention figures that use it."""
    with page.side:
        return controls.slider("Grid size n", "n", 4, 96, 24, step=4,
                               help="Queries and keys in the grids of the bias and attention tabs.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        heads = controls.slider("Heads", "h", 1, 64, 8, help="Any count from 1 to 64; non-powers of two use the "
                                                             "authors' fill-in rule.")
        mask = controls.choice("Attention", "mask", ["causal", "symmetric"], "causal",
                               help="causal: decoders, future keys are masked. symmetric: the penalty uses "
                                    "|i - j| in both directions (encoders).")
    causal = mask == "causal"

    tab_slopes, tab_bias, tab_attn, tab_long = page.sections(
        ["Slopes per head", "Bias grids", "Bias alone = attention pattern", "Longer than training"])

    with guard():
        if tab_slopes.open:
            with tab_slopes:
                table = slope_table(heads)

                show(figures.bars(
                    table["head"], {"authors' code (used by models)": table["code"],
                                    "paper: 2^(-8h/n)": table["paper"]},
                    title=f"Slopes for {heads} head{'s' if heads > 1 else ''}", x_title="head h",
                    y_title="slope m (log scale)", log_y=True, name="alibi_slopes",
                    alt=f"Bar chart of the {heads} ALiBi slopes from the authors' code next to the paper's "
                        "geometric sequence; they agree for powers of two and differ otherwise."))
                classroom.snippet(f"slopes = {classroom.call('alibi_slopes', heads)}  # one per head, as plotted")
                now, later = float(table["code"][0]), float(slope_table(2 * heads)["code"][0])
                first_group = int((slope_table(2 * heads)["group"] == "geometric").sum())

                def doubled() -> str:
                    return (f"With {2 * heads} heads head 1's slope is {later:.4g} = 2^(-8/{first_group}), up from "
                            f"{now:.4g}: the first slope is 2^(-8/n') for the largest power of two n' up to the "
                            "head count, so more heads start gentler and step down to 2^(-8) = 1/256 more finely.")

                with classroom.predict("doubled", f"Double the heads from {heads} to {2 * heads}. What becomes of "
                                       f"head 1's slope, now {now:.4g}?",
                                       [f"it stays {now:.4g}", f"it grows to {later:.4g}", f"it halves to "
                                        f"{now / 2:.4g}"], 1, doubled):
                    formula(r"m_1 = 2^{-8/n'}:\quad $now\ (n = $h)\ 	o\ $later\ (n = $h2,\ n' = $p2)",
                            now=now, h=heads, later=later, h2=2 * heads, p2=first_group)
                p = int((table["group"] == "geometric").sum())
                if p == heads:
                    notice(f"{heads} is a power of two, so the code and the paper agree: a geometric sequence "
                           f"that starts at 2^(-8/{heads}) and ends at 2^(-8) = 1/256.")
                else:
                    notice(f"{heads} is not a power of two. The code takes the {p} slopes of a {p}-head model "
                           f"(heads 1-{p}) and fills heads {p + 1}-{heads} with every other slope of the "
                           f"{2 * p}-head sequence, so the extra heads sit halfway between existing ones. The "
                           "paper's formula would instead spread all heads evenly; models such as BLOOM use "
                           "the code, so this page does too.")
                formula(r"m_h = 2^{-8h/n'}\ (h \le n'),\qquad m_{n'+k} = 2^{-8(2k-1)/(2n')}\ (k = 1..n-n'),"
                        r"\qquad n' = 2^{\lfloor\log_2 n\rfloor} = $p", p=p)
                st.dataframe({"head": table["head"], "group": table["group"], "slope (code)": table["code"],
                              "log2 slope": table["log2_code"], "slope (paper)": table["paper"]},
                             hide_index=True, height=min(36 * heads + 40, 320),
                             column_config={"slope (code)": st.column_config.NumberColumn(format="%.6f"),
                                            "log2 slope": st.column_config.NumberColumn(format="%.2f"),
                                            "slope (paper)": st.column_config.NumberColumn(format="%.6f")})
                st.caption("A common misconception gives 1/2¹ … 1/2¹⁶ for 16 heads. In fact 16 heads "
                           "start at 2^(-0.5) ≈ 0.707 and halve every second head, ending at 2^(-8) = 1/256, "
                           "as the table shows for h = 16. The rule '1/2^h' holds only for 8 heads.")

        if tab_bias.open:
            with tab_bias:
                n = grid_length(page)
                shown, grids = bias_panels(heads, n, causal)
                slopes = slope_table(heads)["code"]
                show(figures.small_multiples(
                    grids, [f"head {h + 1}: m = {slopes[h]:.4g}" for h in shown],
                    title=f"ALiBi bias per head ({mask}), {n} x {n}", value_name="bias", name="alibi_bias",
                    alt=f"{len(shown)} bias grids, one per head: zero on the diagonal and falling linearly "
                        "away from it; steeper heads fall faster." + (" Masked future keys are blank."
                                                                      if causal else "")))
                if len(shown) < heads:
                    st.caption(f"Showing heads {', '.join(str(h + 1) for h in shown)} of {heads}.")
                notice("Every diagonal has one value: the bias depends only on the distance i - j, like the "
                       "sinusoidal dot products, but here it is put straight into the score. All panels share "
                       "one colour scale, so the steep heads' dark corners are real: their penalties are large.")
                formula(r"B^{(h)}_{ij} = -m_h\,(i - j)\ \ (j \le i), \qquad B^{(1)}_{$last,0} = -$m \times $last = "
                        r"$value", last=n - 1, m=float(slopes[0]), value=-float(slopes[0]) * (n - 1))

        if tab_attn.open:
            with tab_attn:
                n = grid_length(page)
                shown, weights = attention_panels(heads, n, causal)
                show(figures.small_multiples(
                    weights, [f"head {h + 1}" for h in shown], title="softmax(bias) when all content scores "
                    "are equal", value_name="weight", name="alibi_attention",
                    alt="Attention grids produced by the bias alone: steep heads put nearly all weight on the "
                        "diagonal, gentle heads spread it over many keys."))
                notice("With equal content scores the content cancels in the softmax and only the bias is left. "
                       "Steep heads attend almost only to the token itself and its neighbours; the gentlest "
                       "heads spread their weight over the whole window. This is each head's default "
                       "receptive field; content scores then move weight around inside it.")
                c1, c2 = st.columns(2)
                with c1:
                    length = controls.select_slider("Context for the receptive field", "ctx",
                                                    [64, 256, 1024, 4096, 16384], 1024, format_func=lambda v: f"{v:,}")
                with c2:
                    mass = controls.slider("Share of the attention", "mass", 0.5, 0.99, 0.9, step=0.01)
                fields = receptive_fields(heads, length, mass)

                def field_chart(context):
                    return figures.bars(
                        slope_table(heads)["head"], {"receptive field": receptive_fields(heads, int(context), mass)},
                        log_y=True, y_range=(0, 4.3),
                        title=f"Distance that holds {mass:.0%} of the last query's attention ({context:,} tokens)",
                        x_title="head h", y_title="distance back (tokens, log scale)", name="alibi_fields",
                        alt="Bar chart of the effective receptive field per head; it grows as the slope shrinks.")

                chart = field_chart(length)
                if controls.toggle("Animate the context growing", "play_ctx",
                                   help="A scrub bar and a Play button under the bars: the context grows from 16 to "
                                        "16,384 tokens; steep heads stop growing at once, gentle heads keep going."):
                    animation.attach(chart, field_chart, "context", PLAY_CONTEXTS, start_value=length)
                show(chart)
                gentle = int(slope_table(heads)["code"].argmin())
                formula(r"w_d = \frac{e^{-m d}}{\sum_{d'=0}^{L-1} e^{-m d'}},\qquad D = \left\lceil"
                        r"\frac{\ln\big(1/(1-$mass)\big)}{m}\right\rceil - 1 = $limit\ \text{for } m = $m"
                        r"\ \text{(head } $h\text{); bar: } $exact",
                        mass=mass, m=float(slope_table(heads)["code"][gentle]),
                        limit=int(pc.alibi_receptive_field_limit(heads, mass)[gentle]), h=gentle + 1,
                        exact=int(fields[gentle]))
                st.caption("The formula is the long-sequence limit (geometric weights); the bars are exact for "
                           "the chosen context, which cuts the tail of the gentlest heads.")

        if tab_long.open:
            with tab_long:
                with page.side:
                    train = controls.select_slider("Training length", "train", TRAIN_LENGTHS, 512,
                                                   format_func=lambda v: f"{v:,}")
                    factor = controls.select_slider("Evaluate at", "factor", [1, 2, 4, 8], 4,
                                                    format_func=lambda v: f"{v}x training")
                eval_len = train * factor
                share = beyond(heads, train, eval_len)
                table = slope_table(heads)
                picks = sorted({0, heads // 2, heads - 1})
                lines = distance_bias(heads, eval_len)
                show(figures.lines(
                    range(eval_len), {f"head {h + 1} (m = {table['code'][h]:.3g})": lines[h] for h in picks},
                    title=f"Bias against distance, up to {eval_len:,} tokens", x_title="distance back (tokens)",
                    y_title="bias added to the score", vlines=[(train, "training length")], name="alibi_long",
                    alt="Straight lines of bias against distance for three heads, continuing past the training "
                        "length with the same slope."))
                notice("Nothing happens at the training length: the lines keep their slope, so a distance the "
                       "model never saw just gets a bigger penalty of the same kind. A head that was local in "
                       "training stays local.")
                show(figures.bars(
                    table["head"], {"share of attention beyond the training length": share},
                    title=f"Attention of the last query that lands on keys more than {train:,} tokens back",
                    x_title="head h", y_title="share of the attention", hover_format=".3g", name="alibi_beyond",
                    alt="Bar chart of the attention share beyond the training distance per head: vanishing for "
                        "steep heads, a few percent for the gentlest."))
                gentle = int(table["code"].argmin())
                formula(r"\text{share}_h = \sum_{d \ge $train} w_d \approx e^{-m_h \cdot $train},\qquad"
                        r"\text{head } $h\ (m = $m):\ $share", train=train, share=float(share[gentle]),
                        h=gentle + 1, m=float(table["code"][gentle]))
                st.caption(f"Equal content scores, {eval_len:,} tokens. Distance {train:,} and beyond never "
                           "occurred in training; only the gentlest heads hand it noticeable weight.")


lesson()
why(WHY)
source(pc.alibi_slopes, pc.alibi_bias, pc.alibi_attention, pc.alibi_receptive_field, pc.alibi_mass_beyond)
