"""A question's answers as bars, each vote beside the other, for the teacher's question row and the results."""

from __future__ import annotations

import html
from collections.abc import Sequence

from page_kit.i18n import _

SPREAD_COLOURS = ("#4c78a8", "#e45756")  # first and second vote: Tableau blue and red, told apart without hue too


def spread_html(options: Sequence[str], counts: Sequence[Sequence[int]], answer: int | None = None,
                moved: tuple[int, int] | None = None) -> str:
    """Each vote's answers as bars under each option's whole text (a chart axis cut the long ones short); the
    right option is marked only once ``answer`` is given (after the reveal), and ``moved`` says the shift."""
    most = max(max((max(c) for c in counts), default=0), 1)
    votes = [html.escape(_("vote {n}").format(n=r + 1)) if len(counts) > 1 else "" for r in range(len(counts))]
    rows = []
    for i, option in enumerate(options):
        mark = " ✓ " + html.escape(_("right")) if answer == i else ""
        bars = "".join(
            f'<div style="display:flex;align-items:center;gap:0.4rem"><span style="width:4.2rem;font-size:0.75rem">'
            f'{votes[r]}</span><div style="height:0.8rem;'
            f'width:{65 * c[i] / most:.1f}%;min-width:2px;background:{SPREAD_COLOURS[r]};border-radius:2px;'
            f'{"opacity:0.55" if r == 0 and len(counts) > 1 else ""}"></div><strong>{c[i]}</strong></div>'
            for r, c in enumerate(counts))
        rows.append(f'<div style="margin:0 0 0.4rem 0"><div style="font-size:0.85rem;line-height:1.25">'
                    f'{html.escape(option)}<strong>{mark}</strong></div>{bars}</div>')
    shift = ""
    if moved is not None:
        said = html.escape(_("Between the votes: {wrong_to_right} moved from wrong to right, {right_to_wrong} from "
                             "right to wrong.")).format(wrong_to_right=f"<strong>{moved[0]}</strong>",
                                                        right_to_wrong=f"<strong>{moved[1]}</strong>")
        shift = f'<p style="margin:0.2rem 0 0 0;font-size:0.85rem">{said}</p>'
    label = html.escape(_("The room's answers, per option"), quote=True)
    return f'<div class="live-spread" role="group" aria-label="{label}">{"".join(rows)}{shift}</div>'
