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
        "Rotary embeddings (RoPE)",
        "Instead of adding a vector, rotate the queries and keys by angles that grow with position. The "
        "score between two tokens then depends only on how far apart they are.",
        (
            PageInfo("pages/rope_rotation.py", "RoPE: one rotation", "rope", ":material/rotate_right:",
                     "One pair of numbers turned by mθ and nθ, the same thing as complex numbers, then every pair "
                     "at once: the angle table and each pair's wavelength against the context."),
            PageInfo("pages/rope_relative.py", "RoPE is relative, and decays", "rope-relative",
                     ":material/stacked_line_chart:",
                     "The score grid q_m·k_n is constant along its diagonals; RoFormer's decay bound next to the "
                     "mean |q·k| actually measured for random and for identical vectors."),
            PageInfo("pages/rope_variants.py", "RoPE layouts, partial rotary and precision", "rope-variants",
                     ":material/swap_horiz:",
                     "Half-split versus interleaved pairs, the weight permutation a checkpoint conversion needs, "
                     "GPT-NeoX's partial rotary, and how far bfloat16 or float16 angles drift at long positions."),
            PageInfo("pages/rope_model.py", "Where RoPE lives in a model", "rope-model", ":material/account_tree:",
                     "x → W_q, W_k → rotate q and k (never v) → scores, in every layer, with no parameters; what "
                     "that costs in a real model's config."),
        ),
    ),
)


def all_pages() -> list[PageInfo]:
    return [HOME] + [page for section in SECTIONS for page in section.pages]
