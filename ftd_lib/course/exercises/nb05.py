r"""Self-checks for notebook 05 (mountain car evaluation with a network). Every right answer is
computed here with the library at check time, never written out: a check says only whether
the answer is right, with a hint when it is not. Exercise 2's sample is the student's own
(:func:`~.use_student`)."""

from __future__ import annotations

import math

import numpy as np

from ...envs import mountain_car as mc
from ...returns import k_bound
from ..nb05_nn_prediction import EVAL_SEED, N_EVAL  # Exercise 2: the evaluation sample
from . import (
    OTHERS_ANSWER,
    all_parts,
    as_numbers,
    check_close,
    default_numbers,
    is_others_answer,
    missing,
    not_written,
    refuse_library_answer,
    run_student,
    student_rng,
    verdict,
    whose,
)

#: Exercise 1: the state whose true value the notebook shows (raw position, velocity), and the
#: other states a student's function is checked at
STATE = (-0.9, 0.02)
VALUE_STATES = (STATE, (-0.5, 0.0), (-0.3, -0.01), (-1.1, 0.03))


def check_true_value(fn) -> bool:
    r"""Exercise 1: a student's ``fn(x, v)``, :math:`v(s)` under the evaluation policy (γ = 1,
    expected reward −1 a step, so :math:`v(s) = -(\text{steps to the goal})`) by simulation,
    at every state of :data:`VALUE_STATES` against :func:`ftd_lib.envs.mountain_car.true_value`
    (which it may not run)."""
    if not_written(fn, "your simulation (my_value)"):
        return False
    for x, v in VALUE_STATES:
        got, err = run_student(fn, x, v, refuse=(mc.true_value,))
        if err is not None:
            return verdict(False, "", err)
        if got is None:
            return verdict(False, "", "Your function returns None: return v(s), minus the "
                           "number of steps to the goal.")
        a = as_numbers(got, f"v(s) at (x, v) = ({x}, {v})")
        if a is None:
            return False
        expected = mc.true_value(x, v)
        if a.shape != ():
            return verdict(False, "", "Not yet: v(s) is one number per state.")
        a = float(a)
        if a == expected:
            continue
        if a == -expected:
            return verdict(False, "", "Not yet: mind the sign — every step costs −1 on "
                           "average, so v(s) is minus the number of steps.")
        if abs(a - expected) == 1:
            return verdict(False, "", f"Off by one at (x, v) = ({x}, {v}): count the step that "
                           "reaches the goal, and nothing after it.")
        return verdict(False, "", f"Not yet: at (x, v) = ({x}, {v}) your v(s) is {a:g}, not "
                       "the simulation's. Step mountain_car_step(x, v, evaluation_policy(x, v)) "
                       "until terminal, counting the steps.")
    return verdict(True, f"Correct at all {len(VALUE_STATES)} states: v{STATE} = "
                   f"{mc.true_value(*STATE):g}.", "")


#: Exercise 2 without a student id: the notebook's evaluation sample
SAMPLE = dict(n=N_EVAL, seed=EVAL_SEED)


def given_sample() -> dict:
    """Exercise 2's sample for the current student: ``n`` and ``seed`` of
    ``mc.evaluation_states(n, seed)``; without an id the notebook's own sample."""
    rng = student_rng("nb05.yardstick")
    if rng is None:
        return dict(SAMPLE)
    return dict(n=N_EVAL, seed=int(rng.integers(1, 1_000_000)))


def _constant_baselines(n: int = N_EVAL, seed: int = EVAL_SEED) -> dict:
    r"""RMS errors over the evaluation sample of the constant predictors :math:`\hat V \equiv 0`
    and :math:`\hat V \equiv c^*` (the best constant: the mean true value), and their ratio."""
    _, values = mc.evaluation_states(n, seed)
    rms0 = float(np.sqrt(np.mean(values**2)))
    best = float(np.sqrt(np.mean((values - values.mean()) ** 2)))
    median = float(np.sqrt(np.mean((values - np.median(values)) ** 2))) / rms0
    return dict(rms_zero=rms0, rms_best_constant=best, ratio=best / rms0,
                best_constant=float(values.mean()), median_ratio=median)


def check_constant_baseline(answer) -> bool:
    r"""Exercise 2: the normalised error of the best constant predictor over
    :func:`given_sample`'s sample, i.e. its RMS error divided by that of
    :math:`\hat V \equiv 0`."""
    if missing(answer, "the normalised error of the best constant"):
        return False
    if refuse_library_answer(("_constant_baselines(", "constant_baselines(")):
        return False
    arr = as_numbers(answer, "the normalised error of the best constant")
    if arr is None:
        return False
    b = _constant_baselines(**given_sample())
    a = float(arr) if arr.shape == () else None
    if a is not None and math.isclose(a, b["median_ratio"], rel_tol=1e-6):
        return verdict(False, "", "Not yet: that is the median's error. The median is the best "
                       "constant for the absolute error; the RMS error is a squared error, "
                       "and its best constant is the mean.")
    if a is not None and math.isclose(a, b["best_constant"], rel_tol=1e-3):
        return verdict(False, "", "Not yet: that is the best constant itself; the exercise "
                       "asks for its normalised RMS error.")
    if a is not None and is_others_answer(
            a, b["ratio"], _constant_baselines(**default_numbers(given_sample))["ratio"]):
        return verdict(False, "", "Not yet: " + OTHERS_ANSWER.format(whose=whose()))
    return check_close(answer, b["ratio"], name="the normalised error of the best constant",
                       rtol=1e-6, atol=0,
                       hint="The best constant is the mean of the true values; its RMS error "
                            "is their standard deviation.")


#: Exercise 3: the step-size parameter eta of Figure 3 right, at lambda = 0.9 (gamma = 1)
ETAS = (0.01, 0.1, 0.3)
LAM_EXPERIMENT = 0.9
PREDICTIONS = ("rises", "falls", "stays")


def _fig3_right_at(res, lam: float = LAM_EXPERIMENT) -> list[float]:
    s = res.summary()
    out = []
    for eta in ETAS:
        row = s[f"η = {eta:g}"]
        out.append(float(np.asarray(row["y"])[np.isclose(row["x"], lam)][0]))
    return out


def check_eta_experiment(K_etas, prediction, errors, res) -> bool:
    r"""Exercise 3: (a) K for each η of ``ETAS`` at γλ = 0.9; (b) the student's prediction,
    made before measuring, of how the error at λ = 0.9 moves as η grows (one of
    ``PREDICTIONS``), graded against (c) the errors at λ = 0.9 read from the Figure 3 right
    results ``res`` (stored paper-scale data when there are some): a prediction that the
    measurement contradicts does not pass."""
    if missing(K_etas, "K_etas") or missing(prediction, "prediction") or missing(errors, "errors"):
        return False
    if res is None:
        return verdict(False, "", "No results to read: run the cells of section 6 first.")
    Ks = [k_bound(1.0, LAM_EXPERIMENT, eta) for eta in ETAS]
    arr = as_numbers(K_etas, "K_etas")
    if arr is None:
        return False
    if arr.ndim != 1:
        return verdict(False, "", f"K_etas must be a list of {len(Ks)} whole numbers, one per "
                       f"η in {ETAS}.")
    a = [float(k) for k in arr]
    if len(a) != len(Ks):
        return verdict(False, "", f"K_etas must hold {len(Ks)} numbers, one per η in {ETAS}.")
    floor = [math.floor(math.log(eta) / math.log(LAM_EXPERIMENT)) for eta in ETAS]
    if a == [float(k) for k in Ks]:
        ok_k = verdict(True, f"Correct: K = {', '.join(map(str, Ks))} for η = "
                       f"{', '.join(map(str, ETAS))}: a larger η, a shorter delay.", "")
    elif a == [float(k) for k in floor]:
        ok_k = verdict(False, "", "Not yet: rounded down; K is the smallest whole number with "
                       "(γλ)^K ≤ η, so round up.")
    else:
        ok_k = verdict(False, "", "Not yet: K = ceil(log η / log γλ) for each η.")
    if not isinstance(prediction, str) or prediction not in PREDICTIONS:
        verdict(False, "", f"Not yet: prediction must be one of {PREDICTIONS}, said before you "
                "measure.")
        return False
    measured = _fig3_right_at(res)
    ok_e = check_close(errors, measured, name="the errors at λ = 0.9", rtol=1e-6,
                       hint="Read res.summary()[label]['y'] where ['x'] is 0.9, for the labels "
                       "'η = 0.01', 'η = 0.1', 'η = 0.3'.")
    ok_p = False
    if ok_e:
        trend = ("rises" if measured[-1] > measured[0] * 1.05 else
                 "falls" if measured[-1] < measured[0] / 1.05 else "stays")
        said = (f"the error at λ = 0.9 goes from {measured[0]:.3f} (η = {ETAS[0]}) to "
                f"{measured[-1]:.3f} (η = {ETAS[-1]}): it {trend} (a change of more than 5 % "
                "counts as rising or falling)")
        ok_p = verdict(prediction == trend, f"Correct: you predicted it: {said}.",
                       f"Not yet: your prediction ({prediction}) disagrees with the "
                       f"measurement: {said}. Why: a larger η gives a shorter K, so the target "
                       "cuts the λ-return sooner and puts the weight (γλ)^(K−1) on its last "
                       "n-step return (0.9¹¹ ≈ 0.31 at η = 0.3): at λ = 0.9 forward TD(λ) then "
                       "acts like a method with a smaller λ. The shorter delay helps too; the "
                       "data say which effect wins. Change the prediction to what you now "
                       "expect (the grade asks for the right reading of the data).")
    return all_parts((ok_k, ok_e, ok_p), ("(a) K_etas", "(c) errors", "(b) prediction"))


#: INSTRUCTORS.md's row of each exercise of this notebook, by its key: (what it asks, what
#: its check tests, the usual wrong answers and what they reveal), Markdown; written into
#: the page by ``python -m ftd_lib.publish.lecture_plan --write``
FOR_INSTRUCTORS = {
    "nb05.true_value": (
        "**build**: a true value by simulation",
        "the student's `my_value(x, v)` against `mc.true_value` (refused inside, or "
        "pasted) at four states, exactly",
        "+steps: the sign; steps ± 1 (told); right at one state only"),
    "nb05.yardstick": (
        "a yardstick for the metric",
        "the normalised error of the best constant over the student's evaluation sample "
        "(`mc.evaluation_states(**nb05.given_sample())`; without an id the notebook's 500"
        " states, seed 0), σ / RMS of the true values, to 1e-6",
        "the median's error (told); the best constant itself (told); rounded answers"),
    "nb05.predict_then_measure": (
        "**experiment**: predict, then measure, η at λ = 0.9",
        "(a) K = 44, 22, 12; (b) the prediction (rises / falls / stays) graded against "
        "(c) the three errors at λ = 0.9 read from the Figure 3 right data (to 1e-6): a "
        "prediction the data contradict fails, with the explanation, until changed (the "
        "stored data: 0.290 → 0.302 → 0.376, rises)",
        "K rounded down; rounded errors; 'stays' because claim 4 says η hardly matters "
        "(it is about the *best* λ per η)"),
}
