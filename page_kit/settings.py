"""Global settings shown in the sidebar on every page: backend, presentation mode, export format."""

from __future__ import annotations

import streamlit as st

import posenc_core as pc

from . import _url

BACKEND_LABELS = {"numpy": "numpy", "torch": "torch (CPU)", "torch-cuda": "torch (CUDA)"}

PRESENTATION_CSS = """
<style>
html { font-size: 21px; }
header[data-testid="stHeader"], [data-testid="stToolbar"], footer { display: none !important; }
.block-container { padding-top: 1.2rem !important; max-width: 96% !important; }
[data-testid="stCaptionContainer"] { font-size: 0.95rem; }
</style>
"""


def sidebar() -> None:
    """Draw the global controls; app.py calls this once per run, before the page."""
    with st.sidebar:
        st.markdown("**Settings**")
        availability = pc.available_backends()
        usable = [b for b, why in availability.items() if not why]
        st.radio("Compute backend", usable, key="backend", format_func=BACKEND_LABELS.get,
                 help="Where the core computes. torch runs on the GPU when one is present.")
        for name, why in availability.items():
            if why:
                st.caption(f":gray[{BACKEND_LABELS[name]}: unavailable ({why})]")
        backend, device = current_backend()
        st.caption(f"Computing with **{backend}** on **{device}**.")
        _url.fix("present", _url.boolean)  # checked before Streamlit reads the link, as every bound control
        st.toggle("Presentation mode", key="present", bind="query-params",
                  help="Larger fonts and less chrome, for a projector.")
        st.segmented_control("Figure export format", ["png", "svg"], key="export", default="png",
                             help="Format of the camera button in each figure's toolbar.")
    if presentation():
        st.html(PRESENTATION_CSS)


def current_backend() -> tuple[str, str]:
    choice = st.session_state.get("backend") or "numpy"
    if choice == "torch-cuda":
        return "torch", "cuda"
    if choice == "torch":
        return "torch", "cpu"
    return "numpy", "cpu"


def presentation() -> bool:
    return bool(st.session_state.get("present", False))


def dark() -> bool:
    theme = getattr(st.context, "theme", None)
    return getattr(theme, "type", None) == "dark"


def export_format() -> str:
    return st.session_state.get("export") or "png"
