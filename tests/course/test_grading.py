"""``python -m ftd_lib check`` (:mod:`ftd_lib.course.grading`): on an untouched students'
notebook it reports 0 of m and exits 1, on the worked solutions (the repository's notebooks)
m of m and exits 0, for every notebook with exercises; one answer filled in counts one; a
broken answer is named with its error, the others still graded; the count of exercises and
their names come from the cells tagged ``exercise``; a check's calls are recorded once, the
last call counting; and every notebook with exercises ends with the ``self-check`` cell."""

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from ftd_lib.course import grading, roles
from ftd_lib.publish.release import release

pytestmark = pytest.mark.slow  # python -m ftd_lib check runs notebooks in subprocesses

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
GRADED = [n for n in NOTEBOOKS if n.startswith("0")]
#: what a notebook's line says it was graded on, without a student id
PAPER = "; graded on the numbers of no student id (the paper's numbers)"


def exercise_cells(path: Path) -> int:
    return sum(1 for c in nbformat.read(path, as_version=4).cells
               if c.cell_type == "code" and "exercise" in c.metadata.get("tags", []))


def check(*args, cwd=REPO):
    env = dict(os.environ, PYTHONPATH=str(REPO), CI="true")
    r = subprocess.run([sys.executable, "-m", "ftd_lib", "check", *map(str, args)], cwd=cwd,
                       env=env, capture_output=True, text=True, timeout=1200)
    return r.returncode, r.stdout


@pytest.fixture(scope="module")
def students(tmp_path_factory):
    return release("students", tmp_path_factory.mktemp("grading") / "students")


def test_the_exercises_are_the_cells_tagged_exercise_each_with_its_check():
    total = 0
    for name in NOTEBOOKS:
        path = REPO / "notebooks" / name
        exs = grading.exercises(nbformat.read(path, as_version=4))
        assert len(exs) == exercise_cells(path)
        assert all(re.fullmatch(r"nb\d\d\.check_\w+", e.check) for e in exs), name
        assert all(e.check.startswith("nb" + name[:2]) for e in exs), name
        assert len({e.check for e in exs}) == len(exs), name  # one check per exercise
        assert all(e.title.startswith(("Exercise", "exercise")) for e in exs)
        total += len(exs)
    assert total >= 20


def test_the_last_call_of_a_check_counts_and_a_lost_call_fails():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("### Exercise 1 — a sum"),
                nbformat.v4.new_code_cell("nb01.check_return(answer);"),
                nbformat.v4.new_markdown_cell("**Exercise 2.** Two"),
                nbformat.v4.new_code_cell("nb01.check_value_state1(answer);"),
                nbformat.v4.new_code_cell("answer = 3  # the check's line deleted")]
    for c in nb.cells[1::2] + [nb.cells[4]]:
        c.metadata["tags"] = ["exercise"]
    nb.cells[4].metadata["tags"].append("optional-exercise")
    exs = grading.exercises(nb)
    assert [e.title for e in exs] == ["Exercise 1 — a sum", "Exercise 2", "exercise 3"]
    assert [e.required for e in exs] == [True, True, False]
    results = [(1, "nb01.check_return", False), (2, "nb01.check_return", True),
               (3, "nb01.check_value_state1", True), (4, "nb01.check_value_state1", False)]
    rep = grading._grade("x.ipynb", exs, results, {})
    assert rep.passed == {1: True, 3: False, 4: False} and rep.n == 1 and not rep.ok
    lines = rep.lines()
    assert lines[0] == "x.ipynb: 1 of 3 pass (1 of the 2 required ones)"
    assert "Exercise 2 [nb01.check_value_state1]" in lines[1]
    assert "(optional)" in lines[2] and "no longer calls its check" in lines[2]
    rep = grading._grade("x.ipynb", exs, results[:3], {})
    assert rep.ok and rep.n == 2  # the optional one may fail


def test_a_check_is_recorded_once_per_call_with_what_it_returned(capsys):
    from ftd_lib.course.exercises import nb01, nb04

    assert hasattr(nb01.check_return, "__ftd_recorded__")
    assert hasattr(nb04.check_rho, "__ftd_recorded__")
    before = len(grading.RESULTS)
    assert nb01.check_return(None) is False
    assert nb01.check_return(sum(0.9 ** i for i in range(5))) is True
    assert grading.RESULTS[before:] == [(-1, "nb01.check_return", False),
                                        (-1, "nb01.check_return", True)]
    assert "✅" in capsys.readouterr().out


def test_the_summary_counts_this_sessions_checks(tmp_path, monkeypatch, capsys):
    from ftd_lib.course.exercises import nb01

    nb = nbformat.read(REPO / "notebooks" / "01_td_basics.ipynb", as_version=4)
    nbformat.write(nb, tmp_path / "01_td_basics.ipynb")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(grading, "RESULTS", [])
    nb01.check_return(sum(0.9 ** i for i in range(5)))
    nb01.check_value_state1(None)
    capsys.readouterr()
    grading.summary("01_td_basics.ipynb")
    out = capsys.readouterr().out
    assert out.startswith("In this session 01_td_basics.ipynb: 1 of 3 pass\n")
    assert "fails: Exercise 2" in out and "fails: Exercise 3" in out
    assert "did not run" in out and "python -m ftd_lib check notebooks/01_td_basics.ipynb" in out
    monkeypatch.chdir(REPO)
    grading.summary("no_such.ipynb")  # never raises
    assert "could not read no_such.ipynb" in capsys.readouterr().out


def test_every_notebook_with_exercises_ends_with_the_self_check_cell():
    for name in GRADED:
        nb = nbformat.read(REPO / "notebooks" / name, as_version=4)
        last = nb.cells[-1]
        assert last.cell_type == "code" and roles.has(last, roles.SELF_CHECK), name
        assert f'grading.summary("{name}")' in last.source, name


@pytest.mark.parametrize("name", GRADED, ids=lambda n: n[:2])
def test_check_untouched_is_0_of_m_and_the_solutions_m_of_m(name, students):
    m = exercise_cells(REPO / "notebooks" / name)
    req, opt = roles.exercise_counts(nbformat.read(REPO / "notebooks" / name, as_version=4))
    assert req + opt == m
    rc, out = check(students / "notebooks" / name, cwd=students)
    head = f"{name}: 0 of {m} pass" + (f" (0 of the {req} required ones)" if opt else "") + PAPER
    assert rc == 1 and out.splitlines()[0] == head, out
    fails = [ln for ln in out.splitlines() if ln.startswith("  fails: ")]
    assert len(fails) == m and all(re.search(r"\]: \S", ln) for ln in fails), out  # what it said
    rc, out = check(REPO / "notebooks" / name)
    tail = f" ({req} of the {req} required ones)" if opt else ""
    assert (rc, out) == (0, f"{name}: {m} of {m} pass{tail}{PAPER}\n")


def test_one_answer_counts_one_and_a_broken_one_is_named(students, tmp_path):
    path = students / "notebooks" / "01_td_basics.ipynb"
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "exercise" in c.metadata.get("tags", [])]
    cells[0].source = cells[0].source.replace("answer = None", "answer = 1 + 0.9 + 0.81 + "
                                              "0.729 + 0.6561")
    cells[1].source = cells[1].source.replace("answer = None", "answer = undefined_name")
    mine = tmp_path / "01_td_basics.ipynb"
    nbformat.write(nb, mine)
    rc, out = check(mine, cwd=students)
    lines = out.splitlines()
    assert rc == 1 and lines[0] == "01_td_basics.ipynb: 1 of 3 pass" + PAPER, out
    assert "Exercise 2" in lines[1] and "raised NameError" in lines[1], out
    assert "Exercise 3" in lines[2] and "No answer yet" in lines[2], out
    # graded as a student (what nbgrader's autograde does with the submitter's id): the paper's
    # answer fails, and the line says whose numbers it graded
    rc, out = check("--student", "s2401337", mine, cwd=students)
    lines = out.splitlines()
    assert rc == 1 and lines[0] == ("01_td_basics.ipynb: 0 of 3 pass; graded on the numbers of "
                                    "student id 's2401337'"), out
    assert "the numbers of no student id (the paper's numbers), not for yours" in lines[1], out


def test_a_cell_past_the_timeout_is_interrupted_and_named(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from ftd_lib.course.exercises import nb01"),
                nbformat.v4.new_code_cell("nb01.check_return(4.0951);"),
                nbformat.v4.new_code_cell("import time\ntime.sleep(60)\n"
                                          "nb01.check_value_state1(0.0);"),
                nbformat.v4.new_code_cell("nb01.check_td0_update(7.0);")]
    for c in nb.cells[1:]:
        c.metadata["tags"] = ["exercise"]
    nbformat.write(nb, tmp_path / "slow.ipynb")
    rc, out = check("--timeout", "5", tmp_path / "slow.ipynb")
    lines = out.splitlines()
    assert rc == 1 and lines[0] == "slow.ipynb: 2 of 3 pass" + PAPER, out
    assert "exercise 2" in lines[1] and "raised KeyboardInterrupt" in lines[1], out


def test_check_refuses_what_is_not_a_notebook(tmp_path):
    rc, out = check(tmp_path / "missing.ipynb")
    assert rc == 2


def test_a_message_is_reported_whole():
    """``check`` reports an exercise's ❌ line and an error whole (it was once cut at
    ~240 characters)."""
    long = "Not yet: " + "a long message, word by word, " * 12 + "the end."
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"❌ {long}\n")]
    assert grading._first_cross(cell) == long and len(long) > 300
    cell.outputs = [nbformat.v4.new_output("error", ename="ValueError", evalue=long,
                                           traceback=[])]
    assert grading._first_cross(cell) == f"the cell raised ValueError: {long}"


def test_help_lists_every_command(capsys):
    """``python -m ftd_lib --help`` names every command it runs: the course's (check first
    among them) and the experiments'."""
    from ftd_lib.__main__ import COURSE, _main
    from ftd_lib.repro.cli import build_parser

    assert _main(["--help"]) == 0
    out = capsys.readouterr().out
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name in [*COURSE, *sub.choices]:
        assert re.search(rf"(?m)^\s+{name}\b", out), name
    assert "check" in COURSE and out.index("check ") > out.index("course commands")
