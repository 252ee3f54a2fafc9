r"""n-step Sarsa (Sutton & Barto 2018, Sec. 7.2 and 10.2) at compiled speed: the pieces of
the kernel's extension point (:mod:`ftd_lib.engine.kernel.extend`) for the method
``n_step_sarsa``, in the order of its per-run reference
:func:`ftd_lib.references.n_step_sarsa.n_step_sarsa` (``check_method`` holds them to it).

The pair :math:`(S_\tau, A_\tau)` is updated at time :math:`\tau + n - 1` towards
:math:`G_{\tau:\tau+n} = \sum_{i=1}^{n}\gamma^{i-1}R_{\tau+i} + \gamma^n\hat Q(S_{\tau+n},
A_{\tau+n})`; the pairs still waiting at the episode's end towards the return that stops at
T. The last n + 1 steps are kept in rings of length n + 1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernel.extend import update, value, within


def kernel_params(row, n):
    r"""``(alpha, n, powers)``: ``powers[k]`` = :math:`\gamma^k`, k = 0..n, as the reference
    computes them (Python's ``gamma ** k``)."""
    gamma = row["gamma"]
    return row["alpha"], int(n), np.array([gamma ** k for k in range(int(n) + 1)])


@njit(error_model="numpy")
def kernel_init(A, P, n_in, mp):
    """Rings of the last n + 1 steps: features S, actions, rewards R, values V."""
    L = mp[1] + 1
    return np.empty((L, n_in)), np.zeros(L, dtype=np.int64), np.zeros(L), np.zeros(L)


@njit(error_model="numpy")
def _update_pair(th, mem, net, mp, tau, h):
    r"""Update :math:`(S_\tau, A_\tau)` towards :math:`G_{\tau:\tau+h}`; returns its value
    before the update."""
    S, Acts, R, V = mem
    alpha, n, powers = mp
    L = n + 1
    G = 0.0
    for k in range(h):
        G = G + powers[k] * R[(tau + k) % L]
    G = G + powers[h] * V[(tau + h) % L]
    s = tau % L
    v = value(th, Acts[s], S[s], net)
    update(th, Acts[s], S[s], net, alpha * (G - v))
    return v


@njit(error_model="numpy")
def kernel_step(th, mem, net, mp, t, x, a, r, xn, a2, q2, Q, chose):
    r"""Keep :math:`S_t, A_t, R_{t+1}, \hat Q(S_{t+1}, A_{t+1})`; update the pair n - 1
    steps back."""
    S, Acts, R, V = mem
    n = mp[1]
    L = n + 1
    S[t % L, :] = x
    Acts[t % L] = a
    R[t % L] = r
    V[(t + 1) % L] = q2
    tau = t - n + 1
    if tau < 0:
        return True
    return within(_update_pair(th, mem, net, mp, tau, n), net)


@njit(error_model="numpy")
def kernel_end(th, mem, net, mp, T):
    """The pairs still waiting, towards the returns that stop at T."""
    n = mp[1]
    for tau in range(max(0, T - n + 1), T):
        if not within(_update_pair(th, mem, net, mp, tau, min(n, T - tau)), net):
            return False
    return True
