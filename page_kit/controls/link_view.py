"""Set a page's live controls to a view given as a link would give it, without a page load.

A view is a mapping of URL key -> value written as the address bar writes it (``{"base": "10,000", "view":
"Wavelengths"}``: a slider's number, an option's label, a toggle's "true", a tab's label). ``apply`` makes the
controls drawn after it in this run hold those values, and the address bar show them, as a shared link with
those values would. One function for every kind of control the kit draws:

- a URL-bound Streamlit widget (slider, select slider, segmented choice, selectbox, toggle, tabs) drawn in the
  last run: its link text is parsed by Streamlit's own reader for its kind (the one that seeds it from
  a link) and set as a programmatic value, so the browser adopts it and Streamlit writes it to the address bar;
- a drag slider drawn in the last run: moved as a figure moves it (``drag_slider.choose``);
- a control not drawn in the last run (in a tab that was closed, or never drawn): it is seeded from the link's
  value when it is first drawn, as on a link's first run (the value is put where the link's values live:
  ``url_values.fix`` reads it from there too).

Call it before the controls are drawn in the run (a widget drawn already raises on a programmatic value).
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.state.query_params import parse_url_param

from page_kit.controls import drag_slider


def apply(view: Mapping[str, str]) -> None:
    """Set the controls of ``view`` (URL key -> URL text) as a link with those values would, and show them in the
    address bar. Keys not in ``view`` keep their values."""
    ctx = get_script_run_ctx()
    if ctx is None or not view:  # bare mode: no session, no URL
        return
    for key, text in view.items():
        value = _widget_value(ctx, key, text)
        if value is not _NONE:
            st.session_state[key] = value
        elif drag_slider.state_key(key) in st.session_state:
            drag_slider.choose(key, text)
    with ctx.session_state.query_params() as qp:
        for key, text in view.items():
            qp._initial_query_params[key] = [text]  # a control drawn for the first time seeds from it
            qp._query_params[key] = text  # the address bar (a bound key refuses st.query_params[key] = text)
        qp._send_query_param_msg()


_NONE = object()


def _widget_value(ctx, key: str, text: str):
    """The value the Streamlit widget with user key ``key`` takes from the link text ``text``, read with the
    widget's own URL reader; ``_NONE`` where no such widget was drawn in the last run (or the text is not one of
    its values: the widget keeps its own)."""
    state = ctx.session_state._state  # SafeSessionState -> SessionState
    # bound in the last run: a widget of this page (another page's widget of the same key, a selectbox m where
    # this page has a drag slider m, lost its binding when it was last left out)
    binding = state.query_params.get_binding_for_param(key)
    metadata = state._get_widget_metadata(binding.widget_id) if binding is not None else None
    if metadata is None:
        return _NONE
    try:
        return metadata.deserializer(parse_url_param(text, metadata.value_type))
    except (ValueError, TypeError, IndexError):
        return _NONE
