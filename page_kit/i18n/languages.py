"""The languages the app speaks: one line each. A new language is a line here and its catalogue
(``locales/<catalogue>/LC_MESSAGES/messages.po``, started with ``pybabel init``; docs/translating.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    code: str       # in the address (?lang=) and in session state: a BCP 47 tag, as browsers send them
    name: str       # in its own language, as the switch shows it
    catalogue: str  # the catalogue's folder under locales/ and the Babel locale (numbers, plural rules)


LANGUAGES: tuple[Language, ...] = (
    Language("en", "English", "en"),
    Language("zh-CN", "简体中文", "zh_CN"),
    Language("es", "Español", "es"),
)
DEFAULT = LANGUAGES[0]  # the language the source is written in: no catalogue
BY_CODE = {language.code.lower(): language for language in LANGUAGES}


def from_tag(tag: str | None) -> Language | None:
    """The language a BCP 47 tag asks for ("es-MX" -> Spanish, "zh-Hans" -> Simplified Chinese), or None.

    Traditional Chinese (zh-TW, zh-HK, zh-Hant) is not Simplified Chinese: it gets the default."""
    if not tag:
        return None
    tag = tag.strip().replace("_", "-").lower()
    if tag in BY_CODE:
        return BY_CODE[tag]
    parts = tag.split("-")
    if parts[0] == "zh":
        return BY_CODE["zh-cn"] if not set(parts[1:]) & {"tw", "hk", "mo", "hant"} else None
    return BY_CODE.get(parts[0])


def from_accept_language(header: str | None) -> Language | None:
    """The first language of an Accept-Language header the app speaks (by the header's q weights)."""
    if not header:
        return None
    weighted = []
    for index, part in enumerate(header.split(",")[:32]):  # a header is the browser's, but bounded anyway
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        weighted.append((-weight, index, tag))
    for _weight, _index, tag in sorted(weighted):
        language = from_tag(tag)
        if language is not None:
            return language
    return None
