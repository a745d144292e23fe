import streamlit as st

import posenc_core as pc
from page_kit import N_, _, classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.lesson.code_lines import fold
from posenc_core.absolute import sinusoidal_wavelength_step
from posenc_core.why_position import binary_codes, binary_column, binary_column_curve, binary_period, binary_waves

TWINS = {"matched": N_("waves matched to the bits"), "paper": N_("the paper's sin/cos table")}


@st.cache_data(max_entries=32, show_spinner=False)
def bits_and_twin(n: int, bits: int, twin: str):
    codes = binary_codes(n, bits)
    if twin == "paper":
        return codes, pc.sinusoidal(n, 2 * bits, layout="concat")[:, :bits]
    return codes, binary_waves(range(n), bits)


@st.cache_data(max_entries=32, show_spinner=False)
def column(bit: int, periods: int):
    return binary_column_curve(bit, periods)


header(_("The binary analogy"),
       _("Write each position in binary and read the bits as columns: each column alternates half as fast as the "
         "one before, the rhythm the sinusoidal encoding smooths into waves."))
WHY = _("Write the position in binary and read the bits as columns. The lowest bit flips at every step, the next "
        "every two steps, the next every four: each column alternates half as fast as the one before. A row of "
        "bits is a unique code for its position. The sinusoidal encoding keeps this idea of fast and slow "
        "columns, but replaces the hard flips with smooth waves.")


def bits_chart(bits: int, n: int, twin: str) -> figures.Chart:
    codes, _waves = bits_and_twin(n, bits, twin)
    return figures.heatmap(
        codes, title=_("Bits of the position ({bits} bits)").format(bits=bits), x_title=_("bit k (0 = lowest)"),
        y_title=_("position"), value_name=_("bit"), signed=False, zrange=(0, 1), height=440, name="binary_bits",
        alt=_("Heatmap of the {bits}-bit code of positions 0 to {last}: column 0 flips every row, each next column "
              "half as often; column {top} flips every {rows} rows.").format(
                  bits=bits, last=n - 1, top=bits - 1, rows=2 ** (bits - 1)))


def twin_chart(bits: int, n: int, twin: str) -> figures.Chart:
    _codes, waves = bits_and_twin(n, bits, twin)
    title = (_("Smooth twins: {formula}").format(formula="cos(pi (p - (2^k - 1)/2) / 2^k)") if twin == "matched"
             else _("Sinusoidal sines, d = {d}, base 10,000").format(d=2 * bits))
    return figures.heatmap(
        waves, title=title, x_title=_("column k"), y_title=_("position"), value_name=_("value"), signed=True,
        height=440, name="binary_waves",
        alt=_("Heatmap of {bits} columns of smooth waves over positions 0 to {last} ({twin}), slowing down from "
              "left to right like the bits.").format(bits=bits, last=n - 1, twin=_(TWINS[twin])))


def twin_snippet(bits: int, n: int, twin: str) -> None:
    classroom.snippet(fold(f"codes = {classroom.call('binary_codes', n, bits)}", f"({n}, {bits}) int8: left"),
                      fold(f"waves = pc.why_position.binary_waves(range({n}), {bits})", f"({n}, {bits}) float64: right")
                      if twin == "matched" else
                      fold(f"waves = pc.sinusoidal({n}, {2 * bits}, layout='concat')[:, :{bits}]",
                           f"({n}, {bits}) float32: the sines, right"))


def table_tab(page, bits: int, n: int) -> None:
    with page.side:
        twin = controls.choice(_("Next to the bits"), "twin", list(TWINS), "matched",
                               format_func=lambda k: _(TWINS[k]))
    period = binary_period(bits)  # the row where the whole pattern starts over

    def repeat_reveal() -> str:
        read = "".join(str(b) for b in binary_codes(period + 1, bits)[period][::-1])
        where = (_("You can see the pattern restart in the bits at row {period}.").format(period=period)
                 if n > period else _("Raise Positions above {period} to see the pattern restart.").format(
                     period=period))
        return _("The slowest column, bit {top}, flips every {half} positions, so row {period} reads {read} "
                 "(highest bit first), the same bits as row 0: {bits} bits only tell {period} positions apart. "
                 "{where}").format(top=bits - 1, half=period // 2, period=period, read=read, bits=bits, where=where)

    left, right = st.columns(2)
    with left:  # both panels drawn ahead of the hand, so they move together
        show(hero(bits_chart, bits=bits, n=n, twin=twin))
    question = _("With {bits} bits, after how many positions does the whole bit pattern start over?").format(
        bits=bits)
    with right, classroom.predict("binary_repeat", question,
                                  [_("after bits positions"), _("after 2 × bits positions"),
                                   _("after 2^bits positions"), _("never: each row is unique")], 2, repeat_reveal):
        show(hero(twin_chart, bits=bits, n=n, twin=twin))
        twin_snippet(bits, n, twin)
        if twin == "matched":
            # three short formulas rather than one long row: they sit in half the page's width
            formula(r"\mathrm{bit}_k(p) = \left\lfloor p / 2^k \right\rfloor \bmod 2")
            formula(r"\operatorname{sign}\cos\!\Big(\frac{\pi\,(p - (2^k-1)/2)}{2^k}\Big) = 1 - 2\,"
                    r"\mathrm{bit}_k(p)")
            formula(r"\text{period of column } $last = 2^{$bits} = $period", last=bits - 1, bits=bits,
                    period=period)
            if n > period:
                notice(_("Both tables have the same rhythm: column k repeats every 2^(k+1) positions. Round each "
                         "wave to its sign and you get the bit back exactly (the wave is negative where the bit is 1, "
                         "positive where it is 0). But the waves take every value between -1 and 1, change "
                         "gradually from one row to the next, and are defined between whole positions; bits jump. "
                         "With {bits} bits the code repeats after {period} positions, which you can see as the "
                         "pattern restarting.").format(bits=bits, period=period))
            else:
                notice(_("Both tables have the same rhythm: column k repeats every 2^(k+1) positions. Round each "
                         "wave to its sign and you get the bit back exactly (the wave is negative where the bit is 1, "
                         "positive where it is 0). But the waves take every value between -1 and 1, change "
                         "gradually from one row to the next, and are defined between whole positions; bits jump.")
                       + " ")  # the sentence as it read before it was marked (a trailing space)
        else:
            formula(r"PE_{(p,\,k)} = \sin\!\big(p\cdot 10000^{-2k/$d}\big),\quad k < $bits", d=2 * bits, bits=bits)
            notice(_("The paper's columns also slow down from left to right, but by a factor of 10000^(2/{d}) = "
                     "{step:.2f} per column instead of 2, so a few columns cover a very long range. Only the sines "
                     "are shown; each has a cosine partner, which is what makes shifting a position a "
                     "rotation.").format(d=2 * bits, step=sinusoidal_wavelength_step(2 * bits, 10000)))


def column_chart(k: int) -> figures.Chart:
    xs, col = column(k, 2)
    return figures.lines(
        xs, {f"1 - 2 bit_{k}(p)": col.signed, _("smooth twin of bit {k}").format(k=k): col.wave},
        title=_("Bit {k} against its wave over two periods ({period} positions each)").format(k=k, period=2 ** (k + 1)),
        x_title=_("position p (fractional positions allowed)"), y_title=_("value"), name="binary_column",
        alt=_("A square wave stepping between 1 and -1 every {step} positions and a cosine with the same period of "
              "{period} positions passing smoothly through it.").format(step=2 ** k, period=2 ** (k + 1)))


def column_tab(page, bits: int, n: int) -> None:
    with page.side:
        k = controls.slider(_("Bit k"), "k", 0, bits - 1, min(2, bits - 1))
    show(hero(column_chart, k=k))  # the curves do not depend on the number of bits, only on k
    classroom.snippet(fold(f"xs, col = {classroom.call('binary_column_curve', k, 2)}", "xs (801,) positions"),
                      "# col.signed and col.wave (801,): the two curves")
    formula(r"\text{period} = 2^{k+1} = $period\ \text{positions},\qquad "
            r"\text{wave}_k(p) = \cos\!\Big(\frac{\pi\,(p - $shift)}{$half}\Big)",
            period=2 ** (k + 1), shift=(2 ** k - 1) / 2, half=2 ** k)
    notice(_("The square wave is the bit (scaled to ±1): flat, then a jump. The cosine crosses zero exactly "
             "between the jumps' neighbours and changes a little at every step. A network copes far better with "
             "that: nearby positions get nearby codes, the values stay bounded, and, with a sine beside each "
             "cosine, moving by k positions is the same rotation everywhere."))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    (N_("Bits next to waves"), table_tab),
    (N_("One column up close"), column_tab),
]


@st.fragment
def lesson():
    page = stage(more_label=None)  # every control here drives the figure beside it
    with page.side:
        bits = controls.slider(_("Bits"), "bits", 2, 10, 6, help=_("Columns of the binary code."))
        n = controls.slider(_("Positions"), "n", 8, 1024, 64, step=8, help=_("Rows: positions 0 to n-1."))
    with guard():
        page.walk(TABS, page, bits, n)


lesson()
why(WHY)
source(binary_codes, binary_waves, binary_column)
