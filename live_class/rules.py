"""The rules of a live class that need no store: room codes, seat tokens, nicknames, the limits and their sentences.

- A room code is 5 characters from an alphabet without look-alikes (no 0/O, 1/I/L, 2/Z, 5/S, 6/G, 8/B), read
  off a projector and typed on a phone; case, spaces and dashes are forgiven.
- A seat token is 128 random bits and an HMAC of them under the store's secret (``Seats``): the server mints
  every seat, so a made-up or altered token is not a seat, and a browser that brings one gets a fresh seat.
- A nickname is printable text with something visible in it, whitespace folded, MAX_NICKNAME_CHARS at most.
- Sentences quote what a person typed only through ``shown``: letters, digits and spaces, so nothing from a URL
  can become a link or an image wherever the sentence is drawn.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

ALPHABET = "ACDEFHJKMNPRTUVWXY3479"
CODE_LENGTH = 5
MAX_NICKNAME_CHARS = 24
_SEAT = re.compile(r"([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})")
# characters that print as nothing although Unicode files them as letters or symbols (Hangul and halfwidth fillers,
# the blank braille pattern): a nickname of only these would be an invisible name on the teacher's screen
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5")
_VISIBLE = ("L", "N", "P", "S")


class ClassError(ValueError):
    """A sentence for the person at the screen: what went wrong with the room and what to do."""


class ClassUnreachable(ClassError):
    """The store did not answer in time (its lock held elsewhere, the server stopped or restarting)."""


def shown(text: object, limit: int = 20) -> str:
    """What someone typed, fit to quote in a sentence: letters, digits, spaces and dashes, at most ``limit``."""
    return "".join(c for c in str(text)[:limit] if c.isalnum() and c.isascii() or c in " -")


def normal_code(text: str) -> str:
    """The room code someone typed, upper-cased without spaces or dashes; ClassError if it cannot be one."""
    code = re.sub(r"[\s-]", "", str(text)).upper()
    if len(code) != CODE_LENGTH or set(code) - set(ALPHABET):
        quoted = f" '{shown(text)}'" if shown(text).strip() else ""
        raise ClassError(f"The room code{quoted} is not a room code: a code has {CODE_LENGTH} letters and digits, "
                         "as shown on the teacher's screen.")
    return code


def normal_nickname(text: str | None) -> str:
    """A nickname as stored: runs of whitespace folded to one space, trimmed ("" for none); ClassError if it is
    longer than MAX_NICKNAME_CHARS, holds characters that do not print, or nothing that shows."""
    nickname = " ".join(str(text or "").split())
    if len(nickname) > MAX_NICKNAME_CHARS:
        raise ClassError(f"The nickname is {len(nickname):,} characters long: at most {MAX_NICKNAME_CHARS}.")
    if not nickname.isprintable():
        raise ClassError("The nickname holds characters that do not print: use letters, digits, spaces and "
                         "punctuation.")
    if nickname and not any(c not in _BLANKS and unicodedata.category(c)[0] in _VISIBLE for c in nickname):
        raise ClassError("The nickname shows nothing: use letters, digits or punctuation (or leave it empty to "
                         "stay anonymous).")
    return nickname


@dataclass(frozen=True)
class Names:
    """Some of a room's seats, for the teacher: the nicknames (sorted, repeats kept) and how many have none."""
    named: tuple[str, ...]
    anonymous: int

    @classmethod
    def of(cls, seats: Iterable[str], nicknames: dict[str, str]) -> Names:
        seats = list(seats)
        named = [nicknames[s] for s in seats if s in nicknames]
        return cls(tuple(sorted(named, key=str.casefold)), len(seats) - len(named))


class Seats:
    """Mints and checks seat tokens under one secret (every replica that shares the store shares it)."""

    def __init__(self, secret: bytes):
        self._secret = secret

    def _sign(self, raw: str) -> str:
        digest = hmac.new(self._secret, b"posenc seat " + raw.encode(), hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def new(self) -> str:
        return self.token(secrets.token_urlsafe(16))  # 22 characters, 128 random bits

    def token(self, raw: str) -> str:
        """The signed token of a 22-character ``raw`` part."""
        return f"{raw}.{self._sign(raw)}"

    def valid(self, token: str | None) -> bool:
        found = _SEAT.fullmatch(token) if isinstance(token, str) else None
        return found is not None and hmac.compare_digest(found[2], self._sign(found[1]))


def _setting(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


@dataclass(frozen=True)
class Limits:
    """How much a room, a seat and a client (one address) may do; each can be set by its environment variable."""
    students: int = 500                 # active seats a room holds
    writes_per_minute: int = 30         # answers and nickname changes of one seat
    seats_per_client: int = 60          # new seats one address may take in 10 minutes (a class behind one NAT)
    seats_per_room_minute: int = 200    # new seats a room takes in a minute
    wrong_codes_per_minute: int = 10    # codes one address may try that open no room
    active_s: float = 90.0              # a seat counts this long after its browser was last seen

    @classmethod
    def from_env(cls) -> Limits:
        d = cls()
        return cls(students=_setting("POSENC_CLASS_STUDENTS", d.students),
                   writes_per_minute=_setting("POSENC_CLASS_WRITES_PER_MINUTE", d.writes_per_minute),
                   seats_per_client=_setting("POSENC_CLASS_SEATS_PER_CLIENT", d.seats_per_client),
                   seats_per_room_minute=_setting("POSENC_CLASS_SEATS_PER_ROOM_MINUTE", d.seats_per_room_minute),
                   wrong_codes_per_minute=_setting("POSENC_CLASS_WRONG_CODES_PER_MINUTE", d.wrong_codes_per_minute))
