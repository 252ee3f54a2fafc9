r"""The per-run reference of every method of the paper, on recorded episodes.

Contract (shared by every function here)::

    W = method(episodes, w0, *, approx, alpha, lam, gamma, ...)

- ``episodes``: a list of ``(features, rewards)``; ``features`` has shape ``(T+1, n)``, row
  ``t`` is :math:`\phi(S_t)`, the last row is the terminal state (its value is 0 whatever its
  features); ``rewards`` has shape ``(T,)``, entry ``t`` is :math:`R_{t+1}`. Episodes run one
  after another, each starting from the weights the previous one ended with.
- returns ``W`` of shape ``(sum of T, len(w0))``: row k is :math:`\theta` after the k-th time
  step over all episodes, i.e. :math:`\theta_1 .. \theta_T` of each episode, where
  :math:`\theta_T` includes the end-of-episode updates. An empty list of episodes is valid
  and gives shape ``(0, len(w0))`` (no time step, no row).
- bad input raises ``ValueError`` naming the parameter (:mod:`ftd_lib.validate`, the checks
  the batched engine shares): ``alpha`` finite > 0, ``lam`` and ``gamma`` in [0, 1], ``w0``
  finite of the approximator's length, every episode T >= 1 with finite features and rewards
  of the approximator's width, ``eta`` in (0, 1), ``k_max`` None or an integer >= 1.

Control (Sec. 6, Fig. 4): :func:`sarsa_lambda` and :func:`forward_sarsa_lambda` (written in
:mod:`ftd_lib.references`, available here) run one control run live on one environment,
:math:`\epsilon`-greedy with one network per action, and return a :class:`ControlRun`;
``run_control(..., engine="reference")`` runs them.

These are written to be read next to the paper, not to be fast; both engines
(``ftd_lib.engine``) are tested against them.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .references.common import ControlRun, epsilon_greedy  # noqa: F401
from .references.forward_sarsa_lambda import forward_sarsa_lambda  # noqa: F401
from .references.sarsa_lambda import sarsa_lambda  # noqa: F401
from .returns import Algorithm1Return, gae, interim_lambda_return, k_bound
from .validate import (
    check_alpha,
    check_episodes,
    check_eta,
    check_int,
    check_k_max,
    check_unit,
    check_w0,
)


def _check(episodes, w0, approx, alpha, lam, gamma):
    alpha = check_alpha(alpha)
    lam = check_unit("lam", lam)
    gamma = check_unit("gamma", gamma)
    w = check_w0(w0, approx.n_params)
    episodes = check_episodes(episodes, approx.n_in)
    return episodes, w, alpha, lam, gamma


def _rows(out, w) -> np.ndarray:
    """The rows ``out`` as one ``(len(out), len(w))`` array (``(0, len(w))`` when empty)."""
    return np.array(out, dtype=float).reshape(len(out), np.size(w))


def _values(approx, w, features):
    r"""Value of every row of ``features``, with the terminal (last) row's value set to 0."""
    v = np.asarray(approx.value(w, features), dtype=float).copy()
    v[-1] = 0.0
    return v


def td_update(approx, w, x, target, alpha):
    r"""The general TD update, eq. (1):
    :math:`\theta \leftarrow \theta + \alpha (U - \hat V(S|\theta)) \nabla_\theta \hat V(S|\theta)`.
    """
    return w + alpha * (target - approx.value(w, x)) * approx.grad(w, x)


def td0(episodes, w0, *, approx, alpha, gamma):
    r"""TD(0): the general TD update, eq. (1), with the one-step target (Sec. 3).

    .. math::
        U_t = R_{t+1} + \gamma\hat V(S_{t+1}|\theta_t),\qquad
        \theta_{t+1} = \theta_t + \alpha\big(U_t - \hat V(S_t|\theta_t)\big)
        \nabla_\theta\hat V(S_t|\theta_t)

    The same numbers as :func:`td_lambda` with :math:`\lambda = 0` (tested).
    """
    episodes, w, alpha, _, gamma = _check(episodes, w0, approx, alpha, 0.0, gamma)
    out = []
    for x, r in episodes:
        T = len(r)
        for t in range(T):
            v_next = 0.0 if t + 1 == T else approx.value(w, x[t + 1])  # terminal: value 0
            w = td_update(approx, w, x[t], r[t] + gamma * v_next, alpha)
            out.append(w)
    return _rows(out, w)


def td_lambda(episodes, w0, *, approx, alpha, lam, gamma):
    r"""TD(:math:`\lambda`) with accumulating traces (Sec. 3):

    .. math::
        \delta_t = R_{t+1} + \gamma\hat V(S_{t+1}|\theta_t) - \hat V(S_t|\theta_t),\quad
        e_t = \gamma\lambda e_{t-1} + \nabla_\theta \hat V(S_t|\theta_t),\quad
        \theta_{t+1} = \theta_t + \alpha\delta_t e_t
    """
    episodes, w, alpha, lam, gamma = _check(episodes, w0, approx, alpha, lam, gamma)
    out = []
    for x, r in episodes:
        T = len(r)
        e = np.zeros_like(w)
        for t in range(T):
            v_next = 0.0 if t + 1 == T else approx.value(w, x[t + 1])
            delta = r[t] + gamma * v_next - approx.value(w, x[t])
            e = gamma * lam * e + approx.grad(w, x[t])
            w = w + alpha * delta * e
            out.append(w)
    return _rows(out, w)


def true_online_td_lambda(episodes, w0, *, approx, alpha, lam, gamma):
    r"""True online TD(:math:`\lambda`) (van Seijen & Sutton 2014), linear features only.

    .. math::
        \delta = R + \gamma\theta^\top\phi' - \theta^\top\phi,\quad
        e \leftarrow \gamma\lambda e + \phi - \alpha\gamma\lambda(e^\top\phi)\phi,\\
        \theta \leftarrow \theta + \alpha(\delta + \theta^\top\phi - V_{old})e
                         - \alpha(\theta^\top\phi - V_{old})\phi,\quad
        V_{old} \leftarrow \theta_{old}^\top\phi'

    For linear features it equals the online :math:`\lambda`-return algorithm exactly.
    """
    if type(approx).__name__ != "Linear":
        raise ValueError("approx must be Linear: true online TD(lambda) needs linear features")
    episodes, w, alpha, lam, gamma = _check(episodes, w0, approx, alpha, lam, gamma)
    out = []
    for x, r in episodes:
        T = len(r)
        e = np.zeros_like(w)
        v_old = 0.0
        for t in range(T):
            phi = x[t]
            phi_next = np.zeros_like(phi) if t + 1 == T else x[t + 1]
            v = w @ phi
            v_next = w @ phi_next
            delta = r[t] + gamma * v_next - v
            e = gamma * lam * e + phi - alpha * gamma * lam * (e @ phi) * phi
            w = w + alpha * (delta + v - v_old) * e - alpha * (v - v_old) * phi
            v_old = v_next
            out.append(w)
    return _rows(out, w)


def online_lambda_return(episodes, w0, *, approx, alpha, lam, gamma):
    r"""The online :math:`\lambda`-return algorithm (Sec. 4, eq. 3), by its definition.

    At every time t the episode is replayed from its initial weights :math:`\theta_0`:

    .. math::
        \theta_{k+1}^t = \theta_k^t + \alpha\big(G_k^{\lambda|t} - \hat V(S_k|\theta_k^t)\big)
        \nabla_\theta\hat V(S_k|\theta_k^t),\quad 0 \le k < t,\qquad \theta_t := \theta_t^t

    with :math:`G_k^{\lambda|t}` bootstrapping from :math:`\hat V(S_j|\theta_{j-1})`.
    Cost per step grows with t (O(T^2) updates an episode).
    """
    episodes, w, alpha, lam, gamma = _check(episodes, w0, approx, alpha, lam, gamma)
    out = []
    for x, r in episodes:
        T = len(r)
        w_start = w
        values = np.zeros(T + 1)  # values[j] = V(S_j | theta_{j-1}); values[T] = 0
        for t in range(1, T + 1):
            if t < T:
                values[t] = approx.value(w, x[t])  # w is theta_{t-1}
            w = w_start
            for k in range(t):
                g = interim_lambda_return(r, values, k, t, gamma, lam)
                w = td_update(approx, w, x[k], g, alpha)
            out.append(w)
    return _rows(out, w)


def offline_lambda_return(episodes, w0, *, approx, alpha, lam, gamma):
    r"""The offline :math:`\lambda`-return algorithm (Sec. 4).

    :math:`\theta_t := \theta_0` for :math:`0 \le t < T`; at the end of the episode
    :math:`\theta_T := \theta_T^T` by eq. (3), with every value in the returns taken from
    :math:`\theta_0` (the weights did not change during the episode).
    """
    episodes, w, alpha, lam, gamma = _check(episodes, w0, approx, alpha, lam, gamma)
    out = []
    for x, r in episodes:
        T = len(r)
        values = _values(approx, w, x)
        rows = [w] * (T - 1)
        for k in range(T):
            g = interim_lambda_return(r, values, k, T, gamma, lam)
            w = td_update(approx, w, x[k], g, alpha)
        out.extend(rows + [w])
    return _rows(out, w)


def forward_td_lambda(episodes, w0, *, approx, alpha, lam, gamma, eta=0.01, k_max=None,
                      trace=None):
    r"""Forward TD(:math:`\lambda`), Algorithm 1 of the paper, line by line.

    Updates :math:`\theta_{t+K} = \theta_{t+K-1} + \alpha(G_t^{\lambda|t+K} -
    \hat V(S_t|\theta_{t+K-1}))\nabla_\theta\hat V(S_t|\theta_{t+K-1})` with the K-bounded
    :math:`\lambda`-return, K from :func:`ftd_lib.returns.k_bound`; the last K updates of an
    episode happen at its end. The K-bounded return is kept in ``U`` by the two identities of
    App. B, and recomputed from scratch (``U_sync``) every K steps so that rounding errors
    never grow by more than :math:`(1/\gamma\lambda)^K` (:class:`Algorithm1Return`).

    ``trace``: optional list; if given, one dict per time step is appended with the
    algorithm's variables after that step (for the course's step-through widget).
    """
    episodes, w, alpha, lam, gamma = _check(episodes, w0, approx, alpha, lam, gamma)
    eta = check_eta(eta)
    k_max = check_k_max(k_max)
    K = k_bound(gamma, lam, eta, k_max)  # K = ceil(log(eta)/log(gamma*lam)), min(K_max, K)
    out = []
    for x, r in episodes:
        T = len(r)
        F = deque()  # FIFO queue of (phi(S), rho, t), at most K long
        G = Algorithm1Return(gamma, lam, K)  # U, U_sync, c, i, V_current, ready
        for t in range(T):  # S = S_t, observe R = R_{t+1} and S' = S_{t+1}
            R = r[t]
            V_next = 0.0 if t + 1 == T else float(approx.value(w, x[t + 1]))
            rho = R + gamma * (1 - lam) * V_next
            F.append((x[t], rho, t))
            delta_p = G.observe(R, V_next)
            updated, target = None, None
            if G.ready:
                phi_p, rho_p, updated = F.popleft()
                w = td_update(approx, w, phi_p, G.U, alpha)
                target = G.U
                G.advance(rho_p)
            if trace is not None:
                trace.append(dict(t=t, K=K, queue=[s for _, _, s in F], U=G.U, U_sync=G.U_sync,
                                  c=G.c, i=G.i, delta_prime=delta_p, rho=rho, V_next=V_next,
                                  ready=G.ready, updated=updated, target=target, flushed=[],
                                  flush_targets=[], w=w.copy()))
            out.append(w)
        G.end()
        flushed, flush_targets = [], []
        while F:
            phi_p, rho_p, s = F.popleft()
            w = td_update(approx, w, phi_p, G.U, alpha)
            flushed.append(s)
            flush_targets.append(G.U)
            if F:
                G.advance(rho_p)
        out[-1] = w
        if trace is not None:
            trace[-1] = dict(trace[-1], flushed=flushed, flush_targets=flush_targets, w=w.copy())
    return _rows(out, w)


def forward_td_lambda_by_definition(episodes, w0, *, approx, alpha, lam, gamma, eta=0.01,
                                    k_max=None):
    r"""Forward TD(:math:`\lambda`) straight from Sec. 5's equations, G from eq. 2.

    .. math::
        \theta_t = \theta_0 \ (1 \le t < K), \qquad
        \theta_{t+K} = \theta_{t+K-1} + \alpha\big(G_t^{\lambda|t+K}
        - \hat V(S_t|\theta_{t+K-1})\big)\nabla_\theta\hat V(S_t|\theta_{t+K-1})
        \ (0 \le t < T-K),

    then the last :math:`\min(K, T)` states are updated at the episode's end with horizon T.
    Every :math:`G` is recomputed from the n-step returns (cost :math:`O(K^2)` a step), with
    :math:`\hat V(S_j|\theta_{j-1})` for bootstrapping. Same contract as
    this module.
    """
    episodes, w, alpha, lam, gamma = _check(episodes, w0, approx, alpha, lam, gamma)
    K = k_bound(gamma, lam, check_eta(eta), check_k_max(k_max))
    rows = []
    for x, r in episodes:
        T = len(r)
        theta = [w]  # theta[t]
        values = np.zeros(T + 1)  # values[j] = V(S_j | theta_{j-1}); values[T] = 0 (terminal)
        for t in range(1, T):
            values[t] = float(approx.value(theta[t - 1], x[t]))
            if t < K:
                theta.append(theta[0])
            else:
                s = t - K
                g = interim_lambda_return(r, values, s, s + K, gamma, lam)
                theta.append(td_update(approx, theta[t - 1], x[s], g, alpha))
        w = theta[T - 1]
        n_end = int(min(K, T))
        for k in range(n_end):
            s = T - n_end + k
            g = interim_lambda_return(r, values, s, T, gamma, lam)
            w = td_update(approx, w, x[s], g, alpha)
        rows.extend(theta[1:T] + [w])
    return _rows(rows, w)


def block_lambda_return(episodes, w0, *, approx, alpha, lam, gamma, block):
    r"""The block :math:`\lambda`-return method: GAE targets (Schulman et al. 2016) with one SGD
    pass in time order (not PPO's epochs of shuffled minibatches), in the paper's setting, one
    state after another.

    Each episode is cut into blocks of ``block`` (B) steps, the last one shorter if the
    episode ends inside it (the block closes at the episode's end: bootstrap value 0). During
    a block the weights stay frozen at :math:`\theta_s`, the weights at its first step s;
    when it closes at step e (:math:`e = \min(s+B, T)`) the values of its states under
    :math:`\theta_s` give the GAE targets (:func:`ftd_lib.returns.gae`, bootstrapping from
    :math:`\hat V(S_e|\theta_s)`, or 0 when :math:`S_e` is terminal),

    .. math:: G_t = A_t + \hat V(S_t|\theta_s) = G_t^{\lambda|e}, \qquad s \le t < e,

    the paper's interim :math:`\lambda`-return (eq. 2) with the horizon at the block's end
    (its bootstrap values :math:`\hat V(S_j|\theta_{j-1})` all come from :math:`\theta_s`,
    since the weights do not change inside the block). Then one pass of semi-gradient steps,
    eq. (1), over the block's states in time order, each at the current weights (sequential
    SGD, batch size 1, one epoch -- our choice; PPO takes several epochs of minibatches):

    .. math:: \theta \leftarrow \theta + \alpha\big(G_t - \hat V(S_t|\theta)\big)
              \nabla_\theta\hat V(S_t|\theta), \qquad t = s, \dots, e-1.

    :math:`\theta_t = \theta_s` for :math:`s < t < e`; :math:`\theta_e` includes the
    block's updates. ``block = 1`` is TD(0); a block at least as long as every episode
    (``block = None``: no cut inside an episode) is the offline :math:`\lambda`-return
    algorithm (both tested). Forward TD(:math:`\lambda`) instead slides the horizon K steps
    ahead of every state and updates one state a step. Same contract as this module;
    ``block``: ``None`` or an integer >= 1 (``ValueError`` naming it otherwise).
    """
    episodes, w, alpha, lam, gamma = _check(episodes, w0, approx, alpha, lam, gamma)
    block = None if block is None else check_int("block", block, 1)
    out = []
    for x, r in episodes:
        T = len(r)
        B = T if block is None else block
        for s in range(0, T, B):
            e = min(s + B, T)
            values = _values(approx, w, x[s : e + 1])  # V(S_t | theta_s), frozen
            if e < T:  # the block was cut before the episode's end: bootstrap
                values[-1] = float(approx.value(w, x[e]))
            targets = gae(r[s:e], values, gamma, lam) + values[:-1]
            out.extend([w] * (e - s - 1))
            for t in range(s, e):
                w = td_update(approx, w, x[t], targets[t - s], alpha)
            out.append(w)
    return _rows(out, w)


def trace_values(trace) -> np.ndarray:
    r"""``values[j]`` :math:`= \hat V(S_j|\theta_{j-1})` for one episode's trace (``values[0]``
    = 0 is unused, as :math:`V_{current}` starts at 0; ``values[T]`` = 0, terminal)."""
    return np.array([0.0] + [float(step["V_next"]) for step in trace])


def algorithm1_targets(trace) -> np.ndarray:
    r"""The target Algorithm 1 used for every :math:`S_t` of one episode, indexed by t
    (during the episode, and the ones flushed at its end)."""
    T = len(trace)
    targets = np.full(T, np.nan)
    for step in trace:
        if step["updated"] is not None:
            targets[step["updated"]] = step["target"]
    for s, g in zip(trace[-1]["flushed"], trace[-1]["flush_targets"], strict=True):
        targets[s] = g
    return targets
