"""The cached core calls and figures of the Context shift lesson, each figure built from its controls' values
(page_kit.hero draws the hero ahead of the hand)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from page_kit import figures
from posenc_core.inference import (
    KSHIFT_DTYPES,
    KSHIFT_HEADS,
    ContextShiftPlan,
    KShiftCurve,
    KShiftScores,
    context_shift_plan,
    kshift_angles,
    kshift_error_curve,
    kshift_scores,
)

TOKENS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
SHIFTS = 1000
CURVE_KEYS = 64  # keys in the cache of the many-shifts curves: the error is an average over them
DTYPE_COLOURS = {"float32": 0, "float16": 1, "bfloat16": 2}


def rule_name(exact_angles: bool) -> str:
    return "transformers" if exact_angles else "llama.cpp"


@st.cache_data(max_entries=64, show_spinner=False)
def plan(n: int, keep: int, discard: int) -> ContextShiftPlan:
    return context_shift_plan(n, keep, discard)


@st.cache_data(max_entries=16, show_spinner="Shifting the keys 1,000 times in each type…")
def curves(model: str, n_discard: int, rule: str) -> dict[str, KShiftCurve]:
    head = KSHIFT_HEADS[model]
    return {d: kshift_error_curve(head.head_dim, head.base, n_discard, SHIFTS, d, n_keys=CURVE_KEYS, rule=rule)
            for d in KSHIFT_DTYPES}


@st.cache_data(max_entries=32, show_spinner=False)
def scores(n: int, keep: int, discard: int, model: str, dtype: str, rule: str) -> KShiftScores:
    head = KSHIFT_HEADS[model]
    return kshift_scores(n, keep, discard, head.head_dim, head.base, dtype, rule=rule)


def strip_chart(n: int, keep: int, discard: int):
    p = plan(n, keep, discard)
    k, d = p.n_keep, p.n_discard
    rule = "default rule" if p.default else "given"
    return figures.lines(
        p.old, {"position before the shift": p.old.astype(float), "position after the shift": p.new},
        title=f"{n:,} cached tokens: keep {k}, drop {d:,} ({rule}), move {n - k - d:,} back by {d:,}",
        x_title="cached token (oldest first)", y_title="position the key is rotated to", name="context_shift_strip",
        colours={"position before the shift": 0, "position after the shift": 1}, dashed=["position before the shift"],
        vlines=[(k - 0.5, f"n_keep = {k}"), (k + d - 0.5, f"{k} + n_discard")] if k else [(d - 0.5, "n_discard")],
        alt=f"Position of each of {n} cached tokens before and after llama.cpp's context shift: tokens 0 to {k - 1} "
            f"keep their positions, tokens {k} to {k + d - 1} are dropped (a gap in the after line), and tokens "
            f"{k + d} to {n - 1} move from their positions to {k} to {n - d - 1}.")


def offsets_chart(n: int, keep: int, discard: int):
    """Distance from the next token (the query) to each cached token, with room to spare and after the shift."""
    p = plan(n, keep, discard)
    before = (n - p.old).astype(float)  # the next token at position n: no shift needed
    after = p.next_position - p.new  # NaN where the token was dropped
    return figures.lines(
        p.old, {"with room to spare (next token at n)": before, "after the shift": after},
        title=f"Offset from the next token to each cached key (next token at {p.next_position:,} after the shift)",
        x_title="cached token (oldest first)", y_title="offset (positions)", name="context_shift_offsets",
        colours={"with room to spare (next token at n)": 0, "after the shift": 1},
        dashed=["with room to spare (next token at n)"],
        alt=f"Offsets from the next token to each cached key. The shifted keys keep their offsets; the {p.n_keep} "
            f"kept keys come {p.n_discard} positions nearer.")


def error_chart(c: dict[str, KShiftCurve], which: str, survived: int, title: str, y_title: str, name: str):
    series, colours, dashed = {}, {}, []
    for dtype, curve in c.items():
        shifted, fresh = f"{dtype}: K-shifted", f"{dtype}: computed fresh"
        series[shifted], series[fresh] = getattr(curve, f"{which}_error"), getattr(curve, f"fresh_{which}_error")
        colours[shifted] = colours[fresh] = DTYPE_COLOURS[dtype]
        dashed.append(fresh)
    x = next(iter(c.values())).shifts
    marks = [(survived, f"a key lives {survived:,} shift{'s' if survived != 1 else ''}")] if survived <= SHIFTS else []
    return figures.lines(
        x, series, title=title, x_title="number of shifts", y_title=y_title, name=name, log_x=True, log_y=True,
        colours=colours, dashed=dashed, vlines=marks, hover_format=".3g", height=460,
        alt=f"{y_title} against the number of shifts (1 to {SHIFTS:,}, log axes) in float32, float16 and bfloat16: "
            "the K-shifted keys drift away as every shift rounds them again, while a key computed fresh at its "
            "new position stays at one rounding (dashed).")


def scores_chart(s: KShiftScores):
    labels = {"no_shift": "with room to spare (no shift)", "exact": "after the shift, exact",
              "shifted": "after the shift, K-shifted cache"}
    return figures.lines(
        s.new_position, {labels[k]: getattr(s, k) for k in labels},
        title="Scores q·k/√d of the next token against each key", x_title="key (its position after the shift)",
        y_title="score", name="context_shift_scores",
        colours={v: i for i, v in enumerate(labels.values())}, dashed=[labels["exact"]], hover_format=".4f",
        alt=f"Scores of the next token against the {s.position.shape[0]} keys that stay. The shifted keys score "
            "as they would with room to spare; the kept first keys score differently because they are nearer.")


def differences_chart(s: KShiftScores, dtype: str):
    moved = np.where(np.abs(s.moved) > 1e-9, np.abs(s.moved), np.nan)  # rounding-level zeros leave a gap
    fresh = np.abs(s.fresh - s.exact)
    return figures.lines(
        s.new_position, {"|change from the shift itself|": moved,
                        f"|K-shifted − exact| ({dtype})": np.abs(s.rounding),
                        f"|computed fresh − exact| ({dtype})": fresh},
        title="What changed in each score, and what the rounding added", x_title="key (position after the shift)",
        y_title="|difference in score|", name="context_shift_differences", log_y=True, hover_format=".3g",
        dashed=[f"|computed fresh − exact| ({dtype})"],
        alt="Absolute change of each score on a log axis: large for the kept first keys only (the shift moved "
            f"them nearer), and at the {dtype} rounding level for every shifted key.")


@st.cache_data(max_entries=64, show_spinner=False)
def shift_angles(n_discard: int, model: str, rule: str) -> np.ndarray:
    head = KSHIFT_HEADS[model]
    return kshift_angles(-n_discard, head.head_dim, head.base, rule)
