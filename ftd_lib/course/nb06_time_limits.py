"""Notebook 06, section 5: an episode cap as a time limit. The experiment that trains one
method with the cap bootstrapped over (Pardo et al. 2018; the library's default,
``truncation="bootstrap"``) and with the cap as a terminal state, then plays the learned
networks greedily without the cap; and its reading, every number from the runs.

van Seijen (2016), Sec. 6, gives cart-pole a cap of 1000 steps and says nothing of how a learner
treats it; the course's choice is in :func:`ftd_lib.course.nb06_nn_control.choices`.
"""

from __future__ import annotations

import numpy as np

from ..envs.tasks import TASKS
from .nb06_greedy import greedy_rollouts, start_value
from .nb06_nn_control import start_states, train


def time_limit_study(task: str = "cartpole", method: str = "forward_sarsa_lambda", *,
                     n_starts: int = 10, greedy_steps: int = 1000, **settings) -> dict:
    """Section 5's cap experiment: ``method`` trained once with the cap
    (``settings["max_steps"]``) as a time limit (``truncation="bootstrap"``) and once as a
    terminal state, the same runs; then each run's final networks played greedily from
    ``n_starts`` test starts with a cap of ``greedy_steps``. Per way ``how``: ``last50`` (mean
    return over the last 50 episodes), ``start_value`` (max_a Q̂ at the rest state, mean over
    runs), ``greedy`` (per run, the mean greedy episode length, rounded); and ``bound``, the
    discounted return of an episode that lasts to the cap."""
    if "max_steps" not in settings:
        raise ValueError("max_steps must be given: the cap the experiment is about")
    starts = start_states(task, n_starts)
    gamma = TASKS[task].gamma
    out = {"bound": (1 - gamma ** settings["max_steps"]) / (1 - gamma)}
    for how in ("bootstrap", "terminal"):
        run = train(task, method, truncation=how, record=False, **settings)
        greedy = [greedy_rollouts(run["final_weights"][r], task, starts,
                                  max_steps=greedy_steps)["steps"].mean()
                  for r in range(run["returns"].shape[0])]
        out[how] = dict(last50=float(run["returns"][:, -50:].mean()),
                        start_value=float(start_value(run)),
                        greedy=np.round(greedy).astype(int))
    return out


def format_time_limit(study: dict) -> str:
    """:func:`time_limit_study` in four lines, a table narrow enough for a slide (at most 70
    characters a line): per learner its mean return over the last 50 episodes, max_a Q̂ at the
    rest state and the greedy steps of each run without the cap."""
    lines = [f"the most a 'terminal at the cap' learner can expect: {study['bound']:.1f}",
             "           last 50 returns  max_a Q(rest)  greedy steps, no cap"]
    for how in ("bootstrap", "terminal"):
        r = study[how]
        lines.append(f"{how:9s}  {r['last50']:15.1f}  {r['start_value']:13.1f}  "
                     f"{r['greedy'].tolist()}")
    return "\n".join(lines)


def cap_reading(greedy: dict, bound: float, brief: bool = False, cap: int = 30) -> str:
    """The reading of the time-limit experiment, every number from ``greedy``: ``{"bootstrap":
    [steps per run], "terminal": [...]}`` of the frozen greedy networks without the cap
    (``cap``, the steps they trained on; ``brief``: one sentence for the slide)."""
    b, t = (np.asarray(greedy[k]) for k in ("bootstrap", "terminal"))
    if brief:
        return (f"**Reading.** Beyond the {cap} steps trained on: {int(np.sum(b > cap))} of "
                f"{len(b)} bootstrapped learners, {int(np.sum(t > cap))} of {len(t)} terminal "
                f"ones (only bootstrapped values may pass {bound:.1f}).")
    return (f"Frozen and uncapped, the bootstrapped learners balance {b.tolist()} steps "
            f"({int(np.sum(b > cap))} of {len(b)} beyond the {cap} steps they trained on), the "
            f"terminal ones {t.tolist()} ({int(np.sum(t > cap))} of {len(t)}). With "
            f"bootstrapping the values may grow past the bound {bound:.1f} of a {cap}-step "
            "episode; treating the cap as the end keeps them under it, and near the cap the "
            "targets say \"the pole falls now\" from states that look like any other. "
            f"({len(b)} runs: a tendency, not a measurement.)")
