import streamlit as st

import posenc_core as pc
from lessons.rope import pair_views as views
from lessons.rope import rope_guide_views
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
    notice,
    show,
    source,
    stage,
    why,
)
from page_kit.figures import animation
from page_kit.lesson import guide
from posenc_core.rope import rope_pair, rope_pair_theta, rope_turns

PLAY_POSITIONS = list(range(0, 201, 4))  # 51 frames of the query position
CONTEXTS = [512, 2048, 4096, 8192, 32768, 131072, 1048576]


@st.cache_data(max_entries=32, show_spinner=False)
def angle_table(n: int, dim: int, base: float, part: str):
    return pc.rope_angle_table(n, dim, base, part)


header(_("RoPE: one rotation"),
       _("RoPE turns each pair of query and key numbers like a clock hand, by *m*·θ and *n*·θ: the score between "
         "them only sees the offset *m − n*."), rope_guide_views.GUIDE)
WHY = _("Rotary position embedding does not add anything to a token. It takes the query and key vectors, cuts "
        "them into pairs of numbers, and turns each pair like a clock hand: by an angle proportional to the "
        "token's position. A query at position *m* turns by *m*·θ, a key at position *n* by *n*·θ. The score "
        "between them then only sees the difference *m − n*. Start with a single pair, then look at all of them.")
# the angle table's views: "angle" is a word, cos and sin are the functions' names (the same in every language)
PARTS = {"angle": N_("angle"), "cos": "cos", "sin": "sin"}


def part_name(part: str) -> str:
    return _(PARTS[part]) if part == "angle" else PARTS[part]


def pair_tab(page, dim, base, shared):
    m, n, i, qx, qy, kx, ky, theta, out = shared
    view = views.pair_view(shared, dim, base)
    guide.report("offset_zero", m == n)
    chart = hero(views.dragged_pair_chart, **view)
    with page.side:
        play = controls.toggle(_("Animate m"), "play_m",
                               help=_("Adds a scrub bar and a Play button under the figure: m sweeps 0 "
                                      "to 200 in the browser, each frame computed by the same core call."))
    if play:
        fixed = {key: value for key, value in view.items() if key != "m"}  # the frames' key: m aside
        animation.attach(chart, lambda m_value: views.pair_chart(**fixed, m=m_value), "m", PLAY_POSITIONS,
                         start_value=m)
    show(chart)
    classroom.snippet(f"theta = {classroom.call('rope_pair_theta', i, dim, float(base))}",
                      f"out = pc.rope.rope_pair(({qx!r}, {qy!r}), ({kx!r}, {ky!r}), {m}, {n}, theta)",
                      "print(out.q_rot, out.k_rot, out.score)  # the arrows and the score")

    c = [*st.columns(2), *st.columns(2)]  # two by two: the labels fit the figure column whole
    c[0].metric(_("Score after rotation q̃·k̃"), f"{out.score:.4f}")
    c[1].metric(_("Score without RoPE q·k"), f"{out.plain_score:.4f}")
    c[2].metric(_("Offset m − n"), f"{m - n}")
    c[3].metric(_("Relative angle (m − n)θ"), f"{out.relative_angle:.4f} rad")
    # two rows: one would run past the figure column's right edge
    formula(r"\tilde q\cdot\tilde k = (R_{m\theta}\,q)\cdot(R_{n\theta}\,k) = q^{\top} R_{(n-m)\theta}\,k")
    formula(r"= |q|\,|k|\cos\!\big(\varphi_q-\varphi_k+(m-n)\theta\big) = $score"
            r"\quad\text{with}\ (m-n)\theta = $rel", rel=out.relative_angle, score=out.score)

    def moved() -> str:
        later = views.pair(qx, qy, kx, ky, m + 10, n + 10, theta)
        return _("q̃·k̃ = {score:.4f} at (m, n) = ({m}, {n}) and {later:.4f} at "
                 "({m_later}, {n_later}): only the offset m − n = {offset} reaches the score.").format(
            score=out.score, m=m, n=n, later=later.score, m_later=m + 10, n_later=n + 10, offset=m - n)

    with classroom.predict("shift", _("Move the query and the key 10 positions further along (m + 10, "
                                      "n + 10). What happens to their score q̃·k̃?"),
                           [_("it stays the same"), _("it grows"), _("it shrinks"), _("it changes sign")], 0, moved):
        s = views.shifts(qx, qy, kx, ky, m, n, theta)
        show(figures.lines(
            s.shift, {_("both move"): s.together, _("only the key moves"): s.key_only},
            title=_("The score when positions shift by s"), x_title=_("shift s (positions)"),
            y_title=_("score q̃·k̃"), name="rope_pair_shift", height=380, markers=True,
            alt=_("Two curves: the score stays constant when both positions move together, and "
                  "oscillates when only the key moves.")))
        notice(_("Both arrows keep their length: a rotation changes direction only. Move m and n by the same "
                 "amount and the picture spins as a whole, but the angle between the arrows and therefore "
                 "the score stay put (the flat blue line). Move only one of them and the score swings like "
                 "a cosine of the offset, once every 2π/θ positions."))


def angle_chart(pos: int, part: str, d: int, base) -> figures.Chart:
    table = angle_table(pos, d, float(base), part)
    label = {"angle": "mθ_i mod 2π (rad)", "cos": "cos(mθ_i)", "sin": "sin(mθ_i)"}[part]
    return figures.heatmap(
        table, title=_("{label} for {pos} positions and {pairs} pairs (base {base:,})").format(
            label=label, pos=pos, pairs=d // 2, base=base),
        x_title=_("pair index i"), y_title=_("position m"), value_name=label, name="rope_angle_table",
        colorscale=figures.CYCLIC if part == "angle" else None,
        zrange=(0.0, 6.2832) if part == "angle" else None, hover_format=".3f",
        alt=_("Heatmap of {label}: the left pairs cycle every few positions, the right pairs barely "
              "move.").format(label=label))


def all_pairs_tab(page, dim, base, shared):
    with page.side:
        npos = controls.slider(_("Positions"), "pos", 16, 4096, 256, step=16)
        part = controls.choice(_("Show"), "part", list(PARTS), "angle",
                               help=_("angle: mθ_i reduced to one turn [0, 2π). cos and sin: what "
                                      "multiplies the pair."), format_func=part_name)
    show(hero(angle_chart, pos=npos, part=part, d=dim, base=base))
    formula(r"\theta_i = b^{-2i/d},\quad \theta_0 = $t0,\ \theta_{$last} = $tl\ \text{rad per position}",
            t0=rope_pair_theta(0, dim, base), last=dim // 2 - 1,
            tl=rope_pair_theta(dim // 2 - 1, dim, base))
    notice(_("Pair 0 turns a full radian per position, so its colour cycles every 6.3 rows; each pair to "
             "the right is slower by the same factor, and the last pairs hardly turn at all within the "
             "table. The angle colours wrap around (0 and 2π are the same colour) because they are the "
             "same rotation. The cos/sin views are what a model actually multiplies with."))


def wavelengths_tab(page, dim, base, shared):
    with page.side:
        context = controls.select_slider(_("Context length"), "ctx", CONTEXTS, 4096,
                                         format_func=lambda c: f"{c:,}")
    t = views.turns(dim, float(base), context)
    show(hero(views.wavelength_chart, ctx=context, d=dim, base=base))
    c = st.columns(3)
    c[0].metric(_("Pairs that complete a turn"),
                _("{full} of {pairs}").format(full=t.full_turn_pairs, pairs=dim // 2))
    c[1].metric(_("Fastest pair, turns in context"), f"{t.turns[0]:,.0f}")
    c[2].metric(_("Slowest pair, fraction of a turn"), f"{t.turns[-1]:.3g}")
    formula(r"\lambda_i = \frac{2\pi}{\theta_i} = 2\pi\, b^{2i/d},\qquad"
            r"\lambda_0 = $w0,\ \lambda_{$last} = $wl",
            w0=float(t.wavelength[0]), last=dim // 2 - 1, wl=float(t.wavelength[-1]))
    notice(_("Pairs below the dotted line go all the way round inside the context: after one wavelength "
             "they repeat, so on their own they only tell position modulo λ. Pairs above it never "
             "close a turn, so during training the model only sees part of their circle; these slow "
             "pairs are what long-context methods (position interpolation, NTK, YaRN) rescale. Careful "
             "with tables that list θ_i close to 1 for the *late* pairs: it is the other way round, "
             "pair 0 is the fastest."))


# The lesson's tabs in order: label, the function that draws it, and whether it needs the shared query / key pair.
# Labels are marked N_() and shown translated by page.sections; a guide step's view keeps the English label.
TABS = [
    (N_("One pair"), pair_tab, True),
    (N_("As complex numbers"), views.complex_tab, True),
    (N_("All pairs at once"), all_pairs_tab, False),
    (N_("Wavelengths"), wavelengths_tab, False),
]


@st.fragment
def lesson():
    guide.panel(rope_guide_views.GUIDE)
    page = stage()
    with page.more:
        dim = controls.head_dim_slider(label=_("Head dimension d"),
                                       help=_("Size of one attention head: d/2 rotating pairs."))
        base = controls.base_slider(label=_("Base (rope_theta)"),
                                    help=_("θ_i = base^(−2i/d). Llama 2 uses 10,000, Llama 3 uses 500,000."))

    guide.report("base_500k", base == 500000)
    sections = page.sections([label for label, _draw, _paired in TABS])
    with guard():
        open_tabs = [(tab, draw, paired) for tab, (_label, draw, paired) in zip(sections, TABS, strict=True)
                     if tab.open]
        shared = None
        if any(paired for _tab, _draw, paired in open_tabs):
            # beside the first open tab that uses them
            with next(tab for tab, _draw, paired in open_tabs if paired):
                shared = views.pair_controls(page, dim, base)
        for tab, draw, _paired in open_tabs:
            with tab:
                draw(page, dim, base, shared)


lesson()
why(WHY)
source(rope_pair, pc.rope_angle_table, rope_turns)
