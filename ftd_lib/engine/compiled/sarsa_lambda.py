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
from ..kernel.numerics import fma, slope


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
    A, P = th.shape
    if t == 0:  # a new episode: the traces start afresh
        sk[0] = 1.0
        sk[1] = 0.0
    s, keep = sk[0], sk[1]
    v = value(th, a, x, net)
    delta = r + gamma * q2 - v
    s_new = s * gl
    if s_new < rescale:
        if s_new == 0:
            keep = 0.0
        elif s_new > 0:
            for b in range(A):
                eb = e[b]
                for k in range(P):
                    eb[k] = eb[k] * s_new
        s_new = 1.0
    inv = 1.0 / s_new
    w2 = (n + 1) * H + 1
    slope(h, th[a], w2, H, dd, hid)
    for j in range(n):
        xi = x[j] * inv
        for k in range(H):
            g[j * H + k] = dd[k] * xi
    for k in range(H):
        g[n * H + k] = dd[k] * inv
        g[w2 + k] = h[k] * inv
    g[(n + 1) * H] = 1.0 * inv
    for b in range(A):
        eb = e[b]
        if b == a:
            for k in range(P):
                eb[k] = fma(eb[k], keep, g[k])
        elif keep == 0.0:
            eb[:] = 0.0
    sk[0] = s_new
    sk[1] = 1.0
    coef = alpha * delta * s_new
    for b in range(A):
        eb = e[b]
        wb = th[b]
        for k in range(P):
            wb[k] = fma(eb[k], coef, wb[k])
    return within(v, net)


@njit(error_model="numpy")
def kernel_end(th, mem, net, mp, T):
    """Nothing waits at the end."""
    return True
