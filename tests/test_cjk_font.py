"""The Chinese glyphs the app serves hold every character a Chinese reader can meet, and the page's font and the
figures' name them after Source Sans (page_kit/i18n/fonts.py; devtools/cjk_font.py cuts them)."""

import pytest
import tomllib

from page_kit.figures import theme
from page_kit.i18n import fonts
from tests.conftest import ROOT

pytest.importorskip("fontTools")
pytest.importorskip("brotli")  # WOFF2


@pytest.mark.parametrize("weight", sorted(fonts.FACES))
def test_the_served_glyphs_hold_every_character_of_the_chinese_catalogue(weight):
    from fontTools.ttLib import TTFont

    held = {chr(code) for code in TTFont(str(fonts.FONTS / fonts.FACES[weight])).getBestCmap()}
    missing = sorted(fonts.characters() - held)
    assert not missing, (f"{fonts.FACES[weight]} lacks {len(missing)} characters the Chinese catalogue uses, e.g. "
                         f"{''.join(missing[:20])}: run python -m devtools.cjk_font")


def test_the_page_and_the_figures_use_them_after_source_sans():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]
    assert [name.strip() for name in config["font"].split(",")][:2] == ["Source Sans", fonts.FAMILY]
    faces = config["fontFaces"]
    assert {face["family"] for face in faces} == {fonts.FAMILY}
    assert sorted(face["url"] for face in faces) == sorted(f"app/static/fonts/{f}" for f in fonts.FACES.values())
    blocks = ", ".join(f"U+{low:X}-{high:X}" for low, high in fonts.CJK_BLOCKS)
    assert all(face["unicodeRange"] == blocks for face in faces)
    assert [name.strip().strip('"') for name in theme.FONT_FAMILY.split(",")][:2] == ["Source Sans", fonts.FAMILY]
