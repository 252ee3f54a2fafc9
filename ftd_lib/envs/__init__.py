"""Environments: random walk (Fig. 1), one-state example (Fig. 2), mountain car and cart-pole
(Figs. 3-4, in their own modules, vectorised over a batch of runs); beyond the paper acrobot
and Puddle World (stochastic). The control tasks' registry and contract: :mod:`.tasks`;
``check_task``: :mod:`.task_check`."""

from .one_state import (
    beta_lambda_return,
    beta_td,
    error_first_episodes,
    one_state_episode,
    one_state_episodes,
)
from .random_walk import random_walk_episodes, rms_error, true_values

__all__ = [
    "beta_lambda_return",
    "beta_td",
    "error_first_episodes",
    "one_state_episode",
    "one_state_episodes",
    "random_walk_episodes",
    "rms_error",
    "true_values",
]
