r"""Sarsa(:math:`\lambda`) as pieces of the kernel's extension point
(:mod:`ftd_lib.engine.kernel.extend`): the step of the kernel's own
:func:`ftd_lib.engine.kernel.runs.sarsa_run` (accumulating traces kept scaled,
:math:`e = s\hat e`), so that the generic run gives its numbers bit for bit
(``tests/engine/test_kernel_extend.py``) and runs Sarsa(:math:`\lambda`) on every task with
compiled dynamics (Puddle World, acrobot: ``python -m ftd_lib bench``'s kernel lines). Not
named in the method's row: the batch stays the engine of those tasks' stored results.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..control import RESCALE
from ..kernel.extend import value, within
from ..kernel.runs import sarsa_traces


def kernel_params(row):
    r"""``(alpha, gamma, gamma lambda, rescale)`` (the trace's renormalising threshold)."""
    return (row["alpha"], row["gamma"], row["gamma"] * row["lam"],
            float(RESCALE[np.float64]))


@njit(error_model="numpy")
def kernel_init(A, P, n_in, mp):
    """The gradient ``g`` (P,), the scaled traces ``e`` (A, P), ``[s, keep]``."""
    return np.empty(P), np.zeros((A, P)), np.array([1.0, 0.0])


@njit(error_model="numpy")
def kernel_step(th, mem, net, mp, t, x, a, r, xn, a2, q2, Q, chose):
    r""":math:`\delta = R + \gamma\hat Q(S', A') - \hat Q(S, A)`, :math:`e \leftarrow
    \gamma\lambda e + \nabla\hat Q(S, A)`, :math:`\theta \leftarrow \theta + \alpha\delta e`,
    rounded as :func:`ftd_lib.engine.kernel.runs.sarsa_run`."""
    g, e, sk = mem
    alpha, gamma, gl, rescale = mp
    n, H, h, dd, hid = net[0], net[1], net[2], net[3], net[4]
    if t == 0:  # a new episode: the traces start afresh
        sk[0] = 1.0
        sk[1] = 0.0
    s, keep = sk[0], sk[1]
    v = value(th, a, x, net)
    delta = r + gamma * q2 - v
    sk[0] = sarsa_traces(th, e, g, h, dd, x, a, n, H, s, keep, gl, rescale, alpha * delta,
                         hid)
    sk[1] = 1.0
    return within(v, net)


@njit(error_model="numpy")
def kernel_end(th, mem, net, mp, T):
    """Nothing waits at the end."""
    return True
