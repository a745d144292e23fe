"""Widgets whose values live in the URL, so a link reproduces the exact view.

Every wrapper requires a short, stable key: it is the session-state name and the query parameter.
Streamlit drops URL values that are not valid for the widget (wrong type, out of range, unknown
option), so a hostile link can only change the view, never break it.
"""

from __future__ import annotations

import streamlit as st


def _clamped_state(key, low, high) -> bool:
    """Move a slider's remembered value inside its current range; True if it had to move.

    Many ranges follow other controls (a position slider ends at the sequence length, T5's max_distance
    starts past the exact buckets). Streamlit keeps a keyed widget's value when its range changes and then
    refuses a value outside it, so a student who shrinks the sequence would get an exception instead of
    the nearest valid view.
    """
    value = st.session_state.get(key)
    if isinstance(value, (tuple, list)):  # a range slider
        value = tuple(value)
        moved = tuple(min(max(v, low), high) for v in value)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        moved = min(max(value, low), high)
    else:  # not set yet: the widget's default applies
        return False
    if moved != value:
        st.session_state[key] = moved
    return moved != value


def slider(label, key, min_value, max_value, value, step=None, *, help=None, format=None):
    if _clamped_state(key, min_value, max_value):
        value = None  # the state holds the value; passing a default too would make Streamlit warn
    return st.slider(label, min_value=min_value, max_value=max_value, value=value, step=step, key=key,
                     help=help, format=format, bind="query-params")


def select_slider(label, key, options, value, *, help=None, format_func=str):
    return st.select_slider(label, options=options, value=value, key=key, help=help, format_func=format_func,
                            bind="query-params")


def choice(label, key, options, default, *, help=None, format_func=str):
    """A short list of options as a segmented control (never empty: falls back to the default)."""
    picked = st.segmented_control(label, options, default=default, key=key, help=help, format_func=format_func,
                                  bind="query-params")
    return default if picked is None else picked


def select(label, key, options, index=0, *, help=None, format_func=str):
    return st.selectbox(label, options, index=index, key=key, help=help, format_func=format_func,
                        bind="query-params")


def toggle(label, key, value=False, *, help=None):
    return st.toggle(label, value=value, key=key, help=help, bind="query-params")


def multiselect(label, key, options, default, *, help=None, max_selections=None, format_func=str):
    return st.multiselect(label, options, default=default, key=key, help=help, max_selections=max_selections,
                          format_func=format_func, bind="query-params")


def number(label, key, min_value, max_value, value, step=None, *, help=None, format=None):
    return st.number_input(label, min_value=min_value, max_value=max_value, value=value, step=step, key=key,
                           help=help, format=format, bind="query-params")


def text(label, key, value, *, help=None, max_chars=None):
    """A short free-text field (a sentence, a tensor name); the URL carries the text."""
    return st.text_input(label, value=value, key=key, help=help, max_chars=max_chars, bind="query-params")
