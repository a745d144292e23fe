"""A learner's progress through the course as plain data: what it holds, how two copies merge, how it is written.

Progress is kept in the learner's own browser (a cookie the app writes and reads; the server keeps no copy, so it
works behind any number of replicas) and carried to another device as a short code. Both hold one small value per
item of ``course_items.ITEMS`` (a lesson opened; a question answered, and whether right at the first try) and the
last lesson opened, which is where *Continue* starts looking.

Two forms, one content:
- the cookie, ``p1.<last>.<values>``: one digit per item, trailing zeros dropped. A browser with two tabs open
  merges a write into what the other tab wrote (the larger digit of each item), so the cookie stays digits that a
  few lines of script can merge without decoding anything.
- the code a learner copies: version, last lesson and two bits per item, packed, with a checksum, in URL-safe
  base64 (about 60 characters with the whole course done).
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from types import MappingProxyType

from page_kit.navigation.course_items import ITEMS

PREFIX_MARK = "*"  # an item ending in it stands for every question key that starts with the part before it
COOKIE_VERSION = "p1"
CODE_VERSION = 1
MAX_CODE_CHARS = 400  # a pasted code is checked for length before anything is decoded
_NO_LESSON = 0xFFFF
_ALPHABET = re.compile(r"[A-Za-z0-9_-]+")  # URL-safe base64, without padding
_INDEX = {item: index for index, item in enumerate(ITEMS)}


class Mark(IntEnum):
    """What progress holds of an item; a larger mark never turns back into a smaller one."""
    NONE = 0
    SEEN = 1  # a lesson opened; a question answered, not right at the first try
    RIGHT = 2  # a question answered right at the first try


@dataclass(frozen=True)
class Progress:
    """marks: item (``ITEMS``) -> its mark, NONE left out; last: url_path of the last lesson opened, or None."""

    marks: Mapping[str, Mark] = field(default_factory=lambda: MappingProxyType({}))
    last: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "marks", MappingProxyType({k: Mark(v) for k, v in self.marks.items() if v}))

    def __bool__(self) -> bool:
        return bool(self.marks)

    def mark(self, item: str) -> Mark:
        return self.marks.get(item, Mark.NONE)

    def opened(self, url_path: str) -> Progress:
        """This progress with lesson ``url_path`` opened and last."""
        return Progress({**self.marks, url_path: max(self.mark(url_path), Mark.SEEN)}, url_path)

    def answered(self, item: str, right: bool) -> Progress:
        """This progress with question ``item`` answered; a question keeps the mark of its first answer."""
        if self.mark(item):
            return self
        return Progress({**self.marks, item: Mark.RIGHT if right else Mark.SEEN}, self.last)

    def merged(self, other: Progress) -> Progress:
        """Both progresses at once: each item's larger mark; ``other``'s last lesson when it has one."""
        marks = {k: max(self.mark(k), other.mark(k)) for k in {*self.marks, *other.marks}}
        return Progress(marks, other.last or self.last)


def item_for(key: str) -> str | None:
    """The item a question key counts for: itself, else the longest ``prefix*`` item it starts with; None when
    the course has no such item (a question a newer page asks)."""
    if key in _INDEX:
        return key
    patterns = [item for item in ITEMS if item.endswith(PREFIX_MARK) and key.startswith(item[:-1])]
    return max(patterns, key=len) if patterns else None


def _values(progress: Progress) -> list[int]:
    values = [int(progress.mark(item)) for item in ITEMS]
    while values and not values[-1]:
        values.pop()
    return values


def _from_values(values: Iterable[int], last_index: int | None) -> Progress:
    # values past the end of ITEMS (a newer app's items) are dropped
    marks = {item: Mark(v) for item, v in zip(ITEMS, values, strict=False) if v}
    last = ITEMS[last_index] if last_index is not None and last_index < len(ITEMS) else None
    return Progress(marks, last if last in marks else None)


def to_cookie(progress: Progress) -> str:
    last = _INDEX.get(progress.last) if progress.last else None
    return f"{COOKIE_VERSION}.{'' if last is None else last}.{''.join(map(str, _values(progress)))}"


def from_cookie(text: str | None) -> Progress:
    """The progress a cookie holds; an empty or unreadable cookie (a hand-edited one) is no progress."""
    if not text or len(text) > 4 * len(ITEMS):
        return Progress()
    version, _, rest = text.partition(".")
    last, _, digits = rest.partition(".")
    if version != COOKIE_VERSION or not all(d in "012" for d in digits) or not (last == "" or last.isdigit()):
        return Progress()
    return _from_values((int(d) for d in digits), int(last) if last else None)


def to_code(progress: Progress) -> str:
    """The short code a learner copies to carry this progress to another device."""
    values = _values(progress)
    packed = bytearray((len(values) + 3) // 4)
    for index, value in enumerate(values):
        packed[index // 4] |= value << (2 * (index % 4))
    last = _INDEX.get(progress.last, _NO_LESSON) if progress.last else _NO_LESSON
    body = bytes([CODE_VERSION]) + last.to_bytes(2, "big") + bytes(packed)
    check = (zlib.crc32(body) & 0xFFFF).to_bytes(2, "big")
    return base64.urlsafe_b64encode(body + check).decode("ascii").rstrip("=")


def from_code(code: str) -> Progress:
    """The progress a copied code carries. Raises ValueError naming the code when it is not one this app made
    (mistyped, cut short, or from elsewhere)."""
    text = "".join(code.split()).removeprefix("progress=")
    if not text:
        raise ValueError("The progress code is empty: paste the code you copied.")
    if len(text) > MAX_CODE_CHARS:
        raise ValueError(f"The progress code is {len(text)} characters long; a code is at most {MAX_CODE_CHARS}.")
    try:
        if _ALPHABET.fullmatch(text) is None:  # b64decode would skip a stray character rather than refuse it
            raise ValueError(text)
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("The progress code has characters a code never holds: check that it was copied "
                         "whole.") from None
    body, check = raw[:-2], raw[-2:]
    if len(raw) < 5 or (zlib.crc32(body) & 0xFFFF).to_bytes(2, "big") != check:
        raise ValueError("The progress code does not check out: a character is missing or mistyped.")
    if body[0] != CODE_VERSION:
        raise ValueError(f"The progress code is of version {body[0]}, which this app does not read.")
    last = int.from_bytes(body[1:3], "big")
    values = [(byte >> (2 * slot)) & 3 for byte in body[3:] for slot in range(4)]
    if any(v > Mark.RIGHT for v in values):
        raise ValueError("The progress code holds a mark no progress has: check that it was copied whole.")
    return _from_values(values, None if last == _NO_LESSON else last)
