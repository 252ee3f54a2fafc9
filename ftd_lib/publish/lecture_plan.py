"""INSTRUCTORS.md's lecture plan, written from :mod:`ftd_lib.publish.lectures` (the plan as data,
the minutes by its timing rule, computed from the notebooks).

``python -m ftd_lib.publish.lecture_plan --write`` rewrites, in INSTRUCTORS.md, the part between
:data:`BEGIN` and :data:`END` (the plan, a timetable per lecture with one row per notebook
section, the cells a lecturer may skip, the homework) and the "lecture" column of the notebook
table; ``--check`` exits 1 when the page differs from what it would write (run it after the
notebooks change). ``tests/publish/test_lectures.py`` runs the check. The same command writes
INSTRUCTORS.md's exercise table and counts (:mod:`ftd_lib.publish.exercise_table`).
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

from . import closing, exercise_table
from . import exercise_places as X
from . import lectures as L
from . import plan as P

INSTRUCTORS = P.REPO / "INSTRUCTORS.md"
BEGIN = "<!-- lecture plan: begin (python -m ftd_lib.publish.lecture_plan --write) -->"
END = "<!-- lecture plan: end -->"



#: how much longer than the rule a slower room may take over what it sets the pace of (the
#: exercises put to it, the walk-through's steps): half as long again
SLOW_FACTOR = 1.5


def slower_room(lec: P.Lecture, rest: float) -> int:
    """The discussion's minutes left (``rest`` by the rule) when the room takes
    :data:`SLOW_FACTOR` times the rule's minutes over the exercises put to it and the
    walk-through's steps on the core slides (:attr:`ftd_lib.publish.lectures.Timing.paced`),
    rounded down: the timetable says it beside the rule's."""
    paced = sum(t.paced for seg in lec.segments for _, _, t in L.section_rows(seg))
    return max(0, math.floor(rest - (SLOW_FACTOR - 1) * paced))


def lecture_table(lec: P.Lecture) -> tuple:
    """The timetable of one lecture (markdown) and its numbers."""
    lines = ["| min | what | slides | words | formulas | figures | exercises | walk-through "
             "| run | optional |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    t0 = 0
    for seg in lec.segments:
        for label, head, t in L.section_rows(seg):
            t1 = t0 + math.ceil(t.core)
            moved = L.segment_moved(seg)
            where = sorted({w for i, w in moved.items()
                            if i in set(L.section_cells(seg, label))})
            opt = math.ceil(t.optional) if t.optional else "—"
            if where and t.core == 0:
                opt = f"{opt} ({', '.join(where)})"
            lines.append(f"| {t0}–{t1} | {label}: {head} | {t.slides} | {t.words} | "
                         f"{t.formulas} | {t.figures} | {t.exercises} | {t.steps or ''} | "
                         f"{t.run_s:.1f} s | "
                         f"{opt} |")
            t0 = t1
    t1 = t0 + closing.closing_minutes(lec)
    lines.append(f"| {t0}–{t1} | homework slide | 1 | | | | | | | |")
    t0 = t1
    rest = L.LENGTH - t0
    end = max(t0, L.LENGTH)
    slow = slower_room(lec, rest)
    lines.append(f"| {t0}–{end} | discussion: {lec.discussion} "
                 f"({rest if rest >= 0 else 0} min; promised ≥ {lec.discussion_min}; "
                 f"{slow} if the room takes half as long again over the exercises and the "
                 "walk-through) | | | | | | | | |")
    return "\n".join(lines), t0, rest


def _optional_list() -> str:
    out = []
    for stem in sorted({s.notebook for lec in P.LECTURES for s in lec.segments}):
        cells = L.optional_cells(stem)
        if cells:
            out.append(f"- `{stem}`: " + "; ".join(f"c{i} ({head!r})" for i, head in cells))
    return "\n".join(out) or "- none yet (no cell carries the tag)"


def plan_markdown() -> str:
    """The generated part of INSTRUCTORS.md, from :data:`BEGIN` to :data:`END`."""
    pre = "; ".join(X.pre_reading_text(s) for s in P.PRE_READING)
    parts = [BEGIN, "",
             f"Lectures of {L.LENGTH} minutes. The minutes come from the slides themselves, "
             "by one rule (`ftd_lib/publish/lectures.py`), per slide as the deck projects it "
             "(code only where tagged `show-code`, an exercise as its question): "
             f"{L.SLIDE_MIN} min + its words / {L.WORDS_PER_MIN} a minute (markdown words, "
             "shown code lines and printed words, as `ftd_lib/publish/slide_words.py` counts "
             "them) + the measured run time of every code cell on it (from a fresh run, "
             "stored in `notebooks/run_times.json` by `python scripts/refresh_notebooks.py`) "
             f"+ {L.WIDGET_MIN:g} min for each live widget "
             f"+ {L.FORMULA_MIN:g} min for each display formula + {L.FIGURE_MIN:g} min for "
             f"each figure + {L.EXERCISE_MIN:g} min for each exercise put to the room (the "
             "last three: a lecturer's estimate of how long a room takes over each) + "
             f"{L.PART_MIN:g} min for each part of Algorithm 1 the deck lights in turn (read "
             f"like a display formula) + {L.FRAME_MIN:g} min for each stepper frame it shows "
             "(put up and said like a slide; column *walk-through*: parts + frames); each "
             "section's minutes are rounded up, and the homework slide at the end counts too. "
             "Cells tagged `lecture-optional`, and what the plan moves out of the lecture "
             "(exercises sent home, sections sent to homework or guided self-study, slides "
             "dropped), are counted apart (column *optional*); the deck tags them in the "
             "corner, and `python -m ftd_lib slides --core` leaves them out. The discussion "
             "(its questions in full on the deck's last slides) gets the rest of the 90 "
             "minutes; `tests/publish/test_lectures.py` checks that it is at least what the "
             "lecture promises.", "",
             f"**Before lecture 1 and lecture 3 (pre-reading, not lectured):** {pre}.", ""]
    for lec in P.LECTURES:
        table, core, rest = lecture_table(lec)
        segs = " + ".join(s.label() for s in lec.segments)
        parts += [f"**Lecture {lec.number} ({L.LENGTH} min): {lec.title}.**", "", table, "",
                  f"Slides {segs}: {core} min by the rule; the discussion gets "
                  f"{max(rest, 0)} min" + ("." if rest >= lec.discussion_min else
                                           f" — **over by {lec.discussion_min - rest} min**."),
                  "Homework: " + ", ".join(_in_notebook_order(lec.homework))
                  + (f"; in writing: {lec.written}" if lec.written else "") + ".", ""]
    parts += ["**Cells a lecturer may skip live** (tagged `lecture-optional`):", "",
              _optional_list(), "", END]
    return "\n".join(parts)


def _in_notebook_order(keys) -> list:
    """The labels of exercises ``keys`` (``03.2``) in the notebooks' order, whatever the order of
    the tuple that lists them."""
    labels = [X.exercise_label(k) for k in keys]
    return sorted(labels, key=lambda lab: (lab.split(".")[0], int(lab.split(".")[1])))


def notebook_column(stem: str) -> str:
    """The "lecture" cell of a notebook's row: where the plan puts it, with its minutes."""
    out = []
    for s in P.PRE_READING:
        if s.notebook == stem:
            out.append("pre-reading" + ("" if s.label() == stem[:2] else f" {s.label()[3:]}"))
    for lec in P.LECTURES:
        for s in lec.segments:
            if s.notebook == stem:
                m = sum(math.ceil(t.core) for _, _, t in L.section_rows(s))
                where = "" if s.label() == stem[:2] else f" {s.label()[3:]}"
                out.append(f"lecture {lec.number}{where}: {m} min")
    return "; ".join(out) or "—"


def render(text: str) -> str:
    """INSTRUCTORS.md's text with the plan, the lecture column and the exercise table
    (:func:`ftd_lib.publish.exercise_table.render`) rewritten."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"INSTRUCTORS.md has no {BEGIN!r} … {END!r} block")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    text = head + plan_markdown() + tail
    for nb in sorted(P.NOTEBOOKS.glob("*.ipynb")):
        text = re.sub(rf"^(\| `{re.escape(nb.stem)}` \|(?:[^|\n]*\|){{2}} )[^|\n]*( \|)$",
                      lambda m, s=nb.stem: m.group(1) + notebook_column(s) + m.group(2),
                      text, flags=re.M)
    return exercise_table.render(text)


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m ftd_lib.publish.lecture_plan",
                                 description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="rewrite INSTRUCTORS.md's plan")
    g.add_argument("--check", action="store_true", help="exit 1 if INSTRUCTORS.md is stale")
    ap.add_argument("--file", type=Path, default=INSTRUCTORS)
    args = ap.parse_args(argv)
    old = args.file.read_text()
    new = render(old)
    if args.write:
        args.file.write_text(new)
        print(f"{args.file}: lecture plan and exercise table written")
        return 0
    if new != old:
        print(f"{args.file}: the lecture plan or the exercise table is stale; run python -m "
              "ftd_lib.publish.lecture_plan --write")
        return 1
    print(f"{args.file}: the lecture plan and the exercise table are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
