"""Input checks shared by every algorithm: bad input raises ``ValueError`` naming the parameter."""

from __future__ import annotations

import math

import numpy as np


def check_alpha(alpha) -> float:
    """Step size: a finite number > 0."""
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a finite number > 0, got {alpha!r}") from None
    if not math.isfinite(a) or a <= 0:
        raise ValueError(f"alpha must be a finite number > 0, got {alpha!r}")
    return a


def check_unit(name: str, value) -> float:
    """A parameter in the closed interval [0, 1] (lam, gamma, epsilon)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}") from None
    if not (0.0 <= v <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return v


def check_eta(eta) -> float:
    """The K-bound fraction: a number in the open interval (0, 1)."""
    try:
        e = float(eta)
    except (TypeError, ValueError):
        raise ValueError(f"eta must be a number in (0, 1), got {eta!r}") from None
    if not (0.0 < e < 1.0):
        raise ValueError(f"eta must be in (0, 1), got {eta!r}")
    return e


def check_k_max(k_max):
    """Optional cap on K: ``None`` or an integer >= 1."""
    if k_max is None:
        return None
    if isinstance(k_max, bool) or not isinstance(k_max, (int, np.integer)):
        if isinstance(k_max, float) and k_max.is_integer():
            k_max = int(k_max)
        else:
            raise ValueError(f"k_max must be None or an integer >= 1, got {k_max!r}")
    if k_max < 1:
        raise ValueError(f"k_max must be None or an integer >= 1, got {k_max!r}")
    return int(k_max)


def check_w0(w0, n_params: int) -> np.ndarray:
    """Initial weights: a finite 1-d vector of the approximator's length."""
    w = np.asarray(w0, dtype=float)
    if w.ndim != 1 or w.shape[0] != n_params:
        raise ValueError(f"w0 must have shape ({n_params},), got {np.shape(w0)}")
    if not np.all(np.isfinite(w)):
        raise ValueError("w0 must be finite")
    return w.copy()


def check_episodes(episodes, n_features: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Episodes: a list of ``(features (T+1, n), rewards (T,))`` with T >= 1."""
    if isinstance(episodes, tuple) and len(episodes) == 2 and np.ndim(episodes[1]) == 1:
        raise ValueError("episodes must be a list of (features, rewards) pairs, got one pair")
    try:
        items = list(episodes)
    except TypeError:
        raise ValueError("episodes must be a list of (features, rewards) pairs") from None
    out = []
    for i, ep in enumerate(items):
        try:
            features, rewards = ep
        except (TypeError, ValueError):
            raise ValueError(f"episodes[{i}] must be a (features, rewards) pair") from None
        x = np.asarray(features, dtype=float)
        r = np.asarray(rewards, dtype=float)
        if x.ndim != 2 or x.shape[1] != n_features:
            raise ValueError(
                f"episodes[{i}] features must have shape (T+1, {n_features}), got {x.shape}"
            )
        if r.ndim != 1 or r.shape[0] < 1:
            raise ValueError(f"episodes[{i}] rewards must have shape (T,) with T >= 1")
        if x.shape[0] != r.shape[0] + 1:
            raise ValueError(
                f"episodes[{i}] features and rewards disagree: {x.shape[0]} feature rows "
                f"need {x.shape[0] - 1} rewards, got {r.shape[0]}"
            )
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(r))):
            raise ValueError(f"episodes[{i}] features and rewards must be finite")
        out.append((x, r))
    return out
