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
        "Long context",
        "A RoPE model trained on L tokens meets angles it never saw when run on more. Context-extension "
        "methods decide which rotary pairs to slow down, and by how much.",
        (
            PageInfo("pages/context_extension.py", "Extending RoPE's context", "extension", ":material/expand:",
                     "Position interpolation, NTK-aware, dynamic NTK, YaRN, Llama 3 and LongRoPE, pair by pair: "
                     "wavelengths, the new/old ratio, angles out of distribution, attention factor."),
            PageInfo("pages/extension_compare.py", "Compare extension methods", "extension-compare",
                     ":material/compare_arrows:",
                     "Several methods overlaid for the same L, L' and head_dim."),
            PageInfo("pages/model_configs.py", "Model presets and config.json", "model-configs",
                     ":material/data_object:",
                     "The RoPE settings of well-known models, cited to their configs, or your own config.json: "
                     "what was read, and everything drawn for it."),
        ),
    ),
)


def all_pages() -> list[PageInfo]:
    return [HOME] + [page for section in SECTIONS for page in section.pages]
