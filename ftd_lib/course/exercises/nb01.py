"""Self-checks for notebook 01 (TD basics). Each check computes the right answer with the
library (so the solution is never written out here or in the notebook) and prints a verdict.
The given numbers of each exercise are the student's own (:func:`~.use_student`): ``given_*``
draws them, and the check recomputes the answer from the same draw.
"""

from __future__ import annotations

import numpy as np

from ...algorithms import td_update
from ...approx import Linear
from ...envs.random_walk import N_STATES, P_LEFT, true_values
from ..nb01_td_basics import discounted_return
from . import (
    as_numbers,
    check_close,
    is_right,
    missing,
    others_answer,
    refuse_library_answer,
    student_rng,
    verdict,
)

#: Without a student id: an episode of five steps, every reward 1, discounted with
#: gamma.
RETURN_EXERCISE = dict(rewards=[1.0, 1.0, 1.0, 1.0, 1.0], gamma=0.9)

#: Exercise ``bellman_row`` without a student id: a variant of the paper's walk that moves left with
#: probability 0.6 (with the paper's 0.7 the answer, v(1), would be printed in section 3)
BELLMAN_EXERCISE = dict(p_left=0.6)

#: Without a student id: one TD(0) update on the random walk (tabular values,
#: states 1..10).
TD0_EXERCISE = dict(s=4, reward=1.0, s_next=3, V_s=8.0, V_s_next=5.0, alpha=0.5, gamma=1.0)


#: ``nb01.bellman_row``'s probabilities of a step left with a student id: 0.52 .. 0.90 in
#: steps of 0.005, without 0.6 (no id's) and the paper's 0.7 (its v(1) is printed in section
#: 3): 75 walks, so at most one student in 75 shares one
P_LEFTS = tuple(k / 200 for k in range(104, 181) if k not in (120, 140))


def given_return() -> dict:
    """The episode for the current student: ``rewards`` (4 to 7 of them, whole
    numbers from −1 to 3) and ``gamma``; :data:`RETURN_EXERCISE` without an id."""
    rng = student_rng("nb01.discounted_return")
    if rng is None:
        return dict(RETURN_EXERCISE, rewards=list(RETURN_EXERCISE["rewards"]))
    n = int(rng.integers(4, 8))
    rewards = rng.integers(-1, 4, n).astype(float)
    rewards[0] = float(rng.integers(1, 4))  # R_1 counts fully: make it visible
    return dict(rewards=rewards.tolist(), gamma=float(rng.choice([0.8, 0.85, 0.9, 0.95])))


def given_bellman() -> dict:
    """The walk for the current student: ``p_left`` (the probability of a step left;
    from state 1 that step ends the episode) and ``v2``, the exact value of state 2 of that
    walk. Without an id, :data:`BELLMAN_EXERCISE`'s walk."""
    rng = student_rng("nb01.bellman_row")
    p = BELLMAN_EXERCISE["p_left"] if rng is None else float(rng.choice(P_LEFTS))
    return dict(p_left=p, v2=float(true_values(p_left=p)[1]))


def given_td0() -> dict:
    """The numbers for the current student: the states ``s`` → ``s_next``, the
    current estimates ``V_s`` and ``V_s_next``, ``reward``, ``alpha`` and ``gamma``."""
    rng = student_rng("nb01.td0_update")
    if rng is None:
        return dict(TD0_EXERCISE)
    s = int(rng.integers(2, 10))
    s_next = s - 1 if rng.random() < 0.7 else s + 1
    V_s, V_next = (float(v) for v in rng.integers(0, 13, 2))
    if V_s == 1.0 + V_next:  # a zero TD error teaches nothing
        V_s += 2.0
    return dict(s=s, reward=1.0, s_next=s_next, V_s=V_s, V_s_next=V_next,
                alpha=float(rng.choice([0.1, 0.2, 0.25, 0.3, 0.4, 0.5])),
                gamma=float(rng.choice([1.0, 0.9])))


def _return_of(ex) -> float:
    return discounted_return(ex["rewards"], ex["gamma"])


def check_return(answer) -> bool:
    """The discounted return G_0 of :func:`given_return`'s episode."""
    if missing(answer, "G_0"):
        return False
    if refuse_library_answer(("discounted_return(",)):
        return False
    ex = given_return()
    r, g = np.asarray(ex["rewards"]), ex["gamma"]
    n = len(r)
    expected = _return_of(ex)
    usual = [
        (g * expected, "the first reward is discounted too: R_1 counts fully, the powers of γ "
         "start at γ^0"),
        (float(r.sum()), "γ is ignored: that is the undiscounted sum"),
        (float(np.sum(g ** np.arange(n)[::-1] * r)), "the powers run backwards: R_1 gets γ^0, "
         f"R_{n} gets γ^{n - 1}"),
        (g ** (n - 1) * r[-1], "only the last reward's weight: add all the discounted rewards"),
        (discounted_return(r[:-1], g), f"{n - 1} terms: the episode has {n} rewards"),
    ]
    if np.all(r == r[0]):
        usual.append((r[0] / (1 - g), f"that is the infinite series R/(1−γ): the episode has {n} "
                      "rewards"))
        usual.append((discounted_return([r[0]] * (n + 1), g), f"{n + 1} terms: the powers run "
                      f"γ^0 .. γ^{n - 1}"))
    arr = as_numbers(answer, "G_0")
    if arr is None:
        return False
    a = float(arr) if arr.shape == () else None
    if a is not None and not is_right(a, expected, rtol=1e-4, atol=1e-6):  # right answer first
        if others := others_answer(a, expected, lambda: _return_of(given_return())):
            return verdict(False, "", "Not yet: " + others)
        for value, why in usual:
            if abs(a - value) < 1e-9 * max(1.0, abs(value)) and abs(value - expected) > 1e-12:
                return verdict(False, "", f"Not yet: {why}.")
    return check_close(answer, expected, name="G_0", rtol=1e-4, atol=1e-6,
                       hint="The reward R_{i} is weighted by gamma^(i-1): the first one by 1.")


def check_value_state1(answer) -> bool:
    """v(1) of :func:`given_bellman`'s walk from its v(2), one row of the Bellman
    equation: v(1) = 1 + p_left * 0 + (1 - p_left) * v(2)."""
    if missing(answer, "v(1)"):
        return False
    if refuse_library_answer(("v_true", "true_values(", "transition_matrix(", "solve(")):
        return False
    ex = given_bellman()
    expected = float(true_values(p_left=ex["p_left"])[0])
    arr = as_numbers(answer, "v(1)")
    if arr is None:
        return False
    if arr.shape == () and not is_right(arr, expected, rtol=1e-4, atol=1e-6):
        a, p = float(arr), ex["p_left"]
        if p != P_LEFT and abs(a - true_values()[0]) < 1e-6:
            return verdict(False, "", f"Not yet: that is v(1) of the paper's walk (left with "
                           f"probability {P_LEFT}); your walk moves left with probability "
                           f"{p:g}: use its v(2) = {ex['v2']:.6g}.")
        if others := others_answer(a, expected, lambda: float(true_values(
                p_left=given_bellman()["p_left"])[0])):
            return verdict(False, "", "Not yet: " + others)
        if abs(a - (1 + p * ex["v2"])) < 1e-6 and abs(p - 0.5) > 1e-9:
            return verdict(False, "", "Not yet: the probabilities are swapped: from state 1 a "
                           f"step left (probability {p:g}) ends the episode (value 0), a step "
                           f"right (probability {1 - p:g}) reaches state 2.")
        if abs(a - (1 - p) * ex["v2"]) < 1e-6:
            return verdict(False, "", "Not yet: the reward of the step is missing: every step "
                           "earns 1, whichever way the walk goes.")
    return check_close(answer, expected, name="v(1)", rtol=1e-4, atol=1e-6,
                       hint="From state 1: reward 1, then the end (value 0) or state 2.")


def check_td0_update(answer) -> bool:
    """The new value of state ``s`` after one TD(0) update, eq. (1), with
    :func:`given_td0`'s numbers."""
    ex = given_td0()
    if missing(answer, f"the new V({ex['s']})"):
        return False
    if refuse_library_answer(("td_update(", "td0(")):
        return False
    lin = Linear(N_STATES)
    w = np.zeros(N_STATES)
    w[ex["s"] - 1], w[ex["s_next"] - 1] = ex["V_s"], ex["V_s_next"]
    x = np.eye(N_STATES)
    target = ex["reward"] + ex["gamma"] * lin.value(w, x[ex["s_next"] - 1])
    expected = td_update(lin, w, x[ex["s"] - 1], target, ex["alpha"])[ex["s"] - 1]
    arr = as_numbers(answer, f"the new V({ex['s']})")
    if arr is None:
        return False
    if arr.shape == () and not is_right(arr, expected, rtol=1e-6, atol=1e-9):
        a = float(arr)

        def update(d):
            return d["V_s"] + d["alpha"] * (d["reward"] + d["gamma"] * d["V_s_next"] - d["V_s"])

        if others := others_answer(a, expected, lambda: update(given_td0())):
            return verdict(False, "", "Not yet: " + others)
        if abs(a - target) < 1e-9 and abs(target - expected) > 1e-9:
            return verdict(False, "", "Not yet: that is the target R + γV(S'); the update moves "
                           "V(S) only a step α toward it.")
    return check_close(answer, expected, name=f"the new V({ex['s']})", rtol=1e-6,
                       atol=1e-9, hint="V(S) + alpha * (R + gamma V(S') - V(S)).")
