"""Each section's checkpoint: a handful of questions drawn from its lessons, answered on the checkpoint page.

``CHECKPOINTS`` maps a section's key (``registry.Section.key``, its folder) to its questions, in the order they are
asked; each section's questions live in ``checkpoint_questions/<key>.py``. A question's key is stable (a learner's
saved progress names it) and starts with ``cp_``; the beliefs behind its wrong options sit beside it (``BELIEFS``)
and join ``misconceptions.MISCONCEPTIONS`` under the same key, in the wording the live class's results use.
``lesson`` is the url_path of the lesson to revisit when the answer is wrong. A question whose right option
depends on a number names a ``check`` that computes the right option's index from ``posenc_core``; the tests run
it, so the text and the code cannot drift apart.
"""

from __future__ import annotations

from page_kit.lesson import checkpoint_questions
from page_kit.lesson.checkpoint_questions.question import CheckpointQuestion

KEY_PREFIX = "cp_"

# section key (its module's name) -> its questions; each section's questions live in checkpoint_questions/<key>.py
CHECKPOINTS: dict[str, tuple[CheckpointQuestion, ...]] = {
    module.__name__.rsplit(".", 1)[1]: module.QUESTIONS for module in checkpoint_questions.SECTIONS}


def questions(section: str) -> tuple[CheckpointQuestion, ...]:
    """The checkpoint of section ``section`` (its key); empty for a section without one."""
    return CHECKPOINTS.get(section, ())


def all_keys() -> list[str]:
    """Every checkpoint question's key, section by section."""
    return [q.key for qs in CHECKPOINTS.values() for q in qs]


def beliefs() -> dict[str, tuple[str | None, ...]]:
    """Every checkpoint question's beliefs, one per option (None at the right one), keyed as MISCONCEPTIONS is."""
    return {key: sentences for module in checkpoint_questions.SECTIONS for key, sentences in module.BELIEFS.items()}
