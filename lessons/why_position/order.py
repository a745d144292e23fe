import streamlit as st

from lessons.why_position import order_guide_views, order_views, why_views
from page_kit import N_, _, classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.lesson import guide
from page_kit.lesson.code_lines import fold
from posenc_core.why_position import POOLINGS, order_experiment, patch_experiment, self_attention, tokenize

DEFAULT_SENTENCE = "my kid likes the movie"
HOW = {"custom": N_("pick an order"), "reverse": N_("reverse"), "swap": N_("swap two"), "shuffle": N_("shuffle")}


@st.cache_data(max_entries=64, show_spinner=False)
def experiment(text: str, dim: int, kind: str, seed: int, i: int, j: int, order: str, positions: bool,
               pooling: str):
    return order_experiment(text, dim, kind, seed=seed, i=i, j=j, order=order, positions=positions,
                               pooling=pooling)


header(_("Attention has no sense of order"),
       _("Reorder the words of a sentence: each word's attention output moves with it, and a summary of the "
         "whole sentence does not change at all."), order_guide_views.GUIDE)
WHY = _("Self-attention lets every token look at every other token and mix in what it finds. Nothing in that "
        "computation says *where* a token sits: the scores compare contents only. So if you reorder the words, "
        "each word's output simply moves along with it, and anything that summarises the whole sequence cannot "
        "notice the change. Try it above with one attention layer and fixed random embeddings.")


def outputs_chart(key: str, s: str, d: int, how: str, order: str, pe: bool, pool: str, seed: int = 0, i: int = 0,
                  j: int = 1) -> figures.Chart:
    result = experiment(s, d, how, seed, i, j, order, pe, pool)
    n, dim = result.out.shape
    gap, bound = result.equivariance_gap, result.output_bound
    labels, labels_re = order_views.row_labels(result)
    if key == "out":
        title = _("Outputs, original order")
        alt = _("Attention outputs, original order: {n} rows (one per word) by {dim} channels.").format(n=n, dim=dim)
    else:
        title = _("Outputs, reordered")
        alt = _("Attention outputs, reordered: {n} rows (one per word) by {dim} channels; the largest difference "
                "from the moved original rows is {gap:.1e}.").format(n=n, dim=dim, gap=gap)
    return figures.heatmap(
        getattr(result, key), y=labels if key == "out" else labels_re, title=title, x_title=_("channel"),
        y_title=_("slot: word"), value_name=_("output"), zrange=(-bound, bound), signed=True, height=340,
        name="order_outputs" if key == "out" else "order_outputs_reordered", alt=alt)


def reordering(tokens: list[str], kind: str) -> tuple[int, int, int, str]:
    """The control that says how to reorder (seed, swap pair or new order), beside the figure."""
    n, seed, i, j, order = len(tokens), 0, 0, 1, ""
    if kind == "shuffle":
        seed = controls.slider(_("Shuffle seed"), "seed", 0, 99, 7)
    elif kind == "swap" and n >= 2:
        i = controls.slider(_("Swap word"), "i", 0, n - 1, 0)
        j = controls.slider(_("with word"), "j", 0, n - 1, min(n - 1, 4))
    elif kind == "custom":
        default = [3, 4, 2, 0, 1] if n == 5 else list(range(n))[::-1]
        picked = controls.multiselect(_("New order"), "order", list(range(n)), default,
                                      help=_("Pick the words in the order you want; the rest follow."),
                                      format_func=lambda k: f"{k}: {tokens[k]}")
        order = ",".join(str(k) for k in picked)
    elif kind == "swap":
        st.caption(_("Swapping needs at least two words."))
    else:
        st.caption(_("Read right to left: the last word comes first."))
    return seed, i, j, order


def outputs_tab(result, view: dict, call, positions: bool) -> None:
    gap = result.equivariance_gap
    moved = gap < 1e-9  # float64 rounding: the rows are the same vectors in new slots

    def rows_reveal() -> str:
        if moved:
            return _("The largest |Attn(PX) − P·Attn(X)| is {gap:.1e}: rounding, so every row on the right is a row "
                     "from the left, moved with its word.").format(gap=gap)
        return _("The largest |Attn(PX) − P·Attn(X)| is {gap:.1e}: with positions added, a word's output depends "
                 "on its slot too.").format(gap=gap)

    question = (_("Reorder the words as shown (positions are added). What happens to each word's output row?")
                if positions else _("Reorder the words as shown. What happens to each word's output row?"))
    left, right = st.columns(2)
    with left:  # both grids drawn ahead of the hand, so they move together
        show(hero(outputs_chart, key="out", **view))
    with right, classroom.predict("order_rows", question,
                                  [_("it keeps its numbers and moves with the word"), _("it gets new numbers"),
                                   _("all rows become one average vector")], 0 if moved else 1, rows_reveal):
        show(hero(outputs_chart, key="out_reordered", **view))
        classroom.snippet(fold(f"result = {call}", "an OrderExperiment"),
                          "out, out_reordered = result.out, result.out_reordered",
                          "# (n, d) each: the two heatmaps")
        formula(r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)")
        formula(r"\max\big|\mathrm{Attn}(PX) - P\,\mathrm{Attn}(X)\big| = $gap", gap=gap, digits=3)
        if positions:
            notice(_("With positions added, the rows no longer just move: a word's output depends on the slot it "
                     "sits in, so the reordered outputs are new numbers. That difference is exactly the information "
                     "a model needs to tell the two sentences apart."))
        else:
            notice(_("Each row of the reordered outputs is a row of the original, moved to the word's new slot "
                     "(read the 'was' labels). Attention is *permutation equivariant*: reorder the input and the "
                     "output is reordered the same way, and nothing else changes."))


# The lesson's tabs in order: label, and the function that draws it from the run's shared values ``v``.
TABS = [
    (N_("Outputs follow their tokens"),
     lambda v: outputs_tab(v["result"], v["view"], v["call"], v["positions"])),
    (N_("The pooled summary"),
     lambda v: order_views.pooled_tab(v["result"], v["call"], v["pooling"], v["positions"], v["before"], v["after"])),
    (N_("Attention weights"),
     lambda v: order_views.weights_tab(v["result"], v["call"], v["positions"])),
    (N_("Shuffle an image"), lambda v: why_views.shuffled_image_section(v["positions"], v["pooling"])),
]


@st.fragment
def lesson():
    guide.panel(order_guide_views.GUIDE)
    page = stage()
    with page.more:
        text = controls.text(_("Sentence"), "s", DEFAULT_SENTENCE, max_chars=300,
                             help=_("Words are split on spaces; each word gets a fixed random embedding seeded "
                                    "from its text, so the same word always gets the same vector."))
        dim = controls.slider(_("Embedding width d"), "d", 2, 64, 16, step=2)
        pooling = controls.choice(_("Pooling"), "pool", list(POOLINGS), "mean", format_func=order_views.pooling_name)
    with guard():
        tokens = tokenize(text)
        with page.side:
            kind = controls.choice(_("Reorder by"), "how", list(HOW), "custom", format_func=lambda k: _(HOW[k]))
            seed, i, j, order = reordering(tokens, kind)
            positions = controls.toggle(_("Add positions"), "pe", False,
                                        help=_("Add the sinusoidal row of each slot (0, 1, 2, ...) to the embedding "
                                               "of whatever word sits there."))
        result = experiment(text, dim, kind, seed, i, j, order, positions, pooling)
        guide.report("positions_on", positions)
        guide.report("positions_off", not positions)
        before, after = " ".join(result.tokens), " ".join(result.reordered)
        with page.side:  # beside the figure, so the picture still opens the page
            st.markdown(_("**Original:** {before}  \n**Reordered:** {after}").format(before=before, after=after))
        # only the sliders drawn in this run, leading as on the page: the frames follow the first one, or the one
        # under the hand, and a key whose slider is not here (kept from another order) must not take them
        moves = {"seed": seed} if kind == "shuffle" else {"i": i, "j": j} if kind == "swap" and len(tokens) >= 2 else {}
        view = {**moves, "d": dim, "s": text, "how": kind, "order": order, "pe": positions, "pool": pooling}
        call = classroom.call("order_experiment", text, dim, kind, seed=seed, i=i, j=j, order=order,
                              positions=positions, pooling=pooling)
        shared = {"result": result, "view": view, "call": call, "positions": positions, "pooling": pooling,
                  "before": before, "after": after}
        page.walk(TABS, shared)


lesson()
why(WHY)
source(self_attention, order_experiment, patch_experiment)
