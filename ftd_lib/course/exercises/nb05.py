r"""Self-checks for notebook 05 (mountain car evaluation with a network). Every right answer is
computed here with the library at check time, never written out: a check says only whether
the answer is right, with a hint when it is not."""

from __future__ import annotations

import math

import numpy as np

from ...envs import mountain_car as mc
from ..nb05_nn_prediction import EVAL_SEED, N_EVAL  # Exercise 2: the evaluation sample
from . import check_close, missing, verdict

#: Exercise 1: the state whose true value the student computes (raw position, velocity).
STATE = (-0.9, 0.02)


def check_true_value(answer, state=STATE) -> bool:
    r"""Exercise 1: :math:`v(s)` of ``state`` under the evaluation policy (γ = 1, expected
    reward −1 a step, so :math:`v(s) = -(\text{steps to the goal})`)."""
    if missing(answer):
        return False
    expected = mc.true_value(*state)
    try:
        a = float(answer)
    except (TypeError, ValueError):
        return verdict(False, "", "The value must be a number.")
    if a == -expected:
        return verdict(False, "", "Not yet: mind the sign — every step costs −1 on average.")
    if abs(a - expected) == 1:
        return verdict(False, "", "Off by one: count the step that reaches the goal, and "
                       "nothing after it.")
    return check_close(a, expected, name="v(s)", rtol=0, atol=0.5,
                       hint="Step mountain_car_step(x, v, evaluation_policy(x, v)) until "
                            "terminal, counting the steps.")


def constant_baselines(n: int = N_EVAL, seed: int = EVAL_SEED) -> dict:
    r"""RMS errors over the evaluation sample of the constant predictors :math:`\hat V \equiv 0`
    and :math:`\hat V \equiv c^*` (the best constant: the mean true value), and their ratio."""
    _, values = mc.evaluation_states(n, seed)
    rms0 = float(np.sqrt(np.mean(values**2)))
    best = float(np.sqrt(np.mean((values - values.mean()) ** 2)))
    return dict(rms_zero=rms0, rms_best_constant=best, ratio=best / rms0,
                best_constant=float(values.mean()))


def check_constant_baseline(answer) -> bool:
    r"""Exercise 2: the normalised error of the best constant predictor, i.e. its RMS error over
    the evaluation sample divided by that of :math:`\hat V \equiv 0`."""
    if missing(answer):
        return False
    b = constant_baselines()
    return check_close(answer, b["ratio"], name="the normalised error of the best constant",
                       rtol=2e-3, atol=0,
                       hint="The best constant is the mean of the true values; its RMS error "
                            "is their standard deviation.")


def check_best_alpha(answer, res, method: str = "td_lambda") -> bool:
    r"""Exercise 3: the step size with the lowest mean error of ``method`` in a Fig. 3 left
    :class:`ftd_lib.repro.results.Results` (a diverged run makes a point infinitely bad)."""
    if missing(answer):
        return False
    if res is None:
        return verdict(False, "", "No results to read: run the cells of section 3 first.")
    s = res.summary().get(method)
    if s is None:
        return verdict(False, "", f"These results have no curve {method!r}.")
    y = np.where(np.isfinite(s["y"]), s["y"], np.inf)
    expected = float(s["x"][int(np.argmin(y))])
    try:
        a = float(answer)
    except (TypeError, ValueError):
        return verdict(False, "", "The step size must be a number.")
    if math.isclose(a, expected, rel_tol=1e-3):
        return verdict(True, f"Correct: α = {expected:g} is best for {method}.", "")
    hint = ("that α has diverged runs — its mean error is infinite" if
            np.any(np.isclose(s["x"], a, rtol=1e-3) & ~np.isfinite(s["y"]))
            else "take the α of the smallest finite mean error (res.summary()[method])")
    return verdict(False, "", f"Not yet: {hint}.")
