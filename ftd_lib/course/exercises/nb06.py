"""Self-checks for notebook 06 (control with one network per action). Each check computes the
right answer with the library (so the solution is never written out here or in the notebook)
and prints a verdict.
"""

from __future__ import annotations

from ...envs.tasks import task
from ...returns import k_bound
from .. import nb06_nn_control as nb06
from . import check_close, missing, verdict

#: Exercise 1: the start of the mountain car whose steps to the goal the student simulates
#: with "push in the direction of the velocity".
X0_HEURISTIC = -0.3

#: Exercise 2: forward Sarsa(lambda) on cart-pole.
GAMMA_CP = task("cartpole").gamma
LAM_K = 0.6
ETA = nb06.ETA

#: Exercise 3: epsilon-greedy as the engine does it.
EPSILON = nb06.EPSILON

#: Exercise 4: a cart-pole episode balanced for the whole cap, and the learner's gamma.
N_BALANCED = task("cartpole").max_steps


def check_heuristic_steps(answer) -> bool:
    """Exercise 1: steps to the goal from x = X0_HEURISTIC (v = 0), pushing in the direction
    of the velocity (right when at rest)."""
    if missing(answer):
        return False
    return check_close(answer, nb06.heuristic_steps(X0_HEURISTIC, 0.0), name="the number of "
                       "steps", rtol=0, atol=0.5,
                       hint="Loop mc.mountain_car_step(x, v, a) with a = 2 if v >= 0 else 0 and "
                       "count the steps until it returns terminal = True.")


def check_k(answer) -> bool:
    """Exercise 2: forward Sarsa(lambda)'s K on cart-pole (gamma = 0.99, lambda = 0.6,
    eta = 0.01)."""
    if missing(answer):
        return False
    return check_close(answer, k_bound(GAMMA_CP, LAM_K, ETA), name="K", rtol=0, atol=0.5,
                       hint="K = ceil(log(eta) / log(gamma * lambda)) (Sec. 5).")


def check_greedy_probability(mountain_car, cart_pole) -> bool:
    """Exercise 3: the probability that the greedy action is taken, with epsilon = 0.05, on
    mountain car (3 actions) and on cart-pole (2 actions)."""
    if missing(mountain_car) or missing(cart_pole):
        return False
    hint = ("With probability epsilon the engine draws an action uniformly from all actions "
            "-- the greedy one among them.")
    ok1 = check_close(mountain_car, nb06.greedy_probability(EPSILON, 3),
                      name="the mountain-car probability", rtol=0, atol=5e-4, hint=hint)
    ok2 = check_close(cart_pole, nb06.greedy_probability(EPSILON, 2),
                      name="the cart-pole probability", rtol=0, atol=5e-4, hint=hint)
    return ok1 and ok2


def check_discounted_return(answer) -> bool:
    """Exercise 4: the discounted return (gamma = 0.99) of a cart-pole episode balanced for
    N_BALANCED steps and cut there: the discounted sum of its N_BALANCED rewards."""
    if missing(answer):
        return False
    try:
        a = float(answer)
    except (TypeError, ValueError):
        a = None
    if a is not None and abs(a - 1 / (1 - GAMMA_CP)) < 1e-9:
        return verdict(False, "", "Not yet: 1/(1−γ) = 100 is the infinite sum; this episode "
                       f"is cut after {N_BALANCED} rewards: the sum stops at γ^{N_BALANCED - 1}.")
    if a is not None and abs(a - N_BALANCED) < 1e-9:
        return verdict(False, "", "Not yet: that is the undiscounted return; discount with γ.")
    return check_close(answer, nb06.discounted_return(N_BALANCED, GAMMA_CP), name="the "
                       "discounted return", rtol=1e-7, atol=0,
                       hint="A geometric series: 1 + gamma + ... + gamma^999.")
