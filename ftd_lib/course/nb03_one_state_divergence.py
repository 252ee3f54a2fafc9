r"""Notebook 03 (the one-state example, Sec. 4, Figure 2): values per episode, the
:math:`\beta` curves, and Figure 2 right (made in :mod:`ftd_lib.repro.paper.fig2`).

One episode of length T moves the single value by the pseudo-update (eq. 4 of the paper)

.. math:: \hat V_T = \hat V_0 + \beta(1-\hat V_0), \qquad
          \beta_\lambda = 1-(1-\alpha)^T \ (\lambda\text{-return}), \qquad
          \beta_{TD} = \alpha T \ (\text{TD}(\lambda=1)),

so the error :math:`1-\hat V` is multiplied by :math:`1-\beta` every episode: it shrinks when
:math:`0 < \beta < 2` and grows (with alternating sign) when :math:`\beta > 2`.

Figure 2 right: the error of the value at the end of each episode, averaged over the first 10
episodes, against :math:`\alpha`, for :math:`\lambda = 1`. The paper leaves the episode length
open; its remark that "the variance on :math:`\beta` is higher for TD(:math:`\lambda`)" only
makes sense when T is random, so by default every episode continues after each step with
probability ``P_CONTINUE = 0.8`` (T geometric, mean 5). With this choice TD(:math:`\lambda`)'s
best step size is about 0.13 (the paper: :math:`\approx 0.15`) and the :math:`\lambda`-return
algorithm's best is :math:`\alpha = 1`, as in the paper. With one state, the RMS error over
states of one episode's end is just :math:`|1-\hat V_T|`; we average it over the 10 episodes and
over the runs (``metric="mean_abs"``, the paper's words). ``metric="rms"`` takes instead the
root of the mean squared error (:func:`ftd_lib.envs.one_state.error_first_episodes`).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..envs.one_state import BETA_FN, values_after_episodes
from ..envs.one_state import error_first_episodes as error_first_episodes  # (tests, notebook)
from ..methods import style

# Figure 2 right (made in ftd_lib.repro.paper.fig2; the table of figures: ftd_lib.figures)
from ..repro.paper.fig2 import ALPHAS as ALPHAS
from ..repro.paper.fig2 import N_EPISODES as N_EPISODES
from ..repro.paper.fig2 import P_CONTINUE as P_CONTINUE
from ..repro.paper.fig2 import RUNS as RUNS
from ..repro.paper.fig2 import SEED as SEED
from ..repro.paper.fig2 import episode_length_table as episode_length_table
from ..repro.paper.fig2 import figure2_data as figure2_data
from ..repro.paper.fig2 import plot_figure2 as plot_figure2
from ..style import OKABE_ITO, legend_off_data, off_chart_handle, plot_off_chart, use_style
from ..validate import check_alpha, check_int, check_number


def _beta_fn(method: str):
    if method not in BETA_FN:
        raise ValueError(f"method must be one of {sorted(BETA_FN)}, got {method!r}")
    return BETA_FN[method]


def values_per_episode(alpha, T, v0: float = 0.0, n_episodes: int = N_EPISODES,
                       method: str = "td_lambda") -> np.ndarray:
    r"""The value after 0, 1, ..., ``n_episodes`` episodes of fixed length T (closed form).

    Entry 0 is :math:`\hat V_0`; entry n is :math:`1 - (1-\hat V_0)(1-\beta)^n`. Diverged values
    overflow silently to ``inf``/``nan`` (they are drawn off the chart).
    """
    check_alpha(alpha)
    T = check_int("T", T, 1)
    n_episodes = check_int("n_episodes", n_episodes, 0)
    v0 = check_number("v0", v0)
    beta = _beta_fn(method)(alpha, T)
    with np.errstate(over="ignore", invalid="ignore"):
        v = values_after_episodes(np.full(n_episodes, float(beta)), v0)
    return np.concatenate([[float(v0)], v])


def plot_beta_curves(T, ax=None, alpha=None, alphas=None, beta_max: float = 4.0,
                     place_legend: bool = True):
    r""":math:`\beta` against :math:`\alpha` for one episode length T, with the divergence line
    :math:`\beta = 2`; ``alpha`` marks the current step size. ``place_legend``: move the legend
    off the data (:func:`ftd_lib.style.legend_off_data`); an explorer keeps it in one place
    from frame to frame."""
    if ax is None:
        use_style()
        ax = Figure(figsize=(7.0, 4.2)).subplots()
    alphas = np.linspace(0.0, 1.0, 201) if alphas is None else np.asarray(alphas, dtype=float)
    ax.axhspan(2.0, beta_max * 1.08, color=OKABE_ITO["vermillion"], alpha=0.08, lw=0)
    ax.axhline(2.0, color="k", ls="--", lw=1.2)
    # at the right, where β = αT has long left the chart and 1 − (1−α)^T stays under 1: written
    # at the left it ran across the TD(λ) line
    ax.text(0.98, 2.05, "β = 2: diverges above", fontsize=13, va="bottom", ha="right")
    ax.axhline(1.0, color="k", ls=":", lw=1.0)
    for method, label in (("td_lambda", "β = αT (TD(λ=1))"),
                          ("online_lambda_return", "β = 1 − (1−α)$^T$ (λ-return)")):
        kw = style(method)
        kw["label"] = label
        (line,) = ax.plot(alphas, BETA_FN[method](alphas, T), **kw)  # leaves through the top
        if alpha is not None:
            b = float(BETA_FN[method](alpha, T))
            off = b > beta_max
            ax.plot([alpha], [beta_max * 1.04 if off else b], marker="^" if off else "o",
                    ms=9, ls="none", color=kw["color"], clip_on=False)
    ax.set_ylim(0, beta_max * 1.08)
    ax.set(xlabel="step size α", ylabel="β", xlim=(0, 1))
    if place_legend:
        ax.set_title(f"β per episode, T = {T}")
        ax.legend(loc="upper left", fontsize=13)
        legend_off_data(ax.figure, [ax])
    else:  # an explorer: above the panel, in one place for every frame (as plot_values')
        ax.set_title(f"β per episode, T = {T}", loc="left", pad=58)
        ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=13, frameon=False,
                  borderaxespad=0.2)
    return ax


def plot_values(ax, alpha, T, v0: float = 0.0, n_episodes: int = N_EPISODES,
                lo: float = -2.5, hi: float = 3.5):
    """The value after each episode for both methods; values outside [lo, hi] off the chart."""
    ep = np.arange(int(n_episodes) + 1)
    ax.axhline(1.0, color="k", lw=1.0, ls=":", label="true value 1")
    off = False
    for method in BETA_FN:
        v = values_per_episode(alpha, T, v0, n_episodes, method)
        plot_off_chart(ax, ep, v, hi, lo, marker="o", ms=5, **style(method))
        off |= bool(np.any(~np.isfinite(v) | (v > hi) | (v < lo)))
    ax.set(xlabel="episode", ylabel="value at episode end", xlim=(-0.3, n_episodes + 0.3))
    ax.set_title(f"α = {alpha:.2f}, T = {T}, V₀ = {v0:.1f}", loc="left", pad=50)
    handles, _ = ax.get_legend_handles_labels()
    if off:
        handles.append(off_chart_handle("off the chart (▲ above, ▼ below)"))
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, fontsize=13,
              frameon=False, borderaxespad=0.2)
    return ax


def td_lambda_replacing(episodes, w0, *, alpha: float, lam: float, gamma: float) -> np.ndarray:
    r"""TD(:math:`\lambda`) with **replacing** traces (Singh & Sutton 1996), linear values on
    binary features: a trace is set to 1 when its feature is active, instead of growing by 1,

    .. math:: e_t = \gamma\lambda\, e_{t-1} \ \text{(inactive features)}, \qquad
              e_t = 1 \ \text{(active features)}, \qquad
              \theta_{t+1} = \theta_t + \alpha\,\delta_t\, e_t .

    Same contract as :func:`ftd_lib.algorithms.td_lambda` (the last feature row of an episode
    is its terminal state, value 0): one weight row per time step. On the one-state example
    the trace stays 1, so one episode is the pseudo-update with :math:`\beta = \alpha`.
    """
    check_alpha(alpha)
    lam = check_number("lam", lam)
    gamma = check_number("gamma", gamma)
    w = np.array(w0, dtype=float)
    rows = []
    for x, r in episodes:
        x = np.asarray(x, dtype=float)
        if not np.all((x == 0) | (x == 1)):
            raise ValueError("x must hold binary features (0 or 1): replacing traces need them")
        e = np.zeros_like(w)
        T = len(r)
        for t in range(T):
            e = np.where(x[t] != 0, 1.0, gamma * lam * e)
            v_next = 0.0 if t == T - 1 else float(w @ x[t + 1])
            delta = float(r[t]) + gamma * v_next - float(w @ x[t])
            w = w + alpha * delta * e
            rows.append(w.copy())
    return np.array(rows).reshape(len(rows), len(w))


#: how close to 2 (for β) and to 1 (for V₀) counts as equal: the sliders hold decimals such as
#: α = 0.1, T = 20, whose product is 2 up to rounding
EXACT = 1e-9


def verdict(beta: float, v0: float) -> str:
    r"""What episodes of one length do to the value, from Sec. 4's pseudo-update: the error
    :math:`1-\hat V` is multiplied by :math:`1-\beta` per episode, so it

    - ``"at the true value"``: is 0 already (:math:`\hat V_0 = 1`) and stays 0, whatever β;
    - ``"converges"``: shrinks, :math:`0 < \beta < 2`;
    - ``"oscillates"``: flips sign with the same size forever, :math:`\beta = 2`;
    - ``"diverges"``: grows, :math:`\beta > 2`;
    - ``"stays"``: does not change, :math:`\beta = 0`.

    β within :data:`EXACT` of 2 (or 0) counts as 2 (or 0), V₀ within it of 1 as 1."""
    beta = check_number("beta", beta)
    v0 = check_number("v0", v0)
    if beta < 0:
        raise ValueError(f"beta must be >= 0 (β = αT or 1-(1-α)^T with α > 0), got {beta!r}")
    if abs(1.0 - v0) <= EXACT:
        return "at the true value"
    if beta <= EXACT:
        return "stays"
    if abs(beta - 2.0) <= EXACT:
        return "oscillates"
    return "converges" if beta < 2.0 else "diverges"


def beta_measured(method: str, alpha: float, T: int, v0: float = 0.0) -> float:
    r""":math:`\beta` measured on one episode of the one-state example, from the per-run
    algorithm itself: :math:`(\hat V_T - \hat V_0)/(1 - \hat V_0)` after one episode of length
    T with :math:`\lambda = \gamma = 1`. ``method``: ``"td_lambda"`` (accumulating traces),
    ``"td_lambda_replacing"`` or ``"online_lambda_return"``."""
    from .. import algorithms
    from ..approx import Linear
    from ..envs.one_state import one_state_episodes

    T = check_int("T", T, 1)
    v0 = check_number("v0", v0)
    if v0 == 1.0:
        raise ValueError("v0 must differ from 1 (the true value): β is undefined there")
    episode = one_state_episodes(1, T=T)
    w0 = np.array([v0])
    if method == "td_lambda_replacing":
        W = td_lambda_replacing(episode, w0, alpha=alpha, lam=1.0, gamma=1.0)
    elif method in ("td_lambda", "online_lambda_return"):
        W = getattr(algorithms, method)(episode, w0, approx=Linear(1), alpha=alpha, lam=1.0,
                                        gamma=1.0)
    else:
        raise ValueError("method must be td_lambda, td_lambda_replacing or "
                         f"online_lambda_return, got {method!r}")
    return float((W[-1, 0] - v0) / (1.0 - v0))
