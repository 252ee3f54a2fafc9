r"""Why λ at all: the bias and the variance of multi-step targets (the paper's opening argument,
Sec. 1: multi-step targets trade the bias of bootstrapping against the variance of the
sampled rewards; λ sets the trade-off).

On the 10-state random walk (:mod:`ftd_lib.envs.random_walk`: reward 1 per step,
:math:`\gamma = 1`) with a fixed value estimate :math:`\hat V`, the target for the value of a
state :math:`s` is a random variable. Its **bias** is :math:`\mathbb E[G \mid S_0 = s] -
v_\pi(s)`, its **variance** :math:`\operatorname{Var}[G \mid S_0 = s]`, and its mean squared
error (as an estimate of :math:`v_\pi(s)`) is bias² + variance. Both are computed **exactly**
from the transition matrix :math:`P` among the non-terminal states:

- the n-step return (Sec. 4) :math:`G^{(n)} = \min(n, T) + \mathbb 1[T > n]\,\hat V(S_n)`
  (:func:`n_step_bias_variance`): with :math:`p_k = e_s P^k` the distribution of
  :math:`S_k` on the not-yet-terminated paths, :math:`\Pr(T > k) = p_k \mathbf 1`,
  :math:`\mathbb E\min(n,T) = \sum_{k<n}\Pr(T>k)`,
  :math:`\mathbb E\min(n,T)^2 = \sum_{m=1}^{n}(2m-1)\Pr(T > m-1)` and, as :math:`T > n`
  implies :math:`\min(n,T) = n`, :math:`\mathbb E[G^2] = \mathbb E\min(n,T)^2 + 2n\,p_n\hat V
  + p_n\hat V^2`;
- the λ-return :math:`G^\lambda` (horizon at the episode's end; eq. 2 with :math:`h = T`)
  (:func:`lambda_return_bias_variance`), from its recursion :math:`G^\lambda_t = R_{t+1} +
  (1-\lambda)\hat V(S_{t+1}) + \lambda G^\lambda_{t+1}` (:math:`\gamma = 1`, 0 after the
  end): a Markov reward process with "discount" λ. With :math:`c = \mathbf 1 + (1-\lambda)
  \hat V` (the part of the target known once :math:`S_{t+1}` is) and :math:`p_\perp = \mathbf 1
  - P\mathbf 1` (the chance to terminate), the mean :math:`m` and the second moment
  :math:`q` solve the linear systems :math:`m = \mathbf 1 + (1-\lambda)P\hat V + \lambda P m`
  and :math:`q = p_\perp + P(c^2 + 2\lambda\, c \odot m) + \lambda^2 P q`.

``tests/course/test_bias_variance.py`` checks the first against all paths enumerated and both
against the library's own returns (:func:`ftd_lib.returns.n_step_return`,
:func:`ftd_lib.returns.interim_lambda_return`) on sampled episodes.
"""

from __future__ import annotations

import numpy as np

from ..envs.random_walk import N_STATES, P_LEFT, random_walk_states, transition_matrix, true_values
from ..style import OKABE_ITO, legend_off_data, use_style
from ..validate import check_unit
from .nb01_td_basics import td0_tabular

START = N_STATES  # episodes start in the right-most state


def _check(values, state):
    values = np.asarray(values, dtype=float)
    if values.shape != (N_STATES,) or not np.all(np.isfinite(values)):
        raise ValueError(f"values must be {N_STATES} finite numbers (states 1..{N_STATES}), "
                         f"got shape {values.shape}")
    if int(state) != state or not 1 <= int(state) <= N_STATES:
        raise ValueError(f"state must be an integer in 1..{N_STATES}, got {state!r}")
    return values, int(state)


def n_step_bias_variance(values, ns, state: int = START, p_left: float = P_LEFT) -> dict:
    r"""Exact bias and variance of :math:`G^{(n)}` from ``state`` for every n in ``ns``,
    bootstrapping from the fixed estimate ``values`` (:math:`\hat V` of states 1..10).
    Returns ``{"n", "bias", "variance", "mse"}`` (arrays)."""
    values, state = _check(values, state)
    ns = np.asarray(ns, dtype=int)
    if ns.ndim != 1 or len(ns) == 0 or ns.min() < 1:
        raise ValueError(f"ns must be a non-empty list of integers >= 1, got {ns!r}")
    P = transition_matrix(N_STATES, p_left)
    p = np.zeros(N_STATES)
    p[state - 1] = 1.0
    survive, dist = [], []  # Pr(T > k) and p_k, k = 0 .. max(ns)
    for _ in range(ns.max() + 1):
        survive.append(p.sum())
        dist.append(p)
        p = p @ P
    survive = np.array(survive)
    m = np.arange(1, ns.max() + 1)
    cum1 = np.concatenate([[0.0], np.cumsum(survive[:-1])])  # E min(n, T)
    cum2 = np.concatenate([[0.0], np.cumsum((2 * m - 1) * survive[:-1])])  # E min(n, T)^2
    mean = np.array([cum1[n] + dist[n] @ values for n in ns])
    second = np.array([cum2[n] + 2 * n * (dist[n] @ values) + dist[n] @ values**2 for n in ns])
    bias = mean - true_values(N_STATES, p_left)[state - 1]
    var = np.maximum(second - mean**2, 0.0)
    return {"n": ns, "bias": bias, "variance": var, "mse": bias**2 + var}


def lambda_return_bias_variance(values, lams, state: int = START,
                                p_left: float = P_LEFT) -> dict:
    r"""Exact bias and variance of the λ-return :math:`G^\lambda` (horizon at the episode's
    end) from ``state`` for every λ in ``lams``, bootstrapping from ``values``. Returns
    ``{"lam", "bias", "variance", "mse"}`` (arrays)."""
    values, state = _check(values, state)
    lams = np.array([check_unit("lam", x) for x in np.atleast_1d(lams)])
    P = transition_matrix(N_STATES, p_left)
    eye = np.eye(N_STATES)
    v_true = true_values(N_STATES, p_left)[state - 1]
    out = {"lam": lams, "bias": [], "variance": []}
    for lam in lams:
        c1 = 1.0 + (1 - lam) * values  # the part of the target fixed once S' is known
        m = np.linalg.solve(eye - lam * P, 1.0 + (1 - lam) * (P @ values))
        # E[(1 + (1-lam) V(S') + lam G(S'))^2]; a terminating step contributes 1
        rhs = (1.0 - P.sum(axis=1)) + P @ (c1**2 + 2 * lam * c1 * m)
        q = np.linalg.solve(eye - lam**2 * P, rhs)
        out["bias"].append(m[state - 1] - v_true)
        out["variance"].append(max(q[state - 1] - m[state - 1] ** 2, 0.0))
    out["bias"], out["variance"] = np.array(out["bias"]), np.array(out["variance"])
    out["mse"] = out["bias"] ** 2 + out["variance"]
    return out


def td0_estimate(n_episodes: int, seed: int = 3, alpha: float = 0.1) -> np.ndarray:
    """A fixed value estimate to bootstrap from: tabular TD(0) after ``n_episodes`` episodes
    (step size ``alpha``; with the defaults and 5 episodes, the values of notebook 02's
    demo episode)."""
    rng = np.random.default_rng(seed)
    return td0_tabular([random_walk_states(rng) for _ in range(int(n_episodes))], alpha)[-1]


LAMS = np.linspace(0.0, 1.0, 101)  # λ in steps of 0.01


def best_targets(episodes=(5, 20, 50, 100, 200), ns=range(1, 101), lams=LAMS,
                 state: int = START, seed: int = 3, alpha: float = 0.1) -> list[dict]:
    """For value estimates of growing quality (tabular TD(0) after each number of
    ``episodes``): the n and the λ whose target has the smallest mean squared error, and that
    error next to the one-step target's and the Monte Carlo return's."""
    rows = []
    for k in episodes:
        v = td0_estimate(k, seed, alpha)
        r = n_step_bias_variance(v, list(ns), state)
        lam = lambda_return_bias_variance(v, lams, state)
        i, j = int(np.argmin(r["mse"])), int(np.argmin(lam["mse"]))
        rows.append({"episodes": int(k), "best_n": int(r["n"][i]), "mse_best_n": r["mse"][i],
                     "best_lam": float(lam["lam"][j]), "mse_best_lam": lam["mse"][j],
                     "mse_td0": r["mse"][0], "mse_mc": lam["mse"][-1]})
    return rows


def plot_bias_variance(values, ns, lams, state: int = START, label: str = "", figsize=None):
    """Two panels: bias², variance and their sum against n for :math:`G^{(n)}` (left) and
    against λ for :math:`G^\\lambda` (right), the smallest sum marked. Both x axes are
    logarithmic in the look-ahead: n, and for λ its horizon :math:`1/(1-\\lambda)` (tick labels
    in λ), so that λ = 0.9, 0.95, 0.99 are spread out like n = 10, 20, 100. λ = 1 (the Monte
    Carlo return) has no finite horizon: it is the dotted line.
    ``figsize``: the figure's size in inches when the function makes the figure (a
    slide wants it wide and short)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    use_style()
    fig, axes = plt.subplots(1, 2, figsize=figsize or (12.5, 4.6), sharey=True)
    lams = np.asarray(lams, dtype=float)
    finite = lams[lams < 1.0]
    panels = ((axes[0], n_step_bias_variance(values, ns, state), "n"),
              (axes[1], lambda_return_bias_variance(values, finite, state), "lam"))
    for ax, r, key in panels:
        x = r["n"] if key == "n" else 1.0 / (1.0 - r["lam"])
        ax.plot(x, r["bias"] ** 2, color=OKABE_ITO["vermillion"], label="bias²")
        ax.plot(x, r["variance"], color=OKABE_ITO["blue"], label="variance")
        ax.plot(x, r["mse"], "k--", label="bias² + variance")
        best = int(np.argmin(r["mse"]))
        what = f"n = {r['n'][best]}" if key == "n" else f"λ = {r['lam'][best]:g}"
        # named in the legend, which is placed off the data (written beside the point, the
        # words sat on the curves)
        ax.plot(x[best], r["mse"][best], "ko", ms=8, ls="none", label=f"smallest at {what}")
        ax.set_xscale("log")
        ax.xaxis.set_minor_locator(NullLocator())
    axes[0].xaxis.set_major_locator(FixedLocator([1, 2, 5, 10, 20, 50, 100]))
    axes[0].xaxis.set_major_formatter(ScalarFormatter())
    axes[0].set_xlabel("n (steps before bootstrapping, log scale)")
    ticks = [t for t in (0.0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99) if t <= finite.max()]
    axes[1].xaxis.set_major_locator(FixedLocator([1.0 / (1.0 - t) for t in ticks]))
    axes[1].set_xticklabels([f"{t:g}" for t in ticks])
    axes[1].set_xlabel("λ (at its horizon 1/(1 − λ), log scale)")
    if np.any(lams >= 1.0):
        mc = lambda_return_bias_variance(values, [1.0], state)["mse"][0]
        # drawn across the panel as data (an axhline counts as a reference line), so that its
        # own legend is placed off it, not on it
        lo, hi = axes[1].get_xlim()
        (line,) = axes[1].plot([lo, hi], [mc, mc], color="0.4", ls=":", lw=1.5,
                               label="λ = 1 (Monte Carlo):\nbias² + variance")
        axes[1].set_xlim(lo, hi)
        best = [ln for ln in axes[1].lines if ln.get_label().startswith("smallest")]
        axes[1].legend(handles=best + [line], loc="upper right", fontsize=13)
    axes[0].set_ylabel(f"squared error of the target for v({state})")
    axes[0].set_title(r"n-step return $G^{(n)}$", loc="left")
    axes[1].set_title(r"λ-return $G^\lambda$", loc="left")
    axes[0].legend(loc="upper right")
    if label:
        fig.suptitle(label, fontsize=13)
    fig.tight_layout()
    legend_off_data(fig, [axes[1]])
    legend_off_data(fig, [axes[0]])
    return axes
