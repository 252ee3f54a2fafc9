r"""``check_method(id)``: what a researcher runs on a new control method (in the spirit of
Stable-Baselines3's ``check_env``): its per-run reference against an episode worked by hand,
then every engine that claims the method (its row's ``engines``) against the reference.

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


def check_engines(method_id: str, env: str = "cartpole", params=None) -> str:
    """Every engine the method's row claims against its reference, on a small workload of
    ``env`` (3 runs x 6 episodes, cap 60) at the method's ``params`` (default: its row's
    examples, :func:`ftd_lib.methods.example_params`): returns, lengths and divergence
    exactly, the final weights to 1e-10 and a relative 1e-6 (the engines round the network
    as torch does, the reference as numpy does: a run on its way to diverging, weights in
    the millions, grows the last bits)."""
    from . import Settings, run_control

    s = Settings.make(alpha=[0.03, 0.1, 0.01], lam=[0.0, 0.9, 0.6], gamma=0.99)
    kw = dict(env=env, max_steps=60,
              params=example_params(method_id) if params is None else params)
    ref = run_control(method_id, s, 7, [0, 1, 2], 6, engine="reference", **kw)
    engines = [e for e in ("batch", "kernel") if method_id in implemented("control", e)]
    for e in engines:
        got = run_control(method_id, s, 7, [0, 1, 2], 6, engine=e, **kw)
        same = (np.array_equal(got.returns, ref.returns, equal_nan=True)
                and np.array_equal(got.lengths, ref.lengths)
                and np.array_equal(got.diverged_at, ref.diverged_at)
                and np.allclose(got.final_weights, ref.final_weights, rtol=1e-6, atol=1e-10))
        if not same:
            raise MethodCheckError(f"check_method({method_id!r}): engine {e!r} disagrees with "
                                   "the reference")
    return (f"engines: {', '.join(engines) or 'none but the reference'}"
            + (" agree with the reference" if engines else " (nothing to compare)"))


def check_method(method_id: str, hand=None, params=None) -> list[str]:
    """Run every check on the control method ``method_id`` (the engines at ``params``,
    default the row's examples; a bad one raises ``ValueError`` naming it); returns what was
    checked, one line each; the first broken check raises :class:`MethodCheckError`."""
    from ..methods import check_params

    rec = method(method_id)
    if rec.kind != "control":
        raise MethodCheckError(f"check_method({method_id!r}): the template is a control "
                               "episode; prediction references are checked by hand in "
                               "tests/core/test_algorithms.py")
    if params is not None:
        params = check_params(method_id, params)
    return [check_hand_worked(method_id, hand), check_engines(method_id, params=params)]
