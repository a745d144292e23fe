import streamlit as st

from lessons.todays_models import class_views
from lessons.todays_models import sinks_views as views
from page_kit import (
    classroom,
    controls,
    formula,
    guard,
    header,
    hero,
    notice,
    see_also,
    show,
    source,
    stage,
    why,
)
from posenc_core.todays_models import sink_mass_by_position, sink_mass_by_score, sink_softmax, streaming_eviction

header("Attention sinks",
       "Softmax must hand out all of its probability, even when no key is worth it. GPT-OSS gives each head a "
       "learned sink logit that joins every softmax row and is then dropped: the probability it takes goes nowhere.")
WHY = ("Softmax must hand out all of its probability, even when no key is worth attending to. Trained models "
       "then dump the surplus on some token, often the first one (an *attention sink*). GPT-OSS makes the sink "
       "explicit: each head learns one extra logit that joins every row of the softmax and is then dropped, so "
       "the probability it takes goes nowhere. That matters most in its sliding-window layers and in streaming "
       "caches, where the first token is not always there to lean on.")


def map_tab(page, sink: float, window: int) -> None:
    n = views.MAP_TOKENS
    with page.side:
        w = controls.slider("Map's window", "mw", 2, n, 8,
                            help="The window in this 32-token map: small, so its edge shows; the other tabs "
                                 "use W above.")
    result = views.attention_map(n, w, sink)
    last, kept = float(result.sink[-1]), float(result.kept[-1])
    show(hero(views.map_chart, sink=sink, mw=w))
    classroom.snippet(f"result = {classroom.call('sink_attention_map', n, w, sink)}",
                      'result.probs  # (32, 32) query x key probabilities, NaN outside the window',
                      'result.sink  # (32,) what the sink column took in each row')
    with class_views.ask_row_sum(kept, last, w):
        formula(r"\begin{gathered}a_j = \frac{e^{z_j}}{e^{s} + \sum_{k} e^{z_k}},\qquad a_{\text{sink}} = "
                r"\frac{e^{s}}{e^{s} + \sum_k e^{z_k}}\\ \text{last row: } \textstyle\sum_j a_j = $k,"
                r"\ a_{\text{sink}} = $s\end{gathered}", k=kept, s=last)
        notice(f"Each row's probabilities on real keys sum to less than 1; the last column is what the "
               f"sink took ({last:.3g} in the last row) and is thrown away (transformers' gpt_oss "
               "eager_attention_forward drops it after the softmax), so it multiplies no value. Rows "
               "that see only a few keys (the first ones) tend to give the sink more: fewer keys compete with it.")


def score_tab(page, sink: float, window: int) -> None:
    at_zero = float(sink_mass_by_score(sink, [0.0], window)[0])  # unshifted: the curve's middle point
    show(hero(views.score_chart, sink=sink, w=window))
    classroom.snippet("import numpy as np", "",
                      "offsets = np.linspace(-6.0, 6.0, 121)  # (121,) shift of every key's score",
                      f"mass = {{s: pc.todays_models.sink_mass_by_score(s, offsets, {window}) for s in "
                      f"({sink - 2!r}, {sink!r}, {sink + 2!r})}}  # (121,) sink mass per sink logit")
    formula(r"a_{\text{sink}} = \frac{1}{1 + \sum_k e^{z_k - s}},\quad \text{at shift } 0:\ $m", m=at_zero)
    notice(f"When the keys score well above the sink the head attends normally; when they all score "
           f"low (nothing relevant here) the sink takes the mass instead of a random key. With sink "
           f"logit {sink:g} and unshifted scores it absorbs {100 * at_zero:.3g}%. Raising s by 2 moves the "
           "curve 2 to the right: the head needs higher scores before it attends to anything.")


def window_tab(page, sink: float, window: int) -> None:
    n = 4 * window
    result = views.mass_by_position(sink, n, window)
    full, windowed = float(result.full[-1]), float(result.window[-1])
    with class_views.ask_window(full, windowed, window, n - 1):
        show(hero(views.window_chart, sink=sink, w=window))
        classroom.snippet(f"result = {classroom.call('sink_mass_by_position', sink, n, window)}",
                          'result.full, result.window  # (positions,) sink mass of each query')
        formula(r"\begin{gathered}a_{\text{sink}}(p) = \frac{e^{s}}{e^{s} + \sum_{j=\max(0,\,p-W+1)}^{p} e^{z_j}}"
                r"\\ p = $p:\ \text{window } $w,\ \text{full } $f\end{gathered}", p=n - 1, w=windowed, f=full)
        notice(f"With full attention the number of keys grows with the position, so the sink's share "
               f"keeps shrinking ({full:.3g} at position {n - 1}). In a sliding-window layer "
               f"the query never sees more than {window} keys, so the share levels off "
               f"({windowed:.3g} at the same position): the sink stays a real option in every "
               "row, which is why GPT-OSS's sliding layers can say 'nothing in my window matters'.")


def stream_tab(page, sink: float, window: int) -> None:
    with page.side:
        first = controls.slider("Token 0's score, no sink", "first", 0.0, 10.0, 6.0, step=0.5,
                                help="The score of token 0 in a model without a sink logit.")
    result = views.eviction(window, sink, float(first))
    show(hero(views.stream_chart, sink=sink, w=window, first=first))
    classroom.snippet(
        f"result = {classroom.call('streaming_eviction', window, sink, float(first))}",
        'print(result.first_token)  # token 0 as the sink: .before/.after, mass on it (.parking) '
        'and on the rest (.tokens)',
        'print(result.learned_sink)  # the same bars with a learned sink logit')
    formula(r"\begin{gathered}\text{token 0 as the sink:}\\ \frac{a_j^{\text{after}}}{a_j^{\text{before}}} \le "
            r"\frac{1}{1 - a_0} = $b\\ \text{learned sink:}\\ "
            r"\max_j \frac{a_j^{\text{after}}}{a_j^{\text{before}}} = $g\end{gathered}",
            b=result.first_token.growth_bound, g=result.learned_sink.growth)
    notice(f"A streaming cache keeps the last {window} tokens. If the model parks "
           f"{result.first_token.before.parking:.0%} of its attention on token 0, evicting "
           f"token 0 hands that mass to the remaining tokens: each one's weight grows up to "
           f"{result.first_token.growth:.2f}×, and the output changes. (StreamingLLM's fix is "
           f"to keep the first tokens in the cache.) With a learned sink the parking place never "
           f"leaves: the largest change of a kept token's weight is a factor of "
           f"{result.learned_sink.growth:.3f}.")


@st.fragment
def lesson():
    page = stage()
    with page.side:
        sink = controls.slider("Sink logit s", "sink", -4.0, 8.0, 2.0, step=0.25,
                               help="A learned number per head (GptOssAttention.sinks); keys score N(0, 1) here.")
        window = controls.slider("Sliding window W", "w", 2, 256, 128,
                                 help="GPT-OSS's sliding layers use 128 (sliding_window in its config).")
    tabs = page.sections(["The extra column", "Mass against scores", "Windows", "Streaming"])
    with guard():
        for tab, draw in zip(tabs, (map_tab, score_tab, window_tab, stream_tab), strict=True):
            if tab.open:
                with tab:
                    draw(page, float(sink), window)


lesson()
why(WHY)
see_also('local_global', 'nope_layers')
source(sink_softmax, sink_mass_by_position, streaming_eviction)
