r"""n-step Sarsa (Sutton & Barto 2018, Sec. 7.2; with a network, Sec. 10.2), one run live on
one environment, :math:`\epsilon`-greedy, one network per action: the per-run reference of
the method ``n_step_sarsa`` (:mod:`ftd_lib.methods`, its parameter ``n``). Beyond the paper,
and inside it: it is forward Sarsa(:math:`\lambda`) with :math:`\lambda = 1` and
:math:`K_{max} = n` (Algorithm 1: with :math:`\lambda = 1` the K-bounded return is the
K-step return, and K = n while :math:`\gamma^n > \eta`), so a file runs it in the fast
engines as that curve; ``tests/engine/test_n_step_sarsa.py`` checks both against this
reference. It shares Sarsa(:math:`\lambda`)'s conventions (:mod:`ftd_lib.references.common`):
the run's own streams, the episode cap, divergence. Its compiled form, for the kernel's
extension point, is :mod:`ftd_lib.engine.compiled.n_step_sarsa` (``check_method`` holds it to
this reference).
"""

from __future__ import annotations

import numpy as np

from ..returns import n_step_return
from ..validate import check_int
from .common import ControlRun, act, control_args, diverged, start, within_bound
from .template import HandWorked, n_step_by_hand


def n_step_sarsa(env, w0, *, approx, alpha, lam, gamma, n_episodes, agent, n, epsilon=0.05,
                 truncation="bootstrap", div_bound=1e6) -> ControlRun:
    r"""Episodic semi-gradient n-step Sarsa: the pair :math:`(S_\tau, A_\tau)` is updated
    n steps late, at time :math:`\tau + n - 1`, towards the n-step return

    .. math::
        G_{\tau:\tau+n} = \sum_{i=\tau+1}^{\min(\tau+n, T)}\gamma^{i-\tau-1}R_i
        + \gamma^n\hat Q(S_{\tau+n}, A_{\tau+n}|\theta)\ [\tau + n < T],\qquad
        \theta_{A_\tau} \leftarrow \theta_{A_\tau} + \alpha\big(G_{\tau:\tau+n}
        - \hat Q(S_\tau, A_\tau|\theta)\big)\nabla\hat Q(S_\tau, A_\tau|\theta_{A_\tau}),

    :math:`\hat Q(S_{\tau+n}, A_{\tau+n})` taken with the weights of the step that reached
    it (those of the update, but at the episode's end); the pairs still waiting are updated
    at the end (the return then stops at T; a cap with ``truncation="bootstrap"``
    bootstraps there from :math:`\hat Q(S_T, A_T)`). ``lam`` is not used (the contract's
    argument). ``n`` >= 1; n = 1 is Sarsa(0), n >= the episode's length Monte-Carlo
    control. Other arguments and the returned :class:`~ftd_lib.references.common.ControlRun` as
    :func:`ftd_lib.references.sarsa_lambda.sarsa_lambda`.
    """
    w, alpha, lam, gamma, epsilon, n_episodes = control_args(
        w0, approx, alpha, lam, gamma, epsilon, truncation, n_episodes)
    n = check_int("n", n, 1)
    returns, lengths, steps = np.full(n_episodes, np.nan), np.full(n_episodes, -1), 0

    def update_pair(w, tau, S, A, R, V):  # (S_tau, A_tau) towards G_{tau:min(tau+n, t)}
        G = n_step_return(R, V, tau, min(n, len(R) - tau), gamma)
        v = float(approx.value(w[A[tau]], S[tau]))
        w = w.copy()
        w[A[tau]] = w[A[tau]] + alpha * (G - v) * approx.grad(w[A[tau]], S[tau])
        return w, v

    for ep in range(n_episodes):
        s, a = start(env, approx, w, epsilon, agent, div_bound)
        if a is None:
            return diverged(returns, lengths, w, ep, steps)
        S, A, R, V = [s], [a], [], [0.0]  # V[j] = Q(S_j, A_j) when S_j was reached
        ret, t, end = 0.0, 0, False
        while not end:
            s2, r, end, a2, q2 = act(env, a, approx, w, epsilon, agent, truncation)
            ret, steps = ret + r, steps + 1
            R.append(r)
            V.append(0.0 if a2 is None else q2[a2])
            S.append(s2)
            A.append(a2)
            tau, v = t - n + 1, 0.0
            if tau >= 0:
                w, v = update_pair(w, tau, S, A, R, V)
            if not within_bound([v, *q2], div_bound):
                return diverged(returns, lengths, w, ep, steps)
            s, a, t = s2, a2, t + 1
        for tau in range(max(0, t - n + 1), t):  # the pairs still waiting, T = t
            w, v = update_pair(w, tau, S, A, R, V)
            if not within_bound([v], div_bound):
                return diverged(returns, lengths, w, ep, steps)
        returns[ep], lengths[ep] = ret, t
    return ControlRun(returns, lengths, -1, w, steps)


def hand_n_step_sarsa(w0, n, lam=None):
    r"""n-step Sarsa on the template, worked by hand: :func:`.template.n_step_by_hand` (also
    forward Sarsa(1, :math:`K_{max} = n`)'s hand-worked episode)."""
    return n_step_by_hand(w0, n)


#: the hand-worked episode (:mod:`.template`) at n = 1, 2, 3 and Monte Carlo (n >= 4)
HAND_WORKED = {"n_step_sarsa": HandWorked(hand_n_step_sarsa, (
    {"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}, {"n": 10}))}
