"""What a page of the website costs a reader on a slow link, cut once Sphinx has written it.

The theme loads Font Awesome twice: ``_static/scripts/fontawesome.js`` (1.56 MB, 542 KB
gzipped: an SVG-injecting copy of every icon) and the webfont its stylesheet names
(``fa-solid-900.woff2``, 115 KB). The script was the largest thing on every page (44–59 % of a
notebook page's gzipped first visit) and shared a slow link with MathJax, so the raw TeX of the
page stayed on screen until both had arrived. :func:`lighten` drops the script (the icons are
drawn by the webfont the theme's stylesheet already loads) and asks the browser for MathJax's
commonest fonts at once (``<link rel="preload">``), instead of when MathJax first typesets.

MathJax itself (``tex-chtml.js``, 264 KB gzipped) is a deferred script, which Chromium fetches at
low priority: on slow 4G it arrived last of the page's scripts, after the stylesheets, the
search index and the figures, and the page showed raw TeX until then. The first tags of the head
now ask for it at high priority (``<link rel="preload" as="script" fetchpriority="high">``, the
same address, so the script tag reuses it) and for its fonts, before the stylesheets. Sharing
the link with it would have delayed the first paint (by 0.6 s on slow 4G), so the scripts that
blocked the parser without need are deferred on every page but the search page: the search
scripts (``searchtools.js``, ``language_data.js``, ``searchindex.js``: 26 KB gzipped, used
only by the search page), Sphinx's ``doctools.js`` and ``sphinx_highlight.js``, and the site's
own. ``scripts/measure_site_slow4g.py`` measures first paint and the time to typeset, before
and after. The icon fonts keep only the icons the site shows (:mod:`ftd_lib.publish.icon_font`:
the solid one 115 KB → 3 KB).
"""

from __future__ import annotations

import re
from pathlib import Path

#: the theme's icon script, as its template writes it (with a ``?digest=`` query)
ICON_SCRIPT = re.compile(r'<script[^>]*\bsrc="(?:[^"]*/)?_static/scripts/fontawesome\.js'
                         r'[^"]*"[^>]*>\s*</script>\s*')
#: MathJax 3's fonts that every page's inline math uses (CHTML, ``site_static/mathjax3``)
MATHJAX_FONTS = ("MathJax_Main-Regular.woff", "MathJax_Math-Italic.woff", "MathJax_Zero.woff")
#: MathJax's script tag, as Sphinx writes it (its address: the preload must name the same one)
MATHJAX_SCRIPT = re.compile(r'<script\b[^>]*\bsrc="([^"]*_static/mathjax3/tex-chtml\.js[^"]*)"')


def _blocking(*names: str):
    """The parser-blocking ``<script src>`` tags of ``names`` (paths under the site's root),
    from a page at any depth, with or without a ``?v=`` query."""
    alt = "|".join(re.escape(n) for n in names)
    return re.compile(rf'<script src="((?:\.\./)*(?:{alt})(?:\?[^"]*)?)"></script>')


#: scripts every page can run after it is parsed: the site's own (they wait for the document
#: anyway) and Sphinx's helpers (``documentation_options.js`` stays: the head's inline scripts
#: use it)
DEFERRABLE = _blocking("_static/ftd-site.js", "_static/ftd-static-explorer.js",
                       "_static/doctools.js", "_static/sphinx_highlight.js")
#: the search page's scripts, which Sphinx's layout loads on every page (searchtools needs
#: doctools first: deferred scripts keep their order)
SEARCH_SCRIPT = _blocking("_static/searchtools.js", "_static/language_data.js",
                          "searchindex.js")
#: where the early requests go: after the head's charset, else after its opening tag
HEAD_START = (re.compile(r'<meta charset="[^"]*"\s*/?>'), re.compile(r"<head\b[^>]*>"))
FONT_DIR = "_static/mathjax3/output/chtml/fonts/woff-v2"
#: where those fonts are in the package (``site_static/``, copied to the site's ``_static/``)
REPO_FONTS = Path(__file__).with_name("site_static") / FONT_DIR.split("/", 1)[1]


def preload_links(prefix: str) -> str:
    """The ``<link rel="preload">`` tags of :data:`MATHJAX_FONTS` for a page whose ``_static``
    is at ``prefix`` (``""`` or ``"../"``)."""
    return "".join(f'<link rel="preload" href="{prefix}{FONT_DIR}/{name}" as="font" '
                   f'type="font/woff" crossorigin>\n' for name in MATHJAX_FONTS)


def lighten_page(text: str, prefix: str, *, search_page: bool = False) -> str:
    """A page's HTML without the icon script; MathJax's script (at high priority) and its
    fonts asked for first thing in the head (once); unless it is the search page, the
    scripts that need not block its first paint deferred (:data:`DEFERRABLE`,
    :data:`SEARCH_SCRIPT`)."""
    text = ICON_SCRIPT.sub("", text)
    script = MATHJAX_SCRIPT.search(text)
    start = HEAD_START[0].search(text) or HEAD_START[1].search(text)
    if script and start and MATHJAX_FONTS[0] not in text:
        early = (f'\n<link rel="preload" href="{script.group(1)}" as="script" '
                 f'fetchpriority="high">\n' + preload_links(prefix))
        text = text[:start.end()] + early + text[start.end():]
    if not search_page:  # the search page runs its search as soon as it is parsed
        for scripts in (DEFERRABLE, SEARCH_SCRIPT):
            text = scripts.sub(r'<script defer src="\1"></script>', text)
    return text


def edit_pages(html_dir, edit, skip=("_static",)) -> int:
    """Rewrite every page under ``html_dir`` (not under a top folder of ``skip``) as
    ``edit(text, rel)`` returns it (``rel``: its path under ``html_dir``); returns how many
    pages changed. The site's steps after Sphinx (this module's, :mod:`~ftd_lib.publish.
    site_figures`', :func:`ftd_lib.publish.site_conf.tidy`) go through it."""
    html_dir = Path(html_dir)
    changed = 0
    for path in html_dir.rglob("*.html"):
        rel = path.relative_to(html_dir)
        if rel.parts[0] in skip:
            continue
        text = path.read_text(encoding="utf-8")
        new = edit(text, rel)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def lighten(html_dir) -> dict:
    """:func:`lighten_page` on every page Sphinx wrote under ``html_dir`` (not the decks or
    handouts it copied), the icon script's files removed, and the icon fonts cut to the icons
    the site shows (:func:`ftd_lib.publish.icon_font.subset`). ``{"pages": n, "bytes_saved":
    b, "icon_fonts": ...}``: the pages changed, the bytes of the files removed, and each icon
    font's bytes before and after."""
    from . import icon_font

    html_dir = Path(html_dir)
    pages = edit_pages(html_dir, lambda text, rel: lighten_page(
        text, "../" * (len(rel.parts) - 1), search_page=rel.as_posix() == "search.html"))
    saved = 0
    for f in (html_dir / "_static" / "scripts").glob("fontawesome.js*"):
        saved += f.stat().st_size
        f.unlink()
    return {"pages": pages, "bytes_saved": saved, "icon_fonts": icon_font.subset(html_dir)}
