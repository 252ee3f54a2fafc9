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
:math:`\beta = \alpha T` for TD(:math:`\lambda`=1) (eq. VT).
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


def rms_error_first_episodes(alpha, lengths, method: str, v0: float = 0.0) -> np.ndarray:
    """Fig. 2 right: RMS error at episode ends, averaged over the episodes, per alpha.

    ``lengths`` has shape (runs, episodes); ``method`` is ``"td"`` (TD(lambda=1)) or
    ``"lambda_return"``. Returns one number per alpha: the square root of the mean squared
    error over episodes and runs (``inf`` where the values blew up).
    """
    alpha = np.atleast_1d(np.asarray(alpha, dtype=float))
    for a in alpha:
        check_alpha(a)
    lengths = np.asarray(lengths)
    beta_fn = {"td": beta_td, "lambda_return": beta_lambda_return}.get(method)
    if beta_fn is None:
        raise ValueError(f"method must be 'td' or 'lambda_return', got {method!r}")
    out = []
    with np.errstate(over="ignore", invalid="ignore"):
        for a in alpha:
            v = values_after_episodes(beta_fn(a, lengths), v0)
            mse = np.mean((1.0 - v) ** 2)
            out.append(np.sqrt(mse) if np.isfinite(mse) else np.inf)
    return np.array(out)
