"""A bare Streamlit fragment: one slider and N captions that follow it (N from POSENC_BARE_ELEMENTS).

bench/floor.py times a move on it to say what Streamlit itself costs per fragment rerun for as many elements as
a lesson sends, with nothing computed and nothing from the kit."""

import os

import streamlit as st

ELEMENTS = int(os.environ.get("POSENC_BARE_ELEMENTS", "40"))


@st.fragment
def body():
    value = st.slider("x", 0, 100, 50)
    for i in range(ELEMENTS):
        st.caption(f"line {i}: {value}")


body()
