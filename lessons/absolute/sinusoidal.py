import streamlit as st

from lessons.absolute import sinusoidal_guide_views
from lessons.absolute import sinusoidal_views as views
from page_kit import (
    N_,
    _,
    classroom,
    controls,
    current_backend,
    figures,
    formula,
    guard,
    header,
    hero,
    notice,
    show,
    source,
    stage,
    why,
)
from page_kit.chart import figure_control
from page_kit.figures import animation
from page_kit.lesson import guide
from posenc_core.absolute import (
    LAYOUTS,
    sinusoidal_at,
    sinusoidal_base_doubling,
    sinusoidal_coverage,
    sinusoidal_entry,
    sinusoidal_frequencies,
    sinusoidal_shift_error,
    sinusoidal_shift_matrix,
)

PLAY_BASES = [int(round(10 ** (1 + k / 8))) for k in range(41)]  # 10 to 1e6, 8 frames a decade


header(_("Sinusoidal encoding"),
       _("Position *p* gets a fixed row of sines and cosines: each column pair is one wave, fast on the left, "
         "slow on the right."), sinusoidal_guide_views.GUIDE)
WHY = _("The original Transformer gives position *p* a fixed vector of sines and cosines. Each pair of columns "
        "is one wave: the first pairs swing fast and tell neighbours apart, later pairs swing slowly and say "
        "roughly where in a long sequence you are. Nothing is learned, every position gets a distinct code, "
        "and all values stay between -1 and 1.")


def table_tab(page, n, dim, base, layout, backend, device):
    chart = hero(views.table_chart, n=n, d=dim, base=base, layout=layout, backend=backend, device=device)
    with page.side:
        play = controls.toggle(_("Animate the base"), "play_base",
                               help=_("A scrub bar and a Play button under the table: the base sweeps "
                                      "from 10 to 1,000,000 and the waves stretch, each frame computed "
                                      "by the same core call."))
    if play:
        animation.attach(chart, lambda b: views.table_chart(n, dim, b, layout, cached=False), "base", PLAY_BASES,
                         interval_ms=150)
    # a click on a cell opens "One cell" on that position and column
    show(figure_control.pick(chart, x=figure_control.Target("col", bounds=(0, dim - 1, 1)),
                             y=figure_control.Target("p", bounds=(0, n - 1, 1)),
                             opens=("view", "One cell")))
    classroom.snippet(f"pe = {classroom.call('sinusoidal', n, dim, float(base), layout)}"
                      f"  # ({n}, {dim}) float32: the table above")
    notice(_("Down each column the colour oscillates; the left columns flip every few positions and the "
             "right ones barely change. Read a row left to right and you get a barcode that no other row "
             "repeats. Raise the base and the slow columns slow down further."))

    change = sinusoidal_base_doubling(dim, base)
    now, twice = change.now, change.doubled

    def doubled() -> str:
        return _("With d = {d} the slowest wavelength goes from {now:,.0f} to {twice:,.0f} positions "
                 "(x{ratio:.3f}): it is 2π·base^((d−2)/d), almost proportional to the base.").format(
            d=dim, now=now, twice=twice, ratio=change.ratio)

    with classroom.predict("base", _("Double the base from {base:,} to {doubled:,}. What happens to "
                                     "the slowest wavelength (the last column pair)?").format(base=base,
                                                                                              doubled=2 * base),
                           [_("it halves"), _("it stays the same"), _("it roughly doubles"), _("it squares")], 2,
                           doubled):
        formula(r"\lambda_{$last} = 2\pi\cdot b^{(d-2)/d}:\quad $now\ (b = $base)"
                r"\ \to\ $twice\ (b = $base2)", last=dim // 2 - 1, now=now, twice=twice, base=base,
                base2=2 * base)


def cell_tab(page, n, dim, base, layout, backend, device):
    with page.side:
        p = controls.slider(_("Position p"), "p", 0, n - 1, min(17, n - 1))
        col = controls.slider(_("Column"), "col", 0, dim - 1, min(6, dim - 1))
    cell = sinusoidal_entry(p, col, dim, base, layout)
    formula(r"PE_{(p,\,\mathrm{col})} = \$fn\!\left(\frac{p}{b^{2i/d}}\right)"
            r"\quad\Rightarrow\quad PE_{($p,\,$col)} = \$fn\!\left(\frac{$p}{$base^{2\cdot $i/$dim}}\right)"
            r" = \$fn($angle) = $value",
            fn=cell.function, p=p, col=col, base=base, i=cell.pair, dim=dim, angle=cell.angle,
            value=cell.value)
    st.caption(_("Column {col} belongs to pair i = {pair}, frequency ω = {omega:.4g} "
                 "rad per position, wavelength 2π/ω = {wavelength:,.1f} positions.").format(
        col=col, pair=cell.pair, omega=cell.omega, wavelength=cell.wavelength))


def waves_tab(page, n, dim, base, layout, backend, device):
    pe = views.table(n, dim, float(base), layout, backend, device)
    defaults = sorted({c for c in (0, 6, 12, 20) if c < dim})  # sines of four well-spread wavelengths
    with page.side:
        chosen = controls.multiselect(_("Columns to plot"), "cols", list(range(dim)), defaults,
                                      max_selections=8)
    series = {}
    for c in chosen:
        info = sinusoidal_entry(0, c, dim, base, layout)
        series[_("col {c}: {fn}, λ={wavelength:,.0f}").format(c=c, fn=info.function,
                                                               wavelength=info.wavelength)] = pe[:, c]
    if series:
        show(figures.lines(
            range(n), series, title=_("Chosen columns against position"), x_title=_("position"),
            y_title=_("PE value"), name="sinusoidal_waves",
            alt=_("Line plot of {n} columns of the table; each is a sine or cosine of its own "
                  "wavelength.").format(n=len(series))))
    notice(_("Each column is a plain sine or cosine of the position. Its wavelength grows geometrically with "
             "the pair index, from 2π for the first pair to almost 2π × base for the last."))


def similarity_tab(page, n, dim, base, layout, backend, device):
    sim, deviation = views.similarity(n, dim, float(base), layout)
    show(figures.heatmap(sim, title="PE(i) · PE(j)", x_title=_("position j"), y_title=_("position i"),
                         value_name=_("dot product"), name="sinusoidal_similarity", signed=True,
                         alt=_("Heatmap of dot products between encodings: constant along every diagonal.")))
    formula(r"PE(i)\cdot PE(j) = \sum_{k=0}^{d/2-1}\cos\big((i-j)\,\omega_k\big)"
            r"\qquad \max_{\text{diagonals}}\,(\max-\min) = $dev", dev=deviation)
    notice(_("Every diagonal has a single colour: the dot product of two encodings depends on how far apart "
             "they are, not on where they sit. It peaks at zero offset and falls off, with ripples. (The "
             "tiny spread printed above is float32 rounding.)"))


def shift_tab(page, n, dim, base, layout, backend, device):
    with page.side:
        offset = controls.slider(_("Offset k"), "k", -64, 64, 5)
    guide.report("k_zero", offset == 0)
    shift = sinusoidal_shift_matrix(dim, offset, base, layout)
    error = sinusoidal_shift_error(n, dim, offset, base, layout)
    show(figures.heatmap(shift, title=_("M_k for k = {k}: PE(p + k) = M_k · PE(p)").format(k=offset),
                         x_title=_("input column"), y_title=_("output column"), value_name=_("M entry"),
                         name="sinusoidal_shift_matrix",
                         alt=_("Block-diagonal matrix: one 2x2 rotation per sine/cosine pair.")))
    first = sinusoidal_entry(offset, 0, dim, base, layout)
    formula(r"\begin{pmatrix}\sin(p+k)\omega\\ \cos(p+k)\omega\end{pmatrix} = "
            r"\begin{pmatrix}\cos k\omega & \sin k\omega\\ -\sin k\omega & \cos k\omega\end{pmatrix}"
            r"\begin{pmatrix}\sin p\omega\\ \cos p\omega\end{pmatrix},\quad k\omega_0 = $angle",
            angle=first.angle)
    st.metric(_("Largest |M_k·PE(p) − PE(p+k)| over all shown positions (float64)"), f"{error:.1e}")
    notice(_("M_k contains k but not p: the same matrix moves every position by k. A linear layer can learn "
             "such a map, which is the paper's argument that relative offsets are easy to attend to."))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
# Labels are marked N_() and shown translated by page.walk; anything that names a tab (opens=, a guide step's view)
# keeps the English label.
TABS = [
    (N_("The table"), table_tab),
    (N_("One cell"), cell_tab),
    (N_("Columns are waves"), waves_tab),
    (N_("A 4 x 4 example"), views.seed_tab),
    (N_("Similarity"), similarity_tab),
    (N_("Shifting is linear"), shift_tab),
    (N_("Past the training length"), views.past_tab),
    (N_("Wavelengths"), views.lambda_tab),
    ("tensor2tensor / fairseq", views.t2t_tab),  # library names: the same in every language
]


@st.fragment
def lesson():
    guide.panel(sinusoidal_guide_views.GUIDE)
    page = stage()
    with page.side:
        n = controls.slider(_("Positions"), "n", 8, 2048, 128, step=8,
                            help=_("Rows of the table: positions 0 to n-1."))
        dim = controls.slider(_("Dimension d"), "d", 4, 1024, 64, step=4,
                              help=_("Columns: d/2 sine/cosine pairs."))
        base = controls.base_slider(controls.DECADE_BASES, label=_("Base"),
                                    help=_("Sets the slowest wavelength, 2pi x base."))
    with page.more:
        layout = controls.choice(_("Column layout"), "layout", list(LAYOUTS), "interleaved",
                                 help=_("interleaved: sin, cos, sin, cos (the paper). "
                                        "concat: all sines, then all cosines."),
                                 format_func=lambda code: _(views.LAYOUT_NAMES[code]))
    backend, device = current_backend()
    guide.report("base_100", base == 100)

    with guard():
        page.walk(TABS, page, n, dim, base, layout, backend, device)


lesson()
why(WHY)
source(sinusoidal_at, sinusoidal_frequencies, sinusoidal_shift_matrix, sinusoidal_coverage)
