r"""``check_method(id)``: what a researcher runs on a new control method (in the spirit of
Stable-Baselines3's ``check_env``): its per-run reference against a two-step episode worked
by hand, then every engine that claims the method (its row's ``engines``) against the
reference.

The hand-worked template (:data:`TEMPLATE`, :class:`TwoSteps`): a linear network per action
(:math:`\hat Q(s, a) = \theta_a^\top s`), the features :math:`S_0, S_1` below, rewards 1 then
2, then the end; the agent's choices are forced (:math:`\epsilon = 1` with fixed draws):
:math:`A_0 = 0`, :math:`A_1 = 1`; :math:`\alpha = 0.1`, :math:`\gamma = 0.9`; the initial
weights ``W0`` (``"greedy"``: :math:`A_1` is greedy at :math:`S_1`) or the same rows swapped
(``"exploratory"``: it is not). A method's hand-worked episode is a function
``hand(w0, lam) -> weights (A, P)`` that writes, step by step with these numbers, what the
method does (:data:`HAND_WORKED` holds the project's; copy one for a new method).
"""

from __future__ import annotations

import numpy as np

from ..approx import Linear
from ..methods import implemented, method
from .reference import reference_function

X = np.array([[0.3, -0.2], [-0.5, 0.4], [0.9, 0.1]])  # S0, S1 and the terminal state
REWARDS = (1.0, 2.0)
ALPHA, GAMMA = 0.1, 0.9
W0 = {"greedy": np.array([[0.2, -0.1], [0.4, 0.3]]),  # Q(S1, .) = (-0.14, -0.08): 1 greedy
      "exploratory": np.array([[0.4, 0.3], [0.2, -0.1]])}  # (-0.08, -0.14): 1 explores
LAMBDAS = (0.0, 0.5, 1.0)
TEMPLATE = dict(X=X, rewards=REWARDS, alpha=ALPHA, gamma=GAMMA, actions=(0, 1), w0=W0,
                lambdas=LAMBDAS)


class TwoSteps:
    """One run of the template's task: ``reset`` gives :math:`S_0`; two steps, rewards 1 then
    2, then terminal."""

    n_actions, obs_dim, max_steps = 2, 2, None

    def reset(self):
        self.t = 0
        return X[:1]

    def step(self, actions):
        self.t += 1
        return (X[self.t:self.t + 1], np.array([REWARDS[self.t - 1]]),
                np.array([self.t == 2]), np.array([False]))


class ForcedAgent:
    """Exploration draws that make epsilon-greedy with epsilon = 1 choose ``actions`` (of 2)."""

    def __init__(self, actions=(0, 1, 0)):
        self.u = iter([x for a in actions for x in (0.0, 0.25 + 0.5 * a)])

    def random(self):
        return next(self.u)


def _q(w, s, a):
    return float(w[a] @ s)


def hand_sarsa(w0, lam):
    r"""Sarsa(:math:`\lambda`): :math:`\delta_1 = 1 + \gamma Q(S_1, 1) - Q(S_0, 0)`, trace
    :math:`e_0 = S_0`, :math:`\theta \mathrel{+}= \alpha\delta_1 e`; then
    :math:`\delta_2 = 2 - Q(S_1, 1)`, :math:`e \leftarrow \gamma\lambda e`,
    :math:`e_1 \mathrel{+}= S_1`, :math:`\theta \mathrel{+}= \alpha\delta_2 e`."""
    w, e = w0.copy(), np.zeros_like(w0)
    d1 = REWARDS[0] + GAMMA * _q(w, X[1], 1) - _q(w, X[0], 0)
    e[0] += X[0]
    w = w + ALPHA * d1 * e
    d2 = REWARDS[1] - _q(w, X[1], 1)
    e = GAMMA * lam * e
    e[1] += X[1]
    return w + ALPHA * d2 * e


def hand_watkins(w0, lam):
    r"""Watkins's Q(:math:`\lambda`): as Sarsa(:math:`\lambda`) but
    :math:`\delta_1 = 1 + \gamma\max_a Q(S_1, a) - Q(S_0, 0)`, and the trace is cut after the
    first step when :math:`A_1 = 1` is not greedy at :math:`S_1`."""
    w, e = w0.copy(), np.zeros_like(w0)
    q1 = [_q(w, X[1], 0), _q(w, X[1], 1)]
    d1 = REWARDS[0] + GAMMA * max(q1) - _q(w, X[0], 0)
    e[0] += X[0]
    w = w + ALPHA * d1 * e
    if q1[1] != max(q1):
        e = np.zeros_like(e)
    d2 = REWARDS[1] - _q(w, X[1], 1)
    e = GAMMA * lam * e
    e[1] += X[1]
    return w + ALPHA * d2 * e


def hand_forward_sarsa(w0, lam):
    r"""Forward Sarsa(:math:`\lambda`), :math:`\eta = 0.01` (:math:`K = 1` for
    :math:`\lambda = 0`, :math:`K = \infty` for 1; between them it is checked by the engines
    only): :math:`\lambda = 0` is one-step Sarsa; :math:`\lambda = 1` updates both pairs at the
    end towards their Monte-Carlo returns, with the weights of the start."""
    if lam == 0.0:
        w = w0.copy()
        d1 = REWARDS[0] + GAMMA * _q(w, X[1], 1) - _q(w, X[0], 0)
        w[0] += ALPHA * d1 * X[0]
        w[1] += ALPHA * (REWARDS[1] - _q(w, X[1], 1)) * X[1]
        return w
    if lam == 1.0:
        w = w0.copy()
        w[0] += ALPHA * (REWARDS[0] + GAMMA * REWARDS[1] - _q(w0, X[0], 0)) * X[0]
        w[1] += ALPHA * (REWARDS[1] - _q(w0, X[1], 1)) * X[1]
        return w
    return None


#: the hand-worked two-step episode of each method (``None`` at a lambda: not worked by hand)
HAND_WORKED = {"sarsa_lambda": hand_sarsa, "forward_sarsa_lambda": hand_forward_sarsa,
               "watkins_q_lambda": hand_watkins}


class MethodCheckError(ValueError):
    """A broken check, naming the method and the check."""


def check_hand_worked(method_id: str, hand=None) -> str:
    """The method's reference on the template's episode, against ``hand`` (default: its
    :data:`HAND_WORKED` entry), at every lambda of the template and both initial weights."""
    fn = reference_function(method_id)
    hand = hand or HAND_WORKED.get(method_id)
    if hand is None:
        raise MethodCheckError(f"check_method({method_id!r}): hand-worked episode: none (write "
                               "hand(w0, lam) for the two-step template of "
                               "ftd_lib/engine/method_check.py)")
    done = 0
    for case, w0 in W0.items():
        for lam in LAMBDAS:
            want = hand(w0, lam)
            if want is None:
                continue
            got = fn(TwoSteps(), w0, approx=Linear(2), alpha=ALPHA, lam=lam, gamma=GAMMA,
                     n_episodes=1, agent=ForcedAgent(), epsilon=1.0)
            if not np.allclose(got.weights, want, rtol=0, atol=1e-14):
                raise MethodCheckError(
                    f"check_method({method_id!r}): hand-worked episode ({case}, λ = {lam:g}): "
                    f"the reference gives {got.weights.tolist()}, by hand "
                    f"{np.asarray(want).tolist()}")
            if got.returns.tolist() != [sum(REWARDS)] or got.lengths.tolist() != [2]:
                raise MethodCheckError(f"check_method({method_id!r}): hand-worked episode: "
                                       "return or length wrong")
            done += 1
    return f"hand-worked two-step episode: the reference agrees in {done} cases"


def check_engines(method_id: str, env: str = "cartpole") -> str:
    """Every engine the method's row claims against its reference, on a small workload of
    ``env`` (3 runs x 6 episodes, cap 60): returns, lengths and divergence exactly, the final
    weights to 1e-10."""
    from . import Settings, run_control

    s = Settings.make(alpha=[0.03, 0.1, 0.01], lam=[0.0, 0.9, 0.6], gamma=0.99)
    kw = dict(env=env, max_steps=60)
    ref = run_control(method_id, s, 7, [0, 1, 2], 6, engine="reference", **kw)
    engines = [e for e in ("batch", "kernel") if method_id in implemented("control", e)]
    for e in engines:
        got = run_control(method_id, s, 7, [0, 1, 2], 6, engine=e, **kw)
        same = (np.array_equal(got.returns, ref.returns, equal_nan=True)
                and np.array_equal(got.lengths, ref.lengths)
                and np.array_equal(got.diverged_at, ref.diverged_at)
                and np.allclose(got.final_weights, ref.final_weights, rtol=0, atol=1e-10))
        if not same:
            raise MethodCheckError(f"check_method({method_id!r}): engine {e!r} disagrees with "
                                   "the reference")
    return (f"engines: {', '.join(engines) or 'none but the reference'}"
            + (" agree with the reference" if engines else " (nothing to compare)"))


def check_method(method_id: str, hand=None) -> list[str]:
    """Run every check on the control method ``method_id``; returns what was checked, one
    line each; the first broken check raises :class:`MethodCheckError`."""
    rec = method(method_id)
    if rec.kind != "control":
        raise MethodCheckError(f"check_method({method_id!r}): the template is a control "
                               "episode; prediction references are checked by hand in "
                               "tests/core/test_algorithms.py")
    return [check_hand_worked(method_id, hand), check_engines(method_id)]
