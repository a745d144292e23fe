"""The sinusoidal lesson's guide (page_kit.lesson.guide): five steps from the table to the shift matrix.

A step's view names the controls by their URL keys, with values as the URL writes them (the base's label, "10,000").
Its words are marked N_() here and translated when the guide shows them; the tab labels of its views stay English
(the address and the session hold labels the kit maps between languages).
"""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.guide import Step

GUIDE = [
    Step(N_("Each row is a code"),
         N_("Each row is one position's code. The left columns flip every few rows and the right ones barely change, "
            "so no two rows are alike."),
         {"view": "The table", "n": "128", "d": "64", "base": "10,000"},
         task=N_("Click a cell of the table: *One cell* opens on it, with its formula.")),
    Step(N_("Columns are waves"),
         N_("Each column is a plain sine or cosine of the position; its wavelength grows from one pair to the next."),
         {"view": "Columns are waves"}),
    Step(N_("The base sets the longest wave"),
         N_("On a log scale the wavelengths lie on a straight line, from 2π up to almost 2π·base."),
         {"view": "Wavelengths", "base": "10,000"},
         task=N_("Lower the base to 100 and watch where the line ends."), check="base_100"),
    Step(N_("Distance, not place"),
         N_("Every diagonal has one colour: the dot product of two codes depends on how far apart they are, not on "
            "where they sit."),
         {"view": "Similarity"}),
    Step(N_("Shifting is linear"),
         N_("One matrix M_k moves every position by k: it contains k but not p, so a linear layer can learn it."),
         {"view": "Shifting is linear", "k": "5"},
         task=N_("Drag the offset k to 0: M_k becomes the identity."), check="k_zero"),
]
