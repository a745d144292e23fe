"""The course as a path: its stops in order, the questions each stop asks, and where a learner stands on it.

A stop is a lesson or a section's checkpoint (after the section's lessons). Which questions a lesson asks is read
from the lessons' own source, once per process: the ``predict`` calls in its page and in the section modules the
page imports (a question built at run time counts as its ``prefix*``). So a question added to a page counts in
the learner's progress without a list to keep up to date; ``tests/test_course.py`` checks the map against every
question of the course.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

from page_kit.lesson import checkpoints
from page_kit.navigation import progress as pg
from page_kit.navigation import registry
from page_kit.navigation.progress import Mark, Progress

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINT_PATH = "checkpoint"  # the checkpoint page's url_path; its section is the ?section= value


@dataclass(frozen=True)
class Stop:
    """A place on the course: a lesson (url_path its page's) or a section's checkpoint (url_path
    ``CHECKPOINT_PATH``); section: the section's key; title: the page's title or the section's; questions: the
    progress items it asks."""

    url_path: str
    section: str
    title: str
    questions: tuple[str, ...]

    @property
    def is_checkpoint(self) -> bool:
        return self.url_path == CHECKPOINT_PATH

    def done(self, progress: Progress) -> bool:
        """A lesson opened with every question answered; a checkpoint with every question answered."""
        opened = self.is_checkpoint or bool(progress.mark(self.url_path))
        return opened and all(progress.mark(q) for q in self.questions)

    def left(self, progress: Progress) -> int:
        """Questions not answered yet."""
        return sum(not progress.mark(q) for q in self.questions)


@dataclass(frozen=True)
class Tally:
    """One section's progress: lessons read of lessons; questions answered and right at the first try of its
    lessons' questions; the same for its checkpoint."""

    read: int
    lessons: int
    answered: int
    right: int
    questions: int
    checkpoint_answered: int
    checkpoint_right: int
    checkpoint_questions: int


def _key_of(node: ast.AST) -> str | None:
    """A ``predict(...)`` call's question key, a run-time key as its ``prefix*``; None for any other node."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    key = node.args[0]
    if name != "predict":
        return None
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    if isinstance(key, ast.JoinedStr) and key.values and isinstance(key.values[0], ast.Constant):
        return f"{key.values[0].value}{pg.PREFIX_MARK}"
    return None


@dataclass(frozen=True)
class _Module:
    """A lessons module as the map reads it: keys asked anywhere in it, keys asked by each top-level function
    (with the functions of the module it names), and the lessons modules it imports with the names it uses."""

    keys: tuple[str, ...]
    functions: dict[str, tuple[tuple[str, ...], frozenset[str]]]
    imports: tuple[tuple[Path, frozenset[str] | None], ...]  # (file, names used; None: the whole module)


def _file(module: str) -> Path | None:
    path = ROOT / (module.replace(".", "/") + ".py")
    return path if path.is_file() else None


def _imports(tree: ast.Module) -> list[tuple[Path, frozenset[str] | None]]:
    """``from lessons.x import y_views as v`` uses the names read as ``v.name``; ``from lessons.x.y import f``
    uses ``f``; ``import lessons.x.y`` the whole module."""
    attributes: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            attributes.setdefault(node.value.id, set()).add(node.attr)
    found: list[tuple[Path, frozenset[str] | None]] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lessons."):
            for alias in node.names:
                submodule = _file(f"{node.module}.{alias.name}")
                if submodule is not None:
                    found.append((submodule, frozenset(attributes.get(alias.asname or alias.name, ()))))
            names = frozenset(alias.name for alias in node.names)
            if (module := _file(node.module)) is not None:
                found.append((module, names))
        elif isinstance(node, ast.Import):
            found += [(file, None) for alias in node.names if alias.name.startswith("lessons.")
                      if (file := _file(alias.name)) is not None]
    return found


@functools.cache
def _module(path: Path) -> _Module:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = list(ast.walk(node))
            keys = tuple(k for k in map(_key_of, inner) if k)
            functions[node.name] = (keys, frozenset(n.id for n in inner if isinstance(n, ast.Name)))
    keys = tuple(k for k in map(_key_of, ast.walk(tree)) if k)
    return _Module(keys, functions, tuple(_imports(tree)))


def _used(module: _Module, names: frozenset[str]) -> tuple[list[str], set[str]]:
    """Keys asked by the named functions of a module and the functions they name in turn; and every module-level
    name reached (imported names the functions use)."""
    keys, reached, todo = [], set(), list(names)
    while todo:
        name = todo.pop(0)
        if name in reached:
            continue
        reached.add(name)
        if name in module.functions:
            found, named = module.functions[name]
            keys += found
            todo += sorted(named)
    return keys, reached


def _asked_by(path: Path) -> tuple[str, ...]:
    """Question items a page asks: its own ``predict`` calls and those of the lessons functions it calls."""
    keys, seen = [], set()
    todo: list[tuple[Path, frozenset[str] | None]] = [(path, None)]
    while todo:
        file, names = todo.pop(0)
        if (file, names) in seen:
            continue
        seen.add((file, names))
        module = _module(file)
        if names is None:
            keys += module.keys
            reached = None
        else:
            found, reached = _used(module, names)
            keys += found
        for imported, used in module.imports:
            if reached is None:
                todo.append((imported, used))
            else:  # only what the used functions reach of this module's own imports
                todo.append((imported, frozenset(used & reached) if used is not None else None))
    items = (pg.item_for(key) for key in keys)
    return tuple(dict.fromkeys(item for item in items if item is not None))


@functools.cache
def stops() -> tuple[Stop, ...]:
    """Every stop of the course in order: each section's lessons, then its checkpoint."""
    found = []
    for section in registry.SECTIONS:
        for page in section.pages:
            found.append(Stop(page.url_path, section.key, page.title, _asked_by(ROOT / page.path)))
        asked = tuple(q.key for q in checkpoints.questions(section.key))
        if asked:
            found.append(Stop(CHECKPOINT_PATH, section.key, f"Checkpoint: {section.title}", asked))
    return tuple(found)


def stop_of(url_path: str, section: str | None = None) -> Stop | None:
    """The stop of a lesson, or of a section's checkpoint (``CHECKPOINT_PATH`` and the section's key)."""
    return next((s for s in stops() if s.url_path == url_path and (section is None or s.section == section)), None)


def after(stop: Stop) -> Stop | None:
    """The stop that follows ``stop`` on the course, None after the last."""
    course = stops()
    index = course.index(stop)
    return course[index + 1] if index + 1 < len(course) else None


def next_to_do(progress: Progress) -> Stop | None:
    """Where *Continue* goes: the last lesson opened while it is not done, else the first stop not done after it,
    else the first not done from the start; None when the whole course is done."""
    course = stops()
    here = next((i for i, s in enumerate(course) if s.url_path == progress.last), None)
    if here is None:
        return next((s for s in course if not s.done(progress)), None)
    if not course[here].done(progress):
        return course[here]
    ahead = course[here + 1:] + course[:here]
    return next((s for s in ahead if not s.done(progress)), None)


def tally(section: str, progress: Progress) -> Tally:
    """Section ``section``'s (key) progress."""
    lessons = [s for s in stops() if s.section == section and not s.is_checkpoint]
    asked = list(dict.fromkeys(q for s in lessons for q in s.questions))
    check = [q.key for q in checkpoints.questions(section)]
    return Tally(
        read=sum(bool(progress.mark(s.url_path)) for s in lessons), lessons=len(lessons),
        answered=sum(bool(progress.mark(q)) for q in asked), right=sum(progress.mark(q) == Mark.RIGHT for q in asked),
        questions=len(asked), checkpoint_answered=sum(bool(progress.mark(q)) for q in check),
        checkpoint_right=sum(progress.mark(q) == Mark.RIGHT for q in check), checkpoint_questions=len(check))


def overall(progress: Progress) -> Tally:
    """The whole course's progress: every section's tally added up (a checkpoint's questions among the
    questions)."""
    tallies = [tally(section.key, progress) for section in registry.SECTIONS]
    return Tally(
        read=sum(t.read for t in tallies), lessons=sum(t.lessons for t in tallies),
        answered=sum(t.answered + t.checkpoint_answered for t in tallies),
        right=sum(t.right + t.checkpoint_right for t in tallies),
        questions=sum(t.questions + t.checkpoint_questions for t in tallies),
        checkpoint_answered=sum(t.checkpoint_answered for t in tallies),
        checkpoint_right=sum(t.checkpoint_right for t in tallies),
        checkpoint_questions=sum(t.checkpoint_questions for t in tallies))
