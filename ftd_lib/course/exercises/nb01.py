"""Self-checks for notebook 01 (TD basics). Each check computes the right answer with the
library (so the solution is never written out here or in the notebook) and prints a verdict.
"""

from __future__ import annotations

import numpy as np

from ...algorithms import td_update
from ...approx import Linear
from ...envs.random_walk import N_STATES, true_values
from ..nb01_td_basics import discounted_return
from . import Solution, check_close, missing

#: Exercise 1: an episode of five steps, every reward 1, discounted with gamma.
RETURN_EXERCISE = dict(rewards=[1.0, 1.0, 1.0, 1.0, 1.0], gamma=0.9)

#: Exercise 3: one TD(0) update on the random walk (tabular values, states 1..10).
TD0_EXERCISE = dict(s=4, reward=1.0, s_next=3, V_s=8.0, V_s_next=5.0, alpha=0.5, gamma=1.0)


def check_return(answer) -> bool:
    """Exercise 1: the discounted return G_0 of ``RETURN_EXERCISE``."""
    if missing(answer):
        return False
    ex = RETURN_EXERCISE
    return check_close(answer, discounted_return(ex["rewards"], ex["gamma"]), name="G_0",
                       rtol=1e-4, atol=1e-6,
                       hint="The reward R_{i} is weighted by gamma^(i-1): the first one by 1.")


def check_value_state1(answer) -> bool:
    """Exercise 2: v(1) from the Bellman equation v(1) = 1 + 0.7 * 0 + 0.3 * v(2)."""
    if missing(answer):
        return False
    return check_close(answer, true_values()[0], name="v(1)", rtol=1e-4, atol=1e-6,
                       hint="From state 1: reward 1, then 70 % terminal (value 0), 30 % state 2.")


def check_td0_update(answer) -> bool:
    """Exercise 3: the new value of state ``s`` after one TD(0) update, eq. (1)."""
    if missing(answer):
        return False
    ex = TD0_EXERCISE
    lin = Linear(N_STATES)
    w = np.zeros(N_STATES)
    w[ex["s"] - 1], w[ex["s_next"] - 1] = ex["V_s"], ex["V_s_next"]
    x = np.eye(N_STATES)
    target = ex["reward"] + ex["gamma"] * lin.value(w, x[ex["s_next"] - 1])
    w_new = td_update(lin, w, x[ex["s"] - 1], target, ex["alpha"])
    return check_close(answer, w_new[ex["s"] - 1], name=f"the new V({ex['s']})", rtol=1e-6,
                       atol=1e-9, hint="V(S) + alpha * (R + gamma V(S') - V(S)).")


SETUP = """
import numpy as np
from ftd_lib.course.exercises import nb01
from ftd_lib.envs import random_walk as rw
v_true = rw.true_values()
"""

SOLUTIONS = (
    Solution(
        key="nb01.ex1", title="Exercise 1, a discounted return",
        hint="Write out $G_0 = R_1 + \\gamma R_2 + \\gamma^2 R_3 + \\gamma^3 R_4 + \\gamma^4 R_5$: "
             "the first reward is not discounted. Five terms of a geometric series.",
        worked="""
            All five rewards are 1, so
            $G_0 = 1 + 0.9 + 0.9^2 + 0.9^3 + 0.9^4 = \\frac{1 - 0.9^5}{1 - 0.9} = 4.0951.$
            (A common slip: starting the powers at $\\gamma^1$, which gives $0.9 \\times 4.0951$.)
        """,
        code="""
            answer = sum(0.9 ** i for i in range(5))   # = (1 - 0.9**5) / (1 - 0.9)
            nb01.check_return(answer)
        """,
        setup=SETUP,
        checks="$G_0$ of five rewards 1 with $\\gamma = 0.9$: the discount starts at $\\gamma^0$.",
        wrong=("3.6856 (= 0.9 × 4.0951): the first reward discounted too",
               "5: γ ignored", "10 (= 1/(1−γ)): the infinite series"),
    ),
    Solution(
        key="nb01.ex2", title="Exercise 2, one row of the Bellman equation",
        hint="From state 1 the walk earns reward 1, then ends (probability 0.7, value 0) or "
             "moves to state 2 (probability 0.3, value $v(2)$).",
        worked="""
            The Bellman equation for state 1 alone:
            $v(1) = 1 + \\gamma\\,(0.7 \\cdot 0 + 0.3\\, v(2))$ with $\\gamma = 1$, so
            $v(1) = 1 + 0.3\\, v(2)$. With $v(2)$ = `v_true[1]` this is the first row of
            $(I - P)\\,v = r$, and it gives exactly `v_true[0]`.
        """,
        code="""
            answer = 1 + 0.7 * 0.0 + 0.3 * v_true[1]
            nb01.check_value_state1(answer)
        """,
        setup=SETUP,
        checks="$v(1) = 1 + 0.3\\,v(2)$: one row of $(I-P)v = r$, terminal value 0.",
        wrong=("0.3·v(2) alone: the reward of the step forgotten",
               "1 + 0.7·v(2): the two probabilities swapped"),
    ),
    Solution(
        key="nb01.ex3", title="Exercise 3, one TD(0) update by hand",
        hint="Eq. (1) with a one-hot feature: "
             "$V(4) \\leftarrow V(4) + \\alpha\\,(R + \\gamma V(3) - V(4))$.",
        worked="""
            The TD(0) target is $U = R + \\gamma V(3) = 1 + 5 = 6$, the error
            $U - V(4) = 6 - 8 = -2$, so $V(4) \\leftarrow 8 + 0.5 \\cdot (-2) = 7$. Only state 4
            changes: the gradient of a tabular value is the one-hot vector of the state left.
        """,
        code="""
            V4, V3, R, alpha, gamma = 8.0, 5.0, 1.0, 0.5, 1.0
            answer = V4 + alpha * (R + gamma * V3 - V4)
            nb01.check_td0_update(answer)
        """,
        setup=SETUP,
        checks="one TD(0) update: target $R + \\gamma V(S')$, step α times the error.",
        wrong=("6: the target itself (α = 1)", "9: the sign of the error flipped"),
    ),
)
