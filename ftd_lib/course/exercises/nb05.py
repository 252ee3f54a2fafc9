r"""Self-checks for notebook 05 (mountain car evaluation with a network). Every right answer is
computed here with the library at check time, never written out: a check says only whether
the answer is right, with a hint when it is not. The yardstick's sample is the student's own
(:func:`~.use_student`)."""

from __future__ import annotations

import math

import numpy as np

from ...envs import mountain_car as mc
from ...returns import k_bound
from ..nb05_nn_prediction import EVAL_SEED, N_EVAL  # Exercise ``yardstick``: the evaluation sample
from . import (
    all_parts,
    as_numbers,
    check_close,
    is_right,
    missing,
    not_written,
    others_answer,
    refuse_library_answer,
    student_id,
    student_number,
    student_rng,
    verdict,
)

#: The state whose true value the notebook shows (raw position, velocity), and the
#: other states a student's function is checked at
STATE = (-0.9, 0.02)
VALUE_STATES = (STATE, (-0.5, 0.0), (-0.3, -0.01), (-1.1, 0.03))


def check_true_value(fn) -> bool:
    r"""A student's ``fn(x, v)``, :math:`v(s)` under the evaluation policy (γ = 1,
    expected reward −1 a step, so :math:`v(s) = -(\text{steps to the goal})`) by simulation,
    at every state of :data:`VALUE_STATES` against :func:`ftd_lib.envs.mountain_car.true_value`
    (which it may not run)."""
    if not_written(fn, "your simulation (my_value)"):
        return False
    for x, v in VALUE_STATES:
        a = student_number(fn, x, v, refuse=(mc.true_value,), returns="v(s), minus the number "
                           "of steps to the goal", symbol="v(s)", name=f"v(s) at (x, v) = "
                           f"({x}, {v})")
        if a is None:
            return False
        expected = mc.true_value(x, v)
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


#: Exercise ``yardstick`` without a student id: the notebook's evaluation sample
SAMPLE = dict(n=N_EVAL, seed=EVAL_SEED)


def given_sample() -> dict:
    """The sample for the current student: ``n`` and ``seed`` of
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
    r"""The normalised error of the best constant predictor over
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
    if a is not None and math.isclose(a, b["ratio"], rel_tol=1e-6):
        a = None  # right (where the sample's median is its mean, the median's error is too)
    if a is not None and math.isclose(a, b["median_ratio"], rel_tol=1e-6):
        return verdict(False, "", "Not yet: that is the median's error. The median is the best "
                       "constant for the absolute error; the RMS error is a squared error, "
                       "and its best constant is the mean.")
    if a is not None and math.isclose(a, b["best_constant"], rel_tol=1e-3):
        return verdict(False, "", "Not yet: that is the best constant itself; the exercise "
                       "asks for its normalised RMS error.")
    if a is not None and (others := others_answer(
            a, b["ratio"], lambda: _constant_baselines(**given_sample())["ratio"])):
        return verdict(False, "", "Not yet: " + others)
    return check_close(answer, b["ratio"], name="the normalised error of the best constant",
                       rtol=1e-6, atol=0,
                       hint="The best constant is the mean of the true values: predict it "
                            "everywhere, take the RMS error, divide.")


#: The step-size parameter eta of Figure 3 right (gamma = 1), and lambda without a
#: student id
ETAS = (0.01, 0.1, 0.3)
LAM_EXPERIMENT = 0.9
PREDICTIONS = ("rises", "falls", "stays")

#: The lambdas of the stored Figure 3 right grid a student's experiment is drawn from: its
#: high end, less the paper's 0.9 (the value used when no id is given)
LAMS_EXPERIMENT = (0.8, 0.85, 0.925, 0.95, 0.975)
#: A student's errors are the mean over a block of this many consecutive runs of the stored
#: results (of the paper's 200), its first run drawn per student; without an id, every run
RUNS_EXPERIMENT, RUNS_STORED = 100, 200

#: In this kernel: the prediction recorded per student id (:func:`record_prediction`)
#: and the ids whose measurement the check has shown
_RECORDED: dict = {}
_SHOWN: set = set()


def given_experiment() -> dict:
    """The ``lam`` and ``runs`` for the current student: ``lam`` one of
    :data:`LAMS_EXPERIMENT` (the stored grid's) and ``runs`` a ``range`` of
    :data:`RUNS_EXPERIMENT` consecutive stored runs (5 × 101 sets of numbers, each drawn by
    about 1 student in 500); without an id λ = 0.9 and every run (the figure's own points)."""
    rng = student_rng("nb05.predict_then_measure")
    if rng is None:
        return dict(lam=LAM_EXPERIMENT, runs=range(RUNS_STORED))
    lam = float(rng.choice(LAMS_EXPERIMENT))
    first = int(rng.integers(0, RUNS_STORED - RUNS_EXPERIMENT + 1))
    return dict(lam=lam, runs=range(first, first + RUNS_EXPERIMENT))


def _fig3_right_at(lam: float, runs: range) -> list[float] | str:
    """The errors at ``lam`` for each η of :data:`ETAS`, averaged over the stored ``runs``,
    read by the check itself from the course's stored Figure 3 right results (never from what
    a student hands it); a string saying why not where those results hold fewer runs."""
    from ..live import stored

    res = stored("fig3-right")
    s, metric = res.summary(), res["metric"]
    if metric.shape[1] < runs.stop:
        return (f"the stored Figure 3 right results hold {metric.shape[1]} runs, and yours are "
                f"{runs}: read the course's own results/fig3-right (the paper's 200 runs).")
    out = []
    for eta in ETAS:
        row = s[f"η = {eta:g}"]
        cell = int(row["cell"][np.isclose(row["x"], lam)][0])
        out.append(float(metric[cell, runs].mean()))
    return out


def record_prediction(prediction, why) -> bool:
    """Part (b): record ``prediction`` (one of :data:`PREDICTIONS`) and its one sentence
    ``why`` before the check shows the measurement. Once this kernel has shown the measurement
    to the current student, a different prediction is refused and the first record kept; the
    written why is graded by the instructor (the notebook's written-answer cell)."""
    if missing(prediction, "prediction") or missing(why, "why"):
        return False
    if not isinstance(prediction, str) or prediction not in PREDICTIONS:
        return verdict(False, "", f"Not yet: prediction must be one of {PREDICTIONS}.")
    if not isinstance(why, str) or len(why.split()) < 5:
        return verdict(False, "", "Not yet: why must be one sentence (a string of at least five "
                       "words) that says what you expect and why.")
    key = student_id()
    old = _RECORDED.get(key)
    if key in _SHOWN and old is not None and old[0] != prediction:
        return verdict(False, "", f"Not yet: the measurement was already shown in this session; "
                       f"your recorded prediction stays {old[0]!r}. A prediction is what you "
                       "expected before measuring: write what surprised you in your answer "
                       "below instead.")
    _RECORDED[key] = (prediction, why)
    return verdict(True, f"Correct: recorded before the measurement: {prediction!r}.", "")


def check_eta_experiment(K_etas, prediction, errors) -> bool:
    r"""The experiment at :func:`given_experiment`'s λ and runs (γ = 1): (a) K for each η of
    ``ETAS``; (b) the prediction, which passes when it was recorded (:func:`record_prediction`)
    before this check and not changed since: it is not graded by whether the data agree (its
    written why is graded by hand); (c) the errors at λ averaged over the student's ``runs``,
    compared with the check's own reading of the stored Figure 3 right results (the mean over
    all runs, the figure's points, is named as such). The check then shows the measurement, and
    whether the prediction agreed."""
    if missing(K_etas, "K_etas") or missing(prediction, "prediction") or missing(errors, "errors"):
        return False
    mine = given_experiment()
    lam, runs = mine["lam"], mine["runs"]
    Ks = [k_bound(1.0, lam, eta) for eta in ETAS]
    arr = as_numbers(K_etas, "K_etas")
    if arr is None:
        return False
    if arr.ndim != 1 or len(arr) != len(Ks):
        return verdict(False, "", f"K_etas must be a list of {len(Ks)} whole numbers, one per "
                       f"η in {ETAS}.")
    a = [float(k) for k in arr]
    floor = [math.floor(math.log(eta) / math.log(lam)) for eta in ETAS]
    if a == [float(k) for k in Ks]:
        ok_k = verdict(True, "Correct: (a) K_etas are right: a larger η, a shorter delay.", "")
    elif a == [float(k) for k in floor]:
        ok_k = verdict(False, "", "Not yet: (a) rounded down; K is the smallest whole number "
                       "with (γλ)^K ≤ η, so round up.")
    elif others := others_answer(a, Ks, lambda: [
            k_bound(1.0, given_experiment()["lam"], eta) for eta in ETAS]):
        ok_k = verdict(False, "", f"Not yet: (a) {others}")
    else:
        ok_k = verdict(False, "", f"Not yet: (a) K_etas are off: K is the smallest whole number "
                       f"with (γλ)^K ≤ η, at your λ = {lam:g} and γ = 1.")
    key = student_id()
    rec = _RECORDED.get(key)
    if not isinstance(prediction, str) or prediction not in PREDICTIONS:
        ok_p = verdict(False, "", f"Not yet: (b) prediction must be one of {PREDICTIONS}.")
    elif rec is None:
        ok_p = verdict(False, "", "Not yet: (b) record your prediction first, before the "
                       "measurement: run nb05.record_prediction(prediction, why) in the cell "
                       "above.")
    elif rec[0] != prediction:
        ok_p = verdict(False, "", f"Not yet: (b) your prediction changed since you recorded "
                       f"{rec[0]!r}: a prediction is what you said before measuring.")
    else:
        ok_p = verdict(True, f"Correct: (b) your prediction {prediction!r} was recorded before "
                       "the measurement (its why is graded by your instructor).", "")
    measured = _fig3_right_at(lam, runs)
    if isinstance(measured, str):
        return verdict(False, "", f"Not yet: (c) {measured}")
    _SHOWN.add(key)
    name = f"(c) the errors at λ = {lam:g} over {runs}"
    if is_right(errors, measured):  # right first: a slip's value may equal it
        ok_e = check_close(errors, measured, name=name)
    elif is_right(errors, _fig3_right_at(lam, range(RUNS_STORED))):
        ok_e = verdict(False, "", f"Not yet: (c) those are the means over all {RUNS_STORED} "
                       f"runs (the figure's points); average over your runs, {runs}, only.")
    elif theirs := others_answer(errors, measured, lambda: _fig3_right_at(**given_experiment())):
        ok_e = verdict(False, "", f"Not yet: (c) {theirs}")
    else:
        ok_e = check_close(errors, measured, name=name,
                           hint=f"For each label 'η = 0.01', 'η = 0.1', 'η = 0.3': the cell "
                           f"summary()[label]['cell'] where ['x'] is {lam:g}, then the mean "
                           "of res['metric'][cell, runs] over your runs.")
    if ok_e and ok_p:
        trend = ("rises" if measured[-1] > measured[0] * 1.05 else
                 "falls" if measured[-1] < measured[0] / 1.05 else "stays")
        print(f"   the data: from η = {ETAS[0]} to η = {ETAS[-1]} the error {trend}; your "
              f"prediction was {prediction!r}: " + (
                  "they agree." if trend == prediction else
                  "they disagree; say in your answer below what you missed."))
    return all_parts((ok_k, ok_p, ok_e), ("(a) K_etas", "(b) prediction", "(c) errors"))
