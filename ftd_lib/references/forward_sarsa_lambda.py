r"""Forward Sarsa(:math:`\lambda`), the paper's control method (Sec. 6, Fig. 4): the per-run
reference, one run live on one environment, :math:`\epsilon`-greedy, one network per action,
read top to bottom beside Algorithm 1 (also as ``ftd_lib.algorithms.forward_sarsa_lambda``),
and its hand-worked episode.

The episode cap, divergence and the run's random streams are those of
:mod:`ftd_lib.references.sarsa_lambda`, which both engines (:mod:`ftd_lib.engine`) follow and
are tested against; ``run_control(..., engine="reference")`` runs this one.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ..returns import Algorithm1Return, k_bound
from ..validate import check_eta, check_k_max
from .common import ControlRun, act, control_args, diverged, start, within_bound
from .template import GAMMA, REWARDS, HandWorked, T, n_step_by_hand, q, update


def forward_sarsa_lambda(env, w0, *, approx, alpha, lam, gamma, n_episodes, agent,
                         eta=0.01, k_max=None, epsilon=0.05, truncation="bootstrap",
                         div_bound=1e6) -> ControlRun:
    r"""Forward Sarsa(:math:`\lambda`): Algorithm 1 with :math:`V_{next} = \hat Q(S',A'|\theta)`
    (Sec. 6), one network per action; the FIFO holds :math:`\langle S, A, \rho\rangle` and a
    pop updates the network of its action:

    .. math::
        \theta_{A_t} \leftarrow \theta_{A_t} + \alpha\big(G_t^{\lambda|t+K}
        - \hat Q(S_t, A_t|\theta)\big)\nabla\hat Q(S_t, A_t|\theta_{A_t})

    K from :func:`ftd_lib.returns.k_bound` (:math:`\eta`, :math:`K_{max}`). Args, the cap and
    divergence (also of a popped state's value) as :func:`sarsa_lambda`.
    """
    w, alpha, lam, gamma, epsilon, n_episodes = control_args(
        w0, approx, alpha, lam, gamma, epsilon, truncation, n_episodes)
    K = k_bound(gamma, lam, check_eta(eta), check_k_max(k_max))
    returns, lengths, steps = np.full(n_episodes, np.nan), np.full(n_episodes, -1), 0

    def pop(F, w, U):  # update the network of the oldest <S_p, A_p, rho_p> towards U
        s_p, a_p, rho_p = F.popleft()
        v = float(approx.value(w[a_p], s_p))
        w = w.copy()
        w[a_p] = w[a_p] + alpha * (U - v) * approx.grad(w[a_p], s_p)
        return w, rho_p, v

    for ep in range(n_episodes):
        s, a = start(env, approx, w, epsilon, agent, div_bound)
        if a is None:
            return diverged(returns, lengths, w, ep, steps)
        F = deque()  # FIFO of <phi(S), A, rho>
        G = Algorithm1Return(gamma, lam, K)
        ret, T, end = 0.0, 0, False
        while not end:
            s2, R, end, a2, q2 = act(env, a, approx, w, epsilon, agent, truncation)
            ret, T, steps = ret + R, T + 1, steps + 1
            V_next = 0.0 if a2 is None else q2[a2]
            F.append((s, a, R + gamma * (1 - lam) * V_next))  # rho
            G.observe(R, V_next)
            v = 0.0
            if G.ready:
                w, rho_p, v = pop(F, w, G.U)
                G.advance(rho_p)
            if not within_bound([v, *q2], div_bound):
                return diverged(returns, lengths, w, ep, steps)
            s, a = s2, a2
        G.end()
        while F:  # the last updates of the episode
            w, rho_p, v = pop(F, w, G.U)
            if not within_bound([v], div_bound):
                return diverged(returns, lengths, w, ep, steps)
            if F:
                G.advance(rho_p)
        returns[ep], lengths[ep] = ret, T
    return ControlRun(returns, lengths, -1, w, steps)


def hand_forward_sarsa(w0, lam, k_max=None):
    r"""Forward Sarsa(:math:`\lambda`), :math:`\eta = 0.01`, on the template, written out: K
    the least k with :math:`(\gamma\lambda)^k \le \eta` (1 at :math:`\lambda = 0`, 44 at
    :math:`\lambda = 1`: :math:`0.9^{44} \le 0.01`; 6 at :math:`\lambda = 0.5`:
    :math:`0.45^5 > 0.01 \ge 0.45^6`), at most :math:`K_{max}`. The values
    :math:`V_j = \hat Q(S_j, A_j)` as each :math:`S_j` is reached (the weights of that
    moment); once K steps are seen, each step updates the pair K - 1 steps back towards the
    K-bounded :math:`\lambda`-return

    .. math::
        G_\tau^{\lambda|h} = R_{\tau+1} + \gamma\big((1-\lambda)V_{\tau+1}
        + \lambda G_{\tau+1}^{\lambda|h}\big),\quad G_h^{\lambda|h} = V_h,

    :math:`h = \tau + K`; the pairs left at the end towards :math:`G^{\lambda|4}` (0 after
    the terminal state). At :math:`\lambda = 0` this is one-step Sarsa, at
    :math:`\lambda = 1` n-step Sarsa with n = K (:func:`ftd_lib.references.template.n_step_by_hand`,
    so those cases also check forward Sarsa(1, :math:`K_{max} = n`) = n-step Sarsa)."""
    if lam in (0.0, 1.0):
        return n_step_by_hand(w0, 1 if lam == 0.0 else min(44, k_max or 44))
    K = 1
    while (GAMMA * lam) ** K > 0.01:
        K += 1
    K = min(K, k_max or K)

    def G(tau, h, V):
        if tau == h:
            return V[h]
        return REWARDS[tau] + GAMMA * ((1 - lam) * V[tau + 1] + lam * G(tau + 1, h, V))

    w, V = np.array(w0, dtype=float), {}
    for t in range(T):  # step t reaches S_{t+1}; then (S_{t-K+1}, A_{t-K+1}) is updated
        V[t + 1] = q(w, t + 1)
        if t - K + 1 >= 0:
            w = update(w, t - K + 1, G(t - K + 1, t + 1, V))
    for tau in range(max(0, T - K + 1), T):
        w = update(w, tau, G(tau, T, V))
    return w


#: the hand-worked episode (:mod:`.template`): one-step Sarsa at lambda = 0, n-step Sarsa at
#: lambda = 1 (n = K_max: 1, 2, 3; n = K = 44 without a cap), and the K-bounded
#: lambda-return between them: lambda = 0.5 (K = 6: every update at the end), 0.8 with
#: K_max = 2 and 0.3 with K_max = 3 (updates during the episode)
HAND_WORKED = {"forward_sarsa_lambda": HandWorked(hand_forward_sarsa, (
    {"lam": 0.0}, {"lam": 1.0}, {"lam": 1.0, "k_max": 1}, {"lam": 1.0, "k_max": 2},
    {"lam": 1.0, "k_max": 3}, {"lam": 0.5}, {"lam": 0.8, "k_max": 2},
    {"lam": 0.3, "k_max": 3}))}
