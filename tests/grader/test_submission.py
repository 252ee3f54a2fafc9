"""The grader reads any handed-in notebook by its check calls, and runs a student's function in a
child process from its source; fast (no kernel: the flows with one are ``test_tricks.py`` and
``test_class_of_three.py``)."""

from __future__ import annotations

import nbformat
import numpy as np
import pytest

from ftd_lib import algorithms
from ftd_lib.approx import Linear
from ftd_lib.course.exercises import run_student
from ftd_lib.envs.random_walk import random_walk_episodes
from ftd_lib.grader import submission as S
from ftd_lib.grader.child import Remote, decode, encode
from ftd_lib.grader.grade import grade_notebook


def _nb(cells, path, tags=None):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) if not c.startswith("# md") else
                nbformat.v4.new_markdown_cell(c[5:]) for c in cells]
    for i, t in (tags or {}).items():
        nb.cells[i].metadata["tags"] = t
    nbformat.write(nb, path)
    return path


COURSE = {S.normal("from ftd_lib.course.exercises import nb02")}


def test_exercises_are_found_by_their_check_call_in_any_order_or_name(tmp_path):
    cells = ["from ftd_lib.course.exercises import nb02",
             "answer = 2.0\nnb02.check_interim_lambda_return(answer);",  # moved first
             "# md Exercise 1",
             "x = 1\nanswer = 3.0  # mine\nnb02.check_n_step_return(answer)",
             "# YOUR CODE HERE (or in the exercise cell above)\nnb02.check_n_step_return(answer);",
             "assert nb02.check_n_step_return(answer)"]
    sub = S.read(_nb(cells, tmp_path / "renamed by me.ipynb"), COURSE)
    assert [(e.check, e.args, e.first, e.end) for e in sub.exercises] == [
        ("nb02.check_interim_lambda_return", ["answer"], 1, 3),
        ("nb02.check_n_step_return", ["answer"], 3, 6)]
    # the import is the course's; the answers, the stub (its comment and the call aside: empty)
    assert sub.students == {1, 3}
    assert "x = 1" in sub.answer_cells(sub.exercises[1])
    # an exercise's answer cells: the student's, after the exercise before it, to its end
    assert "answer = 2.0" not in sub.answer_cells(sub.exercises[1])
    assert "answer = 2.0" in sub.answer_cells(sub.exercises[0])


def test_a_notebook_that_cannot_be_graded_says_why(tmp_path):
    bad = tmp_path / "broken.ipynb"
    bad.write_text("{not json")
    g = grade_notebook(bad, "s1", course=COURSE)
    assert g.error.startswith("broken.ipynb is not a readable notebook")
    assert "NOT GRADED" in g.lines()[0]
    g = grade_notebook(_nb(["print(1)"], tmp_path / "empty.ipynb"), "s1", course=COURSE)
    assert "no exercise found" in g.error and "NOT GRADED" in g.lines()[0]


@pytest.mark.parametrize("line,why", [
    ('os.environ["FTD_STUDENT_ID"] = "s1"', "environment"),
    ("setattr(nb02, 'check_x', f)", "replaces"),
    ("nb02.check_close = lambda *a: True", "replaces"),
    ("live.stored = fake", "replaces"),
    ("sys.setprofile(None)", "reaches around"),
    ("f = getattr(nb02, '_g' + '2')", "reaches around"),
    ("a = nb02._g_lam(e)", "private helper"),
    ("from ftd_lib.course.exercises.nb02 import _g2", "private helper"),
    ("grading.RESULTS.append((1, 'x', True))", "records"),
])
def test_the_tricks_lines_are_flagged_and_honest_lines_are_not(line, why, tmp_path):
    sub = S.read(_nb(["import numpy as np", line, "answer = np.sum([1.0, 2.0]) * 0.9 ** 2\n"
                      "nb02.check_n_step_return(answer)"], tmp_path / "n.ipynb"), COURSE)
    assert len(sub.flags) == 1 and why in sub.flags[0].why and sub.flags[0].cell == 2, sub.flags


def test_encode_keeps_what_a_check_reads():
    w = np.arange(3.0)
    rows = [w, w, np.ones(3)]  # the same array appended twice
    back = decode(encode(rows))
    assert back[0] is back[1] and back[0] is not back[2] and np.array_equal(back[2], np.ones(3))
    assert decode(encode((1, 2.5, "rises", None, True))) == (1, 2.5, "rises", None, True)
    assert decode(encode(np.eye(2, dtype=np.int64))).dtype == np.int64
    assert repr(decode(encode(object()))) == "<object object>"


SOURCE = '''import numpy as np
from ftd_lib import algorithms as al


def mine(episodes, w0, *, approx, alpha, lam, gamma):
    {body}
'''


def _remote(body):
    return Remote("mine", SOURCE.format(body=body))


def test_a_students_function_runs_in_a_child_and_the_library_cannot():
    episodes = random_walk_episodes(2, np.random.default_rng(0))
    kw = dict(approx=Linear(10), alpha=0.1, lam=0.5, gamma=0.9)
    want = algorithms.td_lambda(episodes, np.zeros(10), **kw)
    fn = _remote("import os\n    return np.full((3,), float(os.getpid()))")
    got, err = run_student(fn, episodes, np.zeros(10), **kw)
    assert err is None and got[0] != __import__("os").getpid()  # another process
    for body in ("return al.td_lambda(episodes, w0, approx=approx, alpha=alpha, lam=lam, "
                 "gamma=gamma)",
                 "import sys, functools\n    sys.setprofile(None)\n    f = functools.partial("
                 "al.td_lambda, approx=approx)\n    try:\n        return f(episodes, w0, "
                 "alpha=alpha, lam=lam, gamma=gamma)\n    except Exception:\n        return 0"):
        got, err = run_student(_remote(body), episodes, np.zeros(10),
                               refuse=(algorithms.td_lambda,), **kw)
        assert got is None and "runs the library's own td_lambda" in err, err
    # without the refusal the same call runs: the child refuses only what the check names
    got, err = run_student(_remote(
        "return al.td_lambda(episodes, w0, approx=approx, alpha=alpha, lam=lam, gamma=gamma)"),
        episodes, np.zeros(10), **kw)
    assert err is None and np.array_equal(got, want)
    got, err = run_student(_remote("raise NotImplementedError"), episodes, np.zeros(10), **kw)
    assert got is None and err.startswith("No answer yet")
    got, err = run_student(_remote("return 1 / 0"), episodes, np.zeros(10), **kw)
    assert err == "Your function raised ZeroDivisionError: division by zero"


def test_function_source_keeps_definitions_not_calls(tmp_path):
    cells = ["import numpy as np\nexpensive = np.linalg.inv(np.eye(2))\nK = 3\nf = lambda x: K * x",
             "def g(x):\n    return f(x) + 1\nprint(g(2))\nnb02.check_beta_lambda(g)"]
    sub = S.read(_nb(cells, tmp_path / "n.ipynb"), COURSE)
    src = S.function_source(sub, sub.exercises[0].end)
    assert "import numpy" in src and "K = 3" in src and "lambda x" in src and "def g" in src
    assert "inv(" not in src and "print(" not in src
    assert Remote("g", src)(2) == 7


def test_an_edited_locked_cell_is_flagged_and_an_untouched_one_is_not():
    released = nbformat.v4.new_notebook()
    released.cells = [nbformat.v4.new_code_cell("answer = None\nnb02.check_n_step_return(answer)"),
                      nbformat.v4.new_code_cell("# graded: the exercise's check (1 point)")]
    released.cells[1].metadata["nbgrader"] = dict(grade_id="nb02-n_step_return-test",
                                                  locked=True, grade=True, points=1)
    mine = nbformat.from_dict(released)
    assert S.locked_changes(mine, released) == []
    mine.cells[1].source = "assert True"
    (flag,) = S.locked_changes(mine, released)
    assert flag.cell == 2 and "nb02-n_step_return-test" in flag.why


def _write(nb, name):
    import tempfile

    path = S.Path(tempfile.mkdtemp()) / name
    nbformat.write(nb, path)
    return path


def test_honest_notebooks_raise_no_flag():
    """The course's notebooks with every worked solution (what an honest student may write)
    and the students' copy's untouched ones (its Colab cell names no repository) are read
    without a flag; every exercise is found."""
    from ftd_lib.course import colab
    from ftd_lib.publish.release import student_notebook

    course = S.course_cells()
    for path in sorted((S.Path(S.__file__).resolve().parents[2] / "notebooks").glob("0*.ipynb")):
        solved = S.read(path, course)
        assert solved.exercises and not solved.flags, (path.name, solved.flags)
        nb = student_notebook(nbformat.read(path, as_version=4))
        colab.unstamp(nb)
        untouched = S.read(_write(nb, path.name), course)
        assert untouched.students == set() and not untouched.flags, path.name
        assert [e.check for e in untouched.exercises] == [e.check for e in solved.exercises]
