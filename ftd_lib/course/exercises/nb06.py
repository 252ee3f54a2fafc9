"""Self-checks for notebook 06 (control with one network per action). Each check computes the
right answer with the library (so it is never written out here or in the notebook) and prints a
verdict. ``simulate_policy`` and ``forward_sarsa_delay`` are builds (a function, checked at
several points, that may not run the library's own); ``epsilon_greedy`` is predict-then-measure
(the prediction graded on its reasoning, the check measuring for itself); ``cartpole_target`` a
number to three decimals. The given numbers of those two are the student's own
(:func:`~.use_student`).
"""

from __future__ import annotations

import math

import numpy as np

from ...envs import mountain_car as mc
from ...envs.tasks import task
from ...references.common import epsilon_greedy
from ...returns import k_bound
from .. import nb06_nn_control as nb06
from . import (
    MISSING,
    all_parts,
    as_numbers,
    check_close,
    is_right,
    missing,
    not_written,
    others_answer,
    refuse_library_answer,
    run_student,
    student_id,
    student_number,
    student_rng,
    verdict,
)

#: The start of the mountain car whose steps to the goal the student's simulation
#: reports, and the other starts ``(x0, v0)`` it is checked at
X0_HEURISTIC = -0.3
HEURISTIC_STARTS = ((X0_HEURISTIC, 0.0), (-0.5, 0.0), (-0.9, 0.02), (0.2, -0.03))

#: Forward Sarsa(lambda) on cart-pole, and the (gamma, lam, eta) a student's K is
#: checked at (K = 1 where gamma * lam <= eta, lam = 0 included; an exact power: 0.5^3 = 0.125)
GAMMA_CP = task("cartpole").gamma
LAM_K = 0.6
ETA = nb06.ETA
K_POINTS = ((GAMMA_CP, LAM_K, ETA), (1.0, 0.9, 0.01), (1.0, 0.5, 0.125), (0.95, 0.8, 0.001),
            (1.0, 0.3, 0.5), (1.0, 0.005, 0.01), (0.9, 0.0, 0.01))

#: Exercise ``epsilon_greedy``: epsilon-greedy as the engine does it
#: (``ftd_lib.references.common.epsilon_greedy``), on action values whose greedy action is
#: action 1, for mountain car (3 actions) and cart-pole (2)
EPSILON = nb06.EPSILON
Q_MOUNTAIN_CAR = (0.0, 1.0, 0.0)
Q_CART_POLE = (0.0, 1.0)
GREEDY = 1

#: A cart-pole episode balanced for the whole cap, and the learner's gamma.
N_BALANCED = task("cartpole").max_steps


def _steps_pushing(x0: float, v0: float, at_rest: int, max_steps: int = 10_000):
    """Steps to the goal pushing in the direction of the velocity, with action ``at_rest`` at
    v = 0 (the usual slip: 0, pushing left); ``None`` when it takes over ``max_steps``."""
    x, v = float(x0), float(v0)
    for t in range(1, max_steps + 1):
        a = 2 if v > 0 else 0 if v < 0 else at_rest
        x, v, terminal = mc.mountain_car_step(x, v, a)
        if terminal:
            return t
    return None


def check_heuristic_steps(fn) -> bool:
    """A student's ``fn(x0, v0)``, the steps to the goal pushing in the direction of
    the velocity (right when at rest), at every start of ``HEURISTIC_STARTS`` against
    :func:`ftd_lib.course.nb06_nn_control.heuristic_steps` (which it may not run, nor the
    library's policy ``mc.velocity_policy``: the exercise is to write that rule)."""
    if not_written(fn, "your simulation (my_steps)"):
        return False
    refuse = (nb06.heuristic_steps, nb06.heuristic_trajectory, mc.velocity_policy)
    for x0, v0 in HEURISTIC_STARTS:
        a = student_number(fn, x0, v0, refuse=refuse, returns="the number of steps (a whole "
                           "number)", symbol="the steps", name=f"the steps from x0, v0 = {x0}, "
                           f"{v0}")
        if a is None:
            return False
        want = nb06.heuristic_steps(x0, v0)
        if a != want:
            if v0 == 0 and a == _steps_pushing(x0, v0, at_rest=0):
                hint = ("At rest (v = 0) your car pushes left: the rule pushes right when the "
                        "velocity is zero (v ≥ 0 → right), so the first push from rest is to "
                        "the right.")
            elif abs(a - want) == 1:
                hint = ("One step off: count every call of mc.mountain_car_step, the one that "
                        "reaches the goal included, and none after it.")
            else:
                hint = ("Check the rule (push in the direction of the velocity, right at rest) "
                        "and that you count calls of mc.mountain_car_step until it returns "
                        "terminal.")
            return verdict(False, "", f"Not yet: from x0, v0 = {x0}, {v0} your function gives "
                           f"{a:g}, not the simulation's count. {hint}")
    return verdict(True, f"Correct at all {len(HEURISTIC_STARTS)} starts: from x = "
                   f"{X0_HEURISTIC} the car needs {nb06.heuristic_steps(X0_HEURISTIC, 0.0)} "
                   "steps.", "")


def check_k(fn) -> bool:
    """A student's ``fn(gamma, lam, eta)``, forward Sarsa(λ)'s K (Sec. 5: the
    smallest K with (γλ)^K ≤ η), at every point of ``K_POINTS`` against
    :func:`ftd_lib.returns.k_bound` (which it may not run); then K on cart-pole."""
    if not_written(fn, "your K (my_k)"):
        return False
    for g, lam, eta in K_POINTS:
        got, err = run_student(fn, g, lam, eta, refuse=(k_bound,))
        if err is not None and (err == MISSING or err.startswith("Your function runs")):
            return verdict(False, "", err)
        if err is not None:
            return verdict(False, "", f"At γ, λ, η = {g}, {lam}, {eta}: {err}" + (
                " (γλ = 0 here: λ = 0 is TD(0), so K = 1.)" if g * lam == 0 else ""))
        if got is None:
            return verdict(False, "", "Your function returns None: return K (a whole number).")
        a = as_numbers(got, f"K at γ, λ, η = {g}, {lam}, {eta}")
        if a is None:
            return False
        want = k_bound(g, lam, eta)
        if a.shape != () or a != want:
            gl = g * lam
            ratio = math.log(eta) / math.log(gl) if 0 < gl < 1 else None
            if a.shape == () and ratio is not None and a == math.floor(ratio) and a != want:
                why = "rounded down: K is the smallest whole number with (γλ)^K ≤ η, so round up."
            elif gl <= eta:
                why = f"γλ = {gl:g} ≤ η already, so (γλ)^1 ≤ η: K = 1."
            else:
                why = "K is the smallest whole number with (γλ)^K ≤ η."
            return verdict(False, "", f"Not yet: at γ, λ, η = {g}, {lam}, {eta} your K is "
                           f"{got!r:.40}. {why}")
    return verdict(True, f"Correct at all {len(K_POINTS)} points: on cart-pole (γ = "
                   f"{GAMMA_CP}, λ = {LAM_K}, η = {ETA}) forward Sarsa(λ) waits K = "
                   f"{k_bound(GAMMA_CP, LAM_K, ETA)} steps.", "")


#: Exercise ``epsilon_greedy`` without a student id: the engine's epsilon
GREEDY_EXERCISE = dict(epsilon=EPSILON)

#: Exercise ``epsilon_greedy``: the draws the check makes to measure ε-greedy, and its seed
N_DRAWS = 50_000


def given_epsilon() -> dict:
    """The ``epsilon`` for the current student (the engine's 0.05 without an id): one
    of 0.050, 0.051, ..., 0.400."""
    rng = student_rng("nb06.epsilon_greedy")
    if rng is None:
        return dict(GREEDY_EXERCISE)
    return dict(epsilon=int(rng.integers(50, 401)) / 1000)


def measure_greedy_share(q, epsilon: float, n: int = N_DRAWS, seed: int = 0) -> float:
    """The share of ``n`` calls of the engine's ``epsilon_greedy(q, epsilon, rng)`` that take
    the greedy action ``GREEDY`` (a measurement, seeded)."""
    rng = np.random.default_rng(seed)
    return float(np.mean([epsilon_greedy(np.asarray(q, float), epsilon, rng) == GREEDY
                          for _ in range(int(n))]))


def check_greedy_probability(mountain_car, cart_pole) -> bool:
    """(predict) the probability that ε-greedy (at :func:`given_epsilon`'s ε, as
    the engine does it) takes the greedy action on mountain car (3 actions) and on cart-pole
    (2), exactly (a formula in ε, or a number with all its digits): graded on the reasoning,
    against :math:`1 - \\varepsilon + \\varepsilon/|\\mathcal A|`. (measure) The check then
    draws :data:`N_DRAWS` actions itself with ``ftd_lib.references.common.epsilon_greedy`` on
    ``Q_MOUNTAIN_CAR`` and ``Q_CART_POLE`` at that ε and prints the shares beside the
    predictions; a prediction equal to a measured share (not the probability) is refused, and
    a right prediction the engine contradicts (beyond 4.5 standard errors) fails."""
    if missing(mountain_car, "p_mountain_car (your prediction)") or missing(
            cart_pole, "p_cart_pole (your prediction)"):
        return False
    if refuse_library_answer(("greedy_probability(", "measure_greedy_share(",
                              "epsilon_greedy(")):
        return False
    eps = given_epsilon()["epsilon"]
    hint = ("With probability ε the engine draws an action uniformly from all actions -- the "
            "greedy one among them.")
    seed = int(student_rng("nb06.epsilon_greedy.draws").integers(2**31)) if student_id() else 0
    oks = []
    for answer, q, name in ((mountain_car, Q_MOUNTAIN_CAR, "the mountain-car probability"),
                            (cart_pole, Q_CART_POLE, "the cart-pole probability")):
        A = len(q)
        expected = nb06.greedy_probability(eps, A)
        share = measure_greedy_share(q, eps, seed=seed)
        a = as_numbers(answer, name)
        mine = float(a) if a is not None and a.shape == () else None
        right = mine is not None and is_right(mine, expected, rtol=0, atol=1e-9)
        print(f"   measured by the check: {N_DRAWS} calls of epsilon_greedy(q, {eps:g}, rng) on "
              f"{A} actions took the greedy one {share:.4f} of the time"
              + (f" (your prediction {mine:.4f})" if mine is not None else ""))
        if (not right and mine is not None and abs(mine - share) < 5e-5
                and abs(share - expected) > 1e-9):
            oks.append(verdict(False, "", f"Not yet: {name}: that is a measured share (a "
                               "count of random draws), not the probability: predict it from ε "
                               "and the number of actions, exactly."))
            continue
        if not right and mine is not None and (others := others_answer(
                mine, expected, lambda A=A: nb06.greedy_probability(
                    given_epsilon()["epsilon"], A))):
            oks.append(verdict(False, "", f"Not yet: {name}: {others}"))
            continue
        if not right and mine is not None and abs(mine - (1 - eps)) < 1e-9:
            oks.append(verdict(False, "", f"Not yet: {name}: 1 − ε forgets that the random "
                               "draw (probability ε) can pick the greedy action too."))
            continue
        ok = check_close(answer, expected, name=name, rtol=0, atol=1e-9, hint=hint)
        se = np.sqrt(expected * (1 - expected) / N_DRAWS)
        if ok and abs(share - expected) > 4.5 * se:  # the engine contradicts the formula: a
            # library matter for the instructor, not the student's (a right answer stays right)
            print(f"   note: the measurement is more than 4.5 standard errors from {name}: "
                  "tell your instructor (the engine's ε-greedy may differ from its formula).")
        oks.append(ok)
    return all_parts(oks, ("p_mountain_car", "p_cart_pole"))


#: Exercise ``cartpole_target`` without a student id: cart-pole's cap, balanced for all of it
RETURN_EXERCISE = dict(n_rewards=N_BALANCED, gamma=GAMMA_CP)


def given_episode_length() -> dict:
    """The episode for the current student: ``n_rewards`` rewards of 1 (balanced
    until the pole fell, or the cap), discounted with cart-pole's ``gamma``."""
    rng = student_rng("nb06.cartpole_target")
    if rng is None:
        return dict(RETURN_EXERCISE)
    return dict(n_rewards=int(rng.integers(100, 1000)), gamma=GAMMA_CP)


def check_discounted_return(answer) -> bool:
    """The discounted return (cart-pole's gamma = 0.99) of an episode of
    :func:`given_episode_length`'s ``n_rewards`` rewards of 1: their discounted sum, to three
    decimals or more."""
    if missing(answer, "the discounted return"):
        return False
    if refuse_library_answer(("discounted_return(",)):
        return False
    arr = as_numbers(answer, "the discounted return")
    if arr is None:
        return False
    e = given_episode_length()
    n, g = e["n_rewards"], e["gamma"]
    expected = nb06.discounted_return(n, g)
    a = float(arr) if arr.shape == () else None
    if a is not None and is_right(a, expected, rtol=1e-12, atol=0, decimals=3):
        a = None  # the right answer first: no slip is looked for
    if a is not None and abs(a - 1 / (1 - g)) < 1e-9:
        return verdict(False, "", f"Not yet: 1/(1−γ) = {1 / (1 - g):g} is the infinite sum; "
                       f"this episode has {n} rewards: the sum stops at γ^{n - 1}.")
    if a is not None and abs(a - n) < 1e-9:
        return verdict(False, "", "Not yet: that is the undiscounted return; discount with γ.")
    for m, what in ((n + 1, "one term too many"), (n - 1, "one term too few")):
        if a is not None and abs(a - nb06.discounted_return(m, g)) < 1e-9:
            return verdict(False, "", f"Not yet: {what}: {m} rewards; the episode has {n}, "
                           f"weighted γ^0 .. γ^{n - 1}.")
    def rounded(d):
        return round(nb06.discounted_return(d["n_rewards"], d["gamma"]), 3)

    if a is not None and (others := others_answer(round(a, 3), round(expected, 3),
                                                  lambda: rounded(given_episode_length()))):
        return verdict(False, "", "Not yet: " + others)
    return check_close(answer, expected, name="the discounted return", rtol=1e-12, atol=0,
                       decimals=3, hint=f"A geometric series: 1 + γ + ... + γ^{n - 1}.")
