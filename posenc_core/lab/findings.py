"""What the lab's page states about a run: the scores at one test length, the two predict questions' numbers, the
training schedule. Each takes a result of ``run_lab`` (or ``shipped_lab_results``), so the page only formats."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._checks import as_choice, as_float
from .results import lab_series, uniform_guess_loss
from .train import LabResult, warmup_steps

__all__ = [
    "LONGEST_CANDIDATES",
    "InterpolationQuestion",
    "LongestQuestion",
    "Schedule",
    "lab_by_method",
    "lab_interpolation_question",
    "lab_longest_question",
    "lab_schedule",
    "lab_scores_at",
]

# the trained models a student is most likely to expect to extrapolate, in the order they are offered
LONGEST_CANDIDATES = ("sinusoidal", "rope", "alibi", "t5", "none")


@dataclass(frozen=True)
class LongestQuestion:
    """Which trained model keeps the highest accuracy at the longest test length (``lab_longest_question``).

    names: the options' method names, in ``LONGEST_CANDIDATES`` order. best: the right one.
    accuracy: {name: its accuracy at the longest length}. length: that length (tokens).
    """

    names: list[str]
    best: str
    accuracy: dict[str, float]
    length: int


Side = Literal[0, 1, 2]  # below the band, in it ("about guessing"), above it


@dataclass(frozen=True)
class InterpolationQuestion:
    """RoPE + position interpolation's test loss at 2T against a uniform guess (``lab_interpolation_question``).

    loss: its test loss at 2T, nats. guess: ln vocab, the uniform guess's loss. low, high: the band "about
    guessing" (``low`` and ``high`` times the guess). side: 0 below the band, 1 in it, 2 above.
    length: 2T. factor: 2T / T, what every frequency is divided by. vocab: the number of symbols.
    """

    loss: float
    guess: float
    low: float
    high: float
    vocab: int
    side: Side
    length: int
    factor: float


@dataclass(frozen=True)
class Schedule:
    """The training settings of a lab result (``lab_schedule``), zeros when it has none.

    lr: AdamW's peak learning rate. steps: optimiser steps per model. warmup: the warmup steps. batch: training
    sequences per step.
    """

    lr: float
    steps: int
    warmup: int
    batch: int


def lab_by_method(result: LabResult, metric: str = "accuracy") -> dict[str, np.ndarray]:
    """{method name: (test lengths,) values} for ``metric`` "accuracy" or "loss"; NaN where a method cannot run."""
    _, series = lab_series(result, metric)  # keyed by label, in the result's method order
    return dict(zip(result.methods, series.values(), strict=True))


def lab_scores_at(result: LabResult, metric: str = "accuracy", length: str = "T") -> dict[str, float]:
    """{method label: value} at the training length ("T") or the longest test length ("longest"), leaving out the
    methods that cannot run there."""
    index = {"T": 0, "longest": -1}[as_choice("length", length, ("T", "longest"))]
    _, series = lab_series(result, metric)
    return {label: float(v[index]) for label, v in series.items() if np.isfinite(v[index])}


def lab_longest_question(result: LabResult, candidates: Sequence[str] = LONGEST_CANDIDATES,
                         margin: float = 0.01) -> LongestQuestion | None:
    """Which trained model keeps the highest accuracy at the longest test length? Asked (not None) only when one
    model is ahead by more than ``margin`` of at least one other, so that exactly one option is right; at most
    three others join the best."""
    margin = as_float("margin", margin, minimum=0.0, maximum=1.0)
    accuracy = {n: float(v[-1]) for n, v in lab_by_method(result, "accuracy").items()
                if n in candidates and np.isfinite(v[-1])}
    if len(accuracy) < 2:
        return None
    best = max(accuracy, key=accuracy.__getitem__)
    others = [n for n in candidates if n in accuracy and accuracy[n] < accuracy[best] - margin][:3]
    if not others:
        return None
    names = [n for n in candidates if n == best or n in others]
    return LongestQuestion(names=names, best=best, accuracy={n: accuracy[n] for n in names},
                           length=int(result.eval_lengths[-1]))


def lab_interpolation_question(result: LabResult, low: float = 0.8, high: float = 1.25) -> InterpolationQuestion | None:
    """RoPE + position interpolation's test loss at 2T against a uniform guess (None when it was not run)."""
    low = as_float("low", low, above=0.0)
    high = as_float("high", high, minimum=low)
    loss = lab_by_method(result, "loss")
    if "rope_pi" not in loss:
        return None
    vocab = int(result.task.vocab)
    value, guess = float(loss["rope_pi"][1]), uniform_guess_loss(vocab)
    length = int(result.eval_lengths[1])
    side: Side = 0 if value < low * guess else 1 if value <= high * guess else 2
    return InterpolationQuestion(loss=value, guess=guess, low=low * guess, high=high * guess, vocab=vocab,
                                 side=side, length=length, factor=length / int(result.train_len))


def lab_schedule(result: LabResult) -> Schedule:
    """The training settings of ``result`` (zeros when it has none)."""
    settings = result.task.settings
    steps = int(settings.get("steps", 0))
    return Schedule(lr=float(settings.get("lr", 0.0)), steps=steps, warmup=warmup_steps(steps) if steps else 0,
                    batch=int(settings.get("batch", 0)))
