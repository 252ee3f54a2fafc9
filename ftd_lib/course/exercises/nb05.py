r"""Self-checks for notebook 05 (mountain car evaluation with a network). Every right answer is
computed here with the library at check time, never written out: a check says only whether
the answer is right, with a hint when it is not."""

from __future__ import annotations

import math

import numpy as np

from ...envs import mountain_car as mc
from ..nb05_nn_prediction import EVAL_SEED, N_EVAL  # Exercise 2: the evaluation sample
from . import Solution, check_close, missing, verdict

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


SETUP = """
import numpy as np
from types import SimpleNamespace
from ftd_lib.course import live as figures
from ftd_lib.course.exercises import nb05
from ftd_lib.envs import mountain_car as mc
x, v = nb05.STATE
obs, values = mc.evaluation_states(500, 0)
left = SimpleNamespace(data=figures.stored("fig3-left"))   # the notebook's figures.compare(...)
"""

SOLUTIONS = (
    Solution(
        key="nb05.ex1", title="Exercise 1, a true value by hand",
        hint="Loop: `x, v, terminal = mc.mountain_car_step(x, v, mc.evaluation_policy(x, v))`, "
             "count the steps until `terminal`; every step costs −1 on average.",
        worked=r"""
            Dynamics and policy are deterministic and the expected reward is −1 a step, so with
            γ = 1 the true value is minus the number of steps to the goal: simulate and count
            (the step that reaches the goal counts, nothing after it).
        """,
        code="""
            xs, vs, steps, terminal = x, v, 0, False
            while not terminal:
                xs, vs, terminal = mc.mountain_car_step(xs, vs, mc.evaluation_policy(xs, vs))
                steps += 1
            answer = -steps
            nb05.check_true_value(answer)
        """,
        setup=SETUP,
        checks="v(s) = −(steps to the goal) under the evaluation policy, sign and count.",
        wrong=("+steps: the sign (rewards are −1)", "steps ± 1: the last step left out or "
               "counted twice"),
    ),
    Solution(
        key="nb05.ex2", title="Exercise 2, a yardstick for the metric",
        hint="The constant $c$ that minimises $\\sum_s (c - v(s))^2$ is the mean of the true "
             "values; its RMS error is their standard deviation.",
        worked=r"""
            Over the sample, $\mathrm{RMS}(c) = \sqrt{\overline{(c - v)^2}}$ is smallest at
            $c^* = \bar v$, where it equals the standard deviation $\sigma_v$. $\hat V \equiv 0$
            has RMS error $\sqrt{\overline{v^2}}$. The ratio $\sigma_v/\sqrt{\overline{v^2}}$
            is about 0.50 here: a network whose normalised error stays above it has learned
            the average only, not where the car is.
        """,
        code="""
            rms_best_constant = np.sqrt(np.mean((values - values.mean()) ** 2))
            rms_zero = np.sqrt(np.mean(values ** 2))
            answer = rms_best_constant / rms_zero
            nb05.check_constant_baseline(answer)
        """,
        setup=SETUP,
        checks="the normalised error of the best constant predictor: σ / RMS of the true values.",
        wrong=("the best constant itself (the mean value, about −51)",
               "1: V ≡ 0 compared with itself"),
    ),
    Solution(
        key="nb05.ex3", title="Exercise 3, reading the data",
        hint="`s = left.data.summary()[\"td_lambda\"]`; treat `inf` (a diverged run) as the "
             "worst; take the α at the smallest mean error.",
        worked=r"""
            A point is infinite as soon as one of its runs diverged, so the best α is the
            argmin of the finite means. In the stored paper-scale data TD(λ) is best at a small
            α, far below forward TD(λ)'s: its traces make the effective step much larger
            than α (notebook 03).
        """,
        code="""
            s = left.data.summary()["td_lambda"]
            y = np.where(np.isfinite(s["y"]), s["y"], np.inf)
            answer = float(s["x"][np.argmin(y)])
            print("best alpha of TD(lambda):", answer)
            nb05.check_best_alpha(answer, left.data, method="td_lambda")
        """,
        setup=SETUP,
        checks="the argmin over α of TD(λ)'s mean error in the data shown (stored when there "
               "is some), diverged points excluded.",
        wrong=("the α of a point drawn off the chart (a diverged run: infinite error)",
               "forward TD(λ)'s best α"),
    ),
)
