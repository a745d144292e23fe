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
        "Position as an attention bias",
        "Instead of changing the token vectors, position can act inside attention: a penalty or a learned "
        "number added to each query-key score, or a vector per relative distance. Or nothing at all.",
        (
            PageInfo("pages/alibi.py", "ALiBi", "alibi", ":material/trending_down:",
                     "A fixed linear penalty per head: the slopes (and where the code differs from the paper), "
                     "the attention a bias alone produces, and what happens past the training length."),
            PageInfo("pages/t5.py", "T5 relative buckets", "t5", ":material/view_week:",
                     "One learned number per distance bucket: exact near zero, logarithmic further out, and one "
                     "shared bucket for everything past max_distance."),
            PageInfo("pages/nope.py", "NoPE and the causal mask", "nope", ":material/block:",
                     "No encoding at all: with a causal mask, uniform attention is a running mean, so the "
                     "outputs still depend on position."),
            PageInfo("pages/shaw.py", "Relative positions in keys and values (Shaw)", "shaw", ":material/link:",
                     "A learned vector per clipped distance added to keys and values: the score splits into a "
                     "content and a relative term, and the key/value cache gets awkward."),
            PageInfo("pages/compare.py", "Compare all encodings", "compare", ":material/compare_arrows:",
                     "Every method in one table, and what each adds to a score as the distance grows, on "
                     "the same axes."),
        ),
    ),
)


def all_pages() -> list[PageInfo]:
    return [HOME] + [page for section in SECTIONS for page in section.pages]
