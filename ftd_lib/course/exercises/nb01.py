"""Self-checks for notebook 01 (TD basics). Each check computes the right answer with the
library (so the solution is never written out here or in the notebook) and prints a verdict.
"""

from __future__ import annotations

import numpy as np

from ...algorithms import td_update
from ...approx import Linear
from ...envs.random_walk import N_STATES, true_values
from ..nb01_td_basics import discounted_return
from . import as_numbers, check_close, missing, verdict

#: Exercise 1: an episode of five steps, every reward 1, discounted with gamma.
RETURN_EXERCISE = dict(rewards=[1.0, 1.0, 1.0, 1.0, 1.0], gamma=0.9)

#: Exercise 3: one TD(0) update on the random walk (tabular values, states 1..10).
TD0_EXERCISE = dict(s=4, reward=1.0, s_next=3, V_s=8.0, V_s_next=5.0, alpha=0.5, gamma=1.0)


def check_return(answer) -> bool:
    """Exercise 1: the discounted return G_0 of ``RETURN_EXERCISE``."""
    if missing(answer, "G_0"):
        return False
    ex = RETURN_EXERCISE
    g, n = ex["gamma"], len(ex["rewards"])
    usual = (
        (g * discounted_return(ex["rewards"], g), "the first reward is discounted too: R_1 "
         "counts fully, the powers of γ start at γ^0"),
        (float(n), "γ is ignored: that is the undiscounted sum"),
        (1 / (1 - g), "that is the infinite series 1/(1−γ): the episode has five rewards"),
        (discounted_return([1.0] * (n + 1), g), "six terms: the powers run γ^0 .. γ^4"),
        (discounted_return([1.0] * (n - 1), g), "four terms: the powers run γ^0 .. γ^4"),
        (g ** (n - 1), "only the last reward's weight: add all five discounted rewards"),
    )
    arr = as_numbers(answer, "G_0")
    if arr is None:
        return False
    a = float(arr) if arr.shape == () else None
    for value, why in usual:
        if a is not None and abs(a - value) < 1e-9 * max(1.0, abs(value)):
            return verdict(False, "", f"Not yet: {why}.")
    return check_close(answer, discounted_return(ex["rewards"], ex["gamma"]), name="G_0",
                       rtol=1e-4, atol=1e-6,
                       hint="The reward R_{i} is weighted by gamma^(i-1): the first one by 1.")


def check_value_state1(answer) -> bool:
    """Exercise 2: v(1) from the Bellman equation v(1) = 1 + 0.7 * 0 + 0.3 * v(2)."""
    if missing(answer, "v(1)"):
        return False
    return check_close(answer, true_values()[0], name="v(1)", rtol=1e-4, atol=1e-6,
                       hint="From state 1: reward 1, then 70 % terminal (value 0), 30 % state 2.")


def check_td0_update(answer) -> bool:
    """Exercise 3: the new value of state ``s`` after one TD(0) update, eq. (1)."""
    if missing(answer, f"the new V({TD0_EXERCISE['s']})"):
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
