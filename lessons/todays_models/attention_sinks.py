import numpy as np
import streamlit as st

import posenc_core as pc
from page_kit import (
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    notice,
    sections,
    see_also,
    show,
    source,
    todays_class,
)

OFFSETS = np.linspace(-6.0, 6.0, 121)  # mean key score minus the sink logit's neighbourhood



@st.cache_data(max_entries=32, show_spinner=False)
def attention_map(n: int, window: int, sink: float):
    return pc.sink_attention_map(n, window, sink)


@st.cache_data(max_entries=32, show_spinner=False)
def mass_by_score(sink: float, n_keys: int):
    return {f"sink logit {s:g}": pc.sink_mass_by_score(s, OFFSETS, n_keys) for s in (sink - 2, sink, sink + 2)}


@st.cache_data(max_entries=32, show_spinner=False)
def mass_by_position(sink: float, n: int, window: int):
    return pc.sink_mass_by_position(sink, n, window)


@st.cache_data(max_entries=32, show_spinner=False)
def eviction(window: int, sink: float, first_score: float):
    return pc.streaming_eviction(window, sink, first_score)


header(
    "Attention sinks",
    "Softmax must hand out all of its probability, even when no key is worth attending to. Trained models "
    "then dump the surplus on some token, often the first one (an *attention sink*). GPT-OSS makes the sink "
    "explicit: each head learns one extra logit that joins every row of the softmax and is then dropped, so "
    "the probability it takes goes nowhere. That matters most in its sliding-window layers and in streaming "
    "caches, where the first token is not always there to lean on."
)


@st.fragment
def lesson():
    c1, c2 = st.columns(2)
    with c1:
        sink = controls.slider("Sink logit s", "sink", -4.0, 8.0, 2.0, step=0.25,
                               help="A learned number per head (GptOssAttention.sinks); keys score N(0, 1) here.")
    with c2:
        window = controls.slider("Sliding window W", "w", 2, 256, 128,
                                 help="GPT-OSS's sliding layers use 128 (sliding_window in its config).")
    tab_map, tab_score, tab_window, tab_stream = sections(
        ["The extra column", "Mass against scores", "Windows", "Streaming"])
    with guard():
        if tab_map.open:
            with tab_map:
                n = 32
                w = controls.slider("Window in this 32-token map", "mw", 2, n, 8,
                                    help="A small window, so its edge shows; the other tabs use W above.")
                result = attention_map(n, w, float(sink))
                todays_class.ask_row_sum(float(np.nansum(result["probs"][-1])), float(result["sink"][-1]), w)
                grid = np.column_stack([result["probs"], result["sink"]])  # (n, n + 1): keys, then the sink
                chart = figures.heatmap(
                    grid, x=[str(k) for k in range(n)] + ["sink"], y=np.arange(n),
                    title=f"One head, causal window of {w} keys, sink logit {sink:g}", x_title="key (then the sink)",
                    y_title="query position", value_name="probability", zrange=(0.0, 1.0), name="sink_map",
                    alt="Attention probabilities of a sliding-window head with the sink as the last column; blank "
                        "cells are outside the window.")
                ticks = [str(k) for k in range(0, n, 4)] + ["sink"]  # label the sink column explicitly
                chart.figure.update_xaxes(type="category", tickvals=ticks, ticktext=ticks)
                show(chart)
                classroom.snippet(f"result = {classroom.call('sink_attention_map', n, w, float(sink))}",
                                  'result["probs"]  # (32, 32) query x key probabilities, NaN outside the window',
                                  'result["sink"]  # (32,) what the sink column took in each row')
                last = result["sink"][-1]
                kept = float(np.nansum(result["probs"][-1]))
                formula(r"a_j = \frac{e^{z_j}}{e^{s} + \sum_{k} e^{z_k}},\qquad a_{\text{sink}} = "
                        r"\frac{e^{s}}{e^{s} + \sum_k e^{z_k}}:\quad \text{last row: } \textstyle\sum_j a_j = $k,"
                        r"\ a_{\text{sink}} = $s", k=kept, s=float(last))
                notice(f"Each row's probabilities on real keys sum to less than 1; the last column is what the "
                       f"sink took ({last:.3g} in the last row) and is thrown away (transformers' gpt_oss "
                       "eager_attention_forward drops it after the softmax), so it multiplies no value. Rows "
                       "that see only a few keys (the first ones) tend to give the sink more: fewer keys compete "
                       "with it.")
        if tab_score.open:
            with tab_score:
                curves = mass_by_score(float(sink), window)
                show(figures.stacked_lines(
                    OFFSETS, curves, title=f"Probability the sink absorbs, {window} keys", x_title="shift of every "
                    "key's score", y_title="sink mass", hover_format=".3f", y_range=(0.0, 1.0), name="sink_score",
                    alt="Sink mass falls in a sigmoid as the keys' scores rise past the sink logit."))
                classroom.snippet("import numpy as np", "",
                                  "offsets = np.linspace(-6.0, 6.0, 121)  # (121,) shift of every key's score",
                                  f"mass = {{s: pc.sink_mass_by_score(s, offsets, {window}) for s in "
                                  f"({float(sink) - 2!r}, {float(sink)!r}, {float(sink) + 2!r})}}  # (121,) sink "
                                  "mass per sink logit")
                middle = curves[f"sink logit {sink:g}"]
                at_zero = float(middle[np.argmin(np.abs(OFFSETS))])
                formula(r"a_{\text{sink}} = \frac{1}{1 + \sum_k e^{z_k - s}},\quad \text{at shift } 0:\ $m",
                        m=at_zero)
                notice(f"When the keys score well above the sink the head attends normally; when they all score "
                       f"low (nothing relevant here) the sink takes the mass instead of a random key. With sink "
                       f"logit {sink:g} and unshifted scores it absorbs {100 * at_zero:.3g}%. Raising s by 2 moves the "
                       "curve 2 to the right: the head needs higher scores before it attends to anything.")
        if tab_window.open:
            with tab_window:
                n = 4 * window
                result = mass_by_position(float(sink), n, window)
                todays_class.ask_window(float(result["full"][-1]), float(result["window"][-1]), window, n - 1)
                positions = np.arange(n)
                show(figures.stacked_lines(
                    positions, {"full attention": result["full"], f"sliding window of {window}": result["window"]},
                    title="Sink mass of the query at each position", x_title="query position",
                    y_title="sink mass (log)", log_y=True, hover_format=".3g", vlines=[(window - 1, "window full")],
                    name="sink_window", alt="With full attention the sink's share keeps falling as keys "
                    "accumulate; with a window it levels off once the window is full."))
                classroom.snippet(f"result = {classroom.call('sink_mass_by_position', float(sink), n, window)}",
                                  'result["full"], result["window"]  # (positions,) sink mass of each query')
                formula(r"a_{\text{sink}}(p) = \frac{e^{s}}{e^{s} + \sum_{j=\max(0,\,p-W+1)}^{p} e^{z_j}},\quad "
                        r"p = $p:\ \text{window } $w,\ \text{full } $f", p=n - 1,
                        w=float(result["window"][-1]), f=float(result["full"][-1]))
                notice(f"With full attention the number of keys grows with the position, so the sink's share "
                       f"keeps shrinking ({result['full'][-1]:.3g} at position {n - 1}). In a sliding-window layer "
                       f"the query never sees more than {window} keys, so the share levels off "
                       f"({result['window'][-1]:.3g} at the same position): the sink stays a real option in every "
                       "row, which is why GPT-OSS's sliding layers can say 'nothing in my window matters'.")
        if tab_stream.open:
            with tab_stream:
                first = controls.slider("Score of token 0 in a model without a sink", "first", 0.0, 10.0, 6.0,
                                        step=0.5)
                result = eviction(window, float(sink), float(first))
                cases = {"token 0 as the sink": result["first_token"], "learned sink logit": result["learned_sink"]}
                labels = [f"{case}, {when}" for case in cases for when in ("before", "after")]
                show(figures.bars(
                    labels, {"on the sink / token 0": [cases[c][w]["parking"] for c in cases for w in ("before",
                                                                                                      "after")],
                             "on the other tokens": [cases[c][w]["tokens"] for c in cases for w in ("before",
                                                                                                  "after")]},
                    title=f"A cache of {window} tokens drops token 0", x_title="", y_title="probability",
                    name="sink_stream", alt="Without a learned sink, evicting token 0 moves its mass onto the "
                                           "other tokens; with one, almost nothing changes."))
                classroom.snippet(
                    f"result = {classroom.call('streaming_eviction', window, float(sink), float(first))}",
                    'print(result["first_token"])  # token 0 as the sink: "before"/"after", mass on it ("parking") '
                    'and on the rest ("tokens")',
                    'print(result["learned_sink"])  # the same bars with a learned sink logit')
                formula(r"\frac{a_j^{\text{after}}}{a_j^{\text{before}}} \le \frac{1}{1 - a_0} = $b\ \text{(token 0 as "
                        r"the sink)},\qquad \max_j \frac{a_j^{\text{after}}}{a_j^{\text{before}}} = $g\ "
                        r"\text{(learned sink)}", b=1 / (1 - result["first_token"]["before"]["parking"]),
                        g=result["learned_sink"]["growth"])
                notice(f"A streaming cache keeps the last {window} tokens. If the model parks "
                       f"{result['first_token']['before']['parking']:.0%} of its attention on token 0, evicting "
                       f"token 0 hands that mass to the remaining tokens: each one's weight grows up to "
                       f"{result['first_token']['growth']:.2f}×, and the output changes. (StreamingLLM's fix is "
                       f"to keep the first tokens in the cache.) With a learned sink the parking place never "
                       f"leaves: the largest change of a kept token's weight is a factor of "
                       f"{result['learned_sink']['growth']:.3f}.")




lesson()
see_also('local_global', 'nope_layers')
source(pc.sink_softmax, pc.sink_mass_by_position, pc.streaming_eviction)
