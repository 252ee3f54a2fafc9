"""Self-checks for notebook 02 (the lambda-return). Each check computes the right answer with
the library (so the solution is never written out here or in the notebook) and prints a
verdict.
"""

from __future__ import annotations

import numpy as np

from ...algorithms import td_lambda
from ...approx import Linear
from ...envs.random_walk import N_STATES, random_walk_episodes
from ...returns import interim_lambda_return, n_step_return
from ...rng import run_generator
from ..nb02_lambda_return import figure1_data
from . import check_close, check_weights_per_step, missing, not_written

#: A three-step episode for exercises 1 and 2. ``values[j]`` is the estimate of S_j used for
#: bootstrapping (``values[0]`` is never used by a return from t = 0; ``values[3] = 0`` is
#: the terminal state).
EPISODE = dict(rewards=[1.0, 0.0, 2.0], values=[0.7, 0.5, 1.0, 0.0], gamma=0.9)

#: Exercise 1 asks for G_0^{(N_STEP)}, exercise 2 for G_0^{lambda|HORIZON} with LAM.
N_STEP = 2
LAM = 0.5
HORIZON = 3

#: Exercise 3: the episode length.
T_ONLINE = 20


def check_n_step_return(answer) -> bool:
    """Exercise 1: G_0^{(2)} of ``EPISODE``."""
    if missing(answer, f"G_0^({N_STEP})"):
        return False
    e = EPISODE
    return check_close(answer, n_step_return(e["rewards"], e["values"], 0, N_STEP, e["gamma"]),
                       name=f"G_0^({N_STEP})", rtol=1e-4, atol=1e-6,
                       hint="n discounted rewards, then gamma^n times the value of S_n.")


def check_interim_lambda_return(answer) -> bool:
    """Exercise 2: G_0^{lambda|3} of ``EPISODE`` with lambda = 0.5 (eq. 2)."""
    if missing(answer, f"G_0^(lambda|{HORIZON})"):
        return False
    e = EPISODE
    expected = interim_lambda_return(e["rewards"], e["values"], 0, HORIZON, e["gamma"], LAM)
    return check_close(answer, expected, name=f"G_0^(lambda|{HORIZON})", rtol=1e-4, atol=1e-6,
                       hint="Weights (1-lam), (1-lam) lam and lam^2 on G^(1), G^(2), G^(3).")


#: Exercise 3: the cases TD(lambda) must get right, against ``algorithms.td_lambda`` (tabular
#: random walk): (what, lam, gamma, what a failure there usually means)
TD_LAMBDA_CASES = (
    ("Figure 1's setting (λ = 1, γ = 1)", 1.0, 1.0,
     "δ uses V(S') with 0 at the terminal, and the same weights θ_t for V(S) and V(S')"),
    ("λ = 0.5, γ = 0.9", 0.5, 0.9, "the trace decays by γλ before the gradient is added: "
     "e ← γλ e + ∇V(S_t)"),
    ("λ = 0 (TD(0))", 0.0, 1.0, "with λ = 0 the trace is the gradient of the current state"),
)


def check_td_lambda(fn, fig1_point) -> bool:
    r"""Exercise 3: a student's ``fn(episodes, w0, *, approx, alpha, lam, gamma)`` (TD(λ) with
    accumulating traces) against :func:`ftd_lib.algorithms.td_lambda`, on 3 seeded random-walk
    episodes per case (a trace left over from the last episode shows from the second); and
    ``fig1_point``, the normalised RMS error of *your* TD(λ) at the end of Figure 1's first
    episode (:func:`ftd_lib.course.nb02_lambda_return.figure1_data`)."""
    if not_written(fn, "your TD(λ) function (my_td_lambda)"):
        return False
    lin = Linear(N_STATES)

    def make(i, case):
        _, lam, gamma, _ = case
        episodes = random_walk_episodes(3, run_generator(2, i))
        w0 = np.linspace(0.5, 5.0, N_STATES)
        kw = dict(approx=lin, alpha=0.1, lam=lam, gamma=gamma)
        return episodes, w0, kw, td_lambda(episodes, w0, **kw)

    def differs(step, episodes, expected, usual, case):
        if step > len(episodes[0][1]):  # first wrong in a later episode
            usual = "the trace must start at 0 in every episode"
        return f"your weights leave TD(λ)'s at step {step}. Usual cause: {usual}."

    ok_all = check_weights_per_step(
        fn, TD_LAMBDA_CASES, make, rows="", same="the same weights as algorithms.td_lambda.",
        differs=differs, refuse=(td_lambda,))
    if not ok_all:
        return False
    if missing(fig1_point, "fig1_point (the error of your TD(λ) at the end of episode 1)"):
        return False
    data = figure1_data()
    expected = float(data["curves"]["td_lambda"][data["episode_ends"][0]])
    return check_close(fig1_point, expected, name="Figure 1's TD(λ) error at the end of "
                       "episode 1", rtol=1e-6, hint="normalised_rms(W) of your weights with "
                       "w0 = 0 prepended, at step len(episode 1).") and ok_all
