"""The 'no sense of order' lesson's guide (page_kit.lesson.guide): four steps through its tabs and controls.

A step's view names the controls by their URL keys, with values as the URL writes them (an option's label).
Its words are marked N_() here and translated when the guide shows them; the view's values stay English.
"""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.guide import Step

OUTPUTS, POOLED, IMAGE = "Outputs follow their tokens", "The pooled summary", "Shuffle an image"

GUIDE = [
    Step(N_("Outputs follow their words"),
         N_("The right grid is the sentence read backwards. Each of its rows is a row of the left grid, moved with "
            "its word: read the *was* labels."),
         {"view": OUTPUTS, "how": "reverse", "pe": "false"},
         task=N_("Answer the question above the right grid, then compare a row on each side.")),
    Step(N_("The summary cannot tell"),
         N_("Pooling averages the rows, and an average ignores their order: the original and shuffled bars match, "
            "and the difference bars are flat."),
         {"view": POOLED, "how": "shuffle", "pe": "false"},
         task=N_("Drag the shuffle seed to other orders: the difference stays flat.")),
    Step(N_("Positions break the tie"),
         N_("A model needs the two summaries to differ, or the two sentences are one input to it. Add each slot's "
            "position to the word that sits there."),
         {"view": POOLED, "how": "shuffle", "pe": "false"},
         task=N_("Switch on *Add positions* and watch the difference bars."), check="positions_on"),
    Step(N_("Pictures are bags of patches"),
         N_("Cut into patches, a picture is a set of tokens too: with positions added, the picture and its jumble "
            "get different summaries."),
         {"view": IMAGE, "pe": "true"},
         task=N_("Switch *Add positions* off: the largest difference falls to rounding."), check="positions_off"),
]
