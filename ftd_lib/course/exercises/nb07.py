r"""Self-checks for notebook 07 (GAE and the paper's interim :math:`\lambda`-return). The right
answers are computed here with the library, never printed: a check says only whether the
answer is right."""

from __future__ import annotations

import numpy as np

from ...returns import gae
from . import missing, verdict

#: the rollouts the check runs a student's GAE on: (gamma, lam, T, steps that end an episode)
CASES = ((0.99, 0.95, 12, (4,)), (1.0, 0.9, 9, ()), (0.9, 0.5, 10, (0, 6, 9)))


def _rollout(case, seed):
    gamma, lam, T, ends = case
    g = np.random.default_rng(seed)
    r = g.normal(-1.0, 2.0, T)
    v = g.normal(0.0, 3.0, T + 1)
    d = np.zeros(T)
    d[list(ends)] = 1.0
    return r, v, gamma, lam, d


def check_gae(my_gae) -> bool:
    r"""Exercise 1: ``my_gae(rewards, values, gamma, lam, terminals)`` against
    :func:`ftd_lib.returns.gae` on three rollouts (one with no episode end, two with ends
    inside, one ending exactly at the cut)."""
    if missing(my_gae):
        return False
    for k, case in enumerate(CASES):
        r, v, gamma, lam, d = _rollout(case, 7 + k)
        try:
            got = my_gae(r.copy(), v.copy(), gamma, lam, d.copy())
        except Exception as e:  # noqa: BLE001 - a student's bug is reported, not raised
            return verdict(False, "", f"Your function raised {type(e).__name__}: {e}")
        if got is None:
            return missing(None)
        got = np.asarray(got, dtype=float)
        want = gae(r, v, gamma, lam, terminals=d)
        if got.shape != want.shape:
            return verdict(False, "", f"It returned shape {got.shape}, expected {want.shape}: "
                           "one advantage per reward.")
        if not np.allclose(got, want, rtol=1e-9, atol=1e-9):
            if d.any() and np.allclose(got, gae(r, v, gamma, lam), rtol=1e-9, atol=1e-9):
                hint = ("it ignores the terminals: where terminals[t] = 1, neither bootstrap "
                        "from values[t+1] nor carry A_{t+1} back.")
            elif np.isclose(got[-1], want[-1]) and not np.isclose(got[0], want[0]):
                hint = "the last entry is right: is the recursion run backwards, with γλ?"
            else:
                hint = ("compare δ_t = R_{t+1} + γ(1−d_t)V(S_{t+1}) − V(S_t) first (λ = 0 "
                        "gives A = δ).")
            return verdict(False, "", f"Not yet, on rollout {k + 1} (γ = {gamma}, λ = {lam}, "
                           f"episode ends after steps {list(case[3])}): {hint}")
    return verdict(True, "Correct: your GAE equals the library's on all three rollouts, so "
                   "A_t + V(S_t) is the interim λ-return G_t^{λ|h}.", "")
