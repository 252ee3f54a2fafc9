"""``python -m ftd_lib grade``: grade handed-in notebooks outside the students' code, print the
TA's report, and (``--nbgrader``) write the scores into nbgrader's gradebook.

- ``python -m ftd_lib grade --student ID NOTEBOOK ...``: the notebooks of one submission, as
  student ``ID``.
- ``python -m ftd_lib grade --nbgrader ASSIGNMENT [--root COURSE]``: after ``nbgrader
  autograde ASSIGNMENT``, every submission ``submitted/<student>/<ASSIGNMENT>/*.ipynb`` as its
  folder's student, the class's ids known (a classmate's answer is named). Each autograded
  test cell whose check the grader ran (matched by the check it calls, so a renamed notebook
  or one from the students' copy is graded too) gets the grader's score as its manual score,
  with the verdict and the flags as its comment; nbgrader's own score, which the student's
  code could reach, no longer counts. The report is also written to
  ``<COURSE>/ftd-grades-<ASSIGNMENT>.txt``.

Exit status 1 when a notebook could not be graded (the report says why).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from .grade import Graded, grade_notebook
from .submission import course_cells, locked_changes

CHECK = re.compile(r"\b(nb\d\d\.check_\w+)\s*\(")


def grade_ids(source_nb) -> dict[str, tuple[str, float]]:
    """``{grade_id: (check, points)}`` of a source (release) notebook's autograder-test cells."""
    out = {}
    for c in source_nb.cells:
        meta = c.metadata.get("nbgrader", {})
        if c.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            m = CHECK.search(c.source)
            if m:
                out[meta["grade_id"]] = (m.group(1), float(meta.get("points", 0)))
    return out


def write_gradebook(root: Path, assignment: str, graded: dict[str, list[Graded]]) -> list[str]:
    """Put every grader's score into nbgrader's gradebook (manual score and comment); lines
    that say what could not be written."""
    import nbformat
    from nbgrader.api import Gradebook, MissingEntry

    problems = []
    sources = sorted((root / "source" / assignment).glob("*.ipynb"))
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for student, notebooks in graded.items():
            results = {}
            flags = []
            for g in notebooks:
                results.update(g.results)
                flags += [f"{g.path.name}: {f}" for f in g.flags]
            for src in sources:
                for grade_id, (check, points) in grade_ids(nbformat.read(src, 4)).items():
                    try:
                        grade = gb.find_grade(grade_id, src.stem, assignment, student)
                    except MissingEntry:
                        problems.append(f"{student}: no autograded {src.stem}/{grade_id} in the "
                                        "gradebook: run `nbgrader autograde` first")
                        continue
                    r = results.get(check)
                    grade.manual_score = points if r is not None and r.passed else 0.0
                    text = ("ftd_lib grade: " + ("pass" if r and r.passed else
                            f"fail: {r.why}" if r else "no answer found in any notebook"))
                    if flags:
                        text += "\nFLAGGED: " + "; ".join(flags)
                    # nbgrader keeps comments on answer cells: the exercise's solution cell's
                    try:
                        comment = gb.find_comment(grade_id.replace("-test", "-solution"),
                                                  src.stem, assignment, student)
                        comment.manual_comment = text
                    except MissingEntry:
                        pass
                gb.db.commit()
    return problems


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m ftd_lib grade", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("notebooks", nargs="*", metavar="NOTEBOOK")
    p.add_argument("--student", metavar="ID", help="the submitter's id (with NOTEBOOK ...)")
    p.add_argument("--nbgrader", metavar="ASSIGNMENT", help="grade nbgrader's submitted/*/"
                   "ASSIGNMENT and write the scores into its gradebook")
    p.add_argument("--root", default=".", help="nbgrader's course folder (default: .)")
    p.add_argument("--timeout", type=int, default=600, help="seconds a cell may run (600)")
    a = p.parse_args(argv)
    if bool(a.nbgrader) == bool(a.notebooks):
        p.error("give NOTEBOOK ... with --student ID, or --nbgrader ASSIGNMENT")
    if a.notebooks and not (a.student and a.student.strip()):
        p.error("--student ID is required with NOTEBOOK ...: the id comes from the submission, "
                "never from the notebook")
    course = course_cells()
    started = time.time()
    if a.notebooks:
        jobs = {a.student.strip(): [Path(n) for n in a.notebooks]}
    else:
        root = Path(a.root)
        folder = root / "submitted"
        if not folder.is_dir():
            p.error(f"--root {root} has no submitted/ folder (nbgrader's course folder?)")
        jobs = {d.name: sorted((d / a.nbgrader).glob("*.ipynb"))
                for d in sorted(folder.iterdir()) if (d / a.nbgrader).is_dir()}
    ids = sorted(jobs)
    graded: dict[str, list[Graded]] = {}
    lines, bad = [], 0
    for student, paths in jobs.items():
        if not paths:
            lines.append(f"{student}: NOT GRADED: no notebook in the submission")
            bad += 1
        for path in paths:
            t = time.time()
            g = grade_notebook(path, student, ids, course, a.timeout)
            if a.nbgrader:  # a locked cell edited: against the version handed out
                released = Path(a.root) / "release" / a.nbgrader / path.name
                if released.is_file() and not g.error:
                    import nbformat

                    g.flags += locked_changes(nbformat.read(path, 4), nbformat.read(released, 4))
            graded.setdefault(student, []).append(g)
            bad += bool(g.error)
            lines += g.lines()
            lines.append(f"  ({time.time() - t:.0f} s)")
            print("\n".join(g.lines()), flush=True)
    if a.nbgrader:
        problems = write_gradebook(Path(a.root), a.nbgrader, graded)
        lines += problems
        for line in problems:
            print(line)
        report = Path(a.root) / f"ftd-grades-{a.nbgrader}.txt"
        report.write_text("\n".join(lines) + "\n")
        print(f"wrote the scores into {Path(a.root) / 'gradebook.db'} and the report to "
              f"{report} ({time.time() - started:.0f} s)")
        bad += bool(problems)
    if bad:
        print(f"NOT GRADED: {bad} notebook(s) or entries; see above", file=sys.stderr)
    return 1 if bad else 0
