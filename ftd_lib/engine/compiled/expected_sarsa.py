r"""Expected Sarsa (Sutton & Barto 2018, Sec. 6.6 and 10.2) as pieces of the kernel's extension
point (:mod:`ftd_lib.engine.kernel.extend`): the worked example of a target that averages over
the policy, :math:`\bar V(S') = \sum_a\pi(a|S')\hat Q(S', a)`, with :math:`\pi` from the
kernel's compiled :func:`~ftd_lib.engine.kernel.extend.epsilon_greedy_probs` (the kernel's own
choice's probabilities, its tie rule included). Held to the per-run reference
:func:`ftd_lib.references.expected_sarsa.expected_sarsa` by ``check_method``
(``tests/engine/test_method_check_mutants.py``); not named in the method's row, so no stored
result changes engine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernel.extend import epsilon_greedy_probs, update, value, within


def kernel_params(row):
    r"""``(alpha, gamma, epsilon)``."""
    return row["alpha"], row["gamma"], row["epsilon"]


@njit(error_model="numpy")
def kernel_init(A, P, n_in, mp):
    r""":math:`\pi(\cdot|S')`, one number an action."""
    return np.empty(A)


@njit(error_model="numpy")
def expected_value(Q, eps, probs):
    r""":math:`\sum_a\pi(a|S')\hat Q(S', a)`, summed in the actions' order (as the
    reference's Python sum)."""
    epsilon_greedy_probs(Q, eps, probs)
    v = 0.0
    for b in range(Q.shape[0]):
        v = v + probs[b] * Q[b]
    return v


@njit(error_model="numpy")
def kernel_step(th, mem, net, mp, t, x, a, r, xn, a2, q2, Q, chose):
    r""":math:`\theta_A \mathrel{+}= \alpha(R + \gamma\bar V(S') - \hat Q(S, A))\nabla\hat Q(S,
    A)` (:math:`\bar V` 0 after a terminal state)."""
    alpha, gamma, eps = mp
    v_next = expected_value(Q, eps, mem) if chose else 0.0
    v = value(th, a, x, net)
    update(th, a, x, net, alpha * (r + gamma * v_next - v))
    return within(v, net)


@njit(error_model="numpy")
def kernel_end(th, mem, net, mp, T):
    """Nothing waits at the end."""
    return True
