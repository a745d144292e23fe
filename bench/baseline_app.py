"""The quick Streamlit app everyone starts with: one slider, one st.plotly_chart heatmap of the size the
Sinusoidal page shows by default (positions x 64 sine/cosine columns). bench/slider.py times it as the
baseline; it is not part of PosEnc Explorer."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

n = st.slider("Positions", 8, 2048, 128, key="n")
angles = np.arange(n)[:, None] / 10000 ** (np.arange(0, 64, 2) / 64)
table = np.empty((n, 64), dtype=np.float32)
table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
st.plotly_chart(go.Figure(go.Heatmap(z=table, colorscale="RdBu", zmid=0), layout=dict(height=420)), key="chart")
