"""PosEnc Explorer: entry point. Page config, navigation (from page_kit.registry), global sidebar."""

import streamlit as st

from page_kit import registry, settings
from page_kit._heap import freeze_import_heap

# A presentation link (?present=true) opens with the sidebar folded away: less chrome on a projector.
st.set_page_config(page_title="PosEnc Explorer", page_icon=":material/pin_drop:", layout="wide",
                   initial_sidebar_state="collapsed" if st.query_params.get("present") == "true" else "expanded")


def _page(info: registry.PageInfo, default: bool = False) -> st.Page:
    return st.Page(info.path, title=info.title, icon=info.icon, url_path=info.url_path, default=default)


navigation = st.navigation(
    {"": [_page(registry.HOME, default=True)],
     **{section.title: [_page(p) for p in section.pages] for section in registry.SECTIONS}},
    position="sidebar", expanded=True)
settings.sidebar()  # imports torch, when present, to ask for CUDA
navigation.run()
freeze_import_heap()  # after the page, so the modules it imported on first use are frozen too
