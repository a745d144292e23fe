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
        "Images and coordinates",
        "The same sine waves that number tokens can number image patches on a grid, survive a change of "
        "resolution, and turn raw coordinates into detail a small network can learn.",
        (
            PageInfo("pages/patches.py", "2D sin-cos for image patches", "patches", ":material/grid_on:",
                     "MAE's 2D code for a grid of patches: each patch's similarity map, all of them at once "
                     "as in the ViT paper, and what flattening the grid to 1D loses."),
            PageInfo("pages/resize.py", "Resizing a position grid", "resize",
                     ":material/photo_size_select_large:",
                     "Fine-tuning a ViT at a higher resolution: timm's bicubic resize of the position grid, "
                     "with the [CLS] token kept aside, against bilinear and nearest."),
            PageInfo("pages/fourier.py", "Fourier features and NeRF", "fourier", ":material/blur_on:",
                     "A small network fits a signal and an image from raw coordinates, NeRF's encoding and "
                     "random Fourier features: spectral bias, sigma's trade-off, and the duality with "
                     "the Transformer's table."),
        ),
    ),
)


def all_pages() -> list[PageInfo]:
    return [HOME] + [page for section in SECTIONS for page in section.pages]
