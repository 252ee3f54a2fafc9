r"""Self-checks for notebook 05 (mountain car evaluation with a network). Every right answer is
computed here with the library at check time, never written out: a check says only whether
the answer is right, with a hint when it is not."""

from __future__ import annotations

import math

import numpy as np

from ...envs import mountain_car as mc
from ...returns import k_bound
from ..nb05_nn_prediction import EVAL_SEED, N_EVAL  # Exercise 2: the evaluation sample
from . import as_numbers, check_close, missing, one_number, verdict

#: Exercise 1: the state whose true value the student computes (raw position, velocity).
STATE = (-0.9, 0.02)


def check_true_value(answer, state=STATE) -> bool:
    r"""Exercise 1: :math:`v(s)` of ``state`` under the evaluation policy (γ = 1, expected
    reward −1 a step, so :math:`v(s) = -(\text{steps to the goal})`)."""
    if missing(answer, "v(s)"):
        return False
    expected = mc.true_value(*state)
    a = one_number(answer, "v(s)", "v(s) must be one number.")
    if a is None:
        return False
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
    if missing(answer, "the normalised error of the best constant"):
        return False
    arr = as_numbers(answer, "the normalised error of the best constant")
    if arr is None:
        return False
    b = constant_baselines()
    _, values = mc.evaluation_states(N_EVAL, EVAL_SEED)
    median = float(np.sqrt(np.mean((values - np.median(values)) ** 2))) / b["rms_zero"]
    a = float(arr) if arr.shape == () else None
    if a is not None and math.isclose(a, median, rel_tol=1e-6):
        return verdict(False, "", "Not yet: that is the median's error. The median is the best "
                       "constant for the absolute error; the RMS error is a squared error, "
                       "and its best constant is the mean.")
    if a is not None and math.isclose(a, b["best_constant"], rel_tol=1e-3):
        return verdict(False, "", "Not yet: that is the best constant itself; the exercise "
                       "asks for its normalised RMS error.")
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
    ``PREDICTIONS``), not graded but compared with (c) the errors at λ = 0.9 read from the
    Figure 3 right results ``res`` (stored paper-scale data when there are some)."""
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
        return verdict(False, "", f"prediction must be one of {PREDICTIONS}.") and False
    measured = _fig3_right_at(res)
    ok_e = check_close(errors, measured, name="the errors at λ = 0.9", rtol=1e-6,
                       hint="Read res.summary()[label]['y'] where ['x'] is 0.9, for the labels "
                       "'η = 0.01', 'η = 0.1', 'η = 0.3'.")
    if ok_e:
        trend = ("rises" if measured[-1] > measured[0] * 1.05 else
                 "falls" if measured[-1] < measured[0] / 1.05 else "stays")
        print(f"Your prediction: the error {prediction}; the data: it {trend} "
              f"({measured[0]:.3f} → {measured[-1]:.3f}, a 5 % threshold). "
              + ("You predicted it." if prediction == trend else "Not what you predicted: "
                 "a larger η gives a shorter K, so the target cuts the λ-return sooner and puts "
                 "the weight (γλ)^(K−1) on its last n-step return (0.9¹¹ ≈ 0.31 at η = 0.3): "
                 "at λ = 0.9 forward TD(λ) then acts like a method with a smaller λ. The shorter "
                 "delay helps too; the data say which effect wins."))
    return ok_k and ok_e
