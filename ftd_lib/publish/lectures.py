"""The three-lecture plan, as data, and its minutes computed from the notebooks' slides.

The plan (:data:`PRE_READING`, :data:`LECTURES`): which notebook sections each 90-minute lecture
projects, the discussion time it promises, its homework. INSTRUCTORS.md's plan tables and the
"lecture" column of its notebook table are written from it by :mod:`ftd_lib.publish.lecture_plan`
(``python -m ftd_lib.publish.lecture_plan --write``; ``--check`` says whether the page is up to
date);
``tests/publish/test_lectures.py`` checks the page and that every lecture fits.

**The timing rule** (:func:`slide_minutes`), per projected slide as reveal.js shows it
(:mod:`ftd_lib.publish.slide_words`: ``slide``/``subslide`` open one; ``skip``/``notes`` cells
are not shown):

    minutes = SLIDE_MIN + words / WORDS_PER_MIN + run seconds / 60 + WIDGET_MIN per widget

- ``SLIDE_MIN`` (0.5 min): putting a slide up and saying what it is for;
- ``words / WORDS_PER_MIN`` (60 words a minute): the lecturer reads and explains what is
  projected (markdown words, code lines, printed words: the count of ``slide_words``);
  speaking runs at ~130 words a minute, explaining a slide takes about twice its words;
- the run time of every code cell shown, measured: the cell execution timestamps nbclient
  stores in ``cell.metadata.execution`` (``iopub.execute_input`` to ``shell.execute_reply``)
  from the saved fresh run (the lecturer may re-run any cell on the slide);
- ``WIDGET_MIN`` (1 min) for each live widget (explorer, stepper) shown: a lecturer moves it.

A cell tagged ``lecture-optional`` (and every cell of a slide whose first cell is) is counted
apart: a lecturer may skip it live (:func:`optional_cells`). A lecture fits when its slides
without the optional cells plus the discussion it promises take at most 90 minutes; the
timetable gives the optional minutes beside them and the discussion takes the rest of the 90.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from . import slide_words
from .slides import is_widget_cell

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"

LENGTH = 90  #: minutes of a lecture
SLIDE_MIN = 0.5
WORDS_PER_MIN = 60
WIDGET_MIN = 1.0
OPTIONAL = "lecture-optional"  #: the cell tag of cells a lecturer may skip live
#: a lecture whose slides leave more than this many minutes beyond the promised discussion
#: is under-planned (the plan should give it more to show)
MAX_SPARE = 20


@dataclass(frozen=True)
class Segment:
    """Sections ``first``..``last`` (``## N.`` numbers; ``None``: from the start / to the end)
    of one notebook. An unnumbered section (``## Summary``) belongs to the numbered one before
    it; the title cell and what stands before the first section come with every segment."""

    notebook: str
    first: int | None = None
    last: int | None = None
    what: str = ""

    def label(self) -> str:
        nb = self.notebook[:2]
        if self.first is None and self.last is None:
            return nb
        a = "" if self.first is None else str(self.first)
        b = "end" if self.last is None else str(self.last)
        return f"{nb} §{a}–{b}" if a != b else f"{nb} §{a}"


@dataclass(frozen=True)
class Lecture:
    number: int
    title: str
    segments: tuple
    discussion_min: int  #: the discussion it promises, at least
    discussion: str
    homework: tuple  #: exercise keys (``nbNN.exK``)


PRE_READING = (
    Segment("01_td_basics", what="returns, values, the TD(0) update, the RMS error, step sizes; "
            "its three exercises check themselves"),
    Segment("06_nn_control", 1, 2, what="from TD(λ) to Sarsa(λ): one network per action; the "
            "mountain-car control task"),
)

LECTURES = (
    Lecture(1, "notebooks 02 and 03 — why TD(λ) breaks",
            (Segment("01_td_basics", 4, 4, what="recap of the pre-reading: the general TD "
                     "update (eq. 1), the thread of the course"),
             Segment("02_lambda_return", what="the glossary to Sutton & Barto; n-step and "
                     "interim λ-returns; the online/offline λ-return algorithms; TD(λ) and "
                     "traces; Figure 1; Theorem 1"),
             Segment("03_one_state_divergence", what="the one-state example: β = αT against "
                     "1−(1−α)^T, the explorer live (push α past 2/T); Figure 2")),
            10, "discussion question 1 (replacing traces)",
            ("nb02.ex3", "nb03.ex1", "nb03.ex2", "nb03.ex4")),
    Lecture(2, "notebooks 04 and 05 — forward TD(λ), and prediction with a network",
            (Segment("04_forward_td_lambda", what="the K-bounded λ-return, the δ′-sum, "
                     "Algorithm 1 with the stepper (t = 0…5 on the slide), rounding, cost and "
                     "memory"),
             Segment("05_nn_prediction", what="mountain car; Figure 3 (stored): TD(λ) "
                     "diverges, forward TD(λ) wins; the η question (claim 4)")),
            10, "discussion questions 2 (the DQN analogy) and 4 (the η result)",
            ("nb04.ex1", "nb04.ex2", "nb04.ex5", "nb04.ex6", "nb05.ex3")),
    Lecture(3, "notebooks 06 and 07 — control, Figure 4, and where λ lives today",
            (Segment("06_nn_control", 3, None, what="mountain car live; cart-pole, the collapse "
                     "and learning from scratch; time limits; Figure 4 and the claims"),
             Segment("07_modern_lambda_returns", what="GAE as the truncated λ-return over a "
                     "rollout; sliding window against block; the block λ-return experiment; "
                     "target networks")),
            10, "discussion questions 3 (forward Sarsa(1)) and 5 (time limits)",
            ("nb06.ex2", "nb06.ex4", "nb07.ex1")),
)

_SECTION = re.compile(r"##\s+(\d+)\.")


def read(stem: str):
    import nbformat

    return nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)


def section_numbers(nb) -> list:
    """For each cell, the number of the ``## N.`` section it sits in (``None`` before the
    first section; an unnumbered ``##`` section keeps the number of the one before)."""
    out, current, started = [], None, False
    for cell in nb["cells"]:
        src = slide_words._src(cell).lstrip()
        if cell["cell_type"] == "markdown" and src.startswith("## "):
            m = _SECTION.match(src)
            if m:
                current = int(m.group(1))
            started = True
        out.append(current if started else None)
    return out


def segment_cells(nb, seg: Segment) -> list[int]:
    """The indices of the cells of ``nb`` that segment ``seg`` takes (the intro always)."""
    out = []
    for i, n in enumerate(section_numbers(nb)):
        if n is None or ((seg.first is None or n >= seg.first)
                         and (seg.last is None or n <= seg.last)):
            out.append(i)
    return out


def _stamp(s: str) -> datetime:
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def run_seconds(cell) -> float:
    """How long the cell ran in the saved fresh run: ``shell.execute_reply`` minus
    ``iopub.execute_input`` in ``cell.metadata.execution`` (nbclient's timestamps; 0 for a
    markdown cell; ValueError for a code cell without them)."""
    if cell.get("cell_type") != "code":
        return 0.0
    ex = cell.get("metadata", {}).get("execution", {})
    if "iopub.execute_input" not in ex or "shell.execute_reply" not in ex:
        raise ValueError("cell: no execution timestamps (save the notebook from a fresh run "
                         "with nbclient, e.g. jupyter nbconvert --execute)")
    return max(0.0, (_stamp(ex["shell.execute_reply"])
                     - _stamp(ex["iopub.execute_input"])).total_seconds())


def cell_minutes(cell) -> float:
    """A shown cell's share of its slide's minutes (the rule, without ``SLIDE_MIN``)."""
    return (slide_words.cell_words(cell) / WORDS_PER_MIN + run_seconds(cell) / 60
            + (WIDGET_MIN if is_widget_cell(cell) else 0.0))


def is_optional(cell) -> bool:
    return OPTIONAL in cell.get("metadata", {}).get("tags", [])


@dataclass(frozen=True)
class Timing:
    core: float  #: minutes of the slides shown, the optional cells left out
    optional: float  #: minutes of the optional cells
    slides: int  #: projected slides
    words: int  #: projected words
    run_s: float  #: measured run time of the code cells shown
    widgets: int


def slide_minutes(cells) -> tuple:
    """``(core, optional)`` minutes of one projected slide made of ``cells`` (the rule)."""
    if not cells:
        return 0.0, 0.0
    whole = is_optional(cells[0])
    core = opt = 0.0
    for k, cell in enumerate(cells):
        m = cell_minutes(cell) + (SLIDE_MIN if k == 0 else 0.0)
        if whole or is_optional(cell):
            opt += m
        else:
            core += m
    return core, opt


def timing(nb, indices=None) -> Timing:
    """The rule's minutes for the cells ``indices`` of ``nb`` (default: all) as projected."""
    keep = set(range(len(nb["cells"])) if indices is None else indices)
    sub = {"cells": [c for i, c in enumerate(nb["cells"]) if i in keep]}
    core = opt = run = 0.0
    words = widgets = 0
    slides = slide_words.projected_slides(sub)
    for s in slides:
        cells = [sub["cells"][i] for i in s.cells]
        c, o = slide_minutes(cells)
        core, opt, words = core + c, opt + o, words + s.words
        run += sum(run_seconds(x) for x in cells)
        widgets += sum(is_widget_cell(x) for x in cells)
    return Timing(core, opt, len(slides), words, run, widgets)


def segment_timing(seg: Segment) -> Timing:
    nb = read(seg.notebook)
    return timing(nb, segment_cells(nb, seg))


def _heading(nb, i) -> str:
    src = slide_words._src(nb["cells"][i]).strip().splitlines()[0]
    return re.sub(r"^\d+\.\s*", "", src.lstrip("#").strip()).replace("|", "\\|")


def section_rows(seg: Segment) -> list:
    """``[(label, heading, Timing)]``: one row per numbered section the segment takes (an
    unnumbered section goes with the one before it; the title and intro with the first)."""
    nb = read(seg.notebook)
    numbers = section_numbers(nb)
    groups, order = {}, []
    for i in segment_cells(nb, seg):
        key = numbers[i] if numbers[i] is not None else "intro"
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(i)
    if "intro" in groups and len(order) > 1:  # the title goes with the first section
        groups[order[1]] = groups.pop("intro") + groups[order[1]]
        order.remove("intro")
    rows = []
    for key in order:
        idx = groups[key]
        head = next((j for j in idx if nb["cells"][j]["cell_type"] == "markdown"
                     and slide_words._src(nb["cells"][j]).lstrip().startswith("## ")), idx[0])
        label = f"{seg.notebook[:2]} §{key}" if key != "intro" else seg.notebook[:2]
        rows.append((label, _heading(nb, head), timing(nb, idx)))
    return rows


def lecture_minutes(lecture: Lecture) -> dict:
    """The lecture's minutes as its timetable gives them: each section's minutes rounded up,
    summed (``core``: without the optional cells; ``optional``: those), per segment
    (``rows``: ``[(segment, core minutes, Timing of the segment)]``), and the discussion it
    gets: the rest of :data:`LENGTH` after the core slides."""
    rows, core, optional = [], 0, 0
    for seg in lecture.segments:
        sections = section_rows(seg)
        c = sum(math.ceil(t.core) for _, _, t in sections)
        rows.append((seg, c, segment_timing(seg)))
        core += c
        optional += sum(math.ceil(t.optional) for _, _, t in sections)
    return {"rows": rows, "core": core, "optional": optional,
            "discussion": LENGTH - core, "fits": LENGTH - core >= lecture.discussion_min}


def optional_cells(stem: str) -> list:
    """``[(cell index, first line)]`` of the cells tagged ``lecture-optional``."""
    nb = read(stem)
    return [(i, slide_words._src(c).strip().splitlines()[0][:70] if slide_words._src(c).strip()
             else "") for i, c in enumerate(nb["cells"]) if is_optional(c)]

