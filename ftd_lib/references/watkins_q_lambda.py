r"""Watkins's Q(:math:`\lambda`) (Watkins 1989; Sutton & Barto 2018, Sec. 12.10), one run live
on one environment, :math:`\epsilon`-greedy, one network per action, accumulating traces cut
at every exploratory action: the per-run reference of the method ``watkins_q_lambda``
(:mod:`ftd_lib.methods`). Beyond the paper (an off-policy relative of its Sarsa(:math:`\lambda`),
Sec. 6); it shares Sarsa(:math:`\lambda`)'s conventions (:mod:`ftd_lib.references.common`): the
run's own streams, the episode cap, divergence.
"""

from __future__ import annotations

import numpy as np

from .common import ControlRun, one_step_control
from .template import ACTIONS, ALPHA, GAMMA, REWARDS, HandWorked, T, X, q


def watkins_q_lambda(env, w0, *, approx, alpha, lam, gamma, n_episodes, agent, epsilon=0.05,
                     truncation="bootstrap", div_bound=1e6) -> ControlRun:
    r"""Watkins's Q(:math:`\lambda`) with accumulating traces over every network's weights.

    .. math::
        \delta = R + \gamma\max_a\hat Q(S',a|\theta) - \hat Q(S,A|\theta),\quad
        e_a \leftarrow \gamma\lambda e_a\ \forall a,\quad
        e_A \leftarrow e_A + \nabla\hat Q(S,A|\theta_A),\quad
        \theta \leftarrow \theta + \alpha\delta e,

    then :math:`e \leftarrow 0` when :math:`A'` (chosen :math:`\epsilon`-greedily at
    :math:`S'`) is not greedy: the trace follows the greedy policy only. At the end of an
    episode (or a cap with ``truncation="terminal"``) the target is :math:`R`; a cap with
    ``"bootstrap"`` bootstraps from :math:`\max_a\hat Q(S', a)`. With :math:`\epsilon = 0`
    every action is greedy and it is Sarsa(:math:`\lambda`) with the greedy target
    (the same numbers as :func:`ftd_lib.references.sarsa_lambda.sarsa_lambda`). Arguments and
    the returned :class:`~ftd_lib.references.common.ControlRun` as there.
    """
    return one_step_control(
        watkins_update, env, w0, approx=approx, alpha=alpha, lam=lam, gamma=gamma,
        n_episodes=n_episodes, agent=agent, epsilon=epsilon, truncation=truncation,
        div_bound=div_bound)


def watkins_update(p, w, e, s, a, R, v, a2, q2):
    r"""One step of Watkins's Q(:math:`\lambda`) (:func:`.common.one_step_control`'s
    ``update``): :math:`\delta = R + \gamma\max_a\hat Q(S', a) - v` (0 after the end), the
    traces as Sarsa(:math:`\lambda`)'s, then cut to 0 if :math:`A'` is not greedy."""
    delta = R + p.gamma * (0.0 if a2 is None else max(q2)) - v
    e = p.gamma * p.lam * e
    e[a] = e[a] + p.approx.grad(w[a], s)
    w = w + p.alpha * delta * e
    if a2 is not None and q2[a2] != max(q2):  # exploratory: the trace is cut
        e = np.zeros_like(w)
    return w, e


def hand_watkins(w0, lam):
    r"""Watkins's Q(:math:`\lambda`) on the template (:mod:`.template`), step by step: as
    Sarsa(:math:`\lambda`) (:func:`ftd_lib.references.sarsa_lambda.hand_sarsa`) but
    :math:`\delta_t = R_{t+1} + \gamma\max_a\hat Q(S_{t+1}, a) - \hat Q(S_t, A_t)`, and
    every trace cut after a step whose next action :math:`A_{t+1}` is not greedy at
    :math:`S_{t+1}` (with the weights before the step's update)."""
    w, e = w0.copy(), np.zeros_like(w0)
    for t in range(T):
        qn = [q(w, t + 1, 0), q(w, t + 1, 1)]
        delta = REWARDS[t] + GAMMA * max(qn) - q(w, t)
        e = GAMMA * lam * e
        e[ACTIONS[t]] += X[t]
        w = w + ALPHA * delta * e
        if t + 1 < T and qn[ACTIONS[t + 1]] != max(qn):
            e = np.zeros_like(e)
    return w


#: the hand-worked episode (:mod:`.template`) at three lambdas
HAND_WORKED = {"watkins_q_lambda": HandWorked(hand_watkins, (
    {"lam": 0.0}, {"lam": 0.5}, {"lam": 1.0}))}
