"""The message catalogues, read from their .po files once per process.

The .po files are the source (what translators edit, in Poedit or Weblate); the app compiles each into a gettext
catalogue in memory when it first needs it, so there is no compiled file to go stale. ``pybabel compile`` still
works for tools that want .mo files; the app does not read them."""

from __future__ import annotations

import functools
import gettext
import io
from pathlib import Path

from page_kit.i18n.languages import DEFAULT, Language

LOCALES = Path(__file__).resolve().parents[2] / "locales"
DOMAIN = "messages"


def po_path(language: Language) -> Path:
    return LOCALES / language.catalogue / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(language: Language) -> gettext.NullTranslations:
    """``language``'s catalogue (fuzzy entries left out, as gettext does); the default language has none."""
    if language == DEFAULT or not po_path(language).is_file():
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path(language).open("rb") as po:
        catalogue = read_po(po, locale=language.catalogue, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue, use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)
