"""The theme's icon fonts cut to the icons the site shows.

The theme draws its icons (the menu, search, light/dark, launch and full-screen buttons, the
contents' arrows) with Font Awesome's webfonts, whose stylesheet maps each icon's class to a
code point (``.fa-bars{--fa:"\\f0c9"}``). The solid font alone is 115 KB, of which the site
shows about twenty glyphs; on a slow link it shared the first visit with MathJax. After Sphinx
has written the site, :func:`subset` keeps in every Font Awesome font only the code points the
site can show (:func:`needed`):

- the icon classes (``fa-…``) named by any page or script of the site, through the
  stylesheets' class table (:func:`icon_table`);
- every code point a stylesheet rule outside that table names itself (the theme's own
  ``--pst-icon-…`` icons: admonitions, external links).

The fonts keep their names and format (WOFF2, written by fontTools with ``brotli``), so the
stylesheets are unchanged. ``tests/publish/test_site_browser.py`` reads every icon the built
site draws, on every page at both widths, back from the browser and checks that its font still
has it.
"""

from __future__ import annotations

import re
from pathlib import Path

#: the stylesheets' class table: ``.fa-bars,.fa-navicon{--fa:"\f0c9"}``
TABLE_RULE = re.compile(r'((?:\.fa-[a-z0-9-]+\s*,?\s*)+)\{--fa:\s*"\\([0-9a-f]{4,5})"\s*;?\}')
#: a rule, innermost braces (an ``@media`` block's rules one by one)
RULE = re.compile(r"([^{}]*)\{([^{}]*)\}")
#: a code point written in a stylesheet's string: ``"\f0c9"``
CODEPOINT = re.compile(r'"\\([0-9a-f]{4,5})"')
#: a character of the private use area, where icon fonts put their glyphs
PRIVATE = re.compile("[\ue000-\uf8ff]")
#: an icon class in a page or a script
CLASS = re.compile(r"\bfa-[a-z0-9]+(?:-[a-z0-9]+)*")
#: where the theme's Font Awesome fonts are in the site
FONTS = "_static/vendor/fontawesome/webfonts"


def icon_table(css: str) -> dict[str, int]:
    """``{class: code point}`` of the stylesheet text ``css``'s icon classes."""
    out = {}
    for m in TABLE_RULE.finditer(css):
        for name in re.findall(r"\.(fa-[a-z0-9-]+)", m.group(1)):
            out[name] = int(m.group(2), 16)
    return out


def css_codepoints(css: str) -> set[int]:
    """The private-use code points (U+E000–U+F8FF) that rules of ``css`` other than the class
    table name themselves, escaped (``"\\f058"``) or as the character itself (the theme's
    ``--pst-icon-…`` variables)."""
    rest = TABLE_RULE.sub("", css)
    out = set()
    for m in RULE.finditer(rest):
        out |= {int(h, 16) for h in CODEPOINT.findall(m.group(2))}
        out |= {ord(ch) for ch in PRIVATE.findall(m.group(2))}
    return {cp for cp in out if 0xE000 <= cp <= 0xF8FF}


def _texts(html_dir: Path, pattern: str):
    """The texts of the files ``pattern`` under ``html_dir``, but the lecture decks' (their own
    reveal.js pages, which load no theme)."""
    from .landing import DECKS

    for path in sorted(html_dir.rglob(pattern)):
        if path.is_file() and path.relative_to(html_dir).parts[0] != DECKS:
            yield path.read_text(encoding="utf-8", errors="replace")


def needed(html_dir) -> set[int]:
    """The code points the site at ``html_dir`` can show: its pages' and scripts' icon classes
    through the class table, and what its stylesheets name outside it."""
    html_dir = Path(html_dir)
    css = "\n".join(_texts(html_dir / "_static", "*.css"))
    table = icon_table(css)
    classes = {c for pattern in ("*.html", "*.js") for text in _texts(html_dir, pattern)
               for c in CLASS.findall(text)}
    return {table[c] for c in classes if c in table} | css_codepoints(css)


def subset_font(path: Path, codepoints: set[int]) -> tuple[int, int]:
    """Keep in the WOFF2 font ``path`` only the glyphs of ``codepoints`` it has (rewritten in
    place); returns its ``(bytes before, bytes after)``."""
    from fontTools import subset as fts
    from fontTools.ttLib import TTFont

    before = path.stat().st_size
    font = TTFont(path)
    keep = sorted(set(font.getBestCmap()) & codepoints)
    opts = fts.Options()
    opts.flavor = "woff2"
    opts.layout_features = []
    opts.name_IDs = ["*"]  # the licence and the font's names stay
    opts.notdef_outline = True
    sub = fts.Subsetter(opts)
    sub.populate(unicodes=keep)
    sub.subset(font)
    font.flavor = "woff2"
    font.save(path)
    return before, path.stat().st_size


def subset(html_dir) -> dict:
    """Cut every Font Awesome font of the site at ``html_dir`` to :func:`needed`; returns
    ``{"codepoints": n, "fonts": {file: [bytes before, bytes after]}}``."""
    html_dir = Path(html_dir)
    keep = needed(html_dir)
    fonts = {p.name: list(subset_font(p, keep))
             for p in sorted((html_dir / FONTS).glob("fa-*.woff2"))}
    return {"codepoints": len(keep), "fonts": fonts}
