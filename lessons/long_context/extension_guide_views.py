"""The context-extension lesson's guide (page_kit.lesson.guide): five steps through the methods and their figures.

A step's view names the controls by their URL keys, with values as the URL writes them (a method's label).
"""

from __future__ import annotations

from page_kit.lesson.guide import Step

LINEAR, NTK, YARN = "Position interpolation (linear)", "NTK-aware (static)", "YaRN"

GUIDE = [
    Step("Slow every pair down",
         "Position interpolation divides every frequency by s: every wavelength grows by the same factor, the fast "
         "pairs' too.",
         {"view": "Wavelengths", "m": LINEAR, "s": "4", "L": "4,096"}),
    Step("Or mostly the slow ones",
         "NTK-aware scaling raises the base instead: the fastest pair keeps its speed and the slowest is slowed by "
         "the full s.",
         {"view": "Wavelengths", "m": NTK, "s": "4"}),
    Step("Angles never seen",
         "Shaded red: pairs that still reach angles they never saw in training. NTK-aware slows most slow pairs by "
         "less than s, so some of them still do.",
         {"view": "Angles reached", "m": NTK, "s": "4"},
         task="Switch the method to YaRN: no pair stays red.", check="none_out"),
    Step("YaRN: keep, blend, divide",
         "YaRN keeps the fast pairs as they are (ratio 1), divides the slow ones by s and blends those in between.",
         {"view": "New / old frequency", "m": YARN, "s": "4"},
         task="Set s to 8: the bands stay where they are; only the divided pairs drop lower.", check="s_8"),
    Step("Sharper at long range",
         "YaRN also scales the scores by a²: the whole score curve lifts, keeping the softmax sharp over the longer "
         "context.",
         {"view": "Attention factor & score", "m": YARN, "s": "4"}),
]
