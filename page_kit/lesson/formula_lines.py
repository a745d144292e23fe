"""A display formula set on several lines where one line would not fit a projector's column.

KaTeX never breaks a display formula, so a long one was cut or scrolled sideways in front of a room. Here the
formula's own structure says where it may break: statements set side by side (``\\quad``, ``\\qquad``,
``\\Rightarrow``) go one under another, and a statement still too long is broken before a relation sign, its
continuation lines aligned on the relation (definition first, then the values).
"""

from __future__ import annotations

import re

# The figure column's width on a 1,280 px projector (743 px), in characters of its formulas (about 15.5 px)
PROJECTOR_CHARS = 44
# Statement separators and relation signs at the top level of a formula (outside braces and \left ... \right)
_SEPARATOR = re.compile(r",?\s*\\q?quad\s*(?:\\(?:Rightarrow|Longrightarrow|to|implies)\s*\\q?quad\s*)?"
                        r"|,\s*\\[ ;]\s*|\\ \s*\\ \s*")
_RELATION = re.compile(r"(?<![\\<>!])(=|\\approx|\\le(?:q)?(?![a-z])|\\ge(?:q)?(?![a-z])|\\equiv|\\propto"
                       r"|\\to(?![a-z])|\\mapsto|\\Rightarrow|<|>)")
_LINE_BREAK = re.compile(r"\\\\")
_COMMAND = re.compile(r"\\([a-zA-Z]+)")
_SILENT = {"left", "right", "big", "Big", "bigg", "Bigg", "mathrm", "text", "mathbf", "operatorname", "quad",
           "qquad", "frac", "tfrac", "dfrac", "sqrt", "hat", "tilde", "bar", "boldsymbol", "mathit", "textbf"}


def width(tex: str) -> float:
    """About how many characters wide ``tex`` sets: words of a command count as written (sin, max), other commands
    (Greek letters, signs) as one, sub- and superscripts as three quarters."""
    text = _COMMAND.sub(lambda m: "" if m.group(1) in _SILENT else m.group(1) if len(m.group(1)) <= 3 else "x", tex)
    text = re.sub(r"\\.", "", text)  # spacing and escaped symbols: \, \! \{
    scripts = sum(len(m.group(1) or m.group(2)) for m in re.finditer(r"[_^](?:\{([^{}]*)\}|(.))", text))
    plain = re.sub(r"[{}\s^_&]", "", text)
    spaces = sum(m.group(1).count(" ") for m in re.finditer(r"\\text\w*\{([^{}]*)\}", tex))  # math drops others
    return len(plain) + spaces - 0.25 * scripts


def _top_level(tex: str, pattern: re.Pattern) -> list[tuple[int, int]]:
    """Spans of ``pattern``'s matches outside every brace, bracket and parenthesis (a tuple ``(0,\\ r,\\ c)`` is
    one piece), \\left ... \\right and \\begin ... \\end."""
    depth, level = 0, []
    for i, char in enumerate(tex):
        depth += (char in "{([") - (char in "})]")
        if tex.startswith(("\\left", "\\begin"), i):
            depth += 1
        elif tex.startswith(("\\right", "\\end"), i):
            depth -= 1
        level.append(depth)
    return [m.span() for m in pattern.finditer(tex) if level[m.start()] == 0 and not tex[:m.start()].endswith("\\")]


def _split(tex: str, spans: list[tuple[int, int]], keep: bool) -> list[str]:
    parts, start = [], 0
    for a, b in spans:
        parts.append(tex[start:a])
        start = a if keep else b
    return [p.strip() for p in [*parts, tex[start:]] if p.strip()]


def _statement_lines(statement: str, budget: float) -> str:
    parts = _split(statement, _top_level(statement, _RELATION), keep=True)
    if width(statement) <= budget or len(parts) < 2:
        return statement
    if len(parts) == 2:  # one relation: the left side, then the relation and the right side indented under it
        return rf"\begin{{aligned}}&{parts[0]}\\ &\quad {parts[1]}\end{{aligned}}"
    lines, line = [], f"{parts[0]} & {parts[1]}"
    for part in parts[2:]:
        if width(line + part) > budget:
            lines.append(line)
            line = f"& {part}"
        else:
            line = f"{line} {part}"
    return r"\begin{aligned}" + r"\\ ".join([*lines, line]) + r"\end{aligned}"


def broken(tex: str, budget: float) -> str:
    """``tex`` as it reads in a column ``budget`` characters wide: unchanged when it fits, else one statement a
    line and long statements broken before a relation sign."""
    if width(tex) <= budget or _top_level(tex, _LINE_BREAK):  # fits, or already set on lines
        return tex
    statements = _split(tex, _top_level(tex, _SEPARATOR), keep=False)
    lines = [_statement_lines(statement, budget) for statement in statements]
    return lines[0] if len(lines) == 1 else r"\begin{gathered}" + r"\\ ".join(lines) + r"\end{gathered}"
