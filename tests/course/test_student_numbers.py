"""Numbers of one's own: every exercise whose answer is computed from given numbers draws them
from the student's id (``use_student``, the ``student-id`` cell of each notebook). Two ids give
different numbers; one student's answers fail in another's notebook; the worked solutions,
which compute from the given numbers, pass for every id (and for no id, the paper's numbers).
"""

import inspect
import re
import types
from pathlib import Path

import nbformat
import numpy as np
import pytest

from ftd_lib import algorithms
from ftd_lib.approx import Linear
from ftd_lib.course import exercises
from ftd_lib.course import live as figures
from ftd_lib.course.exercises import nb01, nb02, nb03, nb04, nb05, nb06
from ftd_lib.course.roles import STUDENT_ID, has, is_solution
from ftd_lib.envs import mountain_car as mc
from ftd_lib.envs.random_walk import random_walk_episodes
from ftd_lib.rng import run_generator

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = {p.stem[:2]: p for p in sorted((REPO / "notebooks").glob("0*.ipynb"))}
MODULES = dict(nb01=nb01, nb02=nb02, nb03=nb03, nb04=nb04, nb05=nb05, nb06=nb06)
IDS = (None, "s1234567", "alice", 20261127)

#: every given_* function, by the module that owns it
GIVEN = [(m, n) for m in MODULES.values() for n in sorted(vars(m))
         if n.startswith("given_") and callable(getattr(m, n))]



def _names(code) -> set:
    """Every global name a function's code (and the code nested in it) uses."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def _uses(module, fn, seen=None) -> set:
    """The ``given_*`` functions of ``module`` that ``fn`` calls, directly or through the
    module's own helpers (read from the bytecode's names; a check's decorator unwrapped)."""
    seen = set() if seen is None else seen
    out = set()
    for n in _names(inspect.unwrap(fn).__code__):
        f = vars(module).get(n)
        if n.startswith("given_") and callable(f):
            out.add(n)
        elif inspect.isfunction(f) and inspect.unwrap(f).__module__ == module.__name__ \
                and n not in seen:
            seen.add(n)
            out |= _uses(module, f, seen)
    return out


#: every check, by notebook: (notebook, check name, the given_* functions it reads)
CHECKS = [(m.__name__[-2:], n, _uses(m, f)) for m in MODULES.values()
          for n, f in sorted(vars(m).items())
          if n.startswith("check_") and inspect.isfunction(f) and f.__module__ == m.__name__]

#: exercises with numbers of their own: every check that reads a given_* function (derived, not
#: listed: a new check that draws its numbers with given_* is tested here with no entry)
SEEDED = [(nb, name) for nb, name, given in CHECKS if given]


def test_every_given_function_is_read_by_a_check():
    """A given_* function no check reads would hand a student numbers nobody checks (or a check
    reads them in a way this file cannot see, and escapes the tests below)."""
    read = {(nb, g) for nb, _, given in CHECKS for g in given}
    unread = [f"{m.__name__}.{n}" for m, n in GIVEN if (m.__name__[-2:], n) not in read]
    assert not unread, unread
    assert len(SEEDED) >= 16, SEEDED  # the count the closing note gives


@pytest.fixture(autouse=True)
def _no_student(monkeypatch):
    """Each test starts and ends in self-study (no graded id), so no id leaks into the next
    test of this process: the grading variables go before the id is reset, not after."""
    for name in (exercises.student.GRADED_ENV, exercises.student.CLASS_ENV):
        monkeypatch.delenv(name, raising=False)
    exercises.use_student(None)
    yield
    for name in (exercises.student.GRADED_ENV, exercises.student.CLASS_ENV):
        monkeypatch.delenv(name, raising=False)
    exercises.use_student(None)


def _namespace(_calls=None) -> dict:
    """What a notebook's exercise cells find in scope."""
    return dict(np=np, mc=mc, figures=figures, algorithms=algorithms, Linear=Linear,
                random_walk_episodes=random_walk_episodes, run_generator=run_generator)


def _as_id(sid):
    exercises.use_student(sid)
    return sid


def test_use_student_rejects_bad_ids():
    for bad in ("", "   ", True, 1.5, ["s1"]):
        with pytest.raises(ValueError, match="student_id"):
            exercises.use_student(bad)
    assert exercises.use_student(" s1 ") == "s1" and exercises.student_id() == "s1"
    assert exercises.use_student(7) == "7"
    assert exercises.use_student(None) is None
    assert exercises.student_rng("nb01.discounted_return") is None


@pytest.mark.parametrize("module,name", GIVEN, ids=[f"{m.__name__[-4:]}.{n}" for m, n in GIVEN])
def test_two_ids_give_different_numbers_and_one_id_the_same(module, name):
    fn = getattr(module, name)
    paper = fn()
    seen = []
    for sid in ("s1", "s2", "s3", "s4"):
        _as_id(sid)
        first, again = fn(), fn()
        assert first == again  # the same id, the same numbers
        seen.append(repr(first))
    assert len(set(seen)) >= 3, seen  # ids differ (small draws may coincide once)
    assert sum(repr(paper) != x for x in seen) >= 3, (paper, seen)  # and differ from no id


def test_the_default_numbers_are_the_papers():
    assert nb01.given_return() == dict(rewards=[1.0] * 5, gamma=0.9)
    assert nb02.given_figure1_point() == dict(alpha=0.2, episode=1)
    assert nb03.given_max_alpha() == dict(lam=0.9, T=25)
    assert nb04.given_next_target() == nb04.NEXT_TARGET
    assert nb06.given_episode_length()["n_rewards"] == 1000
    assert nb06.given_epsilon() == dict(epsilon=0.05)


def _solution_code(nb: str, check: str) -> tuple[str, str]:
    for c in nbformat.read(NOTEBOOKS[nb], as_version=4).cells:
        if is_solution(c) and c.cell_type == "code" and f".{check}(" in c.source:
            head, rest = c.source.split("### BEGIN SOLUTION")
            code, call = rest.split("### END SOLUTION")
            return code, call
    raise AssertionError(f"no worked solution for {check} in notebook {nb}")


def _run_solution(nb, check, sid, capsys):
    """Run the worked solution of ``check`` under ``sid``'s numbers; (namespace, result)."""
    _as_id(sid)
    code, call = _solution_code(nb, check)
    ns = _namespace([])
    ns.update({k: v for k, v in MODULES.items()})
    exec(compile(code, f"<nb{nb} solution>", "exec"), ns)  # noqa: S102
    capsys.readouterr()
    result = eval(call.strip().rstrip(";"), ns)  # noqa: S307
    return ns, result, capsys.readouterr().out


@pytest.mark.parametrize("sid", IDS, ids=[str(s) for s in IDS])
@pytest.mark.parametrize("nb,check", SEEDED, ids=[f"{n}-{c}" for n, c in SEEDED])
def test_the_worked_solution_passes_for_every_id(nb, check, sid, capsys):
    if nb == "05" and sid not in (None, "alice"):
        pytest.skip("a new evaluation sample takes a second; two ids suffice")
    _, result, out = _run_solution(nb, check, sid, capsys)
    assert result is True, out
    assert "❌" not in out and "✅ Correct" in out, out


def _answers(nb, check, sid, capsys):
    ns, result, _ = _run_solution(nb, check, sid, capsys)
    assert result is True
    call = _solution_code(nb, check)[1].strip().rstrip(";")
    args = re.search(r"\((.*)\)\s*$", call, re.S).group(1)
    return [eval(a, ns) for a in args.split(",")]  # noqa: S307


@pytest.mark.parametrize("nb,check", SEEDED, ids=[f"{n}-{c}" for n, c in SEEDED])
def test_one_students_answers_fail_in_anothers_notebook(nb, check, capsys):
    if nb == "02" and check == "check_td_lambda":
        theirs = _answers(nb, check, "alice", capsys)
        _as_id("bob")
        assert nb02.given_figure1_point() != (_as_id("alice") and nb02.given_figure1_point())
    pairs = [("alice", "bob"), ("s1", "s2"), ("carol", "dave")]
    failed = 0
    for mine, other in pairs:
        theirs = _answers(nb, check, mine, capsys)
        _as_id(other)
        if getattr(MODULES[f"nb{nb}"], check)(*theirs) is False:
            failed += 1
            out = capsys.readouterr().out
            assert "❌" in out, out
        capsys.readouterr()
        if nb == "05":
            break
    assert failed >= (1 if nb == "05" else 2), f"{check}: a neighbour's answers passed"


def test_the_paper_numbers_answer_is_named_for_a_student_with_an_id(capsys):
    paper = sum(0.9 ** i for i in range(5))
    _as_id("alice")
    assert nb01.check_return(paper) is False
    assert "paper's numbers" in capsys.readouterr().out


def test_every_seeded_notebook_has_one_student_id_cell_near_the_top():
    for nb, path in NOTEBOOKS.items():
        cells = nbformat.read(path, as_version=4).cells
        idc = [i for i, c in enumerate(cells) if has(c, STUDENT_ID)]
        if nb == "07":
            assert not idc
            continue
        assert len(idc) == 1, nb
        i = idc[0]
        assert i < 8 and "STUDENT_ID = None" in cells[i].source
        assert "use_student(STUDENT_ID)" in cells[i].source
        first_exercise = min(j for j, c in enumerate(cells) if "exercise" in c.metadata.get(
            "tags", []))
        assert i < first_exercise


def test_np_default_rng_is_not_touched():
    state = np.random.get_state()[1][:5].copy()
    _as_id("x")
    nb01.given_return()
    assert np.array_equal(np.random.get_state()[1][:5], state)


#: a class of 200: ids as a university hands them out (consecutive numbers)
CLASS = [f"s{2401300 + i}" for i in range(200)]


@pytest.mark.parametrize("nb", sorted(MODULES), ids=str)
def test_in_a_class_of_200_no_two_ids_share_a_notebooks_numbers(nb):
    """Every notebook with given numbers: the 200 ids of one class get 200 different sets
    of them (two ids once shared notebook 06's 500 rewards and ε)."""
    module = MODULES[nb]
    given = [getattr(module, n) for n in sorted(vars(module)) if n.startswith("given_")
             and callable(getattr(module, n))]
    assert given, nb
    numbers = [repr([exercises.numbers_of(sid, g) for g in given]) for sid in CLASS]
    assert len(set(numbers)) == len(CLASS), nb


def test_graded_mode_uses_the_submitters_id_whatever_the_notebook_says(monkeypatch, capsys):
    """While grading (FTD_STUDENT_ID, set by the instructors' nbgrader hook or check
    --student), the numbers are the submitter's: a notebook that says None or another id is
    graded on them all the same, and says so; the paper's answer then fails."""
    alice = exercises.numbers_of("alice", nb01.given_return)
    paper = exercises.numbers_of(None, nb01.given_return)
    assert alice != paper
    monkeypatch.setenv(exercises.student.GRADED_ENV, "alice")
    assert exercises.use_student(None) == "alice"
    assert ("Graded as student id 'alice' (the submission's): this notebook gives no student "
            "id; graded on the numbers of 'alice' all the same") in capsys.readouterr().out
    assert nb01.given_return() == alice and exercises.student_id() == "alice"
    assert exercises.use_student("bob") == "alice"
    assert "this notebook gives student id 'bob'" in capsys.readouterr().out
    assert nb01.given_return() == alice
    exercises.use_student(True)  # an odd id in the notebook does not stop the grading
    assert "this notebook gives student id 'True'" in capsys.readouterr().out
    exercises.use_student("alice")
    assert "the id this notebook gives" in capsys.readouterr().out
    assert nb01.check_return(sum(r * paper["gamma"] ** i for i, r in enumerate(
        paper["rewards"]))) is False
    assert "student id 'alice'" in capsys.readouterr().out
    monkeypatch.delenv(exercises.student.GRADED_ENV)
    assert exercises.use_student(None) is None and nb01.given_return() == paper  # self-study


def _return(ex):
    return sum(r * ex["gamma"] ** i for i, r in enumerate(ex["rewards"]))


def test_a_classmates_answer_is_named_while_grading(monkeypatch, capsys):
    """With the class's ids (FTD_CLASS_IDS, from the submissions beside this one), an answer
    computed from a classmate's numbers says whose they are; a right answer passes."""
    monkeypatch.setenv(exercises.student.CLASS_ENV, ",".join(CLASS[:50]))
    monkeypatch.setenv(exercises.student.GRADED_ENV, CLASS[7])
    exercises.use_student(None)
    capsys.readouterr()
    theirs = _return(exercises.numbers_of(CLASS[31], nb01.given_return))
    assert nb01.check_return(theirs) is False
    assert f"the numbers of student id {CLASS[31]!r}, not for yours" in capsys.readouterr().out
    assert nb01.check_return(_return(nb01.given_return())) is True
    d = exercises.numbers_of(CLASS[12], nb06.given_episode_length)
    assert nb06.check_discounted_return(sum(d["gamma"] ** k for k in range(d["n_rewards"])))\
        is False
    assert f"student id {CLASS[12]!r}" in capsys.readouterr().out
    monkeypatch.delenv(exercises.student.CLASS_ENV)
    assert nb01.check_return(theirs) is False  # still wrong, without naming anyone
    assert "not for yours" not in capsys.readouterr().out
