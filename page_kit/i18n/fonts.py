"""The Chinese glyphs the app serves (devtools/cjk_font.py makes them): which characters, and the files.

.streamlit/config.toml adds them to the page's font after Source Sans (``theme.font``, ``theme.fontFaces``) for the
CJK blocks, so a browser fetches a file only when a Chinese character is on screen; the figures name the same
family after Source Sans (page_kit/figures/theme.FONT_FAMILY)."""

from __future__ import annotations

from pathlib import Path

from page_kit.i18n.catalogues import po_path
from page_kit.i18n.languages import LANGUAGES, Language

ROOT = Path(__file__).resolve().parents[2]
FONTS = ROOT / "static" / "fonts"  # served at app/static/fonts/ (server.enableStaticServing)
FACES = {400: "noto-sans-sc-400.woff2", 700: "noto-sans-sc-700.woff2"}
FAMILY = "Noto Sans SC"  # after Source Sans in the page's font (.streamlit/config.toml) and the figures'
# CJK punctuation, full-width forms and the ideographs: what the Chinese face draws, whatever Source Sans has
CJK_BLOCKS = ((0x3000, 0x303F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF))


def is_cjk(char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in CJK_BLOCKS)


def _chinese() -> Language:
    return next(language for language in LANGUAGES if language.catalogue == "zh_CN")


def characters() -> set[str]:
    """Every CJK character a Chinese reader can meet: the catalogue's translations and every language's own name."""
    from babel.messages.pofile import read_po

    with po_path(_chinese()).open("rb") as po:
        catalogue = read_po(po, locale="zh_CN")
    texts = [s for m in catalogue for s in ([m.string] if isinstance(m.string, str) else list(m.string or ()))]
    texts += [language.name for language in LANGUAGES]
    return {char for text in texts for char in text if is_cjk(char)}
