r"""Returns: n-step, interim :math:`\lambda`-return, the two identities of App. B, and K.

Time alignment (as in rlax and the paper): ``rewards[t]`` is :math:`R_{t+1}`; ``values[j]``
is the value of :math:`S_j` used for bootstrapping, :math:`\hat V_j = \hat V(S_j|\theta_{j-1})`
(``values[T] = 0`` for the terminal state). Indices beyond the episode's end count as the
terminal state: reward 0, value 0.
"""

from __future__ import annotations

import math

import numpy as np

from .validate import check_eta, check_k_max, check_unit


def _reward(rewards, k):
    return float(rewards[k]) if k < len(rewards) else 0.0


def _value(values, j):
    return float(values[j]) if j < len(values) else 0.0


def n_step_return(rewards, values, t: int, n: int, gamma: float) -> float:
    r"""n-step return (Sec. 4):

    .. math:: G_t^{(n)} = \sum_{k=1}^{n} \gamma^{k-1} R_{t+k}
              + \gamma^n \hat V(S_{t+n}|\theta_{t+n-1})
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    g = sum(gamma ** (k - 1) * _reward(rewards, t + k - 1) for k in range(1, n + 1))
    return g + gamma**n * _value(values, t + n)


def interim_lambda_return(rewards, values, t: int, h: int, gamma: float, lam: float) -> float:
    r"""Interim :math:`\lambda`-return with horizon h, by its definition (eq. 2, Sec. 4):

    .. math:: G_t^{\lambda|h} = (1-\lambda)\sum_{n=1}^{h-t-1}\lambda^{n-1} G_t^{(n)}
              + \lambda^{h-t-1} G_t^{(h-t)}, \qquad h \ge t+1
    """
    if h < t + 1:
        raise ValueError(f"h must be >= t + 1, got t={t}, h={h}")
    g = sum((1 - lam) * lam ** (n - 1) * n_step_return(rewards, values, t, n, gamma)
            for n in range(1, h - t))
    return g + lam ** (h - t - 1) * n_step_return(rewards, values, t, h - t, gamma)


def delta_prime(reward: float, v_next: float, v_current: float, gamma: float) -> float:
    r"""Sec. 5: :math:`\delta'_h = R_{h+1} + \gamma\hat V(S_{h+1}|\theta_h)
    - \hat V(S_h|\theta_{h-1})`.

    It differs from the TD error :math:`\delta_h` only in the weights used for :math:`S_h`.
    """
    return reward + gamma * v_next - v_current


def extend_horizon(g: float, delta_p: float, t: int, h: int, gamma: float, lam: float) -> float:
    r"""The horizon-extension identity (Sec. 5, derived in App. B): one step more horizon,

    .. math:: G_t^{\lambda|h+1} = G_t^{\lambda|h} + (\gamma\lambda)^{h-t}\,\delta'_h,
              \qquad h \ge t+1
    """
    return g + (gamma * lam) ** (h - t) * delta_p


def rho(reward: float, v_next: float, gamma: float, lam: float) -> float:
    r""":math:`\rho_t = R_{t+1} + \gamma(1-\lambda)\hat V(S_{t+1}|\theta_t)` (Sec. 5)."""
    return reward + gamma * (1 - lam) * v_next


def advance_time(g: float, rho_t: float, gamma: float, lam: float) -> float:
    r"""Second identity of App. B: one step later in time, same horizon,

    .. math:: G_{t+1}^{\lambda|h} = (G_t^{\lambda|h} - \rho_t)/\gamma\lambda,
              \qquad h \ge t+2,\ \gamma\lambda > 0
    """
    return (g - rho_t) / (gamma * lam)


def k_bound(gamma: float, lam: float, eta: float, k_max: int | None = None):
    r"""The horizon K of the K-bounded :math:`\lambda`-return (eq. 5, Sec. 5):

    .. math:: K = \lceil \log\eta / \log(\gamma\lambda) \rceil,

    the smallest K with :math:`(\gamma\lambda)^K \le \eta` (the paper: "the smallest value of K
    that still ensures that :math:`(\gamma\lambda)^K` is smaller than η", computed by this
    ceiling, which gives K = 1 at :math:`\gamma\lambda = \eta`); so K = 1 exactly when
    :math:`\gamma\lambda \le \eta` (or :math:`\gamma\lambda = 0`); ``math.inf`` when
    :math:`\gamma\lambda = 1` (all updates wait for the episode's end). ``k_max`` caps K.
    """
    gamma = check_unit("gamma", gamma)
    lam = check_unit("lam", lam)
    eta = check_eta(eta)
    k_max = check_k_max(k_max)
    gl = gamma * lam
    if gl == 1.0:
        k = math.inf
    elif gl == 0.0 or gl <= eta:
        k = 1
    else:
        ratio = math.log(eta) / math.log(gl)
        k = max(1, math.ceil(ratio - 1e-9))  # ratio within rounding of an integer: that integer
    return k if k_max is None else min(k, k_max)


def bounded_returns_by_definition(rewards, values, k, gamma: float, lam: float) -> np.ndarray:
    r""":math:`G_t^{\lambda|\min(t+K,T)}` for every t, each computed from eq. 2 (slow, obvious)."""
    T = len(rewards)
    return np.array([interim_lambda_return(rewards, values, t, min(t + k, T), gamma, lam)
                     for t in range(T)])


def bounded_returns_by_rho(rewards, values, k: int, gamma: float, lam: float) -> np.ndarray:
    r""":math:`G_t^{\lambda|t+K}` by the bare :math:`\rho`-recursion (no resynchronisation).

    :math:`G_0^{\lambda|K}` is built from :math:`\delta'` (App. B, first identity); every later
    one by two updates: ``advance_time`` then ``extend_horizon``. In exact arithmetic this
    equals :func:`bounded_returns_by_definition` for ``t + K <= T``; in floating point its
    rounding errors grow by :math:`1/\gamma\lambda` every step (Sec. 5). Returns the values for
    ``t = 0 .. T-K``.
    """
    T = len(rewards)
    if not 1 <= k <= T:
        raise ValueError(f"k must be in 1..T, got {k}")
    vals = [0.0] + [_value(values, j) for j in range(1, T + 1)]  # vals[0] unused: V_current = 0
    g = rewards[0] + gamma * vals[1]
    for h in range(1, k):
        g = extend_horizon(g, delta_prime(rewards[h], vals[h + 1], vals[h], gamma), 0, h,
                           gamma, lam)
    out = [g]
    with np.errstate(over="ignore", invalid="ignore"):  # the blow-up is the point
        for t in range(0, T - k):
            g = advance_time(g, rho(rewards[t], vals[t + 1], gamma, lam), gamma, lam)
            h = t + k
            g = extend_horizon(g, delta_prime(rewards[h], vals[h + 1], vals[h], gamma), t + 1,
                               h, gamma, lam)
            out.append(g)
    return np.array(out, dtype=float)
