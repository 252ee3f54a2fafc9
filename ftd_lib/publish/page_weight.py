"""What a page of the website costs a reader on a slow link, cut once Sphinx has written it.

The theme loads Font Awesome twice: ``_static/scripts/fontawesome.js`` (1.56 MB, 542 KB
gzipped: an SVG-injecting copy of every icon) and the webfont its stylesheet names
(``fa-solid-900.woff2``, 115 KB). The script was the largest thing on every page (44–59 % of a
notebook page's gzipped first visit) and shared a slow link with MathJax, so the raw TeX of the
page stayed on screen until both had arrived. :func:`lighten` drops the script (the icons are
drawn by the webfont the theme's stylesheet already loads) and asks the browser for MathJax's two
commonest fonts at once (``<link rel="preload">``), instead of when MathJax first typesets.
"""

from __future__ import annotations

import re
from pathlib import Path

#: the theme's icon script, as its template writes it (with a ``?digest=`` query)
ICON_SCRIPT = re.compile(r'<script[^>]*\bsrc="(?:[^"]*/)?_static/scripts/fontawesome\.js'
                         r'[^"]*"[^>]*>\s*</script>\s*')
#: MathJax 3's fonts that every page's inline math uses (CHTML, ``site_static/mathjax3``)
MATHJAX_FONTS = ("MathJax_Main-Regular.woff", "MathJax_Math-Italic.woff")
FONT_DIR = "_static/mathjax3/output/chtml/fonts/woff-v2"
#: where those fonts are in the package (``site_static/``, copied to the site's ``_static/``)
REPO_FONTS = Path(__file__).with_name("site_static") / FONT_DIR.split("/", 1)[1]


def preload_links(prefix: str) -> str:
    """The ``<link rel="preload">`` tags of :data:`MATHJAX_FONTS` for a page whose ``_static``
    is at ``prefix`` (``""`` or ``"../"``)."""
    return "".join(f'<link rel="preload" href="{prefix}{FONT_DIR}/{name}" as="font" '
                   f'type="font/woff" crossorigin>\n' for name in MATHJAX_FONTS)


def lighten_page(text: str, prefix: str) -> str:
    """A page's HTML without the icon script and with the MathJax fonts preloaded (once)."""
    text = ICON_SCRIPT.sub("", text)
    if "_static/mathjax3/" in text and MATHJAX_FONTS[0] not in text and "</head>" in text:
        text = text.replace("</head>", preload_links(prefix) + "</head>", 1)
    return text


def lighten(html_dir) -> dict:
    """:func:`lighten_page` on every page Sphinx wrote under ``html_dir`` (not the decks or
    handouts it copied), and the icon script's files removed. ``{"pages": n, "bytes_saved": b}``:
    the pages changed and the bytes of the files removed."""
    html_dir = Path(html_dir)
    pages = 0
    for path in html_dir.rglob("*.html"):
        rel = path.relative_to(html_dir)
        if rel.parts[0] == "_static":
            continue
        text = path.read_text(encoding="utf-8")
        new = lighten_page(text, "../" * (len(rel.parts) - 1))
        if new != text:
            path.write_text(new, encoding="utf-8")
            pages += 1
    saved = 0
    for f in (html_dir / "_static" / "scripts").glob("fontawesome.js*"):
        saved += f.stat().st_size
        f.unlink()
    return {"pages": pages, "bytes_saved": saved}
