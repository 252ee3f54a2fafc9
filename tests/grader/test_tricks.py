"""No trick gains a point: each trick a student who reads the library might try, handed in as a
notebook and graded by the real grading flow (:func:`ftd_lib.grader.grade.grade_notebook`, what
``python -m ftd_lib grade`` and its ``--nbgrader`` step run), scores as no answer, and the lines
that did it are flagged with their cell where a TA should see them. The honest notebook beside
them passes, so a failure here is the trick's, not the grader's.

Each notebook holds only the cells a trick needs (any notebook with the checks' calls is
graded: the grader finds exercises by their check call). A notebook runs in a kernel of its
own: about 5 s each, so the module is in the ``slow`` tier.
"""

from __future__ import annotations

import nbformat
import pytest

from ftd_lib.course.exercises import nb02 as nb02_checks
from ftd_lib.course.exercises import numbers_of

pytestmark = pytest.mark.slow

ME, FRIEND = "s2000002", "s1000001"
HEAD = ("%matplotlib inline\nimport numpy as np\n"
        "from ftd_lib.course.exercises import hint, nb02, use_student",
        "STUDENT_ID = None\nuse_student(STUDENT_ID);")
EX1 = ('e = nb02.given_episode()\nR, V, g = e["rewards"], e["values"], e["gamma"]\n'
       "answer = R[0] + g * R[1] + g**2 * V[2]\nnb02.check_n_step_return(answer);")
EX2 = ('e = nb02.given_episode()\nR, V, g, lam = e["rewards"], e["values"], e["gamma"], e["lam"]\n'
       "G1 = R[0] + g * V[1]\nG2 = R[0] + g * R[1] + g**2 * V[2]\n"
       "G3 = R[0] + g * R[1] + g**2 * R[2] + g**3 * V[3]\n"
       "answer = (1 - lam) * G1 + (1 - lam) * lam * G2 + lam**2 * G3\n"
       "nb02.check_interim_lambda_return(answer);")
TD = '''def my_td_lambda(episodes, w0, *, approx, alpha, lam, gamma):
{body}


from ftd_lib.approx import Linear
from ftd_lib.course.nb02_lambda_return import normalised_rms
from ftd_lib.envs.random_walk import random_walk_episodes
mine = nb02.given_figure1_point()
episodes = random_walk_episodes(3, np.random.default_rng(0))
W = my_td_lambda(episodes, np.zeros(10), approx=Linear(10), alpha=mine["alpha"], lam=1.0,
                 gamma=1.0)
W = np.vstack([np.zeros(10), W])
end = sum(len(r) for _, r in episodes[:mine["episode"]])
fig1_point = float(normalised_rms(W)[end])
nb02.check_td_lambda(my_td_lambda, fig1_point);'''
OWN_TD = '''    w = np.array(w0, dtype=float)
    rows = []
    for x, r in episodes:
        trace = np.zeros(len(w))
        for t, reward in enumerate(r):
            last = t == len(r) - 1
            target = reward + (0.0 if last else gamma * approx.value(w, x[t + 1]))
            trace = trace * (gamma * lam) + approx.grad(w, x[t])
            w = w + alpha * (target - approx.value(w, x[t])) * trace
            rows.append(w)
    return np.array(rows)'''
LIBRARY = "approx=approx, alpha=alpha, lam=lam, gamma=gamma"


def friends_answers() -> tuple[float, float]:
    """02.1 and 02.2's right answers for the friend's numbers (what a copier hands in)."""
    e = numbers_of(FRIEND, nb02_checks.given_episode)
    return nb02_checks._g2(e), nb02_checks._g_lam(e)


def _copied():
    g2, glam = friends_answers()
    return [f"answer = {g2!r}\nnb02.check_n_step_return(answer);",
            f"answer = {glam!r}\nnb02.check_interim_lambda_return(answer);"]


#: name -> (the cells after HEAD, the checks it must not pass, must it be flagged)
TRICKS = {
    "honest (control)": ([EX1, EX2, TD.format(body=OWN_TD)], (), False),
    "T2 library function in the answer cell, check called again in another cell": (
        ["from ftd_lib.returns import n_step_return\ne = nb02.given_episode()\n"
         'answer = n_step_return(e["rewards"], e["values"], 0, 2, e["gamma"])\n'
         "nb02.check_n_step_return(answer);", "nb02.check_n_step_return(answer);"],
        ("nb02.check_n_step_return",), False),
    "T3 sys.setprofile(None), then the library's td_lambda": (
        [TD.format(body="    import sys\n    sys.setprofile(None)\n"
                   "    from ftd_lib import algorithms\n"
                   f"    return algorithms.td_lambda(episodes, w0, {LIBRARY})")],
        ("nb02.check_td_lambda",), True),
    "T4 a friend's answers and os.environ['FTD_STUDENT_ID'] = the friend": (
        [f'import os\nos.environ["FTD_STUDENT_ID"] = "{FRIEND}"\nuse_student(None);',
         *_copied()], ("nb02.check_n_step_return", "nb02.check_interim_lambda_return"), True),
    "T5 setattr(nb02, 'check_...', lambda *a, **k: True), no answers": (
        ['setattr(nb02, "check_n_step_return", lambda *a, **k: True)\n'
         'setattr(nb02, "check_interim_lambda_return", lambda *a, **k: True)',
         "answer = None\nnb02.check_n_step_return(answer);",
         "answer = None\nnb02.check_interim_lambda_return(answer);"],
        ("nb02.check_n_step_return", "nb02.check_interim_lambda_return"), True),
    "T5b grading.RESULTS.append((10**6, 'nb02.check_...', True))": (
        ["from ftd_lib.course import grading\n"
         "grading.RESULTS.append((10**6, 'nb02.check_n_step_return', True))",
         "answer = 0.0\nnb02.check_n_step_return(answer);"], ("nb02.check_n_step_return",),
        True),
    "T6 a check's helper patched (nb02.check_close, check_weights_per_step)": (
        ["nb02.check_close = lambda *a, **k: True\n"
         "nb02.check_weights_per_step = lambda *a, **k: True",
         "answer = 0.0\nnb02.check_n_step_return(answer);",
         TD.format(body="    from ftd_lib.algorithms import td_lambda\n"
                   f"    return td_lambda(episodes, w0, {LIBRARY})")],
        ("nb02.check_n_step_return", "nb02.check_td_lambda"), True),
    "T8 a check's private helper in another cell (nb02._g2)": (
        ["_a1 = nb02._g2(nb02.given_episode())",
         "answer = _a1\nnb02.check_n_step_return(answer);"], ("nb02.check_n_step_return",),
        True),
    "T9 live.stored patched with made-up results for 05.3": (
        ["from ftd_lib.course import live\nfrom ftd_lib.course.exercises import nb05\n"
         "class Fake:\n    def summary(self):\n"
         "        return {f'η = {e:g}': dict(x=np.array([nb05.given_experiment()['lam']]),"
         " y=np.array([0.123]), cell=np.array([0])) for e in (0.01, 0.1, 0.3)}\n"
         "    def __getitem__(self, key):\n"
         "        return np.full((1, 200), 0.123)\n"
         "live.stored = lambda name, *a, **k: Fake()",
         "import math\nlam = nb05.given_experiment()['lam']\n"
         "prediction = 'stays'\nwhy = 'the errors should stay level across the three etas'\n"
         "nb05.record_prediction(prediction, why)\n"
         "K_etas = [math.ceil(math.log(e) / math.log(lam)) for e in (0.01, 0.1, 0.3)]\n"
         "errors = [0.123] * 3\nnb05.check_eta_experiment(K_etas, prediction, errors);"],
        ("nb05.check_eta_experiment",), True),
    # tricks of our own
    "the library's td_lambda inside try/except (the refusal caught)": (
        [TD.format(body="    from ftd_lib import algorithms\n    try:\n"
                   f"        return algorithms.td_lambda(episodes, w0, {LIBRARY})\n"
                   "    except Exception:\n        return None")],
        ("nb02.check_td_lambda",), False),
    "the library's td_lambda through functools.partial": (
        ["import functools\nfrom ftd_lib import algorithms as al\n"
         "_mine = functools.partial(al.td_lambda)",
         TD.format(body=f"    return _mine(episodes, w0, {LIBRARY})")],
        ("nb02.check_td_lambda",), False),
    "the paper's numbers forced (student_id patched to None)": (
        ["from ftd_lib.course.exercises import student\nstudent.student_id = lambda: None",
         EX1], ("nb02.check_n_step_return",), True),
    "print replaced to fake the verdict, the check call removed": (
        ["import builtins\nanswer = 1.0\nprint('✅ Correct: G_0^(2) is right.')",
         "nb02.check_interim_lambda_return(None);"],
        ("nb02.check_n_step_return", "nb02.check_interim_lambda_return"), True),
}


def notebook(cells, path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (*HEAD, *cells)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def course():
    from ftd_lib.grader.submission import course_cells

    return course_cells()


@pytest.mark.parametrize("name", list(TRICKS))
def test_no_trick_gains_a_point(name, tmp_path, course):
    from ftd_lib.grader.grade import grade_notebook

    cells, must_fail, flagged = TRICKS[name]
    path = notebook(cells, tmp_path / "02_lambda_return.ipynb")
    g = grade_notebook(path, ME, classmates=(ME, FRIEND), course=course, timeout=120)
    assert not g.error, g.lines()
    report = "\n".join(g.lines())
    if not must_fail:  # the control: every exercise it answers passes
        assert g.results and all(r.passed for r in g.results.values()), report
        assert not g.flags, report
        return
    for check in must_fail:
        r = g.results.get(check)
        assert r is None or not r.passed, report  # the score of no answer
    if flagged:
        assert g.flags and all(f.cell >= 3 for f in g.flags), report
    if name.startswith("T4"):  # the copy is named as the friend's
        assert f"student id {FRIEND!r}" in report, report
