r"""Notebook 06: what a network does on its own, greedy and frozen — no exploration, no
learning — with the tasks' own dynamics: the learned networks of a run
(:func:`greedy_rollouts`, :func:`rollout_trajectory`, :func:`greedy_summary`), a **fresh**
network before any learning (:func:`fresh_weights`, :func:`fresh_greedy_report`: on cart-pole
it pushes one way and does worse than chance) and the uniformly random policy it is measured
against (:func:`random_policy_steps`); the value the learned networks give the start
(:func:`start_value`).

van Seijen (2016), Sec. 6. :math:`\hat Q(s, a)` is the network of action :math:`a`
(:func:`q_values`, the reference layout of :class:`ftd_lib.approx.MLP`; the engine's weight
layout is described in :mod:`ftd_lib.course.nb06_nn_control`).
"""

from __future__ import annotations

import numpy as np

from .. import engine
from ..approx import MLP
from ..envs import tasks
from .nb06_nn_control import EVAL_SEED, SEED, start_states


def q_values(weights, task: str, states) -> np.ndarray:
    r""":math:`\hat Q(s, a)` of the learned networks ``weights`` ``(A, P)`` (reference layout)
    at raw states ``(N, d)``: ``(N, A)``."""
    t = tasks.task(task)
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2 or w.shape[0] != t.n_actions:
        raise ValueError(f"weights must have shape ({t.n_actions}, P), got {w.shape}")
    n_hidden = (w.shape[1] - 1) // (t.n_in + 2)
    net = MLP(t.n_in, n_hidden)
    if net.n_params != w.shape[1]:
        raise ValueError(f"{w.shape[1]} parameters do not make a {t.n_in}-H-1 network")
    x = t.obs(np.atleast_2d(np.asarray(states, dtype=float)))
    return np.stack([net.value(w[a], x) for a in range(t.n_actions)], axis=1)


def greedy_rollouts(weights, task: str, starts, max_steps: int | None = None) -> dict:
    r"""Run the learned networks greedily from every start state, without exploring and
    without learning: :math:`A_t = \arg\max_a \hat Q(S_t, a)` (ties to the lowest action,
    as the engine), stepped with the task's own dynamics.

    ``starts`` ``(N, d)`` raw states. Returns ``states`` ``(T_max + 1, N, d)`` (a row that
    ended stays at its last state), ``actions`` ``(T_max, N)`` (-1 after the end), ``steps``
    ``(N,)`` (steps played), ``terminal`` ``(N,)`` (reached the goal / the pole fell) and
    ``returns`` ``(N,)`` (undiscounted). The cap (default: the task's) ends the others.
    """
    t = tasks.task(task)
    cap = t.max_steps if max_steps is None else int(max_steps)
    s = np.atleast_2d(np.asarray(starts, dtype=float)).copy()
    N = len(s)
    done = np.zeros(N, dtype=bool)
    terminal = np.zeros(N, dtype=bool)
    steps = np.zeros(N, dtype=np.int64)
    states, actions = [s.copy()], []
    for _ in range(cap):
        if done.all():
            break
        a = np.argmax(q_values(weights, task, s), axis=1)
        s2, term = t.step_arrays(s, a)
        live = ~done
        s = np.where(live[:, None], s2, s)
        steps += live
        terminal |= live & term
        done |= live & term
        states.append(s.copy())
        actions.append(np.where(live, a, -1))
    return dict(states=np.array(states), actions=np.array(actions, dtype=np.int64).reshape(-1, N),
                steps=steps, terminal=terminal, returns=t.reward * steps.astype(float),
                max_steps=cap)


def rollout_trajectory(rollouts: dict, i: int = 0) -> dict:
    """Start ``i`` of :func:`greedy_rollouts` as one trajectory (``states`` ``(T + 1, d)``,
    ``actions`` ``(T,)``, ``end``), the format of :func:`last_episode`."""
    T = int(rollouts["steps"][i])
    end = "terminal" if rollouts["terminal"][i] else "truncated"
    return dict(states=rollouts["states"][: T + 1, i], actions=rollouts["actions"][:T, i],
                end=end)


def greedy_summary(rollouts: dict, task: str) -> dict:
    """How good a greedy policy is from its start states: mean steps, and how many starts
    reached the goal (mountain car) or balanced to the cap (cart-pole)."""
    steps = rollouts["steps"]
    if task == "mountain_car":
        ok = rollouts["terminal"]
    else:
        ok = ~rollouts["terminal"] & (steps >= rollouts["max_steps"])
    return dict(n=len(steps), mean_steps=float(steps.mean()), n_success=int(ok.sum()),
                min_steps=int(steps.min()), max_steps=int(steps.max()))


def fresh_weights(task: str, runs: int, seed: int = SEED) -> np.ndarray:
    """The networks every run starts from (run ids ``0 .. runs-1`` of experiment ``seed``),
    ``(runs, A, P)``, exactly as the engine initialises them."""
    t = tasks.task(task)
    return engine.initial_weights(seed, np.arange(int(runs)), t.n_in, n_nets=t.n_actions)


def fresh_greedy_report(task: str = "cartpole", runs: int = 20, n_starts: int = 20,
                        seed: int = SEED) -> dict:
    r"""What the greedy policy of a **fresh** network does, before any learning: for the first
    ``runs`` runs, their initial networks played greedily (:func:`greedy_rollouts`) from
    ``n_starts`` test starts. ``mean_steps`` over runs and starts (``median_steps``: the median
    over runs of a run's mean, the typical run); ``one_way_share``: the mean
    share of a run's actions that are its most frequent action (1.0: it always pushes the same
    way); ``runs_one_way``: runs whose every action was the same."""
    w = fresh_weights(task, runs, seed)
    starts = start_states(task, n_starts)
    steps, shares, one_way = [], [], 0
    for r in range(int(runs)):
        ro = greedy_rollouts(w[r], task, starts)
        acts = ro["actions"][ro["actions"] >= 0]
        share = float(np.bincount(acts).max() / acts.size)
        steps.append(float(ro["steps"].mean()))
        shares.append(share)
        one_way += share == 1.0
    return dict(task=task, runs=int(runs), n_starts=int(n_starts),
                mean_steps=float(np.mean(steps)), median_steps=float(np.median(steps)),
                per_run_steps=np.array(steps),
                one_way_share=float(np.mean(shares)), runs_one_way=int(one_way))


def random_policy_steps(task: str = "cartpole", n: int = 2000, seed: int = EVAL_SEED) -> dict:
    """Episode length of the uniformly random policy from ``n`` start states (the task's own
    start distribution and dynamics, its cap): ``mean_steps`` and its standard error."""
    from ..rng import run_generator

    t = tasks.task(task)
    s = start_states(task, n, seed)
    rng = run_generator(seed, 0, 7)
    done = np.zeros(len(s), dtype=bool)
    steps = np.zeros(len(s), dtype=np.int64)
    for _ in range(t.max_steps):
        if done.all():
            break
        a = rng.integers(0, t.n_actions, size=len(s))
        s2, term = t.step_arrays(s, a)
        live = ~done
        s = np.where(live[:, None], s2, s)
        steps += live
        done |= live & term
    return dict(task=task, n=int(n), mean_steps=float(steps.mean()),
                se=float(steps.std(ddof=1) / np.sqrt(len(steps))))


def start_value(run: dict, r: int | None = None) -> float:
    r"""The greedy value :math:`\max_a \hat Q(s_0, a)` of the learned networks at the task's
    rest state (all zeros), averaged over runs (or of run ``r``): what the learner expects
    from the start."""
    t = tasks.task(run["task"])
    s0 = np.zeros((1, len(t.state_names)))
    rows = range(run["final_weights"].shape[0]) if r is None else [int(r)]
    return float(np.mean([q_values(run["final_weights"][k], run["task"], s0).max()
                          for k in rows]))
