r"""Self-checks for notebook 03 (the one-state example). The right answers are computed here
with the library, never printed: a check says only whether the answer is right. The given
numbers of every exercise but the closed form are the student's own (:func:`~.use_student`):
``given_*`` draws them, and the check recomputes the answer from the same draw."""

from __future__ import annotations

import math

import numpy as np

from ...algorithms import td_lambda
from ...approx import Linear
from ...envs.one_state import one_state_episodes
from ..nb03_one_state_divergence import beta_measured, td_lambda_replacing, values_per_episode
from . import (
    all_parts,
    check_close,
    copies,
    is_right,
    missing,
    not_written,
    one_number,
    others_answer,
    refuse_library_answer,
    student_number,
    student_rng,
    verdict,
)

#: Part (b) of ``beta_two`` without a student id: a step size and length with beta_TD = alpha T = 2
#: exactly, from V_0 = 0.
BETA_TWO = dict(alpha=0.2, T=10, v0=0.0, n_episodes=4)

#: Exercise ``divergence_edge`` without a student id
MAX_ALPHA = dict(lam=0.9, T=25)

#: ``nb03.divergence_edge``'s (λ, T) with a student id: λ^T ≥ 0.001, so that the answer
#: 2(1−λ)/(1−λ^T) is told apart from the T → ∞ edge 2(1−λ) (a slip) by more than rounding; 119 pairs
MAX_ALPHA_DRAWS = tuple((lam, T) for lam in (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.95)
                        for T in range(10, 41) if lam ** T >= 1e-3)


def given_think() -> dict:
    """Part (b)'s run for the current student: ``alpha`` and ``T`` with αT = 2 exactly,
    the start value ``v0`` and ``n_episodes``."""
    rng = student_rng("nb03.beta_two")
    if rng is None:
        return dict(BETA_TWO)
    alpha, T = ((0.1, 20), (0.25, 8), (0.4, 5), (0.5, 4), (0.2, 10))[int(rng.integers(5))]
    return dict(alpha=alpha, T=T, v0=float(rng.choice([-1.0, -0.5, 0.5, 2.0, 3.0])),
                n_episodes=int(rng.integers(4, 7)))


def given_max_alpha() -> dict:
    """The episodes for the current student: ``lam`` (< 1) and length ``T``."""
    rng = student_rng("nb03.divergence_edge")
    if rng is None:
        return dict(MAX_ALPHA)
    lam, T = MAX_ALPHA_DRAWS[int(rng.integers(len(MAX_ALPHA_DRAWS)))]
    return dict(lam=lam, T=T)


def given_replacing() -> dict:
    """The step size ``alpha`` and length ``T`` for the current student."""
    rng = student_rng("nb03.replacing_traces")
    if rng is None:
        return dict(REPLACING)
    return dict(alpha=float(rng.choice([0.05, 0.1, 0.15, 0.2, 0.4, 0.45, 0.6])),
                T=int(rng.integers(3, 16)))


def _values(b) -> np.ndarray:
    return values_per_episode(b["alpha"], b["T"], b["v0"], b["n_episodes"], "td_lambda")[1:]


def check_think(error_answer, values_answer) -> bool:
    r"""(a) the error :math:`1-\hat V` after one episode from :math:`\hat V_0 = 1`
    (any :math:`\alpha`, T); (b) the values at the ends of the episodes of
    :func:`given_think`'s run (TD(:math:`\lambda`=1) at exactly :math:`\beta = \alpha T = 2`)."""
    if missing(error_answer, "error_answer (a)") or missing(values_answer, "values_answer (b)"):
        return False
    if refuse_library_answer(("values_per_episode(", "td_lambda(", "beta_measured(",
                                "plot_values(")):
        return False
    ok_a = check_close(error_answer, 0.0, name="(a) the error after one episode from V₀ = 1",
                       rtol=0, atol=1e-9, hint="The pseudo-update multiplies the error 1 − V₀ "
                       "by 1 − β.")
    b = given_think()
    expected = _values(b)
    n = b["n_episodes"]
    name = f"(b) the values after episodes 1..{n}"
    if others := others_answer(values_answer, expected, lambda: _values(given_think())):
        ok_b = verdict(False, "", "Not yet: (b) " + others)
    else:
        ok_b = check_close(values_answer, expected, name=name, rtol=0, atol=1e-6,
                           hint=f"At β = 2 the error 1 − V is multiplied by 1 − β = −1 every "
                           f"episode, from 1 − V₀ = {1 - b['v0']:g}.")
    return all_parts((ok_a, ok_b), ("(a)", "(b)"))


#: Without a student id: TD(lambda = 1) with replacing traces on the one-state example.
REPLACING = dict(alpha=0.3, T=8)


def check_beta_replacing(answer) -> bool:
    r""":math:`\beta` of one episode of TD(:math:`\lambda`=1) with replacing traces,
    at :func:`given_replacing`'s step size and length, checked against a run of the replacing
    TD(λ) of :mod:`ftd_lib.course.nb03_one_state_divergence`."""
    if missing(answer, "β with replacing traces"):
        return False
    if refuse_library_answer(("td_lambda_replacing(", "beta_measured(")):
        return False
    g = given_replacing()
    alpha, T = g["alpha"], g["T"]
    expected = beta_measured("td_lambda_replacing", alpha, T)
    a = one_number(answer, "β with replacing traces", "β is one number.")
    if a is None:
        return False
    if abs(a - alpha * T) < 1e-9 and not is_right(a, expected):
        return verdict(False, "", "Not yet: αT is β of accumulating traces, whose trace counts "
                       "the T visits; a replacing trace is reset at every visit.")
    if others := others_answer(a, expected, lambda: beta_measured(
            "td_lambda_replacing", given_replacing()["alpha"], given_replacing()["T"])):
        return verdict(False, "", "Not yet: " + others)
    return check_close(a, expected, name="β with replacing traces", rtol=1e-6, atol=1e-9,
                       hint="What is the trace e at the last step, when it is reset to 1 at "
                       "every visit?")


def beta_run(alpha: float, lam: float, T: int) -> float:
    r""":math:`\beta` of TD(λ) (accumulating traces, γ = 1) on one episode of length T of the
    one-state example, measured from a run: :math:`(\hat V_T - \hat V_0)/(1 - \hat V_0)` from
    :math:`\hat V_0 = 0`."""
    W = td_lambda(one_state_episodes(1, T=int(T)), np.zeros(1), approx=Linear(1),
                  alpha=alpha, lam=lam, gamma=1.0)
    return float(W[-1, 0])


#: The (alpha, lam, T) at which a closed form for beta is compared with runs
BETA_POINTS = ((0.1, 0.5, 8), (0.3, 0.9, 8), (0.05, 0.8, 25), (0.2, 0.0, 5), (0.01, 0.99, 40),
               (0.5, 0.3, 1))


def check_beta_lambda(fn) -> bool:
    r"""A student's closed form ``fn(alpha, lam, T)`` for :math:`\beta` of TD(λ)
    with λ < 1 on the one-state example, evaluated at ``BETA_POINTS`` against runs of
    ``algorithms.td_lambda`` (:func:`beta_run`). The usual wrong forms get their own message."""
    if not_written(fn, "your closed form (beta_lambda = my_beta)"):
        return False
    for lib in (beta_run, beta_measured, td_lambda, td_lambda_replacing):
        if copies(fn, lib):
            return verdict(False, "", f"Not yet: your function is a copy of the library's "
                           f"{lib.__name__}, a run, not a closed form: write β from α, λ and T.")
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


def check_max_alpha_lambda(answer) -> bool:
    r"""The largest step size for which TD(λ) (λ < 1) does not diverge on episodes
    of length T (:func:`given_max_alpha`'s λ and T): β = 2, measured (β is linear in α, so
    α_max = 2α/β(α) from one run)."""
    if missing(answer, "max_alpha_answer"):
        return False
    if refuse_library_answer(("beta_run(", "beta_measured(", "td_lambda(", "values_per_episode(")):
        return False
    g = given_max_alpha()
    lam, T = g["lam"], g["T"]
    expected = 2 * 0.01 / beta_run(0.01, lam, T)
    a = one_number(answer, "the largest stable α", "The answer must be one number (a step size).")
    if a is None:
        return False
    if is_right(a, expected):  # the right answer first, then the usual slips
        return check_close(a, expected, name="the largest stable α", rtol=1e-6)
    if math.isclose(a, 2 / T, rel_tol=1e-6):
        return verdict(False, "", "Not yet: 2/T is λ = 1's edge; with λ < 1 the trace is "
                       "shorter, so a larger α is stable.")
    if math.isclose(a, 2 * (1 - lam), rel_tol=1e-6):
        return verdict(False, "", "Not yet: 2(1−λ) is the edge for T → ∞; this episode has "
                       f"T = {T} steps.")
    def edge(d):
        return 2 * 0.01 / beta_run(0.01, d["lam"], d["T"])


    if others := others_answer(a, expected, lambda: edge(given_max_alpha())):
        return verdict(False, "", "Not yet: " + others)
    return check_close(a, expected, name="the largest stable α", rtol=1e-6,
                       hint=f"Solve β(α) = 2 with your closed form for β, at λ = {lam:g}, "
                       f"T = {T}.")
