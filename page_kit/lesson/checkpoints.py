"""Each section's checkpoint: a handful of questions drawn from its lessons, answered on the checkpoint page.

``CHECKPOINTS`` maps a section's key (``registry.Section.key``, its folder) to its questions, in the order they are
asked. A question's key is stable (a learner's saved progress names it) and starts with ``cp_``; its wrong
options' misconceptions sit in ``misconceptions.MISCONCEPTIONS`` under the same key, in the wording the live
class's results use. ``lesson`` is the url_path of the lesson to revisit when the answer is wrong. A question
whose right option depends on a number names a ``check`` that computes the right option's index from
``posenc_core``; the tests run it, so the text and the code cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

KEY_PREFIX = "cp_"


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


CHECKPOINTS: dict[str, tuple[CheckpointQuestion, ...]] = {}


def questions(section: str) -> tuple[CheckpointQuestion, ...]:
    """The checkpoint of section ``section`` (its key); empty for a section without one."""
    return CHECKPOINTS.get(section, ())


def all_keys() -> list[str]:
    """Every checkpoint question's key, section by section."""
    return [q.key for qs in CHECKPOINTS.values() for q in qs]
