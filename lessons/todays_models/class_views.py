"""Predict-then-reveal questions (and snippet lines) of the Attention sinks, Fewer frequencies, DroPE and CoPE lessons.

Each question's answer is read from the same core results the figure below it draws, so it holds at every
control value; the reveal sentence cites those numbers. Each ``ask_*`` returns a context manager: wrap the
block that answers the question in it (``with class_views.ask_x(...):``) so that block stays hidden until the
student answers (``classroom.Prediction``); where a setting leaves no single right answer it asks nothing and
returns a context that hides nothing.
"""

from __future__ import annotations

import contextlib

from page_kit import classroom

# --- attention_sinks ---


def ask_row_sum(kept: float, sink_share: float, w: int) -> contextlib.AbstractContextManager:
    """Predict: do a row's probabilities on real keys still sum to 1 once the sink joins the softmax?"""
    answer = 1 if kept < 1 - 1e-12 else 0

    def reveal() -> str:
        return (f"In the last row the {w} real keys get {kept:.4f} in total and the sink column {sink_share:.4f}; "
                "the two add up to 1, and the sink's share is dropped before the values are mixed.")

    return classroom.predict("sink_row_sum", "The sink logit joins every row of the softmax. Add up one row's "
                      "probabilities on the real keys: what do you get?",
                      ["exactly 1: softmax always hands out everything", "less than 1: the sink's share is gone",
                       "more than 1"], answer, reveal)


def ask_window(full: float, windowed: float, window: int, position: int) -> contextlib.AbstractContextManager:
    """Predict: far down the sequence, does the sink keep more of the query's attention with or without a window?"""
    answer = 0 if full > windowed else 1 if windowed > full else 2

    def reveal() -> str:
        return (f"At position {position:,} the sink takes {full:.3g} under full attention ({position + 1:,} keys) "
                f"and {windowed:.3g} in a window of {window} keys: the last point of each line below.")

    return classroom.predict(
        "sink_window", f"A query at position {position:,}. Where does the sink take a larger share: "
                      f"under full attention or in a sliding window of {window}?",
                      ["full attention", f"the window of {window}", "the same in both"], answer, reveal)


# --- fewer_frequencies ---


def ask_same_speeds(info: dict, fraction: float) -> contextlib.AbstractContextManager:
    """Predict: with the same fraction, do partial rotary and p-RoPE turn at the same speeds?"""
    partial, p_rope = info["partial rotary"].longest_wavelength, info["p-RoPE"].longest_wavelength
    answer = 0 if abs(partial - p_rope) <= 1e-9 * partial else 1 if partial > p_rope else 2

    def reveal() -> str:
        slow = {m: info[m].slowest_omega for m in ("partial rotary", "p-RoPE")}
        return (f"The slowest turning pair has a wavelength of {partial:,.0f} positions under partial rotary "
                f"(ω = {slow['partial rotary']:.3g} rad per position) and {p_rope:,.4g} under p-RoPE "
                f"(ω = {slow['p-RoPE']:.3g}); RoPE's own slowest is {info['RoPE'].longest_wavelength:,.0f}. "
                "The highest point of each line in the chart below.")

    return classroom.predict(
        "fewer_same", f"Partial rotary and p-RoPE both rotate a fraction {fraction:g} of the head. "
                      "How do the speeds of their turning dimensions compare?",
                      ["the same: the same fraction gives the same frequencies",
                       "partial rotary still reaches RoPE's slowest speed, p-RoPE keeps only the fastest",
                       "p-RoPE keeps the slowest speeds, partial rotary the fastest"], answer, reveal)


# --- drope ---


def result_code(wanted, shipped_run: bool) -> str:
    """The line that gives the snippet the run the page shows: the shipped file, or the same live call."""
    if shipped_run:
        return "result = pc.todays_models.shipped_drope_result()  # the shipped run, package data"
    steps, recalibration, seed = wanted
    return (f"result = {classroom.call('drope_experiment', steps=steps, recalibration=recalibration, seed=seed)}"
            "  # about a minute on CPU")


def ask_dropped(acc: dict, t: int) -> contextlib.AbstractContextManager:
    """Predict: a trained RoPE model with its rotations removed, before any recalibration, at length T."""
    drop = acc["rope"][0] - acc["dropped"][0]
    answer = 1 if drop > 0.05 else 2 if drop < -0.05 else 0

    def reveal() -> str:
        return (f"At T = {t} the RoPE model scores {acc['rope'][0]:.0%} and the same weights without rotations "
                f"{acc['dropped'][0]:.0%} (the leftmost points of the first two lines below).")

    return classroom.predict("drope_dropped", f"Take the trained RoPE model and remove every rotation, with no further "
                      f"training. At its training length T = {t}, its accuracy...",
                      ["it stays about the same", "it falls", "it rises"], answer, reveal)


# --- cope ---


def example_code(text: str, unit: str, target: int, sharpness: float, *lines: str) -> None:
    """A snippet that rebuilds the counting example the CoPE figures draw, then ``lines`` reading from it."""
    classroom.snippet(f"ex = {classroom.call('cope_counting_example', text, unit, target, sharpness)}", *lines)


def ask_how_many(ex: dict, unit: str, target: int) -> contextlib.AbstractContextManager:
    """Predict: how many keys share the position the query asks for?"""
    found = ex.found
    answer = 0 if found == 1 else 1 if found > 1 else 2

    def reveal() -> str:
        keys = [t for t, hit in zip(ex.tokens, ex.at_target, strict=True) if hit]
        return (f"Counting {unit}, {found} key{'s sit' if found != 1 else ' sits'} at position {target}"
                + (f" ({' '.join(keys)}), and together they get {ex.target_mass:.1%} of the attention."
                   if found else ": the text is too short to reach it."))

    return classroom.predict("cope_how_many", f"The query asks for position {target}, counting {unit}. How many keys "
                      "sit at that position?", ["exactly one", "several: a whole unit shares one position",
                                                "none"], answer, reveal)

