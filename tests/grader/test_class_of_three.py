"""A TA grades a class of three with real nbgrader (0.9.6) and ``python -m ftd_lib grade
--nbgrader``, as INSTRUCTORS.md's block says, on notebook 02 (one notebook keeps it to minutes):

- ``honest``: the *students' copy*'s notebook (no nbgrader metadata: nbgrader alone scores it
  0), answers typed in as numbers for their own id, a TD(λ) of their own;
- ``copied``: the honest notebook handed in unchanged by another student;
- ``tricked``: nbgrader's student version with the review's tricks: the checks replaced by
  ``lambda *a, **k: True``, the grading id swapped in ``os.environ``, no answers.

After ``autograde`` (nbgrader's scores, which the student's code could reach) the grader's step
rewrites every test cell's score: honest full marks, the copy 1 of 3 (its two numbers named as
the honest student's; a copied function passes, INSTRUCTORS.md says so), the tricks 0 and
flagged with their cell in the comment and the report; the feedback pages show those scores.
``slow``: nbgrader runs each notebook, then the grader runs it again (about 3 minutes).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.slow
nbgrader_api = pytest.importorskip("nbgrader.api")

REPO = Path(__file__).resolve().parents[2]
NB = "02_lambda_return.ipynb"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
CLASS = ("honest", "copied", "tricked")


def instructors_block() -> list[str]:
    text = (REPO / "INSTRUCTORS.md").read_text()
    block = next(b for b in re.findall(r"```bash\n(.*?)```", text, re.S)
                 if "nbgrader generate_assignment" in b)
    return [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("#")]


def honest_notebook(students_copy: Path, instructors: Path, out: Path) -> None:
    """The students' copy's notebook 02 with every exercise answered as the student ``honest``
    would: the worked solution's code in the exercise cell, its numbers typed in."""
    from ftd_lib.course.exercises import nb02, numbers_of

    e = numbers_of("honest", nb02.given_episode)
    typed = {"check_n_step_return": nb02._g2(e), "check_interim_lambda_return": nb02._g_lam(e)}
    solutions = {}
    for c in nbformat.read(instructors, as_version=4).cells:
        if c.cell_type == "code" and BEGIN in c.source:
            m = re.search(r"nb02\.(check_\w+)\(", c.source.split(END)[1])
            solutions[m.group(1)] = c.source.split(BEGIN)[1].split(END)[0]
    nb = nbformat.read(students_copy, as_version=4)
    for c in nb.cells:
        m = re.search(r"^nb02\.(check_\w+)\(.*$", c.source, re.M) if c.cell_type == "code" \
            else None
        if m and "exercise" in c.metadata.get("tags", []):
            code = (f"answer = {typed[m.group(1)]!r}\n" if m.group(1) in typed
                    else solutions[m.group(1)])
            c.source = code + m.group(0)
    nbformat.write(nb, out)


def tricked_notebook(release: Path, out: Path) -> None:
    nb = nbformat.read(release, as_version=4)
    i = next(i for i, c in enumerate(nb.cells) if "student-id" in c.metadata.get("tags", []))
    nb.cells.insert(i + 1, nbformat.v4.new_code_cell(
        'import os\nos.environ["FTD_STUDENT_ID"] = "honest"\n'
        'for _n in ("check_n_step_return", "check_interim_lambda_return", "check_td_lambda"):\n'
        "    setattr(nb02, _n, lambda *a, **k: True)"))
    test = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("locked")
                and "-test" in c.metadata["nbgrader"]["grade_id"])
    test.source = "assert True  # graded"  # T7: the locked test cell edited
    nbformat.write(nb, out)


def class_of_three(base: Path):
    """Run INSTRUCTORS.md's block in ``base`` for the class: (the course folder, nbgrader's
    scores, the grader's report, autograde's log, seconds per step).
    ``scripts/screenshot_grading.py`` pictures what it leaves for INSTRUCTORS.md."""
    import shutil

    env = dict(os.environ, PYTHONPATH=str(REPO), CI="true",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    times = {}

    def bash(lines, cwd, what):
        import time

        t = time.time()
        r = subprocess.run(["bash", "-c", "\n".join(["set -euo pipefail", *lines])], cwd=cwd,
                           env=env, capture_output=True, text=True, timeout=1500)
        times[what] = round(time.time() - t)
        assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
        return r.stdout + r.stderr

    lines = instructors_block()
    cut = next(i for i, ln in enumerate(lines) if ln.startswith("nbgrader autograde"))
    grade = next(i for i, ln in enumerate(lines) if ln.startswith("python -m ftd_lib grade"))
    setup = [ln for ln in lines[:cut] if not ln.startswith("mkdir -p source")]
    setup.insert(2, f"mkdir -p source/course && cp notebooks/{NB} source/course/")
    bash([ln if ln != "cd mycourse" else 'cd mycourse && export PYTHONPATH="$PWD"'
          for ln in setup], base, "release + generate_assignment")
    bash([f"python -m ftd_lib release --for students --out {base / 'students'}"], base,
         "students' copy")
    root = base / "mycourse"
    for who in CLASS:
        (root / "submitted" / who / "course").mkdir(parents=True)
    honest_notebook(base / "students" / "notebooks" / NB, REPO / "notebooks" / NB,
                    root / "submitted" / "honest" / "course" / NB)
    shutil.copy(root / "submitted" / "honest" / "course" / NB,
                root / "submitted" / "copied" / "course" / NB)
    tricked_notebook(root / "release" / "course" / NB,
                     root / "submitted" / "tricked" / "course" / NB)
    env["PYTHONPATH"] = str(root)
    autograde = bash([lines[cut]], root, "nbgrader autograde")
    before = scores(root)
    out = bash([lines[grade]], root, "python -m ftd_lib grade --nbgrader")
    bash(lines[grade + 1:], root, "generate_feedback + export")
    return root, before, out, autograde, times


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root, before, out, autograde, times = class_of_three(tmp_path_factory.mktemp("class3"))
    print("\nclass of three, seconds per step:", times, "\nnbgrader's scores:", before,
          "\nafter the grader:", scores(root), "\n" + out)
    return root, before, out, autograde


def scores(root) -> dict:
    with nbgrader_api.Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        return {who: {g.name: g.score for g in gb.find_submission_notebook(
            NB[:-6], "course", who).grades if not g.cell.name.endswith("solution")}
                for who in CLASS}


def test_nbgrader_alone_was_fooled_and_unfair(course):
    root, before, _, _ = course
    assert sum(before["honest"].values()) == 0  # the students' copy: no graded cells matched
    assert sum(before["tricked"].values()) == 3  # the patched checks


def test_the_graders_scores_are_in_the_gradebook(course):
    root, _, out, _ = course
    after = scores(root)
    tests = {k: v for k, v in after["honest"].items() if k.endswith("-test")}
    assert len(tests) == 3 and all(v == 1.0 for v in tests.values()), after
    copied = {k: v for k, v in after["copied"].items() if k.endswith("-test")}
    assert sorted(copied.values()) == [0.0, 0.0, 1.0], copied  # the typed numbers fail
    assert all(v == 0.0 for k, v in after["tricked"].items() if k.endswith("-test")), after
    assert "numbers of student id 'honest'" in out
    assert "FLAGGED" in out and "os.environ" in out and "setattr(nb02" in out
    assert out.count("edits the locked cell") == 1  # the tricked one's, no other
    assert (root / "ftd-grades-course.txt").read_text().count("NOT GRADED") == 0


def test_the_feedback_shows_the_graders_score_and_the_flags(course):
    root, _, _, _ = course
    page = (root / "feedback" / "tricked" / "course" / f"{NB[:-6]}.html").read_text()
    assert re.search(r"\(Score: 0\.0 / \d", page)
    assert "ftd_lib grade" in page and "FLAGGED" in page
    csv = (root / "grades.csv").read_text().splitlines()
    assert len(csv) == 4


def test_the_students_version_is_the_students_copys_notebook(course):
    """nbgrader's student version: no empty answer box, no stub cell, every exercise cell as
    the students' copy has it; each verdict printed once in the feedback; autograde warns of a
    changed checksum only for the submission whose cells changed (the tricked one)."""
    root, _, _, autograde = course
    released = nbformat.read(root / "release" / "course" / NB, as_version=4)
    text = "\n".join(c.source for c in released.cells)
    assert "YOUR ANSWER HERE" not in text and "YOUR CODE HERE" not in text
    assert "Worked solution" not in text
    page = (root / "feedback" / "honest" / "course" / f"{NB[:-6]}.html").read_text()
    assert page.count("G_0^(2) is right") == 1, page.count("G_0^(2) is right")
    # the honest and copied notebooks have no nbgrader cells; the tricked one edited one
    # locked test cell and left the other two as released (hidden tests removed): nbgrader's
    # own OverwriteCells warned for all three, the release's for the edited one alone
    edited = next(c.metadata["nbgrader"]["grade_id"] for c in nbformat.read(
        root / "submitted" / "tricked" / "course" / NB, as_version=4).cells
        if c.source == "assert True  # graded")
    warned = re.findall(r"Attribute 'checksum' for cell (\S+) has changed", autograde)
    print("autograde's checksum warnings:", warned)
    assert warned == [edited], warned
