"""The sidebar's list of lessons, drawn by the app rather than by Streamlit's navigation widget.

Streamlit's sidebar navigation puts each section header inside the list of links (`<ul>` holding `<header>`
elements), so a screen reader announces one broken list of 39 links and axe reports `list` / `listitem` on
every page. app.py keeps `st.navigation` for routing (every URL path unchanged, `position="hidden"`) and
draws the links here: a section name as plain text, then that section's pages as page links (client-side
navigation, so the session and its settings survive a page change, as with Streamlit's own list).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st


def sidebar_links(groups: Sequence[tuple[str, Sequence[st.Page]]]) -> None:
    """``groups`` is the navigation in order: [(section title, [page, ...]), ...]; an empty title has no label."""
    with st.sidebar, st.container(key="lesson_nav", gap=None):
        for title, pages in groups:
            if title:
                st.markdown(f"**{title}**")
            for page in pages:
                st.page_link(page, label=page.title, icon=page.icon)
