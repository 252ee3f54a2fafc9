r"""Figure 1 of van Seijen (2016), Sec. 4: TD(λ) against the online and the offline λ-return
algorithm on the 10-state random walk, λ = 1, α = 0.2 -- the RMS error over all states,
divided by the initial one, at every time step of the first 3 episodes (one run).

The task: :mod:`ftd_lib.envs.random_walk` (tabular features, every reward 1, γ = 1, start in
the right-most state); the methods: the per-run references of :mod:`ftd_lib.algorithms`.
:func:`figure1_data` computes it, :func:`plot_figure1` draws it; notebook 02 shows it
(:mod:`ftd_lib.course.nb02_lambda_return`), :func:`ftd_lib.figures.figure_1` is the entry point.
"""

from __future__ import annotations

import numpy as np

from ... import algorithms
from ...approx import Linear
from ...envs.random_walk import N_STATES, random_walk_episodes, rms_error, true_values
from ...methods import style
from ...rng import run_generator
from ...style import new_axes

FIG1_SEED = 0  # the seed of the single run drawn in Figure 1 (fixed before looking)
FIG1_METHODS = ("td_lambda", "online_lambda_return", "offline_lambda_return")




def run_methods(episodes, w0, *, approx, alpha, lam, gamma, methods=FIG1_METHODS) -> dict:
    """Weights after every time step (rows), with ``w0`` prepended as row 0, per method."""
    out = {}
    for m in methods:
        W = getattr(algorithms, m)(episodes, w0, approx=approx, alpha=alpha, lam=lam, gamma=gamma)
        out[m] = np.vstack([np.asarray(w0, dtype=float)[None], W])
    return out


def normalised_rms(W, v_true=None) -> np.ndarray:
    r"""RMS error over all states of each row of tabular weights ``W``, divided by that of
    row 0 (the initial weights): the y-axis of Figure 1 (it starts at 1)."""
    err = rms_error(W, true_values() if v_true is None else v_true)
    return err / err[0]


def figure1_data(seed: int = FIG1_SEED, n_episodes: int = 3, alpha: float = 0.2,
                 lam: float = 1.0, gamma: float = 1.0) -> dict:
    r"""Figure 1 (Sec. 4): normalised RMS error against time, first 3 episodes, one run.

    Random walk, tabular, :math:`\theta_0 = 0`, λ = 1, α = 0.2; TD(λ), the online and the
    offline λ-return algorithm on the same seeded episodes. Returns a dict with ``t``
    (0 .. total steps), ``curves`` (method -> normalised RMS at every t), ``episode_ends``
    (the t at which each episode ends) and ``lengths``.
    """
    episodes = random_walk_episodes(n_episodes, np.random.default_rng(seed))
    lin = Linear(N_STATES)
    Ws = run_methods(episodes, lin.init(), approx=lin, alpha=alpha, lam=lam, gamma=gamma)
    lengths = [len(r) for _, r in episodes]
    return dict(t=np.arange(sum(lengths) + 1),
                curves={m: normalised_rms(W) for m, W in Ws.items()},
                episode_ends=np.cumsum(lengths), lengths=lengths,
                settings=dict(seed=seed, alpha=alpha, lam=lam, gamma=gamma))


def figure1_episode_ends(data: dict) -> dict:
    """Normalised RMS error at the end of each episode, per method (from :func:`figure1_data`)."""
    return {m: c[data["episode_ends"]] for m, c in data["curves"].items()}


def figure1_average_episode_ends(n_runs: int = 100, seed: int = 1, n_episodes: int = 3,
                                 alpha: float = 0.2, lam: float = 1.0) -> dict:
    r"""Normalised RMS at the first episode ends, averaged over ``n_runs`` seeded runs.

    Only the episode ends are averaged: episode lengths differ between runs, so the curves of
    Figure 1 do not line up in time. The online λ-return algorithm is left out: for λ = 1 it
    ends every episode with the same weights as the offline one (the targets
    :math:`G_k^{\lambda|T}` are then Monte Carlo returns, free of the weights).
    """
    lin = Linear(N_STATES)
    methods = ("td_lambda", "offline_lambda_return")
    total = {m: np.zeros(n_episodes) for m in methods}
    for i in range(int(n_runs)):
        episodes = random_walk_episodes(n_episodes, run_generator(seed, i))
        ends = np.cumsum([len(r) for _, r in episodes])
        Ws = run_methods(episodes, lin.init(), approx=lin, alpha=alpha, lam=lam, gamma=1.0,
                         methods=methods)
        for m in methods:
            total[m] += normalised_rms(Ws[m])[ends]
    return {m: v / int(n_runs) for m, v in total.items()}


def plot_figure1(data: dict, ax=None):
    """Figure 1: normalised RMS error against time steps, episode ends marked."""
    s = data["settings"]
    if ax is None:
        _, ax = new_axes(f"Figure 1: random walk, λ = {s['lam']:g}, α = {s['alpha']:g} "
                         f"(one run, seed {s['seed']})", "time step (over 3 episodes)",
                         "RMS error / initial RMS error", figsize=(8.5, 4.6))
    for m, y in data["curves"].items():
        ax.plot(data["t"], y, **style(m))
    for k, end in enumerate(data["episode_ends"]):
        ax.axvline(end, color="0.6", lw=1, ls=":")
        ax.text(end, 1.02, f"end of ep. {k + 1}", ha="right", va="bottom", fontsize=13,
                color="0.4")
    ax.set_ylim(0, 1.1)
    ax.set_xlim(0, data["t"][-1] + 1)
    ax.legend(loc="lower left")
    return ax
