"""Every right answer is accepted for every student id, and no two students in fifty share an
exercise's numbers.

The sweep: for each exercise whose numbers are drawn from the student's id, the worked solution
of its notebook (the nbgrader solution cell, the code an honest student writes) runs under each
id and its check must say ✅. A check reads nothing of the id but its ``given_*`` numbers, so ids
whose numbers coincide are run once (the solution for one of them, named in any failure):
that is what makes 10,000 ids cheap. The ids have the three shapes a class uses: student
numbers, names, e-mail addresses.

Before the right answer was tested first, 5 % of ids were refused a right answer: a slip
detector matched it where a draw was degenerate (V(S_2) = 0 in 02.1, G^(3) = 0 in 02.2,
λ^T below the tolerance in 03.2), and 06.3's "a measured share" test matched a right prediction
that happened to lie within 5e-5 of the measurement. The ids that hit them are in :data:`KNOWN`.

The fast tier sweeps :data:`N_FAST` ids (and the known ones); the ``slow`` tier 10,000.
"""

import collections
import contextlib
import functools
import io
import sys
from pathlib import Path

import pytest

from ftd_lib.course import exercises
from ftd_lib.course.exercises import nb06

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_student_numbers as T  # noqa: E402  (the worked solutions, read from the notebooks)

#: ids that were refused a right answer before (02.1, 02.2, 03.2, 06.3)
KNOWN = ("s8000041", "s8000131", "s8000000", "s8000296", "s8000023", "s8000086", "s8000025",
         "s8000033")
N_FAST, N_SLOW = 240, 10_000
FIRST = ("anna", "ben", "chiara", "dmitri", "emeka", "fatima", "gustav", "hana", "ines", "jun",
         "kofi", "lea", "mateo", "noor", "olga", "pavel", "qing", "rosa", "sven", "tariq")
LAST = ("kowalski", "nguyen", "okafor", "schmidt", "garcia", "tanaka", "haddad", "ivanova",
        "dubois", "rossi", "kim", "silva", "jensen", "novak", "ali", "murphy", "cohen")


def class_ids(n: int) -> list[str]:
    """``n`` distinct ids, a third of each shape: student numbers (``s2401300``), names
    (``Anna Kowalski 3``) and e-mail addresses (``anna.kowalski3@uni.example.edu``)."""
    out = []
    for i in range(n):
        first, last = FIRST[i % len(FIRST)], LAST[(i // len(FIRST)) % len(LAST)]
        k = i // (len(FIRST) * len(LAST))
        out.append((f"s{2401300 + i * 7:07d}", f"{first.title()} {last.title()} {k}",
                    f"{first}.{last}{k}@uni.example.edu")[i % 3])
    return out


#: every exercise with numbers of its own, but 05.2 (a new evaluation sample per id takes a
#: second: it is swept over a few ids, in the slow tier)
SWEPT = [(nb, c) for nb, c in T.SEEDED if (nb, c) != ("05", "check_constant_baseline")]


def _numbers(check, sid):
    module = T.MODULES[f"nb{check[0]}"]
    return repr([exercises.numbers_of(sid, getattr(module, g))
                 for g in sorted(T._uses(module, getattr(module, check[1])))])


@functools.cache
def _solution(nb, check):
    code, call = T._solution_code(nb, check)
    return (compile(code, f"<nb{nb} solution>", "exec"),
            compile(call.strip().rstrip(";"), f"<nb{nb} check>", "eval"))


def _right_answer_refused(nb, check, sid) -> str:
    """Run the worked solution of ``check`` under ``sid``'s numbers; '' when its check says ✅,
    else what it said."""
    code, call = _solution(nb, check)

    def run():
        ns = T._namespace()
        ns.update(T.MODULES)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(code, ns)  # noqa: S102
            ok = eval(call, ns)  # noqa: S307
        text = out.getvalue()
        return "" if ok is True and "❌" not in text else text.strip()[-300:]

    return exercises.numbers_of(sid, run)


@pytest.fixture(autouse=True)
def _self_study(monkeypatch):
    for name in (exercises.student.GRADED_ENV, exercises.student.CLASS_ENV):
        monkeypatch.delenv(name, raising=False)
    # 06.3's check measures ε-greedy with 20,000 draws (0.4 s): here the measured share is the
    # probability itself, the worst case for the check's "that is a measured share" slip test
    # (a right prediction must pass however close the measurement lies)
    monkeypatch.setattr(nb06, "measure_greedy_share",
                        lambda q, epsilon, **_: nb06.nb06.greedy_probability(epsilon, len(q)))
    exercises.use_student(None)
    yield
    exercises.use_student(None)


def _sweep(ids, builds=None):
    """(ids tried and distinct sets of numbers per exercise, the right answers refused); with
    ``builds``, 02.3 (a build run three times per call, 0.1 s) is run for that many of its
    sets of numbers only."""
    refused, tried = {}, {}
    for nb, check in SWEPT:
        groups = collections.defaultdict(list)
        for sid in ids:
            groups[_numbers((nb, check), sid)].append(sid)
        tried[f"{nb}.{check}"] = (len(ids), len(groups))
        sets = list(groups.values())
        if builds is not None and check == "check_td_lambda":
            sets = sets[:builds]
        for same in sets:
            why = _right_answer_refused(nb, check, same[0])
            if why:
                refused[f"{nb}.{check}"] = (len(same), same[:3], why)
    return tried, refused


def test_the_right_answer_is_accepted_for_every_id_fast(capsys):
    tried, refused = _sweep([*KNOWN, *class_ids(N_FAST)], builds=8)
    assert not refused, refused
    assert len(tried) == len(SWEPT) >= 15


@pytest.mark.slow
def test_the_right_answer_is_accepted_for_10000_ids(capsys):
    tried, refused = _sweep(class_ids(N_SLOW))
    assert not refused, refused
    with capsys.disabled():
        print("\nids tried per exercise (ids, distinct numbers), refusals 0:", tried)
    for sid in class_ids(30)[::3]:  # 05.2: a new evaluation sample per id
        assert not _right_answer_refused("05", "check_constant_baseline", sid), sid


def test_the_ids_hit_before_are_accepted_and_were_degenerate():
    """The ids that were refused now draw numbers without the degenerate case (the check
    tests the right answer first anyway: the sweep above)."""
    from ftd_lib.course.exercises import nb02, nb03

    e = exercises.numbers_of("s8000041", nb02.given_episode)
    assert e["values"][2] != 0.0
    for sid in class_ids(2000):
        lam, T_ = exercises.numbers_of(sid, nb03.given_max_alpha).values()
        assert lam ** T_ >= 1e-3
        e = exercises.numbers_of(sid, nb02.given_episode)
        g, r = e["gamma"], e["rewards"]
        assert e["values"][2] != 0.0 and r[0] + g * r[1] + g * g * r[2] != 0.0


@pytest.mark.parametrize("module,name", T.GIVEN, ids=[f"{m.__name__[-4:]}.{n}" for m, n in T.GIVEN])
def test_at_most_one_student_in_fifty_shares_an_exercises_numbers(module, name):
    """The chance that two students of a class draw the same numbers (the sum of the squared
    shares of each set of numbers, over 3,000 ids of the three shapes) is at most 1/50 (05.3:
    its λ one of five stored ones, its 100 runs of the stored 200 a block drawn per student)."""
    fn = getattr(module, name)
    ids = class_ids(3000)
    counts = collections.Counter(repr(exercises.numbers_of(s, fn)) for s in ids)
    share = sum((c / len(ids)) ** 2 for c in counts.values())
    assert share <= 1 / 50, (name, len(counts), 1 / share)


@pytest.mark.parametrize("nb,check", T.SEEDED, ids=[f"{n}-{c}" for n, c in T.SEEDED])
def test_a_classmates_answer_is_named_for_every_exercise(nb, check, monkeypatch, capsys):
    """Graded with the class's ids known (the grader's ``--nbgrader`` step knows them), the
    worked answers of one student handed in by another (whose numbers differ, and whose answer
    has the same shape: a list of another length is refused as such) fail, and the verdict
    says whose numbers they are, for every exercise with numbers of its own."""
    import numpy as np

    ids = class_ids(40)
    mine = ids[0]
    theirs = T._answers(nb, check, mine, capsys)
    shapes = [np.shape(a) for a in theirs if not callable(a)]
    other = next(s for s in ids[1:] if _numbers((nb, check), s) != _numbers((nb, check), mine)
                 and [np.shape(a) for a in T._answers(nb, check, s, capsys)
                      if not callable(a)] == shapes)
    monkeypatch.setenv(exercises.student.CLASS_ENV, f"{mine},{other}")
    capsys.readouterr()
    ok = exercises.numbers_of(other, lambda: getattr(T.MODULES[f"nb{nb}"], check)(*theirs))
    out = capsys.readouterr().out
    named = (f"the numbers of student id {mine!r}, not for yours" in out
             or "the paper's numbers), not for yours" in out)  # theirs equals the paper's too
    assert ok is False and named, out
