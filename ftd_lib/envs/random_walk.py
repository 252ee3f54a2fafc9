"""The 10-state random walk of the paper's Figure 1 (Sec. 4).

Ten states in a row, ``1 .. 10``, plus a terminal state ``0`` on the left. From state ``s``
the walk moves left with probability 0.7 and right with probability 0.3; the right-most state
moves "right" onto itself. Every reward is 1 and gamma = 1, so the value of a state is the
expected number of steps to termination. Episodes start in the right-most state.

Features are tabular (one-hot, 10 columns); the terminal state's row is all zeros.
"""

from __future__ import annotations

import numpy as np

N_STATES = 10
P_LEFT = 0.7


def transition_matrix(n_states: int = N_STATES, p_left: float = P_LEFT) -> np.ndarray:
    """P[s, s'] among the non-terminal states 1..n (index s-1); the missing mass terminates."""
    P = np.zeros((n_states, n_states))
    for s in range(1, n_states + 1):
        if s > 1:
            P[s - 1, s - 2] += p_left
        P[s - 1, min(s + 1, n_states) - 1] += 1 - p_left
    return P


def true_values(n_states: int = N_STATES, p_left: float = P_LEFT) -> np.ndarray:
    r"""Exact values :math:`v = (I - P)^{-1} r` with r = 1 per step (gamma = 1)."""
    P = transition_matrix(n_states, p_left)
    return np.linalg.solve(np.eye(n_states) - P, np.ones(n_states))


def features(states, n_states: int = N_STATES) -> np.ndarray:
    """One-hot rows for states 1..n; the terminal state 0 gets the zero vector."""
    states = np.asarray(states)
    x = np.zeros((len(states), n_states))
    nz = states > 0
    x[np.nonzero(nz)[0], states[nz] - 1] = 1.0
    return x


def random_walk_states(rng: np.random.Generator, n_states: int = N_STATES,
                       p_left: float = P_LEFT) -> np.ndarray:
    """One episode's state sequence S_0 .. S_T (S_0 = n, S_T = 0)."""
    s, states = n_states, [n_states]
    while s != 0:
        s = s - 1 if rng.random() < p_left else min(s + 1, n_states)
        states.append(s)
    return np.array(states)


def random_walk_episodes(n_episodes: int, rng: np.random.Generator, n_states: int = N_STATES,
                         p_left: float = P_LEFT):
    """``n_episodes`` episodes in the contract's format: ``[(features (T+1, n), rewards (T,))]``."""
    if int(n_episodes) < 1:
        raise ValueError(f"n_episodes must be >= 1, got {n_episodes!r}")
    eps = []
    for _ in range(int(n_episodes)):
        s = random_walk_states(rng, n_states, p_left)
        eps.append((features(s, n_states), np.ones(len(s) - 1)))
    return eps


def rms_error(w: np.ndarray, v_true: np.ndarray | None = None) -> np.ndarray:
    """RMS error over all states of tabular weights ``w`` (shape (..., n)), as in Fig. 1."""
    v_true = true_values() if v_true is None else v_true
    return np.sqrt(np.mean((np.asarray(w) - v_true) ** 2, axis=-1))
