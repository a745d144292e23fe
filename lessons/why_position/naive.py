import streamlit as st

from page_kit import N_, _, classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.lesson.code_lines import fold
from posenc_core.why_position import fraction_code_order, fraction_codes, naive_codes, naive_inputs, naive_norm_ratio

KINDS = ("integer", "fraction", "sinusoidal")
ORDERS = ["same", "shorter", "longer",
          "missing"]  # pc.why_position.fraction_code_order's answers, in the options' order


@st.cache_data(max_entries=32, show_spinner=False)
def ratios(n: int, dim: int):
    return {kind: naive_norm_ratio(n, kind, dim) for kind in KINDS}


@st.cache_data(max_entries=32, show_spinner=False)
def inputs(n: int, dim: int):
    return naive_inputs(n, dim, "integer")


@st.cache_data(max_entries=32, show_spinner=False)
def fractions(short: int, long: int):
    return fraction_codes([short, long])


header(_("Naive position codes"),
       _("Add the position number to every channel, or the position divided by the length: both carry the order, "
         "and both break something the model needs."))
WHY = _("If attention cannot see order, why not just tell it the position? The two obvious ways are to add the "
        "position number itself, or the position divided by the sequence length, to every channel of the token "
        "embedding. Both carry the information, and both break something the model needs, as the figures show.")


def ratio_chart(n: int, d: int) -> figures.Chart:
    r = ratios(n, d)
    sinusoidal = _("sinusoidal (for comparison)")
    return figures.lines(
        range(1, n), {_("integer p"): r["integer"][1:], _("fraction p / n"): r["fraction"][1:],
                      sinusoidal: r["sinusoidal"][1:]},
        title=_("How much bigger the position code is than the word it is added to"),
        x_title=_("position p"), y_title=_("||code|| / ||token embedding||"), log_y=True,
        hlines=[(1.0, _("equal size"))], name="naive_norm_ratio", dashed=[sinusoidal],
        alt=_("Log-scale lines over positions 1 to {last}: the integer code's norm ratio grows with the position "
              "to {integer:,.0f}, the fraction stays below 1, the sinusoidal code stays at {sinusoidal:.2f}.").format(
                  last=n - 1, integer=float(r["integer"][-1]), sinusoidal=float(r["sinusoidal"][-1])))


def integer_tab(page) -> None:
    with page.side:
        n = controls.slider(_("Sequence length n"), "n", 8, 2048, 256, step=8)
        dim = controls.slider(_("Embedding width d"), "d", 2, 256, 32, step=2)
    r = ratios(n, dim)
    last = float(r["integer"][-1])

    def width_reveal() -> str:
        wider = naive_norm_ratio(n, "integer", 2 * dim)
        return _("At position {p} the ratio is {last:,.2f} with d = {dim} and {wider:,.2f} with d = {dim2}: the "
                 "code p·1 and the word both grow like √d, so the width cancels and the ratio is p itself.").format(
                     p=n - 1, last=last, dim=dim, wider=wider[-1], dim2=2 * dim)

    show(hero(ratio_chart, n=n, d=dim))
    classroom.snippet(fold(f"ratio = {{kind: pc.why_position.naive_norm_ratio({n}, kind, {dim}) for kind in "
                           f"{KINDS!r}}}",
                           f"({n},) each: ||code|| / ||token||, the curves from position 1"))
    question = _("Double the embedding width from d = {dim} to {dim2}. What happens to the integer code's size "
                 "relative to the word at position {p}?").format(dim=dim, dim2=2 * dim, p=n - 1)
    with classroom.predict("naive_width", question,
                           [_("it doubles"), _("it grows by √2"), _("it stays the same"), _("it halves")], 2,
                           width_reveal):
        formula(r"\frac{\lVert p\,\mathbf{1}_d\rVert}{\lVert x\rVert} \approx \frac{p\sqrt{d}}{\sqrt{d}} = p"
                r"\quad\Rightarrow\quad p = $last:\ \text{ratio } $ratio", last=n - 1, ratio=last)
        notice(_("Token embeddings here have entries of size about 1, so a word's vector has length about √d. The "
                 "integer code adds p to every channel, so from position 2 on the position outweighs the word, and "
                 "at position {p} it is {p:,} times larger. Gradients through such inputs are badly scaled, and the "
                 "model never saw a position larger than its training length. The width d cancels out of the "
                 "ratio.").format(p=n - 1))
    rows = min(n, 128)
    parts = inputs(rows, dim)
    show(figures.small_multiples(
        [parts.token, parts.sum], [_("token embeddings"), _("token + integer position")],
        title=_("The words, before and after the integer is added (one colour scale)"), cols=2,
        x_title=_("channel"), y_title=_("position"), value_name=_("value"), cell_px=320, name="naive_inputs",
        alt=_("Two heatmaps of {rows} positions by {dim} channels sharing a colour scale: the token embeddings "
              "look like faint noise; after adding the integer position, rows form a smooth ramp and the words "
              "vanish.").format(rows=rows, dim=dim)))
    classroom.snippet(fold(f"parts = {classroom.call('naive_inputs', rows, dim, 'integer')}",
                           f"({rows}, {dim}) each: parts.token, parts.sum, the panels"))
    notice(_("On a shared colour scale the word information is a faint speckle next to the ramp the position "
             "adds: the first layer would mostly see 'how far along', barely 'which word'."))


def fraction_chart(short: int, long: int, p: int) -> figures.Chart:
    # p's slider ends at the longer length: a frame for a shorter length shows p where that slider will put it
    p = min(p, max(short, long) - 1)
    table = fractions(short, long)
    a, b = float(table[0, p]), float(table[1, p])
    return figures.lines(
        range(table.shape[1]),
        {_("length {n}").format(n=short): table[0], _("length {n}").format(n=long): table[1]},
        title=_("p / length for two sequence lengths"), x_title=_("position p"), y_title=_("code p / length"),
        markers=True, vlines=[(p, f"p = {p}")], hlines=[(0.5, _("code 0.5"))], name="naive_fraction",
        alt=_("Two lines of markers for lengths {short} and {long}: the shorter sequence's codes climb faster; at "
              "position {p} the codes are {a:.4f} and {b:.4f} (nan: no such position).").format(
                  short=short, long=long, p=p, a=a, b=b))


def fraction_tab(page) -> None:
    with page.side:
        short = controls.slider(_("Short sequence length"), "short", 2, 64, 10)
        long = controls.slider(_("Long sequence length"), "long", 2, 256, 20)
        p = controls.slider(_("Position p"), "p", 0, max(short, long) - 1, min(5, max(short, long) - 1))
    table = fractions(short, long)
    codes = [(short, float(table[0, p])), (long, float(table[1, p]))]  # NaN: no position p there
    (_short, a), (_long, b) = codes

    def fraction_reveal() -> str:
        first, second = (f"{p}/{length} = {code:.4f}" if code == code else
                         _("a sequence of {length} has no position {p}").format(length=length, p=p)
                         for length, code in codes)
        return _("{first}, {second}: the code of a position depends on the length of the sequence around "
                 "it.").format(first=first, second=second)

    question = _("Position {p} in a sequence of {short} words and in one of {long}: how do its two codes p / L "
                 "compare?").format(p=p, short=short, long=long)
    with classroom.predict("naive_fraction", question,
                           [_("they are the same"), _("larger in the shorter sequence"),
                            _("larger in the longer sequence"), _("one sequence has no such position")],
                           ORDERS.index(fraction_code_order(short, long, p)), fraction_reveal):
        show(hero(fraction_chart, short=short, long=long, p=p))
        classroom.snippet(fold(f"table = {classroom.call('fraction_codes', [short, long])}",
                               f"(2, {max(short, long)}): p / L, NaN past the end"))
        column = _("code of position {p}").format(p=p)
        st.dataframe({_("sequence length"): [short, long], column: table[:, p]},
                     hide_index=True, width="content",
                     column_config={column: st.column_config.NumberColumn(format="%.4f")})
        formula(r"\mathrm{code}(p) = \frac{p}{L}:\quad \frac{$p}{$short} = $a,\qquad \frac{$p}{$long} = $b",
                p=p, short=short, long=long, a=a, b=b)
        notice(_("The same position gets a different code in sequences of different lengths, and the same code "
                 "(0.5) means a different position in each: the middle of one sentence and the middle of another. "
                 "The step between neighbours is 1/L, so 'the next word' has no fixed meaning either. An empty "
                 "cell means the sequence has no such position."))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    (N_("Add the integer"), integer_tab),
    (N_("Divide by the length"), fraction_tab),
]


@st.fragment
def lesson():
    page = stage(more_label=None)  # every control here drives the figure beside it
    with guard():
        page.walk(TABS, page)


lesson()
why(WHY)
source(naive_codes, naive_norm_ratio, fraction_codes)
