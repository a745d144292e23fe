"""page_kit/runtime/streamlit_runtime.py gives what Streamlit's own code gives, for the Streamlit version it patches."""

from __future__ import annotations

from pathlib import Path

import streamlit
from streamlit import config
from streamlit.components.v2.presentation import make_bidi_component_presenter
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime import app_session
from streamlit.runtime.state.common import WidgetMetadata
from streamlit.runtime.state.session_state import SessionState

from page_kit.runtime import streamlit_runtime

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ["theme", "theme.light", "theme.dark", "theme.sidebar", "theme.light.sidebar", "theme.dark.sidebar"]


def test_it_patches_the_pinned_streamlit_only():
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    pinned = next(line.split("==")[1].strip() for line in requirements.splitlines() if line.startswith("streamlit=="))
    assert streamlit_runtime.STREAMLIT_VERSION == pinned == streamlit.__version__
    assert streamlit_runtime.apply()
    assert app_session._populate_theme_msg is streamlit_runtime.theme_msg


def _theme(fill, section: str) -> bytes:
    msg = ForwardMsg().new_session.custom_theme
    for _ in range(2):  # the second time from the copy made the first time
        fill(msg, section)
    return msg.SerializeToString(deterministic=True)


def test_each_theme_section_is_what_streamlit_builds(monkeypatch):
    monkeypatch.chdir(ROOT)
    config.get_config_options()  # the app's .streamlit/config.toml, which sets the light and dark themes
    monkeypatch.setattr(streamlit_runtime, "_theme_sections", {})
    for section in SECTIONS:
        assert _theme(streamlit_runtime.theme_msg, section) == _theme(streamlit_runtime._streamlit_theme_msg, section)
    empty = ForwardMsg().new_session.custom_theme.light.SerializeToString()
    assert _theme(streamlit_runtime.theme_msg, "theme.light") != empty


def test_a_new_config_is_read_again(monkeypatch):
    monkeypatch.chdir(ROOT)
    config.get_config_options()
    monkeypatch.setattr(streamlit_runtime, "_theme_sections", {})
    first = _theme(streamlit_runtime.theme_msg, "theme")
    options = dict(config._config_options)  # Streamlit replaces the mapping when it reads its config again
    option = options["theme.primaryColor"] = type(options["theme.primaryColor"])(
        "theme.primaryColor", description="", default_val="#123456")
    option.set_value("#123456")
    monkeypatch.setattr(config, "_config_options", options)
    again = _theme(streamlit_runtime.theme_msg, "theme")
    assert again != first and again == _theme(streamlit_runtime._streamlit_theme_msg, "theme")


def _state_with(aggregator: str, payloads) -> SessionState:
    state = SessionState()
    widgets = state._new_widget_state
    widgets.set_widget_metadata(WidgetMetadata(aggregator, lambda v: v, lambda v: v, "json_trigger_value"))
    if payloads is not None:
        widgets.set_from_value(aggregator, payloads)
    return state


def test_a_component_without_triggers_reads_its_stored_state():
    base = {"value": "12", "hand": {"n": 3}}
    for payloads in (None, []):
        state = _state_with("agg", payloads)
        assert streamlit_runtime.component_presenter("agg", "cid")(base, state) is base
        assert make_bidi_component_presenter("agg", "cid")(base, state) == base  # Streamlit's: an equal copy


def test_trigger_events_are_merged_as_streamlit_merges_them():
    base = {"value": "12"}
    for payloads in ([{"event": "click", "value": 4}], {"event": "hover", "value": [1, 2]},
                     [{"event": "click", "value": 4}, {"event": "value", "value": "no"}]):
        state = _state_with("agg", payloads)
        ours = streamlit_runtime.component_presenter("agg", "cid")(base, state)
        theirs = make_bidi_component_presenter("agg", "cid")(base, state)
        assert dict(ours) == dict(theirs) != base
        assert type(ours).__name__ == type(theirs).__name__ == "_WriteThrough"
