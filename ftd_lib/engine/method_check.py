r"""``check_method(id)``: what a researcher runs on a new control method (in the spirit of
Stable-Baselines3's ``check_env``): its per-run reference against an episode worked by hand,
then every engine that claims the method (its row's ``engines``) against the reference, on
every task with compiled dynamics at two parameter points (:func:`check_engines`).

The hand-worked episode is the template of :mod:`ftd_lib.references.template` (four steps,
forced actions, a linear network per action: long enough to tell an n-step method's n = 2
from Monte Carlo). A method's hand-worked episode lives beside its reference, in the
reference's module: ``HAND_WORKED = {"<method id>": HandWorked(hand, cases)}`` where
``hand(w0, **case)`` writes out what the method does on the template and each case holds the
keyword arguments the reference runs with (``lam`` and the method's own parameters, e.g.
``{"n": 2}``; see :func:`ftd_lib.references.n_step_sarsa.hand_n_step_sarsa`), and ``epsilon``
(default 1: the policy uniform) where the target depends on the policy's probabilities: the
template's draws force the actions at any epsilon > 0, so a case at 0 < epsilon < 1 checks
:math:`\pi` itself (:func:`ftd_lib.references.expected_sarsa.hand_expected_sarsa`).
"""

from __future__ import annotations

import importlib

import numpy as np
import torch

from ..approx import Linear
from ..methods import example_params, implemented, method
from ..references.template import (  # noqa: F401  (the template, re-exported)
    ACTIONS,
    ALPHA,
    GAMMA,
    REWARDS,
    W0,
    ForcedAgent,
    HandWorked,
    TemplateTask,
    X,
)
from .reference import reference_function
from .settings import Settings


class MethodCheckError(ValueError):
    """A broken check, naming the method and the check."""


def hand_worked(method_id: str) -> HandWorked | None:
    """The method's hand-worked episode: ``HAND_WORKED[method_id]`` of its reference's
    module (``None`` if it has none)."""
    fn = reference_function(method_id)
    return getattr(importlib.import_module(fn.__module__), "HAND_WORKED", {}).get(method_id)


def _case(case: dict) -> str:
    return ", ".join(f"{'λ' if k == 'lam' else k} = {v:g}" for k, v in case.items())


def check_hand_worked(method_id: str, hand=None) -> str:
    """The method's reference on the template's episode against ``hand`` (default: its
    :func:`hand_worked` entry; a :class:`HandWorked`, or a bare ``hand(w0, lam)`` run at
    λ = 0, 0.5, 1), in every case and with both initial weights: weights to 1e-14, the
    return and the length exactly."""
    fn = reference_function(method_id)
    entry = hand_worked(method_id) if hand is None else hand
    if entry is None:
        raise MethodCheckError(
            f"check_method({method_id!r}): hand-worked episode: none (write HAND_WORKED = "
            f"{{{method_id!r}: HandWorked(hand, cases)}} beside its reference, "
            "ftd_lib/references/template.py says how)")
    if not isinstance(entry, HandWorked):
        entry = HandWorked(entry, ({"lam": 0.0}, {"lam": 0.5}, {"lam": 1.0}))
    done = 0
    for case in entry.cases:
        for name, w0 in W0.items():
            want = entry.hand(w0, **case)
            if want is None:
                continue
            got = fn(TemplateTask(), w0, approx=Linear(2), alpha=ALPHA, gamma=GAMMA,
                     n_episodes=1, agent=ForcedAgent(), **{"lam": 1.0, "epsilon": 1.0, **case})
            if not np.allclose(got.weights, want, rtol=0, atol=1e-14):
                raise MethodCheckError(
                    f"check_method({method_id!r}): hand-worked episode ({name}, "
                    f"{_case(case)}): the reference gives {got.weights.tolist()}, by hand "
                    f"{np.asarray(want).tolist()}")
            if got.returns.tolist() != [sum(REWARDS)] or got.lengths.tolist() != [len(REWARDS)]:
                raise MethodCheckError(f"check_method({method_id!r}): hand-worked episode: "
                                       "return or length wrong")
            done += 1
    return f"hand-worked {len(REWARDS)}-step episode: the reference agrees in {done} cases"


#: the tasks' parameters the engines are compared at: the defaults, then each one's example
def _task_points(env: str) -> tuple[dict, dict]:
    from ..envs.tasks import task

    t = task(env)
    return {}, {p.name: p.example for p in t.params if p.example is not None}


def parameter_points(method_id: str, params=None) -> list[tuple[Settings, float, dict]]:
    """The two points the engines are compared at: ``(settings of 3 runs, epsilon, the
    method's params)``: the method's examples (or ``params``) at α = 0.03, 0.1, 0.01,
    λ = 0, 0.9, 0.6, γ 0.99, ε 0.05; then each param's ``other`` value (its default where the
    example is not; else the example again) at α = 0.02, 0.005, 0.3, λ = 1, 0.5, 0.95 (K_max 3
    for the second), γ 0.95, ε 0.3. The tasks' parameters: their defaults at the first, their
    examples at the second (:func:`_task_points`)."""
    from ..methods import method as row

    first = example_params(method_id) if params is None else dict(params)
    second = {}
    for p in row(method_id).params:
        alt = p.other if p.other is not None else (
            p.default if not p.required and p.default != first.get(p.name) else None)
        second[p.name] = first.get(p.name) if alt is None else alt
    return [(Settings.make(alpha=[0.03, 1.0, 0.01], lam=[0.0, 0.9, 0.6], gamma=0.99), 0.05,
             first),
            (Settings.make(alpha=[0.02, 0.005, 2.0], lam=[1.0, 0.5, 0.95], gamma=0.95,
                           k_max=[None, 3, None]), 0.3, second)]


def first_difference(ref, got, engine: str) -> str | None:
    """Where ``got`` first differs from the reference's ``ref`` (two
    :class:`.results.ControlResult`): the array (returns, lengths, diverged_at: exactly;
    final weights: to 1e-10 and a relative 1e-6), the run, the episode (or the action's
    network and the weight) and the size of the difference; ``None``: they agree."""
    for name in ("diverged_at", "lengths", "returns", "final_weights"):
        a, b = (np.asarray(getattr(r, name), dtype=float) for r in (ref, got))
        if a.shape != b.shape:
            return f"{name}: shape {b.shape}, the reference's {a.shape}"
        if name == "final_weights":
            bad = ~np.isclose(b, a, rtol=1e-6, atol=1e-10)
        else:
            bad = ~((a == b) | (np.isnan(a) & np.isnan(b)))
        if bad.any():
            at = tuple(int(i) for i in np.argwhere(bad)[0])
            where = f"run {at[0]}"
            if len(at) == 2:
                where += f", episode {at[1]}"
            elif len(at) == 3:
                where += f", the network of action {at[1]}, weight {at[2]}"
            size = abs(a[at] - b[at])
            return (f"{name}, first at {where}: the reference {a[at]!r}, {engine} {b[at]!r} "
                    f"(difference {size:.3g}; {int(bad.sum())} of {bad.size} differ)")
    return None


def check_engines(method_id: str, env=None, params=None) -> str:
    """Every engine the method's row claims against its reference on every task ``env``
    (default: each task whose row has compiled dynamics, at least one of them with 3 or more
    actions; or a task's name, or a tuple of names), at the two points of
    :func:`parameter_points` (the method's params and the task's at their examples and at a
    second value), on a small workload (3 runs x 6 episodes, cap 60): returns, lengths and
    divergence exactly, the final weights to 1e-10 and a relative 1e-6 (the engines round
    the network as torch does, the reference as numpy does: a run on its way to diverging,
    weights in the millions, grows the last bits). A failure names the engine, the task, the
    point and the first differing array, run, episode and size
    (:func:`first_difference`)."""
    from ..envs.tasks import TASKS
    from . import run_control
    from .control_run import choose_engine

    if env is None:
        tasks = [n for n, t in TASKS.items() if t.compiled is not None]
        if not any(TASKS[n].n_actions >= 3 for n in tasks):
            raise MethodCheckError(f"check_method({method_id!r}): no task with compiled "
                                   "dynamics has 3 or more actions to compare the engines on")
    else:
        tasks = [env] if isinstance(env, str) else list(env)
    claimed = [e for e in ("batch", "kernel") if method_id in implemented("control", e)]
    seen, compared = set(), 0
    for name in tasks:
        engines = []
        for e in claimed:
            try:
                choose_engine(method_id, name, e, torch.float64, "cpu")
            except ValueError:
                continue
            engines.append(e)
        if not engines:
            continue
        for k, ((s, eps, mparams), tparams) in enumerate(
                zip(parameter_points(method_id, params), _task_points(name), strict=True)):
            kw = dict(env=name, max_steps=60, epsilon=eps, params=mparams,
                      task_params=tparams)
            ref = run_control(method_id, s, 7, [0, 1, 2], 6, engine="reference", **kw)
            for e in engines:
                got = run_control(method_id, s, 7, [0, 1, 2], 6, engine=e, **kw)
                diff = first_difference(ref, got, e)
                if diff is not None:
                    point = ", ".join(f"{a} = {v}" for a, v in {**mparams, **tparams}.items())
                    raise MethodCheckError(
                        f"check_method({method_id!r}): engine {e!r} disagrees with the "
                        f"reference on {name} at parameter point {k + 1} (epsilon {eps}"
                        + (f", {point}" if point else "") + f"): {diff}")
                seen.add(e)
                compared += 1
    engines = [e for e in claimed if e in seen]
    if not engines:
        return "engines: none but the reference (nothing to compare)"
    return (f"engines: {', '.join(engines)} agree with the reference on "
            f"{', '.join(tasks)} at 2 parameter points ({compared} comparisons of 3 runs)")


def check_method(method_id: str, hand=None, params=None, env=None) -> list[str]:
    """Run every check on the control method ``method_id`` (the engines at ``params``,
    default the row's examples; a bad one raises ``ValueError`` naming it; on the tasks
    ``env``, default every task with compiled dynamics: :func:`check_engines`); returns what
    was checked, one line each; the first broken check raises :class:`MethodCheckError`."""
    from ..methods import check_params

    rec = method(method_id)
    if rec.kind != "control":
        raise MethodCheckError(f"check_method({method_id!r}): the template is a control "
                               "episode; prediction references are checked by hand in "
                               "tests/core/test_algorithms.py")
    if params is not None:
        params = check_params(method_id, params)
    return [check_hand_worked(method_id, hand), check_engines(method_id, env, params=params)]
