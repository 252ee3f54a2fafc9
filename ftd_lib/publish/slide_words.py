"""What a lecture hall sees: a notebook cut into the slides reveal.js projects, and the words on
each.

A projected slide is what RISE (and nbconvert's reveal.js exporter) shows at once: a cell whose
``slideshow.slide_type`` is ``slide`` or ``subslide`` opens one; ``fragment`` and ``-`` cells
(or cells with no type) continue it; ``skip`` and ``notes`` cells are not projected (``notes``
go to the speaker view). The first cell opens the first slide whatever its type.

Words on a slide (:func:`cell_words`), what a slide asks a room to read:

- markdown: the words of the text (tokens holding a letter or digit) after markdown syntax,
  HTML tags and comments are removed; the body of a closed ``<details>`` block is folded, so
  only its ``<summary>`` counts; an inline formula ``$...$`` is one word, a display formula
  one word per line; a listing (a fenced block, ``<pre>``) one word per line, like code;
- code, as the deck projects it (:func:`ftd_lib.publish.present.present`): one per non-blank
  source line only where the cell is tagged ``show-code`` (the ``# NBVAL_...`` test markers
  excepted); an exercise's answer cell, a hint and a worked solution put nothing on a slide;
- output: the words printed (stream text, ``text/markdown``, or ``text/plain`` where there is
  no picture, HTML table or widget; an HTML table's words count as text).

:func:`report` gives per notebook the slide count, the median and the largest count, and the
slides over a limit; ``tests/publish/test_slide_words.py`` holds every notebook to
:data:`LIMIT` and :data:`MEDIAN_LIMIT`.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from ..course import roles

#: at most this many words on a projected slide (what a hall can read)
LIMIT = 100
#: and the median slide of a notebook holds at most this many
MEDIAN_LIMIT = 60

_WORD = re.compile(r"[0-9A-Za-z\u00C0-\u024F\u0370-\u03FF]")
_DETAILS = re.compile(r"<details\b[^>]*>(.*?)</details>", re.S | re.I)
_SUMMARY = re.compile(r"<summary\b[^>]*>(.*?)</summary>", re.S | re.I)
_DISPLAY_MATH = re.compile(r"\$\$(.*?)\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)([^$\n]+?)\$")
_TAG = re.compile(r"<[^>]+>")
_LISTING = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1[ \t]*$|<pre\b[^>]*>(.*?)</pre>", re.S | re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def _src(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def slide_type(cell, first: bool = False) -> str:
    """The cell's ``slideshow.slide_type`` (``-`` when it has none; ``slide`` for the first)."""
    t = cell.get("metadata", {}).get("slideshow", {}).get("slide_type", "-") or "-"
    return "slide" if first and t not in ("skip", "notes") else t


def text_words(text: str) -> int:
    """Words in plain text: whitespace-separated tokens that hold a letter or a digit."""
    return sum(1 for tok in text.split() if _WORD.search(tok))


def markdown_words(md: str) -> int:
    """Words of a markdown cell as projected (module docstring)."""
    md = _COMMENT.sub(" ", md)
    md = _DETAILS.sub(lambda m: " ".join(_SUMMARY.findall(m.group(1))), md)
    n = 0

    def display(m):
        nonlocal n
        n += max(1, sum(1 for line in m.group(1).splitlines() if line.strip()))
        return " "

    def listing(m):
        nonlocal n
        body = m.group(2) if m.group(2) is not None else m.group(3)
        n += sum(1 for line in body.splitlines() if line.strip())
        return " "

    md = _LISTING.sub(listing, md)
    md = _DISPLAY_MATH.sub(display, md)
    md = _INLINE_MATH.sub(" x ", md)
    md = _TAG.sub(" ", md)
    return n + text_words(md)


def code_lines(src: str) -> int:
    """Non-blank source lines of a code cell, its ``# NBVAL_`` markers excepted."""
    return sum(1 for line in src.splitlines()
               if line.strip() and not line.strip().startswith("# NBVAL_"))


def output_words(cell) -> int:
    """Words a code cell's stored outputs print (module docstring)."""
    n = 0
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            n += text_words(_src({"source": out.get("text", "")}))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "text/markdown" in data:
                n += markdown_words(_src({"source": data["text/markdown"]}))
            elif "text/html" in data and "<table" in _src({"source": data["text/html"]}):
                n += markdown_words(_src({"source": data["text/html"]}))
            elif not any(k.startswith("image/") or k == "text/html"
                         or k == "application/vnd.jupyter.widget-view+json" for k in data):
                n += text_words(_src({"source": data.get("text/plain", "")}))
        elif kind == "error":
            n += text_words(" ".join(out.get("traceback", [])))
    return n


def cell_words(cell) -> int:
    """Words a cell puts on its slide as the deck projects it: markdown words, or printed
    words plus code lines where the code is shown (``show-code``); nothing for an exercise's
    answer cell, a hint or a worked solution (module docstring)."""
    if not roles.on_slide(cell):
        return 0
    if cell.get("cell_type") == "markdown":
        return markdown_words(_src(cell))
    if cell.get("cell_type") == "code":
        return (code_lines(_src(cell)) if roles.shows_code(cell) else 0) + output_words(cell)
    return 0


def display_formulas(cell, *, projected: bool = True) -> int:
    """Display formulas (``$$ … $$`` blocks) a markdown cell projects (``projected=False``: that
    it holds, on a slide or not)."""
    if cell.get("cell_type") != "markdown" or (projected and not roles.on_slide(cell)):
        return 0
    return len(_DISPLAY_MATH.findall(_COMMENT.sub(" ", _src(cell))))


def figures(cell, *, projected: bool = True) -> int:
    """Pictures a code cell projects (its stored ``image/*`` outputs; a widget's saved picture
    counts as its widget, not as a figure; ``projected=False``: that it holds)."""
    if cell.get("cell_type") != "code" or (projected and not roles.on_slide(cell)):
        return 0
    return sum(1 for out in cell.get("outputs", [])
               if any(k.startswith("image/") for k in out.get("data", {}))
               and "application/vnd.jupyter.widget-view+json" not in out.get("data", {}))


@dataclass(frozen=True)
class Slide:
    """One projected slide: the indices of its cells and its word count."""

    cells: tuple
    words: int


def projected_slides(nb) -> list[Slide]:
    """The slides reveal.js projects from ``nb`` (a notebook dict or node), in order."""
    slides, current, words = [], [], 0
    for i, cell in enumerate(nb["cells"]):
        t = slide_type(cell, first=(i == 0))
        if t in ("skip", "notes"):
            continue
        if t in ("slide", "subslide") and current:
            slides.append(Slide(tuple(current), words))
            current, words = [], 0
        current.append(i)
        words += cell_words(cell)
    if current:
        slides.append(Slide(tuple(current), words))
    return slides


def summary(nb) -> dict:
    """Slide count, median and largest word count, and how many slides exceed :data:`LIMIT`."""
    w = [s.words for s in projected_slides(nb)]
    return {"slides": len(w), "median": statistics.median(w) if w else 0,
            "largest": max(w, default=0), "over": sum(x > LIMIT for x in w),
            "over_120": sum(x > 120 for x in w)}


def report(paths) -> str:
    """One line per notebook: slides, median, largest, slides over the limit."""
    import nbformat

    lines = [f"{'notebook':32s} slides median largest >{LIMIT} >120"]
    for p in paths:
        s = summary(nbformat.read(str(p), as_version=4))
        lines.append(f"{str(p).split('/')[-1]:32s} {s['slides']:6d} {s['median']:6.0f} "
                     f"{s['largest']:7d} {s['over']:4d} {s['over_120']:4d}")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(report(sys.argv[1:]))
