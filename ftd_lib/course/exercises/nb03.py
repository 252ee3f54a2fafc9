r"""Self-checks for notebook 03 (the one-state example). The right answers are computed here
with the library, never printed: a check says only whether the answer is right."""

from __future__ import annotations

import math

import numpy as np

from ...algorithms import td_lambda
from ...approx import Linear
from ...envs.one_state import one_state_episodes
from ..nb03_one_state_divergence import beta_measured, values_per_episode
from . import check_close, missing, not_written, one_number, student_number, verdict

#: Exercise 3(b): a step size and length with beta_TD = alpha T = 2 exactly, from V_0 = 0.
BETA_TWO = dict(alpha=0.2, T=10, v0=0.0, n_episodes=4)


def check_think(error_answer, values_answer) -> bool:
    r"""Exercise 3: (a) the error :math:`1-\hat V` after one episode from :math:`\hat V_0 = 1`
    (any :math:`\alpha`, T); (b) the values at the ends of episodes 1..4 at exactly
    :math:`\beta = 2` (``BETA_TWO``: TD(:math:`\lambda`=1), :math:`\alpha = 0.2`, T = 10,
    :math:`\hat V_0 = 0`)."""
    if missing(error_answer, "error_answer (a)") or missing(values_answer, "values_answer (b)"):
        return False
    ok_a = check_close(error_answer, 0.0, name="the error after one episode from V₀ = 1",
                       rtol=0, atol=1e-9, hint="The pseudo-update multiplies the error 1 − V₀ "
                       "by 1 − β.")
    b = BETA_TWO
    expected = values_per_episode(b["alpha"], b["T"], b["v0"], b["n_episodes"], "td_lambda")[1:]
    ok_b = check_close(values_answer, expected, name="the values after episodes 1..4",
                       rtol=0, atol=1e-6, hint="At β = 2 the error 1 − V is multiplied by "
                       "1 − β = −1 every episode.")
    return ok_a and ok_b


#: Exercise 4: TD(lambda = 1) with replacing traces on the one-state example.
REPLACING = dict(alpha=0.3, T=8)


def check_beta_replacing(answer, *, alpha: float = REPLACING["alpha"],
                         T: int = REPLACING["T"]) -> bool:
    r"""Exercise 4: :math:`\beta` of one episode of TD(:math:`\lambda`=1) with replacing traces,
    at step size ``alpha`` and length ``T``, checked against a run of
    :func:`ftd_lib.course.nb03_one_state_divergence.td_lambda_replacing`."""
    if missing(answer, "β with replacing traces"):
        return False
    return check_close(answer, beta_measured("td_lambda_replacing", alpha, T), name="β with "
                       "replacing traces", rtol=1e-6, atol=1e-9, hint="What is the trace e at "
                       "the last step, when it is reset to 1 at every visit?")


def beta_run(alpha: float, lam: float, T: int) -> float:
    r""":math:`\beta` of TD(λ) (accumulating traces, γ = 1) on one episode of length T of the
    one-state example, measured from a run: :math:`(\hat V_T - \hat V_0)/(1 - \hat V_0)` from
    :math:`\hat V_0 = 0`."""
    W = td_lambda(one_state_episodes(1, T=int(T)), np.zeros(1), approx=Linear(1),
                  alpha=alpha, lam=lam, gamma=1.0)
    return float(W[-1, 0])


#: Exercise 1: the (alpha, lam, T) at which a closed form for beta is compared with runs
BETA_POINTS = ((0.1, 0.5, 8), (0.3, 0.9, 8), (0.05, 0.8, 25), (0.2, 0.0, 5), (0.01, 0.99, 40),
               (0.5, 0.3, 1))


def check_beta_lambda(fn) -> bool:
    r"""Exercise 1: a student's closed form ``fn(alpha, lam, T)`` for :math:`\beta` of TD(λ)
    with λ < 1 on the one-state example, evaluated at ``BETA_POINTS`` against runs of
    ``algorithms.td_lambda`` (:func:`beta_run`). The usual wrong forms get their own message."""
    if not_written(fn, "your closed form (beta_lambda = my_beta)"):
        return False
    got, expected = [], []
    for a, lam, T in BETA_POINTS:
        v = student_number(fn, a, lam, T, refuse=(beta_run, beta_measured, td_lambda),
                           returns="your formula for β (a number) from alpha, lam and T",
                           symbol="β")
        if v is None:
            return False
        got.append(v)
        expected.append(beta_run(a, lam, T))
    got, expected = np.array(got), np.array(expected)
    if np.allclose(got, expected, rtol=1e-9, atol=1e-12):
        return verdict(True, "Correct: your β matches the runs at every point.", "")
    a, lam, T = (np.array(c, dtype=float) for c in zip(*BETA_POINTS, strict=True))
    usual = (
        (a * T, "that is λ = 1's β = αT: the trace decays by λ each step"),
        (a / (1 - lam), "that is the infinite sum α/(1−λ): the episode has only T steps"),
        (a * (1 - lam ** (T + 1)) / (1 - lam), "one term too many: the last step's trace has "
         "T terms, λ^0 .. λ^(T−1)"),
        (a * (1 - lam ** (T - 1)) / (1 - lam), "one term too few: the last step's trace has "
         "T terms, λ^0 .. λ^(T−1)"),
        (1 - (1 - a) ** T, "that is the λ-return algorithm's β"),
    )
    for wrong, why in usual:
        if np.allclose(got, wrong, rtol=1e-9):
            return verdict(False, "", f"Not yet: {why}.")
    bad = int(np.argmax(np.abs(got - expected) > 1e-9 * np.abs(expected) + 1e-12))
    return verdict(False, "", f"Not yet: at α, λ, T = {BETA_POINTS[bad]} your β is "
                   f"{got[bad]:.6g}, a run gives {expected[bad]:.6g}. Only the last TD error "
                   "is non-zero: what is the trace at the last step?")


def check_max_alpha_lambda(answer, *, lam: float = 0.9, T: int = 25) -> bool:
    r"""Exercise 2: the largest step size for which TD(λ) (λ < 1) does not diverge on episodes
    of length T: β = 2, measured (β is linear in α, so α_max = 2α/β(α) from one run)."""
    if missing(answer, "max_alpha_answer"):
        return False
    expected = 2 * 0.01 / beta_run(0.01, lam, T)
    a = one_number(answer, "the largest stable α", "The answer must be one number (a step size).")
    if a is None:
        return False
    if math.isclose(a, 2 / T, rel_tol=1e-6):
        return verdict(False, "", "Not yet: 2/T is λ = 1's edge; with λ < 1 the trace is "
                       "shorter, so a larger α is stable.")
    if math.isclose(a, 2 * (1 - lam), rel_tol=1e-6):
        return verdict(False, "", "Not yet: 2(1−λ) is the edge for T → ∞; this episode has "
                       f"T = {T} steps.")
    return check_close(a, expected, name="the largest stable α", rtol=1e-6,
                       hint="Solve β(α) = 2 with your closed form of exercise 1.")
