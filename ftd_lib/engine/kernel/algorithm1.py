r"""Algorithm 1's :math:`\lambda`-return bookkeeping (paper Sec. 5), compiled once for the
kernel's two forward loops: forward TD(:math:`\lambda`) on recorded episodes
(:func:`.prediction.forward_td_episode`) and forward Sarsa(:math:`\lambda`)
(:func:`.runs.forward_sarsa_run`), whose :math:`V_{next}` is :math:`\hat V(S'|\theta)` or
:math:`\hat Q(S', A'|\theta)`. Each function is inlined where it is called (no call per
step), and does the algorithm's operations in its order, so the numbers are the batch's.

An episode's state is ``(U, U_sync, V_cur, c, i, ready)``: :func:`start` (line 8 of
Algorithm 1), :func:`step` (lines 13 and 15-24: :math:`\rho`, :math:`\delta'`, the
resynchronisation every K steps, :math:`U \mathrel{+}= c_{final}\delta'` once ready),
:func:`shift` (lines 27 and 33: one step later in time after a pop) and :func:`episode_end`
(line 29).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, error_model="numpy", inline="always")
def start():
    r""":math:`U = U_{sync} = V_{current} = 0`, :math:`c = 1`, :math:`i = 0`,
    :math:`ready` false: ``(U, U_sync, V_cur, c, i, ready)``."""
    return 0.0, 0.0, 0.0, 1.0, 0, False


@njit(cache=True, error_model="numpy", inline="always")
def step(r, v_next, U, U_sync, V_cur, c, i, ready, gamma, g1l, gl, Km1, c_final):
    r"""One step's bookkeeping from the reward ``r`` and :math:`V_{next}`:
    :math:`\rho = R + \gamma(1-\lambda)V_{next}` (``g1l`` = :math:`\gamma(1-\lambda)`),
    :math:`\delta' = R + \gamma V_{next} - V_{current}`, :math:`V_{current} = V_{next}`; if
    :math:`i = K - 1` (``Km1``): :math:`U = U_{sync}`, :math:`U_{sync} = V_{current}`,
    :math:`i = 0`, :math:`c = 1`, ready; else :math:`U_{sync} \mathrel{+}= c\delta'`,
    :math:`i \mathrel{+}= 1`, :math:`c \mathrel{*}= \gamma\lambda` (``gl``); once ready,
    :math:`U \mathrel{+}= c_{final}\delta'` (:math:`G_t^{\lambda|t+K}`, the target of this
    step's pop). Returns ``(rho, U, U_sync, V_cur, c, i, ready)``."""
    rho = r + g1l * v_next
    d_prime = r + gamma * v_next - V_cur
    V_cur = v_next
    if i == Km1:
        U = U_sync
        U_sync = V_cur
        i = 0
        c = 1.0
        ready = True
    else:
        U_sync = U_sync + c * d_prime
        i += 1
        c = gl * c
    if ready:
        U = U + c_final * d_prime
    return rho, U, U_sync, V_cur, c, i, ready


@njit(cache=True, error_model="numpy", inline="always")
def shift(U, rho_p, gl_div):
    r""":math:`G_{t+1}^{\lambda|t+K} = (G_t^{\lambda|t+K} - \rho_p)/\gamma\lambda` after the
    pop of :math:`\langle S_p, \rho_p\rangle` (``gl_div`` = :math:`\gamma\lambda`, or 1 where
    K = 1: :func:`..schedule.algorithm1_constants`)."""
    return (U - rho_p) / gl_div


@njit(cache=True, error_model="numpy", inline="always")
def episode_end(U, U_sync, ready):
    r"""The target of the end-of-episode flush: :math:`U`, or :math:`U_{sync}` if the
    episode ended before it was ready (fewer than K steps)."""
    return U if ready else U_sync
