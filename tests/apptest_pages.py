"""AppTest helpers shared by the page suites: open a page through app.py and walk its lazy tabs."""

from __future__ import annotations

import ast
import json
import re

from streamlit.testing.v1 import AppTest

from page_kit import registry
from page_kit.controls import drag_slider
from page_kit.navigation.sidebar import TAB_KEY
from page_kit.runtime import element_data
from tests.conftest import ROOT

TIMEOUT = 120


def read(element) -> str:
    """An alert's text as the reader sees it: page_kit.lesson.literal escapes every punctuation mark of a sentence
    that may quote user input, and markdown shows each escaped mark as itself."""
    return re.sub(r"\\(.)", r"\1", element.value)


def assert_clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {[e.value for e in at.exception]}"
    assert not at.error, f"{where}: {[e.value for e in at.error]}"


def load(info, **query) -> AppTest:
    """``info``'s page as a visitor who opens its address gets it: app.py's run (navigation, sidebar) runs the page
    on the first run, as the server does for a link to it (no run of the home page first)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    if info is not registry.HOME:
        at.switch_page(info.path)
    at.run()
    assert_clean(at, info.path)
    # app.py must have run (navigation + global settings), not the page file on its own
    assert [w.key for w in at.toggle if w.key == "present"], f"{info.path} ran without app.py's sidebar"
    return at


def _labels(node) -> list[str] | None:
    """The labels of a literal list of tab labels, or of a TABS list of (label, function, ...) tuples."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    labels = [item.elts[0] if isinstance(item, ast.Tuple) and item.elts else item for item in node.elts]
    # a label marked for the catalogue, N_("One cell"), is the same label (page_kit.lesson.sections shows it translated)
    labels = [label.args[0] if isinstance(label, ast.Call) and getattr(label.func, "id", "") == "N_" and label.args
              else label for label in labels]
    if not all(isinstance(label, ast.Constant) and isinstance(label.value, str) for label in labels):
        return None
    return [label.value for label in labels]


def source_tabs(info) -> dict[str, list[str]]:
    """A lesson's lazy sections as its source writes them ({TAB_KEY: labels}, {} without tabs), read without running
    the page: the suites list every tab at collection, in every test process, and running each page there took
    most of the collection. ``page.walk(TABS, ...)`` and ``page.sections(TABS-derived or literal labels)``;
    tests/test_pages.py checks the result against the tabs each page draws."""
    tree = ast.parse((ROOT / info.path).read_text(encoding="utf-8"))
    tabs = next((_labels(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "TABS" for t in node.targets)), None)
    groups = []
    for node in ast.walk(tree):
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Attribute) and called.attr in ("walk", "sections") \
                and isinstance(called.value, ast.Name) and called.value.id == "page":
            given = node.args[0] if node.args else None
            from_tabs = called.attr == "walk" or isinstance(given, ast.ListComp)
            groups.append(tabs if from_tabs else _labels(given))
    if len(groups) > 1 or None in groups:
        raise ValueError(f"{info.path}: its tabs are not one literal list (TABS or page.sections([...]))")
    return {TAB_KEY: groups[0]} if groups else {}


def tab_groups(at: AppTest) -> dict[str, list[str]]:
    """Lazy lesson sections (page_kit.sections): widget key -> tab labels."""
    groups: dict[str, list[str]] = {}

    def walk(node):
        for child in getattr(node, "children", {}).values():
            if type(child).__name__ == "Block" and child.type == "tab_container":
                key = child.proto.tab_container.id.split("-", 2)[-1]  # "$$ID-<hash>-<user key>"
                groups[key] = [tab.label for tab in child.children.values()]
            walk(child)

    walk(at.main)
    return groups


def open_tab(at: AppTest, key: str, label: str) -> AppTest:
    at.session_state[key] = label
    at.run()
    assert_clean(at, f"tab {label!r}")
    return at


def reveal_answers(at: AppTest) -> AppTest:
    """Every predict-first question of the view answered with "Show me" (page_kit.lesson.classroom), so the charts
    that stay unsent until then are drawn too."""
    keys = [f"{radio.key}_shown" for radio in at.radio if radio.key and radio.key.startswith("predict_")]
    hidden = [key for key in keys if not (key in at.session_state and at.session_state[key])]
    for key in hidden:
        at.session_state[key] = True
    if hidden:
        at.run()
        assert_clean(at, "answers shown")
    return at


def _folds(at: AppTest) -> list[str]:
    """Session-state keys of the view's folded sections (page_kit.lesson.folded)."""
    keys = []

    def walk(node):
        for child in getattr(node, "children", {}).values():
            if type(child).__name__ == "Expander":
                key = child.proto.id.split("-", 2)[-1]  # "$$ID-<hash>-<user key>"
                if key.startswith("fold_"):
                    keys.append(key)
            walk(child)

    walk(at.main)
    return keys


def open_folds(at: AppTest) -> AppTest:
    """Open every folded section of the view, as a student clicking each one would; their bodies then run."""
    keys = [k for k in _folds(at) if not (k in at.session_state and at.session_state[k])]
    if keys:
        for key in keys:
            at.session_state[key] = True
        _only_drag_keys(at)
        at.run()
        _only_drag_keys(at)
        assert_clean(at, f"opening {keys}")
    return at


def snippets(at: AppTest) -> list[str]:
    """The view's runnable snippets, in page order (each sits in a folded section: this opens them)."""
    open_folds(at)
    return [c.value for c in at.code if c.value.startswith("import posenc_core as pc")]


def run_snippets(at: AppTest, where: str = "the view") -> list[dict]:
    """Run every snippet of the view as a student would paste it; one namespace each, in page order."""
    spaces = []
    for code in snippets(at):
        namespace: dict = {}
        exec(compile(code, f"<{where} snippet>", "exec"), namespace)  # noqa: S102 (the page's own generated code)
        spaces.append(namespace)
    assert spaces, f"{where} shows no snippet"
    return spaces


def _drag_elements(at: AppTest) -> dict[str, tuple[str, list[str], object]]:
    """The page's drag sliders (page_kit.controls.drag_slider): session-state key -> (element id, the values' URL texts,
    the component's protobuf)."""
    found: dict[str, tuple[str, list[str], object]] = {}

    def walk(node):
        for child in getattr(node, "children", {}).values():
            proto = getattr(child, "proto", None)
            if getattr(child, "type", None) == "bidi_component" and proto.component_name == "posenc_drag_slider":
                found[proto.id.split("-", 2)[-1]] = (proto.id, element_data.unwrap(proto)["url"], proto)
            walk(child)

    walk(at.main)
    return found


def drag_value(at: AppTest, key: str) -> str | None:
    """The URL text of the value the drag slider with URL key ``key`` had in the last run (None: no such slider)."""
    element = _drag_elements(at).get(drag_slider.state_key(key))
    if element is None:
        return None
    data = element_data.unwrap(element[2])
    return data["url"][data["index"]]


def drag_sliders(at: AppTest) -> list[tuple[str, list[str]]]:
    """(session-state key, the values' URL texts) of each drag slider on the page."""
    return [(key, texts) for key, (_, texts, _) in _drag_elements(at).items()]


def move_drag_slider(at: AppTest, state_key: str, text: str) -> AppTest:
    """Send what the browser sends when a drag slider moves: the component's state {"value": <URL text>}.

    AppTest only serialises widgets it knows, so the component's state is added to the next run's widget
    states, as the browser's widget manager does (setting at.session_state instead would replay AppTest's
    stale copy of every other widget's value).
    """
    element_id = _drag_elements(at)[state_key][0]
    tree = at._tree
    collect = tree.get_widget_states

    def with_the_move():
        states = collect()
        widget = states.widgets.add()
        widget.id = element_id
        widget.json_value = json.dumps({"value": text})
        return states

    tree.get_widget_states = with_the_move
    # A browser's address bar follows every URL-bound widget; AppTest's query_params follow only explicit
    # st.query_params writes (the drag slider's), which carry a snapshot of the bound widgets' values too.
    # Replayed on a later run, that snapshot would seed those widgets with stale values, which no browser
    # does, so the helper sends only the drag sliders' own keys.
    _only_drag_keys(at)
    at.run()
    _only_drag_keys(at)
    return at


def _only_drag_keys(at: AppTest) -> None:
    dragged = {key.removeprefix(drag_slider.STATE_PREFIX) for key in _drag_elements(at)}
    # the guide's step (page_kit.lesson.guide) is no widget's: the address bar keeps it, as st.query_params wrote it
    at.query_params = {k: v for k, v in at.query_params.items() if k in dragged or k == "guide"}


def chart_figures(at: AppTest) -> dict[str, str]:
    """The chart elements' figure JSON, by element id, as the browser receives them."""
    found: dict[str, str] = {}

    def walk(node):
        for child in getattr(node, "children", {}).values():
            proto = getattr(child, "proto", None)
            if getattr(child, "type", None) == "bidi_component" and proto.component_name == "posenc_plotly":
                found[proto.id] = element_data.unwrap(proto)["figure"]
            walk(child)

    walk(at.main)
    return found
