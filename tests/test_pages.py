"""AppTest over every page in the navigation: defaults, then each kind of widget changed once."""

import pytest
from streamlit.testing.v1 import AppTest

from page_kit import registry
from tests.apptest_pages import assert_clean as _assert_clean
from tests.apptest_pages import drag_sliders, move_drag_slider, source_tabs
from tests.apptest_pages import load as _load
from tests.apptest_pages import tab_groups as _tab_groups

PAGES = registry.all_pages()


def _other_value(widget):
    """A valid value different from the current one, for the widget kinds pages use."""
    kind = type(widget).__name__
    if kind == "Slider":
        lo, hi = widget.min, widget.max
        if isinstance(widget.value, tuple):
            return None
        return hi if widget.value != hi else lo
    if kind == "SelectSlider":
        # options are the formatted labels; turn one back into a value of the widget's own type
        for label in widget.options:
            try:
                candidate = type(widget.value)(label.replace(",", ""))
            except (TypeError, ValueError):
                return None
            if candidate != widget.value:
                return candidate
        return None
    if kind in ("Selectbox", "Radio", "SegmentedControl"):
        others = [o for o in widget.options if o != str(widget.value)]
        return others[0] if others else None
    if kind in ("Toggle", "Checkbox"):
        return not widget.value
    if kind == "NumberInput":
        return widget.max if widget.max is not None and widget.value != widget.max else widget.min
    return None


@pytest.mark.parametrize("info", PAGES, ids=lambda p: p.url_path)
def test_page_runs_at_defaults(info):
    at = _load(info)
    assert at.title, f"{info.path} has no title"
    assert _tab_groups(at) == source_tabs(info), f"{info.path}: the tabs it draws are not the ones its source lists"


def _views(info):
    """Every (tab key, label) of a page, so each lazy section is run by the tests (read from the page's source:
    test_page_runs_at_defaults checks it is what the page draws)."""
    views = [(key, label) for key, labels in source_tabs(info).items() for label in labels]
    return views or [(None, None)]


VIEWS = [(info, key, label) for info in PAGES for key, label in _views(info)]


def _open_view(info, tab_key, tab) -> AppTest:
    at = _load(info)
    if tab_key is not None:
        at.session_state[tab_key] = tab
        at.run()
        _assert_clean(at, f"{info.path} tab {tab!r}")
    return at


@pytest.mark.parametrize("info, tab_key, tab", VIEWS,
                         ids=[f"{i.url_path}-{t or 'page'}" for i, _, t in VIEWS])
def test_every_widget_changes_and_every_slider_reaches_both_ends(info, tab_key, tab):
    """One view, opened once: each widget changed once, then every slider pushed to its end, to the other end,
    and back (both directions of every range that follows another control)."""
    at = _open_view(info, tab_key, tab)
    _change_each_widget(at, info)
    _push_sliders_to_their_ends(at, info, tab)


def _change_each_widget(at: AppTest, info) -> None:
    main_keys = {w.key for kind in ("radio", "toggle", "selectbox") for w in at.sidebar.get(kind)}  # global settings
    kinds = ("slider", "select_slider", "selectbox", "radio", "segmented_control", "toggle", "checkbox",
             "number_input")
    changed = 0
    for kind in kinds:
        for index in range(len(at.get(kind))):
            widget = at.get(kind)[index]
            if widget.key in main_keys or widget.disabled:
                continue
            value = _other_value(widget)
            if value is None:
                continue
            widget.set_value(value) if hasattr(widget, "set_value") else widget.select(value)
            at.run()
            _assert_clean(at, f"{info.path} after {kind} {widget.key!r} -> {value!r}")
            changed += 1
    for state_key, texts in drag_sliders(at):
        now = at.session_state[state_key]["value"]
        target = texts[-1] if now != texts[-1] else texts[0]
        move_drag_slider(at, state_key, target)
        _assert_clean(at, f"{info.path} after drag slider {state_key!r} -> {target!r}")
        changed += 1
    if info is not registry.HOME:
        assert changed, f"{info.path} has no widget the test could change"


def test_torch_backend_and_presentation_mode_on_every_page():
    pytest.importorskip("torch")
    for info in PAGES:
        at = _load(info)
        at.radio(key="backend").set_value("torch").run()
        at.toggle(key="present").set_value(True).run()
        _assert_clean(at, f"{info.path} with torch + presentation")


def _sliders(at: AppTest):
    return [s for s in at.slider if not s.disabled and not isinstance(s.value, tuple)]


def _drag_now(at: AppTest, state_key: str) -> str | None:
    remembered = at.session_state[state_key] if state_key in at.session_state else None
    return remembered.get("value") if isinstance(remembered, dict) else None


def _push_sliders_to_their_ends(at: AppTest, info, tab) -> None:
    """Push every slider to one end, then each to the other, and back: a range that depends on another control
    (a position slider ending at the sequence length, T5's max_distance starting past the exact buckets)
    must move the remembered value inside it, not raise. Drag sliders are pushed as a browser moves them
    (tests/apptest_pages.move_drag_slider), Streamlit's own (ranges, very long ones) with set_value."""
    for end in ("max", "min", "max"):
        for index in range(len(drag_sliders(at))):
            sliders = drag_sliders(at)
            if index >= len(sliders):
                break
            state_key, texts = sliders[index]
            target = texts[-1] if end == "max" else texts[0]
            if _drag_now(at, state_key) == target:
                continue
            move_drag_slider(at, state_key, target)
            _assert_clean(at, f"{info.path} {tab!r}: {state_key!r} -> {end} {target!r}")
            for key, now_texts in drag_sliders(at):  # the address bar holds a value the slider can take
                written = at.query_params.get(key.removeprefix("drag_"))
                written = written[0] if isinstance(written, list) else written
                assert written is None or written in now_texts, f"{info.path}: the URL has {key} = {written!r}"
        for index in range(len(_sliders(at))):
            sliders = _sliders(at)
            if index >= len(sliders):
                break
            slider = sliders[index]
            target = slider.max if end == "max" else slider.min
            if slider.value == target:
                continue
            slider.set_value(target).run()
            _assert_clean(at, f"{info.path} {tab!r}: {slider.key!r} -> {end} {target!r}")
            for s in _sliders(at):
                assert s.min <= s.value <= s.max, f"{info.path}: {s.key!r} = {s.value} outside [{s.min}, {s.max}]"
