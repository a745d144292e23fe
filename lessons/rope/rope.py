import streamlit as st

import posenc_core as pc
from lessons.rope import pair_views as views
from lessons.rope import rope_guide_views
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.figures import animation
from page_kit.lesson import guide
from posenc_core.rope import rope_pair, rope_pair_theta, rope_turns

PLAY_POSITIONS = list(range(0, 201, 4))  # 51 frames of the query position
CONTEXTS = [512, 2048, 4096, 8192, 32768, 131072, 1048576]


@st.cache_data(max_entries=32, show_spinner=False)
def angle_table(n: int, dim: int, base: float, part: str):
    return pc.rope_angle_table(n, dim, base, part)


@st.cache_data(max_entries=32, show_spinner=False)
def turns(dim: int, base: float, context: int):
    return rope_turns(dim, base, context)


header("RoPE: one rotation",
       "RoPE turns each pair of query and key numbers like a clock hand, by *m*·θ and *n*·θ: the score between "
       "them only sees the offset *m − n*.", rope_guide_views.GUIDE)
WHY = ("Rotary position embedding does not add anything to a token. It takes the query and key vectors, cuts "
       "them into pairs of numbers, and turns each pair like a clock hand: by an angle proportional to the "
       "token's position. A query at position *m* turns by *m*·θ, a key at position *n* by *n*·θ. The score "
       "between them then only sees the difference *m − n*. Start with a single pair, then look at all of them.")


def pair_tab(page, dim, base, shared):
    m, n, i, qx, qy, kx, ky, theta, out = shared
    view = views.pair_view(shared, dim, base)
    guide.report("offset_zero", m == n)
    chart = hero(views.dragged_pair_chart, **view)
    with page.side:
        play = controls.toggle("Animate m", "play_m",
                               help="Adds a scrub bar and a Play button under the figure: m sweeps 0 "
                                    "to 200 in the browser, each frame computed by the same core call.")
    if play:
        fixed = {key: value for key, value in view.items() if key != "m"}  # the frames' key: m aside
        animation.attach(chart, lambda m_value: views.pair_chart(**fixed, m=m_value), "m", PLAY_POSITIONS,
                         start_value=m)
    show(chart)
    classroom.snippet(f"theta = {classroom.call('rope_pair_theta', i, dim, float(base))}",
                      f"out = pc.rope.rope_pair(({qx!r}, {qy!r}), ({kx!r}, {ky!r}), {m}, {n}, theta)",
                      "print(out.q_rot, out.k_rot, out.score)  # the arrows and the score")

    c = [*st.columns(2), *st.columns(2)]  # two by two: the labels fit the figure column whole
    c[0].metric("Score after rotation q̃·k̃", f"{out.score:.4f}")
    c[1].metric("Score without RoPE q·k", f"{out.plain_score:.4f}")
    c[2].metric("Offset m − n", f"{m - n}")
    c[3].metric("Relative angle (m − n)θ", f"{out.relative_angle:.4f} rad")
    # two rows: one would run past the figure column's right edge
    formula(r"\tilde q\cdot\tilde k = (R_{m\theta}\,q)\cdot(R_{n\theta}\,k) = q^{\top} R_{(n-m)\theta}\,k")
    formula(r"= |q|\,|k|\cos\!\big(\varphi_q-\varphi_k+(m-n)\theta\big) = $score"
            r"\quad\text{with}\ (m-n)\theta = $rel", rel=out.relative_angle, score=out.score)

    def moved() -> str:
        later = views.pair(qx, qy, kx, ky, m + 10, n + 10, theta)
        return (f"q̃·k̃ = {out.score:.4f} at (m, n) = ({m}, {n}) and {later.score:.4f} at "
                f"({m + 10}, {n + 10}): only the offset m − n = {m - n} reaches the score.")

    with classroom.predict("shift", "Move the query and the key 10 positions further along (m + 10, "
                           "n + 10). What happens to their score q̃·k̃?",
                           ["it stays the same", "it grows", "it shrinks", "it changes sign"], 0, moved):
        s = views.shifts(qx, qy, kx, ky, m, n, theta)
        show(figures.lines(
            s.shift, {"both move": s.together, "only the key moves": s.key_only},
            title="The score when positions shift by s", x_title="shift s (positions)",
            y_title="score q̃·k̃", name="rope_pair_shift", height=380, markers=True,
            alt="Two curves: the score stays constant when both positions move together, and "
                "oscillates when only the key moves."))
        notice("Both arrows keep their length: a rotation changes direction only. Move m and n by the same "
               "amount and the picture spins as a whole, but the angle between the arrows and therefore "
               "the score stay put (the flat blue line). Move only one of them and the score swings like "
               "a cosine of the offset, once every 2π/θ positions.")


def angle_chart(pos: int, part: str, d: int, base) -> figures.Chart:
    table = angle_table(pos, d, float(base), part)
    label = {"angle": "mθ_i mod 2π (rad)", "cos": "cos(mθ_i)", "sin": "sin(mθ_i)"}[part]
    return figures.heatmap(
        table, title=f"{label} for {pos} positions and {d // 2} pairs (base {base:,})",
        x_title="pair index i", y_title="position m", value_name=label, name="rope_angle_table",
        colorscale=figures.CYCLIC if part == "angle" else None,
        zrange=(0.0, 6.2832) if part == "angle" else None, hover_format=".3f",
        alt=f"Heatmap of {label}: the left pairs cycle every few positions, the right pairs barely "
            "move.")


def all_pairs_tab(page, dim, base, shared):
    with page.side:
        npos = controls.slider("Positions", "pos", 16, 4096, 256, step=16)
        part = controls.choice("Show", "part", ["angle", "cos", "sin"], "angle",
                               help="angle: mθ_i reduced to one turn [0, 2π). cos and sin: what "
                                    "multiplies the pair.")
    show(hero(angle_chart, pos=npos, part=part, d=dim, base=base))
    formula(r"\theta_i = b^{-2i/d},\quad \theta_0 = $t0,\ \theta_{$last} = $tl\ \text{rad per position}",
            t0=rope_pair_theta(0, dim, base), last=dim // 2 - 1,
            tl=rope_pair_theta(dim // 2 - 1, dim, base))
    notice("Pair 0 turns a full radian per position, so its colour cycles every 6.3 rows; each pair to "
           "the right is slower by the same factor, and the last pairs hardly turn at all within the "
           "table. The angle colours wrap around (0 and 2π are the same colour) because they are the "
           "same rotation. The cos/sin views are what a model actually multiplies with.")


def wavelength_chart(ctx: int, d: int, base) -> figures.Chart:
    t = turns(d, float(base), ctx)
    return figures.lines(
        t.pair, {"wavelength 2π/θ_i": t.wavelength}, markers=True, log_y=True,
        hlines=[(float(ctx), f"context {ctx:,}")],
        title=f"Wavelength of each pair against the context (d = {d}, base {base:,})",
        x_title="pair index i", y_title="wavelength (positions)", name="rope_wavelengths",
        hover_format=",.1f",
        alt=f"Wavelengths grow geometrically with the pair index; {t.full_turn_pairs} of "
            f"{d // 2} pairs lie below the context line and complete a full turn.")


def wavelengths_tab(page, dim, base, shared):
    with page.side:
        context = controls.select_slider("Context length", "ctx", CONTEXTS, 4096,
                                         format_func=lambda c: f"{c:,}")
    t = turns(dim, float(base), context)
    show(hero(wavelength_chart, ctx=context, d=dim, base=base))
    c = st.columns(3)
    c[0].metric("Pairs that complete a turn", f"{t.full_turn_pairs} of {dim // 2}")
    c[1].metric("Fastest pair, turns in context", f"{t.turns[0]:,.0f}")
    c[2].metric("Slowest pair, fraction of a turn", f"{t.turns[-1]:.3g}")
    formula(r"\lambda_i = \frac{2\pi}{\theta_i} = 2\pi\, b^{2i/d},\qquad"
            r"\lambda_0 = $w0,\ \lambda_{$last} = $wl",
            w0=float(t.wavelength[0]), last=dim // 2 - 1, wl=float(t.wavelength[-1]))
    notice("Pairs below the dotted line go all the way round inside the context: after one wavelength "
           "they repeat, so on their own they only tell position modulo λ. Pairs above it never "
           "close a turn, so during training the model only sees part of their circle; these slow "
           "pairs are what long-context methods (position interpolation, NTK, YaRN) rescale. Careful "
           "with tables that list θ_i close to 1 for the *late* pairs: it is the other way round, "
           "pair 0 is the fastest.")


# The lesson's tabs in order: label, the function that draws it, and whether it needs the shared query / key pair.
TABS = [
    ("One pair", pair_tab, True),
    ("As complex numbers", views.complex_tab, True),
    ("All pairs at once", all_pairs_tab, False),
    ("Wavelengths", wavelengths_tab, False),
]


@st.fragment
def lesson():
    guide.panel(rope_guide_views.GUIDE)
    page = stage()
    with page.more:
        dim = controls.head_dim_slider(help="Size of one attention head: d/2 rotating pairs.")
        base = controls.base_slider(help="θ_i = base^(−2i/d). Llama 2 uses 10,000, Llama 3 uses 500,000.")

    guide.report("base_500k", base == 500000)
    sections = page.sections([label for label, _, _ in TABS])
    with guard():
        open_tabs = [(tab, draw, paired) for tab, (_, draw, paired) in zip(sections, TABS, strict=True) if tab.open]
        shared = None
        if any(paired for _, _, paired in open_tabs):
            with next(tab for tab, _, paired in open_tabs if paired):  # beside the first open tab that uses them
                shared = views.pair_controls(page, dim, base)
        for tab, draw, _ in open_tabs:
            with tab:
                draw(page, dim, base, shared)


lesson()
why(WHY)
source(rope_pair, pc.rope_angle_table, rope_turns)
