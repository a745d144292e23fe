"""The message catalogues kept in step with the source (docs/translating.md):

    python -m devtools.catalogues           # extract the template, update every language's catalogue
    python -m devtools.catalogues --check   # say what is missing, stale or broken; exit 1 if anything is

Extraction is Babel's (``babel.cfg``), the same as ``pybabel extract -F babel.cfg``; updating is ``pybabel update``'s
merge, so a translator's work is kept, a changed source string becomes fuzzy (shown in English until reviewed) and a
removed one obsolete. ``--check`` is what tests/test_catalogues.py asserts.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "locales"
TEMPLATE = LOCALES / "messages.pot"
sys.path.insert(0, str(ROOT))

from page_kit.i18n.catalogues import po_path  # noqa: E402
from page_kit.i18n.languages import DEFAULT, LANGUAGES  # noqa: E402

PLACEHOLDER = re.compile(r"(?<!\{)\{([^{}]*)\}(?!\})")  # str.format fields ({n}, {mean:.1f}), not {{ }}


def extract() -> Catalog:
    """Every marked string of the source, where it is (Babel's extraction with babel.cfg's methods)."""
    from babel.messages.frontend import parse_mapping_cfg

    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    template = Catalog(project="PosEnc Explorer", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, strip_comment_tags=True):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def _ids(catalog: Catalog) -> set[str]:
    return {message.id if isinstance(message.id, str) else message.id[0] for message in catalog if message.id}


def placeholders(text: str) -> list[str]:
    """The str.format fields of a message, by name (the format spec aside), sorted."""
    return sorted(field_name.split(":")[0].split("!")[0] for field_name in PLACEHOLDER.findall(text))


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    untranslated: dict[str, list[str]] = field(default_factory=dict)  # language code -> msgids with no translation


def check(template: Catalog | None = None) -> Report:
    """What is wrong with the catalogues against the source: the template or a catalogue missing a string or
    holding one the source no longer has, a translation that drops or invents a placeholder, a plural with a
    form missing. Untranslated strings are listed apart (the reader sees English there)."""
    template = template or extract()
    report = Report()
    wanted = _ids(template)
    on_disk = read_po(TEMPLATE.open("rb")) if TEMPLATE.is_file() else Catalog()
    if _ids(on_disk) != wanted:
        report.problems.append(f"locales/messages.pot is stale: {len(wanted - _ids(on_disk))} new, "
                               f"{len(_ids(on_disk) - wanted)} gone (python -m devtools.catalogues)")
    for language in LANGUAGES:
        if language == DEFAULT:
            continue
        path = po_path(language)
        if not path.is_file():
            report.problems.append(f"{language.code}: no catalogue at {path.relative_to(ROOT)}")
            continue
        catalog = read_po(path.open("rb"), locale=language.catalogue)
        ids = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
        missing, stale = wanted - ids, ids - wanted
        if missing or stale:
            report.problems.append(f"{language.code}: {len(missing)} strings missing, {len(stale)} stale "
                                   f"(python -m devtools.catalogues): {sorted(missing | stale)[:3]}")
        untranslated = []
        for message in catalog:
            if not message.id:
                continue
            ids_ = [message.id] if isinstance(message.id, str) else list(message.id)
            strings = [message.string] if isinstance(message.string, str) else list(message.string or ())
            if message.fuzzy or not all(strings):
                untranslated.append(ids_[0])
                continue
            if len(ids_) > 1 and len(strings) != catalog.num_plurals:
                report.problems.append(f"{language.code}: {ids_[0]!r} has {len(strings)} plural forms, the "
                                       f"language has {catalog.num_plurals}")
            fields = set(placeholders(ids_[-1])) | set(placeholders(ids_[0]))
            for string in strings:
                # a form may leave out the count ("one question" for {n}), never name a field the source lacks
                extra = set(placeholders(string)) - fields
                lost = set(placeholders(ids_[0])) - set(placeholders(string)) - {"n"}
                if extra or lost:
                    report.problems.append(f"{language.code}: {ids_[0]!r} -> {string!r}: placeholders "
                                           f"{sorted(extra)} added, {sorted(lost)} lost")
        report.untranslated[language.code] = untranslated
    return report


def update() -> None:
    """Write the template and merge it into every catalogue (pybabel update's merge)."""
    template = extract()
    LOCALES.mkdir(exist_ok=True)
    with TEMPLATE.open("wb") as out:
        write_po(out, template, width=120, sort_output=False, omit_header=False)
    for language in LANGUAGES:
        if language == DEFAULT:
            continue
        path = po_path(language)
        if path.is_file():
            catalog = read_po(path.open("rb"), locale=language.catalogue)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=language.catalogue, project="PosEnc Explorer", charset="utf-8")
        catalog.update(template, no_fuzzy_matching=False)
        catalog.obsolete.clear()  # a string the source dropped is gone from the catalogue too (git keeps it)
        with path.open("wb") as out:
            write_po(out, catalog, width=120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="report, change nothing")
    args = parser.parse_args()
    if not args.check:
        update()
    report = check()
    for problem in report.problems:
        print("problem:", problem)
    for code, ids in report.untranslated.items():
        print(f"{code}: {len(ids)} untranslated" + (f", e.g. {ids[0]!r}" if ids else ""))
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
