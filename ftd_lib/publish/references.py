"""Whether the words that point elsewhere in a notebook still point at something in a way out
that shows only part of it: a lecture deck (core or full), whose slides and speaker cues keep
the notebook's sentences while the plan drops or moves slides around them.

A sentence of a slide or of its cue may say:

- **"the next slide"**: the notebook's next slide must be in the deck too;
- **"above"** / **"below"**: the slides of its section before it (after it) must all be in the
  deck, so that what the sentence points at is there;
- **"section N"** (of its own notebook, not "notebook 05's section 6"): the deck must show that
  section's heading;
- **"move the slider(s)"**: never on a deck, which shows a widget's picture, not the widget.

:func:`unresolved` lists every such reference of a deck's notebook
(:func:`ftd_lib.publish.deck.lecture_notebook`) whose target the deck does not show, with the
cell it sits in (``data-ftd-cell``: ``"05 c41"``) so that the sentence can be found and
reworded in ``notebooks/src/``.
"""

from __future__ import annotations

import re

from ..course.roles import on_slide
from . import plan as P
from . import slide_words
from .lectures import section_numbers, slide_groups

NEXT = re.compile(r"\bnext slide", re.IGNORECASE)
#: "above" / "below" pointing at something: at a clause's end ("printed above)", "… below.")
#: or after what it points at ("the figures above"); not "traces above 1", "above the chart"
_WHAT = r"(?:figures?|numbers?|table|plots?|curves?|printout|listing|stepper|trajectory|note)"
ABOVE = re.compile(rf"\babove(?=\s*[),.;:—]|\s*$)|\b{_WHAT} above\b", re.IGNORECASE)
BELOW = re.compile(rf"\bbelow(?=\s*[),.;:—]|\s*$)|\b{_WHAT} below\b", re.IGNORECASE)
#: a section of the same notebook, not "notebook 05's section 6" nor "section 2 of the notebook"
SECTION = re.compile(r"(?<!notebook \d\d's )(?<!notebook \d\d’s )\b[Ss]ection (\d+)\b"
                     r"(?! of the notebook| in the notebook)")
#: what only a live notebook can do
SLIDERS = re.compile(r"\bmove (?:the |its )?sliders?\b|^\W*things to try\b",
                     re.IGNORECASE | re.MULTILINE)
_HEADING = re.compile(r"^(?:<p class=\"ftd-mark\">[^<]*</p>\s*)?##\s+(\d+)\.", re.MULTILINE)


def _origin(cell):
    """``(stem prefix, cell index)`` of a deck cell taken from a notebook, else None."""
    label = cell.get("metadata", {}).get("slideshow", {}).get("data", {}).get("ftd_cell")
    if not label:
        return None
    nb_id, c = label.split(" c")
    return nb_id, int(c)


def _sources(nb) -> dict:
    stems = {p.stem[:2]: p.stem for p in P.NOTEBOOKS.glob("*.ipynb")}
    ids = {o[0] for c in nb["cells"] if (o := _origin(c))}
    return {i: P.read(stems[i]) for i in ids if i in stems}


def unresolved(nb) -> list[str]:
    """Every reference (module docstring) in the slides and cues of the deck notebook ``nb``
    whose target the deck does not show: ``"05 c41: 'the next slide' — 05 c43 is not on the
    deck"``."""
    sources = _sources(nb)
    shown = {o for c in nb["cells"] if (o := _origin(c))}
    groups = {k: slide_groups(src) for k, src in sources.items()}
    sections = {k: section_numbers(src) for k, src in sources.items()}
    headings = {(o[0], int(m.group(1))) for c in nb["cells"] if (o := _origin(c))
                and c.get("cell_type") == "markdown"
                for m in _HEADING.finditer(slide_words._src(c))}
    out = []
    deck = slide_groups(nb)
    origins = [next((o for i in g if (o := _origin(nb["cells"][i]))), None) for g in deck]
    for d, group in enumerate(deck):
        cells = [nb["cells"][i] for i in group]
        origin = origins[d]
        if origin is None:
            continue
        nb_id, index = origin
        src, src_groups, sec = sources[nb_id], groups[nb_id], sections[nb_id]
        at = next(k for k, g in enumerate(src_groups) if index in g)
        present = [_present(shown, nb_id, src, g) for g in src_groups]
        text = " ".join(slide_words._src(c) for c in cells if c.get("cell_type") == "markdown")
        where = f"{nb_id} c{index}"
        # the deck's next slide may continue the same notebook slide (the stepper's frames)
        after = origins[d + 1] if d + 1 < len(deck) else None
        goes_on = after is not None and after[0] == nb_id and after[1] in src_groups[at]
        if (NEXT.search(text) and at + 1 < len(src_groups) and not present[at + 1]
                and not goes_on):
            out.append(f"{where}: 'the next slide' — {nb_id} c{src_groups[at + 1][0]} is not "
                       "on the deck")
        # "above" / "below" point at the same slide where it shows something before / after
        # the sentence's cell, else at the slides of its section before / after it
        same = [k for k in range(len(src_groups)) if sec[src_groups[k][0]] == sec[index]]
        before = all(present[k] for k in same if k < at)
        after = all(present[k] for k in same if k > at)
        projected = [j for j, c in enumerate(cells)
                     if slide_words.slide_type(c) not in ("skip", "notes")]
        for j, c in enumerate(cells):
            if c.get("cell_type") != "markdown":
                continue
            t = slide_words._src(c)
            notes = slide_words.slide_type(c) == "notes"  # a cue speaks of the slides around
            first = notes or (bool(projected) and j <= projected[0])
            last = notes or (bool(projected) and j >= projected[-1])
            if ABOVE.search(t) and first and not before:
                out.append(f"{where}: 'above' — a slide of its section before it is not on "
                           "the deck")
            if BELOW.search(t) and last and not after:
                out.append(f"{where}: 'below' — a slide of its section after it is not on "
                           "the deck")
        for m in SECTION.finditer(text):
            if (nb_id, int(m.group(1))) not in headings:
                out.append(f"{where}: '{m.group(0)}' — the deck does not show that section")
        if SLIDERS.search(text):
            out.append(f"{where}: 'move the slider' — a deck shows the widget's picture only")
    return list(dict.fromkeys(out))


def _present(shown: set, nb_id: str, src, group) -> bool:
    """Whether the source slide ``group`` is on the deck: its opening cell (the first it
    projects) is. A slide with nothing to project counts as there."""
    opener = next((i for i in group if slide_words.slide_type(src["cells"][i]) not in
                   ("skip", "notes") and on_slide(src["cells"][i])), None)
    return opener is None or (nb_id, opener) in shown
