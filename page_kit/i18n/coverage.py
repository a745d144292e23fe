"""Which pages a language reads whole: a page whose sentences are all in its catalogue, or a note that says the
rest is still English (a reader should not have to guess why half a page is in another language)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from page_kit.i18n.catalogues import po_path
from page_kit.i18n.languages import DEFAULT, Language

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def translated_ids(language: Language) -> frozenset[str]:
    """The msgids ``language``'s catalogue translates (not fuzzy, every plural form filled)."""
    from babel.messages.pofile import read_po

    if not po_path(language).is_file():
        return frozenset()
    with po_path(language).open("rb") as po:
        catalogue = read_po(po, locale=language.catalogue)
    done = set()
    for message in catalogue:
        strings = [message.string] if isinstance(message.string, str) else list(message.string or ())
        if message.id and not message.fuzzy and strings and all(strings):
            done.add(message.id if isinstance(message.id, str) else message.id[0])
    return frozenset(done)


# Sentences a page shows from the kit rather than from its own section: the checkpoint page's questions.
ALSO_SHOWN = {"lessons/checkpoint.py": "page_kit/lesson/checkpoint_questions"}


def _files(path: str) -> list[Path]:
    """A page's file, the lesson modules it imports (its section's views) and what ALSO_SHOWN names: every file
    whose sentences it shows."""
    page = ROOT / path
    files = [page] + sorted((ROOT / ALSO_SHOWN[path]).glob("[!_]*.py") if path in ALSO_SHOWN else [])
    for node in ast.walk(ast.parse(page.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lessons."):
            module = ROOT / (node.module.replace(".", "/") + ".py")  # from lessons.x.y_views import NAME
            files += [module] if module.is_file() else [
                ROOT / node.module.replace(".", "/") / f"{alias.name}.py" for alias in node.names]
    return [f for f in files if f.is_file()]


@functools.cache
def _marked(file: Path) -> frozenset[str]:
    """Every string ``file`` marks for translation (Babel's Python extractor, as the catalogue's)."""
    from babel.messages.extract import extract_python

    found = set()
    with file.open("rb") as source:
        for _line, function, message, _comments in extract_python(
                source, keywords={"_": None, "gettext": None, "ngettext": (1, 2), "N_": None,
                          "pgettext": ((1, "c"), 2)},
                comment_tags=(), options={}):
            parts = (message,) if isinstance(message, str) else tuple(message or (None,))
            first = parts[1] if function == "pgettext" and len(parts) > 1 else parts[0]  # (context, message)
            if isinstance(first, str) and first:  # a call on a variable (_(page.title)) marks nothing here
                found.add(first)
    return frozenset(found)


def page_translated(path: str, language: Language) -> bool:
    """Whether the page at ``path`` (relative to the repository) reads whole in ``language``: the source's language
    always; another once the page marks its sentences and the catalogue translates every one."""
    if language == DEFAULT:
        return True
    # a file that marks nothing has not been made ready for translation: its sentences are English
    marked = [_marked(file) for file in _files(path)]
    return all(marked) and frozenset().union(*marked) <= translated_ids(language)
