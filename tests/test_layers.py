"""Imports point down and never in a circle: app.py -> lessons -> page_kit -> posenc_core, and inside page_kit
its rooms: lesson -> chart -> controls -> runtime, navigation, live, figures -> i18n (ROOMS).

Read from the source text (every import, those inside functions too: a lazy import hides a cycle from Python,
not from a reader), so a module that is never imported by a test is checked as well.
"""

import ast
from pathlib import Path

from tests.conftest import ROOT

LAYERS = ("app", "lessons", "page_kit", "posenc_core")  # top to bottom
# What each layer may not import: anything above it, and for the core, the UI libraries.
TOOLS = {"tests", "bench", "devtools"}  # they drive the app from outside; the app never imports them
FORBIDDEN = {
    "posenc_core": {"app", "lessons", "page_kit", "streamlit", "plotly"} | TOOLS,
    "page_kit": {"app", "lessons"} | TOOLS,
    "lessons": {"app"} | TOOLS,
    "app": TOOLS,
}


# page_kit's rooms, top to bottom; each imports only the rooms listed for it (and itself), and none imports the
# package root (page_kit/__init__.py, what pages import):
#   lessons, app.py  ->  page_kit  ->  lesson  ->  chart  ->  controls  ->  runtime, navigation, live, figures  ->  i18n
# i18n (the reader's language and its catalogues) is the floor: every room may speak, and i18n imports no room.
# The four base rooms import no other room but i18n: figures holds the builders, their cache and the frames payload;
# controls the URL-bound widgets, the drag slider and the slider specs a figure's event is snapped to; chart puts
# a figure on the page (render, the chart element, hero frames, the figure as a control); lesson the rest of a page.
ROOMS = {
    "i18n": set(),
    "runtime": {"i18n"},
    "navigation": {"i18n"},
    "live": {"i18n"},
    "figures": {"i18n"},
    "controls": {"i18n", "figures", "runtime", "navigation", "live"},
    "chart": {"i18n", "figures", "controls", "runtime"},
    "lesson": {"i18n", "figures", "controls", "chart", "runtime", "navigation", "live"},
}


def _modules() -> dict[str, Path]:
    files = [ROOT / "app.py"] + [p for layer in LAYERS[1:] for p in (ROOT / layer).rglob("*.py")]
    names = {}
    for path in files:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules ``name`` imports, resolved to known module names where they are ours, else the top name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # "from pkg import mod" imports the module pkg.mod where there is one
            subs = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
            found.update(subs or [base])
    return found


def _graph():
    known = _modules()
    return known, {name: _imports(name, path, known) for name, path in known.items()}


def test_imports_point_down_only():
    _, graph = _graph()
    wrong = []
    for name, imported in graph.items():
        layer = name.split(".")[0]
        for target in imported:
            if target.split(".")[0] in FORBIDDEN[layer]:
                wrong.append(f"{name} imports {target}")
    assert not wrong, "imports pointing up (or the core importing a UI library):\n" + "\n".join(sorted(wrong))


def test_a_lesson_imports_only_its_own_sections_views():
    _, graph = _graph()
    wrong = [f"{name} imports {target}" for name, imported in graph.items() if name.startswith("lessons.")
             for target in imported
             if target.startswith("lessons.") and target.split(".")[:2] != name.split(".")[:2]]
    assert not wrong, "a lesson reaching into another section (shared pieces belong in page_kit):\n" + "\n".join(wrong)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    cycles, index, low, stack, on_stack = [], {}, {}, [], set()

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return cycles


def test_no_module_imports_in_a_cycle():
    known, graph = _graph()
    edges = {name: {t for t in imported if t in known and t != name} for name, imported in graph.items()}
    cycles = _cycles(edges)
    assert not cycles, "modules that import each other (directly or around a loop):\n" + "\n".join(
        " <-> ".join(c) for c in cycles)


def test_no_core_folder_imports_another_in_a_cycle():
    # One level up: posenc_core's modules and packages (configs/, rope/, ...) as units, so a cycle between two
    # folders counts even when no single pair of files closes it. The package root only re-exports them.
    def unit(name):
        return ".".join(name.split(".")[:2])

    known, graph = _graph()
    edges: dict[str, set[str]] = {}
    for name, imported in graph.items():
        if name.startswith("posenc_core.") :
            edges.setdefault(unit(name), set()).update(
                unit(t) for t in imported if t.startswith("posenc_core.") and unit(t) != unit(name))
    cycles = _cycles(edges)
    assert not cycles, "core folders that import each other:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_kits_rooms_import_one_way_down():
    known, graph = _graph()
    rooms = {name.split(".")[1] for name in known if name.startswith("page_kit.")}
    assert rooms == set(ROOMS), f"page_kit's rooms and ROOMS differ: {sorted(rooms ^ set(ROOMS))}"
    assert not _cycles(ROOMS), "ROOMS lets two rooms import each other"
    wrong = []
    for name, imported in graph.items():
        if not name.startswith("page_kit."):
            continue
        room = name.split(".")[1]
        for target in imported:
            if target == "page_kit" or (target.startswith("page_kit.")
                                        and target.split(".")[1] not in ROOMS[room] | {room}):
                wrong.append(f"{name} imports {target}")
    assert not wrong, "a room of page_kit importing one above it (or the package root):\n" + "\n".join(sorted(wrong))
