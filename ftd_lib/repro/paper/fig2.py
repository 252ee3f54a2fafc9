r"""Figure 2 right of van Seijen (2016), Sec. 4: the one-state example, λ = 1 -- the error of
the value at the end of each episode, averaged over the first 10 episodes, against α, for
TD(λ) and the λ-return algorithm.

One episode of length T moves the value by :math:`\hat V_T = \hat V_0 + \beta(1-\hat V_0)`
with :math:`\beta = 1-(1-\alpha)^T` (λ-return) or :math:`\beta = \alpha T` (TD(λ)), so
:func:`figure2_data` computes the curves in closed form
(:func:`ftd_lib.envs.one_state.error_first_episodes`) over seeded episode lengths. The paper
leaves the episode length open: by default every episode continues after each step with
probability :data:`P_CONTINUE` (T geometric, mean 5); ``T=...`` gives the fixed-length variant.
Notebook 03 shows it (:mod:`ftd_lib.course.nb03_one_state_divergence`, which explains the
choice); :func:`ftd_lib.figures.figure_2` is the entry point. Figure 2 left is a picture of the
task.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...envs.one_state import BETA_FN, episode_lengths, error_first_episodes
from ...methods import style
from ...rng import run_generator
from ...style import legend_off_data, off_chart_handle, plot_off_chart, use_style

P_CONTINUE = 0.8  # random episode length: continue after each step with this probability
N_EPISODES = 10  # "averaged over the first 10 episodes"
RUNS = 10_000  # independent runs (each its own seeded stream)
SEED = 2016
ALPHAS = np.round(np.arange(1, 101) / 100, 2)  # 0.01, 0.02, ..., 1.00


def episode_length_table(runs: int = RUNS, n_episodes: int = N_EPISODES, *,
                         p_continue: float | None = P_CONTINUE, T: int | None = None,
                         seed: int = SEED) -> np.ndarray:
    """Episode lengths, shape ``(runs, n_episodes)``: fixed ``T`` or geometric (``p_continue``).

    Run ``i`` draws from its own stream ``run_generator(seed, i)``, so its lengths do not depend
    on how many runs there are.
    """
    if T is not None:
        return episode_lengths(int(runs) * int(n_episodes), T=T).reshape(int(runs), -1)
    return np.stack([episode_lengths(n_episodes, run_generator(seed, i), p_continue=p_continue)
                     for i in range(int(runs))])


def figure2_data(alphas=ALPHAS, *, runs: int = RUNS, n_episodes: int = N_EPISODES,
                 p_continue: float | None = P_CONTINUE, T: int | None = None,
                 v0: float = 0.0, seed: int = SEED, metric: str = "mean_abs") -> dict:
    """Figure 2 right: the error curve of each method against alpha, and each best alpha.

    Random episode lengths (``p_continue``) by default; ``T=...`` for the fixed-length variant.
    """
    if T is not None:
        p_continue = None
    lengths = episode_length_table(runs, n_episodes, p_continue=p_continue, T=T, seed=seed)
    alphas = np.asarray(alphas, dtype=float)
    data = dict(alphas=alphas, runs=int(runs), n_episodes=int(n_episodes),
                p_continue=p_continue, T=T, v0=float(v0), metric=metric,
                mean_length=float(lengths.mean()))
    for method in BETA_FN:
        err = error_first_episodes(alphas, lengths, method, v0, metric)
        data[method] = err
        data[f"best_alpha_{method}"] = float(alphas[int(np.argmin(err))])
        data[f"best_error_{method}"] = float(np.min(err))
    return data


def plot_figure2(data: dict, ax=None, ymax: float = 1.0):
    """Error vs alpha for TD(lambda) and the (online) lambda-return algorithm, which on this
    task ends every episode where the offline one does; diverged = off the chart."""
    if ax is None:
        use_style()
        ax = Figure(figsize=(7.0, 4.2)).subplots()
    for method in BETA_FN:
        plot_off_chart(ax, data["alphas"], data[method], ymax, **style(method))
        best = data[f"best_alpha_{method}"]
        ax.plot([best], [data[f"best_error_{method}"]], marker="o", ms=8, ls="none",
                color=style(method)["color"])
    length = (f"T = {data['T']}" if data["T"] is not None
              else f"random T, p_continue = {data['p_continue']}")
    ax.set(xlabel="step size α", ylabel="error at episode end\n(avg. first "
           f"{data['n_episodes']} episodes)", title=f"One-state example, λ = 1 ({length})",
           xlim=(0, float(data["alphas"][-1]) * 1.02))
    ax.set_ylim(bottom=0)
    handles, _ = ax.get_legend_handles_labels()
    if any(not np.all(np.isfinite(data[m]) & (data[m] <= ymax)) for m in BETA_FN):
        handles.append(off_chart_handle())
    ax.legend(handles=handles, loc="center right")
    legend_off_data(ax.figure, [ax])
    return ax
