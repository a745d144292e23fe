import streamlit as st

from lessons.absolute.words import INIT_USERS
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
from page_kit.lesson.code_lines import fold
from posenc_core.absolute import EMBEDDING_INITS, embedding_norm_balance, norm_ratio_doubling, token_plus_position
from posenc_core.why_position import tokenize

WIDTHS = (8, 16, 32, 64, 128, 256, 512, 1024)  # the model widths the norm-balance figure compares (not a control)


@st.cache_data(max_entries=32, show_spinner=False)
def parts(text: str, dim: int, init: str, scale: bool):
    return token_plus_position(tokenize(text), dim, init, scale)


@st.cache_data(max_entries=32, show_spinner=False)
def balance(init: str, scale: bool, dim: int):
    return embedding_norm_balance(sorted(set(WIDTHS) | {dim}), init, scale)


@st.cache_data(max_entries=32, show_spinner=False)
def doubled_balance(init: str, scale: bool, dim: int):
    """The balance at d and at 2d: the width question's answer."""
    return embedding_norm_balance([dim, 2 * dim], init, scale)


header(_("Token + position"),
       _("The first layer sees one vector per word: the word's embedding plus its position's row. Both share the "
         "same channels, so their sizes decide which one the model mostly hears."))
WHY = _("The first layer of an absolute-position Transformer sees one vector per token: the token's embedding "
        "(a row looked up by word) plus the position's row (looked up, or computed, by slot). Adding is cheap and "
        "keeps the width, but the two parts share the same channels, so their sizes decide which one the model "
        "mostly hears. That balance depends on the width and on how the embeddings were initialised.")
CHANGES = ["same", "grows", "shrinks"]  # pc.absolute.norm_ratio_doubling's answers, in the width question's order


def parts_chart(s: str, d: int, init: str, scale: bool) -> figures.Chart:
    x, words = parts(s, d, init, scale), tokenize(s)
    return figures.small_multiples(
        [x.token, x.position, x.input],
        [_("token embedding x √d") if scale else _("token embedding"), _("sinusoidal position row"),
         _("input = sum")],
        title=_("{n} words x {d} channels (one colour scale)").format(n=len(words), d=d), cols=3,
        x_title=_("channel"), y_title=_("word"), value_name=_("value"), cell_px=300, name="token_position_parts",
        alt=_("Three heatmaps on one colour scale, {n} words by {d} channels: the token embeddings, the "
              "position rows and their sum.").format(n=len(words), d=d))


def norms_chart(s: str, d: int, init: str, scale: bool) -> figures.Chart:
    x, words = parts(s, d, init, scale), tokenize(s)
    return figures.bars(
        [f"{k}: {w}" for k, w in enumerate(words)],
        {_("token"): x.token_norm, _("position"): x.position_norm, _("sum"): x.input_norm},
        title=_("Vector lengths, word by word"), x_title=_("slot: word"), y_title=_("L2 norm"),
        name="token_position_norms",
        alt=_("Grouped bars of the token, position and input norms for each of the {n} words; every "
              "position bar is {norm:.3f}.").format(n=len(words), norm=float(x.position_norm[0])))


def forming_tab(x, words, made, text: str, dim: int, init: str, scale: bool) -> None:
    show(hero(parts_chart, s=text, d=dim, init=init, scale=scale))
    classroom.snippet(made, f"# x.token, x.position, x.input: ({len(words)}, {dim}) each,",
                      "# the three panels")
    word, position = float(x.token_norm[0]), float(x.position_norm[0])

    def louder_reveal() -> str:
        said = (_("{token} = {tok:.3f} and ||PE(0)|| = {pos:.3f}: the word is the louder part of the sum.")
                if word > position else
                _("{token} = {tok:.3f} and ||PE(0)|| = {pos:.3f}: the position is the louder part of the sum."))
        return said.format(token=f"||{'√d·' if scale else ''}E['{words[0]}']||", tok=word, pos=position)

    asked = (_("Width {d}, init {init}, with × √d: in the input for '{word}', which part is longer?") if scale else
             _("Width {d}, init {init}, without × √d: in the input for '{word}', which part is longer?"))
    with classroom.predict("tp_louder", asked.format(d=dim, init=init, word=words[0]),
                           [_("the token embedding"), _("the position row"), _("they always have the same length")],
                           0 if word > position else 1, louder_reveal):
        formula(r"x_p = $s E[w_p] + PE(p):\quad \lVert $s E[\text{$w}]\rVert = $tok,\ "
                r"\lVert PE(0)\rVert = \sqrt{d/2} = $pos,\ \lVert x_0\rVert = $inp",
                s=r"\sqrt{d}\," if scale else "", w=words[0], tok=word, pos=position, inp=float(x.input_norm[0]))
        notice(_("Read the middle panel down: every sentence gets the same position rows, whatever the words. The "
                 "right panel is what the model sees. When the left panel is faint next to the middle one (try the "
                 "0.02 init without √d), the input is mostly position and the words barely register; when it is "
                 "loud, the position is a small nudge on top of the word."))


def balance_tab(x, words, made, text: str, dim: int, init: str, scale: bool) -> None:
    show(hero(norms_chart, s=text, d=dim, init=init, scale=scale))
    classroom.snippet(made, "# x.token_norm, x.position_norm, x.input_norm:",
                      f"# ({len(words)},) each, the bars")
    b = balance(init, scale, dim)
    wider = doubled_balance(init, scale, dim)
    (e0, e1), (m0, m1) = wider.expected, wider.measured

    def width_reveal() -> str:
        return _("Measured on made-up words, the ratio goes from {m0:.3f} at d = {d} to {m1:.3f} at "
                 "d = {d2}; 1 / (s√2) predicts {e0:.3f} → {e1:.3f}, since the token entries have "
                 "size s = {s0:.4g} → {s1:.4g}.").format(m0=m0, m1=m1, d=dim, d2=2 * dim, e0=e0, e1=e1,
                                                         s0=wider.std[0], s1=wider.std[1])

    with classroom.predict("tp_width", _("Double the width from {d} to {d2}, same init and × √d setting. "
                                         "What happens to ||position row|| / ||token embedding||?").format(
                               d=dim, d2=2 * dim),
                           [_("it stays the same"), _("it grows by √2"), _("it shrinks by √2"), _("it doubles")],
                           CHANGES.index(norm_ratio_doubling(dim, init, scale)), width_reveal):
        here = list(b.dim).index(dim)
        expected = _("expected 1 / (s √2)")  # the dashed line's name, the same words in the legend and in dashed=
        show(figures.lines(
            b.dim, {_("measured (256 made-up words)"): b.measured, expected: b.expected},
            title=_("||position row|| / ||token embedding|| as the width grows"), x_title=_("width d"),
            y_title=_("ratio"), log_x=True, log_y=True, markers=True, dashed=[expected], vlines=[(dim, f"d = {dim}")],
            hlines=[(1.0, _("equal"))], name="token_position_balance",
            alt=_("Log-log lines of the norm ratio against the width from {low} to {high}, measured "
                  "and expected; at d = {d} the expected ratio is {ratio:.3f}.").format(
                low=b.dim[0], high=b.dim[-1], d=dim, ratio=float(b.expected[here]))))
        widths = sorted(set(WIDTHS) | {dim})
        classroom.snippet(fold(f"b = {classroom.call('embedding_norm_balance', widths, init, scale)}", "a NormBalance"),
                          f"# b.measured, b.expected ({len(widths)},): the curves over b.dim")
        formula(r"\frac{\lVert PE(p)\rVert}{\lVert \text{token}\rVert} \approx \frac{\sqrt{d/2}}{s\sqrt{d}}"
                r" = \frac{1}{s\sqrt 2},\quad s = $std\ \Rightarrow\ $ratio",
                std=float(b.std[here]), ratio=float(b.expected[here]))
        notice(_("A sinusoidal row always has length √(d/2): each sin/cos pair contributes exactly 1. Its length is "
                 "the same at every position (the position bars are all equal). A token row with entries of "
                 "standard deviation s has length about s√d. With entries of size 1 (the 1/√d init times √d, or "
                 "N(0, 1)) the ratio is 0.71 at every width; without the √d the position's share grows like √d, "
                 "and with 0.02 it is about 35."))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
# Labels are marked N_() and shown translated by page.walk.
TABS = [
    (N_("Forming the input"), forming_tab),
    (N_("Norm balance"), balance_tab),
]


@st.fragment
def lesson():
    page = stage(more_label=None)  # every control here drives the figure beside it
    with page.side:
        # the default sentence is the input the figures and snippets compute on (and the URL's text): not translated
        text = controls.text(_("Sentence"), "s", "my kid likes the movie", max_chars=300)
        dim = controls.slider(_("Width d"), "d", 4, 1024, 64, step=4)
        init = controls.select(_("Token embedding init"), "init", list(EMBEDDING_INITS), index=2,
                               help="; ".join(f"{k}: {_(INIT_USERS[k])}" for k in EMBEDDING_INITS))
        st.caption(_("{init} is used by {users}.").format(init=init, users=_(INIT_USERS[init])))
        scale = controls.toggle("× √d", "scale", True,  # a formula: the same in every language
                                help=_("The Transformer paper multiplies the token embeddings by √d before adding "
                                       "the sinusoidal table."))
    with guard():
        x = parts(text, dim, init, scale)
        words = tokenize(text)
        made = fold(f"x = pc.absolute.token_plus_position(pc.why_position.tokenize({text!r}), {dim}, {init!r}, "
                    f"{scale})", "a TokenPlusPosition")
        page.walk(TABS, x, words, made, text, dim, init, scale)


lesson()
why(WHY)
source(token_plus_position, embedding_norm_balance, norm_ratio_doubling)
