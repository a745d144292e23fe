"""Widgets whose values live in the URL, so a link reproduces the exact view.

Every wrapper requires a short, stable key: it is the session-state name and the query parameter.
A link is untrusted input, so each wrapper first checks the raw URL text against what its widget can hold,
before Streamlit parses it (Streamlit's own parsing turns ``?seed=1e309`` into an OverflowError): a number
that is not finite is dropped (the widget's default applies), one outside the range lands on the nearest
end, one off a slider's step on the nearest step, an unknown option is dropped, a malformed range is
dropped or put in order. So a hostile link can only change the view, never break it.
"""

from __future__ import annotations

import streamlit as st

from page_kit.controls import drag_slider, slider_specs
from page_kit.controls import url_values as _url
from page_kit.i18n import DEFAULT, LANGUAGES, speaking

_SLIDER_FLOAT_STEP = 0.01  # Streamlit's default step for a float slider


def _forget_foreign(key, holds) -> None:
    """Drop a remembered value this widget cannot hold.

    Session state outlives a page: two lessons may use the same short key for different widgets (σ, a number,
    on Fourier; a sentence on Token + position), and Streamlit would hand the first page's value to the second
    page's widget and raise. ``holds(value)`` says whether this widget can take the value.
    """
    if key in st.session_state and not holds(st.session_state[key]):
        del st.session_state[key]


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _clamped_state(key, low, high, step=None, integer=False) -> bool:
    """Move a slider's remembered value onto its current range and step; True if it had to move.

    Many ranges follow other controls (a position slider ends at the sequence length, T5's max_distance
    starts past the exact buckets), and two lessons may share a key with different steps (d moves by 2 on
    one page, by 16 on another). Streamlit keeps a keyed widget's value when its range changes and then
    refuses a value outside it, or passes on a value off the step, so a student would get an exception or
    an error box instead of the nearest valid view.
    """
    value = st.session_state.get(key)
    if isinstance(value, (tuple, list)):  # a range slider
        value = tuple(value)
        moved = tuple(_url.nearest(v, low, high, step, integer) for v in value)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        moved = _url.nearest(value, low, high, step, integer)
    else:  # not set yet: the widget's default applies
        return False
    if moved != value:
        st.session_state[key] = moved
    return moved != value


def slider(label, key, min_value, max_value, value, step=None, *, help=None, format=None, drag=True):
    """A number slider. A drag slider (the default) sends values while it is dragged, so the figure follows the
    hand; a range (two thumbs), a slider with more than drag_slider.MAX_STOPS positions, or ``drag=False`` is
    Streamlit's own slider, which sends on release."""
    integer = all(isinstance(v, int) for v in (min_value, max_value, *_as_tuple(value)))
    if step is None:
        step = 1 if integer else _SLIDER_FLOAT_STEP
    count = 2 if isinstance(value, (tuple, list)) else 1
    check = (lambda raw: _url.numbers(raw, min_value, max_value, step, integer=integer, count=count))
    drag = drag and count == 1 and drag_slider.stop_count(min_value, max_value, step) <= drag_slider.MAX_STOPS
    if count == 1:  # what a click or drag on a figure may set it to, snapped as a link's value is
        slider_specs.remember(key, {"kind": "number", "low": min_value, "high": max_value, "step": step,
                                      "integer": integer, "drag": drag})
    if drag:
        values, labels, url_text = drag_slider.numeric_stops(min_value, max_value, step, integer=integer,
                                                             format=format)
        return drag_slider.drag_slider(label, key, values, value, labels=labels, url_text=url_text, check=check,
                                       help=help)
    _url.fix(key, check)
    _forget_foreign(key, lambda v: all(_is_number(x) for x in _as_tuple(v)) and len(_as_tuple(v)) == count)
    if _clamped_state(key, min_value, max_value, step, integer):
        value = None  # the state holds the value; passing a default too would make Streamlit warn
    return st.slider(label, min_value=min_value, max_value=max_value, value=value, step=step, key=key,
                     help=help, format=format, bind="query-params")


def _in_every_language(options, format_func, written: list[str]) -> dict[str, str]:
    """Each option's label as every language writes it -> how the address writes it here (``written``): a link
    shared by a reader of another language names the same option."""
    named = {}
    for language in LANGUAGES:
        with speaking(language):
            named.update({str(format_func(o)): text for o, text in zip(options, written, strict=True)})
    return named


def _any_language(check, options, format_func, written: list[str]):
    """``check`` on a link's raw values, each first renamed to how the address writes it here."""
    def checked(raw: list[str]) -> list[str] | None:
        named = _in_every_language(options, format_func, written)
        return check([named.get(value, value) for value in raw])
    return checked


def _source_language(options, format_func) -> list[str]:
    """The options as the source writes them: what a drag slider keeps in the address in every language."""
    with speaking(DEFAULT):
        return [str(format_func(o)) for o in options]


def select_slider(label, key, options, value, *, help=None, format_func=str, drag=True):
    """A slider over a list of options; a drag slider (the default, for one value) sends values while it is
    dragged."""
    labels = [str(format_func(o)) for o in options]
    count = 2 if isinstance(value, (tuple, list)) else 1
    drag = drag and count == 1 and len(options) <= drag_slider.MAX_STOPS
    # a drag slider's address keeps the source's words, the same in every language (its thumb shows the reader's);
    # Streamlit's writes the label shown
    written = _source_language(options, format_func) if drag else labels
    check = _any_language(lambda raw: _url.options(raw, written, exactly=count, ordered=True), options, format_func,
                          written)
    if count == 1:
        slider_specs.remember(key, {"kind": "options", "options": list(options), "labels": written, "drag": drag})
    if drag:
        return drag_slider.drag_slider(label, key, options, value, labels=labels, url_text=written, check=check,
                                       help=help)
    _url.fix(key, check)
    _forget_foreign(key, lambda v: len(_as_tuple(v)) == count and all(x in options for x in _as_tuple(v)))
    return st.select_slider(label, options=options, value=value, key=key, help=help, format_func=format_func,
                            bind="query-params")


def choice(label, key, options, default, *, help=None, format_func=str):
    """A short list of options as a segmented control (never empty: falls back to the default)."""
    labels = [str(format_func(o)) for o in options]
    _url.fix(key, _any_language(lambda raw: _url.options(raw, labels, exactly=1), options, format_func, labels))
    _forget_foreign(key, lambda v: v is None or v in options)
    picked = st.segmented_control(label, options, default=default, key=key, help=help, format_func=format_func,
                                  bind="query-params")
    return default if picked is None else picked


def select(label, key, options, index=0, *, help=None, format_func=str):
    labels = [str(format_func(o)) for o in options]
    _url.fix(key, _any_language(lambda raw: _url.options(raw, labels, exactly=1), options, format_func, labels))
    _forget_foreign(key, lambda v: v in options)
    return st.selectbox(label, options, index=index, key=key, help=help, format_func=format_func,
                        bind="query-params")


def toggle(label, key, value=False, *, help=None):
    _url.fix(key, _url.boolean)
    _forget_foreign(key, lambda v: isinstance(v, bool))
    return st.toggle(label, value=value, key=key, help=help, bind="query-params")


def multiselect(label, key, options, default, *, help=None, max_selections=None, format_func=str):
    labels = [str(format_func(o)) for o in options]
    _url.fix(key, _any_language(lambda raw: _url.options(raw, labels, at_most=max_selections), options,
                                format_func, labels))
    _forget_foreign(key, lambda v: isinstance(v, (list, tuple)) and all(x in options for x in v))
    return st.multiselect(label, options, default=default, key=key, help=help, max_selections=max_selections,
                          format_func=format_func, bind="query-params")


def number(label, key, min_value, max_value, value, step=None, *, help=None, format=None):
    integer = all(isinstance(v, int) for v in (min_value, max_value, value))
    # A number input accepts any value in range (its step only drives the +/- buttons), but an integer
    # input holds whole numbers only.
    _url.fix(key, lambda raw: _url.numbers(raw, min_value, max_value, 1 if integer else None, integer=integer,
                                           count=1))
    _forget_foreign(key, _is_number)
    return st.number_input(label, min_value=min_value, max_value=max_value, value=value, step=step, key=key,
                           help=help, format=format, bind="query-params")


def text(label, key, value, *, help=None, max_chars=None):
    """A short free-text field (a sentence, a tensor name); the URL carries the text."""
    _url.fix(key, lambda raw: _url.text(raw, max_chars))
    _forget_foreign(key, lambda v: isinstance(v, str))
    return st.text_input(label, value=value, key=key, help=help, max_chars=max_chars, bind="query-params")


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)



# ---------------------------------------------------------------------------------------------------------
# Controls many lessons share, so each looks and links the same everywhere (same label style, same URL key).

ROPE_BASES = (100, 1000, 10000, 500000, 1000000)  # toy bases, the paper's 10,000, Llama 3's and Qwen2's
HEAD_DIMS = (8, 16, 32, 64, 128, 256)


def base_slider(options=ROPE_BASES, value=10000, *, label="Base (rope_theta)", help=None):
    """The base of the frequencies theta_i = base^(-2i/d), URL key ``base``, shown with thousands separators."""
    return select_slider(label, "base", list(options), value, help=help, format_func=lambda b: f"{b:,}")


def head_dim_slider(options=HEAD_DIMS, value=64, *, label="Head dimension d", help="d/2 rotating pairs per head."):
    """The size d of one attention head (d/2 rotating pairs), URL key ``d``."""
    return select_slider(label, "d", list(options), value, help=help)


def grid_size(max_side, value, *, labels=("Grid rows", "Grid columns"), keys=("gh", "gw"), help=None):
    """Rows and columns of a patch grid, 2 to ``max_side`` each; ``value`` is the (rows, columns) default."""
    rows = slider(labels[0], keys[0], 2, max_side, value[0], help=help)
    return rows, slider(labels[1], keys[1], 2, max_side, value[1])


def grid_cell(rows, columns, value, *, labels=("Patch row", "Patch column"), keys=("r", "c"), help=None):
    """One cell of a rows x columns grid (the query patch); ``value`` is the default cell, kept inside the grid."""
    row = slider(labels[0], keys[0], 0, rows - 1, min(value[0], rows - 1), help=help)
    return row, slider(labels[1], keys[1], 0, columns - 1, min(value[1], columns - 1))


# ---------------------------------------------------------------------------------------------------------
# Classic sections (why position, absolute, RoPE, attention biases): their value lists, defined once here.

DECADE_BASES = (10, 100, 1000, 10000, 100000, 1000000)  # the sinusoidal table's bases, one per decade
CHECKPOINT_HEAD_DIMS = (8, 16, 32, 64, 96, 128, 256)  # HEAD_DIMS and GPT-NeoX-20B's 96
