"""The sidebar's list of lessons, drawn by the app rather than by Streamlit's navigation widget.

Streamlit's sidebar navigation puts each section header inside the list of links (`<ul>` holding `<header>`
elements), so a screen reader announces one broken list of 39 links and axe reports `list` / `listitem` on
every page. app.py keeps `st.navigation` for routing (every URL path unchanged, `position="hidden"`) and
draws the links here, as one element (nav_list.js): a <nav> with each section's name and its pages as a list of
links. A plain click switches page inside the app, so the session and its settings survive a page change, as
with Streamlit's own list; 49 st.page_link elements were 9% of a class's server CPU under bench/load.py.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from . import element_data, registry

_component = st.components.v2.component(
    "posenc_nav_list", js=element_data.JS + Path(__file__).with_name("nav_list.js").read_text(encoding="utf-8"),
    # one rule per line: a one-line CSS string with "[" would be taken for a file pattern
    css="\n".join([
        ".nl{font-family:var(--st-font);color:var(--st-text-color);font-size:.875rem}",
        ".nl ul{list-style:none;margin:0 0 .35rem;padding:0}",
        ".nl-section{font-weight:600;font-size:1rem;margin:.35rem 0 .1rem}",
        # 28 px rows: WCAG 2.2's target size (2.5.8) asks 24 px per target
        ".nl-link{display:flex;align-items:center;gap:.5rem;min-height:28px;padding:0 .5rem;border-radius:.5rem;"
        "color:inherit;text-decoration:none;white-space:nowrap}",
        ".nl-link > span:last-child{overflow:hidden;text-overflow:ellipsis}",
        ".nl-link:hover{background:rgba(151,166,195,.15)}",
        ".nl-link[aria-current=page]{background:rgba(151,166,195,.25);font-weight:600}",
        ".nl-link:focus-visible{outline:2px solid #1c7bd9;outline-offset:-2px}",
        # Streamlit's own icon font (its page links use it): local, so nothing is fetched from a font server
        ".nl-icon{font-family:'Material Symbols Rounded';font-weight:400;font-size:1.125rem;line-height:1;"
        "flex:none;font-feature-settings:'liga'}",
    ]),
    isolate_styles=False)
MATERIAL = ":material/"


def _glyph(icon: str) -> str:
    """A page icon as the text the list shows: a material icon's ligature name, or the emoji itself."""
    return icon[len(MATERIAL):-1] if icon.startswith(MATERIAL) else icon


def _noop() -> None:
    """A trigger is reported only to a component mounted with its callback."""


def sidebar_links(groups: Sequence[tuple[str, Sequence[st.Page]]], here: str) -> None:
    """``groups`` is the navigation in order: [(section title, [page, ...]), ...]; an empty title has no label.
    ``here`` is the URL path of the page being shown. A click on a link (the "go" trigger) switches page."""
    entries = [[title, [[p.url_path, p.title, _glyph(p.icon)] for p in pages]] for title, pages in groups]
    digest = hashlib.blake2b(json.dumps(entries).encode(), digest_size=8).hexdigest()
    with st.sidebar:
        data = element_data.pack({"groups": entries, "here": here, "digest": digest})
        result = _component(key="lesson_nav", data=data, on_go_change=_noop, height="content")
    target = {p.url_path: p for _, pages in groups for p in pages}.get(result.go)
    if target is not None and target.url_path != here:
        st.switch_page(target, query_params={})  # a clean URL, as a page link leaves; bound widgets forbid none


@functools.cache
def pages() -> tuple[st.Page, dict[str, tuple[st.Page, ...]]]:
    """(home, {section title: its pages}): every st.Page built once per process, not on every page visit.

    A Page resolves its file and checks its icon when built: 49 of them were 6% of a class's server CPU under
    bench/load.py. The objects are shared by every session, so the page st.navigation picks is run as a copy
    (``runnable``)."""
    def page(info: registry.PageInfo, default: bool = False) -> st.Page:
        return st.Page(info.path, title=info.title, icon=info.icon, url_path=info.url_path, default=default)

    return page(registry.HOME, default=True), {s.title: tuple(page(p) for p in s.pages) for s in registry.SECTIONS}


def runnable(chosen: st.Page) -> st.Page:
    """The page st.navigation returned, as this run's own object. st.navigation marks the shared page callable
    and Page.run() unmarks it: two sessions on the same page at once would each find it unmarked by the other."""
    return copy.copy(chosen)

