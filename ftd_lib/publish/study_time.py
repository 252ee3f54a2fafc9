"""How long a notebook takes a student working through it alone: the line under each title on
the website ("This notebook: about 35 min of reading; 5 exercises, 3 of them required").

Reading time is the notebook's own text at :data:`READ_WPM` words a minute (technical prose
with mathematics, read to be understood: about half the pace of ordinary reading) plus, as the
lecture plan's rule charges a room (:mod:`ftd_lib.publish.lectures`), a minute for each display
formula and a minute and a half for each figure; every cell counts, the speaker notes ("In more
detail") too, since a page shows them. The exercises are counted, not timed: how long one takes
depends on the student more than on its text. The counts are the notebook's own, from the same
word rule as the slides (:func:`ftd_lib.publish.slide_words.markdown_words`).
"""

from __future__ import annotations

import math
import re

from ..course.roles import EXERCISE, has
from . import lectures as L
from .slide_words import _src, display_formulas, figures, markdown_words

#: words a minute read to be understood (technical text with mathematics)
READ_WPM = 120
#: an exercise's heading says it is required ("### Exercise 1 — an n-step return (required)")
REQUIRED = re.compile(r"(?mi)^\s*#+\s*Exercise\s+\d+\b.*\(required\)")


def counts(nb) -> dict:
    """The notebook's words, display formulas, figures (stored ``image/*`` outputs, a widget's
    saved picture excepted) and exercises (answer cells tagged ``exercise``; ``required``: those
    whose heading says "(required)"), every cell counted."""
    md = [_src(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    return dict(words=sum(markdown_words(t) for t in md),
                formulas=sum(display_formulas(c, projected=False) for c in nb["cells"]),
                figures=sum(figures(c, projected=False) for c in nb["cells"]),
                exercises=sum(1 for c in nb["cells"] if has(c, EXERCISE)),
                required=sum(len(REQUIRED.findall(t)) for t in md))


def reading_minutes(c: dict) -> int:
    """``words / READ_WPM + FORMULA_MIN * formulas + FIGURE_MIN * figures``, rounded up to 5
    minutes (an estimate, said as one)."""
    m = c["words"] / READ_WPM + L.FORMULA_MIN * c["formulas"] + L.FIGURE_MIN * c["figures"]
    return 5 * max(1, math.ceil(m / 5))


def _n(k: int, word: str) -> str:
    return f"{k:,} {word}{'' if k == 1 else 's'}"


def study_text(nb) -> str:
    """The line a page shows under its title: its reading time and its exercises."""
    c = counts(nb)
    ex, req = c["exercises"], c["required"]
    exercises = ("no exercises" if not ex else _n(ex, "exercise") + (
        "" if not req else ", required" if req == ex == 1 else ", all required" if req == ex
        else f", {req} of them required"))
    return (f"This notebook: about {reading_minutes(c)} min of reading ({_n(c['words'], 'word')}"
            f", {_n(c['formulas'], 'display formula')}, {_n(c['figures'], 'figure')}); "
            f"{exercises}.")
