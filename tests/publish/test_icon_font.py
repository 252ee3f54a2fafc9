"""The icon fonts cut to the icons the site shows (ftd_lib/publish/icon_font.py): what it reads
from stylesheets, pages and scripts, on small examples written here; and the theme's real solid
font cut, every kept glyph drawn the same as in the whole font, every other one gone. The built
site's every drawn icon is checked in the browser (test_site_browser.py)."""

import shutil
from pathlib import Path

import pytest

from ftd_lib.publish import icon_font

pytestmark = pytest.mark.slow  # the site's role: the theme's fonts, fontTools with brotli

CSS = ('.fa-bars,.fa-navicon{--fa:"\\f0c9"}.fa-xmark{--fa:"\\f00d"}.fa-rocket{--fa:"\\f135"}'
       '.fa-moon{--fa:"\\f186"}.fa-lg{font-size:1.25em}'
       ':root{--pst-icon-info:"\uf05a";--pst-icon-esc:"\\f058";--not-an-icon:"\\00e9"}'
       '@media (min-width:960px){.x:before{content:"\\f104"}}')


def _site(tmp_path) -> Path:
    site = tmp_path / "html"
    (site / "_static" / "styles").mkdir(parents=True)
    (site / "_static" / "styles" / "theme.css").write_text(CSS)
    (site / "index.html").write_text('<i class="fa-solid fa-bars fa-lg"></i>')
    (site / "_static" / "theme.js").write_text('b.className = "fa-solid fa-xmark";')
    (site / "slides").mkdir()
    (site / "slides" / "lecture1.html").write_text('<i class="fa-moon"></i>')  # a deck's own
    return site


def test_the_class_table_and_the_stylesheets_own_icons():
    table = icon_font.icon_table(CSS)
    assert table == {"fa-bars": 0xF0C9, "fa-navicon": 0xF0C9, "fa-xmark": 0xF00D,
                     "fa-rocket": 0xF135, "fa-moon": 0xF186}
    # outside the table: the character itself, an escape, inside @media; é is no icon
    assert icon_font.css_codepoints(CSS) == {0xF05A, 0xF058, 0xF104}


def test_needed_reads_pages_and_scripts_but_not_the_decks(tmp_path):
    # fa-bars from the page, fa-xmark from the script; fa-rocket named nowhere, fa-moon only
    # by a lecture deck (which loads no theme)
    assert icon_font.needed(_site(tmp_path)) == {0xF0C9, 0xF00D, 0xF05A, 0xF058, 0xF104}


def test_the_real_solid_font_keeps_exactly_the_icons_asked_for_drawn_the_same(tmp_path):
    from fontTools.pens.recordingPen import RecordingPen
    from fontTools.ttLib import TTFont

    theme = pytest.importorskip("pydata_sphinx_theme")
    src = next(Path(theme.__file__).parent.rglob("fa-solid-900.woff2"))
    path = tmp_path / src.name
    shutil.copy2(src, path)
    whole = TTFont(src)
    asked = {0xF0C9, 0xF00D, 0xF135, 0xE000 + 0x7FF}  # the last is in no font
    before, after = icon_font.subset_font(path, asked)
    assert before == src.stat().st_size and after == path.stat().st_size
    assert after < before / 10
    cut = TTFont(path)
    assert cut.flavor == "woff2"
    assert set(cut.getBestCmap()) == asked & set(whole.getBestCmap()) == asked - {0xE7FF}

    def drawn(font, cp):
        pen = RecordingPen()
        glyphs = font.getGlyphSet()
        glyphs[font.getBestCmap()[cp]].draw(pen)
        return pen.value, glyphs[font.getBestCmap()[cp]].width

    for cp in asked - {0xE7FF}:
        assert drawn(cut, cp) == drawn(whole, cp), hex(cp)
    # the font's names and licence kept
    assert cut["name"].getDebugName(1) == whole["name"].getDebugName(1)
