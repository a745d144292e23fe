"""Hostile links on every page and tab: every URL-bound widget at once, values it cannot hold.

Round 0 gives each widget a value no widget of its kind can hold (1e309, a 400-digit number, nan/inf, an
unknown option, "maybe" for a toggle); round 1 a nearly valid one (off the step, past an end, two values for
one, a repeated option). The page must run without an exception or error box, every slider on a valid step.
"""

import math

import pytest
from streamlit.testing.v1 import AppTest

from page_kit import registry
from tests.apptest_pages import drag_sliders
from tests.conftest import ROOT
from tests.test_pages import VIEWS, _assert_clean, _load
from tests.test_urls import HUGE, KINDS


def _bound_widgets(at: AppTest) -> dict[str, list]:
    """kind -> the page's own URL-bound widgets (the sidebar's settings are app.py's, tested once below)."""
    sidebar = {w.key for kind in KINDS for w in at.sidebar.get(kind)}
    return {kind: [w for w in at.get(kind) if w.key and w.key not in sidebar] for kind in KINDS}


# The fewest pages whose URL-bound widgets hold every kind the pages use: tests/test_browser_urls.py opens hostile
# links to them in a real browser (what the browser does with a link is the frontend's, the same on every page),
# while every widget of every page and tab gets its hostile link here. A page with a kind these leave out fails
# the test below until a page holding it is added.
BROWSER_PAGES = ("order", "token_position", "rope_relative", "latent_attention")
BROWSER_KINDS = frozenset({"multiselect", "segmented_control", "text_input", "toggle", "drag", "selectbox",
                           "number_input", "slider"})


def widget_kinds(at: AppTest) -> set[str]:
    """The kinds of the view's own URL-bound widgets ("drag": page_kit.controls.drag_slider's)."""
    return {kind for kind, ws in _bound_widgets(at).items() if ws} | ({"drag"} if drag_sliders(at) else set())


def _hostile(kind: str, widget, round_: int) -> list[str] | str:
    """Round 0: values no widget of the kind can hold. Round 1: nearly valid ones (off step, past an end)."""
    if kind in ("slider", "number_input"):
        if round_ == 0:
            return {"slider": ["1e309"], "number_input": [HUGE]}[kind] if isinstance(widget.value, (int, float)) \
                else ["nan", "inf"]
        lo, hi = widget.min, widget.max
        step = getattr(widget, "step", None) or 1
        return [repr(lo + step / 2 + step / 7)] if lo + step < hi else [repr(hi * 10 + 1)]
    if kind == "toggle":
        return "maybe" if round_ == 0 else "TRUE"
    if kind == "text_input":  # round 1: far past any max_chars, in words short enough for the sentence pages
        return "<script>alert(1)</script>" if round_ == 0 else "<b>x</b> " * 400
    if kind == "multiselect":
        return ["<img src=x>", "<img src=x>"] if round_ == 0 else [*widget.options[:1], "nope", *widget.options[:1]]
    return "<script>" if round_ == 0 else ["-inf", str(widget.value)]  # unknown option; two for one


def _drag_hostile(texts: list[str], round_: int) -> str:
    """Round 0: text no slider can hold. Round 1: between two stops, or past the last one."""
    if round_ == 0:
        return "1e309" if texts[0].lstrip("-").replace(".", "").isdigit() else "<script>"
    try:
        low, high = float(texts[0]), float(texts[-1])
    except ValueError:
        return texts[-1] + "x"  # an option that is nearly one of the listed ones
    step = (float(texts[1]) - low) if len(texts) > 1 else 1.0
    return repr(low + step / 2 + step / 7) if len(texts) > 2 else repr(high * 10 + 1)


def _check_values(at: AppTest, where: str) -> None:
    for key, texts in drag_sliders(at):  # what the page writes back to the address bar is a listed value
        written = at.query_params.get(key.removeprefix("drag_"))
        written = written[0] if isinstance(written, list) else written
        assert written is None or written in texts, f"{where}: the URL has {key} = {written!r}"
    for slider in at.slider:
        values = slider.value if isinstance(slider.value, tuple) else (slider.value,)
        for v in values:
            assert slider.min <= v <= slider.max, f"{where}: {slider.key} = {v} outside [{slider.min}, {slider.max}]"
            step = slider.step or 1
            k = (v - slider.min) / step
            assert math.isclose(k, round(k), abs_tol=1e-6), f"{where}: {slider.key} = {v} is off its step {step}"
    for number in at.number_input:
        assert number.value is None or math.isfinite(number.value), f"{where}: {number.key} = {number.value}"


@pytest.mark.parametrize("info, tab_key, tab", VIEWS, ids=[f"{i.url_path}-{t or 'page'}" for i, _, t in VIEWS])
def test_hostile_links_to_every_widget_only_change_the_view(info, tab_key, tab):
    at = _load(info)
    if tab_key is not None:
        at.session_state[tab_key] = tab
        at.run()
    widgets = _bound_widgets(at)
    assert widget_kinds(at) <= BROWSER_KINDS, (
        f"{info.path} has a widget kind no page of BROWSER_PAGES has ({widget_kinds(at) - BROWSER_KINDS}): add "
        "a page with it, so a real browser opens a hostile link to that kind too")
    for round_ in (0, 1):
        query = {w.key: _hostile(kind, w, round_) for kind, ws in widgets.items() for w in ws}
        query |= {key.removeprefix("drag_"): _drag_hostile(texts, round_) for key, texts in drag_sliders(at)}
        if tab_key is not None:
            query[tab_key] = tab
        link = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        link.query_params.update(query)
        if info is not registry.HOME:
            link.switch_page(info.path)  # the link opens the page itself
        link.run()
        where = f"{info.path} {tab!r} round {round_}"
        _assert_clean(link, where)
        _check_values(link, where)


def test_hostile_tab_and_sidebar_values():
    info = next(p for p in registry.all_pages() if p.url_path == "rope_variants")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"view": "<script>", "present": "1e309", "backend": HUGE})
    at.run()
    at.switch_page(info.path).run()
    _assert_clean(at, "hostile tab / sidebar values")
