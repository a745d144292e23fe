import streamlit as st

from page_kit import N_, _, classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from posenc_core.attention_bias import masked_softmax, nope_outputs, uniform_attention_weights


@st.cache_data(max_entries=32, show_spinner=False)
def outputs(n: int, dim: int, pattern: str, seed: int):
    return nope_outputs(n, dim, pattern, seed)


@st.cache_data(max_entries=8, show_spinner=False)
def uniform_weights(n: int):
    return [uniform_attention_weights(n, causal=True), uniform_attention_weights(n, causal=False)]


header(_("NoPE: no positional encoding, and the causal mask"),
       _("With no position information and no mask, attention treats its input as a set; the causal mask alone "
         "makes outputs depend on position."))
WHY = _("What if a model gets no position information at all? Without a mask, attention treats the input as a "
        "set: shuffle the tokens and every output is shuffled the same way. A decoder, though, masks the future: "
        "token *i* can only look at tokens 0 to *i*. That mask alone makes outputs depend on position, so a "
        "causal model without any encoding can still work out roughly where it is.")


def weights_chart(n: int) -> figures.Chart:
    return figures.small_multiples(
        uniform_weights(n), [_("causal mask"), _("no mask (bidirectional)")], cols=2, cell_px=330,
        title=_("Attention weights when every score is equal"), value_name=_("weight"), x_title=_("key"),
        y_title=_("query"), name="nope_weights",
        alt=_("Two {n} x {n} grids of attention weights: causal row i spreads 1/(i+1) over the first i+1 keys; "
              "bidirectional rows spread 1/{n} over all keys.").format(n=n))


def spread_chart(n: int, d: int, input: str, seed: int) -> figures.Chart:
    out = outputs(n, d, input, seed)
    return figures.lines(
        range(n), {_("causal"): out.causal_spread, _("no mask"): out.bidirectional_spread},
        title=_("How far each output is from the last position's output"), x_title=_("position i"),
        y_title="‖o_i − o_last‖", markers=True, name="nope_spread",
        alt=_("Line plot over {n} positions: the causal distance falls from {first:.3g} toward "
              "zero; the unmasked one is zero everywhere.").format(n=n, first=out.causal_spread[0]))


def gap_chart(n: int, d: int, input: str, seed: int) -> figures.Chart:
    gap = outputs(n, d, input, seed).neighbour_gap
    return figures.lines(
        range(1, n), {_("‖o_i − o_(i−1)‖ (causal)"): gap},
        title=_("How different two neighbouring positions look"), x_title=_("position i"),
        y_title=_("distance (log scale)"), log_y=True, markers=True, name="nope_gap",
        alt=_("Line plot on a log scale: the gap between neighbouring outputs falls steeply with position, from "
              "{first:.3g} to {last:.3g}.").format(first=gap[0], last=gap[-1]))


def mean_tab(n: int, dim: int, pattern: str, seed: int) -> None:
    show(hero(weights_chart, n=n))
    out = outputs(n, dim, pattern, seed)

    def unmasked() -> str:
        return _("Unmasked, every output row is the mean of all {n} values: rows differ from the last one by at "
                 "most {worst:.1g} (float rounding). With the causal mask, row 0 is {first:.3g} away from row "
                 "{last}: the mask alone makes the outputs depend on position.").format(
                     n=n, worst=out.bidirectional_worst, first=out.causal_spread[0], last=n - 1)

    with classroom.predict("nope_rows", _("No positional encoding and no mask, every score equal: how do the "
                                          "outputs at positions 0 and {last} compare?").format(last=n - 1),
                           [_("identical"), _("position 0 stays closer to the first token"),
                            _("they differ, but randomly")],
                           0, unmasked):
        show(figures.small_multiples(
            [out.causal, out.bidirectional], [_("causal: running mean"), _("no mask: overall mean")],
            cols=2, cell_px=330, title=_("Outputs: one row per position"), value_name=_("output"),
            x_title=_("dimension"), y_title=_("position"), name="nope_outputs",
            alt=_("Two heatmaps of outputs, {n} positions by {dim} dimensions: the causal one changes from row to "
                  "row (row 0 is {first:.3g} from the last), the bidirectional one has identical "
                  "rows.").format(n=n, dim=dim, first=out.causal_spread[0])))
        classroom.snippet(f"weights = {classroom.call('uniform_attention_weights', n, causal=True)}"
                          f"  # ({n}, {n}); causal=False: the right grid",
                          f"out = {classroom.call('nope_outputs', n, dim, pattern, seed)}",
                          f"out.causal, out.bidirectional  # ({n}, {dim}) each: the two output maps")
        notice(_("Without a mask every row of the output is the same vector: the mean of all values. With the "
                 "causal mask row i is the mean of the first i + 1 values, so rows differ and the difference carries "
                 "position. With the start-token input the content is identical everywhere after token 0, yet the "
                 "causal rows still fade from the start token's values to the repeated token's."))
        formula(r"\text{causal: } o_i = \frac{1}{i+1}\sum_{j=0}^{i} v_j")
        formula(r"\text{no mask: } o_i = \frac{1}{n}\sum_{j=0}^{n-1} v_j = \frac{1}{$n}\sum_j v_j", n=n)


def leak_tab(n: int, dim: int, pattern: str, seed: int) -> None:
    out = outputs(n, dim, pattern, seed)
    show(hero(spread_chart, n=n, d=dim, input=pattern, seed=seed))
    classroom.snippet(f"out = {classroom.call('nope_outputs', n, dim, pattern, seed)}",
                      f"out.causal_spread, out.bidirectional_spread  # ({n},): ‖o_i − o_last‖",
                      f"out.start_weight_causal  # ({n},): 1/(i+1), the attention on token 0")
    notice(_("Unmasked, every position produces the same output (distance 0): order is invisible. Masked, early "
             "positions stand out and later ones converge, so a later layer can read 'early or late' from the "
             "output alone."))
    start = out.start_weight_causal  # (n,): 1/(i+1)

    def first_token() -> str:
        return _("Position {last} sees {n} keys and gives each the same weight, {w:.4g} (1/{n}); position 0 "
                 "sees only itself and gives it {w0:g}. The falling curve below is an exact position "
                 "counter.").format(last=n - 1, n=n, w=start[-1], w0=start[0])

    with classroom.predict("nope_start", _("Causal mask, every score equal: how much attention does the last "
                                           "position ({last}) pay to token 0?").format(last=n - 1),
                           [_("an even share: 1 over the number of keys it sees"), _("all of it, like position 0"),
                            _("none: token 0 is too far back")], 0, first_token):
        show(figures.lines(
            range(n), {_("causal: weight on token 0"): start,
                       _("no mask: weight on token 0"): out.start_weight_bidirectional},
            title=_("Attention that each position pays to the first token"), x_title=_("position i"),
            y_title=_("weight"), log_y=True, name="nope_start_weight",
            alt=_("Line plot on a log scale: the causal weight on the first token is 1/(i+1), falling from 1 to "
                  "{w:.4g}; the unmasked weight is 1/{n}, flat.").format(w=start[-1], n=n)))
        formula(r"\alpha_{i,0} = \frac{1}{i+1}:\quad \alpha_{0,0} = 1,\ \alpha_{$last,0} = $w",
                last=n - 1, w=float(start[-1]))
        notice(_("The share of the first token is an exact position counter: 1/(i + 1). This is the signal a model "
                 "without encodings learns to use."))


def cost_tab(n: int, dim: int, pattern: str, seed: int) -> None:
    out = outputs(n, dim, pattern, seed)
    gap = out.neighbour_gap  # (n - 1,): gap[i - 1] = ‖o_i − o_(i−1)‖
    show(hero(gap_chart, n=n, d=dim, input=pattern, seed=seed))
    classroom.snippet(f"out = {classroom.call('nope_outputs', n, dim, pattern, seed)}",
                      f"out.neighbour_gap  # ({n - 1},): ‖o_i − o_(i−1)‖ for i = 1..{n - 1}")
    shrink = _("so telling position {prev} from {last} is {times:,.0f} times harder than telling 1 from 2 "
               "here").format(prev=n - 2, last=n - 1, times=out.gap_shrink) if n > 3 else \
        _("and it shrinks further with every position")
    rule = (_("neighbours differ by ‖v₀ − v‖ / (i(i+1))") if pattern == "start token" else
            _("neighbours differ by ‖v_i − o_(i−1)‖ / (i+1), a random size over a growing count"))
    notice(_("The position signal fades fast: with this input {rule}, {shrink}. Order is there, but only coarsely "
             "and only through averaging.").format(rule=rule, shrink=shrink))
    formula(r"o_i - o_{i-1} = \frac{v_i - o_{i-1}}{i+1}\ \overset{\text{start token}}{=}\ \frac{v - v_0}{i\,(i+1)}")
    formula(r"\|o_{$last} - o_{$prev}\| = $gap", last=n - 1, prev=n - 2, gap=float(gap[-1]))
    st.markdown(_(
        "**The cost.** Put plainly: leaving the encoding out of a causal decoder can work, but training converges "
        "much more slowly and the final model is usually worse. The page shows why it can work at all (the mask "
        "makes the running mean depend on i) and why it is weak (that signal is blurry and gets blurrier with "
        "distance, and the network has to spend layers reconstructing it). Research results on NoPE and longer "
        "inputs are mixed; every other page in this section adds position on purpose instead.\n\n"
        "Bidirectional encoders get nothing at all: without a mask or an encoding, attention is blind to order, "
        "and shuffling the tokens only shuffles the outputs."))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
# Labels are marked N_() and shown translated by page.walk.
TABS = [
    (N_("Uniform attention is a running mean"), mean_tab),
    (N_("The mask leaks order"), leak_tab),
    (N_("What it costs"), cost_tab),
]
INPUTS = {"start token": N_("start token"), "random": N_("random")}


@st.fragment
def lesson():
    page = stage()
    with page.side:
        n = controls.slider(_("Tokens"), "n", 4, 128, 24, step=4)
        pattern = controls.choice(_("Input"), "input", list(INPUTS), "start token",
                                  format_func=lambda k: _(INPUTS[k]),
                                  help=_("start token: one distinct first token, then the same token repeated, so "
                                         "content cannot tell positions apart. random: independent tokens."))
    with page.more:
        dim = controls.slider(_("Value dimension"), "d", 2, 64, 16, step=2)
        seed = int(controls.number(_("Seed"), "seed", 0, 9999, 0, step=1))
    with guard():
        page.walk(TABS, n, dim, pattern, seed)


lesson()
why(WHY)
source(uniform_attention_weights, masked_softmax, nope_outputs)
