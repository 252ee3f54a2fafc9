r"""Notebook 01 (TD basics): returns, true values, TD(0) on the 10-state random walk.

van Seijen (2016), Sec. 3. The task is the 10-state random walk of Sec. 4
(:mod:`ftd_lib.envs.random_walk`): tabular features, every reward 1, :math:`\gamma = 1`, start
in the right-most state. TD(0) itself, eq. (1) with the one-step target, is
:func:`ftd_lib.algorithms.td0`; here is the tabular shortcut the notebook runs many times
(:func:`td0_tabular`, tested equal to it), and the pictures.

Every function that draws random numbers takes a ``seed`` and builds its own generators from
it (``np.random.default_rng(seed)`` for one run, :func:`ftd_lib.rng.run_generator` per run for
many runs), so the same call always gives the same numbers.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np

from ..envs.random_walk import N_STATES, random_walk_states, rms_error, true_values
from ..rng import run_generator
from ..style import legend_off_data, new_axes, sequential_colours
from ..validate import check_alpha, check_unit


def discounted_return(rewards, gamma: float) -> float:
    r"""The return :math:`G_0 = \sum_{i=1}^{T} \gamma^{i-1} R_i` of a whole episode (Sec. 3)."""
    gamma = check_unit("gamma", gamma)
    return float(sum(gamma**i * float(r) for i, r in enumerate(rewards)))


def monte_carlo_values(n_episodes: int, seed: int, n_states: int = N_STATES) -> np.ndarray:
    r"""Every-visit Monte Carlo estimate of :math:`v_\pi(s) = \mathbb{E}\{G_t | S_t = s\}`.

    Every visit to a state at time t of an episode of length T contributes its return
    :math:`G_t = T - t` (all rewards are 1, :math:`\gamma = 1`); the estimate is the average
    per state (``nan`` for a state never visited).
    """
    rng = np.random.default_rng(seed)
    total = np.zeros(n_states)
    count = np.zeros(n_states)
    for _ in range(int(n_episodes)):
        s = random_walk_states(rng, n_states)
        T = len(s) - 1
        for t in range(T):
            total[s[t] - 1] += T - t
            count[s[t] - 1] += 1
    with np.errstate(invalid="ignore"):
        return total / count


def td0_tabular(state_episodes, alpha: float, gamma: float = 1.0,
                n_states: int = N_STATES, reward: float = 1.0) -> np.ndarray:
    r"""Tabular TD(0) on random-walk state sequences, fast (plain floats, no feature vectors).

    :math:`V(S_t) \leftarrow V(S_t) + \alpha(R_{t+1} + \gamma V(S_{t+1}) - V(S_t))` with
    every reward equal to ``reward`` and :math:`V(0) = 0` (terminal). The same numbers as
    :func:`ftd_lib.algorithms.td0` with one-hot features and zero initial weights (tested).
    Returns the values of states ``1..n`` before the first episode and after each episode: shape
    ``(n_episodes + 1, n_states)``.
    """
    alpha = check_alpha(alpha)
    v = [0.0] * (n_states + 1)  # v[0] is the terminal state and stays 0
    out = [v[1:]]
    for states in state_episodes:
        s = [int(i) for i in states]
        for a, b in zip(s[:-1], s[1:], strict=True):
            v[a] += alpha * (reward + gamma * v[b] - v[a])
        out.append(v[1:])
    return np.array(out)


def td0_snapshots(alpha: float, seed: int, after=(1, 10, 100)) -> dict[int, np.ndarray]:
    """Tabular TD(0) values after the given numbers of episodes (one seeded run)."""
    rng = np.random.default_rng(seed)
    states = [random_walk_states(rng) for _ in range(max(after))]
    v = td0_tabular(states, alpha)
    return {int(k): v[k] for k in after}


def td0_alpha_comparison(alphas, n_runs: int = 100, n_episodes: int = 100,
                         seed: int = 1) -> np.ndarray:
    r"""RMS error of tabular TD(0) after every episode, averaged over runs, for each α.

    Run ``i`` draws its episodes from ``run_generator(seed, i)``; every α sees the same
    episodes (common random numbers), so differences between the curves come from α alone.
    Returns shape ``(len(alphas), n_episodes + 1)``; column 0 is the initial error (V = 0).
    """
    alphas = [check_alpha(a) for a in alphas]
    v_true = true_values()
    total = np.zeros((len(alphas), n_episodes + 1))
    for i in range(int(n_runs)):
        rng = run_generator(seed, i)
        states = [random_walk_states(rng) for _ in range(int(n_episodes))]
        for j, a in enumerate(alphas):
            total[j] += rms_error(td0_tabular(states, a), v_true)
    return total / int(n_runs)


def plot_values(estimates: dict, ax=None, title: str = "Random walk: state values", figsize=None):
    """True values (black) and any number of labelled estimates, against the state 1..10.
    ``figsize``: the figure's size in inches when the function makes the figure (a
    slide wants it wide and short)."""
    if ax is None:
        _, ax = new_axes(title, "state s", "value  (expected steps\nto termination)",
                         figsize=figsize)
    s = np.arange(1, N_STATES + 1)
    ax.plot(s, true_values(), "k-o", lw=2.5, label=r"true $v_\pi(s)$")
    cmap = sequential_colours(len(estimates))
    for c, (label, v) in zip(cmap, estimates.items(), strict=True):
        ax.plot(s, v, "o--", color=c, label=label, lw=1.8, ms=5)
    ax.set_xticks(s)
    ax.legend(loc="upper left")
    legend_off_data(ax.figure, [ax])
    return ax


def plot_rms_vs_episodes(curves: dict, ax=None, title: str = "Tabular TD(0) on the random walk",
                         ylabel: str = "RMS error over states", figsize=None):
    """RMS error against the episode number, one line per label (e.g. per α).
    ``figsize``: the figure's size in inches when the function makes the figure (a
    slide wants it wide and short)."""
    if ax is None:
        _, ax = new_axes(title, "episodes", ylabel, figsize=figsize)
    for c, (label, y) in zip(sequential_colours(len(curves)), curves.items(), strict=True):
        ax.plot(np.arange(len(y)), y, color=c, label=label)
    ax.set_ylim(bottom=0)
    ax.legend()
    legend_off_data(ax.figure, [ax])
    return ax


def source_without_docstring(func) -> str:
    """The source of ``func`` (a function), its docstring left out and its comments kept: the
    code alone, short enough for a slide (``inspect.getsource`` gives it with the docstring)."""
    if not inspect.isfunction(func):
        raise ValueError(f"func must be a Python function, got {type(func).__name__}")
    src = textwrap.dedent(inspect.getsource(func))
    body = ast.parse(src).body[0].body
    if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        return src
    lines = src.splitlines(keepends=True)
    return "".join(lines[:body[0].lineno - 1] + lines[body[0].end_lineno:])


#: what the slide leaves out of :func:`ftd_lib.algorithms.td0`: the shared argument checks and
#: the stacking of the weights into an array, each replaced by the plain line it stands for;
#: a comment that made a line too wide for a slide goes on a line of its own
_TD0_PLUMBING = {
    "    episodes, w, alpha, _, gamma = _check(episodes, w0, approx, alpha, 0.0, gamma)\n":
        "    w = w0  # (the library checks the arguments here)\n",
    "    return _rows(out, w)\n":
        "    return out  # the weights after every step\n",
    # the comment on a line of its own: the line fits a slide's width
    "            v_next = 0.0 if t + 1 == T else approx.value(w, x[t + 1])  # terminal: value 0\n":
        "            # the terminal state's value is 0\n"
        "            v_next = 0.0 if t + 1 == T else approx.value(w, x[t + 1])\n",
}


def td0_source() -> str:
    """The source of :func:`ftd_lib.algorithms.td0` as a student reads it on a slide: without
    its docstring (:func:`source_without_docstring`) and without the library's private helpers
    (``_check``, ``_rows``), each replaced by the plain line it stands for; the result still
    runs and computes the same weights (tested). A ValueError where ``td0`` has changed and a
    line to replace is gone."""
    from .. import algorithms

    src = source_without_docstring(algorithms.td0)
    for old, new in _TD0_PLUMBING.items():
        if old not in src:
            raise ValueError(f"algorithms.td0 has no line {old.strip()!r} any more: update "
                             "_TD0_PLUMBING in ftd_lib/course/nb01_td_basics.py")
        src = src.replace(old, new)
    return src
