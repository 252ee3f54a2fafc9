"""Self-checks for notebook 06 (control with one network per action). Each check computes the
right answer with the library (so it is never written out here or in the notebook) and prints a
verdict. Exercises 1 and 2 are builds (a function, checked at several points, that may not run
the library's own); exercise 3 is predict-then-measure; exercise 4 a number to three decimals.
"""

from __future__ import annotations

import math

import numpy as np

from ...envs.tasks import task
from ...returns import k_bound
from .. import nb06_nn_control as nb06
from . import MISSING, as_numbers, check_close, missing, not_written, run_student, verdict

#: Exercise 1: the start of the mountain car whose steps to the goal the student's simulation
#: reports, and the other starts ``(x0, v0)`` it is checked at
X0_HEURISTIC = -0.3
HEURISTIC_STARTS = ((X0_HEURISTIC, 0.0), (-0.5, 0.0), (-0.9, 0.02), (0.2, -0.03))

#: Exercise 2: forward Sarsa(lambda) on cart-pole, and the (gamma, lam, eta) a student's K is
#: checked at (K = 1 where gamma * lam <= eta, lam = 0 included; an exact power: 0.5^3 = 0.125)
GAMMA_CP = task("cartpole").gamma
LAM_K = 0.6
ETA = nb06.ETA
K_POINTS = ((GAMMA_CP, LAM_K, ETA), (1.0, 0.9, 0.01), (1.0, 0.5, 0.125), (0.95, 0.8, 0.001),
            (1.0, 0.3, 0.5), (1.0, 0.005, 0.01), (0.9, 0.0, 0.01))

#: Exercise 3: epsilon-greedy as the engine does it
#: (``ftd_lib.references.common.epsilon_greedy``), on action values whose greedy action is
#: action 1, for mountain car (3 actions) and cart-pole (2)
EPSILON = nb06.EPSILON
Q_MOUNTAIN_CAR = (0.0, 1.0, 0.0)
Q_CART_POLE = (0.0, 1.0)
GREEDY = 1
N_DRAWS_MIN = 10_000

#: Exercise 4: a cart-pole episode balanced for the whole cap, and the learner's gamma.
N_BALANCED = task("cartpole").max_steps


def check_heuristic_steps(fn) -> bool:
    """Exercise 1: a student's ``fn(x0, v0)``, the steps to the goal pushing in the direction of
    the velocity (right when at rest), at every start of ``HEURISTIC_STARTS`` against
    :func:`ftd_lib.course.nb06_nn_control.heuristic_steps` (which it may not run)."""
    if not_written(fn, "your simulation (my_steps)"):
        return False
    refuse = (nb06.heuristic_steps, nb06.heuristic_trajectory)
    for x0, v0 in HEURISTIC_STARTS:
        got, err = run_student(fn, x0, v0, refuse=refuse)
        if err is not None:
            return verdict(False, "", err)
        if got is None:
            return verdict(False, "", "Your function returns None: return the number of steps "
                           "(a whole number).")
        a = as_numbers(got, f"the steps from x0, v0 = {x0}, {v0}")
        if a is None:
            return False
        want = nb06.heuristic_steps(x0, v0)
        if a.shape != () or a != want:
            hint = ("Count every call of mc.mountain_car_step, the one that reaches the goal "
                    "included." if a.shape == () and abs(float(a) - want) == 1 else
                    "Loop: a = 2 if v >= 0 else 0; x, v, terminal = mc.mountain_car_step(x, v, "
                    "a); count until terminal.")
            return verdict(False, "", f"Not yet: from x0, v0 = {x0}, {v0} your function gives "
                           f"{got!r:.40}, not the simulation's count. {hint}")
    return verdict(True, f"Correct at all {len(HEURISTIC_STARTS)} starts: from x = "
                   f"{X0_HEURISTIC} the car needs {nb06.heuristic_steps(X0_HEURISTIC, 0.0)} "
                   "steps.", "")


def check_k(fn) -> bool:
    """Exercise 2: a student's ``fn(gamma, lam, eta)``, forward Sarsa(λ)'s K (Sec. 5: the
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


def _measured(actions, n_actions: int, name: str):
    """The student's drawn actions as an int array, or ``None`` after saying what is wrong."""
    a = as_numbers(actions, name)
    if a is None:
        return None
    if a.ndim != 1 or a.size < N_DRAWS_MIN:
        verdict(False, "", f"{name} must be the list of actions drawn, at least {N_DRAWS_MIN} "
                f"of them, got shape {a.shape}.")
        return None
    if not np.all((a == np.round(a)) & (a >= 0) & (a < n_actions)):
        verdict(False, "", f"{name} must hold actions 0 .. {n_actions - 1}, the values "
                "epsilon_greedy returns.")
        return None
    return a.astype(int)


def check_greedy_probability(mountain_car, cart_pole, actions_mountain_car=None,
                             actions_cart_pole=None) -> bool:
    """Exercise 3: (predict) the probability that ε-greedy (ε = 0.05, as the engine does it)
    takes the greedy action on mountain car (3 actions) and on cart-pole (2), to three decimals
    or more; (measure) the actions of many calls of ``ftd_lib.references.common.epsilon_greedy`` on
    ``Q_MOUNTAIN_CAR`` and ``Q_CART_POLE``: the share of each action must be the prediction
    (greedy) or ε/|A| (each other action) within 4.5 standard errors."""
    if missing(mountain_car, "p_mountain_car (your prediction)") or missing(
            cart_pole, "p_cart_pole (your prediction)"):
        return False
    hint = ("With probability ε the engine draws an action uniformly from all actions -- the "
            "greedy one among them.")
    ok1 = check_close(mountain_car, nb06.greedy_probability(EPSILON, 3),
                      name="the mountain-car probability", rtol=0, atol=1e-12, decimals=3,
                      hint=hint)
    ok2 = check_close(cart_pole, nb06.greedy_probability(EPSILON, 2),
                      name="the cart-pole probability", rtol=0, atol=1e-12, decimals=3,
                      hint=hint)
    if missing(actions_mountain_car, "actions_mc (your measurement)") or missing(
            actions_cart_pole, "actions_cp (your measurement)"):
        return False
    oks = []
    for actions, q, name in ((actions_mountain_car, Q_MOUNTAIN_CAR, "actions_mc"),
                             (actions_cart_pole, Q_CART_POLE, "actions_cp")):
        a = _measured(actions, len(q), name)
        if a is None:
            oks.append(False)
            continue
        n, A = a.size, len(q)
        share = np.bincount(a, minlength=A) / n
        p = np.array([nb06.greedy_probability(EPSILON, A) if b == GREEDY else EPSILON / A
                      for b in range(A)])
        z = np.abs(share - p) / np.sqrt(p * (1 - p) / n)
        print(f"   {name}: {n} draws, the greedy action {share[GREEDY]:.4f} of them "
              f"(your prediction {float(as_numbers(mountain_car if A == 3 else cart_pole)):.4f})")
        oks.append(verdict(bool(np.all(z < 4.5)), f"{name}: the measured shares agree with "
                           "ε-greedy within the noise of the draws.",
                           f"{name}: the shares of the actions, {np.round(share, 4).tolist()}, "
                           f"are not ε-greedy's at ε = {EPSILON} on q = {list(q)}: draw each "
                           "action with epsilon_greedy(q, 0.05, rng), one call per draw."))
    return ok1 and ok2 and all(oks)


def check_discounted_return(answer) -> bool:
    """Exercise 4: the discounted return (gamma = 0.99) of a cart-pole episode balanced for
    N_BALANCED steps and cut there: the discounted sum of its N_BALANCED rewards, to three
    decimals or more."""
    if missing(answer, "the discounted return"):
        return False
    arr = as_numbers(answer, "the discounted return")
    if arr is None:
        return False
    a = float(arr) if arr.shape == () else None
    if a is not None and abs(a - 1 / (1 - GAMMA_CP)) < 1e-9:
        return verdict(False, "", "Not yet: 1/(1−γ) = 100 is the infinite sum; this episode "
                       f"is cut after {N_BALANCED} rewards: the sum stops at γ^{N_BALANCED - 1}.")
    if a is not None and abs(a - N_BALANCED) < 1e-9:
        return verdict(False, "", "Not yet: that is the undiscounted return; discount with γ.")
    return check_close(answer, nb06.discounted_return(N_BALANCED, GAMMA_CP), name="the "
                       "discounted return", rtol=1e-12, atol=0, decimals=3,
                       hint="A geometric series: 1 + gamma + ... + gamma^999.")
