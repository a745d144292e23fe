"""What the sentence lessons (FoX, stick-breaking, PaTH) share: the default sentence and their snippet's first line."""

from __future__ import annotations

from page_kit import classroom, controls

# One sentence for all three, so their figures compare word for word.
SENTENCE = "the cat sat on the warm mat and then the old dog slept by the door"


def sentence_snippet(function: str, args: tuple, *lines: str, **kwargs) -> None:
    """A snippet that rebuilds the page's example (``ex = pc.<function>(*args, **kwargs)``), then ``lines``."""
    classroom.snippet(f"ex = {classroom.call(function, *args, **kwargs)}", *lines)


def sentence_control() -> str:
    """The sentence box (URL key ``text``), the same on the three pages."""
    return controls.text("Sentence", "text", SENTENCE, max_chars=300, help="Words split on spaces, at most 64.")
