"""Shared pieces of the "Inside real models" pages: SmolLM2's attention statistics (shipped, or measured here on
the reader's text, shared by two pages); live runs come from ``page_kit.lesson.model_runs``.

No math here: the numbers come from ``posenc_core.real_models``.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import posenc_core as pc
from page_kit import figures, show
from page_kit.lesson.model_runs import TEXT_TITLE, models_ready, run_with_progress

real = pc.real_models
# how the file real.shipped_attention_summary() reads was made
ATTENTION_COMMAND = ("python -m posenc_core.real_models attention --npz "
                     "posenc_core/real_models/data/smollm2_attention_stats.npz --tokens 1024 --windows 4")
LIVE_KEY = "real_attention_live"  # session state: the summary of the reader's own measurement
LIVE_TEXT_KEY = "real_attention_live_text"  # ... and the text it was measured on (for the code snippets)


def layer_head_map(grid, title: str, value_name: str, name: str, alt: str) -> None:
    """A (layers, heads) heatmap of SmolLM2's statistics, layers and heads counted from 1, values in [0, 1]."""
    show(figures.heatmap(grid, title=title, x_title="head", y_title="layer", value_name=value_name,
                         zrange=(0.0, 1.0), x=np.arange(1, grid.shape[1] + 1), y=np.arange(1, grid.shape[0] + 1),
                         name=name, height=520, alt=alt))


@st.cache_data(show_spinner=False)
def shipped_attention() -> real.AttentionSummary:
    return real.shipped_attention_summary()


def summary_code() -> str:
    """The snippet line that gives ``summary`` as the page shows it: the shipped one, or the reader's text."""
    if st.session_state.get(LIVE_KEY) is not None and LIVE_TEXT_KEY in st.session_state:
        return (f"text = {st.session_state[LIVE_TEXT_KEY]!r}\n"
                "summary = pc.real_models.text_attention_summary(text)  # SmolLM2 on your text")
    return "summary = pc.real_models.shipped_attention_summary()  # measured on the shipped text"


def attention_summary() -> tuple[real.AttentionSummary, str]:
    """The statistics to show and a sentence saying what they were measured on; a live-measure box."""
    with st.expander("Measure on your own text", icon=":material/science:"):
        text = st.text_area("Text (SmolLM2 reads its first 512 tokens)", key="real_text", height=110,
                            value=real.shipped_text()[40000:41800])
        if st.button("Measure", key="real_measure", icon=":material/play_arrow:", type="primary"):
            if models_ready(real.SMOLLM2_NAME):
                summary = run_with_progress(lambda progress: real.text_attention_summary(text, progress=progress),
                                            "Running SmolLM2, layer by layer…")
                st.session_state[LIVE_KEY] = summary
                st.session_state[LIVE_TEXT_KEY] = text
        if LIVE_KEY in st.session_state:
            st.button("Back to the shipped measurement", key="real_forget",
                      on_click=lambda: st.session_state.pop(LIVE_KEY, None))
    live = st.session_state.get(LIVE_KEY)
    if live is not None:
        return live, (f"Measured here on your text: {live.tokens:,} tokens"
                      + (f" (the first {live.tokens} of {live.text_tokens:,})"
                         if (live.text_tokens or 0) > live.tokens else "") + ".")
    s = shipped_attention()
    return s, (f"Measured on {s.windows} stretches of {s.tokens:,} tokens of *{TEXT_TITLE}* (shipped; "
               f"made by `{ATTENTION_COMMAND}`).")
