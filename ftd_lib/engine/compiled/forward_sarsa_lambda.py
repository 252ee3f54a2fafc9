r"""Forward Sarsa(:math:`\lambda`) (paper Sec. 6, Algorithm 1 with :math:`V_{next} =
\hat Q(S', A'|\theta)`) as pieces of the kernel's extension point
(:mod:`ftd_lib.engine.kernel.extend`), so that the paper's method runs compiled on every task
with compiled dynamics, not only on the two its own run
(:func:`ftd_lib.engine.kernel.runs.forward_sarsa_run`) takes. Algorithm 1's bookkeeping is
the kernel's (:mod:`ftd_lib.engine.kernel.algorithm1`: :func:`start`, :func:`step`,
:func:`shift`, :func:`episode_end`), the FIFO a ring of :math:`\min(K, cap) + 1` slots; on
cart-pole and mountain car the pieces give the kernel's own run's numbers bit for bit
(``tests/engine/test_compiled_paper_methods.py``). The kernel's own run pops part of the
episode's final flush before its divergence check of :math:`\hat Q(S', \cdot)` (the batch's
schedule); here the whole flush is the episode's end (:func:`kernel_end`): either order
freezes a diverging run in the same episode with the same numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernel import algorithm1
from ..kernel.extend import update, value, within
from ..schedule import algorithm1_constants
from ..settings import Settings


def kernel_params(row):
    r"""``(alpha, gamma, gamma lambda, gamma (1 - lambda), K - 1, c_final, gl_div, ring)``:
    Algorithm 1's constants for the run's settings and cap
    (:func:`ftd_lib.engine.schedule.algorithm1_constants`, as the kernel's own run)."""
    s = Settings.make(alpha=row["alpha"], lam=row["lam"], gamma=row["gamma"], eta=row["eta"],
                      k_max=row["k_max"])
    K, c_final, gl_div, ring = algorithm1_constants(s, row["cap"], np.float64)
    gam, lam = s.gamma.astype(np.float64), s.lam.astype(np.float64)
    return (float(s.alpha[0]), float(gam[0]), float((gam * lam)[0]),
            float((gam * (1 - lam))[0]), int(K[0] - 1), float(c_final[0]), float(gl_div[0]),
            int(ring[0]))


@njit(error_model="numpy")
def kernel_init(A, P, n_in, mp):
    """The FIFO of :math:`\\langle \\phi(S), A, \\rho\\rangle` (a ring), Algorithm 1's
    ``[U, U_sync, V_cur, c]`` and ``[i, ready, pushed, popped]``."""
    R = mp[7]
    return (np.empty((R, n_in)), np.zeros(R, dtype=np.int64), np.empty(R), np.zeros(4),
            np.zeros(4, dtype=np.int64))


@njit(error_model="numpy", inline="always")
def _pop(th, mem, net, mp, U):
    r"""Pop :math:`\langle S_p, A_p, \rho_p\rangle`, update the network of :math:`A_p`
    towards U (:math:`\theta \mathrel{+}= \alpha(U - \hat Q(S_p, A_p))\nabla\hat Q`), move U
    on (:func:`.algorithm1.shift`); returns ``(U, ok)``."""
    ring_x, ring_a, ring_r, _, ic = mem
    slot = ic[3] % mp[7]
    ic[3] += 1
    v = value(th, ring_a[slot], ring_x[slot], net)
    update(th, ring_a[slot], ring_x[slot], net, mp[0] * (U - v))
    return algorithm1.shift(U, ring_r[slot], mp[6]), within(v, net)


@njit(error_model="numpy")
def kernel_step(th, mem, net, mp, t, x, a, r, xn, a2, q2, Q, chose):
    r"""Push :math:`\langle\phi(S_t), A_t, \rho\rangle`, Algorithm 1's step with
    :math:`V_{next} = \hat Q(S_{t+1}, A_{t+1})` (``q2``; 0 at a terminal state), then, once
    ready, pop the oldest towards :math:`G^{\lambda|t+K}`."""
    ring_x, ring_a, ring_r, f, ic = mem
    alpha, gamma, gl, g1l, Km1, c_final, gl_div, R = mp
    if t == 0:  # a new episode (line 8 of Algorithm 1), the FIFO empty
        f[0], f[1], f[2], f[3], ic[0], ready = algorithm1.start()
        ic[1] = 0
        ic[2] = 0
        ic[3] = 0
    slot = ic[2] % R
    ring_x[slot, :] = x
    ring_a[slot] = a
    ic[2] += 1
    ring_r[slot], U, f[1], f[2], f[3], ic[0], ready = algorithm1.step(
        r, q2, f[0], f[1], f[2], f[3], ic[0], ic[1] == 1, gamma, g1l, gl, Km1, c_final)
    ic[1] = 1 if ready else 0
    ok = True
    if ready:
        U, ok = _pop(th, mem, net, mp, U)
    f[0] = U
    return ok


@njit(error_model="numpy")
def kernel_end(th, mem, net, mp, T):
    """The episode's end: U is the target of the flush (:func:`.algorithm1.episode_end`),
    then every pair left in the FIFO is popped."""
    _, _, _, f, ic = mem
    U = algorithm1.episode_end(f[0], f[1], ic[1] == 1)
    while ic[2] > ic[3]:
        U, ok = _pop(th, mem, net, mp, U)
        if not ok:
            return False
    return True
