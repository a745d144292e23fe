"""The sidebar's list of lessons, drawn by the app rather than by Streamlit's navigation widget.

Streamlit's sidebar navigation puts each section header inside the list of links (`<ul>` holding `<header>`
elements), so a screen reader announces one broken list of 39 links and axe reports `list` / `listitem` on
every page. app.py keeps `st.navigation` for routing (every URL path unchanged, `position="hidden"`) and
draws the links here: a section name as plain text, then that section's pages as page links (client-side
navigation, so the session and its settings survive a page change, as with Streamlit's own list).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import streamlit as st

from page_kit.i18n import _
from page_kit.navigation import registry

DONE_MARK = "✓"  # after a lesson's title once read: a character, so screen readers say it ("check mark")


@dataclass(frozen=True)
class Marks:
    """What the list shows of a learner's progress. done: url_paths of the lessons read; notes: section title ->
    a few words after it ("2 of 4 read"); checkpoints: section title -> (the section's key, its checkpoint done)."""

    done: frozenset[str] = frozenset()
    notes: Mapping[str, str] = field(default_factory=dict)
    checkpoints: Mapping[str, tuple[str, bool]] = field(default_factory=dict)
    here: str | None = None  # the section whose checkpoint is open, if one is


# Every section's checkpoint link goes to the same page, so Streamlit marks them all as the page shown: only the
# open section's keeps the mark (told apart by their addresses: no element of their own is needed for it).
_OTHER_CHECKPOINT_CSS = ('<style>.st-key-lesson_nav a[href*="checkpoint?section="]:not([href$="section={here}"]) '
                         '{{ background-color: transparent !important; }} '
                         '.st-key-lesson_nav a[href*="checkpoint?section="]:not([href$="section={here}"]) * '
                         '{{ font-weight: 400 !important; }}</style>')


def sidebar_links(groups: Sequence[tuple[str, Sequence[st.Page]]], marks: Marks = Marks()) -> None:
    """``groups`` is the navigation in order: [(section title, [page, ...]), ...]; an empty title has no label.
    Each section ends with its checkpoint when ``marks`` names one."""
    with st.sidebar, st.container(key="lesson_nav", gap=None):
        for title, pages in groups:
            if title:
                note = marks.notes.get(title)
                st.markdown(f"**{_(title)}**" + (f" :small[{note}]" if note else ""))
            for page in pages:
                done = f" {DONE_MARK}" if page.url_path in marks.done else ""
                st.page_link(page, label=_(page.title) + done, icon=page.icon)
            if title in marks.checkpoints:
                key, done = marks.checkpoints[title]
                st.page_link(checkpoint_page(), label=_("Checkpoint") + (f" {DONE_MARK}" if done else ""),
                             icon=registry.CHECKPOINT.icon, query_params={"section": key})
        if marks.here is not None:
            st.html(_OTHER_CHECKPOINT_CSS.format(here=marks.here))


TAB_KEY = "view"  # every lesson's tabs (page_kit.lesson.sections): one URL name, "view", on every page
_SHOWN_KEY = "_page_shown"  # session state: the url_path of the page the browser tab's last run showed


def shown_page() -> str | None:
    """The url_path of the page this run shows (``arrive``), None before app.py has said."""
    return st.session_state.get(_SHOWN_KEY)


def arrive(url_path: str) -> None:
    """A lesson opens on its first tab unless its address names one: the tab chosen on the page before (a
    "Score vs distance" both pages have) is forgotten when the page changes, by Next, a sidebar link or a
    class following its teacher without a tab."""
    before, st.session_state[_SHOWN_KEY] = st.session_state.get(_SHOWN_KEY), url_path
    if before is not None and before != url_path and TAB_KEY not in st.query_params:
        st.session_state.pop(TAB_KEY, None)


@functools.cache
def pages() -> tuple[st.Page, dict[str, tuple[st.Page, ...]]]:
    """(home, {section title: its pages}): every st.Page built once per process, not on every page visit.

    A Page resolves its file and checks its icon when built: 49 of them were 6% of a class's server CPU under
    bench/load.py. The objects are shared by every session, so the page st.navigation picks is run as a copy
    (``runnable``)."""
    def page(info: registry.PageInfo, default: bool = False) -> st.Page:
        return st.Page(info.path, title=info.title, icon=info.icon, url_path=info.url_path, default=default)

    return page(registry.HOME, default=True), {s.title: tuple(page(p) for p in s.pages) for s in registry.SECTIONS}


@functools.cache
def checkpoint_page() -> st.Page:
    """The checkpoint page (one for every section: ``?section=`` names which), built once per process."""
    info = registry.CHECKPOINT
    return st.Page(info.path, title=info.title, icon=info.icon, url_path=info.url_path)


def runnable(chosen: st.Page) -> st.Page:
    """The page st.navigation returned, as this run's own object. st.navigation marks the shared page callable
    and Page.run() unmarks it: two sessions on the same page at once would each find it unmarked by the other."""
    return copy.copy(chosen)

