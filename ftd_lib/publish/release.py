"""``python -m ftd_lib release --for students|instructors --out DIR``: one source, two releases.

The worked solutions live in the notebooks as nbgrader solution cells (cell metadata
``nbgrader: {solution: true, grade_id: ..., schema_version: 3}``; code between
``### BEGIN SOLUTION`` and ``### END SOLUTION``; a worked explanation in Markdown is a whole
solution cell, nbgrader's convention for written answers). In the repository they are folded:
JupyterLab's ``jupyter.source_hidden``/``outputs_hidden`` for code, an HTML ``<details>`` box for
Markdown (it folds in every renderer, GitHub and nbconvert included).

- ``--for students`` writes a self-contained copy of the course that starts on a fresh machine:
  the notebooks with their slideshow CSS (``notebooks/rise.css`` and one per notebook), the
  library (installable: ``pyproject.toml``), ``requirements.txt`` (the pins of the ``student``
  role, ``requirements/student.txt`` with what it reads) and the lock as ``constraints.txt``,
  binder/, the experiment files, the stored
  results, the licence and citation files (``LICENSE``, ``LICENSE-TEXT``, ``CITATION.cff``),
  ``start.sh`` (makes ``.venv``, installs the pins and ftd_lib, opens JupyterLab
  on notebook 01) and its own README (``release/README.students.md``: what the course is,
  the two commands, offline
  use, the homework: what to edit and hand in, how it is graded, the table of exercises,
  where to ask), and ``tests/test_homework.py`` (``pytest`` there runs ``python -m ftd_lib
  check`` on each notebook). With ``--repo OWNER/NAME --ref REF`` (the students' public
  repository it is published at) the notebooks' Colab cell installs from there; without, that
  cell says on Colab that the copy names no repository. No worked solution exists in it:
  every solution cell is dropped with its outputs; the library holds only checks and hints;
  no compiled file, no MyST source (``notebooks/src`` holds the solutions), none of the
  course's own tests, no instructors' material in the library (:data:`INSTRUCTORS_LIBRARY`:
  INSTRUCTORS.md's answer table, the grader). ``--no-hints``
  drops the hint cells too and writes the hint table empty.
- ``--for instructors`` writes the same with the solutions and the ``grading`` role's pins
  (nbgrader), plus
  INSTRUCTORS.md and an ``nbgrader_config.py`` whose stubs keep the student notebooks
  runnable (INSTRUCTORS.md says how to import the release into nbgrader or otter-grader).

The release is written to a temporary folder beside ``--out`` and moved into place only when
complete; an existing non-empty ``--out`` is refused unless ``force``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import nbformat

from ..course import colab, roles
from ..course.roles import is_solution

REPO = Path(__file__).resolve().parents[2]

#: the audiences a release is written for
CHOICES = ("students", "instructors")

#: what every release holds as it is (paths relative to the repository root); README.md,
#: requirements.txt and start.sh are written (:func:`readme`, :func:`requirements`)
COMMON = ("pyproject.toml", "binder", "ftd_lib", "experiments", "results",
          "scripts/time_nb06_helpers.py",  # notebook 06 tells students to run it
          "LICENSE", "LICENSE-TEXT", "CITATION.cff")  # what a copy may be used for, and how cited

#: only in the instructors' release (INSTRUCTORS.md and its pictures)
INSTRUCTORS_ONLY = ("INSTRUCTORS.md", "docs/images")

#: the library's instructors' material, left out of the students' copy: INSTRUCTORS.md's
#: answer table (:mod:`ftd_lib.publish.exercise_rows`) and the grader. (The rest of
#: ``ftd_lib/publish`` stays: the site's Sphinx build imports its extension from the copy.)
INSTRUCTORS_LIBRARY = ("ftd_lib/publish/exercise_rows.py", "ftd_lib/grader")

#: the copy's README template, start script and tests (in the repository, not in a release)
README_TEMPLATE = Path("release") / "README.students.md"
START = Path("release") / "start.sh"
HOMEWORK_TEST = Path("release") / "test_homework.py"

#: what the students' README says about copying the library's source into a graded answer
COPYING_RULE = (
    "The checks refuse an answer that runs the library's own implementation of what you were "
    "asked to write (called directly, under another name or inside a wrapper). Reading "
    "`ftd_lib/` to understand a method is welcome; copying a library function's source (or a "
    "classmate's answer) into a graded answer is not your answer, even where the check cannot "
    "tell: for the exercises where you write a function, your instructor may read your code or "
    "ask you to explain it, and a copied one counts as not answered.")

#: the requirements role each release installs (``requirements/ROLE.txt``, flattened)
ROLE = {"students": "student", "instructors": "grading"}

#: the head of a release's requirements.txt
REQUIREMENTS_HEAD = """\
# The course's packages, pinned ({what}; the course repository's requirements/{role}.txt).
# ./start.sh setup installs them into .venv/ (on Linux without an NVIDIA GPU, the CPU build of
# torch), reading the lock constraints.txt (every package they pull in, pinned).
-c constraints.txt
"""

#: what each release's requirements are for
WHAT = {"students": "taking the course", "instructors": "taking and grading the course"}

#: what the instructors' README adds to the students'
INSTRUCTORS_README = """
## For instructors

This is the instructors' copy: the notebooks hold the worked solutions (folded nbgrader
solution cells). `INSTRUCTORS.md` has the lecture plan, what every exercise checks, and how to
grade with nbgrader (`nbgrader_config.py`) or otter-grader.
"""

#: nbgrader's stubs for a student version that runs top to bottom: an unanswered exercise then
#: says "not answered yet" instead of raising NotImplementedError (nbgrader's default stub)
NBGRADER_CONFIG = '''\
# nbgrader configuration for this course (see INSTRUCTORS.md, "Grading with nbgrader").
c = get_config()  # noqa: F821
c.CourseDirectory.root = "."
# keep the student version runnable top to bottom and as the students' copy has it: the
# exercise cell already holds `answer = None` (or a skeleton), and its check then prints
# "No answer yet"; the solution between the markers leaves nothing behind
c.ClearSolutions.code_stub = {"python": ""}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
# a notebook cell may run for longer than nbgrader's default 30 s (notebook 06 compiles the
# control kernel on its first run)
c.Execute.timeout = 600
# graded as the submitter: before each submission runs, this hook puts its student's id (the
# folder submitted/<student>/course) in FTD_STUDENT_ID, which the notebooks' kernels inherit:
# every exercise uses that student's numbers, whatever STUDENT_ID the notebook gives, and the
# student-id cell prints which id it was graded as (INSTRUCTORS.md, "Graded as the student")
c.Autograde.pre_convert_hook = "ftd_lib.course.grading.autograde_as_submitter"
# nbgrader's OverwriteCells, but an untouched test cell (its hidden tests removed in the
# student version) is not reported as a changed checksum: only a cell a student edited is
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput", "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec", "ftd_lib.grader.nbgrader_cells.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata"]
'''

#: what --no-hints writes in place of the hint table
NO_HINTS = '''"""No hints in this copy of the course (released with ``--no-hints``)."""

HINTS: dict = {}
'''

END = "### END SOLUTION"
HIDDEN = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")

_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", ".ipynb_checkpoints",
                                 ".pytest_cache", "*.egg-info")


def student_notebook(nb, *, hints: bool = True):
    """A copy of notebook ``nb`` without its solution cells (and, with ``hints=False``, without
    its hint cells); the ``self-check`` cell's saved output (the solutions' "m of m pass") is
    cleared; a written answer's box keeps its text but not nbgrader's metadata (nbgrader's
    own student version comes from the instructors' release)."""

    nb = nbformat.from_dict(nb)
    nb.cells = [c for c in nb.cells
                if not is_solution(c) and (hints or not roles.has(c, roles.HINT))]
    for c in nb.cells:
        if c.cell_type == "code" and roles.has(c, roles.SELF_CHECK):
            c.outputs, c.execution_count = [], None
        if roles.has(c, roles.WRITTEN_ANSWER):  # a box to write in, not a solution to hide
            c.metadata.pop("nbgrader", None)
    return nb


#: the body of an autograder-test cell: the exercise's check run again, its verdict not printed
#: a second time (the exercise cell above printed it)
TEST_BODY = ("import contextlib as _ftd_c, io as _ftd_io\n"
             "with _ftd_c.redirect_stdout(_ftd_io.StringIO()):  # its verdict is shown above\n"
             "    _ftd_ok = {check}\n"
             "assert _ftd_ok is True")


def with_autograder_tests(nb):
    """A copy of the instructors' notebook ``nb`` as nbgrader's source: each worked solution's
    code moved into its exercise cell, between ``### BEGIN SOLUTION`` / ``### END SOLUTION``
    before the check's line (the cell becomes nbgrader's autograded answer), and, where the
    solution cell was, a locked autograder-test cell: the exercise's check run again, silently
    (:data:`TEST_BODY`), and ``assert`` it returned True (1 point), between nbgrader's
    ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``. The worked explanations and model
    answers (Markdown solutions worth 0 points) are left out: nbgrader would leave an empty
    "YOUR ANSWER HERE" box for each (the instructors' release without ``--nbgrader-tests`` has
    them). So the students' version nbgrader writes is the students' copy's notebook, each
    exercise cell as they know it, then a locked cell that shows only its comment: no empty
    box, each verdict printed once (in the exercise cell), and it runs top to bottom with its
    exercises unanswered (autograde puts the assert back). The written answers' boxes stay.
    ``python -m ftd_lib grade --nbgrader`` then replaces the tests' scores by its own
    (:mod:`ftd_lib.grader`)."""
    nb = nbformat.from_dict(nb)
    cells = []
    for cell in nb.cells:
        if (cell.cell_type == "markdown" and is_solution(cell)
                and not cell.metadata.get("nbgrader", {}).get("points")):
            continue  # a worked explanation or a model answer (0 points)
        if cell.cell_type != "code" or not is_solution(cell) or END not in cell.source:
            cells.append(cell)
            continue
        head, tail = cell.source.split(END, 1)
        check = tail.strip().rstrip(";")
        code = head.split("### BEGIN SOLUTION", 1)[1].strip("\n")
        exercise = next(c for c in reversed(cells) if c.cell_type == "code"
                        and roles.has(c, roles.EXERCISE) and check in c.source)
        before, call = exercise.source.rsplit(check, 1)
        exercise.source = (f"{before.rstrip()}\n### BEGIN SOLUTION\n{code}\n{END}\n"
                           f"{check}{call}")
        exercise.metadata["nbgrader"] = dict(cell.metadata["nbgrader"])
        grade_id = cell.metadata["nbgrader"]["grade_id"].replace("-solution", "-test")
        test = nbformat.v4.new_code_cell(
            "# graded: the exercise's check, run again by nbgrader's autograde (1 point)\n"
            f"{HIDDEN[0]}\n{TEST_BODY.format(check=check)}\n{HIDDEN[1]}")
        test.metadata["nbgrader"] = dict(grade=True, grade_id=grade_id, locked=True, points=1,
                                         schema_version=3, solution=False, task=False)
        cells.append(test)
    nb.cells = cells
    return nb


def role_pins(role: str, root: Path = REPO) -> list[str]:
    """The pins of ``requirements/ROLE.txt`` with every ``-r`` file it reads, in order, each
    once (``-c`` lines and comments dropped)."""
    path = Path(root) / "requirements" / f"{role}.txt"
    if not path.is_file():
        raise ValueError(f"role must name a file of {path.parent}, got {role!r}")
    out: list[str] = []
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("-r"):
            out += [p for p in role_pins(Path(line[2:].strip()).stem, root) if p not in out]
        elif line and not line.startswith("-") and line not in out:
            out.append(line)
    return out


def requirements(audience: str, root: Path = REPO) -> str:
    """The release's ``requirements.txt``: the pins of its role (:data:`ROLE`: the students'
    ``student``, the instructors' ``grading``), flattened, reading the lock the release ships as
    ``constraints.txt``."""
    if audience not in ROLE:
        raise ValueError(f"audience must be one of {', '.join(ROLE)}, got {audience!r}")
    return (REQUIREMENTS_HEAD.format(what=WHAT[audience], role=ROLE[audience])
            + "\n".join(role_pins(ROLE[audience], root)) + "\n")


def exercise_table(root: Path) -> str:
    """The README's table of exercises: per notebook with exercises, how many, how many of them
    required, and the optional ones by name, read from the cells (tag ``exercise``, and
    ``optional`` beside it: :mod:`ftd_lib.course.roles`, :func:`ftd_lib.course.grading.exercises`),
    so it stays right when an exercise is added, moved or relabelled."""
    from ..course.grading import exercises

    rows = ["| notebook | exercises | required | optional |", "| --- | ---: | ---: | --- |"]
    total = required = 0
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        exs = exercises(nbformat.read(path, as_version=4))
        if not exs:
            continue
        req = sum(e.required for e in exs)
        optional = ", ".join(e.title.split(" — ")[0] for e in exs if not e.required) or "none"
        rows.append(f"| `{path.name}` | {len(exs)} | {req} | {optional} |")
        total, required = total + len(exs), required + req
    rows.append(f"| all | {total} | {required} | {total - required} |")
    return "\n".join(rows)


def readme(root: Path, audience: str, hints: bool) -> str:
    """The release's README: the students' template with the list of notebooks, the table of
    exercises (:func:`exercise_table`) and the rule on copying (:data:`COPYING_RULE`); for the
    instructors, a paragraph on INSTRUCTORS.md."""
    rows = []
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        title = next((c.source.splitlines()[0].lstrip("# ").strip() for c in nb.cells
                      if c.cell_type == "markdown" and c.source.startswith("#")), path.stem)
        rows.append(f"- `notebooks/{path.name}`: {title}")
    text = (root / README_TEMPLATE).read_text()
    text = text.replace("{notebooks}", "\n".join(rows)).replace(
        "{hint_sentence}", "; a folded 💡 hint sits under each one" if hints else "").replace(
        "{exercise_table}", exercise_table(root)).replace("{copying_rule}", COPYING_RULE)
    return text + (INSTRUCTORS_README if audience == "instructors" else "")


#: what the students' copy says in place of an instructors' commit id or folder
NOT_HERE = "(the instructors' repository)"


def scrub_results(folder: Path) -> None:
    """The stored results' metadata without the instructors' identifiers (the students' copy):
    in every ``*.json`` under ``folder`` each ``git`` record becomes ``{"commit": NOT_HERE}``,
    any other ``"commit"`` string (the tiers' record) ``NOT_HERE``, and an absolute ``--out``
    folder in a command ``--out DIR``; every ``*.md`` report likewise. The arrays and their
    checksum are untouched: the copy reads the same results."""
    import json
    import re

    def text(t: str) -> str:
        t = re.sub(r"--out\s+/\S+", "--out DIR", t)
        return re.sub(r"commit [0-9a-f]{7,40}( \(uncommitted changes\))?", f"commit {NOT_HERE}",
                      t)

    def walk(v):
        if isinstance(v, dict):
            return {k: ({"commit": NOT_HERE} if k == "git" and isinstance(x, dict)
                        else NOT_HERE if k == "commit" and isinstance(x, str) else walk(x))
                    for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return text(v) if isinstance(v, str) else v

    for path in sorted(folder.rglob("*.json")):
        path.write_text(json.dumps(walk(json.loads(path.read_text())), indent=1) + "\n")
    for path in sorted(folder.rglob("*.md")):
        path.write_text(text(path.read_text()))


def check_out(out: Path, force: bool) -> Path:
    """``out`` resolved, where a release (or the site built from one) may be written: not the
    course's own folder or one above it, a folder, empty unless ``force``; else a
    ``ValueError`` naming ``--out``."""
    out = Path(out).expanduser().resolve()
    if out == REPO or out in REPO.parents:
        raise ValueError(f"--out must not be the course's own folder or one above it: {out}")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise ValueError(f"--out {out} exists and is not empty; choose another folder or "
                         "pass --force to replace it")
    return out


def _copy(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst, ignore=_IGNORE)
    else:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def _write(tmp: Path, audience: str, hints: bool, root: Path, tests: bool = False,
           repo: str | None = None, ref: str = colab.REF) -> None:
    for name in COMMON + (INSTRUCTORS_ONLY if audience == "instructors" else ()):
        _copy(root / name, tmp / name)
    if audience == "students":
        for name in INSTRUCTORS_LIBRARY:
            if (tmp / name).is_dir():
                shutil.rmtree(tmp / name)
            else:
                (tmp / name).unlink()
        scrub_results(tmp / "results")
    os.chmod(tmp, 0o755)  # readable by a TA's account or a web server, as a copied folder is
    (tmp / "README.md").write_text(readme(root, audience, hints))
    (tmp / "requirements.txt").write_text(requirements(audience, root))
    shutil.copy2(root / "requirements" / "lock.txt", tmp / "constraints.txt")
    shutil.copy2(root / START, tmp / "start.sh")
    os.chmod(tmp / "start.sh", 0o755)
    (tmp / "tests").mkdir()  # `pytest` in the copy grades the homework (README: "Homework")
    shutil.copy2(root / HOMEWORK_TEST, tmp / "tests" / "test_homework.py")
    (tmp / "notebooks").mkdir()
    for css in sorted((root / "notebooks").glob("*.css")):  # the slideshow's styles
        shutil.copy2(css, tmp / "notebooks" / css.name)
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if audience == "students":
            nb = student_notebook(nb, hints=hints)
        elif not hints:
            nb.cells = [c for c in nb.cells if not roles.has(c, roles.HINT)]
        if tests:
            nb = with_autograder_tests(nb)
        if repo is None:  # no repository to install from: the Colab cell says so on Colab
            colab.unstamp(nb)
        else:
            colab.stamp(nb, repo, ref)
        nbformat.write(nb, tmp / "notebooks" / path.name)
    if not hints:
        (tmp / "ftd_lib" / "course" / "exercises" / "hints.py").write_text(NO_HINTS)
    if audience == "instructors":
        (tmp / "nbgrader_config.py").write_text(NBGRADER_CONFIG)


def release(audience: str, out, *, hints: bool = True, force: bool = False,
            nbgrader_tests: bool = False, root: Path = REPO, repo: str | None = None,
            ref: str = colab.REF) -> Path:
    """Write the release for ``audience`` (``"students"`` or ``"instructors"``) to ``out``;
    return its path. ``nbgrader_tests`` (instructors only) adds an autograder-test cell after
    every worked solution (:func:`with_autograder_tests`). ``repo``/``ref``: the public
    repository and ref the copy is published at, which its notebooks' Colab cell installs from
    (:func:`ftd_lib.course.colab.stamp`); without ``repo`` that cell says on Colab that the copy
    names none. Nothing is left half-written: the copy
    is made in a temporary folder beside ``out`` and moved into place at the end."""
    if audience not in CHOICES:
        raise ValueError(f"--for must be one of {', '.join(CHOICES)}, got {audience!r}")
    if nbgrader_tests and audience != "instructors":
        raise ValueError("--nbgrader-tests is for --for instructors (the tests hold the checks' "
                         "calls, which a student release has in its exercise cells anyway)")
    if repo is not None:
        colab.copy_url(repo, ref)  # a ValueError naming repo or ref
    out = check_out(out, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        _write(tmp, audience, hints, Path(root), nbgrader_tests, repo, ref)
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def main(argv=None) -> int:
    """Command line: ``python -m ftd_lib release --for students --out DIR [--no-hints]``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m ftd_lib release", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("--for", dest="audience", required=True, metavar="{students,instructors}",
                   help="students: no worked solution anywhere; instructors: with them and "
                   "INSTRUCTORS.md")
    p.add_argument("--out", required=True, help="the folder to write (must not exist or be "
                   "empty, unless --force)")
    p.add_argument("--no-hints", action="store_true", help="leave the hints out too")
    p.add_argument("--force", action="store_true", help="replace a non-empty --out")
    p.add_argument("--nbgrader-tests", action="store_true", help="instructors: add an nbgrader "
                   "autograder-test cell (assert the check) after every worked solution")
    p.add_argument("--repo", metavar="OWNER/NAME", help="the public repository the copy is "
                   "published at (its notebooks' Colab cell installs from it)")
    p.add_argument("--ref", default=colab.REF, help="the branch or tag of --repo (default "
                   f"{colab.REF})")
    a = p.parse_args(argv)
    try:
        path = release(a.audience, a.out, hints=not a.no_hints, force=a.force,
                       nbgrader_tests=a.nbgrader_tests, repo=a.repo, ref=a.ref)
    except ValueError as e:
        p.error(str(e))
    print(f"wrote the {a.audience}' release to {path}")
    return 0
