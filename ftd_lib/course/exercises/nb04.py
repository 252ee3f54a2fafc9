r"""Self-checks for notebook 04 (forward TD(:math:`\lambda`)). The right answers are computed
here with the library, never printed: a check says only whether the answer is right."""

from __future__ import annotations

import math

import numpy as np

from ...algorithms import forward_td_lambda
from ...approx import Linear
from ...returns import advance_time, extend_horizon, k_bound
from . import check_close, missing, verdict


def check_k(answer, *, eta: float = 0.05, gamma: float = 1.0, lam: float = 0.8) -> bool:
    r"""Exercise 1: K of the K-bounded :math:`\lambda`-return for :math:`\eta` and
    :math:`\gamma\lambda` (the smallest K with :math:`(\gamma\lambda)^K \le \eta`)."""
    if missing(answer):
        return False
    K = k_bound(gamma, lam, eta)
    try:
        a = float(answer)
    except (TypeError, ValueError):
        return verdict(False, "", "K must be a whole number.")
    if math.isinf(K) or a != K:
        gl = gamma * lam
        hint = ("(γλ)^K is still above η: K is too small" if a < K else
                "a smaller K already gives (γλ)^K ≤ η")
        if not (a >= 1 and float(a).is_integer()):
            hint = "K is a whole number >= 1"
        return verdict(False, "", f"Not yet: {hint} (γλ = {gl:g}, η = {eta:g}).")
    return verdict(True, f"Correct: K = {K}.", "")


def check_next_target(answer, *, U: float = 2.0, rho: float = 0.8, delta_p: float = 0.5,
                      gamma: float = 1.0, lam: float = 0.5, K: int = 4) -> bool:
    r"""Exercise 2: from :math:`U = G_t^{\lambda|t+K}`, :math:`\rho_t` and
    :math:`\delta'_{t+K}`, the next K-bounded return :math:`G_{t+1}^{\lambda|t+1+K}`
    (App. B: one step later in time, then one step more horizon)."""
    if missing(answer):
        return False
    t = 0
    g = advance_time(U, rho, gamma, lam)  # G_{t+1}^{lambda|t+K}
    expected = extend_horizon(g, delta_p, t + 1, t + K, gamma, lam)  # G_{t+1}^{lambda|t+K+1}
    return check_close(answer, expected, name="G_{t+1}^{λ|t+1+K}", rtol=1e-6,
                       hint="First U ← (U − ρ)/γλ, then add (γλ)^(K−1) δ'.")


def check_first_update(answer, *, lam: float = 0.5, gamma: float = 1.0,
                       eta: float = 0.1) -> bool:
    r"""Exercise 3: at which time step t (counting from 0) does Algorithm 1 make its first
    update, for this :math:`\lambda, \gamma, \eta`, in an episode longer than K?"""
    if missing(answer):
        return False
    K = k_bound(gamma, lam, eta)
    if math.isinf(K):
        raise ValueError("choose gamma * lam < 1 for this exercise")
    T = int(K) + 5
    x = np.ones((T + 1, 1))
    x[-1] = 0.0
    trace = []
    forward_td_lambda([(x, np.ones(T))], np.zeros(1), approx=Linear(1), alpha=0.1, lam=lam,
                      gamma=gamma, eta=eta, trace=trace)
    first = next(s["t"] for s in trace if s["updated"] is not None)
    try:
        a = float(answer)
    except (TypeError, ValueError):
        return verdict(False, "", "The answer must be a time step (a whole number).")
    return verdict(a == first, f"Correct: the first update is at t = {first}, when the queue "
                   "holds K states.", "Not yet: when is the queue F full for the first time?")
