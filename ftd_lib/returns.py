r"""Returns: n-step, interim :math:`\lambda`-return, the two identities of App. B, and K; the
pure returns of a whole episode (:func:`n_step_returns`, :func:`k_bounded_returns`,
:func:`lambda_returns`) beside Algorithm 1's incremental one (:class:`Algorithm1Return`).

Time alignment (as in rlax and the paper): ``rewards[t]`` is :math:`R_{t+1}`; ``values[j]``
is the value of :math:`S_j` used for bootstrapping, :math:`\hat V_j = \hat V(S_j|\theta_{j-1})`
(``values[T] = 0`` for the terminal state). Indices beyond the episode's end count as the
terminal state: reward 0, value 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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


# ----------------------------------------------------------------------------- pure returns
# Every t of an episode (or a rollout cut at T) at once, in the style of rlax's
# ``n_step_bootstrapped_returns`` and ``lambda_returns``: ``rewards`` (T,), ``values`` (T+1,)
# with ``values[T]`` the value at the end (0 for a terminal state; the bootstrap value where
# a cap cut the episode). The references share them; each is tested against eq. 2.


def _episode(rewards, values):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    if r.ndim != 1 or v.shape != (len(r) + 1,):
        raise ValueError(f"values must have shape (T+1,) = ({len(r) + 1},) for {len(r)} "
                         f"rewards, got {v.shape}")
    return r, v


def n_step_returns(rewards, values, n: int, gamma: float) -> np.ndarray:
    r""":math:`G_{t:\min(t+n,T)}` for every t (Sutton & Barto 2018, eq. 7.1): n rewards, then
    the value n steps on -- or, nearer the end than n, the rewards to the end and
    ``values[T]``. What n-step Sarsa's updates aim at
    (:mod:`ftd_lib.references.n_step_sarsa`)."""
    r, v = _episode(rewards, values)
    if int(n) < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    T = len(r)
    return np.array([n_step_return(r, v, t, min(int(n), T - t), gamma) for t in range(T)])


def k_bounded_returns(rewards, values, k: int, gamma: float, lam: float) -> np.ndarray:
    r""":math:`G_t^{\lambda|\min(t+K,T)}` for every t (eq. 2 with the horizon K steps on,
    Sec. 5), each by the backward recursion :math:`G_j = R_{j+1} + \gamma((1-\lambda)
    \hat V_{j+1} + \lambda G_{j+1})` from :math:`G_h = \hat V_h` (App. B's second identity):
    the target of forward TD(:math:`\lambda`) and forward Sarsa(:math:`\lambda`). With
    :math:`\lambda = 1` it is :func:`n_step_returns` with n = K; with K >= T, the
    :math:`\lambda`-return (:func:`lambda_returns`)."""
    r, v = _episode(rewards, values)
    if int(k) < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    T = len(r)
    out = np.empty(T)
    for t in range(T):
        h = min(t + int(k), T)
        g = v[h]
        for j in range(h - 1, t - 1, -1):
            g = r[j] + gamma * ((1 - lam) * v[j + 1] + lam * g)
        out[t] = g
    return out


def lambda_returns(rewards, values, gamma: float, lam: float) -> np.ndarray:
    r"""The :math:`\lambda`-return :math:`G_t^{\lambda|T}` for every t, by one backward
    recursion :math:`G_t = R_{t+1} + \gamma((1-\lambda)\hat V_{t+1} + \lambda G_{t+1})`,
    :math:`G_T = \hat V_T` (the offline :math:`\lambda`-return algorithm's targets)."""
    r, v = _episode(rewards, values)
    out = np.empty(len(r))
    g = v[-1]
    for t in range(len(r) - 1, -1, -1):
        g = r[t] + gamma * ((1 - lam) * v[t + 1] + lam * g)
        out[t] = g
    return out


@dataclass
class Algorithm1Return:
    r"""Algorithm 1's K-bounded :math:`\lambda`-return ``U`` (Sec. 5, App. B), shared by
    forward TD(:math:`\lambda`) and forward Sarsa(:math:`\lambda`).

    :meth:`observe` (each step, :math:`R` and :math:`V_{next}`):
    :math:`\delta' = R + \gamma V_{next} - V_{current}`; every K steps
    :math:`U \leftarrow U_{sync}` and :math:`U_{sync}` restarts from :math:`V_{current}`
    (so rounding errors never grow by more than :math:`(1/\gamma\lambda)^K`), else
    :math:`U_{sync} \mathrel{+}= c\,\delta'`, :math:`c \leftarrow \gamma\lambda c`; once
    ``ready``, :math:`U \mathrel{+}= (\gamma\lambda)^{K-1}\delta'`
    (:math:`G_t^{\lambda|t+K}` from :math:`G_t^{\lambda|t+K-1}`). :meth:`advance` after an
    update: :math:`U \leftarrow (U - \rho_t)/\gamma\lambda`
    (:math:`G_{t+1}^{\lambda|t+K}` from :math:`G_t^{\lambda|t+K}`). :meth:`end` at the
    episode's end: :math:`U \leftarrow U_{sync}` if no update has happened yet.
    """

    gamma: float
    lam: float
    K: float
    U: float = 0.0
    U_sync: float = 0.0
    i: int = 0
    c: float = 1.0
    V_current: float = 0.0
    ready: bool = False

    def __post_init__(self):
        self.gl = self.gamma * self.lam
        self.c_final = self.gl ** (self.K - 1)

    def observe(self, R, V_next) -> float:
        delta_p = R + self.gamma * V_next - self.V_current
        self.V_current = V_next
        if self.i == self.K - 1:
            self.U = self.U_sync
            self.U_sync, self.i, self.c, self.ready = self.V_current, 0, 1.0, True
        else:
            self.U_sync = self.U_sync + self.c * delta_p
            self.i, self.c = self.i + 1, self.gl * self.c
        if self.ready:
            self.U = self.U + self.c_final * delta_p
        return delta_p

    def advance(self, rho_p) -> None:
        if self.K != 1:
            self.U = (self.U - rho_p) / self.gl

    def end(self) -> None:
        if not self.ready:
            self.U = self.U_sync


def _check_rollout(rewards, values, gamma, lam, terminals):
    """The checks of :func:`gae`: ``(rewards, values, gamma, lam, terminals)`` as float arrays
    and floats, or ``ValueError`` naming the first bad parameter."""
    gamma = check_unit("gamma", gamma)
    lam = check_unit("lam", lam)
    try:
        r = np.asarray(rewards, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("rewards must be a 1-d array of numbers") from None
    if r.ndim != 1 or r.size == 0:
        raise ValueError(f"rewards must be a 1-d array of T >= 1 rewards, got shape {r.shape}")
    if not np.all(np.isfinite(r)):
        raise ValueError("rewards must be finite (they hold nan or inf)")
    T = r.size
    try:
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("values must be a 1-d array of numbers") from None
    if v.shape != (T + 1,):
        raise ValueError(f"values must have shape (T+1,) = ({T + 1},) for {T} rewards "
                         f"(the last entry is the bootstrap value), got {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite (they hold nan or inf)")
    if terminals is None:
        d = np.zeros(T)
    else:
        try:
            d = np.asarray(terminals, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("terminals must be a 1-d array of 0s and 1s") from None
        if d.shape != (T,):
            raise ValueError(f"terminals must have shape (T,) = ({T},), got {d.shape}")
        if not np.all((d == 0) | (d == 1)):
            raise ValueError("terminals must hold only 0 and 1 (or False and True)")
    return r, v, gamma, lam, d


def gae(rewards, values, gamma: float, lam: float, terminals=None) -> np.ndarray:
    r"""Generalised advantage estimates (Schulman et al. 2016) of a rollout of T steps, by the
    backward recursion PPO and A2C implementations use:

    .. math::
        \delta_t = R_{t+1} + \gamma(1-d_t)\hat V(S_{t+1}) - \hat V(S_t), \qquad
        A_t = \delta_t + \gamma\lambda(1-d_t)A_{t+1}, \qquad A_T = 0.

    ``rewards`` ``(T,)``: ``rewards[t]`` is :math:`R_{t+1}`; ``values`` ``(T+1,)``:
    ``values[t]`` is :math:`\hat V(S_t)` from one weight vector, frozen over the rollout, and
    ``values[T]`` is the bootstrap value of the state where the rollout was cut (pass 0 if it
    is terminal). ``terminals`` (optional, ``(T,)`` of 0/1): ``terminals[t] = 1`` when
    :math:`S_{t+1}` is terminal, i.e. the episode ended with step t (:math:`d_t` above): no
    bootstrap from ``values[t+1]`` (which is then the first state of the next episode) and the
    recursion restarts there, so no advantage looks across an episode's end. (cleanrl's PPO
    writes the same mask as ``1 - dones[t+1]``.)

    **It is the paper's interim** :math:`\lambda` **-return** (eq. 2, Sec. 4) with the
    horizon h at the rollout's cut (or the episode's end, if earlier), minus the value:

    .. math:: A_t + \hat V(S_t) = G_t^{\lambda|h},

    because App. B's second identity, :math:`G_t^{\lambda|h} = \rho_t + \gamma\lambda
    G_{t+1}^{\lambda|h}` with :math:`\rho_t = R_{t+1} + \gamma(1-\lambda)\hat V(S_{t+1})`,
    is the recursion above written for :math:`G - \hat V`; it starts from
    :math:`G_{h-1}^{\lambda|h} = R_h + \gamma\hat V(S_h)`, the one-step target. With the
    values frozen, the paper's :math:`\hat V(S_j|\theta_{j-1})` are all the same weights'.
    Forward TD(:math:`\lambda`) uses the same return with the horizon sliding K steps ahead
    (:func:`k_bound`); GAE's horizon is fixed at the end of the rollout. Returns ``(T,)``.

    Bad input (shapes that disagree, ``gamma`` or ``lam`` outside [0, 1], non-finite rewards
    or values, terminals not of shape ``(T,)`` or not 0/1) raises ``ValueError`` naming the
    parameter.
    """
    r, v, gamma, lam, d = _check_rollout(rewards, values, gamma, lam, terminals)
    T = r.size
    adv = np.zeros(T)
    a_next = 0.0
    for t in range(T - 1, -1, -1):
        not_done = 1.0 - d[t]
        delta = r[t] + gamma * not_done * v[t + 1] - v[t]
        a_next = delta + gamma * lam * not_done * a_next
        adv[t] = a_next
    return adv


def rollout_returns_by_definition(rewards, values, gamma: float, lam: float,
                                  terminals=None) -> np.ndarray:
    r""":math:`G_t^{\lambda|h_t}` for every t of a rollout, each from eq. 2 (slow, obvious),
    with :math:`h_t` the end of t's episode inside the rollout, or the rollout's cut; the
    arguments as :func:`gae`'s (values frozen; ``values[T]`` the bootstrap at the cut; a
    terminal state's value is 0). :func:`gae` ``+ values[:-1]`` gives the same numbers."""
    r, v, gamma, lam, d = _check_rollout(rewards, values, gamma, lam, terminals)
    T = r.size
    out = np.zeros(T)
    s = 0
    for e in range(1, T + 1):
        if e == T or d[e - 1]:  # [s, e) is one episode's piece of the rollout
            vals = np.append(v[s:e], 0.0 if d[e - 1] else v[e])
            for t in range(s, e):
                out[t] = interim_lambda_return(r[s:e], vals, t - s, e - s, gamma, lam)
            s = e
    return out
