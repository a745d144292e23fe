"""The sinusoidal lesson's guide (page_kit.lesson.guide): five steps from the table to the shift matrix.

A step's view names the controls by their URL keys, with values as the URL writes them (the base's label, "10,000").
"""

from __future__ import annotations

from page_kit.lesson.guide import Step

GUIDE = [
    Step("Each row is a code",
         "Each row is one position's code. The left columns flip every few rows and the right ones barely change, "
         "so no two rows are alike.",
         {"view": "The table", "n": "128", "d": "64", "base": "10,000"},
         task="Click a cell of the table: *One cell* opens on it, with its formula."),
    Step("Columns are waves",
         "Each column is a plain sine or cosine of the position; its wavelength grows from one pair to the next.",
         {"view": "Columns are waves"}),
    Step("The base sets the longest wave",
         "On a log scale the wavelengths lie on a straight line, from 2π up to almost 2π·base.",
         {"view": "Wavelengths", "base": "10,000"},
         task="Lower the base to 100 and watch where the line ends.", check="base_100"),
    Step("Distance, not place",
         "Every diagonal has one colour: the dot product of two codes depends on how far apart they are, not on "
         "where they sit.",
         {"view": "Similarity"}),
    Step("Shifting is linear",
         "One matrix M_k moves every position by k: it contains k but not p, so a linear layer can learn it.",
         {"view": "Shifting is linear", "k": "5"},
         task="Drag the offset k to 0: M_k becomes the identity.", check="k_zero"),
]
