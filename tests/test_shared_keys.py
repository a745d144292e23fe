"""Session state outlives a page: a key two lessons use for different widgets must not break the second page.

Widget keys are short URL names (``s``, ``d``, ``n``) and lessons reuse them. A student who moves Fourier's σ
(key ``s``, a number) and then opens Token + position (key ``s``, a sentence) must get that page's default,
not an exception.
"""

from collections import defaultdict

import pytest
from streamlit.testing.v1 import AppTest

from page_kit import registry
from tests.apptest_pages import drag_sliders, move_drag_slider
from tests.conftest import ROOT
from tests.test_pages import _other_value

PAGES = [p for p in registry.all_pages() if p is not registry.HOME]


def _open(at: AppTest, info) -> None:
    at.switch_page(info.path).run()
    assert not at.exception, f"{info.url_path}: {[e.value for e in at.exception]}"
    assert not at.error, f"{info.url_path}: {[e.value for e in at.error]}"


def _widgets(at: AppTest) -> dict:
    found = {}
    for kind in ("slider", "select_slider", "text_input", "number_input", "selectbox", "toggle", "multiselect"):
        for widget in getattr(at, kind):
            if widget.key and widget.key not in ("backend", "present", "export", "theme"):
                found[widget.key] = (kind, widget)
    for state_key, texts in drag_sliders(at):  # URL key -> ("drag", (its session-state key, its values' texts))
        found[state_key.removeprefix("drag_")] = ("drag", (state_key, texts))
    return found


@pytest.fixture(scope="module")
def kinds_by_key():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    seen = defaultdict(dict)  # key -> {url_path: widget kind}, on each page's first tab
    for info in PAGES:
        _open(at, info)
        for key, (kind, _) in _widgets(at).items():
            seen[key][info.url_path] = kind
    return {key: pages for key, pages in seen.items() if len(set(pages.values())) > 1}


def _move(at: AppTest, key: str, kind: str) -> None:
    """Move the widget keyed ``key`` on the open page off its default."""
    _, widget = _widgets(at)[key]
    if kind == "drag":
        state_key, texts = widget
        move_drag_slider(at, state_key, texts[-1])
    else:
        value = _other_value(widget)
        if value is not None:
            widget.set_value(value).run()


def test_a_key_shared_by_different_widgets_does_not_carry_over(kinds_by_key):
    """One session per key, as a student goes back and forth: the source page's widget moved, then each page that
    uses the key for another kind of widget opened, then back to the source to move it again."""
    by_url = {p.url_path: p for p in PAGES}
    assert "s" in kinds_by_key, "expected Fourier's σ and the sentence pages to share the key 's'"
    for key, pages in kinds_by_key.items():
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
        for source, kind in pages.items():
            for target, other_kind in pages.items():
                if other_kind == kind:
                    continue
                _open(at, by_url[source])
                _move(at, key, kind)
                _open(at, by_url[target])


def test_a_lesson_opens_on_its_first_tab_after_another_lessons_tab():
    """Both pages have a tab "Score vs distance" (one URL name, view, for every lesson's tabs): a student who
    leaves Compare extensions on it opens Model presets on its first tab, as its link (no view) says."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    _open(at, registry.page("extension_compare"))
    at.session_state["view"] = "Score vs distance"
    at.run()
    assert at.session_state["view"] == "Score vs distance"
    _open(at, registry.page("model_configs"))
    assert at.session_state["view"] == "What was read"
    assert any(radio.key == "predict_cfg_trained" for radio in at.radio), "the first tab's question is not shown"
