"""Two costs Streamlit pays on every run of every session, made once-per-process where the result cannot differ.

A profile of the server under a class (py-spy ``--gil``, 90 students, ``bench/load.py``) put about 9% of its
CPU in two places that redo the same work on every script run, fragment runs included:

- **The theme in the run's opening message.** Every run starts with a ``new_session`` message, and Streamlit
  fills its six theme sections by reading each option of each section from the config again (0.33 ms a run
  on a quiet machine, more under load). The config is read once at start-up and never reloaded (no file
  watcher), so each section's message is built once per config and copied into later messages.
- **The presented value of a custom component.** Reading a v2 component's state (``st.session_state``, and
  Streamlit's own walks over the whole state: every keyed radio, selectbox and text box copies it, and so does
  the start of each run) merges the component's trigger events into it. To do that, Streamlit defines a new
  dict class on every read, which costs more than everything else in the read. This app's components (the drag
  slider, the chart element) send state, never triggers, so there is nothing to merge: the stored value is
  returned as it is, and Streamlit's presenter still runs whenever a trigger is there to merge.

Both are checked against Streamlit's own results in ``tests/test_streamlit_runtime.py``, and both are applied
only to the Streamlit version they were written against; another version runs unpatched.
"""

from __future__ import annotations

import streamlit
from streamlit import config
from streamlit.components.v2.bidi_component import main as bidi_main
from streamlit.runtime import app_session

STREAMLIT_VERSION = "1.67.0"  # the version these were read from (requirements.txt pins it)

_streamlit_theme_msg = app_session._populate_theme_msg
_streamlit_presenter = bidi_main.make_bidi_component_presenter
_theme_sections: dict[str, tuple[object, object]] = {}  # section -> (the config it was read from, its message)


def theme_msg(msg, section: str = "theme") -> None:
    """Fill ``msg`` as Streamlit's ``_populate_theme_msg`` does, from a copy made once per section and config."""
    options = config._config_options  # replaced, not edited, when Streamlit re-reads its config
    known = _theme_sections.get(section)
    if known is None or known[0] is not options:
        built = type(msg)()
        _streamlit_theme_msg(built, section)
        known = _theme_sections[section] = (options, built)
    msg.MergeFrom(known[1])


def component_presenter(aggregator_id: str, component_id: str | None = None,
                        allowed_state_keys: set[str] | None = None):
    """Streamlit's presenter for a v2 component's state, which returns the stored state as it is when the
    component has no trigger events to merge into it."""
    merge = _streamlit_presenter(aggregator_id, component_id, allowed_state_keys)

    def present(base_value: object, session_state) -> object:
        widgets = session_state._new_widget_state
        if aggregator_id in widgets.states:
            try:
                payloads = widgets[aggregator_id]
            except KeyError:
                payloads = None
            if payloads:
                return merge(base_value, session_state)
        return base_value

    return present


def apply() -> bool:
    """Patch the running Streamlit if it is the version read; returns whether it did. Safe to call again."""
    if streamlit.__version__ != STREAMLIT_VERSION:
        return False
    app_session._populate_theme_msg = theme_msg
    bidi_main.make_bidi_component_presenter = component_presenter
    return True
