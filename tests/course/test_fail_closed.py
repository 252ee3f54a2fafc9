"""Every exercise check fails closed: called with answers nobody wrote (None, a function that
returns None, zeros, 0, a string such as '7', ``True``, the unmodified skeleton of its notebook's
exercise cell) and, where the exercise is a build, with the library's own implementation or a
thin wrapper or alias of it, each check returns ``False`` (the value nbgrader's autograder-test
cells assert), prints a ❌ line that names what is missing, and raises nothing. A positive
control runs every build check with the notebook's worked solution (the student's own code):
``True``, so a refusal is the borrowing, not the check failing anyway."""

import functools
import inspect
import re
from collections import deque
from pathlib import Path

import nbformat
import numpy as np
import pytest

from ftd_lib import algorithms, returns
from ftd_lib.approx import Linear
from ftd_lib.course import live as figures
from ftd_lib.course import nb06_nn_control
from ftd_lib.course.exercises import COPY_MIN, nb01, nb02, nb03, nb04, nb05, nb06, nb07
from ftd_lib.course.exercises.own_work import _fingerprint
from ftd_lib.course.nb02_lambda_return import figure1_data
from ftd_lib.course.roles import is_solution
from ftd_lib.envs import mountain_car as mc
from ftd_lib.envs.random_walk import random_walk_episodes
from ftd_lib.rng import run_generator

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = {p.stem[:2]: p for p in sorted((REPO / "notebooks").glob("0*.ipynb"))}
MODULES = dict(nb01=nb01, nb02=nb02, nb03=nb03, nb04=nb04, nb05=nb05, nb06=nb06, nb07=nb07)
CALL = re.compile(r"\b(nb\d\d)\.(check_\w+)\(")


def _simulated_beta(alpha, lam, T):
    """β measured by running the library's TD(λ): not the closed form exercise 1 asks for."""
    from ftd_lib.envs.one_state import one_state_episodes

    W = algorithms.td_lambda(one_state_episodes(1, T=int(T)), np.zeros(1), approx=Linear(1),
                             alpha=alpha, lam=lam, gamma=1.0)
    return float(W[-1, 0])


@functools.cache
def _fig3_right():
    return figures.stored("fig3-right")


@functools.cache
def _fig1_point():
    data = figure1_data()
    return float(data["curves"]["td_lambda"][data["episode_ends"][0]])


#: every check (THE entry a new exercise's check needs; test_every_check_has_a_spec names a
#: check without one): ``answers``, one ``("v", shape of a zeros answer)`` per value answered
#: and one ``("f", None)`` per function; ``rest``: the arguments after them that are not
#: answers; for a build, ``library``: (the library code a student must not hand in, the check's
#: arguments around a function). Optional, at the course's own numbers (no student id):
#: ``right``, an answer worked out by hand that passes, and ``slips``, ``[(a usual wrong answer,
#: what its message says)]`` (test_the_usual_slips_are_named)
SPECS = {
    nb01.check_return: dict(answers=[("v", ())]),
    nb01.check_value_state1: dict(answers=[("v", ())]),
    nb01.check_td0_update: dict(answers=[("v", ())]),
    nb02.check_n_step_return: dict(  # rewards 1, 0, 2; values 0.7, 0.5, 1.0, 0; γ = 0.9
        answers=[("v", ())], right=(1 + 0.9 * 0 + 0.81 * 1.0,),
        slips=[((1 + 0.9 * 0 + 0.9 * 1.0,), "discounted twice")]),
    nb02.check_interim_lambda_return: dict(  # G^(1), G^(2), G^(3) = 1.45, 1.81, 2.62; λ = 0.5
        answers=[("v", ())], right=(0.5 * 1.45 + 0.25 * 1.81 + 0.25 * 2.62,),
        slips=[((0.5 * (1.45 + 0.5 * 1.81 + 0.25 * 2.62),), "all the remaining weight")]),
    nb02.check_td_lambda: dict(answers=[("f", None), ("v", ())], library=(
        [algorithms.td_lambda], lambda fn: (fn, _fig1_point()))),
    nb03.check_think: dict(answers=[("v", ()), ("v", (4,))]),
    nb03.check_beta_replacing: dict(answers=[("v", ())]),
    nb03.check_beta_lambda: dict(answers=[("f", None)], library=(
        [nb03.beta_run, _simulated_beta], lambda fn: (fn,))),
    nb03.check_max_alpha_lambda: dict(answers=[("v", ())]),
    nb04.check_algorithm1: dict(answers=[("f", None)], library=(
        [algorithms.forward_td_lambda, algorithms.forward_td_lambda_by_definition],
        lambda fn: (fn,))),
    nb04.check_next_target: dict(answers=[("v", ())]),
    nb04.check_first_update: dict(answers=[("v", ()), ("v", ())]),
    nb04.check_horizon_extension: dict(answers=[("v", ())] * 3),
    nb04.check_k1_is_td0: dict(answers=[("v", ()), ("v", ())]),
    nb04.check_rho: dict(answers=[("f", None)], library=([returns.rho], lambda fn: (fn,))),
    nb05.check_true_value: dict(answers=[("f", None)], library=([mc.true_value],
                                                                 lambda fn: (fn,))),
    nb05.check_constant_baseline: dict(answers=[("v", ())]),
    nb05.check_eta_experiment: dict(answers=[("v", (3,)), ("v", ()), ("v", (3,))]),
    nb06.check_heuristic_steps: dict(answers=[("f", None)], library=(
        [nb06_nn_control.heuristic_steps, mc.velocity_policy], lambda fn: (fn,))),
    nb06.check_k: dict(answers=[("f", None)], library=([returns.k_bound], lambda fn: (fn,))),
    nb06.check_greedy_probability: dict(answers=[("v", ()), ("v", ())]),
    nb06.check_discounted_return: dict(answers=[("v", ())]),
    nb07.check_gae: dict(answers=[("f", None)], library=([returns.gae], lambda fn: (fn,))),
}


def _returns(value):
    return lambda *a, **k: value


def _pasted(lib):
    """The library function's source pasted in as a student's own, under other names: the
    function renamed and its first argument renamed (Python's bytecode does not change)."""
    import textwrap

    src = textwrap.dedent(inspect.getsource(lib))
    src = re.sub(r"^(\s*)@.*\n", "", src, flags=re.M)
    first = next(iter(inspect.signature(lib).parameters))
    src = re.sub(rf"\bdef {lib.__name__}\(", "def my_own(", src, count=1)
    src = re.sub(rf"\b{first}\b", f"{first}_mine", src)
    ns = dict(vars(inspect.getmodule(lib)))
    exec(compile(src, "<pasted>", "exec"), ns)  # noqa: S102
    return ns["my_own"]


def _zeros_like_answer(*a, **k):
    """A function that returns zeros of the shape its exercise asks for."""
    if a and isinstance(a[0], list):  # (episodes, w0, ...): the weights after every step
        return np.zeros((sum(len(r) for _, r in a[0]), len(a[1])))
    if len(a) == 5:  # a GAE rollout: one advantage per reward
        return np.zeros(len(a[0]))
    return 0.0


#: answers nobody wrote: (label, the value answer, the function answer)
FAKES = (
    ("None", None, None),
    ("returns None", _returns(None), _returns(None)),
    ("0", 0, _returns(0)),
    ("zeros", "zeros", _zeros_like_answer),
    ("'7'", "7", _returns("7")),
    ("True", True, _returns(True)),
    ("[None]", [None], _returns([None])),
)


def _fill(spec, value, fn):
    out = []
    for kind, shape in spec["answers"]:
        if kind == "f":
            out.append(fn)
        elif isinstance(value, str) and value == "zeros":
            out.append(np.zeros(shape))
        else:
            out.append(value)
    return out + list(spec.get("rest", tuple)())


def _wrappers(lib):
    """The library's function, and the thin disguises of it a student might hand in."""
    alias = lib

    def by_alias(*a, **k):  # fwd = algorithms.forward_td_lambda; return fwd(...)
        return alias(*a, **k)

    module = inspect.getmodule(lib)

    def by_module(*a, **k):
        return getattr(module, lib.__name__)(*a, **k)

    return (("itself", lib), ("lambda wrapper", lambda *a, **k: lib(*a, **k)),
            ("alias in a def", by_alias), ("functools.partial", functools.partial(lib)),
            ("module attribute", by_module))


def _cases():
    for check, spec in SPECS.items():
        name = f"{check.__module__.rsplit('.', 1)[1]}.{check.__name__}"
        for label, value, fn in FAKES:
            yield pytest.param(check, _fill(spec, value, fn), label, id=f"{name}-{label}")
        if "library" in spec:
            libs, args = spec["library"]
            for lib in libs:
                for how, fake in _wrappers(lib):
                    yield pytest.param(check, list(args(fake)), f"library:{how}",
                                       id=f"{name}-{lib.__name__}-{how}")
                if lib is not _simulated_beta and len(_fingerprint(lib.__code__)) >= COPY_MIN:
                    yield pytest.param(check, list(args(_pasted(lib))), "pasted",
                                       id=f"{name}-{lib.__name__}-pasted")


CASES = list(_cases())


def test_every_check_has_a_spec():
    checks = {f for m in MODULES.values() for n, f in vars(m).items()
              if n.startswith("check_") and inspect.isfunction(f) and f.__module__ == m.__name__}
    missing = sorted(f"{f.__module__.rsplit('.', 1)[1]}.{f.__name__}" for f in checks - set(SPECS))
    assert not missing, (
        f"checks without a spec: {missing}; add to SPECS in tests/course/test_fail_closed.py, "
        "e.g. nb02.check_x: dict(answers=[(\"v\", ())]) for one number (see the comment above "
        "SPECS)")
    assert checks == set(SPECS), sorted(f.__name__ for f in set(SPECS) - checks)
    assert len(CASES) >= 200, len(CASES)  # the count the closing note gives


def _must_fail(check, args, capsys):
    result = check(*args)  # raises nothing
    out = capsys.readouterr().out
    assert result is False, out
    bad = [line for line in out.splitlines() if line.startswith("❌")]
    assert bad and all(len(line) > 20 for line in bad), out
    verdicts = [line for line in out.splitlines() if line.startswith(("✅", "❌"))]
    assert verdicts[-1].startswith("❌"), out  # never a ✅ as the last word of a failure
    for line in verdicts:  # a word beside every symbol
        assert re.match(r"^(✅ Correct|❌ (Not yet|No answer yet|Close, but|Off by one))",
                        line), line
    return out


@pytest.mark.parametrize("check,args,label", CASES)
def test_a_fake_answer_fails(check, args, label, capsys):
    out = _must_fail(check, args, capsys)
    if label == "None":
        assert "No answer yet" in out, out
        names = [n for n in inspect.signature(check).parameters][:len(args)]
        assert any(n in out for n in names) or "your" in out, out  # names what is missing
    elif label == "'7'":
        assert "string" in out or "not the simulation's" in out or "your K is" in out, out
    elif label.startswith("library:"):
        assert "library's own" in out, out
    elif label == "pasted":
        assert "copy of the library's" in out, out


# ------------------------------------------------------------ the notebooks' own skeletons


class _Recorder:
    """Stands for ``nbXX`` in an exercise cell: records the check call's arguments."""

    def __init__(self, calls, module):
        self._calls, self._module = calls, module

    def __getattr__(self, name):
        if name.startswith("check_"):
            return lambda *a, **k: self._calls.append((name, a, k))
        return getattr(self._module, name)


def _namespace(calls):
    ns = dict(np=np, mc=mc, figures=figures, algorithms=algorithms, Linear=Linear, deque=deque,
              random_walk_episodes=random_walk_episodes, run_generator=run_generator)
    ns.update({m: _Recorder(calls, mod) for m, mod in MODULES.items()})
    return ns


def skeletons():
    """Every exercise cell of every notebook (not a solution), run as it stands."""
    out = []
    for nb, path in NOTEBOOKS.items():
        for i, c in enumerate(nbformat.read(path, as_version=4).cells):
            if c.cell_type == "code" and CALL.search(c.source) and not is_solution(c):
                out.append(pytest.param(nb, c.source, id=f"{nb}-cell{i}"))
    return out


@pytest.mark.parametrize("nb,source", skeletons())
def test_the_untouched_exercise_cell_fails(nb, source, capsys):
    calls = []
    exec(compile(source, f"<nb{nb} exercise>", "exec"), _namespace(calls))  # noqa: S102
    assert calls, source
    for name, a, k in calls:
        check = getattr(MODULES[f"nb{nb}"], name)
        assert check in SPECS, (f"nb{nb}.{name} has no spec: add it to SPECS in "
                                "tests/course/test_fail_closed.py")
        result = check(*a, **k)
        out = capsys.readouterr().out
        assert result is False and "❌" in out and "✅" not in out, (name, out)
        assert "No answer yet" in out or "returns None" in out, (name, out)


# ------------------------------------------------------------------- the positive control


def _solution(nb: str, check) -> dict:
    """The namespace after the worked solution (the code between the markers) of ``check``'s
    exercise in notebook ``nb`` runs."""
    for c in nbformat.read(NOTEBOOKS[nb], as_version=4).cells:
        if is_solution(c) and c.cell_type == "code" and f".{check.__name__}(" in c.source:
            code = c.source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
            ns = _namespace([])
            exec(compile(code, f"<nb{nb} solution>", "exec"), ns)  # noqa: S102
            return ns
    raise AssertionError(f"no worked solution for {check.__name__} in notebook {nb}")


BUILDS = [(check, spec) for check, spec in SPECS.items() if "library" in spec]


@pytest.mark.parametrize("check,spec", BUILDS, ids=[c.__name__ for c, _ in BUILDS])
def test_the_students_own_code_passes_where_the_library_is_refused(check, spec, capsys):
    nb = check.__module__.rsplit(".", 1)[1][2:]
    ns = _solution(nb, check)
    fn = next(v for k, v in ns.items() if k.startswith("my_") and callable(v))
    _, args = spec["library"]
    assert check(*args(fn)) is True, capsys.readouterr().out


# ------------------------------------------------------------- the usual slips, by hand

SLIPS = [(check, spec) for check, spec in SPECS.items() if "right" in spec or "slips" in spec]


@pytest.mark.parametrize("check,spec", SLIPS, ids=[c.__name__ for c, _ in SLIPS])
def test_the_usual_slips_are_named(check, spec, capsys):
    """At the course's own numbers (no student id): the answer worked out by hand passes, and
    each usual wrong answer fails with the message that names it."""
    from ftd_lib.course import exercises

    exercises.use_student(None)
    if "right" in spec:
        assert check(*spec["right"]) is True, capsys.readouterr().out
    capsys.readouterr()
    for args, says in spec.get("slips", ()):
        out = _must_fail(check, list(args), capsys)
        assert says in out, (args, out)
