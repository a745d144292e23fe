import streamlit as st

import posenc_core as pc
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.lesson.code_lines import fold
from posenc_core.absolute import sinusoidal_wavelength_step
from posenc_core.why_position import binary_codes, binary_column, binary_column_curve, binary_period, binary_waves

TWINS = {"matched": "waves matched to the bits", "paper": "the paper's sin/cos table"}


@st.cache_data(max_entries=32, show_spinner=False)
def bits_and_twin(n: int, bits: int, twin: str):
    codes = binary_codes(n, bits)
    if twin == "paper":
        return codes, pc.sinusoidal(n, 2 * bits, layout="concat")[:, :bits]
    return codes, binary_waves(range(n), bits)


@st.cache_data(max_entries=32, show_spinner=False)
def column(bit: int, periods: int):
    return binary_column_curve(bit, periods)


header("The binary analogy",
       "Write each position in binary and read the bits as columns: each column alternates half as fast as the "
       "one before, the rhythm the sinusoidal encoding smooths into waves.")
WHY = ("Write the position in binary and read the bits as columns. The lowest bit flips at every step, the next "
       "every two steps, the next every four: each column alternates half as fast as the one before. A row of "
       "bits is a unique code for its position. The sinusoidal encoding keeps this idea of fast and slow "
       "columns, but replaces the hard flips with smooth waves.")


def bits_chart(bits: int, n: int, twin: str) -> figures.Chart:
    codes, _ = bits_and_twin(n, bits, twin)
    return figures.heatmap(
        codes, title=f"Bits of the position ({bits} bits)", x_title="bit k (0 = lowest)", y_title="position",
        value_name="bit", signed=False, zrange=(0, 1), height=440, name="binary_bits",
        alt=f"Heatmap of the {bits}-bit code of positions 0 to {n - 1}: column 0 flips every row, each next "
            f"column half as often; column {bits - 1} flips every {2 ** (bits - 1)} rows.")


def twin_chart(bits: int, n: int, twin: str) -> figures.Chart:
    _, waves = bits_and_twin(n, bits, twin)
    title = ("Smooth twins: cos(pi (p - (2^k - 1)/2) / 2^k)" if twin == "matched"
             else f"Sinusoidal sines, d = {2 * bits}, base 10,000")
    return figures.heatmap(
        waves, title=title, x_title="column k", y_title="position", value_name="value", signed=True, height=440,
        name="binary_waves",
        alt=f"Heatmap of {bits} columns of smooth waves over positions 0 to {n - 1} ({TWINS[twin]}), slowing "
            "down from left to right like the bits.")


def twin_snippet(bits: int, n: int, twin: str) -> None:
    classroom.snippet(fold(f"codes = {classroom.call('binary_codes', n, bits)}", f"({n}, {bits}) int8: left"),
                      fold(f"waves = pc.why_position.binary_waves(range({n}), {bits})", f"({n}, {bits}) float64: right")
                      if twin == "matched" else
                      fold(f"waves = pc.sinusoidal({n}, {2 * bits}, layout='concat')[:, :{bits}]",
                           f"({n}, {bits}) float32: the sines, right"))


def table_tab(page, bits: int, n: int) -> None:
    with page.side:
        twin = controls.choice("Next to the bits", "twin", list(TWINS), "matched", format_func=TWINS.get)
    period = binary_period(bits)  # the row where the whole pattern starts over

    def repeat_reveal() -> str:
        read = "".join(str(b) for b in binary_codes(period + 1, bits)[period][::-1])
        where = (f"You can see the pattern restart in the bits at row {period}." if n > period
                 else f"Raise Positions above {period} to see the pattern restart.")
        return (f"The slowest column, bit {bits - 1}, flips every {period // 2} positions, so row "
                f"{period} reads {read} (highest bit first), the same bits as row 0: "
                f"{bits} bits only tell {period} positions apart. {where}")

    left, right = st.columns(2)
    with left:  # both panels drawn ahead of the hand, so they move together
        show(hero(bits_chart, bits=bits, n=n, twin=twin))
    with right, classroom.predict("binary_repeat", f"With {bits} bits, after how many positions does the whole "
                                  "bit pattern start over?",
                                  ["after bits positions", "after 2 × bits positions", "after 2^bits positions",
                                   "never: each row is unique"], 2, repeat_reveal):
        show(hero(twin_chart, bits=bits, n=n, twin=twin))
        twin_snippet(bits, n, twin)
        if twin == "matched":
            # three short formulas rather than one long row: they sit in half the page's width
            formula(r"\mathrm{bit}_k(p) = \left\lfloor p / 2^k \right\rfloor \bmod 2")
            formula(r"\operatorname{sign}\cos\!\Big(\frac{\pi\,(p - (2^k-1)/2)}{2^k}\Big) = 1 - 2\,"
                    r"\mathrm{bit}_k(p)")
            formula(r"\text{period of column } $last = 2^{$bits} = $period", last=bits - 1, bits=bits,
                    period=period)
            notice("Both tables have the same rhythm: column k repeats every 2^(k+1) positions. Round each wave to "
                   "its sign and you get the bit back exactly (the wave is negative where the bit is 1, positive "
                   "where it is 0). But the waves take every value between -1 and 1, change gradually from one "
                   "row to the next, and are defined between whole positions; bits jump. "
                   + (f"With {bits} bits the code repeats after {period} positions, which you can see as the "
                      "pattern restarting." if n > period else ""))
        else:
            formula(r"PE_{(p,\,k)} = \sin\!\big(p\cdot 10000^{-2k/$d}\big),\quad k < $bits", d=2 * bits, bits=bits)
            notice("The paper's columns also slow down from left to right, but by a factor of "
                   f"10000^(2/{2 * bits}) = {sinusoidal_wavelength_step(2 * bits, 10000):.2f} per column "
                   "instead of 2, so a few columns cover a very long range. Only the sines are shown; each has a "
                   "cosine partner, which is what makes shifting a position a rotation.")


def column_chart(k: int) -> figures.Chart:
    xs, col = column(k, 2)
    return figures.lines(
        xs, {f"1 - 2 bit_{k}(p)": col.signed, f"smooth twin of bit {k}": col.wave},
        title=f"Bit {k} against its wave over two periods ({2 ** (k + 1)} positions each)",
        x_title="position p (fractional positions allowed)", y_title="value", name="binary_column",
        alt=f"A square wave stepping between 1 and -1 every {2 ** k} positions and a cosine with the same period "
            f"of {2 ** (k + 1)} positions passing smoothly through it.")


def column_tab(page, bits: int, n: int) -> None:
    with page.side:
        k = controls.slider("Bit k", "k", 0, bits - 1, min(2, bits - 1))
    show(hero(column_chart, k=k))  # the curves do not depend on the number of bits, only on k
    classroom.snippet(fold(f"xs, col = {classroom.call('binary_column_curve', k, 2)}", "xs (801,) positions"),
                      "# col.signed and col.wave (801,): the two curves")
    formula(r"\text{period} = 2^{k+1} = $period\ \text{positions},\qquad "
            r"\text{wave}_k(p) = \cos\!\Big(\frac{\pi\,(p - $shift)}{$half}\Big)",
            period=2 ** (k + 1), shift=(2 ** k - 1) / 2, half=2 ** k)
    notice("The square wave is the bit (scaled to ±1): flat, then a jump. The cosine crosses zero exactly between "
           "the jumps' neighbours and changes a little at every step. A network copes far better with that: "
           "nearby positions get nearby codes, the values stay bounded, and, with a sine beside each cosine, "
           "moving by k positions is the same rotation everywhere.")


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Bits next to waves", table_tab),
    ("One column up close", column_tab),
]


@st.fragment
def lesson():
    page = stage(more_label=None)  # every control here drives the figure beside it
    with page.side:
        bits = controls.slider("Bits", "bits", 2, 10, 6, help="Columns of the binary code.")
        n = controls.slider("Positions", "n", 8, 1024, 64, step=8, help="Rows: positions 0 to n-1.")
    with guard():
        page.walk(TABS, page, bits, n)


lesson()
why(WHY)
source(binary_codes, binary_waves, binary_column)
