r"""Sarsa(:math:`\lambda`), the paper's control baseline (Sec. 6, Fig. 4): the per-run
reference, one run live on one environment, :math:`\epsilon`-greedy, one network per action
(also as ``ftd_lib.algorithms.sarsa_lambda``), and its hand-worked episode.

Both engines (:mod:`ftd_lib.engine`: the compiled kernel and the torch batch) follow these
semantics -- the episode cap (a time limit that bootstraps, or a terminal state), divergence
(a value beyond ``div_bound`` or ``nan`` freezes the run: weights zeroed, returns ``nan``
from that episode on), the run's own random streams (start states: the env's; exploration:
``agent``, two draws a choice) -- and are tested against them; ``run_control(...,
engine="reference")`` runs them.
"""

from __future__ import annotations

import numpy as np

from .common import ControlRun, one_step_control
from .template import ACTIONS, ALPHA, GAMMA, REWARDS, HandWorked, T, X, q


def sarsa_lambda(env, w0, *, approx, alpha, lam, gamma, n_episodes, agent, epsilon=0.05,
                 truncation="bootstrap", div_bound=1e6) -> ControlRun:
    r"""Sarsa(:math:`\lambda`) with accumulating traces, one network per action (Sec. 6).

    .. math::
        \delta = R + \gamma\hat Q(S',A'|\theta) - \hat Q(S,A|\theta),\quad
        e_a \leftarrow \gamma\lambda e_a\ \forall a,\quad
        e_A \leftarrow e_A + \nabla\hat Q(S,A|\theta_A),\quad
        \theta \leftarrow \theta + \alpha\delta e

    Args: ``env`` one run of a batched control env (``reset``/``step``, its own start stream
    and episode cap); ``w0`` ``(A, P)``; ``agent`` the run's generator of exploration draws
    (:func:`epsilon_greedy`). ``truncation="bootstrap"``: an episode cut by the cap is a time
    limit, :math:`A'` is chosen at :math:`S'` and the target bootstraps from it;
    ``"terminal"``: the cap ends the episode like a terminal state. A value
    :math:`\hat Q` beyond ``div_bound`` (or ``nan``) ends the run as diverged.
    Returns a :class:`ControlRun`.
    """
    return one_step_control(
        sarsa_update, env, w0, approx=approx, alpha=alpha, lam=lam, gamma=gamma,
        n_episodes=n_episodes, agent=agent, epsilon=epsilon, truncation=truncation,
        div_bound=div_bound)


def sarsa_update(p, w, e, s, a, R, v, a2, q2):
    r"""One step of Sarsa(:math:`\lambda`) (:func:`.common.one_step_control`'s ``update``):
    :math:`\delta = R + \gamma\hat Q(S', A') - v` (0 after the end), :math:`e \leftarrow
    \gamma\lambda e`, :math:`e_A \mathrel{+}= \nabla\hat Q(S, A|\theta_A)`,
    :math:`\theta \mathrel{+}= \alpha\delta e`."""
    delta = R + p.gamma * (0.0 if a2 is None else q2[a2]) - v
    e = p.gamma * p.lam * e
    e[a] = e[a] + p.approx.grad(w[a], s)
    return w + p.alpha * delta * e, e


def hand_sarsa(w0, lam):
    r"""Sarsa(:math:`\lambda`) on the hand-worked template (:mod:`ftd_lib.references.template`),
    step by step: :math:`\delta_t = R_{t+1} + \gamma\hat Q(S_{t+1}, A_{t+1}) -
    \hat Q(S_t, A_t)` (0 after the terminal state), every trace decayed by
    :math:`\gamma\lambda`, :math:`e_{A_t} \mathrel{+}= S_t`,
    :math:`\theta \mathrel{+}= \alpha\delta_t e`."""
    w, e = w0.copy(), np.zeros_like(w0)
    for t in range(T):
        delta = REWARDS[t] + GAMMA * q(w, t + 1) - q(w, t)
        e = GAMMA * lam * e
        e[ACTIONS[t]] += X[t]
        w = w + ALPHA * delta * e
    return w


#: the hand-worked episode (:mod:`.template`) at three lambdas
HAND_WORKED = {"sarsa_lambda": HandWorked(hand_sarsa, ({"lam": 0.0}, {"lam": 0.5},
                                                         {"lam": 1.0}))}
