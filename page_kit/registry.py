"""Every page of the app, in teaching order. app.py builds the navigation from this list, the home
page tells the story from it, and the page tests iterate over it, so a new page is registered once."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    path: str  # relative to the repository root
    title: str
    url_path: str  # stable: links shared by teachers depend on it
    icon: str
    summary: str


@dataclass(frozen=True)
class Section:
    title: str
    story: str  # one or two sentences that place the section in the story
    pages: tuple[PageInfo, ...]


HOME = PageInfo("pages/home.py", "Home", "home", ":material/home:", "The story of positional encodings.")

SECTIONS: tuple[Section, ...] = (
    Section(
        "Absolute encodings",
        "Attention alone treats its input as a bag of tokens. The first fix gives every position its own "
        "vector and adds it to the token embedding.",
        (
            PageInfo("pages/sinusoidal.py", "Sinusoidal encoding", "sinusoidal", ":material/waves:",
                     "The fixed sine/cosine table of the original Transformer: its wavelengths, why its dot "
                     "products depend only on the offset, and the linear map that shifts a position."),
        ),
    ),
    Section(
        "Lab",
        "Claims about extrapolation are easy to make and easy to test: train tiny models that differ only in "
        "their positional encoding and measure them beyond the length they were trained on.",
        (
            PageInfo("pages/lab.py", "Extrapolation lab", "lab", ":material/science:",
                     "One tiny transformer per encoding trained at length T and tested at 2T, 4T and 8T, with "
                     "RoPE's context-extension rules at test time: accuracy, loss and attention maps."),
        ),
    ),
)


def all_pages() -> list[PageInfo]:
    return [HOME] + [page for section in SECTIONS for page in section.pages]
