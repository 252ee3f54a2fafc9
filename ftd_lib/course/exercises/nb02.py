"""Self-checks for notebook 02 (the lambda-return). Each check computes the right answer with
the library (so the solution is never written out here or in the notebook) and prints a
verdict.
"""

from __future__ import annotations

from ...returns import interim_lambda_return, n_step_return
from ..nb02_lambda_return import online_update_count
from . import check_close, missing

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
