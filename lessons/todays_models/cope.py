import streamlit as st

from lessons.todays_models import class_views
from lessons.todays_models import cope_views as views
from page_kit import (
    classroom,
    controls,
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
from posenc_core.todays_models import (
    COPE_UNITS,
    cope_counting_example,
    cope_interpolate,
    cope_interpolation_curve,
    cope_positions,
)

TEXT = "The cat sat. Then it slept on the warm mat. Birds sang outside the window. Everyone listened quietly."
SHARPNESS = [1, 2, 4, 8, 16, 30]


def highlighted(tokens, hits) -> str:
    return " ".join(f"**:blue-background[{t}]**" if hit else t for t, hit in zip(tokens, hits, strict=True))


header("CoPE: counting what matters",
       "Every encoding so far counts tokens. CoPE lets the query decide what to count: count only sentence ends, "
       "and 'three back' means three sentences back.")
WHY = ("Every encoding so far counts tokens. CoPE (contextual position encoding, Golovneva, Wang, Weston and "
       "Sukhbaatar 2024, arXiv:2405.18719, section 3) lets the query decide what to count: a sigmoid gate on each "
       "key says whether it counts, a key's position is the sum of the gates between it and the query, and the "
       "position embedding of a fractional position is interpolated between its two integer neighbours. Count "
       "only sentence ends and 'three back' means three sentences back.")


def example_tab(page, view, ex) -> None:
    text, unit, target, sharpness = view["text"], view["unit"], view["target"], view["sharpness"]
    tokens = ex.tokens
    by_tokens = views.example(text, "tokens", target, sharpness)
    show(hero(views.attention_chart, target=target, s=sharpness, unit="tokens", text=text, name="cope_by_tokens"))
    st.caption("Tokens come from a toy tokenizer that cuts words into pieces of at most four letters, "
               "so a long word is several tokens, as with a real BPE vocabulary.")
    with class_views.ask_how_many(ex, unit, target):
        st.markdown(f"Counting **{unit}**, position {target} is (in bold): {highlighted(tokens, ex.at_target)}")
        show(hero(views.attention_chart, target=target, s=sharpness, unit=unit, text=text, name="cope_attention"))
        class_views.example_code(text, unit, target, sharpness,
                                  f'ex.attention  # ({len(tokens)},) the last token\'s attention on '
                                  'each key: the bars')
        picked = [t for t, hit in zip(tokens, by_tokens.at_target, strict=True) if hit]
        found = ex.found
        here = (f"Counted in {unit}, position {target} holds {found} token{'s' * (found != 1)}, which "
                f"together get {ex.target_mass:.1%} of the attention." if found else
                f"Counted in {unit}, no key reaches position {target} (the text has too few), so the "
                "attention has nothing to single out.")
        notice(f"Counted in tokens, position {target} is '{' '.join(picked) or '(none)'}', {target - 1} "
               f"tokens before the query. {here} Nothing about the weights changed but which keys the "
               f"gates open on: the query's position embedding still asks for position {target}, and the "
               "gates decide what a step is.")


def gates_tab(page, view, ex) -> None:
    tokens, query = ex.tokens, ex.query
    with page.side:
        j = controls.slider("Key j", "j", 0, query, max(0, query - 6)) if query > 0 else 0
    show(hero(views.gates_chart, **views.hands(view)))
    show(hero(views.positions_chart, **views.hands(view)))
    class_views.example_code(view["text"], view["unit"], view["target"], view["sharpness"],
                              f'ex.gates  # ({len(tokens)},) the last token\'s gate on each key',
                              f'ex.positions, ex.token_positions  # ({len(tokens)},) each: CoPE '
                              'position and token count')
    formula(r"\begin{gathered}p_{$i,$j} = \sum_{t=$j}^{$i} g_{$i,t} = $p\\ \text{token count: } $c\end{gathered}",
            i=query, j=j, p=float(ex.positions[j]), c=float(ex.token_positions[j]))
    notice("Reading right to left from the query, the position rises by one at each key whose gate is "
           "open and stays put elsewhere, so all tokens of one unit share a position. With every gate "
           "at 1 (count tokens) CoPE's position is exactly the token count i − j + 1. Lower the "
           "sharpness and closed gates leak a little: positions become fractional.")


def grid_tab(page, view, ex) -> None:
    tokens = ex.tokens
    show(hero(views.grid_chart, **views.hands(view)))
    class_views.example_code(view["text"], view["unit"], view["target"], view["sharpness"],
                              f'ex.position_grid  # ({len(tokens)}, {len(tokens)}) p_ij (the figure blanks j > i)')
    notice("Each row is one query's count, restarting at the query. In this hand-built example the "
           "gates depend only on the key, so every row agrees on where units end; in a trained model "
           "the gate is σ(q_i·k_j), and each query (and head) can count something different.")


def interp_tab(page, view, ex) -> None:
    with page.side:
        p = controls.slider("Fractional position p", "p", 0.0, 8.0, 2.4, step=0.1)
    interp = cope_interpolation_curve(view["target"], view["sharpness"], p)
    show(hero(views.interp_chart, p=p, target=view["target"], s=view["sharpness"]))
    call = classroom.call("cope_interpolation_curve", view["target"], view["sharpness"], p)
    classroom.snippet(f"interp = {call}",
                      'interp.grid, interp.curve  # (161,) p and q·e[p], the line; interp.value at p')
    formula(r"q\cdot e[$p] = $wh\cdot q\cdot e[$hi] + $wl\cdot q\cdot e[$lo] = $v",
            p=interp.p, wh=interp.w_high, wl=interp.w_low, hi=interp.high,
            lo=interp.low, v=interp.value, digits=3)
    notice("Only integer positions have embeddings; a fractional count borrows from its two "
           "neighbours in proportion. CoPE computes q·e[p] once per integer p and interpolates the "
           "numbers, which is cheaper than interpolating vectors and gives the same result.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        unit = controls.choice("Count", "unit", list(COPE_UNITS), "sentences",
                               help="Which keys get gate 1: every token, the last piece of each word, or . ! ?")
        target = controls.slider("Find position", "target", 1, 8, 3,
                                 help="A query that ends a unit is at position 1; keys count up from there.")
        sharpness = controls.select_slider("Gate sharpness", "s", SHARPNESS, 8,
                                           help="q·k = ±sharpness; small values give fractional gates.")
    with page.more:
        text = controls.text("Text", "text", TEXT, max_chars=600, help="The last token is the query.")
    view = {"text": text, "unit": unit, "target": target, "sharpness": float(sharpness)}
    tabs = page.sections(["The counting example", "Gates and positions", "Every query's positions",
                          "Fractional positions"])
    with guard():
        ex = views.example(text, unit, target, float(sharpness))
        if ex.dropped:
            with page.main:
                st.caption(f"The text makes {len(ex.tokens) + ex.dropped} tokens; the example keeps the last "
                           f"{len(ex.tokens)} (the query is the last token).")
        for tab, draw in zip(tabs, (example_tab, gates_tab, grid_tab, interp_tab), strict=True):
            if tab.open:
                with tab:
                    draw(page, view, ex)


lesson()
why(WHY)
formula(r"\begin{gathered}g_{ij} = \sigma(q_i\cdot k_j),\qquad p_{ij} = \sum_{t=j}^{i} g_{it}\\ "
        r"a_{ij} = \mathrm{softmax}_j\big(q_i\cdot k_j + q_i\cdot e[p_{ij}]\big)\\ "
        r"e[p] = (p-\lfloor p\rfloor)\,e[\lceil p\rceil]\\ \quad + (1-p+\lfloor p\rfloor)\,e[\lfloor p\rfloor]"
        r"\end{gathered}")  # the interpolation on two lines: on one it ran past a phone's width
source(cope_positions, cope_interpolate, cope_counting_example)
