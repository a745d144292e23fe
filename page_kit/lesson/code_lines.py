"""Snippet lines short enough to read without scrolling: a long core call folds at its commas.

``classroom.snippet`` shows each line as it is, and a code block scrolls sideways, so a call with the
current values of eight controls is cut off at the right edge on a laptop and in presentation mode.
``fold`` writes the same statement over several lines (the arguments packed under an indent, the comment
after the closing bracket), so the whole call is on screen and still pastes as one statement.
"""

from __future__ import annotations

WIDTH = 72  # characters a snippet line may take before it folds (fits the laptop and projector layouts)


def _scan(text: str):
    """(index, character, depth before it) for every bracket and comma outside string literals."""
    depth, quote = 0, ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote and text[i - 1] != "\\" else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            yield i, ch, depth
            depth += 1
        elif ch in ")]}":
            depth -= 1
            yield i, ch, depth
        elif ch == ",":
            yield i, ch, depth


def _outer_bracket(statement: str) -> int | None:
    """Where the bracket that the statement's last character closes opens (None if it does not end in one)."""
    openers = [i for i, ch, depth in _scan(statement) if ch in "([{" and depth == 0]
    closers = [i for i, ch, depth in _scan(statement) if ch in ")]}" and depth == 0]
    if not closers or closers[-1] != len(statement) - 1:
        return None
    return openers[-1]


def _arguments(text: str) -> list[str]:
    """Split a call's argument text at its top-level commas (not inside brackets or strings)."""
    cuts = [i for i, ch, depth in _scan(text) if ch == "," and depth == 0]
    bounds = zip([-1, *cuts], [*cuts, len(text)], strict=True)
    return [text[a + 1:b].strip() for a, b in bounds if text[a + 1:b].strip()]


def _packed(arguments: list[str], width: int) -> list[str]:
    lines, line = [], ""
    for arg in arguments:
        piece = f"{arg},"
        if line and 4 + len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = ""
        line = f"{line} {piece}" if line else piece
    return [f"    {text}" for text in [*lines, line]]


def fold(statement: str, comment: str = "", width: int = WIDTH) -> str:
    """``statement  # comment`` on one line if it fits; else the bracketed part over indented lines.

    ``statement`` is one assignment such as ``x = pc.f(1, 2)`` or ``d = {k: pc.f(k) for k in ks}``; the
    comment says what the result is (shape, units) and follows the closing bracket. A call's arguments are
    packed onto lines of at most ``width`` characters; a comprehension puts its ``for`` clause on its own line.
    """
    tail = f"  # {comment}" if comment else ""
    if len(statement) + len(tail) <= width:
        return statement + tail
    opening = _outer_bracket(statement)
    above = f"# {comment}\n" if comment else ""
    if opening is None or len(statement) <= width:  # nothing to fold, or only the comment is too long
        return above + statement
    head, inner, close = statement[:opening + 1], statement[opening + 1:-1], statement[-1]
    if close == ")":
        body = _packed(_arguments(inner), width)
    else:
        expression, _, clause = inner.partition(" for ")
        body = [f"    {expression.strip()}", f"    for {clause.strip()}"]
    if len(close + tail) > width:  # a long comment reads better above the statement than far to the right
        return above + "\n".join([head, *body, close])
    return "\n".join([head, *body, close + tail])
