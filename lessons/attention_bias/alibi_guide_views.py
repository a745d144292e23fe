"""The ALiBi lesson's guide (page_kit.lesson.guide): four steps from the slopes to inputs longer than training.

A step's view names the controls by their URL keys, with values as the URL writes them (a select slider's label).
Its words are marked N_() here and translated when the guide shows them; the view's values (tab labels included)
stay English (the address and the session hold labels the kit maps between languages).
"""

from __future__ import annotations

from page_kit.i18n import N_
from page_kit.lesson.guide import Step

GUIDE = [
    Step(N_("One slope per head"),
         N_("With 8 heads the slopes halve from head to head, from 1/2 down to 1/256."),
         {"view": "Slopes per head", "h": "8"},
         task=N_("Set *Heads* to a count that is not a power of two, such as 12, and read how the extra heads are "
                 "filled in."), check="heads_not_power"),
    Step(N_("A penalty that grows with distance"),
         N_("Every diagonal has one value: the bias is −slope × distance, so the steep heads darken fast away from "
            "the diagonal."),
         {"view": "Bias grids", "h": "8", "n": "24", "mask": "causal"},
         task=N_("Switch *Attention* to symmetric: the penalty now reaches both ways."), check="symmetric"),
    Step(N_("The bias alone is a pattern"),
         N_("With equal content scores only the bias is left: steep heads look at their neighbours, gentle heads "
            "far back."),
         {"view": "Bias alone = attention pattern", "mask": "causal", "n": "24", "ctx": "1,024", "mass": "0.9"},
         task=N_("Drag *Share of the attention* to 0.99 and watch how far back each head must reach."),
         check="mass_099"),
    Step(N_("Longer than training"),
         N_("Past the training length the lines keep their slope: a head that was local in training stays local."),
         {"view": "Longer than training", "train": "512", "factor": "4x training"},
         task=N_("Evaluate at 8x training: only the gentlest heads give keys that far back noticeable weight."),
         check="eval_8x"),
]
