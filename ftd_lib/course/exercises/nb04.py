r"""Self-checks for notebook 04 (forward TD(:math:`\lambda`)). The right answers are computed
here with the library, never printed: a check says only whether the answer is right."""

from __future__ import annotations

import math

import numpy as np

from ...algorithms import forward_td_lambda
from ...approx import Linear
from ...returns import advance_time, extend_horizon, interim_lambda_return, k_bound
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


def check_first_update(answer, theta_index=None, *, lam: float = 0.5, gamma: float = 1.0,
                       eta: float = 0.1) -> bool:
    r"""Exercise 3: in which pass of Algorithm 1's loop (the pass at time step t observes
    :math:`R_{t+1}` and :math:`S_{t+1}`; t counts from 0) is the first update made, for this
    :math:`\lambda, \gamma, \eta`, in an episode longer than K? With ``theta_index`` also: which
    weight vector :math:`\theta_j` of Sec. 5's definition does that update produce?"""
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
    ok = verdict(a == first, f"Correct: the first update is made in the pass at t = {first}, "
                 "when the queue holds K states.",
                 "Not yet: in which pass is the queue F full for the first time? (t counts "
                 "from 0; the pass at t observes S_{t+1}.)")
    if theta_index is None:
        return ok
    try:
        j = float(theta_index)
    except (TypeError, ValueError):
        return verdict(False, "", "theta_index must be a whole number j (of θ_j).") and ok
    ok_j = verdict(j == first + 1, f"Correct: it produces θ_{first + 1} = θ_K; before it, "
                   "θ_t = θ_0 for t < K.", "Not yet: Sec. 5 numbers the weights after the "
                   "update that uses the horizon t + K; the pass at time step t ends with "
                   "θ_{t+1}.")
    return ok and ok_j


#: Exercise 4: an episode with values V(S_j | theta_{j-1}) that change along it (so delta'
#: differs from the TD error); t and h of the identity G^{lam|h+1} = G^{lam|h} + ...
HORIZON = dict(rewards=[1.0, 0.0, 2.0, -1.0], values=[0.0, 0.5, 1.0, 0.8, 0.0], gamma=0.9,
               lam=0.5, t=0, h=2)


def check_horizon_extension(g_h, delta_p, g_h1) -> bool:
    r"""Exercise 4: on ``HORIZON``, :math:`G_t^{\lambda|h}` by eq. (2), :math:`\delta'_h`, and
    :math:`G_t^{\lambda|h+1}` by the horizon-extension identity; the last is compared with
    eq. (2) at horizon h + 1."""
    if missing(g_h) or missing(delta_p) or missing(g_h1):
        return False
    e = HORIZON
    r, v, g, lam, t, h = e["rewards"], e["values"], e["gamma"], e["lam"], e["t"], e["h"]
    ok1 = check_close(g_h, interim_lambda_return(r, v, t, h, g, lam), name=f"G_{t}^(λ|{h})",
                      rtol=1e-6, hint="Eq. (2): weights (1−λ)λ^(n−1), the rest on the "
                      "longest return.")
    ok2 = check_close(delta_p, r[h] + g * v[h + 1] - v[h], name=f"δ'_{h}", rtol=1e-6,
                      hint="δ'_h = R_{h+1} + γ V(S_{h+1}|θ_h) − V(S_h|θ_{h−1}): values[h+1] "
                      "and values[h].")
    ok3 = check_close(g_h1, interim_lambda_return(r, v, t, h + 1, g, lam),
                      name=f"G_{t}^(λ|{h + 1}) from the identity", rtol=1e-6,
                      hint="Add (γλ)^(h−t) δ'_h to G^(λ|h).")
    return ok1 and ok2 and ok3


def check_k1_is_td0(lam_max, W_forward, W_td0, *, eta: float = 0.01,
                    gamma: float = 1.0) -> bool:
    r"""Exercise 5: the largest :math:`\lambda` with K = 1 (for ``eta`` and ``gamma``), and the
    weights of forward TD(:math:`\lambda`) with K = 1 against TD(0)'s on the same episodes
    (equal to rounding, and not all equal to the start)."""
    if missing(lam_max) or missing(W_forward) or missing(W_td0):
        return False
    ok1 = check_close(lam_max, eta / gamma, name="the largest λ with K = 1", rtol=1e-9,
                      hint="K = 1 when (γλ)^1 ≤ η already.")
    try:
        a, b = np.asarray(W_forward, dtype=float), np.asarray(W_td0, dtype=float)
    except (TypeError, ValueError):
        return verdict(False, "", "W_forward and W_td0 must be arrays of weights.") and ok1
    if a.shape != b.shape or a.ndim != 2 or len(a) < 2:
        return verdict(False, "", f"W_forward {a.shape} and W_td0 {b.shape} must be the weights "
                       "after every step (2-d, the same shape).") and ok1
    if np.allclose(a, a[0]):
        return verdict(False, "", "These weights never change: give the learners some "
                       "episodes with non-zero errors.") and ok1
    ok2 = verdict(bool(np.allclose(a, b, rtol=0, atol=1e-12)), "Correct: with K = 1 forward "
                  "TD(λ) makes TD(0)'s updates, step for step.", "Not yet: the weights differ "
                  f"(largest difference {np.max(np.abs(a - b)):.3g}); is K = 1?")
    return ok1 and ok2
