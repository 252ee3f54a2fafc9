r"""Self-checks for notebook 07 (GAE and the paper's interim :math:`\lambda`-return). The right
answers are computed here with the library, never printed: a check says only whether the
answer is right."""

from __future__ import annotations

import numpy as np

from ...returns import gae, rollout_returns_by_definition
from . import as_numbers, not_written, run_student, verdict

#: the rollouts the check runs a student's GAE on: (gamma, lam, T, steps that end an episode)
CASES = ((0.99, 0.95, 12, (4,)), (1.0, 0.9, 9, ()), (0.9, 0.5, 10, (0, 6, 9)))

#: library code that computes GAE (or the λ-returns it is made from), refused in an answer
GAE_LIBRARY = (gae, rollout_returns_by_definition)


def _rollout(case, seed):
    gamma, lam, T, ends = case
    g = np.random.default_rng(seed)
    r = g.normal(-1.0, 2.0, T)
    v = g.normal(0.0, 3.0, T + 1)
    d = np.zeros(T)
    d[list(ends)] = 1.0
    return r, v, gamma, lam, d


def _masked_wrong(r, v, gamma, lam, d, *, mask_value: bool, mask_advantage: bool):
    """The recursion with one of its two terminal masks left out (the usual slips)."""
    adv, a = np.zeros(len(r)), 0.0
    for t in range(len(r) - 1, -1, -1):
        m = 1.0 - d[t]
        delta = r[t] + gamma * (m if mask_value else 1.0) * v[t + 1] - v[t]
        a = delta + gamma * lam * (m if mask_advantage else 1.0) * a
        adv[t] = a
    return adv


def _why(got, r, v, gamma, lam, d, want) -> str:
    """What a wrong GAE on this rollout most likely got wrong."""
    def same(x):
        return bool(np.allclose(got, x, rtol=1e-9, atol=1e-9))

    if d.any() and same(gae(r, v, gamma, lam)):
        return ("it ignores the terminals: where terminals[t] = 1, neither bootstrap from "
                "values[t+1] nor carry A_{t+1} back.")
    if d.any() and same(_masked_wrong(r, v, gamma, lam, d, mask_value=False,
                                      mask_advantage=True)):
        return ("at an episode's end (terminals[t] = 1) it still bootstraps from values[t+1], "
                "the first state of the next episode: mask the value too, "
                "δ_t = R_{t+1} + γ(1−d_t)V(S_{t+1}) − V(S_t).")
    if d.any() and same(_masked_wrong(r, v, gamma, lam, d, mask_value=True,
                                      mask_advantage=False)):
        return ("at an episode's end it still carries A_{t+1} back across the end: mask the "
                "advantage too, A_t = δ_t + γλ(1−d_t)A_{t+1}.")
    if same(gae(r, v, gamma, 0.0, terminals=d)):
        return "these are the TD errors δ_t alone (λ = 0): add γλ(1−d_t)A_{t+1}."
    if not d[-1] and np.isclose(got[-1], want[-1]) and not np.isclose(got[0], want[0]):
        return "the last entry is right, the first is not: is the recursion run backwards, with γλ?"
    return ("compare δ_t = R_{t+1} + γ(1−d_t)V(S_{t+1}) − V(S_t) first (λ = 0 gives A = δ), then "
            "A_t = δ_t + γλ(1−d_t)A_{t+1} from A_T = 0, t = T−1, …, 0.")


def check_gae(my_gae) -> bool:
    r"""``my_gae(rewards, values, gamma, lam, terminals)`` against
    :func:`ftd_lib.returns.gae` on three rollouts (one with no episode end, two with ends
    inside, one ending exactly at the cut). A function that runs the library's GAE
    (:data:`GAE_LIBRARY`, under any name) is refused."""
    if not_written(my_gae, "your GAE function (my_gae)"):
        return False
    for k, case in enumerate(CASES):
        r, v, gamma, lam, d = _rollout(case, 7 + k)
        got, err = run_student(my_gae, r.copy(), v.copy(), gamma, lam, d.copy(),
                               refuse=GAE_LIBRARY)
        if err is not None:
            return verdict(False, "", err)
        if got is None:
            return verdict(False, "", "Your my_gae returns None: compute the advantages, one "
                           "per reward (shape (T,)), and return them.")
        got = as_numbers(got, "what my_gae returns")
        if got is None:
            return False
        want = gae(r, v, gamma, lam, terminals=d)
        if got.shape != want.shape:
            return verdict(False, "", f"It returned shape {got.shape}, expected {want.shape}: "
                           "one advantage per reward.")
        if not np.allclose(got, want, rtol=1e-9, atol=1e-9):
            return verdict(False, "", f"Not yet, on rollout {k + 1} (γ = {gamma}, λ = {lam}, "
                           f"episode ends after steps {list(case[3])}): "
                           f"{_why(got, r, v, gamma, lam, d, want)}")
    return verdict(True, "Correct: your GAE equals the library's on all three rollouts, so "
                   "A_t + V(S_t) is the interim λ-return G_t^{λ|h}.", "")
