r"""The hand-worked template episode every control reference is checked on
(:func:`ftd_lib.engine.method_check.check_hand_worked`), and the small tools a hand-worked
episode is written with.

The episode: a linear network per action (:math:`\hat Q(s, a) = \theta_a^\top s`), four
steps through the features :math:`S_0 .. S_3` of :data:`X` (then the terminal state) with
rewards :data:`REWARDS` (1, 2, -1, 3), the agent's choices forced (:math:`\epsilon = 1` with
fixed draws, :class:`ForcedAgent`): :data:`ACTIONS` :math:`A_0..A_3 = 0, 1, 1, 0`;
:math:`\alpha = 0.1`, :math:`\gamma = 0.9`; the initial weights :data:`W0` (``"greedy"``:
:math:`A_1 = 1` is greedy at :math:`S_1`) or the same rows swapped (``"exploratory"``: it is
not). Four steps tell an n-step method's n = 1, 2, 3 and n >= 4 (Monte Carlo) apart.

A method's hand-worked episode sits beside its reference, in the reference's module:
``HAND_WORKED = {"<reference function>": HandWorked(hand, cases)}``; ``hand(w0, **case)``
writes out with these numbers what the method does and returns the weights ``(A, P)`` after
the episode (``None``: that case is not worked by hand); ``cases`` are the keyword
arguments (``lam`` and the method's own parameters, e.g. ``n`` or ``k_max``) each case runs
the reference with.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: S_0 .. S_3 and the terminal state
X = np.array([[0.3, -0.2], [-0.5, 0.4], [0.7, 0.6], [-0.2, -0.8], [0.9, 0.1]])
REWARDS = (1.0, 2.0, -1.0, 3.0)
ACTIONS = (0, 1, 1, 0)
T = len(REWARDS)
ALPHA, GAMMA = 0.1, 0.9
W0 = {"greedy": np.array([[0.2, -0.1], [0.4, 0.3]]),  # Q(S1, .) = (-0.14, -0.08): 1 greedy
      "exploratory": np.array([[0.4, 0.3], [0.2, -0.1]])}  # (-0.08, -0.14): 1 explores


class HandWorked(NamedTuple):
    """A method's hand-worked episode: ``hand(w0, **case) -> weights`` and its ``cases``."""

    hand: object
    cases: tuple[dict, ...]


class TemplateTask:
    """One run of the template's task: ``reset`` gives :math:`S_0`; four steps with rewards
    :data:`REWARDS`, then terminal."""

    n_actions, obs_dim, max_steps = 2, 2, None

    def reset(self):
        self.t = 0
        return X[:1]

    def step(self, actions):
        self.t += 1
        return (X[self.t:self.t + 1], np.array([REWARDS[self.t - 1]]),
                np.array([self.t == T]), np.array([False]))


class ForcedAgent:
    """Exploration draws that make epsilon-greedy with epsilon = 1 choose ``actions`` (of 2)."""

    def __init__(self, actions=(*ACTIONS, 0)):
        self.u = iter([x for a in actions for x in (0.0, 0.25 + 0.5 * a)])

    def random(self):
        return next(self.u)


def q(w, t: int, a: int | None = None) -> float:
    r""":math:`\hat Q(S_t, a) = \theta_a^\top S_t` (``a`` defaults to the template's
    :math:`A_t`); 0 at the terminal state."""
    if t >= T:
        return 0.0
    return float(w[ACTIONS[t] if a is None else a] @ X[t])


def update(w, t: int, target: float):
    r""":math:`\theta_{A_t} \leftarrow \theta_{A_t} + \alpha(\text{target} -
    \hat Q(S_t, A_t))S_t` (a new array)."""
    w = w.copy()
    w[ACTIONS[t]] = w[ACTIONS[t]] + ALPHA * (target - q(w, t)) * X[t]
    return w


def n_step_by_hand(w0, n):
    r"""n-step Sarsa on the template, written out: the values
    :math:`\hat Q(S_j, A_j)` as each :math:`S_j` is reached (with the weights of that moment),
    each pair updated n steps late towards
    :math:`\sum_{i<\min(\tau+n, 4)}\gamma^{i-\tau}R_{i+1} + \gamma^n\hat Q(S_{\tau+n},
    A_{\tau+n})` (no bootstrap past the end), the rest at the end."""
    def G(tau, V):
        h = min(tau + n, T)
        g = sum(GAMMA ** (i - tau) * REWARDS[i] for i in range(tau, h))
        return g + (GAMMA ** n * V[tau + n] if tau + n < T else 0.0)

    w, V = w0.copy(), {}
    for t in range(T):  # step t reaches S_{t+1}; then (S_{t-n+1}, A_{t-n+1}) is updated
        V[t + 1] = q(w, t + 1)
        if t - n + 1 >= 0:
            w = update(w, t - n + 1, G(t - n + 1, V))
    for tau in range(max(0, T - n + 1), T):
        w = update(w, tau, G(tau, V))
    return w

