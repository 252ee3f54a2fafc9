"""How a lecture ends on its deck: one homework slide that gathers the lecture's exercises (the
ones done in class and the ones sent home, each named by its question's title) and the
discussion the plan times, its questions in full as INSTRUCTORS.md asks them.

The questions are read from INSTRUCTORS.md's "Questions for discussion" (one numbered item per
question, its model answer folded in ``<details>``, which the slide leaves out), so the deck and
the instructors' page never say two different things. :func:`homework_cells` and
:func:`discussion_cells` give the slides as notebook cells (with a speaker cue each);
:mod:`ftd_lib.publish.deck` puts them at the end of each lecture and
:mod:`ftd_lib.publish.lectures` times the homework slide like any other.
"""

from __future__ import annotations

import math
import re

import nbformat

from . import exercise_places as X
from . import lectures as L
from . import plan as P

INSTRUCTORS = P.REPO / "INSTRUCTORS.md"
QUESTIONS_HEADING = "## Questions for discussion"
_ITEM = re.compile(r"^(\d+)\.\s+(.*)$")
_EXERCISE = re.compile(r"^\s*(?:#+\s*)?\**\s*Exercise\s+(\d+)\s*\**\s*(.*)$")


def questions(text: str | None = None) -> dict:
    """``{number: question}``: INSTRUCTORS.md's discussion questions in full (markdown, one
    paragraph each), without their folded model answers."""
    text = INSTRUCTORS.read_text() if text is None else text
    if QUESTIONS_HEADING not in text:
        raise ValueError(f"INSTRUCTORS.md has no {QUESTIONS_HEADING!r} section")
    body = text.split(QUESTIONS_HEADING, 1)[1].split("\n## ", 1)[0]
    out, current, folded = {}, None, False
    for line in body.splitlines():
        m = _ITEM.match(line)
        if m:
            current, folded = int(m.group(1)), False
            out[current] = [m.group(2).strip()]
        elif current is not None and "<details>" in line:
            folded = True
        elif current is not None and not folded and line.startswith("   ") and line.strip():
            out[current].append(line.strip())
    return {k: " ".join(v) for k, v in out.items()}


def exercise_title(nb, answer_cell: int, limit: int = 60) -> str:
    """The title of the exercise whose answer cell is ``answer_cell``: from the last markdown
    cell before it with a line ``Exercise N``, the words after the number up to the first
    sentence's end (at most ``limit`` characters, cut at a word), without bold or code marks:
    ``"a discounted return"``, ``"derive, then check: Section 2 derived …"``."""
    for i in range(answer_cell - 1, -1, -1):
        cell = nb["cells"][i]
        if cell["cell_type"] != "markdown":
            continue
        lines = L.slide_words._src(cell).strip().splitlines()
        for k, line in enumerate(lines):
            m = _EXERCISE.match(line)
            if not m:
                continue
            rest = [] if line.lstrip().startswith("#") else [x.strip() for x in lines[k + 1:]]
            text = " ".join([m.group(2)] + rest)
            text = re.sub(r"[*`]", "", text).strip(" —–-.:")
            text = re.sub(r"^\((.*?)\)\.?\s*", r"\1: ", text).strip(" :")
            end = next((e.start() + 1 for e in re.finditer(r"[.?!]\s", text)
                        if not re.search(r"\b(?:App|Sec|eq|e\.g|i\.e|cf)$", text[:e.start()])),
                       None)
            text = text[:end] if end else text
            if len(text) > limit:
                text = text[:limit].rsplit(" ", 1)[0] + " …"
            return text
    return ""


def lecture_exercises(lecture: P.Lecture) -> list:
    """``[(key, title, at home)]`` for every exercise in the cells the lecture takes, in order."""
    out = []
    for seg in lecture.segments:
        nb = P.read(seg.notebook)
        cells = set(P.segment_cells(nb, seg))
        for i, key in L.exercise_keys(nb).items():
            if i in cells:
                out.append((key, exercise_title(nb, i), key in lecture.homework))
    return out


_MARK = re.compile(r"\s*\((?:required|optional)\)", re.IGNORECASE)


def _titled(key: str, title: str, required: bool) -> str:
    """``**04.5** the horizon-extension identity (optional)``: the label, the title without
    its own mark, and the mark the cell's tags give (:mod:`ftd_lib.course.roles`)."""
    return (f"**{X.exercise_label(key)}** {_MARK.sub('', title).strip()} "
            f"({'required' if required else 'optional'})")


def _md(text: str, slide_type: str):
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["slideshow"] = {"slide_type": slide_type}
    return cell


def homework_markdown(lecture: P.Lecture) -> str:
    """The homework slide: the exercises sent home with their titles (required or optional, by
    the cells' tags), then those put to the room on a core slide (to finish at home), then what
    the plan asks in writing. "Done in class" names only exercises the core deck shows
    (:func:`ftd_lib.publish.lectures.exercise_places`); an optional exercise the lecture neither
    shows nor assigns is named as left to the reader; a required one raises (the plan must
    place it)."""
    titles = dict((k, t) for k, t, _ in lecture_exercises(lecture))
    places = X.exercise_places(lecture)
    lost = [k for k, req, where in places if req and where is None]
    if lost:
        raise ValueError(f"lecture {lecture.number}: required exercises {lost} are neither on "
                         "a core slide nor on the homework list: add their keys to "
                         f"Lecture({lecture.number}, ...)'s homework tuple in "
                         "ftd_lib/publish/plan.py")
    before = [X.pre_reading_text(s, brief=True) for s in P.PRE_READING
              if X.pre_reading_before(s) == lecture.number + 1]
    home = [f"- {_titled(k, titles[k], req)}" for k, req, where in places if where == "homework"]
    here = [X.exercise_label(k) for k, _, where in places if where == "class"]
    left = [X.exercise_label(k) for k, _, where in places if where is None]
    lines = [f"## Homework after lecture {lecture.number}", ""]
    lines += home or ["- none"]
    if here:
        lines += ["", f"Done in class, finish at home: {', '.join(here)}."]
    if left:
        lines += ["", f"Optional, in the notebooks: {', '.join(left)}."]
    if lecture.written:
        lines += ["", f"In writing: {lecture.written}."]
    if before:
        lines += ["", f"Before lecture {lecture.number + 1}, read: {'; '.join(before)}."]
    lines += ["", "*Each exercise checks itself in its notebook (Binder, Colab or "
              "`./start.sh`).*"]
    return "\n".join(lines)


def homework_cells(lecture: P.Lecture) -> list:
    """The homework slide as cells: the slide and its speaker cue."""
    places = X.exercise_places(lecture)
    n = sum(where == "homework" for _, _, where in places)
    here = sum(where == "class" for _, _, where in places)
    done = f" and to the {here} done in class" if here else ""
    return [_md(homework_markdown(lecture), "slide"),
            _md(f"**Cue** (1 min, core): point to the {n} exercises sent home{done}; each "
                "notebook's check says Correct or Not yet.", "notes")]


def discussion_cells(lecture: P.Lecture, minutes: int | None = None) -> list:
    """The discussion: one slide with every question the lecture discusses, in full
    (INSTRUCTORS.md), numbered as there ("Question 3"), each with its share of the discussion's
    minutes on the slide (the room sees how long it has), and one speaker cue."""
    qs = questions()
    missing = [q for q in lecture.questions if q not in qs]
    if missing:
        raise ValueError(f"lecture {lecture.number}: no discussion question {missing} in "
                         "INSTRUCTORS.md")
    n = max(1, len(lecture.questions))
    # the discussion's minutes shared out in whole minutes that add up to it (13 min over two
    # questions: 7 and 6, not 6 and 6)
    shares = ([None] * n if minutes is None else
              [max(1, minutes // n + (1 if k < minutes % n else 0)) for k in range(n)])
    head = "## Discussion" + (f" ({minutes} min)" if minutes is not None else "")
    parts = [head]
    for k, q in enumerate(lecture.questions):
        text = re.sub(r"^\(Optional\)\s*", "", qs[q])
        when = f" ({shares[k]} min)" if shares[k] else ""
        parts.append(f"**Question {q}**{when}. {text}")
    when = (f"{minutes} min" if minutes is not None else "the rest of the lecture")
    split = ("" if n == 1 or minutes is None else " " + ", ".join(
        f"{m} min on question {q}" for m, q in zip(shares, lecture.questions, strict=True)) + ";")
    return [_md("\n\n".join(parts), "slide"),
            _md(f"**Cue** ({when}, core):{split} for each question, pairs for 2 min, then take "
                "three answers; the model answers are in INSTRUCTORS.md (instructors' release).",
                "notes")]


def closing_minutes(lecture: P.Lecture) -> int:
    """Minutes of the lecture's homework slide by the rule, rounded up."""
    return math.ceil(L.slide_minutes(homework_cells(lecture)[:1])[0])


def lecture_minutes(lecture: P.Lecture) -> dict:
    """The lecture's minutes as its timetable gives them: each section's minutes rounded up,
    summed with the homework slide's (``core``: without the optional and moved cells;
    ``optional``: those), per segment (``rows``: ``[(segment, core minutes, Timing of the
    segment)]``), and the discussion it gets: the rest of
    :data:`ftd_lib.publish.lectures.LENGTH` after the core slides."""
    rows, core, optional = [], closing_minutes(lecture), 0
    for seg in lecture.segments:
        sections = L.section_rows(seg)
        c = sum(math.ceil(t.core) for _, _, t in sections)
        rows.append((seg, c, L.segment_timing(seg)))
        core += c
        optional += sum(math.ceil(t.optional) for _, _, t in sections)
    return {"rows": rows, "core": core, "optional": optional,
            "discussion": L.LENGTH - core, "fits": L.LENGTH - core >= lecture.discussion_min}
