"""The three-lecture plan, as data, and its minutes computed from the notebooks' slides.

The plan (:data:`PRE_READING`, :data:`LECTURES`): which notebook sections each 90-minute lecture
projects, what it moves out of the lecture (to homework or guided self-study), the discussion
it promises (INSTRUCTORS.md's questions, by number), its homework. INSTRUCTORS.md's plan tables
and the "lecture" column of its notebook table are written from it by
:mod:`ftd_lib.publish.lecture_plan` (``python -m ftd_lib.publish.lecture_plan --write``;
``--check`` says whether the page is up to date); ``tests/publish/test_lectures.py`` checks the
page and that every lecture fits.

**The timing rule** (:func:`slide_minutes`), per slide as the deck projects it
(:mod:`ftd_lib.publish.slide_words`: ``slide``/``subslide`` open one; ``skip``/``notes`` cells
are not shown; code only where tagged ``show-code``; no exercise scaffold, hint or solution):

    minutes = SLIDE_MIN + words / WORDS_PER_MIN + run seconds / 60 + WIDGET_MIN per widget
              + FORMULA_MIN per display formula + FIGURE_MIN per figure
              + EXERCISE_MIN per exercise done in class
              + PART_MIN per listing part lit + FRAME_MIN per stepper frame shown

- ``SLIDE_MIN`` (0.5 min): putting a slide up and saying what it is for;
- ``words / WORDS_PER_MIN`` (60 words a minute): the lecturer reads and explains what is
  projected (markdown words, shown code lines, printed words: the count of ``slide_words``);
  speaking runs at ~130 words a minute, explaining a slide takes about twice its words;
- the run time of every code cell on the slide, measured in a fresh run and stored apart from
  the notebooks, in ``notebooks/run_times.json`` (:mod:`ftd_lib.publish.run_times`, written by
  ``python scripts/refresh_notebooks.py``; the lecturer may re-run the cell live);
- ``WIDGET_MIN`` (1 min) for each live widget (explorer, stepper) shown: a lecturer moves it;
- ``FORMULA_MIN`` (1 min) for each display formula (a ``$$ … $$`` block): a room follows a
  derivation at the speed of its symbols, not of its words;
- ``FIGURE_MIN`` (1.5 min) for each figure (a stored picture output): reading axes, legend and
  the point of it with a room;
- ``EXERCISE_MIN`` (2 min) for each exercise whose question is put to the room (its answer
  cell, tagged ``exercise``, belongs to the slide) and that the plan does not send home.

These three terms are a lecturer's estimate of how long a room takes over each. A
walk-through (Algorithm 1 and its stepper, notebook 04 §3) is stepped through, one key press at
a time, and each step is costed like what it is (:func:`walk_steps`):

- ``PART_MIN`` (= ``FORMULA_MIN``, 1 min) for each part of a listing the deck lights in turn
  (``algorithm1_markdown(..., parts=...)``: the set-up, the step's ρ and δ′, the swap, the
  update, the episode's end): pseudo-code lines a room follows at the speed of their symbols,
  like a display formula (the listing's own words count one a line);
- ``FRAME_MIN`` (= ``SLIDE_MIN``, 0.5 min) for each recorded frame of the stepper the deck
  shows (its key frames, :func:`ftd_lib.course.stepper.key_frames`: 6 of the 15, where
  Algorithm 1 first does each thing or takes in new information; the notebook and the site
  keep all 15): put up and said like a slide, which line of
  Algorithm 1 acts and the target against the definition's value (its readout's numbers are
  checked, not read out, so they add no words).

What a lecture does not project live is counted apart (column *optional*): a cell tagged
``lecture-optional`` (and every cell of a slide whose first cell is), and what the plan moves
out (:func:`moved_cells`): the slides of the exercises it gives as homework, the sections it
sends to homework or guided self-study (``Segment.moved``), the slides it drops
(``Segment.dropped``). A lecture fits when its core slides plus the discussion it promises take
at most 90 minutes; the timetable gives the optional minutes beside them and the discussion
takes the rest of the 90. ``python -m ftd_lib slides --core`` builds the deck of exactly the
core slides.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from . import run_times, slide_words
from .plan import (
    LECTURES,
    Segment,
    in_summary,
    named_cell,
    read,
    section_numbers,
    section_of,
    segment_cells,
)
from .slides import is_widget_cell

LENGTH = 90  #: minutes of a lecture
SLIDE_MIN = 0.5
WORDS_PER_MIN = 60
WIDGET_MIN = 1.0
FORMULA_MIN = 1.0
FIGURE_MIN = 1.5
EXERCISE_MIN = 2.0
PART_MIN = FORMULA_MIN  #: a part of a listing lit in turn, read like a display formula
FRAME_MIN = SLIDE_MIN  #: a recorded stepper frame, put up and said like a slide
OPTIONAL = "lecture-optional"  #: the cell tag of cells a lecturer may skip live
#: a lecture whose slides leave more than this many minutes beyond the promised discussion
#: is under-planned (the plan should give it more to show)
MAX_SPARE = 20


def run_seconds(cell) -> float:
    """How long the cell ran in a fresh run, as stored in ``notebooks/run_times.json`` by its
    cell id (:func:`ftd_lib.publish.run_times.seconds`: 0 for a markdown cell; ValueError naming
    ``python scripts/refresh_notebooks.py`` for a code cell the file does not have). Not the
    notebook's own timestamps: re-executing a notebook does not move the plan."""
    return run_times.seconds(cell)


_PART = 'class="fragment highlight-current-blue ftd-alg-part"'


def lit_parts(cell) -> int:
    """How many parts of a listing the cell's output lights one at a time (the fragments
    :func:`ftd_lib.course.stepper.algorithm1_markdown` writes with ``parts``)."""
    return sum(slide_words._src({"source": o.get("data", {}).get(m, "")}).count(_PART)
               for o in cell.get("outputs", []) for m in ("text/markdown", "text/html"))


@functools.lru_cache(maxsize=8)
def _stepper_frames(source: str) -> int:
    from ..course.stepper import key_frames
    from .static_explorers import _explorer, find_call

    factory, kwargs = find_call(source)
    return len(key_frames(_explorer(factory, {}, kwargs).frames))


def stepper_frames(cell) -> int:
    """How many frames the deck shows for the stepper the code cell makes
    (:func:`ftd_lib.course.stepper.algorithm1_stepper` with the cell's arguments): its key
    frames (:func:`ftd_lib.course.stepper.key_frames`), as
    :func:`ftd_lib.publish.slide_pictures.stepper_frames_html` draws them; 0 for any other cell."""
    from .static_explorers import find_call

    if cell.get("cell_type") != "code":
        return 0
    src = slide_words._src(cell)
    call = find_call(src)
    return _stepper_frames(src) if call and call[0] == "algorithm1_stepper" else 0


def walk_steps(cell) -> tuple:
    """``(parts lit, stepper frames)`` of a walk-through the cell shows (module docstring)."""
    return lit_parts(cell), stepper_frames(cell)


def cell_minutes(cell) -> float:
    """A shown cell's share of its slide's minutes (the rule, without ``SLIDE_MIN`` and the
    exercise term, which belong to the slide)."""
    parts, frames = walk_steps(cell)
    return (slide_words.cell_words(cell) / WORDS_PER_MIN + run_seconds(cell) / 60
            + (WIDGET_MIN if is_widget_cell(cell) else 0.0)
            + FORMULA_MIN * slide_words.display_formulas(cell)
            + FIGURE_MIN * (0 if is_widget_cell(cell) else slide_words.figures(cell))
            + PART_MIN * parts + FRAME_MIN * frames)


def is_optional(cell) -> bool:
    return OPTIONAL in cell.get("metadata", {}).get("tags", [])


@dataclass(frozen=True)
class Timing:
    core: float  #: minutes of the core slides (the optional and the moved cells left out)
    optional: float  #: minutes of the optional and the moved cells
    slides: int  #: projected slides
    words: int  #: projected words
    run_s: float  #: measured run time of the code cells shown
    widgets: int
    formulas: int = 0  #: display formulas on the core slides
    figures: int = 0  #: figures on the core slides
    exercises: int = 0  #: exercises put to the room on the core slides
    steps: int = 0  #: walk-through steps on the core slides (listing parts lit, stepper frames)
    #: the rule's minutes of what a room sets the pace of on the core slides: the exercises
    #: put to it and the walk-through's steps (the estimates most likely to run over)
    paced: float = 0.0


def slide_groups(nb) -> list:
    """Every cell of ``nb`` by the slide it belongs to: ``[[cell index, ...], ...]``, one list
    per projected slide (:func:`ftd_lib.publish.slide_words.projected_slides`), a hidden cell
    (``skip``, ``notes``: an exercise's answer cell, its hint, the speaker notes) with the slide
    open where it stands (before the first slide: with the first)."""
    groups, pending = [], []
    for i, cell in enumerate(nb["cells"]):
        t = slide_words.slide_type(cell, first=(i == 0))
        if t in ("skip", "notes"):
            (groups[-1] if groups else pending).append(i)
        elif t in ("slide", "subslide") or not groups:
            groups.append(pending + [i])
            pending = []
        else:
            groups[-1].append(i)
    if pending:
        groups.append(pending)
    return groups


def exercise_keys(nb) -> dict:
    """``{cell index: "nbNN.name"}`` for each exercise's answer cell (tagged ``exercise``): the
    key of the hint cell that follows it (``hint("nbNN.name")``)."""
    from ..course.roles import EXERCISE, has
    from .present import hint_key

    out, open_ = {}, None
    for i, cell in enumerate(nb["cells"]):
        if has(cell, EXERCISE):
            open_ = i
        key = hint_key(cell)
        if key is not None and open_ is not None:
            out[open_] = key
            open_ = None
    return out


_EXERCISE_HEAD = re.compile(r"^\s*(?:#+\s*)?\**\s*Exercise\s+\d+")


def _opens_exercise(cell) -> bool:
    """Whether a markdown cell starts with an exercise's heading (``### Exercise 3 — …``)."""
    return (cell.get("cell_type") == "markdown"
            and bool(_EXERCISE_HEAD.match(slide_words._src(cell).lstrip())))


def moved_cells(nb, seg: Segment, homework=()) -> dict:
    """``{cell index: where}`` of the cells of ``nb`` the lecture does not project: the slides of
    the exercises given as ``homework`` (``"homework"``; a statement over several slides, all of
    them, from the one its ``Exercise N`` heading opens), the sections ``seg.moved`` sends away
    (by their heading cells' names, with their ``where``; an unnumbered section after one, the
    notebook's ``## Summary``, stays: :func:`in_summary`) and the slides ``seg.dropped`` names
    (by their opening cells' names: ``"dropped"``). A name no cell carries raises
    (:func:`ftd_lib.publish.plan.named_cell`: the plan's file and line)."""
    out = {}
    sections = section_numbers(nb)
    summary = in_summary(nb)
    moved = {section_of(nb, name, seg.notebook): where for name, where in seg.moved}
    for i, n in enumerate(sections):
        if n in moved and not summary[i]:
            out[i] = moved[n]
    keys = exercise_keys(nb)
    dropped = {named_cell(nb, name, seg.notebook) for name in seg.dropped}
    groups = slide_groups(nb)
    strays = sorted(dropped - {g[0] for g in groups})
    if strays:
        raise ValueError(f"{seg.notebook}: the plan drops cells {strays}, which open no slide "
                         "(name a slide's opening cell; ftd_lib/publish/plan.py)")
    for k, group in enumerate(groups):
        if any(keys.get(i) in homework for i in group):
            # the exercise's statement may run over the slides before its answer cell's (at
            # most two): back to the slide its "Exercise N" heading opens, all go home with it
            start = k
            while start > max(0, k - 2) and not _opens_exercise(nb["cells"][groups[start][0]]):
                start -= 1
            if not _opens_exercise(nb["cells"][groups[start][0]]):
                start = k
            for g in groups[start:k + 1]:
                for i in g:
                    out.setdefault(i, "homework")
        if group[0] in dropped:
            for i in group:
                out.setdefault(i, "dropped")
    return out


def slide_minutes(cells, optional=None, exercises: int = 0) -> tuple:
    """``(core, optional)`` minutes of one projected slide made of ``cells`` (the rule), with
    ``exercises`` exercises put to the room on it. ``optional[k]``: cell ``k`` is not projected
    in the core deck (default: tagged ``lecture-optional``); a slide whose first cell is not
    goes wholly to the optional column."""
    if not cells:
        return 0.0, 0.0
    optional = [is_optional(c) for c in cells] if optional is None else list(optional)
    whole = optional[0]
    core = opt = 0.0
    for k, cell in enumerate(cells):
        m = cell_minutes(cell) + (SLIDE_MIN if k == 0 else 0.0)
        if whole or optional[k]:
            opt += m
        else:
            core += m
    if whole:
        opt += EXERCISE_MIN * exercises
    else:
        core += EXERCISE_MIN * exercises
    return core, opt


def timing(nb, indices=None, moved=None) -> Timing:
    """The rule's minutes for the cells ``indices`` of ``nb`` (default: all) as the deck
    projects them; ``moved``: cells (indices of ``nb``) the lecture does not project
    (:func:`moved_cells`)."""
    keep = sorted(set(range(len(nb["cells"])) if indices is None else indices))
    moved = moved or {}
    sub = {"cells": [nb["cells"][i] for i in keep]}
    from ..course.roles import EXERCISE, has

    core = opt = run = 0.0
    words = widgets = formulas = figures = exercises = steps = 0
    paced = 0.0
    slides = 0
    for group in slide_groups(sub):
        shown = [k for k in group if slide_words.slide_type(sub["cells"][k], first=(k == 0))
                 not in ("skip", "notes")]
        if not shown:
            continue
        slides += 1
        cells = [sub["cells"][k] for k in shown]
        off = [is_optional(sub["cells"][k]) or keep[k] in moved for k in shown]
        n_ex = sum(has(sub["cells"][k], EXERCISE) for k in group)
        c, o = slide_minutes(cells, off, n_ex)
        core, opt = core + c, opt + o
        words += sum(slide_words.cell_words(x) for x in cells)
        run += sum(run_seconds(x) for x in cells)
        widgets += sum(is_widget_cell(x) for x in cells)
        if not off[0]:
            kept = [x for x, f in zip(cells, off, strict=True) if not f]
            formulas += sum(slide_words.display_formulas(x) for x in kept)
            figures += sum(0 if is_widget_cell(x) else slide_words.figures(x) for x in kept)
            exercises += n_ex
            steps += sum(sum(walk_steps(x)) for x in kept)
            paced += EXERCISE_MIN * n_ex + sum(PART_MIN * walk_steps(x)[0]
                                               + FRAME_MIN * walk_steps(x)[1] for x in kept)
    return Timing(core, opt, slides, words, run, widgets, formulas, figures, exercises, steps,
                  paced)


def lecture_of(seg: Segment):
    """The lecture whose segments include ``seg`` (None for the pre-reading)."""
    return next((lec for lec in LECTURES if seg in lec.segments), None)


def segment_moved(seg: Segment, nb=None) -> dict:
    """:func:`moved_cells` of ``seg`` with its lecture's homework."""
    nb = read(seg.notebook) if nb is None else nb
    lec = lecture_of(seg)
    return moved_cells(nb, seg, lec.homework if lec else ())


def segment_timing(seg: Segment) -> Timing:
    nb = read(seg.notebook)
    return timing(nb, segment_cells(nb, seg), segment_moved(seg, nb))


def _heading(nb, i) -> str:
    src = slide_words._src(nb["cells"][i]).strip().splitlines()[0]
    text = re.sub(r"^\d+\.\s*", "", src.lstrip("#").strip())
    # a table cell: "|" escaped in the words, written \vert inside math (where an escaped
    # "\|" would typeset as a double bar: G^{λ‖h})
    parts = text.split("$")
    return "$".join(p.replace("|", r"\vert ") if k % 2 else p.replace("|", "\\|")
                    for k, p in enumerate(parts))


def section_rows(seg: Segment) -> list:
    """``[(label, heading, Timing)]``: one row per numbered section the segment takes (an
    unnumbered section goes with the one before it; the title and intro with the first)."""
    nb = read(seg.notebook)
    numbers = section_numbers(nb)
    moved = segment_moved(seg, nb)
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
        rows.append((label, _heading(nb, head), timing(nb, idx, moved)))
    return rows


def section_cells(seg: Segment, label: str) -> list:
    """The cells of the section row ``label`` of :func:`section_rows` (``"04 §8"``)."""
    nb = read(seg.notebook)
    numbers = section_numbers(nb)
    n = int(label.split("§")[1]) if "§" in label else None
    return [i for i in segment_cells(nb, seg) if numbers[i] == n]


def optional_cells(stem: str) -> list:
    """``[(cell index, first line)]`` of the cells tagged ``lecture-optional``."""
    nb = read(stem)
    return [(i, slide_words._src(c).strip().splitlines()[0][:70] if slide_words._src(c).strip()
             else "") for i, c in enumerate(nb["cells"]) if is_optional(c)]
