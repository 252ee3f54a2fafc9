"""Real nbgrader (0.9.6, pinned in requirements.txt) on the instructors' release, as
INSTRUCTORS.md tells an instructor to do it: the test reads the fenced block of its "nbgrader"
paragraph and runs it (``release --for instructors --nbgrader-tests``, ``generate_assignment``,
``autograde``, ``generate_feedback``, ``export``), with two submissions in between: the untouched
student version that ``generate_assignment`` wrote, and the instructors' version with every
worked solution. From the gradebook, for every notebook with exercises: the untouched version
scores 0, the solved one full marks (one point per exercise); each student gets a feedback page
per notebook with those scores; the students' version holds no solution and no visible test, and
runs top to bottom; ``python -m ftd_lib check`` on a submission says what autograde scored.

One nbgrader course, built once for the module (about 4 minutes on 2 shared cores: the
autograder runs every notebook twice)."""

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


def instructors_block() -> list[str]:
    """The command lines of INSTRUCTORS.md's nbgrader block (comments dropped)."""
    text = (REPO / "INSTRUCTORS.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    block = next(b for b in blocks if "nbgrader generate_assignment" in b)
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Run INSTRUCTORS.md's block in a fresh folder, the two submissions put in place right
    before ``nbgrader autograde``; return the course folder."""
    lines = instructors_block()
    assert lines[0].startswith("python -m ftd_lib release --for instructors --nbgrader-tests")
    assert lines[1] == "cd mycourse" and any(ln.startswith("nbgrader autograde") for ln in lines)
    script = ["set -euo pipefail"]
    for line in lines:
        if line.startswith("nbgrader autograde"):
            script += ["for who in untouched solved; do mkdir -p submitted/$who/course; done",
                       "cp release/course/*.ipynb submitted/untouched/course/",
                       "cp source/course/*.ipynb submitted/solved/course/"]
        script.append(line)
        if line == "cd mycourse":  # the kernels import the copy's ftd_lib (INSTRUCTORS: its venv)
            script.append('export PYTHONPATH="$PWD"')
    base = tmp_path_factory.mktemp("nbgrader")
    env = dict(os.environ, PYTHONPATH=str(REPO), CI="true",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=base, env=env,
                       capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    return base / "mycourse"


@pytest.fixture(scope="module")
def scores(course):
    """{student: {notebook: (score, max_score)}} from the gradebook."""
    out = {}
    with nbgrader_api.Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for who in ("untouched", "solved"):
            sub = gb.find_submission("course", who)
            out[who] = {nb.name + ".ipynb": (nb.score, nb.max_score) for nb in sub.notebooks}
    print("\nnbgrader autograde, score / max (untouched, solved):", {
        n[:2]: (f"{out['untouched'][n][0]:g}/{out['untouched'][n][1]:g}",
                f"{out['solved'][n][0]:g}/{out['solved'][n][1]:g}") for n in sorted(out["solved"])})
    return out


def _exercises(path: Path) -> int:
    return sum(1 for c in nbformat.read(path, as_version=4).cells
               if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))


@pytest.mark.parametrize("name", GRADED, ids=lambda n: n[:2])
def test_untouched_scores_zero_and_the_solutions_full_marks(name, scores):
    n = _exercises(REPO / "notebooks" / name)
    assert n >= 1
    assert scores["untouched"][name] == (0.0, float(n)), scores["untouched"][name]
    assert scores["solved"][name] == (float(n), float(n)), scores["solved"][name]


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
    assert rows[0].startswith("assignment") and len(rows) == 3  # header, two students


@pytest.mark.parametrize("name", GRADED, ids=lambda n: n[:2])
def test_feedback_pages_for_every_notebook(name, course):
    """generate_feedback: one HTML page per student and notebook, with the notebook's total and
    each test cell's point; the untouched one shows the check's ❌ message and the failed
    assert, the solved one no failed assert."""
    n = _exercises(REPO / "notebooks" / name)
    stem = name.removesuffix(".ipynb")
    for who, score in (("untouched", 0), ("solved", n)):
        page = course / "feedback" / who / "course" / f"{stem}.html"
        assert page.is_file(), sorted(p.name for p in page.parent.glob("*"))
        html = page.read_text()
        assert f"{stem} (Score: {float(score)} / {float(n)})" in html, who
        tests = re.findall(r"Test cell</a> \(Score: ([\d.]+) / 1.0\)", html)
        assert tests == [f"{score / n:.1f}"] * n, (who, tests)
        assert ("AssertionError" in html) == (who == "untouched"), who
        assert who == "solved" or "❌" in html  # the check's own message, kept in its output


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
    """``python -m ftd_lib check`` on the two submissions of notebook 01: the untouched one 0 of
    m (exit 1), the solved one m of m (exit 0), as the gradebook says."""
    name = GRADED[0]
    for who in ("untouched", "solved"):
        r = subprocess.run([sys.executable, "-m", "ftd_lib", "check",
                            str(course / "submitted" / who / "course" / name)],
                           env=dict(os.environ, PYTHONPATH=str(REPO), CI="true"),
                           capture_output=True, text=True, timeout=600)
        score, total = scores[who][name]
        assert r.stdout.splitlines()[0] == f"{name}: {score:g} of {total:g} pass", r.stdout
        assert r.returncode == (0 if score == total else 1)
