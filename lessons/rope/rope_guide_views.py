"""The RoPE lesson's guide (page_kit.lesson.guide): five steps from one turning pair to the wavelengths.

A step's view names the controls by their URL keys, with values as the URL writes them (a context's label, "4,096").
Its words are marked N_() here and translated when the guide shows them; the view's values (tab labels included)
stay English (the address and the session hold labels the kit maps between languages).
"""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.guide import Step

GUIDE = [
    Step(N_("One pair, two turns"),
         N_("The query arrow is turned by mθ, the key arrow by nθ; both keep their length."),
         {"view": "One pair", "m": "5", "n": "2", "i": "0"},
         task=N_("Drag the query position m and watch the score under the figure.")),
    Step(N_("Only the offset counts"),
         N_("The score sees only the offset m − n: move both positions by the same amount and it stays put."),
         {"view": "One pair", "m": "5", "n": "2"},
         task=N_("Drag the key position n until it equals m: the score becomes the plain q·k."), check="offset_zero"),
    Step(N_("As complex numbers"),
         N_("Written as complex numbers, the positions enter only through e^(i(m−n)θ): the score is the real part "
            "of one turned number."),
         {"view": "As complex numbers"}),
    Step(N_("All pairs at once"),
         N_("Pair 0 turns one radian per position; each pair to the right turns slower, by the same factor each "
            "time."),
         {"view": "All pairs at once", "pos": "256", "part": "angle"}),
    Step(N_("Which pairs close a turn"),
         N_("Pairs below the context line go all the way round inside the context; the slow pairs above it never "
            "close a turn."),
         {"view": "Wavelengths", "ctx": "4,096", "base": "10,000", "d": "64"},
         task=N_("Raise the base to 500,000 and count the pairs that still complete a turn."), check="base_500k"),
]
