r"""Per-run compiled control: Sarsa(:math:`\lambda`) and forward Sarsa(:math:`\lambda`) on
cart-pole and mountain car, one run after another, with the same numbers as the batched
torch engine (:mod:`.control`), bit for bit.

Why
---
The batched engine spends its time on what a batch needs rather than on learning: a
full-width pass over all A networks for every pop, sub-batches for the rows that flush or
restart, dozens of numpy ops on the whole batch per iteration (``scripts/control_floor.py``
measures the floor). A run alone needs none of that: its step is a handful of small loops
over 50 hidden units. Compiled with numba, a run-step of either method on cart-pole costs
about 1.5 times a run-step of batched forward TD(:math:`\lambda`) prediction (``python -m
ftd_lib bench``, ``control:`` lines).

The same numbers
----------------
A run's result must not depend on which engine computed it (stored results are keyed by
:data:`ftd_lib.engine.NUMERICS_VERSION`, not by the engine). So every operation here rounds
exactly as the batched engine's does (``tests/test_engine_kernel.py`` checks results bit for
bit against :class:`.control.ControlBatch`):

- torch's CPU ``addcmul`` is a fused multiply-add, :math:`\mathrm{fma}(a, b, s)` (measured,
  ``tests/test_engine_kernel.py``), so it is :func:`fma` here (LLVM's ``llvm.fma``); every
  other product and sum is rounded on its own, as numpy's are (numba does not contract
  ``a * b + c`` without ``fastmath``, which is never used);
- :math:`\tanh(z) = 2\sigma(2z) - 1` with torch's :math:`\sigma(x) = 1/(1 + e^{-x})`, whose
  exponential is SLEEF's ``expd_u10`` (the algorithm of its FMA builds: Cody-Waite
  reduction, a degree-10 Estrin polynomial, two exact scalings); :func:`sleef_exp` is that
  algorithm, step for step;
- the output sum :math:`b_2 + \sum_j w_{2,j} h_j` adds the products one after another, in the
  order of the hidden units, as numpy's column sum does (:mod:`._net`);
- the environments' dynamics are the expressions of :mod:`ftd_lib.envs.cartpole` and
  :mod:`ftd_lib.envs.mountain_car` in the same order (``math.cos``/``math.sin`` are the C
  library's, as numpy's are here: checked by the tests);
- the random numbers are the run's own generators (:func:`ftd_lib.rng.run_generator`), drawn
  one at a time inside the compiled code in the order the batch draws them.

Weights of a run: ``(A, P)``, each network in the engine's internal order
``[W1^T (n x H), b1 (H), b2, w2 (H)]`` (:class:`._net.BatchedMLP`).

A diverged run is frozen as in the batch: its weights are zeroed, ``diverged_at`` is the
number of episodes completed, and its returns from that episode on are ``nan``.
"""

from __future__ import annotations

import math
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..envs import cartpole as _cp
from ..envs import mountain_car as _mc
from ..envs.tasks import TASKS

# the tasks' numbers in the compiled branches; their sizes and caps are the registry's
CARTPOLE, MOUNTAIN_CAR = 0, 1
ENVS = {"cartpole": CARTPOLE, "mountain_car": MOUNTAIN_CAR}
# set-up variants (the claim-5 study, ftd_lib.repro.study); the first of each is the default,
# whose numbers are the batched engine's
HIDDEN = {"tanh": 0, "sigmoid": 1}  # the hidden units' activation
INPUTS = {"symmetric": 0, "unit": 1}  # mountain car's features in [-1, 1] (Sec. 6) or [0, 1]
# mountain car's start states: x ~ U[-0.6, -0.4), v = 0 (Sutton & Barto), or uniform over the
# whole state space (x ~ U[X_MIN, X_MAX), v ~ U[-V_MAX, V_MAX), two draws of the start stream)
STARTS = {"bottom": 0, "anywhere": 1}
N_IN_ARR = np.array([TASKS[name].n_in for name in ENVS], dtype=np.int64)  # by env number

# the engine's constants, as the numpy expressions evaluate them
_CP_POLEMASS_LENGTH = _cp.POLEMASS_LENGTH
_CP_TOTAL_MASS = _cp.TOTAL_MASS
_CP_FOUR_THIRDS = 4.0 / 3.0
_CP_START_LOW = -_cp.START_HIGH
_CP_START_SPAN = 2 * _cp.START_HIGH
_CP_SCALE = tuple(float(s) for s in _cp.OBS_SCALE)
_MC_SPAN = _mc.START_HIGH - _mc.START_LOW
_MC_X_RANGE = _mc.X_MAX - _mc.X_MIN
_MC_V_SPAN = 2 * _mc.V_MAX

# SLEEF's expd_u10 (FMA builds)
_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2U = 0.69314718055966295651160180568695068359375
_L2L = 0.28235290563031577122588448175013436025525412068e-12
_EXP_OVERFLOW = 709.78271289338399673222338991  # SLEEF's 0x1.62e42fefa39efp+9


@intrinsic
def fma(typingctx, a, b, c):
    """:math:`a b + c` rounded once (LLVM's ``llvm.fma``: the instruction where the CPU has
    it)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        t = args[0].type
        fn = builder.module.declare_intrinsic("llvm.fma", [t], ir.FunctionType(t, [t, t, t]))
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _f64_from_bits(typingctx, i):
    """The float64 whose bits are the int64 ``i``."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


@njit(cache=True, error_model="numpy", inline="always")
def _pow2(k):
    r""":math:`2^k` for an integer :math:`-1022 \le k \le 1023` (its exponent bits)."""
    return _f64_from_bits((k + 1023) << 52)


@njit(cache=True, error_model="numpy", inline="always")
def sleef_exp(d):
    r""":math:`e^d` as SLEEF's ``expd_u10`` computes it (torch's CPU exponential): with
    :math:`q = \mathrm{rint}(d/\ln 2)` and :math:`s = d - q\ln 2` (two FMAs, :math:`\ln 2`
    split in two), :math:`e^s` from a degree-10 polynomial by Estrin's scheme and three FMAs,
    then scaled by :math:`2^{\lfloor q/2\rfloor} 2^{q - \lfloor q/2\rfloor}`; ``inf`` above
    709.78, 0 below -1000. Branch-free, so that loops over it vectorise."""
    u = np.rint(d * _R_LN2)
    q = np.int64(u if abs(u) <= 2000.0 else 0.0)  # (only |d| > 1386 or nan are cut)
    s = fma(u, -_L2U, d)
    s = fma(u, -_L2L, s)
    s2 = s * s
    s4 = s2 * s2
    s8 = s4 * s4
    u = fma(s8, fma(s, 0.2081276378237164457e-8, 0.2511210703042288022e-7),
            fma(s4, fma(s2, fma(s, 0.2755762628169491192e-6, 0.2755723402025388239e-5),
                        fma(s, 0.2480158687479686264e-4, 0.1984126989855865850e-3)),
                fma(s2, fma(s, 0.1388888888914497797e-2, 0.8333333333314938210e-2),
                    fma(s, 0.4166666666666602598e-1, 0.1666666666666669072))))
    u = fma(u, s, 0.5)
    u = fma(u, s, 1.0)
    u = fma(u, s, 1.0)
    half = q >> 1
    u = (u * _pow2(half)) * _pow2(q - half)
    u = math.inf if d > _EXP_OVERFLOW else u
    return 0.0 if d < -1000.0 else u


@njit(cache=True, error_model="numpy", inline="always")
def tanh(z):
    r""":math:`\tanh z = 2\sigma(2z) - 1`, :math:`\sigma(x) = 1/(1 + e^{-x})`, rounded as the
    batched engine does on the CPU (:meth:`._net.BatchedMLP.tanh_`)."""
    sig = 1.0 / (1.0 + sleef_exp(-(z * 2.0)))
    return 2.0 * sig - 1.0


@njit(cache=True, error_model="numpy", inline="always")
def sigmoid(z):
    r""":math:`\sigma(z) = 1/(1 + e^{-z})` (the ``"sigmoid"`` hidden units of Tesauro's
    backpropagation), with the same exponential as :func:`tanh`."""
    return 1.0 / (1.0 + sleef_exp(-z))


@njit(cache=True, error_model="numpy")
def value(th, a, x, n, H, h, act=0):
    r""":math:`\hat Q(x, a|\theta) = b_2 + \sum_j w_{2,j} f(W_1 x + b_1)_j` of network ``a``
    of ``th`` ``(A, P)`` at features ``x`` ``(n,)``; leaves the hidden units in ``h``.
    :math:`f` is :math:`\tanh` (``act`` 0, the default) or :math:`\sigma` (``act`` 1,
    :data:`HIDDEN`)."""
    w = th[a]  # (a 1-d view: contiguous loads)
    # innermost loops over the hidden units, without calls or branches: they vectorise
    for k in range(H):
        h[k] = fma(w[k], x[0], w[n * H + k])
    for j in range(1, n):
        for k in range(H):
            h[k] = fma(w[j * H + k], x[j], h[k])
    if act == 0:
        for k in range(H):
            h[k] = tanh(h[k])
    else:
        for k in range(H):
            h[k] = sigmoid(h[k])
    v = w[(n + 1) * H]
    for k in range(H):  # in order, as numpy's column sum
        v = v + h[k] * w[(n + 1) * H + 1 + k]
    return v


@njit(cache=True, error_model="numpy")
def update(th, a, x, n, H, h, d, coef, act=0):
    r""":math:`\theta_a \leftarrow \theta_a + c\,\nabla\hat Q(x, a|\theta)` after
    :func:`value` at ``x`` (hidden units in ``h``; ``d`` ``(H,)`` is scratch):
    :math:`d = f'\, w_2` (:math:`f' = 1 - h^2` for tanh, :math:`h(1 - h)` for the sigmoid),
    :math:`W_1 \mathrel{+}= d\,(c x)^\top`, :math:`b_1 \mathrel{+}=
    c d`, :math:`b_2 \mathrel{+}= c`, :math:`w_2 \mathrel{+}= c h`."""
    w = th[a]  # (a 1-d view: contiguous loads)
    w2 = (n + 1) * H + 1
    slope(h, w, w2, H, d, act)
    for j in range(n):
        xc = x[j] * coef
        for k in range(H):
            w[j * H + k] = fma(d[k], xc, w[j * H + k])
    for k in range(H):
        w[n * H + k] = fma(d[k], coef, w[n * H + k])
    w[(n + 1) * H] = fma(1.0, coef, w[(n + 1) * H])
    for k in range(H):
        w[w2 + k] = fma(h[k], coef, w[w2 + k])


@njit(cache=True, error_model="numpy", inline="always")
def slope(h, w, w2, H, d, act):
    r""":math:`d = f'(z) \odot w_2` from the hidden units ``h`` = :math:`f(z)` and the output
    weights ``w[w2:w2 + H]``: :math:`f' = 1 - h^2` (tanh, ``act`` 0), :math:`h(1 - h)`
    (sigmoid)."""
    if act == 0:
        for k in range(H):
            d[k] = fma(-h[k], h[k], 1.0) * w[w2 + k]
    else:
        for k in range(H):
            d[k] = (h[k] * (1.0 - h[k])) * w[w2 + k]


@njit(cache=True, error_model="numpy")
def q_all(th, x, n, H, h, Q, act=0):
    """Every action's value at ``x`` into ``Q`` (all A networks)."""
    for b in range(Q.shape[0]):
        Q[b] = value(th, b, x, n, H, h, act)


@njit(cache=True, error_model="numpy")
def _ok(Q, bound):
    """No value is ``nan`` or beyond ``bound`` in absolute value."""
    for b in range(Q.shape[0]):
        if not abs(Q[b]) <= bound:
            return False
    return True


@njit(cache=True, error_model="numpy")
def choose(Q, eps, agen):
    """Epsilon-greedy from ``Q`` with two draws of the run's agent stream (as
    :meth:`.control.ControlBatch._choose`): explore if the first is below ``eps``, then the
    action ``floor(A u2)``; else the first maximal action (the first ``nan`` if any)."""
    u1 = agen.random()
    u2 = agen.random()
    A = Q.shape[0]
    if u1 < eps:
        return min(int(u2 * A), A - 1)
    best = 0
    for b in range(1, A):
        if Q[b] > Q[best] or (math.isnan(Q[b]) and not math.isnan(Q[best])):
            best = b
    return best


# ----------------------------------------------------------------------- environments
@njit(cache=True, error_model="numpy")
def env_reset(env, sgen, state, x, inputs=0, start=0):
    """A start state from the run's start stream; its features into ``x`` (``inputs``,
    ``start``: mountain car's variants, :data:`INPUTS`, :data:`STARTS`)."""
    if env == CARTPOLE:
        for j in range(4):
            state[j] = _CP_START_LOW + _CP_START_SPAN * sgen.random()
    elif start == 0:
        state[0] = _mc.START_LOW + _MC_SPAN * sgen.random()
        state[1] = 0.0
    else:
        state[0] = _mc.X_MIN + _MC_X_RANGE * sgen.random()
        state[1] = -_mc.V_MAX + _MC_V_SPAN * sgen.random()
    env_obs(env, state, x, inputs)


@njit(cache=True, error_model="numpy")
def env_obs(env, state, x, inputs=0):
    """The scaled observation of ``state`` into ``x``: mountain car's in [-1, 1] (``inputs``
    0) or [0, 1] (``inputs`` 1)."""
    if env == CARTPOLE:
        for j in range(4):
            x[j] = min(max(state[j] / _CP_SCALE[j], -1.0), 1.0)
    elif inputs == 0:
        x[0] = 2.0 * (state[0] - _mc.X_MIN) / _MC_X_RANGE - 1.0
        x[1] = state[1] / _mc.V_MAX
    else:
        x[0] = (state[0] - _mc.X_MIN) / _MC_X_RANGE
        x[1] = (state[1] + _mc.V_MAX) / _MC_V_SPAN


@njit(cache=True, error_model="numpy")
def env_step(env, state, action, x, inputs=0):
    """One step of the dynamics (in place) with ``action``; features into ``x``; returns
    ``(reward, terminal)``."""
    if env == CARTPOLE:
        xx, x_dot, theta, theta_dot = state[0], state[1], state[2], state[3]
        force = _cp.FORCE_MAG if action == 1 else -_cp.FORCE_MAG
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        temp = (force + _CP_POLEMASS_LENGTH * (theta_dot * theta_dot) * sintheta) / _CP_TOTAL_MASS
        thetaacc = (_cp.GRAVITY * sintheta - costheta * temp) / (
            _cp.LENGTH * (_CP_FOUR_THIRDS - _cp.MASS_POLE * (costheta * costheta)
                          / _CP_TOTAL_MASS))
        xacc = temp - _CP_POLEMASS_LENGTH * thetaacc * costheta / _CP_TOTAL_MASS
        state[0] = xx + _cp.TAU * x_dot
        state[1] = x_dot + _cp.TAU * xacc
        state[2] = theta + _cp.TAU * theta_dot
        state[3] = theta_dot + _cp.TAU * thetaacc
        term = abs(state[0]) > _cp.X_THRESHOLD or abs(state[2]) > _cp.THETA_THRESHOLD
        reward = 1.0
    else:
        throttle = float(action) - 1.0
        v = state[1] + _mc.THRUST * throttle - _mc.GRAVITY * math.cos(3 * state[0])
        v = min(max(v, -_mc.V_MAX), _mc.V_MAX)
        p = min(max(state[0] + v, _mc.X_MIN), _mc.X_MAX)
        if p == _mc.X_MIN and v < 0:
            v = 0.0
        state[0] = p
        state[1] = v
        term = p >= _mc.X_MAX
        reward = -1.0
    env_obs(env, state, x, inputs)
    return reward, term


# ---------------------------------------------------------------------------- runs
@njit(cache=True, error_model="numpy")
def _freeze(th, returns, ep):
    """A diverged run: weights zeroed, returns from episode ``ep`` on ``nan``."""
    th[:] = 0.0
    returns[ep:] = np.nan
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
    return (U - ring_r[slot]) / gl_div, abs(v) <= bound


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
    ``var``: the set-up variant ``(hidden, inputs, start)`` (:data:`HIDDEN`, ...)."""
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
def forward_sarsa_run(th, env, n_ep, cap, bootstrap, eps, alpha, gamma, gl, g1l, Km1,
                      c_final, gl_div, R, bound, flush_pops, sgen, agen, returns, lengths,
                      var=(0, 0, 0)):
    r"""One run of forward Sarsa(:math:`\lambda`) (Algorithm 1 with
    :math:`V_{next} = \hat Q(S', A'|\theta)`), in the order of
    :meth:`.control.ControlBatch._iteration_forward`. ``th`` ``(A, P)`` is updated in place;
    ``returns``/``lengths`` ``(n_ep,)`` are filled. Returns ``(diverged_at, steps)``
    (``diverged_at`` -1: never). ``var``: the set-up variant ``(hidden, inputs, start)``
    (:data:`HIDDEN`, :data:`INPUTS`, :data:`STARTS`; all 0: the paper's set-up as the batch
    runs it)."""
    hid = var[0]
    A, P, n, H, h, dd, Q, x, xn, state = _buffers(th, env)
    ring_x = np.empty((R, n))
    ring_a = np.zeros(R, dtype=np.int64)
    ring_r = np.empty(R)
    steps = 0
    ep = 0
    ok, act = _start(env, sgen, agen, state, x, th, n, H, h, Q, eps, bound, var)
    if not ok:
        return _freeze(th, returns, ep), steps
    while True:
        ret = 0.0
        t = 0
        U = 0.0
        U_sync = 0.0
        V_cur = 0.0
        c = 1.0
        i = 0
        p = 0
        q = 0
        ready = False
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
            ring_r[slot] = r + g1l * v_next
            p += 1
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
                U, ok = _pop(th, ring_x, ring_a, ring_r, q, R, U, alpha, gl_div, n, H, h,
                             dd, bound, hid)
                q += 1
                if not ok:
                    return _freeze(th, returns, ep), steps
            if end:
                if not ready:
                    U = U_sync
                # the batch pops up to flush_pops - 1 more in this iteration, before it
                # checks Q(S') and records the episode
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
                return _freeze(th, returns, ep), steps
        ep += 1
        if ep >= n_ep:
            return -1, steps
        ok, act = _start(env, sgen, agen, state, x, th, n, H, h, Q, eps, bound, var)
        if not ok:
            return _freeze(th, returns, ep), steps


@njit(cache=True, error_model="numpy")
def sarsa_run(th, env, n_ep, cap, bootstrap, eps, alpha, gamma, gl, rescale, bound, sgen,
              agen, returns, lengths, var=(0, 0, 0)):
    r"""One run of Sarsa(:math:`\lambda`) with accumulating traces kept scaled
    (:math:`e = s\hat e`), in the order of :meth:`.control.ControlBatch._iteration_sarsa`;
    arguments and result as :func:`forward_sarsa_run`."""
    A, P, n, H, h, dd, Q, x, xn, state = _buffers(th, env)
    g = np.empty(P)
    e = np.zeros((A, P))
    s = 1.0
    keep = 0.0
    steps = 0
    ep = 0
    w2 = (n + 1) * H + 1
    ok, act = _start(env, sgen, agen, state, x, th, n, H, h, Q, eps, bound, var)
    if not ok:
        return _freeze(th, returns, ep), steps
    while True:
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
            # e = s e^: every trace decays through s; renormalise when s gets small
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
            s = s_new
            # e^_A = grad Q(S, A) / s + keep e^_A (keep = 0: the traces start afresh)
            inv = 1.0 / s_new
            slope(h, th[act], w2, H, dd, var[0])
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
            keep = 1.0
            # theta += alpha delta e = (alpha delta s) e^, every action's network
            coef = alpha * delta * s_new
            for b in range(A):
                eb = e[b]
                wb = th[b]
                for k in range(P):
                    wb[k] = fma(eb[k], coef, wb[k])
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
        keep = 0.0
        s = 1.0
        ok, act = _start(env, sgen, agen, state, x, th, n, H, h, Q, eps, bound, var)
        if not ok:
            return _freeze(th, returns, ep), steps



# ---------------------------------------------------------------------- the driver
def run_tasks(method, settings, seed, run_ids, n_episodes, *, env, init, epsilon=0.05,
              n_hidden=50, div_bound=1e6, progress=False, truncation="bootstrap",
              max_steps=None, flush_pops=4, hidden="tanh", inputs="symmetric",
              start="bottom"):
    r"""Every task (one run: settings row ``i``, run id ``run_ids[i]``) through the compiled
    per-run loop, one after another; a :class:`.control.ControlResult` with the same numbers
    as :class:`.control.ControlBatch` on the same tasks.

    ``env``: ``"cartpole"`` or ``"mountain_car"``; ``init(tasks)``: the initial weights
    ``(m, A, P)`` (reference layout) of tasks. The batch's statistics are those of a batch
    of width 1 that is never idle (``utilisation`` 1).

    Set-up variants beyond the batch's (the claim-5 study, :mod:`ftd_lib.repro.study`; the
    defaults are the paper's set-up as the batch runs it): ``hidden`` ``"tanh"`` or
    ``"sigmoid"`` (:data:`HIDDEN`); mountain car only: ``inputs`` ``"symmetric"`` ([-1, 1])
    or ``"unit"`` ([0, 1]) (:data:`INPUTS`), ``start`` ``"bottom"`` or ``"anywhere"``
    (:data:`STARTS`).
    """
    from .. import validate as V
    from ..envs.batch import START_STREAM
    from ..rng import run_generator
    from . import AGENT_STREAM
    from ._net import BatchedMLP
    from .control import RESCALE, ControlResult
    from .schedule import algorithm1_constants

    env_id, task = ENVS[env], TASKS[env]
    V.check_choice("hidden", hidden, tuple(HIDDEN))
    V.check_choice("inputs", inputs, tuple(INPUTS))
    V.check_choice("start", start, tuple(STARTS))
    if env != "mountain_car" and (inputs, start) != ("symmetric", "bottom"):
        raise ValueError(f"inputs and start have variants for mountain_car only, got "
                         f"inputs={inputs!r}, start={start!r} for env={env!r}")
    var = (HIDDEN[hidden], INPUTS[inputs], STARTS[start])
    n_in, A = task.n_in, task.n_actions
    cap = task.max_steps if max_steps is None else int(max_steps)
    run_ids = np.asarray(run_ids, dtype=np.int64).reshape(-1)
    N, n_ep = len(run_ids), int(n_episodes)
    perm = BatchedMLP(n_in, n_hidden).perm
    inv_perm = np.argsort(perm)
    P = len(perm)
    K, c_final, gl_div, ring = algorithm1_constants(settings, cap, np.float64)
    gam, lam = settings.gamma, settings.lam
    alpha = settings.alpha.astype(np.float64)
    gl = (gam * lam).astype(np.float64)
    g1l = (gam * (1 - lam)).astype(np.float64)
    gamma = gam.astype(np.float64)
    bootstrap = truncation == "bootstrap"

    returns = np.full((N, n_ep), np.nan)
    lengths = np.full((N, n_ep), -1, dtype=np.int64)
    diverged_at = np.full(N, -1, dtype=np.int64)
    final_w = np.zeros((N, A, P))
    n_steps = np.zeros(N, dtype=np.int64)
    pbar = None
    if progress:
        from tqdm.auto import tqdm

        pbar = tqdm(total=N * n_ep, desc=method, unit="ep")
    t0 = time.perf_counter()
    block = 256
    try:
        for lo in range(0, N, block):
            tasks = np.arange(lo, min(lo + block, N))
            w0 = np.asarray(init(tasks), dtype=np.float64).reshape(len(tasks), A, P)
            for b, i in enumerate(tasks):
                th = np.ascontiguousarray(w0[b][:, perm])
                rid = int(run_ids[i])
                sgen = run_generator(seed, rid, START_STREAM)
                agen = run_generator(seed, rid, AGENT_STREAM)
                if n_ep == 0:
                    dv, st = -1, 0
                elif method == "forward_sarsa_lambda":
                    dv, st = forward_sarsa_run(
                        th, env_id, n_ep, cap, bootstrap, float(epsilon), alpha[i], gamma[i],
                        gl[i], g1l[i], int(K[i] - 1), c_final[i], gl_div[i], int(ring[i]),
                        float(div_bound), int(flush_pops), sgen, agen, returns[i], lengths[i],
                        var)
                else:
                    dv, st = sarsa_run(
                        th, env_id, n_ep, cap, bootstrap, float(epsilon), alpha[i], gamma[i],
                        gl[i], RESCALE[np.float64], float(div_bound), sgen, agen, returns[i],
                        lengths[i], var)
                diverged_at[i], n_steps[i] = dv, st
                final_w[i] = th[:, inv_perm]
                if pbar is not None:
                    pbar.update(n_ep)
    finally:
        if pbar is not None:
            pbar.close()
    seconds = time.perf_counter() - t0
    total = int(n_steps.sum())
    return ControlResult(returns=returns, lengths=lengths, diverged=diverged_at >= 0,
                         diverged_at=diverged_at, final_weights=final_w, n_steps=n_steps,
                         iterations=total, width=1, repacks=0, utilisation=1.0,
                         utilisation_before_tail=1.0, steps_before_tail=total,
                         seconds_before_tail=seconds, method=method, settings=settings,
                         truncation=truncation, engine="kernel")


def warm() -> None:
    """Compile (or load from numba's cache) both methods' kernels for both tasks: a one-step
    run of each. The first compile takes 10-15 s and is cached in ``__pycache__`` next to this
    file; ``binder/postBuild`` calls this so that the image ships the cache."""
    from . import run_control
    from .settings import Settings

    s = Settings.make(alpha=0.01, lam=0.5, gamma=1.0)
    for method in ("forward_sarsa_lambda", "sarsa_lambda"):
        for env in ENVS:
            run_control(method, s, 0, [0], 1, env=env, max_steps=1, engine="kernel")
