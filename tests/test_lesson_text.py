"""What the lessons say, checked in their source: no page refers to notes the reader has never seen."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTES = re.compile(r"\b(source|course|our|lecture|private) notes?\b|\bone of the notes\b|\bthe seed notes?\b", re.I)
SOURCES = sorted([*ROOT.glob("lessons/**/*.py"), *ROOT.glob("page_kit/*.py"), ROOT / "app.py"])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_lesson_mentions_notes_the_reader_cannot_see(path):
    # corrections of common mistakes are phrased as "a common misconception is ...", never as "our notes say"
    text = " ".join(path.read_text().split())  # sentences wrap across source lines
    found = NOTES.search(text.replace('" "', " "))
    assert found is None, f"{path.name} mentions {found.group(0)!r}"


def test_the_pattern_catches_what_it_is_for():
    assert NOTES.search("One of our source notes lists 1/2 ... 1/2^16")
    assert NOTES.search("one course note says it works")
    assert NOTES.search("one of the notes writes")
    assert NOTES.search("Note that theta_i uses r, not d") is None
