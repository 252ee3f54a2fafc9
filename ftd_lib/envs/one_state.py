r"""The one-state example of the paper's Figure 2 (Sec. 4).

One non-terminal state and a terminal state. The agent stays in the state with reward 0 and
finally moves to the terminal state with reward 1; gamma = 1. So every return, and every
:math:`\lambda`-return :math:`G_k^{\lambda|T}` with :math:`\lambda = 1`, equals 1: the true
value is 1. The paper leaves the episode length open; we offer a fixed length T and a random
one (after every step the episode continues with probability ``p_continue``, so T is
geometric with mean :math:`1/(1-p)`).

With a single feature equal to 1 (``Linear(1)``), one episode moves the value by the
pseudo-update :math:`\hat V_T = \hat V_0 + \beta(1-\hat V_0)` with
:math:`\beta = 1-(1-\alpha)^T` for the :math:`\lambda`-return algorithm and
:math:`\beta = \alpha T` for TD(:math:`\lambda`=1) (the pseudo-update of Sec. 4, eq. 4).
"""

from __future__ import annotations

import numpy as np

from ..validate import check_alpha


def one_state_episode(T: int):
    """One episode of length T in the contract's format (feature 1, terminal row 0)."""
    if int(T) < 1:
        raise ValueError(f"T must be >= 1, got {T!r}")
    T = int(T)
    x = np.ones((T + 1, 1))
    x[-1] = 0.0
    r = np.zeros(T)
    r[-1] = 1.0
    return x, r


def episode_lengths(n_episodes: int, rng: np.random.Generator | None = None, *,
                    T: int | None = None, p_continue: float | None = None) -> np.ndarray:
    """Lengths: all equal to ``T``, or geometric with continuation probability ``p_continue``."""
    if (T is None) == (p_continue is None):
        raise ValueError("give exactly one of T (fixed length) and p_continue (random length)")
    if int(n_episodes) < 1:
        raise ValueError(f"n_episodes must be >= 1, got {n_episodes!r}")
    if T is not None:
        if int(T) < 1:
            raise ValueError(f"T must be >= 1, got {T!r}")
        return np.full(int(n_episodes), int(T))
    if not (0.0 <= float(p_continue) < 1.0):
        raise ValueError(f"p_continue must be in [0, 1), got {p_continue!r}")
    if rng is None:
        raise ValueError("rng is required for random episode lengths")
    return rng.geometric(1.0 - float(p_continue), size=int(n_episodes))


def one_state_episodes(n_episodes: int, rng: np.random.Generator | None = None, *,
                       T: int | None = None, p_continue: float | None = None):
    """Episodes in the contract's format, of fixed length ``T`` or random length."""
    return [one_state_episode(t) for t in episode_lengths(n_episodes, rng, T=T,
                                                          p_continue=p_continue)]


def beta_lambda_return(alpha, T):
    r""":math:`\beta = 1-(1-\alpha)^T`: the step of the :math:`\lambda`-return algorithm."""
    return 1.0 - (1.0 - np.asarray(alpha, dtype=float)) ** np.asarray(T, dtype=float)


def beta_td(alpha, T):
    r""":math:`\beta = \alpha T`: the step of TD(:math:`\lambda`=1); > 2 diverges."""
    return np.asarray(alpha, dtype=float) * np.asarray(T, dtype=float)


def values_after_episodes(beta, v0: float = 0.0) -> np.ndarray:
    r"""Values at each episode's end by the pseudo-update
    :math:`\hat V_T = \hat V_0 + \beta(1-\hat V_0)`, for a sequence of per-episode betas.

    The error shrinks by :math:`|1-\beta|` every episode: it diverges when
    :math:`\beta > 2`. Overflow gives ``inf``/``nan`` silently (a diverged run).
    """
    beta = np.asarray(beta, dtype=float)
    err = (1.0 - float(v0)) * np.cumprod(1.0 - beta, axis=-1)
    return 1.0 - err


BETA_FN = {"td_lambda": beta_td, "online_lambda_return": beta_lambda_return}


def error_first_episodes(alpha, lengths, method: str, v0: float = 0.0,
                         metric: str = "mean_abs") -> np.ndarray:
    r"""Fig. 2 right: the error at episode ends, averaged over the episodes, one number per alpha.

    ``lengths`` has shape (runs, episodes); ``method`` is ``"td_lambda"`` (TD(lambda=1),
    :math:`\beta = \alpha T`) or ``"online_lambda_return"`` (:math:`\beta = 1-(1-\alpha)^T`).
    With one state, the RMS error over states at an episode's end is :math:`|1-\hat V_T|`;
    ``metric="mean_abs"`` averages it over episodes and runs (the paper's words),
    ``metric="rms"`` takes the root of the mean squared error instead. ``inf`` where the
    values blew up (a diverged run), never a warning.
    """
    alpha = np.atleast_1d(np.asarray(alpha, dtype=float))
    for a in alpha:
        check_alpha(a)
    lengths = np.asarray(lengths)
    if method not in BETA_FN:
        raise ValueError(f"method must be one of {sorted(BETA_FN)}, got {method!r}")
    if metric not in ("mean_abs", "rms"):
        raise ValueError(f"metric must be 'mean_abs' or 'rms', got {metric!r}")
    out = []
    with np.errstate(over="ignore", invalid="ignore"):
        for a in alpha:
            err = np.abs(1.0 - values_after_episodes(BETA_FN[method](a, lengths), v0))
            e = np.mean(err) if metric == "mean_abs" else np.sqrt(np.mean(err**2))
            out.append(e if np.isfinite(e) else np.inf)
    return np.array(out)
