r"""The per-run control references of the paper's Sec. 6 (Fig. 4): Sarsa(:math:`\lambda`) and
forward Sarsa(:math:`\lambda`), one run live on one environment, :math:`\epsilon`-greedy,
one network per action, read top to bottom beside Algorithm 1 (also as
``ftd_lib.algorithms.sarsa_lambda`` and ``ftd_lib.algorithms.forward_sarsa_lambda``).

Both engines (:mod:`ftd_lib.engine`: the compiled kernel and the torch batch) follow these
semantics -- the episode cap (a time limit that bootstraps, or a terminal state), divergence
(a value beyond ``div_bound`` or ``nan`` freezes the run: weights zeroed, returns ``nan``
from that episode on), the run's own random streams (start states: the env's; exploration:
``agent``, two draws a choice) -- and are tested against them; ``run_control(...,
engine="reference")`` runs them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from ..returns import Algorithm1Return, k_bound
from ..validate import (
    check_alpha,
    check_choice,
    check_eta,
    check_int,
    check_k_max,
    check_unit,
    check_w0,
)


@dataclass
class ControlRun:
    """One control run: ``returns``, ``lengths`` ``(n_episodes,)`` (``nan``, -1 from the
    episode it diverged in), ``diverged_at`` (-1: never), the final ``weights`` ``(A, P)``
    (zeros if diverged) and ``n_steps`` (environment steps)."""

    returns: np.ndarray
    lengths: np.ndarray
    diverged_at: int
    weights: np.ndarray
    n_steps: int


def epsilon_greedy(q, epsilon: float, agent: np.random.Generator) -> int:
    r""":math:`\epsilon`-greedy from the action values ``q`` with two draws of the run's agent
    stream: if the first is below :math:`\epsilon`, the action :math:`\lfloor A u_2\rfloor`;
    else the first maximal action (the first ``nan``, if any)."""
    u1, u2 = agent.random(), agent.random()
    if u1 < epsilon:
        return min(int(u2 * len(q)), len(q) - 1)
    return int(np.argmax(q))


def _q(approx, w, s):
    r""":math:`\hat Q(s, a|\theta_a)` of every action ``a`` (one network per action)."""
    return [float(approx.value(w[b], s)) for b in range(len(w))]


def _start(env, approx, w, epsilon, agent, bound):
    r"""Reset; :math:`A_0` from :math:`\hat Q(S_0, \cdot)` (``None`` if a value diverged)."""
    s = env.reset()[0]
    q = _q(approx, w, s)
    return s, (epsilon_greedy(q, epsilon, agent) if _ok(q, bound) else None)


def _act(env, a, approx, w, epsilon, agent, truncation):
    r"""Take action ``a`` in a one-run env: ``(S', R, end, A', Q(S', .))``; :math:`A'` is
    chosen at :math:`S'` unless the episode ended (``None`` and ``[]`` then), but an episode
    cut by the cap still chooses with ``truncation="bootstrap"``."""
    obs, r, term, trunc = env.step(np.array([a]))
    s2, r, term, cap = obs[0], float(r[0]), bool(term[0]), bool(trunc[0])
    if term or (cap and truncation == "terminal"):
        return s2, r, True, None, []
    q2 = _q(approx, w, s2)
    return s2, r, cap, epsilon_greedy(q2, epsilon, agent), q2


def _ok(values, bound) -> bool:  # no value nan or beyond the bound (else: diverged)
    return all(abs(v) <= bound for v in values)


def _control_args(w0, approx, alpha, lam, gamma, epsilon, truncation, n_episodes):
    w = np.array([check_w0(w, approx.n_params) for w in np.asarray(w0, dtype=float)])
    check_choice("truncation", truncation, ("bootstrap", "terminal"))
    return (w, check_alpha(alpha), check_unit("lam", lam), check_unit("gamma", gamma),
            check_unit("epsilon", epsilon), check_int("n_episodes", n_episodes, 0))


def _diverged(returns, lengths, w, ep, steps) -> ControlRun:  # frozen, as the engines do
    returns[ep:], lengths[ep:] = np.nan, -1
    return ControlRun(returns, lengths, ep, np.zeros_like(w), steps)


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
    w, alpha, lam, gamma, epsilon, n_episodes = _control_args(
        w0, approx, alpha, lam, gamma, epsilon, truncation, n_episodes)
    returns, lengths, steps = np.full(n_episodes, np.nan), np.full(n_episodes, -1), 0
    for ep in range(n_episodes):
        s, a = _start(env, approx, w, epsilon, agent, div_bound)
        if a is None:
            return _diverged(returns, lengths, w, ep, steps)
        e = np.zeros_like(w)  # one trace per action's network
        ret, T, end = 0.0, 0, False
        while not end:
            s2, R, end, a2, q2 = _act(env, a, approx, w, epsilon, agent, truncation)
            ret, T, steps = ret + R, T + 1, steps + 1
            v = float(approx.value(w[a], s))
            delta = R + gamma * (0.0 if a2 is None else q2[a2]) - v
            e = gamma * lam * e
            e[a] = e[a] + approx.grad(w[a], s)
            w = w + alpha * delta * e
            if not _ok([v, *q2], div_bound):
                return _diverged(returns, lengths, w, ep, steps)
            s, a = s2, a2
        returns[ep], lengths[ep] = ret, T
    return ControlRun(returns, lengths, -1, w, steps)


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
    w, alpha, lam, gamma, epsilon, n_episodes = _control_args(
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
        s, a = _start(env, approx, w, epsilon, agent, div_bound)
        if a is None:
            return _diverged(returns, lengths, w, ep, steps)
        F = deque()  # FIFO of <phi(S), A, rho>
        G = Algorithm1Return(gamma, lam, K)
        ret, T, end = 0.0, 0, False
        while not end:
            s2, R, end, a2, q2 = _act(env, a, approx, w, epsilon, agent, truncation)
            ret, T, steps = ret + R, T + 1, steps + 1
            V_next = 0.0 if a2 is None else q2[a2]
            F.append((s, a, R + gamma * (1 - lam) * V_next))  # rho
            G.observe(R, V_next)
            v = 0.0
            if G.ready:
                w, rho_p, v = pop(F, w, G.U)
                G.advance(rho_p)
            if not _ok([v, *q2], div_bound):
                return _diverged(returns, lengths, w, ep, steps)
            s, a = s2, a2
        G.end()
        while F:  # the last updates of the episode
            w, rho_p, v = pop(F, w, G.U)
            if not _ok([v], div_bound):
                return _diverged(returns, lengths, w, ep, steps)
            if F:
                G.advance(rho_p)
        returns[ep], lengths[ep] = ret, T
    return ControlRun(returns, lengths, -1, w, steps)


# ----------------------------------------------------------------------------- by hand


def hand_sarsa(w0, lam):
    r"""Sarsa(:math:`\lambda`) on the hand-worked template (:mod:`ftd_lib.references.template`),
    step by step: :math:`\delta_t = R_{t+1} + \gamma\hat Q(S_{t+1}, A_{t+1}) -
    \hat Q(S_t, A_t)` (0 after the terminal state), every trace decayed by
    :math:`\gamma\lambda`, :math:`e_{A_t} \mathrel{+}= S_t`,
    :math:`\theta \mathrel{+}= \alpha\delta_t e`."""
    from .template import ACTIONS, ALPHA, GAMMA, REWARDS, T, X, q

    w, e = w0.copy(), np.zeros_like(w0)
    for t in range(T):
        delta = REWARDS[t] + GAMMA * q(w, t + 1) - q(w, t)
        e = GAMMA * lam * e
        e[ACTIONS[t]] += X[t]
        w = w + ALPHA * delta * e
    return w


def hand_forward_sarsa(w0, lam, k_max=None):
    r"""Forward Sarsa(:math:`\lambda`), :math:`\eta = 0.01`, on the template: at
    :math:`\lambda = 0` K = 1, one-step Sarsa; at :math:`\lambda = 1` the K-bounded return is
    the K-step return, K = :math:`\min(K_{max}, 44)` (:math:`0.9^{44} \le 0.01`): n-step
    Sarsa with n = K, worked by hand in :func:`ftd_lib.references.template.n_step_by_hand`
    (so this case also checks forward Sarsa(1, :math:`K_{max} = n`) = n-step Sarsa). Between
    them it is checked by the engines only (``None``)."""
    from .template import n_step_by_hand

    if lam == 0.0:
        return n_step_by_hand(w0, 1)
    if lam == 1.0:
        return n_step_by_hand(w0, min(44, k_max or 44))
    return None


def _hand_worked():
    from .template import HandWorked

    lams = ({"lam": 0.0}, {"lam": 0.5}, {"lam": 1.0})
    return {"sarsa_lambda": HandWorked(hand_sarsa, lams),
            "forward_sarsa_lambda": HandWorked(hand_forward_sarsa, (
                {"lam": 0.0}, {"lam": 1.0}, {"lam": 1.0, "k_max": 1}, {"lam": 1.0, "k_max": 2},
                {"lam": 1.0, "k_max": 3}))}


#: the hand-worked episodes of this module's references (:mod:`ftd_lib.references.template`)
HAND_WORKED = _hand_worked()
