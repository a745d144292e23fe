"""A slider whose figure follows the hand: it sends values while it is dragged, not only on release.

Streamlit's slider sends its value when the thumb is let go, so a class watching a teacher drag the base sees
the waves jump once. This slider (a custom component, `drag_slider.js`) sends the newest value while it
moves, one at a time: the next leaves when the rerun caused by the last has come back. Each update is a
normal rerun of the page's fragment, computed by the same core call and drawn in place by the chart element.

The slider moves over an index into a list of values (a numeric grid or a list of options), so the browser
never computes a value and a hostile state can only pick one of the listed values. Its value lives in the
URL under the same key a Streamlit slider would use, written as the same text, so links stay compatible.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from page_kit.controls import url_values as _url
from page_kit.runtime import element_data

MAX_STOPS = 4096  # positions a drag slider can take: the labels travel with it
STATE_PREFIX = "drag_"  # session state: the component's own state, under drag_<URL key> (state_key)
STOPS_KEY = "_drag_stops"  # session state: URL key -> where the slider stands, as last drawn (_remember)
HAND_KEY = "_drag_hand"  # session state: (URL key, direction, moves in a row) of the last slider moved
CHOSEN_PREFIX = "figctl_"  # session state: the value a figure chose for a drag slider (choose, figure_choice)

_component = st.components.v2.component(
    "posenc_drag_slider", js=element_data.JS + Path(__file__).with_name("drag_slider.js").read_text(encoding="utf-8"),
    # one rule per line: a one-line CSS string with "[" would be taken for a file pattern
    css="\n".join([
        ".ls{font-family:var(--st-font);color:var(--st-text-color);padding-bottom:.25rem}",
        ".ls-head{display:flex;align-items:baseline;gap:.4rem;font-size:.875rem;margin-bottom:.15rem}",
        ".ls-label{flex:0 1 auto;min-width:0}",
        ".ls-help[hidden]{display:none}",
        ".ls-help{display:inline-grid;place-items:center;width:1rem;height:1rem;padding:0;border-radius:50%;"
        "border:1px solid currentColor;background:none;color:inherit;font:inherit;font-size:.65rem;opacity:.85;"
        "cursor:help;flex:none}",
        ".ls-help[aria-expanded=true]{opacity:1;color:var(--st-primary-color)}",
        ".ls-tip[hidden]{display:none}",
        ".ls-tip{font-size:.8rem;line-height:1.35;opacity:.85;margin:.1rem 0 .15rem}",
        ".ls-value{margin-left:auto;font-weight:600;color:var(--st-primary-color);font-variant-numeric:tabular-nums}",
        # drawn here rather than by the browser, whose default track stays light on a dark page
        ".ls-range{-webkit-appearance:none;appearance:none;width:100%;height:1.4rem;margin:.3rem 0 .05rem;"
        "background:transparent;cursor:pointer;touch-action:none}",
        ".ls-range::-webkit-slider-runnable-track{height:.25rem;border-radius:.125rem;background:linear-gradient("
        "to right,var(--st-primary-color) var(--ls-fill,0%),var(--st-secondary-background-color) var(--ls-fill,0%))}",
        ".ls-range::-moz-range-track{height:.25rem;border-radius:.125rem;background:linear-gradient("
        "to right,var(--st-primary-color) var(--ls-fill,0%),var(--st-secondary-background-color) var(--ls-fill,0%))}",
        ".ls-range::-webkit-slider-thumb{-webkit-appearance:none;width:1rem;height:1rem;margin-top:-.375rem;"
        "border-radius:50%;border:none;background:var(--st-primary-color)}",
        ".ls-range::-moz-range-thumb{width:1rem;height:1rem;border-radius:50%;border:none;"
        "background:var(--st-primary-color)}",
        ".ls-range:focus-visible{outline:2px solid var(--st-primary-color);outline-offset:3px}",
        ".ls-ends{display:flex;justify-content:space-between;font-size:.75rem;opacity:.85;"
        "font-variant-numeric:tabular-nums}",
        # read by screen readers only (the value is on screen already)
        ".ls-status{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}"]),
    isolate_styles=False)


def drag_slider(label: str, key: str, values: Sequence, default, *, labels: Sequence[str], url_text: Sequence[str],
                check: _url.Check, help: str | None = None):
    """A slider over ``values`` (shown as ``labels``, written to the URL as ``url_text``); returns the value.

    ``check`` cleans the link's raw value as for the Streamlit widget it replaces. A remembered value the list
    no longer holds (its range follows another control) moves to the nearest one, as a Streamlit slider's does.
    """
    values = list(values)
    if not 1 <= len(values) <= MAX_STOPS:
        raise ValueError(f"A drag slider takes between 1 and {MAX_STOPS} positions, not {len(values)}.")
    default_index = _index_of(values, default)
    _url.fix(key, check)
    component_key = state_key(key)  # the component's own state; the URL keeps the plain key
    url_text = list(url_text)
    remembered = st.session_state.get(component_key)
    moved = remembered.get("value") if isinstance(remembered, dict) else None  # the thumb's last value
    text = figure_choice(key, moved) or moved
    if text is None:  # first run of this slider in this browser tab: the link's value, or the default
        text = st.query_params.get(key)
    index = _index_for(text, values, url_text, default_index)
    data = {"key": key, "label": label, "help": help or "", "labels": list(labels), "url": url_text, "index": index}
    _component(key=component_key, data=element_data.pack(data),
               default={"value": url_text[index]}, on_value_change=_noop, height="content")
    _write_url(key, url_text[index] if index != default_index else None)
    _remember(key, values, url_text, index, text)
    return values[index]


@dataclass(frozen=True)
class Standing:
    """Where a drag slider stood when it was last drawn (kept per session, so not its whole list of stops)."""

    text: str  # the URL text of its value
    value: object
    index: int
    beside: tuple[tuple[object, str, int], ...]  # (value, URL text, -1 or +1) of the stops either side
    asked: object  # what the thumb, a figure or the link asked for
    displaced: bool  # it stands elsewhere than asked: its range moved under it (see _remember)
    run: tuple  # the script run that drew it (_this_run)


def state_key(key: str) -> str:
    """The session-state key of the drag slider with this URL key: its component's own state ({"value": text})."""
    return f"{STATE_PREFIX}{key}"


def _remember(key: str, values: list, url_text: list[str], index: int, asked) -> None:
    """Keep where this slider stands, and which slider the hand is on and which way it moved: a hero figure
    (page_kit.chart.hero_frames) builds its frames for the stops beside it.

    ``asked`` is the value the thumb (or a figure, or the link) asked for. The hand is on the slider whose thumb
    moved, not on one a moving range pulled along; a slider that stands elsewhere than its thumb asked (its
    range moved under it) is "displaced": when the range moves back, so does the slider, which a frame built
    with every other slider where it stands would not show."""
    stops = st.session_state.setdefault(STOPS_KEY, {})
    last = stops.get(key)
    # a thumb that moved changes both; a range that moved changes only where the slider stands, and a slider's
    # first state message (its default, where the first run had none) only what was asked
    if last is not None and last.asked != asked and last.text != url_text[index]:
        before = st.session_state.get(HAND_KEY)
        moves = before[2] + 1 if isinstance(before, tuple) and before[0] == key else 1
        st.session_state[HAND_KEY] = (key, (index > last.index) - (index < last.index), moves)
    beside = tuple((values[i], url_text[i], i - index) for i in (index - 1, index + 1) if 0 <= i < len(values))
    stops[key] = Standing(url_text[index], values[index], index, beside, asked,
                          asked is not None and asked != url_text[index], _this_run())


def _this_run() -> tuple:
    """Tells this script run from the others (the context gets a new cursor table per run): a slider of the
    same key on another page, or drawn in an earlier run only, is not one the hand can press now."""
    ctx = get_script_run_ctx()
    return (None, None) if ctx is None else (ctx.page_script_hash, id(ctx.cursors))


def standing(key: str) -> Standing | None:
    """Where the drag slider with this URL key stands, if it was drawn in this run, else None."""
    last = st.session_state.get(STOPS_KEY, {}).get(key)
    return last if last is not None and last.run == _this_run() else None


def beside(key: str, value) -> tuple[tuple[object, str, int], ...]:
    """The (value, URL text, -1 or +1) of the stops either side of ``value`` on the drag slider with this URL key;
    empty when that slider was not drawn in this run or stands elsewhere."""
    last = standing(key)
    return last.beside if last is not None and _same(last.value, value) else ()


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # an array's truth value
        return False


def hand() -> tuple[str, int, int] | None:
    """(URL key, -1 or +1, moves) of the drag slider that moved last in this browser tab, the way it moved and how
    many moves in a row it has made, if it was drawn in this run, else None."""
    moved = st.session_state.get(HAND_KEY)
    return moved if isinstance(moved, tuple) and standing(moved[0]) is not None else None


def choose(key: str, text: str) -> None:
    """Move the drag slider with this URL key to the value written ``text`` (one of its URL texts, as
    slider_specs.snapped gives it), as a click or drag on a figure chose it; the next run draws it there.

    The component's own state only changes when its thumb moves, and the browser sends it back with every
    rerun, so it cannot be overwritten from Python. The figure's choice is kept beside it with the thumb's
    value at that moment; it holds until the thumb moves again, and then the thumb takes over."""
    component = st.session_state.get(state_key(key))
    st.session_state[f"{CHOSEN_PREFIX}{key}"] = {
        "text": text, "over": component.get("value") if isinstance(component, Mapping) else None}


def figure_choice(key: str, moved: str | None) -> str | None:
    """The value a figure chose for this slider (``choose``), while it holds: until the thumb moves again."""
    chosen = st.session_state.get(f"{CHOSEN_PREFIX}{key}")
    if not isinstance(chosen, dict):
        return None
    if chosen.get("over") != moved:
        del st.session_state[f"{CHOSEN_PREFIX}{key}"]
        return None
    return chosen.get("text")


def _noop() -> None:
    """The component needs a callback per state name; a move needs nothing but the rerun."""


def _nearest(values: list, number: float) -> int:
    return min(range(len(values)), key=lambda i: abs(float(values[i]) - number))


def _index_of(values: list, value) -> int:
    return values.index(value) if value in values else _nearest(values, float(value))


def _index_for(text, values: list, url_text: list[str], fallback: int) -> int:
    """The position of a value sent as text: exact, else the nearest number (the range moved), else fallback.

    The text comes from the browser (or a link), so anything that is not one of the listed values or a
    finite number falls back to the default."""
    if not isinstance(text, str):
        return fallback
    if text in url_text:
        return url_text.index(text)
    try:
        number = float(text)
        return _nearest(values, number) if math.isfinite(number) else fallback
    except ValueError:  # not a number, or a list of options that are not numbers
        return fallback


def _write_url(key: str, text: str | None) -> None:
    """The address bar holds the value, or nothing at the default (shorter links), as a bound widget's does."""
    if st.query_params.get(key) == text:
        return
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as qp:
        # QueryParams' own methods, past st.query_params' refusal of a key bound to a widget: a Streamlit widget of
        # the same key on the page shown before (Extension's selectbox m, RoPE's slider m) keeps its binding until
        # the end of this page's first run
        if text is None:
            qp.remove_param(key)
        else:
            qp._set_item_internal(key, text)
            qp._send_query_param_msg()


def stop_count(low, high, step) -> int:
    """How many values a numeric slider from ``low`` to ``high`` by ``step`` can take."""
    return int((high - low) / step + 1e-9) + 1


@functools.lru_cache(maxsize=512, typed=True)
def numeric_stops(low, high, step, *, integer: bool, format: str | None) -> tuple[tuple, tuple, tuple]:
    """The values a numeric slider can take, their labels and their URL texts (as Streamlit writes them).

    Kept per range (every move redrew every slider's few hundred labels: 1% of a class's server CPU)."""
    count = stop_count(low, high, step)
    if count > MAX_STOPS:
        raise ValueError(f"A drag slider takes at most {MAX_STOPS} positions; this range has {count}.")
    values = [_url.nearest(low + k * step, low, high, step, integer) for k in range(count)]
    if format:
        labels = [format % v for v in values]
    else:
        labels = [f"{v:,}" if integer else f"{v:g}" for v in values]
    return tuple(values), tuple(labels), tuple(_url.format_number(v, integer) for v in values)
