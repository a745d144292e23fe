"""The Chinese glyphs the app serves: Noto Sans CJK SC cut down to the characters its catalogues use.

    python -m devtools.cjk_font    # after a change to locales/zh_CN (tests/test_cjk_font.py says when)

A reader's browser draws Chinese with whatever font it has; a classroom's Linux laptop or a phone without CJK
fonts would draw boxes. So the app serves the glyphs itself, as "Noto Sans SC" limited by ``unicode-range`` to the
CJK blocks: the browser fetches a file only when a Chinese character is on screen. The page's font names it after
Source Sans (.streamlit/config.toml), and so do the figures (page_kit/figures/theme.FONT_FAMILY); Latin text keeps
Source Sans. The source is Debian's fonts-noto-cjk (SIL Open Font License 1.1); the cut is fontTools' subsetter,
written as WOFF2 into static/fonts/ (served at app/static/fonts/).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from page_kit.i18n.fonts import FACES, FONTS, characters  # noqa: E402

SOURCES = {400: Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
           700: Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")}
FAMILY = "Noto Sans CJK SC"


def _face_index(collection: Path) -> int:
    """The Simplified Chinese face of a Noto CJK collection (its faces are JP, KR, SC, TC, HK in some order)."""
    from fontTools.ttLib import TTCollection

    for index, font in enumerate(TTCollection(str(collection)).fonts):
        if font["name"].getDebugName(1) == FAMILY:
            return index
    raise SystemExit(f"{collection} holds no {FAMILY!r} face")


def main() -> int:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    wanted = characters()
    FONTS.mkdir(parents=True, exist_ok=True)
    for weight, file in FACES.items():
        source = SOURCES[weight]
        if not source.is_file():
            raise SystemExit(f"{source} is missing: apt-get install fonts-noto-cjk")
        font = TTFont(str(source), fontNumber=_face_index(source))
        options = subset.Options()
        options.flavor = "woff2"
        options.layout_features = ["*"]  # vertical forms and punctuation spacing stay as the font designs them
        options.name_IDs = ["*"]  # the licence and the font's names travel with it
        options.notdef_outline = True
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(map(ord, wanted)))
        subsetter.subset(font)
        font.flavor = "woff2"
        font.save(str(FONTS / file))
        print(f"{file}: {len(wanted)} characters, {(FONTS / file).stat().st_size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
