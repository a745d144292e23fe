"""One checkpoint question (``page_kit.lesson.checkpoints``), in its own module so that each section's module can
build its questions without importing the assembled checkpoints."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class CheckpointQuestion:
    """key: stable id (``cp_<section>_<word>``); question: one or two sentences (plain markdown, no heading);
    options: two to four short answers; answer: the right option's index; why: the explanation shown once
    answered; lesson: the url_path to revisit when wrong; check: computes ``answer`` from the core, or None when
    the question states no number."""

    key: str
    question: str
    options: tuple[str, ...]
    answer: int
    why: str
    lesson: str
    check: Callable[[], int] | None = None
