"""How long notebook 06's helpers take with other settings (the times quoted in its "Explore
further" cell). Run from the repository root: ``python scripts/time_nb06_helpers.py``."""

import time

from ftd_lib.course import live as figures
from ftd_lib.course.nb06_greedy import fresh_greedy_report
from ftd_lib.course.nb06_nn_control import train


def timed(what, f, *args, **kwargs):
    t = time.perf_counter()
    f(*args, **kwargs)
    print(f"{what:62s} {time.perf_counter() - t:6.2f} s")


if __name__ == "__main__":
    timed("first call (loads or compiles the control kernel)", train, "cartpole",
          "sarsa_lambda", alpha=0.03, lam=0.0, runs=1, episodes=2, record=False)
    timed("train cart-pole, forward Sarsa(0.4), 8 runs x 600 episodes", train, "cartpole",
          "forward_sarsa_lambda", alpha=0.0075, lam=0.4, runs=8, episodes=600, record=False)
    timed("train mountain car, Sarsa(0.9), alpha 5.9e-5, 8 runs x 50 episodes", train,
          "mountain_car", "sarsa_lambda", alpha=5.85937e-05, lam=0.9, runs=8, episodes=50,
          record=False)
    timed("train cart-pole, 2 runs x 120 episodes, record=False", train, "cartpole",
          "forward_sarsa_lambda", alpha=0.03, lam=0.6, runs=2, episodes=120, record=False)
    timed("train cart-pole, 2 runs x 120 episodes, record=True", train, "cartpole",
          "forward_sarsa_lambda", alpha=0.03, lam=0.6, runs=2, episodes=120, record=True)
    timed("figures.compare('fig4-right'), default live grid", figures.compare, "fig4-right",
          plot=False)
    timed("figures.compare('fig4-right'), 2 lambdas, 8 runs x 600 episodes", figures.compare,
          "fig4-right", plot=False, lams=(0.0, 0.4), alphas=(0.0075,), runs=8, episodes=600)
    timed("fresh_greedy_report('cartpole', runs=20, n_starts=20)", fresh_greedy_report,
          "cartpole", runs=20, n_starts=20)
