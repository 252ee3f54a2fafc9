"""Self-checks for notebook 06 (control with one network per action). Each check computes the
right answer with the library (so the solution is never written out here or in the notebook)
and prints a verdict.
"""

from __future__ import annotations

from ...envs.tasks import task
from ...returns import k_bound
from .. import nb06_nn_control as nb06
from . import Solution, check_close, missing

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
    return check_close(answer, nb06.discounted_return(N_BALANCED, GAMMA_CP), name="the "
                       "discounted return", rtol=1e-4, atol=1e-3,
                       hint="A geometric series: 1 + gamma + ... + gamma^999.")


SETUP = """
from ftd_lib.course.exercises import nb06
from ftd_lib.envs import mountain_car as mc
"""

SOLUTIONS = (
    Solution(
        key="nb06.ex1", title="Exercise 1, simulate a policy",
        hint="`a = 2 if v >= 0 else 0`, then `x, v, terminal = mc.mountain_car_step(x, v, a)`; "
             "count the steps until `terminal`.",
        worked=r"""
            Start at $x = -0.3$, $v = 0$: at rest the rule pushes right, the car climbs a little,
            rolls back, and the rule follows the velocity, so every swing adds energy until the
            car passes $x = 0.5$. Count the calls to `mountain_car_step`.
        """,
        code="""
            x, v, steps, terminal = -0.3, 0.0, 0, False
            while not terminal:
                x, v, terminal = mc.mountain_car_step(x, v, 2 if v >= 0 else 0)
                steps += 1
            answer = steps
            nb06.check_heuristic_steps(answer)
        """,
        setup=SETUP,
        checks="steps to the goal from x = −0.3 pushing with the velocity (right at rest).",
        wrong=("pushing left at rest (v > 0 instead of v ≥ 0): another path, another count",),
    ),
    Solution(
        key="nb06.ex2", title="Exercise 2, forward Sarsa(λ)'s delay on cart-pole",
        hint=r"$K = \lceil \log\eta / \log(\gamma\lambda) \rceil$ with $\gamma\lambda = 0.99 "
             r"\cdot 0.6$.",
        worked=r"""
            $\gamma\lambda = 0.594$, $\log 0.01/\log 0.594 = 8.84$, so $K = 9$: forward
            Sarsa(0.6) updates each state–action pair 9 steps after it was visited (and the
            last 9 at the end of the episode).
        """,
        code="""
            import math
            answer = math.ceil(math.log(0.01) / math.log(0.99 * 0.6))
            nb06.check_k(answer)
        """,
        setup=SETUP,
        checks=r"K on cart-pole: γ = 0.99 enters with λ.",
        wrong=("10 (λ alone, log 0.01 / log 0.6 = 9.02 → 10): γ forgotten",),
    ),
    Solution(
        key="nb06.ex3", title="Exercise 3, how greedy is ε-greedy?",
        hint="The greedy action is taken with probability $1-\\varepsilon$ plus its share of "
             "the random draws, $\\varepsilon/|\\mathcal A|$.",
        worked=r"""
            $P(\text{greedy}) = 1 - \varepsilon + \varepsilon/|\mathcal A|$: mountain car
            $0.95 + 0.05/3 = 0.9667$, cart-pole $0.95 + 0.05/2 = 0.975$.
        """,
        code="""
            eps = 0.05
            p_mountain_car = 1 - eps + eps / 3
            p_cart_pole = 1 - eps + eps / 2
            nb06.check_greedy_probability(p_mountain_car, p_cart_pole)
        """,
        setup=SETUP,
        checks="1 − ε + ε/|A|: the random draw can pick the greedy action too.",
        wrong=("0.95 for both: the greedy action's share of the random draws forgotten",),
    ),
    Solution(
        key="nb06.ex4", title="Exercise 4, what the learner aims at on cart-pole",
        hint=r"$\sum_{k=0}^{999} \gamma^k = (1-\gamma^{1000})/(1-\gamma)$.",
        worked=r"""
            $\sum_{k=0}^{999} 0.99^k = (1 - 0.99^{1000})/0.01 = 99.996$: the discounted
            return of a perfect episode is just under 100, the bound $1/(1-\gamma)$. Beyond the
            cut the learner bootstraps (the cap is a time limit), so a balancing agent's values
            approach 100 from every state, whatever the time left.
        """,
        code="""
            gamma = 0.99
            answer = (1 - gamma ** 1000) / (1 - gamma)
            nb06.check_discounted_return(answer)
        """,
        setup=SETUP,
        checks=r"the discounted return of 1000 rewards 1 at γ = 0.99.",
        wrong=("1000: the undiscounted return", "100: the infinite sum (close, but not it)"),
    ),
)
