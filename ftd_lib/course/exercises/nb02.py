"""Self-checks for notebook 02 (the lambda-return). Each check computes the right answer with
the library (so the solution is never written out here or in the notebook) and prints a
verdict.
"""

from __future__ import annotations

from ...returns import interim_lambda_return, n_step_return
from ..nb02_lambda_return import online_update_count
from . import Solution, check_close, missing

#: A three-step episode for exercises 1 and 2. ``values[j]`` is the estimate of S_j used for
#: bootstrapping (``values[0]`` is never used by a return from t = 0; ``values[3] = 0`` is
#: the terminal state).
EPISODE = dict(rewards=[1.0, 0.0, 2.0], values=[0.7, 0.5, 1.0, 0.0], gamma=0.9)

#: Exercise 1 asks for G_0^{(N_STEP)}, exercise 2 for G_0^{lambda|HORIZON} with LAM.
N_STEP = 2
LAM = 0.5
HORIZON = 3

#: Exercise 3: the episode length.
T_ONLINE = 20


def check_n_step_return(answer) -> bool:
    """Exercise 1: G_0^{(2)} of ``EPISODE``."""
    if missing(answer):
        return False
    e = EPISODE
    return check_close(answer, n_step_return(e["rewards"], e["values"], 0, N_STEP, e["gamma"]),
                       name=f"G_0^({N_STEP})", rtol=1e-4, atol=1e-6,
                       hint="n discounted rewards, then gamma^n times the value of S_n.")


def check_interim_lambda_return(answer) -> bool:
    """Exercise 2: G_0^{lambda|3} of ``EPISODE`` with lambda = 0.5 (eq. 2)."""
    if missing(answer):
        return False
    e = EPISODE
    expected = interim_lambda_return(e["rewards"], e["values"], 0, HORIZON, e["gamma"], LAM)
    return check_close(answer, expected, name=f"G_0^(lambda|{HORIZON})", rtol=1e-4, atol=1e-6,
                       hint="Weights (1-lam), (1-lam) lam and lam^2 on G^(1), G^(2), G^(3).")


def check_online_update_count(answer) -> bool:
    """Exercise 3: updates (eq. 3) of the online lambda-return algorithm in a T-step episode."""
    if missing(answer):
        return False
    return check_close(answer, online_update_count(T_ONLINE), name="the number of updates",
                       rtol=0, atol=0.5, hint="At time t the algorithm replays t updates.")


SETUP = """
from ftd_lib.course.exercises import nb02
"""

SOLUTIONS = (
    Solution(
        key="nb02.ex1", title="Exercise 1, an n-step return",
        hint=r"$G_0^{(2)} = R_1 + \gamma R_2 + \gamma^2 \hat V_2$: two rewards, then the value of "
             r"the state reached after two steps, $S_2$ (`values[2]`).",
        worked=r"""
            $G_0^{(2)} = 1 + 0.9 \cdot 0 + 0.9^2 \cdot 1.0 = 1.81.$ The value of $S_1$ is not
            used: a 2-step return bootstraps only at its end.
        """,
        code="""
            e = nb02.EPISODE
            R, V, g = e["rewards"], e["values"], e["gamma"]
            answer = R[0] + g * R[1] + g**2 * V[2]
            nb02.check_n_step_return(answer)
        """,
        setup=SETUP,
        checks=r"$G_0^{(2)}$: two discounted rewards, then $\gamma^2$ times the value of $S_2$.",
        wrong=("1.45: the one-step return (bootstraps from S_1)",
               "3.0 (1 + 0 + 2): the rewards alone, Monte Carlo"),
    ),
    Solution(
        key="nb02.ex2", title="Exercise 2, an interim λ-return",
        hint=r"With $h - t = 3$, eq. (2) has weights $(1-\lambda)$, $(1-\lambda)\lambda$ on "
             r"$G_0^{(1)}, G_0^{(2)}$ and $\lambda^2$ on the longest, $G_0^{(3)}$. They sum to 1.",
        worked=r"""
            $G_0^{(1)} = 1 + 0.9 \cdot 0.5 = 1.45$, $G_0^{(2)} = 1.81$ (exercise 1),
            $G_0^{(3)} = 1 + 0 + 0.81 \cdot 2 + 0.729 \cdot 0 = 2.62$ ($S_3$ is terminal).
            With $\lambda = 0.5$:
            $G_0^{\lambda|3} = 0.5 \cdot 1.45 + 0.25 \cdot 1.81 + 0.25 \cdot 2.62 = 1.8325.$
            The last weight is $\lambda^{h-t-1} = 0.25$, not $(1-\lambda)\lambda^2$: the
            interim λ-return gives all the remaining weight to the longest return it has.
        """,
        code="""
            e = nb02.EPISODE
            R, V, g, lam = e["rewards"], e["values"], e["gamma"], nb02.LAM
            G1 = R[0] + g * V[1]
            G2 = R[0] + g * R[1] + g**2 * V[2]
            G3 = R[0] + g * R[1] + g**2 * R[2] + g**3 * V[3]
            answer = (1 - lam) * G1 + (1 - lam) * lam * G2 + lam**2 * G3
            nb02.check_interim_lambda_return(answer)
        """,
        setup=SETUP,
        checks=r"$G_0^{\lambda|3}$ by eq. (2): the weights $(1-\lambda)\lambda^{n-1}$ and the "
               r"remaining weight $\lambda^{h-t-1}$ on the longest return.",
        wrong=("1.505: weight (1−λ)λ² on G^(3) (the infinite λ-return's weights, which do not "
               "sum to 1 here)", "1.96: the three returns averaged with equal weights"),
    ),
    Solution(
        key="nb02.ex3", title="Exercise 3, the cost of the online algorithm",
        hint="At time $t$ the online algorithm redoes $t$ updates (one per state seen so far). "
             "Add them up for $t = 1, \\dots, 20$.",
        worked=r"""
            $\sum_{t=1}^{T} t = T(T+1)/2 = 20 \cdot 21 / 2 = 210$ updates, against 20 for
            TD(0) or TD(λ): the cost per step grows with $t$, so the total grows like $T^2$.
        """,
        code="""
            T = nb02.T_ONLINE
            answer = T * (T + 1) // 2
            nb02.check_online_update_count(answer)
        """,
        setup=SETUP,
        checks="$1 + 2 + \\dots + T = T(T+1)/2$ updates in an episode of $T$ steps.",
        wrong=("20: one update a step, as TD(λ)", "400 (= T²): a full replay of T at every step"),
    ),
)
