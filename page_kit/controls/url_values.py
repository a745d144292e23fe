"""The raw query string of a link, checked per widget before Streamlit parses it.

Streamlit seeds a URL-bound widget from the query string of the first request (its session's "initial"
query parameters) and parses it with the widget's own deserializer, which has crash paths of its own
(``int(float("1e309"))`` raises OverflowError, not the ValueError it catches). So ``fix`` rewrites that
initial value first, with a check that knows what the widget can hold, and corrects the address bar to
match. It reaches into ``QueryParams``' two dicts, the only place the initial value lives; Streamlit is
pinned in requirements.txt and the hostile-URL tests fail loudly if that layout changes.

A check takes the raw values (a list of strings: a parameter may repeat, ``?r=1&r=5`` for a range) and
returns the values to keep, or None to drop the parameter so the widget's default applies.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal

from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

Check = Callable[[list[str]], "list[str] | None"]


def fix(key: str, check: Check) -> None:
    """Replace the link's value for ``key`` by ``check(raw)`` (None: remove it) before the widget reads it."""
    ctx = get_script_run_ctx()
    if ctx is None:  # bare mode (a plain python run): there is no URL
        return
    with ctx.session_state.query_params() as qp:
        raw = qp._initial_query_params.get(key)
        if raw is None:
            return
        raw = list(raw)
        fixed = check(raw)
        if fixed == raw:
            return
        shown = qp._query_params.get(key)
        # Correct the address bar only while it still shows the link's value (not a value the student
        # has chosen since).
        still_shown = shown is not None and (list(shown) if isinstance(shown, list) else [shown]) == raw
        if fixed is None:
            del qp._initial_query_params[key]
            if still_shown:
                qp.remove_param(key)
            return
        qp._initial_query_params[key] = fixed
        if still_shown:
            qp._query_params[key] = fixed[0] if len(fixed) == 1 else fixed
            qp._send_query_param_msg()


def _filled(raw: Sequence[str]) -> list[str]:
    return [v for v in raw if v != ""]


def format_number(value: float, integer: bool) -> str:
    """How Streamlit writes a number into the URL: whole values without ".0"."""
    if integer or value == int(value):
        return str(int(value))
    return repr(value)


def _decimals(step) -> int:
    return max(0, -Decimal(repr(float(step))).normalize().as_tuple().exponent)


def nearest(value: float, low, high, step, integer: bool) -> float:
    """The valid value nearest to a finite ``value``: clamped to [low, high], then on low + k * step."""
    value = min(max(value, low), high)
    if step:
        k = round((value - low) / step)
        k = min(max(k, 0), math.floor((high - low) / step + 1e-9))
        value = low + k * step
        if not integer:
            value = round(value, _decimals(step) + _decimals(low))
    return int(round(value)) if integer else float(value)


def numbers(raw: list[str], low, high, step, *, integer: bool, count: int) -> list[str] | None:
    """A slider (count 1, or 2 for a range) or number input: finite numbers, in range, on the step."""
    values = _filled(raw)
    if count == 1:
        values = values[-1:]  # Streamlit reads the last of a repeated single value
    if len(values) != count:
        return None
    parsed = []
    for text in values:
        try:
            value = float(text)
        except ValueError:
            return None
        if not math.isfinite(value):  # inf, nan, or a number too long for a float (1e309, 400 digits)
            return None
        parsed.append(nearest(value, low, high, step, integer))
    return [format_number(v, integer) for v in sorted(parsed)]


def options(raw: list[str], labels: Sequence[str], *, exactly: int | None = None, at_most: int | None = None,
            ordered: bool = False) -> list[str] | None:
    """Option widgets: every value must be one of the (formatted) labels.

    ``exactly``: a selectbox, segmented control or select slider holds that many values (the last one for a
    single value; a range select slider two, put in the options' order when ``ordered``). Otherwise a
    multiselect: unknown labels and repeats are dropped, at most ``at_most`` kept; an empty value (``?m=``)
    is the empty selection.
    """
    values = _filled(raw)
    if exactly is not None:
        values = values[-1:] if exactly == 1 else values
        if len(values) != exactly or any(v not in labels for v in values):
            return None
        return sorted(values, key=labels.index) if ordered else values
    if not values:
        return [""]  # ?m= : the empty selection
    kept = list(dict.fromkeys(v for v in values if v in labels))[:at_most]
    return kept or None


def boolean(raw: list[str]) -> list[str] | None:
    """A toggle: "true" or "false" (any case, as Streamlit reads it)."""
    values = _filled(raw)
    if not values or values[-1].lower() not in ("true", "false"):
        return None
    return [values[-1].lower()]


def text(raw: list[str], max_chars: int | None) -> list[str]:
    """A text input: the last value, cut to the field's max_chars."""
    value = raw[-1] if raw else ""
    return [value[:max_chars] if max_chars else value]
