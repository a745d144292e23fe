"""Make sure app.py runs first, even when the first request is a deep link to a page.

Streamlit treats a folder called ``pages/`` beside the entry point as a legacy multipage app until
some script calls ``st.navigation``; in that mode a deep link such as ``/sinusoidal`` runs the page
file alone, without app.py (no navigation, no sidebar settings, no page config). Every page imports
the kit, so the kit switches the process to ``st.navigation`` mode and reruns: the rerun goes
through app.py, which resolves the same URL to the same page.
"""

import streamlit as st
from streamlit.runtime import exists as _runtime_exists
from streamlit.runtime.pages_manager import PagesManager


def ensure_app_entrypoint() -> None:
    if PagesManager.uses_pages_directory and _runtime_exists():
        PagesManager.uses_pages_directory = False
        st.rerun()
