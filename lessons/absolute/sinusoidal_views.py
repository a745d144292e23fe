"""The sinusoidal lesson's table cache, its 4 x 4 worked example and its three wavelength tabs
(lessons/absolute/sinusoidal): past the training length, the wavelengths, and the tensor2tensor / fairseq variant.

Every number comes from a cached core call; this module lays out the controls, figures and text around them. Its
words are translated where they are shown (inside the tab functions, never in a cached function).
"""

from __future__ import annotations

import math

import streamlit as st

import posenc_core as pc
from page_kit import N_, _, controls, figures
from page_kit.chart.render import show
from page_kit.lesson import formula, notice
from posenc_core.absolute import (
    sinusoidal_coverage,
    sinusoidal_entry,
    sinusoidal_full_circles,
    sinusoidal_variant_gap,
    sinusoidal_wavelengths,
)
from posenc_core.measures import similarity_matrix, toeplitz_deviation

# the column layouts' names as the reader reads them (the core's codes stay in the code and the snippets)
LAYOUT_NAMES = {"interleaved": N_("interleaved"), "concat": N_("concat")}


@st.cache_data(max_entries=32, show_spinner=False)
def table(n: int, dim: int, base: float, layout: str, backend: str, device: str):
    return pc.to_numpy(pc.sinusoidal(n, dim, base, layout, backend=backend, device=device))


@st.cache_data(max_entries=32, show_spinner=False)
def variant_tables(n: int, dim: int, base: float):
    return pc.sinusoidal(n, dim, base, "concat", variant="tensor2tensor"), sinusoidal_variant_gap(n, dim, base)


@st.cache_data(max_entries=32, show_spinner=False)
def similarity(n: int, dim: int, base: float, layout: str):
    sim = similarity_matrix(table(n, dim, base, layout, "numpy", "cpu"))
    return sim, toeplitz_deviation(sim)


def past_tab(page, n, dim, base, layout, backend, device):
    with page.side:
        train = controls.slider(_("Training length L"), "train", 1, n, max(1, n // 4),
                                help=_("The longest sequence the model saw while training."))
    pe = table(n, dim, float(base), layout, backend, device)
    coverage = sinusoidal_coverage(train, dim, base)
    half = dim // 2
    pairs = sorted({0, half // 4, half // 2, half - 1})
    series = {}
    for pair in pairs:
        col = 2 * pair if layout == "interleaved" else pair
        info = sinusoidal_entry(0, col, dim, base, layout)
        series[_("pair {pair} (sin, λ={wavelength:,.0f})").format(pair=pair, wavelength=info.wavelength)] = pe[:, col]
    show(figures.lines(
        range(n), series, title=_("Sines of four pairs, trained on positions 0 to {last}").format(last=train - 1),
        x_title=_("position"), y_title=_("PE value"),
        shade_x=(train - 1, n - 1, _("past the training length L = {train}").format(train=train)),
        name="sinusoidal_extrapolation",
        alt=_("Four sine columns continuing smoothly past the training length into a shaded region.")))
    show(figures.bars(
        list(range(half)), {_("fraction of one turn seen"): coverage},
        title=_("How much of each pair's circle the training positions covered"), x_title=_("pair i"),
        y_title=_("fraction of 2π"), name="sinusoidal_coverage",
        alt=_("Bars per pair: fast pairs are fully covered, slow pairs only partly.")))
    formula(r"\text{covered}_i = \min\!\Big(1, \frac{(L-1)\,\omega_i}{2\pi}\Big),\quad L = $train:"
            r"\ $full \text{ of } $half \text{ pairs have turned a full circle}",
            train=train, full=sinusoidal_full_circles(train, dim, base), half=half)
    notice(_("Past the marker every column simply keeps going: the formula has an answer for any "
             "position, and all values stay in [-1, 1]. What is new is the *combination*: the fast pairs "
             "repeat values they have shown many times, but the slow pairs (short bars) move into angles "
             "training never produced, so the full row is a code the model has not learned to read. "
             "That is why sinusoidal models still degrade beyond their training length, less abruptly "
             "than a learned table that has no row at all."))


def lambda_tab(page, n, dim, base, layout, backend, device):
    pairs = list(range(dim // 2))
    t2t_line = "tensor2tensor: λ_i = 2π·base^(i/(d/2-1))"  # a library's name and a formula: no words to translate
    show(figures.lines(
        pairs, {_("paper: {formula}").format(formula="λ_i = 2π·base^(2i/d)"): sinusoidal_wavelengths(dim, base),
                t2t_line: sinusoidal_wavelengths(dim, base, "tensor2tensor")},
        title=_("Wavelength of each pair (d = {d}, base {base:,})").format(d=dim, base=base), x_title=_("pair i"),
        y_title=_("wavelength (positions)"), log_y=True, markers=dim <= 64,
        dashed=[t2t_line],
        hlines=[(math.tau, "2π"), (math.tau * base, "2π·base")],
        name="sinusoidal_wavelengths",
        alt=_("Log-scale lines: wavelengths grow geometrically with the pair index, from 2π towards "
              "2π times the base.")))
    last = sinusoidal_entry(0, dim - 1, dim, base, layout)
    formula(r"\lambda_i = \frac{2\pi}{\omega_i} = 2\pi\cdot $base^{2i/$dim},\qquad \lambda_0 = 2\pi,"
            r"\quad \lambda_{$lasti} = $lastl", base=base, dim=dim, lasti=dim // 2 - 1,
            lastl=last.wavelength)
    notice(_("On a log scale the wavelengths are a straight line: each pair is slower than the last by "
             "the same factor, base^(2/d). The base sets where the line ends (the longest wavelength, "
             "almost 2π·base), and d sets how many pairs share that range, so a larger d only fills it "
             "more densely. The dashed tensor2tensor line ends exactly at 2π·base."))


def t2t_tab(page, n, dim, base, layout, backend, device):
    t2t, gap = variant_tables(n, dim, float(base))
    show(figures.heatmap(
        t2t, title=_("tensor2tensor / fairseq table: {n} positions x {d} (sines, then cosines)").format(n=n, d=dim),
        x_title=_("dimension (column)"), y_title=_("position"), value_name="PE", name="sinusoidal_t2t",
        alt=_("Heatmap of the tensor2tensor variant: the left half holds the sines, the right half the "
              "cosines, each going from fast to slow.")))
    formula(r"PE_{(p,\,i)} = \sin(p\,\omega_i),\ PE_{(p,\,d/2+i)} = \cos(p\,\omega_i),\quad "
            r"\omega_i = $base^{-i/($half-1)}", base=base, half=dim // 2)
    formula(r"\text{vs. the paper's } \omega_i = $base^{-2i/$dim}:\quad \max|\Delta| = $gap", base=base, dim=dim,
            gap=gap)
    notice(_("Two things differ from the paper's formula. The columns are concatenated (all sines, then "
             "all cosines) instead of interleaved, a harmless reordering; and the exponent divides by "
             "d/2 - 1 instead of d/2, so the frequencies are spaced slightly wider and the slowest one is "
             "exactly 1/base. Code you meet in tensor2tensor (get_timing_signal_1d), fairseq "
             "(SinusoidalPositionalEmbedding) and models ported from them uses this variant; fairseq "
             "also starts counting positions at padding_idx + 1 and zeroes the padding row. The "
             "printed gap is the largest difference from the paper's concatenated table."))


def seed_tab(page, n, dim, base, layout, backend, device):
    seed = pc.sinusoidal(4, 4, dtype="float64")
    st.markdown(_("With d = 4 there are two pairs: ω₀ = 1 and ω₁ = 10000^(-2/4) = 0.01. These are the values "
                  "a hand calculation gives. Positions count from 0, so the fourth row is position 3 "
                  "(sin 3 = {sin3:.5f}); a common misconception labels it 'pos 4'.").format(sin3=seed[3, 0]))
    headers = [_("col {c} ({fn}, i={i})").format(c=c, fn="sin" if c % 2 == 0 else "cos", i=c // 2) for c in range(4)]
    st.dataframe({_("position"): range(4), **{h: seed[:, c] for c, h in enumerate(headers)}}, hide_index=True,
                 width="content",
                 column_config={h: st.column_config.NumberColumn(format="%.8f") for h in headers})
    formula(r"PE_{(1,0)} = \sin(1/10000^{0/4}) = \sin 1 = $a,\qquad PE_{(1,2)} = \sin(1/10000^{2/4}) "
            r"= \sin 0.01 = $b", a=float(seed[1, 0]), b=float(seed[1, 2]), digits=8)


def table_chart(n, d, base, layout, backend="numpy", device="cpu", cached=True):
    values = table(n, d, float(base), layout, backend, device) if cached else \
        pc.sinusoidal(n, d, float(base), layout)  # animation frames: not worth a cache entry each
    return figures.heatmap(
        values,
        title=_("PE table: {n} positions x {d} dimensions (base {base:,}, {layout})").format(
            n=n, d=d, base=base, layout=_(LAYOUT_NAMES[layout])),
        x_title=_("dimension (column)"), y_title=_("position"), value_name="PE", name="sinusoidal_table",
        alt=_("Heatmap of the sinusoidal table for {n} positions and {d} dimensions. Left columns "
              "oscillate quickly down the positions; right columns change slowly.").format(n=n, d=d),
        zrange=(-1, 1))
