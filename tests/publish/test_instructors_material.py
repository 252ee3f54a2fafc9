"""Instructors' material stays with instructors: the students' copy (what the site's zip packs,
:func:`ftd_lib.publish.site`'s ``release("students", ...)``) holds no line of INSTRUCTORS.md's
model answers and no value of its exercise table (:data:`ftd_lib.publish.exercise_rows.ROWS`:
answers and the slips each check looks for), nor the grader; the
instructors' copy holds all of them (so the search finds what it looks for).

The scan reads every file of a copy, and a notebook also as its decoded strings (sources,
outputs, metadata). A table value is searched as its pieces (split at "; " and at "(told)")
of 25 characters or more; a piece that a students' notebook or hint states too (the exercise's
own wording) is no leak of the table and is left out.
"""

import re
import sys
from pathlib import Path

import pytest

from ftd_lib.publish.exercise_rows import ROWS
from ftd_lib.publish.release import INSTRUCTORS_LIBRARY, release

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_release import files_text as text_of  # noqa: E402  (every file, notebooks decoded)


def model_answer_lines() -> list[str]:
    """Every line of 25 characters or more inside INSTRUCTORS.md's folded model answers."""
    text = (REPO / "INSTRUCTORS.md").read_text()
    boxes = re.findall(r"<summary>Model answer</summary>(.*?)</details>", text, re.S)
    return [ln.strip() for b in boxes for ln in b.splitlines() if len(ln.strip()) >= 25]


def table_pieces(student_text: str) -> list[str]:
    out = []
    for cells in ROWS.values():
        for cell in cells[1:]:  # what its check tests; the usual wrong answers
            for piece in re.split(r"; |\(told[^)]*\)", cell):
                piece = piece.strip(" ;,.")
                if len(piece) >= 25 and piece not in student_text:
                    out.append(piece)
    return out


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    base = tmp_path_factory.mktemp("copies")
    return release("students", base / "students"), release("instructors", base / "inst")


def test_the_students_copy_holds_no_model_answer_and_no_table_value(copies):
    students, instructors = copies
    stud, inst = text_of(students), text_of(instructors)
    lines = model_answer_lines()
    assert len(lines) >= 10 and all(s in inst for s in lines)
    assert not [s for s in lines if s in stud]
    # what a student sees by design: their notebooks (exercise wording) and the hints
    facing = "\n".join([text_of(students / "notebooks"),
                        (students / "ftd_lib/course/exercises/hints.py").read_text()])
    pieces = table_pieces(facing)
    assert len(pieces) >= 60 and all(p in inst for p in pieces)
    leaked = [p for p in pieces if p in stud]
    assert not leaked, leaked[:5]
    print(f"\nleak scan: {len(lines)} model-answer lines, {len(pieces)} table pieces; "
          f"students' copy: 0 found; instructors' copy: all found")


def test_the_students_copy_has_no_answer_table_nor_grader_and_is_readable(copies):
    students, instructors = copies
    for name in INSTRUCTORS_LIBRARY:
        assert not (students / name).exists() and (instructors / name).exists(), name
    assert "FOR_INSTRUCTORS" not in text_of(students / "ftd_lib")
    assert oct(students.stat().st_mode & 0o777) == "0o755"


def test_the_students_results_name_no_instructors_commit_or_folder(copies):
    """The stored results keep their numbers but not the instructors' commit ids and machine
    folders (the instructors' copy keeps them: the search finds what it looks for)."""
    students, instructors = copies
    commits = set(re.findall(r'"commit": "([0-9a-f]{40})"', text_of(instructors / "results")))
    assert len(commits) >= 3
    stud = text_of(students / "results")
    assert not [c for c in commits if c[:12] in stud]
    assert "--out /" in text_of(instructors / "results") and "--out /" not in stud
    from ftd_lib.course.live import stored

    for name in ("fig3-right", "fig4-left"):  # read as before: the same numbers
        mine, theirs = stored(name, students / "results"), stored(name, instructors / "results")
        assert mine is not None and repr(mine.summary()) == repr(theirs.summary())


def test_the_site_zips_the_students_copy():
    """The site's zip is a students' release (so the scans above cover it)."""
    src = (REPO / "ftd_lib" / "publish" / "site.py").read_text()
    assert re.search(r"release\(\s*\"students\"", src), "site.py no longer packs a students' copy"
