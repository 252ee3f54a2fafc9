r"""The kernel's network arithmetic, compiled, rounding as the batched engine rounds.

A run's result must not depend on which engine computed it (stored results are keyed by
:data:`ftd_lib.engine.NUMERICS_VERSION`, not by the engine), so every operation here rounds
as the batched engine's does on torch's vectorised CPU paths
(:func:`ftd_lib.engine.premises.kernel_premises` checks that at run time):

- torch's CPU ``addcmul`` is a fused multiply-add, :math:`\mathrm{fma}(a, b, s)`, so it is
  :func:`fma` here (LLVM's ``llvm.fma``); every other product and sum is rounded on its own,
  as numpy's are (numba does not contract ``a * b + c`` without ``fastmath``, never used);
- :math:`\tanh(z) = 2\sigma(2z) - 1` with torch's :math:`\sigma(x) = 1/(1 + e^{-x})`, whose
  exponential is SLEEF's ``expd_u10`` (Cody-Waite reduction, a degree-10 Estrin polynomial,
  two exact scalings); :func:`sleef_exp` is that algorithm, step for step;
- the output sum :math:`b_2 + \sum_j w_{2,j} h_j` adds the products one after another, in the
  order of the hidden units, as numpy's column sum does (:mod:`.._net`).

Weights of a run: ``(A, P)``, each network in the engine's internal order
``[W1^T (n x H), b1 (H), b2, w2 (H)]`` (:class:`.._net.BatchedMLP`).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

# set-up variant of the hidden units (the claim-5 study); the first is the default
HIDDEN = {"tanh": 0, "sigmoid": 1}

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
    # (only |d| > 1386 or nan are cut); an int32, whose conversion AVX2 has for 4 lanes
    q = np.int32(u if abs(u) <= 2000.0 else 0.0)
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
    half = np.int64(q >> 1)
    u = (u * _pow2(half)) * _pow2(np.int64(q) - half)
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
    return greedy(Q)


@njit(cache=True, error_model="numpy", inline="always")
def greedy(Q):
    """The first maximal action of ``Q`` (the first ``nan``, if any): :func:`choose`'s greedy
    action, and ``np.argmax``'s."""
    best = 0
    for b in range(1, Q.shape[0]):
        if Q[b] > Q[best] or (math.isnan(Q[b]) and not math.isnan(Q[best])):
            best = b
    return best


@njit(cache=True, error_model="numpy")
def epsilon_greedy_probs(Q, eps, out):
    r"""The probabilities :math:`\pi(a|s)` with which :func:`choose` picks each action from
    ``Q``, into ``out``: :math:`\epsilon/|A|` each, plus :math:`1 - \epsilon` on the greedy
    action (:func:`greedy`), rounded as
    :func:`ftd_lib.references.common.epsilon_greedy_probs` rounds them."""
    A = Q.shape[0]
    g = greedy(Q)
    share = eps / A
    for b in range(A):
        out[b] = share + (1.0 - eps) if b == g else share
