r"""The kernel's runs: one run of Sarsa(:math:`\lambda`) or forward Sarsa(:math:`\lambda`)
from start to end in compiled code, every operation in the order the batched engine's
iterations take it (:mod:`..control`), so that the numbers are the same. A diverged run is
frozen as in the batch: weights zeroed, ``diverged_at`` = the episodes completed, returns
``nan`` from that episode on."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from . import algorithm1
from .env import N_IN_ARR, env_reset, env_step
from .numerics import _ok, choose, fma, q_all, slope, update, value

#: A run's parameters (one record, compiled as a tuple): ``env`` (:data:`.env.ENVS`),
#: ``n_ep`` episodes, the episode ``cap`` and whether a capped episode ``bootstrap``s,
#: ``eps`` (epsilon-greedy), ``alpha``, ``gamma``, ``gl`` = gamma lambda, ``g1l`` =
#: gamma (1 - lambda), Algorithm 1's ``Km1`` = K - 1, ``c_final``, ``gl_div`` and FIFO length
#: ``ring`` (:func:`..schedule.algorithm1_constants`), the divergence ``bound``, forward
#: Sarsa's ``flush_pops`` (the batch's pops an iteration), Sarsa's trace ``rescale``
#: threshold, and the set-up variant ``hidden``, ``inputs``, ``start``
#: (:data:`.numerics.HIDDEN`, :data:`.env.INPUTS`, :data:`.env.STARTS`; 0: the paper's).
RunParams = namedtuple("RunParams", [
    "env", "n_ep", "cap", "bootstrap", "eps", "alpha", "gamma", "gl", "g1l", "Km1", "c_final",
    "gl_div", "ring", "bound", "flush_pops", "rescale", "hidden", "inputs", "start"])


@njit(cache=True, error_model="numpy")
def _freeze(th, returns, ep, lengths=None):
    """A diverged run: weights zeroed, returns from episode ``ep`` on ``nan`` (and
    ``lengths`` -1: an episode whose final flush diverged was recorded already)."""
    th[:] = 0.0
    returns[ep:] = np.nan
    if lengths is not None:
        lengths[ep:] = -1
    return ep


@njit(cache=True, error_model="numpy")
def _pop(th, ring_x, ring_a, ring_r, q, R, U, alpha, gl_div, n, H, h, d, bound, act=0):
    r"""Pop :math:`\langle S_p, A_p, \rho_p\rangle`, update the network of :math:`A_p`
    towards U, move U on; returns ``(U, ok)``."""
    slot = q % R
    xp = ring_x[slot]
    ap = ring_a[slot]
    v = value(th, ap, xp, n, H, h, act)
    update(th, ap, xp, n, H, h, d, alpha * (U - v), act)
    return algorithm1.shift(U, ring_r[slot], gl_div), abs(v) <= bound


@njit(cache=True, error_model="numpy", inline="always")
def _buffers(th, env):
    """A run's sizes and scratch: ``(A, P, n, H, h, d, Q, x, xn, state)``."""
    A, P = th.shape
    n = N_IN_ARR[env]
    H = (P - 1) // (n + 2)
    return (A, P, n, H, np.empty(H), np.empty(H), np.empty(A), np.empty(n), np.empty(n),
            np.zeros(4))


@njit(cache=True, error_model="numpy", inline="always")
def _start(env, sgen, agen, state, x, th, n, H, h, Q, eps, bound, var):
    r"""Start an episode: reset, :math:`\hat Q(S_0, \cdot)`, :math:`A_0`. Returns
    ``(ok, A_0)``; not ok: a value is beyond ``bound`` (the run diverged), nothing drawn.
    ``var``: the set-up variant ``(hidden, inputs, start)`` (:data:`.numerics.HIDDEN`, ...)."""
    env_reset(env, sgen, state, x, var[1], var[2])
    q_all(th, x, n, H, h, Q, var[0])
    if not _ok(Q, bound):
        return False, 0
    return True, choose(Q, eps, agen)


@njit(cache=True, error_model="numpy", inline="always")
def _act(env, state, act, xn, t, cap, bootstrap, th, n, H, h, Q, eps, agen, var):
    r"""Take action ``act``, observe :math:`R, S'` (features into ``xn``) and choose
    :math:`A'` from :math:`\hat Q(S', \cdot)` unless the episode ended (``bootstrap``: a
    truncated episode still chooses). Returns ``(R, end, chose, A', Q(S', A'))`` (``A'`` =
    ``act`` and value 0 when it did not choose)."""
    r, term = env_step(env, state, act, xn, var[1])
    end = term or t + 1 >= cap
    ch = (not term) if bootstrap else (not end)
    if not ch:
        return r, end, ch, act, 0.0
    q_all(th, xn, n, H, h, Q, var[0])
    a_new = choose(Q, eps, agen)
    return r, end, ch, a_new, Q[a_new]


@njit(cache=True, error_model="numpy")
def forward_sarsa_run(th, p, sgen, agen, returns, lengths):
    r"""One run of forward Sarsa(:math:`\lambda`) (Algorithm 1 with
    :math:`V_{next} = \hat Q(S', A'|\theta)`), in the order of
    :meth:`..control.ControlBatch._iteration_forward`. ``th`` ``(A, P)`` is updated in place;
    ``p``: the run's :class:`RunParams`; ``sgen``, ``agen``: its start and agent generators;
    ``returns``/``lengths`` ``(n_ep,)`` are filled. Returns ``(diverged_at, steps)``
    (``diverged_at`` -1: never)."""
    env, n_ep, cap, bootstrap, eps, bound = p.env, p.n_ep, p.cap, p.bootstrap, p.eps, p.bound
    alpha, gamma, gl, g1l, Km1 = p.alpha, p.gamma, p.gl, p.g1l, p.Km1
    c_final, gl_div, R, flush_pops = p.c_final, p.gl_div, p.ring, p.flush_pops
    var = (p.hidden, p.inputs, p.start)
    hid = var[0]
    A, P, n, H, h, dd, Q, x, xn, state = _buffers(th, env)
    ring_x = np.empty((R, n))
    ring_a = np.zeros(R, dtype=np.int64)
    ring_r = np.empty(R)
    steps = ep = 0
    while True:  # an episode
        ok, act = _start(env, sgen, agen, state, x, th, n, H, h, Q, eps, bound, var)
        if not ok:
            return _freeze(th, returns, ep), steps
        ret = 0.0
        t = 0
        U, U_sync, V_cur, c, i, ready = algorithm1.start()
        p = 0
        q = 0
        while True:
            r, end, ch, a_new, v_next = _act(env, state, act, xn, t, cap, bootstrap, th, n, H,
                                             h, Q, eps, agen, var)
            t += 1
            steps += 1
            ret += r
            # push <phi(S), A, rho>, rho = R + gamma (1 - lambda) V_next
            slot = p % R
            ring_x[slot, :] = x
            ring_a[slot] = act
            ring_r[slot], U, U_sync, V_cur, c, i, ready = algorithm1.step(
                r, v_next, U, U_sync, V_cur, c, i, ready, gamma, g1l, gl, Km1, c_final)
            p += 1
            if ready:
                U, ok = _pop(th, ring_x, ring_a, ring_r, q, R, U, alpha, gl_div, n, H, h,
                             dd, bound, hid)
                q += 1
                if not ok:
                    return _freeze(th, returns, ep), steps
            if end:
                U = algorithm1.episode_end(U, U_sync, ready)
                # the batch pops up to flush_pops - 1 more in this iteration, before it
                # checks Q(S') and records the episode: its schedule, not Algorithm 1's; no
                # number depends on it (a divergence here or in the check freezes the run in
                # this episode alike), and the pieces' forward Sarsa(lambda), which pops the
                # whole flush at the episode's end, gives this run's numbers bit for bit
                # (tests/engine/test_compiled_paper_methods.py)
                for _ in range(flush_pops - 1):
                    if p == q:
                        break
                    U, ok = _pop(th, ring_x, ring_a, ring_r, q, R, U, alpha, gl_div, n, H,
                                 h, dd, bound, hid)
                    q += 1
                    if not ok:
                        return _freeze(th, returns, ep), steps
            x[:] = xn
            act = a_new
            if ch and not _ok(Q, bound):
                return _freeze(th, returns, ep), steps
            if end:
                break
        returns[ep] = ret
        lengths[ep] = t
        while p > q:  # the rest of the flush
            U, ok = _pop(th, ring_x, ring_a, ring_r, q, R, U, alpha, gl_div, n, H, h, dd,
                         bound, hid)
            q += 1
            if not ok:
                return _freeze(th, returns, ep, lengths), steps
        ep += 1
        if ep >= n_ep:
            return -1, steps


@njit(cache=True, error_model="numpy", inline="always")
def sarsa_traces(th, e, g, h, dd, x, act, n, H, s, keep, gl, rescale, alpha_delta, hid):
    r"""Sarsa(:math:`\lambda`)'s step on accumulating traces kept scaled, :math:`e = s\hat e`
    (the paper's Sec. 2; Sutton & Barto 2018, Sec. 12.7): every trace decays through
    :math:`s \leftarrow \gamma\lambda s` (``gl``; renormalised to 1 below ``rescale``),
    :math:`\hat e_A \leftarrow \mathrm{keep}\,\hat e_A + \nabla\hat Q(S, A)/s` (``keep``
    0: the traces start afresh; the other actions' traces are then zeroed) and
    :math:`\theta \leftarrow \theta + (\alpha\delta s)\hat e`, every action's network.
    ``h`` holds the hidden units of :math:`\hat Q(S, A)` (features ``x``), ``dd`` and ``g``
    are scratch; ``alpha_delta`` = :math:`\alpha\delta`. Returns the new ``s``. One
    function for :func:`sarsa_run` and the extension point's Sarsa(:math:`\lambda`)
    (:mod:`ftd_lib.engine.compiled.sarsa_lambda`), so both round alike."""
    A, P = th.shape
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
    slope(h, th[act], w2, H, dd, hid)
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
        if b == act:
            for k in range(P):
                eb[k] = fma(eb[k], keep, g[k])
        elif keep == 0.0:
            eb[:] = 0.0
    coef = alpha_delta * s_new
    for b in range(A):
        eb = e[b]
        wb = th[b]
        for k in range(P):
            wb[k] = fma(eb[k], coef, wb[k])
    return s_new


@njit(cache=True, error_model="numpy")
def sarsa_run(th, p, sgen, agen, returns, lengths):
    r"""One run of Sarsa(:math:`\lambda`) with accumulating traces kept scaled
    (:math:`e = s\hat e`), in the order of :meth:`..control.ControlBatch._iteration_sarsa`;
    arguments and result as :func:`forward_sarsa_run`."""
    env, n_ep, cap, bootstrap, eps, bound = p.env, p.n_ep, p.cap, p.bootstrap, p.eps, p.bound
    alpha, gamma, gl, rescale = p.alpha, p.gamma, p.gl, p.rescale
    var = (p.hidden, p.inputs, p.start)
    A, P, n, H, h, dd, Q, x, xn, state = _buffers(th, env)
    g = np.empty(P)
    e = np.zeros((A, P))
    steps = ep = 0
    # (the episode loop's head as forward_sarsa_run's: a shared helper would return ten
    # values to save four lines of a hot loop, so each run reads top to bottom)
    while True:  # an episode: the traces start afresh
        s, keep = 1.0, 0.0
        ok, act = _start(env, sgen, agen, state, x, th, n, H, h, Q, eps, bound, var)
        if not ok:
            return _freeze(th, returns, ep), steps
        ret = 0.0
        t = 0
        while True:
            r, end, ch, a_new, q_next = _act(env, state, act, xn, t, cap, bootstrap, th, n, H,
                                             h, Q, eps, agen, var)
            t += 1
            steps += 1
            ret += r
            v = value(th, act, x, n, H, h, var[0])  # Q(S, A); h: its hidden units
            delta = r + gamma * q_next - v
            # the traces and the weights (e = s e^); keep = 1 from the next step on
            s = sarsa_traces(th, e, g, h, dd, x, act, n, H, s, keep, gl, rescale,
                             alpha * delta, var[0])
            keep = 1.0
            x[:] = xn
            act = a_new
            if not abs(v) <= bound or (ch and not _ok(Q, bound)):
                return _freeze(th, returns, ep), steps
            if end:
                break
        returns[ep] = ret
        lengths[ep] = t
        ep += 1
        if ep >= n_ep:
            return -1, steps
