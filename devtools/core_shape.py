"""What the numeric core may hold, checked from its source: ``python -m devtools.core_shape`` lists every breach.

- **No sentence for the screen.** A string constant of three or more words, outside a docstring, an exception a
  function raises (the core refuses in words that name the field, and the pages show them), a warning, or a
  ``__main__`` command line, is a sentence meant for a reader: it belongs to the lesson's views, which translate.
  Not prose: Python source text (a string that parses as Python, such as a guard the config reading matches
  against transformers' code), a regular expression (an argument of ``re``), a model's name (every word
  capitalised or a number: "Stable Diffusion 3.5 Large"), and a line marked ``# shown as code`` (a shell
  command a refusal and a page print as code), ``# refusal words`` (a phrase only a refusal's message uses),
  ``# a model's name`` (a preset's label) or ``# written to a result file`` (a field of a saved run's format).
- **No bare dict returned.** A public function whose result has several parts returns a typed object (a frozen
  dataclass or a NamedTuple); a ``dict[K, V]`` keyed by data (a method, a preset, a layer type) is a mapping and
  says its types. Flagged: a public function annotated to return a bare ``dict``, and one that returns a dict
  display of two or more string-constant keys (``return {"q": q, "k": k}``, directly or through a local name
  assigned such a display): a record with fixed parts. A JSON or config payload (a ``rope_scaling`` a model's
  config takes, a result file's row) says so with ``# a config payload`` on its ``def`` or ``return`` line.
- **Sizes a reader can hold.** A core module at most 600 lines, a lesson file at most 200, a function at most 60.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "posenc_core"
# calls whose string arguments are refusals, warnings or a command line's help: words the core may say
PRAGMAS = ("# shown as code", "# refusal words", "# a model's name", "# written to a result file")
# a dict of fixed string keys a function returns on purpose: a config or JSON payload, not a record
PAYLOAD = "# a config payload"
REGEX_CALLS = {"compile", "match", "fullmatch", "search", "sub", "findall", "finditer", "split", "import_module"}
SPEAKING_CALLS = {"ValueError", "TypeError", "KeyError", "RuntimeError", "OSError", "FileNotFoundError", "ImportError",
                  "MissingExtraError", "NotImplementedError", "warn", "ArgumentParser", "add_argument", "print",
                  "error", "exit", "Thread"}
WORD = re.compile(r"[A-Za-z][a-z]+")
MAX_LINES = {"posenc_core": 600, "lessons": 200, "page_kit": 600}
MAX_FUNCTION_LINES = 60


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _said_by_a_refusal(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.Raise, ast.Assert)):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            # the refusals' own words: ``check_size(n, "The table")`` and ``require_torch("...")`` name what a
            # refusal is about
            if (name in SPEAKING_CALLS | REGEX_CALLS or name.endswith("Error")
                    or name.startswith(("as_", "check_", "require_"))):
                return True
    return False


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def _not_prose(text: str) -> bool:
    """Python source text, a regular expression, or a name whose every word is capitalised or a number."""
    if re.search(r"\\[wdsb]|\(\.[+*]\)", text):
        return True
    try:
        ast.parse(text.strip())
        return True
    except SyntaxError:
        pass
    words = text.replace("-", " ").split()
    return all(w[0].isupper() or w[0].isdigit() for w in words)


def sentences(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of each string in a core module that reads as a sentence for the screen."""
    if path.name == "__main__.py":
        return
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    parents = _parents(tree)
    for node in ast.walk(tree):
        text = _text(node)
        if text is None or isinstance(parents.get(node), ast.Expr) or isinstance(parents.get(node), ast.JoinedStr):
            continue  # a docstring, or a piece of an f-string (the f-string is checked whole)
        if len(WORD.findall(text)) < 3 or " " not in text.strip() or _not_prose(text):
            continue
        # the mark in a comment on the string's lines, or on a comment line just above them
        span = lines[node.lineno - 1:node.end_lineno]
        above = lines[node.lineno - 2] if node.lineno > 1 and lines[node.lineno - 2].lstrip().startswith("#") else ""
        marked = any(p[2:] in line.partition("#")[2] for line in [above, *span] for p in PRAGMAS)
        if not marked and not _said_by_a_refusal(node, parents):
            yield node.lineno, text


def _fixed_keys(node: ast.AST | None) -> bool:
    """A dict display of two or more keys, all string constants (a ``**part`` spread among them counts too): a
    record's fixed parts."""
    if not isinstance(node, ast.Dict):
        return False
    named = [k for k in node.keys if k is not None]
    return len(named) >= 2 and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in named)


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The function's own statements and expressions, not those of a function or class defined inside it."""
    for child in ast.iter_child_nodes(function):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            yield child
            yield from _own_nodes(child)


def _record_returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.Return]:
    """Each ``return`` of a fixed-key dict display, directly or through a local name assigned one."""
    nodes = list(_own_nodes(function))
    records = {target.id for node in nodes if isinstance(node, (ast.Assign, ast.AnnAssign)) and _fixed_keys(node.value)
               for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
               if isinstance(target, ast.Name)}
    for node in nodes:
        if isinstance(node, ast.Return) and (
                _fixed_keys(node.value) or isinstance(node.value, ast.Name) and node.value.id in records):
            yield node


def bare_dict_returns_in(source: str) -> Iterator[tuple[int, str]]:
    """(line, function) of each public module-level function in ``source`` that returns a record as a bare dict:
    annotated ``-> dict``, or returning a dict display of two or more string-constant keys, unless its signature
    (the ``def`` line and any line up to its body) or the ``return`` statement says ``# a config payload``."""
    lines = source.splitlines()

    def payload(first: int, last: int) -> bool:
        return any(PAYLOAD[2:] in line.partition("#")[2] for line in lines[first - 1:last])

    for node in ast.parse(source).body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name.startswith("_"):
            continue
        if node.returns and re.fullmatch(r"dict( \| None)?|None \| dict", ast.unparse(node.returns)):
            yield node.lineno, node.name
            continue
        if payload(node.lineno, max(node.lineno, node.body[0].lineno - 1)):
            continue
        for ret in _record_returns(node):
            if not payload(ret.lineno, ret.end_lineno or ret.lineno):
                yield ret.lineno, node.name
                break


def bare_dict_returns(path: Path) -> Iterator[tuple[int, str]]:
    """(line, function) of each public function in a core file that returns a record as a bare ``dict``."""
    yield from bare_dict_returns_in(path.read_text(encoding="utf-8"))


def long_functions(path: Path) -> Iterator[tuple[int, str, int]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES:
                yield node.lineno, node.name, lines


def python_files(top: str) -> list[Path]:
    return sorted(p for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts)


def long_files() -> Iterator[tuple[str, int, int]]:
    for top, most in MAX_LINES.items():
        for path in python_files(top):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > most:
                yield str(path.relative_to(ROOT)), lines, most


def main() -> int:
    found = 0
    for path in python_files("posenc_core"):
        where = path.relative_to(ROOT)
        for line, text in sentences(path):
            print(f"{where}:{line}: sentence {text[:80]!r}")
            found += 1
        for line, name in bare_dict_returns(path):
            print(f"{where}:{line}: {name} returns a bare dict")
            found += 1
    for top in MAX_LINES:
        for path in python_files(top):
            for line, name, lines in long_functions(path):
                print(f"{path.relative_to(ROOT)}:{line}: {name} is {lines} lines (at most {MAX_FUNCTION_LINES})")
                found += 1
    for where, lines, most in long_files():
        print(f"{where}: {lines} lines (at most {most})")
        found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
