r"""Notebook 02 (the λ-return): n-step and interim λ-returns, traces, Figure 1 (made in
:mod:`ftd_lib.repro.paper.fig1`), Theorem 1 and the identities of App. B, on the random walk.

van Seijen (2016), Sec. 3-4 and App. A-B. One function per figure or idea; each returns plain
numbers (so notebooks and tests can check them) and, where there is a picture, a ``plot_*``
function draws it in the course style (:mod:`ftd_lib.style`).

The task is the 10-state random walk of Sec. 4 (:mod:`ftd_lib.envs.random_walk`): tabular
features, every reward 1, :math:`\gamma = 1`, start in the right-most state. Every function
that draws random numbers takes a ``seed`` and builds its own generators from it
(``np.random.default_rng(seed)`` for one run, :func:`ftd_lib.rng.run_generator` per run for
many runs), so the same call always gives the same numbers.
"""

from __future__ import annotations

import numpy as np

from .. import algorithms
from ..approx import MLP
from ..envs.random_walk import (
    N_STATES,
    features,
    random_walk_episodes,
    random_walk_states,
)
from ..methods import style

# Figure 1 (made in ftd_lib.repro.paper.fig1; the table of figures: ftd_lib.figures), for
# the notebook
from ..repro.paper.fig1 import FIG1_METHODS as FIG1_METHODS
from ..repro.paper.fig1 import FIG1_SEED as FIG1_SEED
from ..repro.paper.fig1 import figure1_average_episode_ends as figure1_average_episode_ends
from ..repro.paper.fig1 import figure1_data as figure1_data
from ..repro.paper.fig1 import figure1_episode_ends as figure1_episode_ends
from ..repro.paper.fig1 import normalised_rms as normalised_rms
from ..repro.paper.fig1 import plot_figure1 as plot_figure1
from ..repro.paper.fig1 import run_methods as run_methods
from ..returns import (
    advance_time,
    delta_prime,
    extend_horizon,
    interim_lambda_return,
    n_step_return,
    rho,
)
from ..style import OKABE_ITO, legend_off_data, new_axes, sequential_colours, use_style
from ..validate import check_unit
from .nb01_td_basics import td0_tabular

# --------------------------------------------------------------------------------------------
# n-step returns, interim lambda-return, traces
# --------------------------------------------------------------------------------------------


def demo_episode(seed: int = 3, n_warmup: int = 5, alpha: float = 0.1):
    r"""A recorded episode plus the values a learner would bootstrap from.

    The values come from tabular TD(0) after ``n_warmup`` episodes (step size ``alpha``), and
    are held fixed over the new episode, so ``values[j]`` :math:`=\hat V(S_j)` for every j
    (``values[T] = 0``). Returns ``(states, rewards, values)``.
    """
    rng = np.random.default_rng(seed)
    warm = [random_walk_states(rng) for _ in range(n_warmup)]
    v = np.concatenate([[0.0], td0_tabular(warm, alpha)[-1]])  # v[0] = terminal
    states = random_walk_states(rng)
    rewards = np.ones(len(states) - 1)
    return states, rewards, v[states]


def n_step_returns(rewards, values, t: int, gamma: float) -> np.ndarray:
    r""":math:`G_t^{(n)}` for n = 1 .. T-t (Sec. 4): from the TD(0) target to the full return."""
    T = len(rewards)
    return np.array([n_step_return(rewards, values, t, n, gamma) for n in range(1, T - t + 1)])


def lambda_return_weights(lam: float, n: int) -> np.ndarray:
    r"""The weights of :math:`G_t^{(1)} .. G_t^{(n)}` in :math:`G_t^{\lambda|t+n}` (eq. 2).

    :math:`(1-\lambda)\lambda^{k-1}` for k < n and :math:`\lambda^{n-1}` for the last one; they
    sum to 1 (App. B).
    """
    lam = check_unit("lam", lam)
    if int(n) < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    w = (1 - lam) * lam ** np.arange(int(n))
    w[-1] = lam ** (int(n) - 1)
    return w


def interim_returns_vs_horizon(rewards, values, t: int, gamma: float, lam: float) -> np.ndarray:
    r""":math:`G_t^{\lambda|h}` for h = t+1 .. T (eq. 2): the target as more data arrives."""
    T = len(rewards)
    return np.array([interim_lambda_return(rewards, values, t, h, gamma, lam)
                     for h in range(t + 1, T + 1)])


def plot_n_step_and_lambda(rewards, values, gamma: float, lams=(0.0, 0.5, 0.9, 1.0), t: int = 0):
    """Two panels: :math:`G_t^{(n)}` against n, and :math:`G_t^{\\lambda|h}` against h."""
    import matplotlib.pyplot as plt

    use_style()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    g = n_step_returns(rewards, values, t, gamma)
    n = np.arange(1, len(g) + 1)
    a1.plot(n, g, "k.-", ms=8)
    a1.set(title=f"n-step returns $G_{t}^{{(n)}}$", xlabel="n (steps before bootstrapping)",
           ylabel="return")
    a1.axhline(g[-1], color="0.5", ls=":", lw=1.5, label=f"Monte Carlo return = {g[-1]:g}")
    a1.legend(loc="lower right")
    for c, lam in zip(sequential_colours(len(lams)), lams, strict=True):
        gl = interim_returns_vs_horizon(rewards, values, t, gamma, lam)
        a2.plot(np.arange(t + 1, len(rewards) + 1), gl, ".-", color=c, label=f"λ = {lam:g}")
    a2.set(title=rf"interim λ-return $G_{t}^{{\lambda|h}}$", xlabel="horizon h")
    a2.legend(loc="upper left")
    fig.tight_layout()
    legend_off_data(a1.figure, [a1])
    legend_off_data(a2.figure, [a2])
    return fig


def same_bias_n(values, lam: float, ns=range(1, 101), state: int = 10) -> dict:
    r"""The λ-return :math:`G^\lambda` against the n-step return of (nearly) the same bias: of
    the ``ns``, the n whose :math:`G^{(n)}` has the bias closest to that of :math:`G^\lambda`,
    both bootstrapping from the fixed estimate ``values`` (states 1..10 of the random walk),
    as targets for :math:`v_\pi(\text{state})`. Exact, from
    :mod:`ftd_lib.course.bias_variance`. Returns ``{"lam", "n", "bias_lam", "var_lam",
    "bias_n", "var_n"}``: at equal bias, the variances say which way of looking ahead is the
    better target (notebook 02, "why the best λ trails the best n early")."""
    from .bias_variance import lambda_return_bias_variance, n_step_bias_variance

    lam = check_unit("lam", lam)
    g_lam = lambda_return_bias_variance(values, [lam], state)
    g_n = n_step_bias_variance(values, list(ns), state)
    i = int(np.argmin(np.abs(g_n["bias"] - g_lam["bias"][0])))
    return {"lam": lam, "n": int(g_n["n"][i]), "bias_lam": float(g_lam["bias"][0]),
            "var_lam": float(g_lam["variance"][0]), "bias_n": float(g_n["bias"][i]),
            "var_n": float(g_n["variance"][i])}


def plot_lambda_weights(lam: float, n: int, ax=None, figsize=None):
    """Bar chart of :func:`lambda_return_weights`: how eq. 2 mixes the n-step returns.
    ``figsize``: the figure's size in inches when the function makes the figure (a
    slide wants it wide and short)."""
    if ax is None:
        _, ax = new_axes(rf"weights in $G_t^{{\lambda|t+{n}}}$, λ = {lam:g}",
                         "n  (of the n-step return $G_t^{(n)}$)", "weight", figsize=figsize)
    w = lambda_return_weights(lam, n)
    k = np.arange(1, n + 1)
    ax.bar(k[:-1], w[:-1], color=OKABE_ITO["blue"], label=r"$(1-\lambda)\lambda^{n-1}$")
    ax.bar(k[-1:], w[-1:], color=OKABE_ITO["orange"], label=r"$\lambda^{h-t-1}$ (all the rest)")
    ax.set_xticks(k)
    ax.legend()
    legend_off_data(ax.figure, [ax])
    return ax


def eligibility_traces(feature_rows, gamma: float, lam: float) -> np.ndarray:
    r"""Accumulating traces for linear features (Sec. 3):
    :math:`e_t = \gamma\lambda e_{t-1} + \phi(S_t)`, :math:`e_{-1} = 0`.

    For a linear :math:`\hat V` the gradient is :math:`\phi(S_t)`, so the traces do not depend
    on the weights. ``feature_rows``: :math:`\phi(S_0) .. \phi(S_{T-1})`; returns shape (T, n).
    """
    gamma = check_unit("gamma", gamma)
    lam = check_unit("lam", lam)
    x = np.asarray(feature_rows, dtype=float)
    e = np.zeros(x.shape[1])
    out = []
    for row in x:
        e = gamma * lam * e + row
        out.append(e)
    return np.array(out)


def plot_traces(states, gamma: float, lams=(0.8, 1.0), figsize=None):
    """Heat maps of the trace of every state over one episode, one panel per λ.
    ``figsize``: the figure's size in inches when the function makes the figure (a
    slide wants it wide and short)."""
    import matplotlib.pyplot as plt

    use_style()
    x = features(states)[:-1]
    fig, axes = plt.subplots(1, len(lams), figsize=figsize or (5.5 * len(lams), 4.0),
                             squeeze=False)
    for ax, lam in zip(axes[0], lams, strict=True):
        e = eligibility_traces(x, gamma, lam)
        im = ax.imshow(e.T, aspect="auto", origin="lower", cmap="magma_r",
                       extent=(-0.5, len(e) - 0.5, 0.5, N_STATES + 0.5))
        ax.plot(np.arange(len(e)), states[:-1], "c.", ms=5, label="$S_t$")
        ax.set(title=f"traces $e_t$, λ = {lam:g}", xlabel="time step t", ylabel="state")
        ax.grid(False)
        fig.colorbar(im, ax=ax, label="trace")
    axes[0][0].legend(loc="upper right")
    fig.tight_layout()
    legend_off_data(axes[0][0].figure, [axes[0][0]])
    return fig


def online_update_count(T: int) -> int:
    r"""Updates (eq. 3) the online λ-return algorithm performs in an episode of length T.

    At time t it replays the t updates :math:`\theta_1^t .. \theta_t^t`, so
    :math:`\sum_{t=1}^T t = T(T+1)/2` in all: the cost per step grows with t (Sec. 4).
    """
    if int(T) < 1:
        raise ValueError(f"T must be >= 1, got {T!r}")
    return sum(range(1, int(T) + 1))


# --------------------------------------------------------------------------------------------
# Theorem 1 and the identities of Appendix B
# --------------------------------------------------------------------------------------------


def theorem1_sweep(alphas, seed: int = 0, lam: float = 0.9, gamma: float = 1.0,
                   n_hidden: int = 50) -> dict:
    r"""Theorem 1 (Sec. 4, proof in App. A), numerically, with an MLP.

    On one seeded random-walk episode (one-hot inputs to a tanh MLP with ``n_hidden`` units,
    initial weights :math:`\theta_0` from the same seed), run TD(λ) and the online λ-return
    algorithm for each α and return, at the episode's end T, the ratio

    .. math:: \frac{\|\theta_T^{td} - \theta_T^{\lambda}\|}{\|\theta_T^{td} - \theta_0\|},

    which the theorem says goes to 0 as α → 0 (like O(α), by the proof), together with the
    distances :math:`\|\theta_T^{td}-\theta_0\|` and :math:`\|\theta_T^{\lambda}-\theta_0\|`.
    Returns a dict of arrays ``alpha``, ``ratio``, ``dist_td``, ``dist_lambda``.
    """
    rng = np.random.default_rng(seed)
    episodes = random_walk_episodes(1, rng)
    mlp = MLP(N_STATES, n_hidden)
    w0 = mlp.init(rng)
    ratio, dist_td, dist_lam = [], [], []
    for a in alphas:
        kw = dict(approx=mlp, alpha=a, lam=lam, gamma=gamma)
        w_td = algorithms.td_lambda(episodes, w0, **kw)[-1]
        w_lr = algorithms.online_lambda_return(episodes, w0, **kw)[-1]
        ratio.append(np.linalg.norm(w_td - w_lr) / np.linalg.norm(w_td - w0))
        dist_td.append(np.linalg.norm(w_td - w0))
        dist_lam.append(np.linalg.norm(w_lr - w0))
    return dict(alpha=np.asarray(alphas, dtype=float), ratio=np.array(ratio),
                dist_td=np.array(dist_td), dist_lambda=np.array(dist_lam))


def plot_theorem1(sweep: dict, ax=None, figsize=None):
    """Log-log plot of the Theorem 1 ratio against α (from :func:`theorem1_sweep`), with a
    slope-1 guide (ratio ∝ α) through the smallest α.
    ``figsize``: the figure's size in inches when the function makes the figure (a
    slide wants it wide and short)."""
    if ax is None:
        _, ax = new_axes("Theorem 1: TD(λ) → online λ-return as α → 0 (MLP)", "step size α",
                         r"$\|\theta^{td}_T-\theta^{\lambda}_T\| \,/\, \|\theta^{td}_T-\theta_0\|$",
                         figsize=figsize)
    alphas, ratios = sweep["alpha"], sweep["ratio"]
    ax.loglog(alphas, ratios, "o-", color=style("td_lambda")["color"], label="measured ratio")
    a_min = alphas.min()
    r_min = ratios[np.argmin(alphas)]
    ax.loglog(alphas, r_min * alphas / a_min, "k:", lw=1.5, label="slope 1 (ratio ∝ α)")
    ax.legend(loc="upper left")
    legend_off_data(ax.figure, [ax])
    return ax


def appendix_b_check(seed: int = 0, lam: float = 0.9, gamma: float = 1.0,
                     alpha: float = 0.01, n_hidden: int = 50) -> dict:
    r"""Check the two identities of App. B on data from a real run.

    Record one random-walk episode, run the online λ-return algorithm on it with an MLP, and
    take the values it bootstraps from, :math:`\hat V_j = \hat V(S_j|\theta_{j-1})`. Then for
    every admissible (t, h) compare both sides of

    - the horizon-extension identity (Sec. 5, derived in App. B):
      :math:`G_t^{\lambda|h+1} = G_t^{\lambda|h} + (\gamma\lambda)^{h-t}\delta'_h`,
      :math:`h \ge t+1`;
    - the ρ-identity: :math:`G_{t+1}^{\lambda|h} = (G_t^{\lambda|h} - \rho_t)/\gamma\lambda`,
      :math:`h \ge t+2`;

    with every :math:`G` computed from its definition (eq. 2). Returns the number of pairs
    and the largest absolute difference for each identity, and the returns' scale.
    """
    rng = np.random.default_rng(seed)
    episodes = random_walk_episodes(1, rng)
    mlp = MLP(N_STATES, n_hidden)
    w0 = mlp.init(rng)
    W = algorithms.online_lambda_return(episodes, w0, approx=mlp, alpha=alpha, lam=lam, gamma=gamma)
    x, r = episodes[0]
    T = len(r)
    thetas = [w0, *W]  # thetas[j] = theta_j
    values = np.array([mlp.value(thetas[j - 1], x[j]) if 0 < j < T else 0.0
                       for j in range(T + 1)])
    G = {(t, h): interim_lambda_return(r, values, t, h, gamma, lam)
         for t in range(T) for h in range(t + 1, T + 1)}
    err1 = [abs(extend_horizon(G[t, h], delta_prime(r[h], values[h + 1], values[h], gamma),
                               t, h, gamma, lam) - G[t, h + 1])
            for t in range(T) for h in range(t + 1, T)]
    err2 = [abs(advance_time(G[t, h], rho(r[t], values[t + 1], gamma, lam), gamma, lam)
                - G[t + 1, h])
            for t in range(T - 1) for h in range(t + 2, T + 1)]
    return dict(T=T, n_extend=len(err1), max_err_extend=max(err1), n_advance=len(err2),
                max_err_advance=max(err2), max_abs_return=max(abs(g) for g in G.values()))
