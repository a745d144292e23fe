"""Reading an engine's command line as text: shell splitting, ``--flag value`` pairs and the values they take.

Shared by llama.cpp's flags (``llama_cpp.llama_cpp_flags``) and vLLM's (``vllm_flags.vllm_flags``).
Every malformed piece ends in a ``ValueError`` sentence that names the flag.
"""

from __future__ import annotations

import math
import shlex

from .._checks import as_int
from ..configs.reader import parse_config_json

__all__ = ["MAX_FLAGS_CHARS"]

MAX_FLAGS_CHARS = 2000  # one command line, as the page's text fields take it


def _split(text: str, engine: str) -> list[str]:
    """The command line's words as a POSIX shell splits them (a backslash-newline joins two lines); ``engine``
    names the program in a refusal (``"llama.cpp"``, ``"vLLM"``)."""
    what = f"{engine} flags"
    if not isinstance(text, str):
        raise ValueError(f"{what} are text, but got {type(text).__name__}.")
    if len(text) > MAX_FLAGS_CHARS:
        raise ValueError(f"{what} are {len(text):,} characters; the limit here is {MAX_FLAGS_CHARS:,}.")
    try:
        return shlex.split(text.replace("\\\n", " "))
    except ValueError as error:
        raise ValueError(f"{what} cannot be split like a shell command line: {error} (an unclosed quote?).") \
            from None


def _without_program(tokens: list[str]) -> list[str]:
    if tokens and not tokens[0].startswith("-") and tokens[0] != "serve":
        return tokens[1:]  # the program's name (llama-server, vllm)
    return tokens


def _tokens(text: str, engine: str) -> list[str]:
    return _without_program(_split(text, engine))


def _pairs(tokens: list[str], engine: str):
    """``(flag, value)`` pairs from ``--flag value`` and ``--flag=value``."""
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not token.startswith("-"):
            raise ValueError(f"{token!r} in the {engine} flags is not a flag: every value follows its flag.")
        flag, eq, value = token.partition("=")
        if not eq:
            if i + 1 >= len(tokens):
                raise ValueError(f"{flag} needs a value after it.")
            value, i = tokens[i + 1], i + 1
        yield flag, value
        i += 1


def _number(flag: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{flag} takes a number, but got {text!r}.") from None
    if not math.isfinite(value):
        raise ValueError(f"{flag} takes a finite number, but got {text!r}.")
    return value


def _whole(flag: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{flag} takes a whole number, but got {text!r}.") from None
    return as_int(flag, value, minimum=0, maximum=1 << 30)


def _json_object(flag: str, text: str) -> dict:
    try:
        return parse_config_json(text, max_bytes=MAX_FLAGS_CHARS)
    except ValueError as error:
        raise ValueError(f"{flag} takes a JSON object: {error}") from None
