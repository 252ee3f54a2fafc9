r"""Self-checks for notebook 04 (forward TD(:math:`\lambda`)). The right answers are computed
here with the library, never printed: a check says only whether the answer is right."""

from __future__ import annotations

import math

import numpy as np

from ...algorithms import forward_td_lambda, forward_td_lambda_by_definition
from ...approx import Linear
from ...envs.random_walk import random_walk_episodes
from ...returns import advance_time, extend_horizon, interim_lambda_return, k_bound
from ...rng import run_generator
from . import (
    borrows,
    check_close,
    check_weights_per_step,
    missing,
    not_written,
    run_student,
    verdict,
)

#: Exercise 1: the cases an implementation of Algorithm 1 must get right, each against Sec. 5's
#: definition (``forward_td_lambda_by_definition``) on seeded random-walk episodes, tabular:
#: (what it tests, lam, gamma, eta, k_max, what a failure there usually means)
ALGORITHM1_CASES = (
    ("K = 4, episodes longer than K", 0.5, 1.0, 0.1, None,
     "the steady state: U += c_final δ', pop, update, then the ρ-step U ← (U − ρ)/γλ"),
    ("γ < 1 (γλ = 0.72, K = 15)", 0.8, 0.9, 0.01, None,
     "γ enters ρ = R + γ(1−λ)V_next and δ' = R + γV_next − V_current"),
    ("K = 44, most episodes shorter than K", 0.9, 1.0, 0.01, None,
     "an episode that ends before the queue is full: U ← U_sync before the final loop"),
    ("K = 1 (λ = η)", 0.01, 1.0, 0.01, None,
     "with K = 1 there is no ρ-step (If K ≠ 1) and every step updates at once"),
    ("γλ = 1 with k_max = 5", 1.0, 1.0, 0.01, 5,
     "K = min(K_max, K): with γλ = 1 the formula gives K = ∞"),
)


def check_algorithm1(fn) -> bool:
    r"""Exercise 1: a student's ``fn(episodes, w0, *, approx, alpha, lam, gamma, eta, k_max)``
    (Algorithm 1) against Sec. 5's definition in every case of ``ALGORITHM1_CASES``; the weights
    after every step must agree to 1e-10."""
    if not_written(fn):
        return False
    if borrows(fn, forward_td_lambda):
        return verdict(False, "", "That calls the library's own forward_td_lambda: write the "
                       "algorithm yourself (the check compares it with the library's).")
    approx = Linear(10)

    def make(i, case):
        _, lam, gamma, eta, k_max, _ = case
        episodes = random_walk_episodes(4, run_generator(18, i))
        kw = dict(approx=approx, alpha=0.1, lam=lam, gamma=gamma, eta=eta, k_max=k_max)
        w0 = np.linspace(0.5, 5.0, 10)  # a rough first guess, so that delta' moves from step 1
        return episodes, w0, kw, forward_td_lambda_by_definition(episodes, w0, **kw)

    def differs(step, episodes, expected, usual):
        return (f"your weights leave the definition's at step {step} of {len(expected)}. "
                f"Usual cause: {usual}.")

    return bool(check_weights_per_step(
        fn, ALGORITHM1_CASES, make, rows=", one row per step",
        same="the same weights as Sec. 5's definition.", differs=differs))


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
    gl = gamma * lam
    usual = {  # the usual slips, each with what it reveals
        g: "that is G_{t+1}^{λ|t+K}: the ρ-step is done, the horizon step (+ (γλ)^(K−1) δ') "
           "is missing",
        g + gl ** (K - 2) * delta_p: "weight (γλ)^(K−2) on δ': the horizon counted from t, "
                                      "not from t + 1",
        U + gl ** (K - 1) * delta_p: "that is G_t^{λ|t+K+1}: the horizon step without the "
                                      "ρ-step (t did not move)",
        (U - rho) * gl + gl ** (K - 1) * delta_p: "the ρ-step multiplies by γλ: it divides "
                                                    "(eq. 7, G_{t+1} = (G_t − ρ_t)/γλ)",
    }
    try:
        a = float(answer)
    except (TypeError, ValueError):
        a = None
    for value, why in usual.items():
        if a is not None and not math.isclose(value, expected) and math.isclose(a, value,
                                                                               rel_tol=1e-6):
            return verdict(False, "", f"Not yet: {why}.")
    return check_close(answer, expected, name="G_{t+1}^{λ|t+1+K}", rtol=1e-6,
                       hint="First U ← (U − ρ)/γλ (eq. 7), then add (γλ)^(K−1) δ' (eq. 6).")


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


#: Exercise 6: episodes on which a student's rho is checked: (rewards, values V(S_j|theta_{j-1}))
RHO_EPISODE = dict(rewards=[1.0, -0.5, 2.0, 0.0, 1.5, -1.0], values=[0.0, 0.4, -0.3, 1.2, 0.7,
                                                                      -0.2, 0.0])


def check_rho(fn) -> bool:
    r"""Exercise 6: a student's ``fn(reward, v_next, gamma, lam)`` for :math:`\rho_t`, checked on
    numbers through the identity it must satisfy (App. B, eq. 7):
    :math:`G_{t+1}^{\lambda|h} = (G_t^{\lambda|h} - \rho_t)/\gamma\lambda` for every
    :math:`t < h - 1` on ``RHO_EPISODE``, at three (γ, λ)."""
    if not_written(fn):
        return False
    e = RHO_EPISODE
    r, v = e["rewards"], e["values"]
    T = len(r)
    worst, where = 0.0, None
    for gamma, lam in ((1.0, 0.5), (0.9, 0.8), (0.95, 0.3)):
        for h in range(2, T + 1):
            for t in range(h - 1):
                rho_t, err = run_student(fn, r[t], v[t + 1], gamma, lam)
                if err is not None:
                    return verdict(False, "", err)
                try:
                    rho_t = float(rho_t)
                except (TypeError, ValueError):
                    return verdict(False, "", "Your rho must return a number.")
                g_t = interim_lambda_return(r, v, t, h, gamma, lam)
                g_next = interim_lambda_return(r, v, t + 1, h, gamma, lam)
                gap = abs((g_t - rho_t) / (gamma * lam) - g_next)
                if gap > worst:
                    worst, where = gap, (gamma, lam, t, h)
    if worst < 1e-9:
        return verdict(True, "Correct: (G_t − ρ_t)/γλ gives G_{t+1} at every t and horizon.", "")
    gamma, lam, t, h = where
    usual = (
        (lambda R, V, g, lm: R + g * V, "that is the TD target R + γV: the weight (1 − λ) "
         "of the one-step return is missing"),
        (lambda R, V, g, lm: R + g * lm * V, "γλ on V̂: the one-step return's weight in "
         "G_t^{λ|h} is (1 − λ), so ρ has γ(1 − λ)V̂"),
        (lambda R, V, g, lm: R, "the reward alone: the one-step return's bootstrap term "
         "(1 − λ)γV̂(S_{t+1}) is part of ρ"),
    )
    for wrong, why in usual:
        if all(abs(float(fn(R, V, g, lm)) - wrong(R, V, g, lm)) < 1e-12
               for R, V, g, lm in ((1.0, 0.4, 1.0, 0.5), (2.0, -0.3, 0.9, 0.8))):
            return verdict(False, "", f"Not yet: {why}.")
    return verdict(False, "", f"Not yet: at γ = {gamma}, λ = {lam}, t = {t}, h = {h} the "
                   f"identity misses by {worst:.3g}. Write G_t^{{λ|h}} with eq. (2) and split off "
                   "the terms that do not belong to G_{t+1}^{λ|h}.")
