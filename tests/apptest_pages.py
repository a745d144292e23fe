"""AppTest helpers shared by the page suites: open a page through app.py and walk its lazy tabs."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from page_kit import registry
from tests.conftest import ROOT

TIMEOUT = 120


def assert_clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {[e.value for e in at.exception]}"
    assert not at.error, f"{where}: {[e.value for e in at.error]}"


def load(info, **query) -> AppTest:
    """``info``'s page as a visitor gets it: app.py first (navigation, sidebar), then a switch to the page."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert_clean(at, "app.py")
    if info is not registry.HOME:
        at.switch_page(info.path).run()
    assert_clean(at, info.path)
    # app.py must have run (navigation + global settings), not the page file on its own
    assert [w.key for w in at.toggle if w.key == "present"], f"{info.path} ran without app.py's sidebar"
    return at


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
