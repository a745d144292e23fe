"""Context shift lesson: each snippet, run as a student would paste it, gives the numbers its figure shows.

At the default view or at one view set by a link, the snippet on screen is executed and its result compared with
the core call behind the figure at those control values (bit-identical: the same call).
"""

import numpy as np

from page_kit import registry
from posenc_core.inference import KSHIFT_DTYPES, context_shift_plan, kshift_error_curve, kshift_scores
from tests import apptest_pages

PAGE = registry.page("context_shift")


def _one(tab: str | None = None, **query) -> dict:
    at = apptest_pages.load(PAGE, **query)
    if tab is not None:
        key = next(k for k, labels in apptest_pages.tab_groups(at).items() if tab in labels)
        at = apptest_pages.open_tab(at, key, tab)
    (namespace,) = apptest_pages.run_snippets(at)
    return namespace


def test_one_shift_snippet_gives_the_strip():
    ns = _one()
    plan = context_shift_plan(64, 4, 0)  # the page's defaults: 64 tokens, n_keep 4, the default n_discard
    np.testing.assert_array_equal(ns["plan"].new, plan.new)
    np.testing.assert_array_equal(ns["plan"].old, plan.old)


def test_many_shifts_snippet_gives_the_curves():
    ns = _one("Error after many shifts", n="16", keep="2", discard="3", model="Llama 2 7B")
    for dtype in KSHIFT_DTYPES:
        curve = kshift_error_curve(128, 10000.0, 3, 1000, dtype, n_keys=64, rule="llama.cpp")
        np.testing.assert_array_equal(ns["curve"][dtype].key_error, curve.key_error)
        np.testing.assert_array_equal(ns["curve"][dtype].shifts, curve.shifts)


def test_scores_snippet_gives_the_scores():
    ns = _one("What the model sees", dtype="bfloat16", hf_angles="true")
    s = kshift_scores(64, 4, 0, 64, 100000.0, "bfloat16", rule="transformers")
    for key in ("no_shift", "exact", "shifted"):
        np.testing.assert_array_equal(getattr(ns["s"], key), getattr(s, key))
