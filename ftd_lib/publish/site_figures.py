"""The website's figures on a phone and a slow link, set once Sphinx has written the pages.

A notebook figure is drawn 9-14 inches wide at 135 dpi (1,215-1,890 px) with its smallest
text at 13 pt, 24 px at its natural size. A phone's 358 px column shrinks it to a fifth or a
quarter: 4.5-7 px text that cannot be read. The page's script (``site_static/ftd-site.js``,
``readableFigures``) shows such a figure wide enough for its smallest text to be
:data:`MIN_PHONE_TEXT_PX` CSS pixels, in a box that scrolls sideways, with a line under it that
says so; for that it needs each picture's smallest text and dpi, which the notebooks' kernels
record (:mod:`ftd_lib.figure_text`, through :func:`ftd_lib.publish.figure_alt.install`) and
:func:`ftd_lib.publish.figure_alt.setup` puts in a class (:data:`~ftd_lib.publish.figure_alt.
TEXT_CLASS`). :func:`figures_page` writes that class out as the attributes the decks use
(``data-ftd-text-pt``, ``data-ftd-dpi``), gives every picture its size (``width``/``height``:
the page keeps its place while pictures arrive) and lets the browser load a figure only when the
reader nears it (``loading="lazy"``): on a slow link the pictures further down no longer share
it with the page's MathJax.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

#: the smallest figure text a phone's page shows, in CSS pixels: iOS's smallest text style
#: (11 pt, one CSS pixel a point). ftd-site.js has the same number; tests/publish/
#: test_site_browser.py measures every figure of the site against this one
MIN_PHONE_TEXT_PX = 11.0
#: at most this wide a column counts as a phone's (ftd-site.js: ``PHONE``)
PHONE_MAX_PX = 760

IMG = re.compile(r"<img\b[^>]*>")
TEXT_CLASS = re.compile(r"\bftd-text-(\d+(?:_\d+)?)pt-(\d+(?:_\d+)?)dpi\b")


def png_size(path: Path) -> tuple[int, int] | None:
    """A PNG file's width and height in pixels (its IHDR chunk), or None for anything else."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def _attr(tag: str, name: str) -> str | None:
    m = re.search(rf'\s{name}="([^"]*)"', tag)
    return m.group(1) if m else None


def figure_tag(tag: str, folder: Path) -> str:
    """One ``<img>`` tag of a page in ``folder``: its text-size class as ``data-ftd-text-pt``
    and ``data-ftd-dpi``; a local PNG's ``width`` and ``height``; ``loading="lazy"`` and
    ``decoding="async"`` (unless it says otherwise)."""
    m = TEXT_CLASS.search(tag)
    if m and "data-ftd-text-pt" not in tag:
        pt, dpi = (g.replace("_", ".") for g in m.groups())
        tag = TEXT_CLASS.sub("", tag, count=1).replace(' class=" ', ' class="').replace(
            ' class=""', "")
        tag = re.sub(r"\s*/?>$", f' data-ftd-text-pt="{pt}" data-ftd-dpi="{dpi}">', tag)
    src = _attr(tag, "src") or ""
    if src.endswith(".png") and "://" not in src and _attr(tag, "width") is None:
        size = png_size(folder / src)
        if size:
            tag = re.sub(r"\s*/?>$", f' width="{size[0]}" height="{size[1]}">', tag)
    for name, value in (("loading", "lazy"), ("decoding", "async")):
        if _attr(tag, name) is None:
            tag = re.sub(r"\s*/?>$", f' {name}="{value}">', tag)
    return tag


def figures_page(text: str, folder: Path) -> str:
    """:func:`figure_tag` on every picture of a page's HTML (``folder``: where the page is)."""
    return IMG.sub(lambda m: figure_tag(m.group(0), folder), text)


def figures(html_dir) -> int:
    """:func:`figures_page` on every page Sphinx wrote under ``html_dir`` (not the decks or the
    theme's files); returns how many pages changed."""
    from .landing import DECKS
    from .page_weight import edit_pages

    html_dir = Path(html_dir)
    return edit_pages(html_dir, lambda text, rel: figures_page(text, (html_dir / rel).parent),
                      skip=("_static", DECKS))
