r"""What every per-run control reference shares (public: a new reference imports them): the
run's result (:class:`ControlRun`), :math:`\epsilon`-greedy with the run's own draws
(:func:`epsilon_greedy`) and its probabilities (:func:`epsilon_greedy_probs`), the step
helpers -- :func:`start` an episode, :func:`act` (one step
and the next action, the episode cap's two meanings), :func:`within_bound` (divergence),
:func:`diverged` (the frozen run) -- :func:`control_args` (the contract's checks), and
:func:`one_step_control`, the whole run of a method that updates once a step
(Sarsa(:math:`\lambda`), Watkins's Q(:math:`\lambda`), Expected Sarsa: each writes only its
update). The engines
(:mod:`ftd_lib.engine`) follow the same conventions and are tested against them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..validate import check_alpha, check_choice, check_int, check_unit, check_w0


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


def epsilon_greedy_probs(q, epsilon: float) -> list[float]:
    r"""The probabilities :math:`\pi(a|s)` with which :func:`epsilon_greedy` picks each action
    from the values ``q``: :math:`\epsilon/|A|` for every action (the exploring draw is
    uniform over all of them, the greedy one included) plus :math:`1 - \epsilon` on the
    first maximal action (the first ``nan``, if any) -- the policy an expectation-based
    target (Expected Sarsa, tree backup, Q(:math:`\sigma`)) averages over. Python floats."""
    greedy = int(np.argmax(q))
    share = float(epsilon) / len(q)
    return [share + (1.0 - float(epsilon) if a == greedy else 0.0) for a in range(len(q))]


def q_values(approx, w, s):
    r""":math:`\hat Q(s, a|\theta_a)` of every action ``a`` (one network per action)."""
    return [float(approx.value(w[b], s)) for b in range(len(w))]


def start(env, approx, w, epsilon, agent, bound):
    r"""Reset; :math:`A_0` from :math:`\hat Q(S_0, \cdot)` (``None`` if a value diverged)."""
    s = env.reset()[0]
    q = q_values(approx, w, s)
    return s, (epsilon_greedy(q, epsilon, agent) if within_bound(q, bound) else None)


def act(env, a, approx, w, epsilon, agent, truncation):
    r"""Take action ``a`` in a one-run env: ``(S', R, end, A', Q(S', .))``; :math:`A'` is
    chosen at :math:`S'` unless the episode ended (``None`` and ``[]`` then), but an episode
    cut by the cap still chooses with ``truncation="bootstrap"``."""
    obs, r, term, trunc = env.step(np.array([a]))
    s2, r, term, cap = obs[0], float(r[0]), bool(term[0]), bool(trunc[0])
    if term or (cap and truncation == "terminal"):
        return s2, r, True, None, []
    q2 = q_values(approx, w, s2)
    return s2, r, cap, epsilon_greedy(q2, epsilon, agent), q2


def within_bound(values, bound) -> bool:
    """No value ``nan`` or beyond ``bound`` (else the run has diverged)."""
    return all(abs(v) <= bound for v in values)


def control_args(w0, approx, alpha, lam, gamma, epsilon, truncation, n_episodes):
    """The contract's arguments checked (a ``ValueError`` naming the first bad one):
    ``(w, alpha, lam, gamma, epsilon, n_episodes)``, ``w`` ``(A, P)`` a copy of ``w0``."""
    w = np.array([check_w0(w, approx.n_params) for w in np.asarray(w0, dtype=float)])
    check_choice("truncation", truncation, ("bootstrap", "terminal"))
    return (w, check_alpha(alpha), check_unit("lam", lam), check_unit("gamma", gamma),
            check_unit("epsilon", epsilon), check_int("n_episodes", n_episodes, 0))


def diverged(returns, lengths, w, ep, steps) -> ControlRun:
    """The run frozen as diverged in episode ``ep``, as the engines do: returns ``nan`` and
    lengths -1 from then on, weights zeroed."""
    returns[ep:], lengths[ep:] = np.nan, -1
    return ControlRun(returns, lengths, ep, np.zeros_like(w), steps)


@dataclass(frozen=True)
class ControlSettings:
    """The checked settings a step's update reads (:func:`control_args`)."""

    approx: object
    alpha: float
    lam: float
    gamma: float
    epsilon: float


def one_step_control(update: Callable, env, w0, *, approx, alpha, lam, gamma, n_episodes,
                     agent, epsilon, truncation, div_bound) -> ControlRun:
    r"""A control run of a method that updates once a step, the contract of
    :func:`ftd_lib.references.sarsa_lambda.sarsa_lambda`: each episode starts with
    :func:`start` and traces :math:`e = 0` ``(A, P)``; after each step :math:`(S, A, R, S',
    A')` (:func:`act`) ``update(p, w, e, s, a, R, v, a2, q2) -> (w, e)`` with ``p`` the
    :class:`ControlSettings`, :math:`v = \hat Q(S, A|\theta)` before the update, ``a2``
    ``None`` after the episode's end and ``q2`` :math:`\hat Q(S', \cdot)`; a value beyond
    ``div_bound`` (:math:`v` or ``q2``) freezes the run (:func:`diverged`)."""
    w, alpha, lam, gamma, epsilon, n_episodes = control_args(
        w0, approx, alpha, lam, gamma, epsilon, truncation, n_episodes)
    p = ControlSettings(approx, alpha, lam, gamma, epsilon)
    returns, lengths, steps = np.full(n_episodes, np.nan), np.full(n_episodes, -1), 0
    for ep in range(n_episodes):
        s, a = start(env, approx, w, epsilon, agent, div_bound)
        if a is None:
            return diverged(returns, lengths, w, ep, steps)
        e = np.zeros_like(w)  # one trace per action's network
        ret, T, end = 0.0, 0, False
        while not end:
            s2, R, end, a2, q2 = act(env, a, approx, w, epsilon, agent, truncation)
            ret, T, steps = ret + R, T + 1, steps + 1
            v = float(approx.value(w[a], s))
            w, e = update(p, w, e, s, a, R, v, a2, q2)
            if not within_bound([v, *q2], div_bound):
                return diverged(returns, lengths, w, ep, steps)
            s, a = s2, a2
        returns[ep], lengths[ep] = ret, T
    return ControlRun(returns, lengths, -1, w, steps)
