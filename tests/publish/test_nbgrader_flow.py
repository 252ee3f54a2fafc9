"""Real nbgrader (0.9.6, pinned in requirements.txt) on the instructors' release, as
INSTRUCTORS.md tells an instructor to do it: the test reads the fenced block of its "nbgrader"
paragraph and runs it (``release --for instructors --nbgrader-tests``, ``generate_assignment``,
``autograde``, ``generate_feedback``, ``export``), with three submissions in between, every
notebook saying ``STUDENT_ID = None``: the untouched student version that
``generate_assignment`` wrote, the instructors' version with every worked solution, and a third
student's notebook 01 that is the solved one with one answer copied as a number from the solved
student's numbers. From the gradebook, for every notebook with exercises: the untouched version
scores 0, the solved one full marks (one point per exercise, the written answers left to grade
by hand); each is graded on its submitter's numbers (the release's nbgrader_config.py hook) and
its feedback says which id; the copied answer fails and its feedback names whose numbers it
was for; each student gets a feedback page per notebook with those scores; the students'
version holds no solution and no visible test, and runs top to bottom; ``python -m ftd_lib
check`` on a submission says what autograde scored.

One nbgrader course, built once for the module (about 4 minutes on 2 shared cores: the
autograder runs every notebook twice)."""

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.slow  # real nbgrader: release, autograde of every notebook twice

if os.environ.get("CI"):  # required in CI: requirements.txt pins it
    import nbgrader.api as nbgrader_api
else:
    nbgrader_api = pytest.importorskip("nbgrader.api")

REPO = Path(__file__).resolve().parents[2]
GRADED = sorted(p.name for p in (REPO / "notebooks").glob("0*.ipynb"))
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUDENTS = ("untouched", "solved", "copier")


def copied_answer() -> float:
    """Notebook 01's exercise 1 answer for the solved student's numbers (student id
    ``solved``): what the copier hands in as a number."""
    from ftd_lib.course.exercises import nb01, numbers_of

    e = numbers_of("solved", nb01.given_return)
    return sum(r * e["gamma"] ** i for i, r in enumerate(e["rewards"]))


def copier_notebook(solved: Path, out: Path) -> None:
    """The solved notebook 01 with exercise 1's worked solution replaced by the solved
    student's answer, typed in as a number."""
    nb = nbformat.read(solved, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and BEGIN in c.source
                and "check_return(" in c.source)
    head, rest = cell.source.split(BEGIN)
    cell.source = f"{head}{BEGIN}\nanswer = {copied_answer()!r}\n{END}{rest.split(END)[1]}"
    nbformat.write(nb, out)


def instructors_block() -> list[str]:
    """The command lines of INSTRUCTORS.md's nbgrader block (comments dropped)."""
    text = (REPO / "INSTRUCTORS.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    block = next(b for b in blocks if "nbgrader generate_assignment" in b)
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Run INSTRUCTORS.md's block in a fresh folder, the three submissions put in place right
    before ``nbgrader autograde``; return the course folder."""
    import shutil

    # the grader's step re-runs every notebook (minutes for a class of three on every
    # notebook): tests/grader/test_class_of_three.py runs it on one notebook
    lines = [ln for ln in instructors_block() if not ln.startswith("python -m ftd_lib grade")]
    assert lines[0].startswith("python -m ftd_lib release --for instructors --nbgrader-tests")
    assert lines[1] == "cd mycourse" and any(ln.startswith("nbgrader autograde") for ln in lines)
    cut = next(i for i, ln in enumerate(lines) if ln.startswith("nbgrader autograde"))
    base = tmp_path_factory.mktemp("nbgrader")
    env = dict(os.environ, PYTHONPATH=str(REPO), CI="true",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")

    def bash(block, cwd):
        r = subprocess.run(["bash", "-c", "\n".join(["set -euo pipefail", *block])], cwd=cwd,
                           env=env, capture_output=True, text=True, timeout=1500)
        assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
        return r.stdout + r.stderr

    # the kernels import the copy's ftd_lib (INSTRUCTORS.md: its venv)
    bash([ln if ln != "cd mycourse" else 'cd mycourse && export PYTHONPATH="$PWD"'
          for ln in lines[:cut]], base)
    root = base / "mycourse"
    for who in STUDENTS:
        (root / "submitted" / who / "course").mkdir(parents=True)
    for nb in (root / "release" / "course").glob("*.ipynb"):
        shutil.copy(nb, root / "submitted" / "untouched" / "course")
    for nb in (root / "source" / "course").glob("*.ipynb"):
        shutil.copy(nb, root / "submitted" / "solved" / "course")
    copier_notebook(root / "source" / "course" / GRADED[0],
                    root / "submitted" / "copier" / "course" / GRADED[0])
    env["PYTHONPATH"] = str(root)
    (root / "autograde.log").write_text(bash(lines[cut:], root))
    return root


@pytest.fixture(scope="module")
def scores(course):
    """{student: {notebook: (score, max_score)}} from the gradebook."""
    out = {}
    with nbgrader_api.Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for who in STUDENTS:
            sub = gb.find_submission("course", who)
            out[who] = {nb.name + ".ipynb": (nb.score, nb.max_score) for nb in sub.notebooks}
    print("\nnbgrader autograde, score / max (untouched, solved):", {
        n[:2]: (f"{out['untouched'][n][0]:g}/{out['untouched'][n][1]:g}",
                f"{out['solved'][n][0]:g}/{out['solved'][n][1]:g}") for n in sorted(out["solved"])})
    return out


def _exercises(path: Path) -> int:
    return sum(1 for c in nbformat.read(path, as_version=4).cells
               if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))


def _has_student_id(name: str) -> bool:
    return any("student-id" in c.metadata.get("tags", [])
               for c in nbformat.read(REPO / "notebooks" / name, as_version=4).cells)


def _written(path: Path) -> float:
    """The points of a notebook's written answers, graded by hand (0 until then)."""
    return float(sum(c.metadata.get("nbgrader", {}).get("points", 0)
                     for c in nbformat.read(path, as_version=4).cells
                     if c.cell_type == "markdown" and "written-answer" in c.metadata.get(
                         "tags", [])))


@pytest.mark.parametrize("name", GRADED, ids=lambda n: n[:2])
def test_untouched_scores_zero_and_the_solutions_full_marks(name, scores):
    n = _exercises(REPO / "notebooks" / name)
    top = n + _written(REPO / "notebooks" / name)
    assert n >= 1
    assert scores["untouched"][name] == (0.0, top), scores["untouched"][name]
    assert scores["solved"][name] == (float(n), top), scores["solved"][name]


def solution_only_lines(path: Path) -> set[str]:
    """The lines of a notebook's solution code (between the markers) that no other cell of it
    holds (a skeleton's ``def`` line or an import is in the exercise cell too)."""
    cells = nbformat.read(path, as_version=4).cells
    sol, rest = set(), []
    for c in cells:
        if c.cell_type == "code" and BEGIN in c.source:
            sol |= {ln.strip() for ln in c.source.split(BEGIN)[1].split(END)[0].splitlines()}
            rest.append(c.source.split(END)[1])
        else:
            rest.append(c.source)
    rest_text = "\n".join(rest)
    return {s for s in sol if len(s) >= 16 and s not in rest_text}


@pytest.mark.parametrize("name", GRADED, ids=lambda n: n[:2])
def test_generate_assignment_leaves_no_solution(name, course):
    lines = solution_only_lines(REPO / "notebooks" / name)
    released = (course / "release" / "course" / name).read_text()
    assert BEGIN not in released and "📖 Worked solution</b>" not in released
    text = "\n".join(c.source for c in nbformat.reads(released, as_version=4).cells)
    source = "\n".join(c.source for c in nbformat.read(course / "source" / "course" / name,
                                                        as_version=4).cells)
    assert lines and all(s in source for s in lines)  # the search finds them where they are
    assert not [s for s in lines if s in text]


def test_the_grades_are_exported(course):
    rows = (course / "grades.csv").read_text().splitlines()
    assert rows[0].startswith("assignment") and len(rows) == 4  # header, three students


def autograde_warnings(log: str) -> dict:
    """{student: [(attribute, cell), ...]}: what autograde's log says changed in each
    submission (its lines after "Sanitizing .../submitted/<student>/...")."""
    out, who = {}, None
    for line in log.splitlines():
        m = re.search(r"Sanitizing \S*/submitted/([^/]+)/", line)
        if m:
            who = m.group(1)
            out.setdefault(who, [])
        m = re.search(r"Attribute '(\w+)' for cell (\S+) has changed", line)
        if m:
            out.setdefault(who, []).append(m.groups())
    return out


def test_an_untouched_submission_logs_no_checksum_warning(course):
    """nbgrader stores a test cell's checksum before it removes the hidden tests, so its own
    autograde finds every untouched test cell "changed" (three warnings a notebook); the
    release's ``OverwriteCells`` (:mod:`ftd_lib.grader.nbgrader_cells`) reports only a cell a
    student changed: none here (``test_class_of_three.py``: an edited one is reported)."""
    warned = autograde_warnings((course / "autograde.log").read_text())
    assert set(warned) == set(STUDENTS), warned  # every submission's notebooks were read
    assert warned["untouched"] == [], warned["untouched"]
    assert not [w for who in STUDENTS for w in warned[who] if w[0] == "checksum"], warned


@pytest.mark.parametrize("name", GRADED, ids=lambda n: n[:2])
def test_feedback_pages_for_every_notebook(name, course):
    """generate_feedback: one HTML page per student and notebook, with the notebook's total and
    each test cell's point; the untouched one shows the check's ❌ message and the failed
    assert, the solved one no failed assert."""
    n = _exercises(REPO / "notebooks" / name)
    top = n + _written(REPO / "notebooks" / name)
    stem = name.removesuffix(".ipynb")
    for who, score in (("untouched", 0), ("solved", n)):
        page = course / "feedback" / who / "course" / f"{stem}.html"
        assert page.is_file(), sorted(p.name for p in page.parent.glob("*"))
        text = page.read_text()
        assert f"{stem} (Score: {float(score)} / {top})" in text, who
        tests = re.findall(r"Test cell</a> \(Score: ([\d.]+) / 1.0\)", text)
        assert tests == [f"{score / n:.1f}"] * n, (who, tests)
        assert ("AssertionError" in text) == (who == "untouched"), who
        assert who == "solved" or "❌" in text  # the check's own message, kept in its output
        # graded on the submitter's numbers, whatever the notebook says (None), and it says so
        # (07's exercise has no numbers of its own: no student-id cell)
        said = (f"Graded as student id '{who}' (the submission's): this notebook gives no "
                f"student id; graded on the numbers of '{who}' all the same")
        assert not _has_student_id(name) or said in html.unescape(text), who


def test_a_copied_answer_fails_and_is_named(course, scores):
    """The copier's notebook 01 is the solved one with exercise 1's answer typed in from the
    solved student's numbers: graded on the copier's own numbers it loses that point, and the
    feedback says whose numbers the answer was for."""
    name = GRADED[0]
    n = _exercises(REPO / "notebooks" / name)
    assert scores["copier"][name] == (float(n - 1), float(n)), scores["copier"][name]
    page = course / "feedback" / "copier" / "course" / name.replace(".ipynb", ".html")
    text = html.unescape(page.read_text())
    assert "Graded as student id 'copier' (the submission's)" in text
    assert ("that is the answer for the numbers of student id 'solved', not for yours "
            "(student id 'copier')") in text


def test_the_students_version_hides_the_tests_and_runs(course):
    """The students' version of every notebook shows no assert (nbgrader's hidden tests), and
    notebook 01 runs top to bottom with its exercises unanswered (no error)."""
    from nbclient import NotebookClient

    for name in GRADED:
        cells = nbformat.read(course / "release" / "course" / name, as_version=4).cells
        graded = [c for c in cells if c.metadata.get("nbgrader", {}).get("grade")
                  and c.cell_type == "code"]
        assert len(graded) == _exercises(REPO / "notebooks" / name), name
        assert all("assert" not in c.source and "HIDDEN" not in c.source for c in graded), name
    nb = nbformat.read(course / "release" / "course" / GRADED[0], as_version=4)
    env = dict(os.environ, CI="true")
    old = os.environ.copy()
    os.environ.update(env)
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={
            "metadata": {"path": str(course / "release" / "course")}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(old)
    out = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                  for o in c.outputs)
    assert "No answer yet" in out and f"{GRADED[0]}: 0 of" in out


def test_check_says_what_autograde_scored(course, scores):
    """``python -m ftd_lib check --student WHO`` on the three submissions of notebook 01: what
    the gradebook says (the untouched one 0 of m, exit 1; the solved one m of m, exit 0; the
    copier m - 1 of m), graded on the same student's numbers, which its line names."""
    name = GRADED[0]
    for who in STUDENTS:
        r = subprocess.run([sys.executable, "-m", "ftd_lib", "check", "--student", who,
                            str(course / "submitted" / who / "course" / name)],
                           env=dict(os.environ, PYTHONPATH=str(REPO), CI="true"),
                           capture_output=True, text=True, timeout=600)
        score, total = scores[who][name]
        assert r.stdout.splitlines()[0] == (f"{name}: {score:g} of {total:g} pass; graded on "
                                            f"the numbers of student id {who!r}"), r.stdout
        assert r.returncode == (0 if score == total else 1)
