r"""The network's arithmetic with the same bits on every CPU: products summed in a fixed
order and a :math:`\tanh` from the four basic operations.

numpy hands a matrix product (``@``, ``dot``) to OpenBLAS, which picks its kernel when it
loads (``OPENBLAS_CORETYPE``: SkylakeX, Haswell, Prescott, ...), and each kernel adds the
products in its own order (blocks of vector lanes, fused multiply-adds or not). numpy's own
``tanh``, ``exp``, ... are vectorised per CPU at run time (AVX-512, AVX2 or the baseline;
``NPY_DISABLE_CPU_FEATURES``), each with its own polynomial. So ``np.tanh(x @ W.T + b)``
differs in the last bits from one CPU to the next, and a run that learns for thousands of
steps carries that difference into its weights, its greedy actions and, at last, its returns:
a per-run reference computed that way has no bit-for-bit golden numbers.

What does not move: ``+``, ``-``, ``*``, ``/`` of two float64 numbers are rounded once each
(IEEE 754), and ``floor``, ``ldexp``, ``abs``, ``copysign`` are exact. Everything here is made
of those, in loops compiled by numba, which (without ``fastmath``) rounds every operation as
written and in the order written on any CPU it compiles for: no fused multiply-add, no sum
split into vector lanes. So :class:`ftd_lib.approx.MLP` gives the same bits on every CPU, and
the per-run references that use it (:mod:`ftd_lib.sarsa`, :mod:`ftd_lib.references`) can be
held to a SHA-256 of their weights (``tests/engine/test_engine_golden.py``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# ln 2 split as in fdlibm's exp: LN2_HI has its last 21 bits zero, so n * LN2_HI is exact
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e00
#: 1/k! for k = 13, 12, ..., 0: the Taylor polynomial of exp on |r| <= ln(2)/2, whose first
#: left-out term (r^14 / 14!) is below 4e-18, under half a unit in the last place of exp(r)
INV_FACTORIALS = tuple(1.0 / math.factorial(k) for k in range(13, -1, -1))
#: tanh(z) rounds to 1 for z beyond this (1 - tanh(19.1) < 2**-54)
TANH_SATURATES = 19.1


@njit(cache=True)
def _matvec_into(W, X, out):
    for m in range(X.shape[0]):
        for i in range(W.shape[0]):
            acc = W[i, 0] * X[m, 0]
            for j in range(1, W.shape[1]):
                acc = acc + W[i, j] * X[m, j]
            out[m, i] = acc


def matvec(W, x) -> np.ndarray:
    r""":math:`W x`: ``x @ W.T`` for ``W`` ``(H, n)`` and ``x`` ``(..., n)``, each
    :math:`\sum_j W_{ij} x_j` rounded product by product and added left to right,
    :math:`((W_{i0}x_0 + W_{i1}x_1) + W_{i2}x_2) + \dots`, without BLAS."""
    W = np.ascontiguousarray(W, dtype=float)
    x = np.asarray(x, dtype=float)
    X = np.ascontiguousarray(x.reshape(-1, x.shape[-1]))
    out = np.empty((X.shape[0], W.shape[0]))
    _matvec_into(W, X, out)
    return out.reshape(*x.shape[:-1], W.shape[0])


def dot(a, w) -> np.ndarray:
    r""":math:`\sum_i a_{\dots i} w_i` over the last axis of ``a``: ``a @ w`` for a vector
    ``w``, in the order of :func:`matvec`."""
    return matvec(np.reshape(w, (1, -1)), a)[..., 0][()]


@njit(cache=True)
def exp_nonpositive(x: float) -> float:
    r""":math:`e^x` for :math:`x \le 0`: :math:`x = n\ln 2 + r` with :math:`n` the integer
    nearest :math:`x/\ln 2` and :math:`|r| \le \ln(2)/2` (Cody & Waite's split of
    :math:`\ln 2` keeps :math:`r` exact to the last bits), then :math:`e^x = 2^n e^r` with
    :math:`e^r` its Taylor polynomial (Horner). Within 1 unit in the last place of
    :math:`e^x` (``tests/core/test_portable.py`` checks :math:`[-40, 0]`, the range
    :func:`tanh` uses, and :math:`-700`)."""
    n = math.floor(x * INV_LN2 + 0.5)
    r = (x - n * LN2_HI) - n * LN2_LO
    p = INV_FACTORIALS[0]
    for c in INV_FACTORIALS[1:]:
        p = p * r + c
    return math.ldexp(p, int(n))


@njit(cache=True)
def _tanh(z: float) -> float:
    if z != z:  # nan
        return z
    t = exp_nonpositive(-2.0 * min(abs(z), TANH_SATURATES))
    return math.copysign((1.0 - t) / (1.0 + t), z)


@njit(cache=True)
def _tanh_into(z, out):
    for i in range(z.size):
        out[i] = _tanh(z[i])


def tanh(z) -> np.ndarray:
    r""":math:`\tanh z = \operatorname{sign}(z)\,\frac{1 - e^{-2|z|}}{1 + e^{-2|z|}}`
    (:func:`exp_nonpositive`), elementwise (``nan`` stays ``nan``). Within 3e-16 of the exact
    value, as numpy's own is; the same bits on every CPU."""
    z = np.asarray(z, dtype=float)
    out = np.empty(z.size)
    _tanh_into(np.ravel(z), out)
    return out.reshape(z.shape) if z.ndim else out[0]


#: exp(-z) is below 2**-54 of 1 for z beyond this, so the sigmoid rounds to 1 (or to e^z at -z)
SIGMOID_SATURATES = 745.0


@njit(cache=True)
def _sigmoid(z: float) -> float:
    if z != z:  # nan
        return z
    t = exp_nonpositive(-min(abs(z), SIGMOID_SATURATES))
    return 1.0 / (1.0 + t) if z >= 0.0 else t / (1.0 + t)


@njit(cache=True)
def _sigmoid_into(z, out):
    for i in range(z.size):
        out[i] = _sigmoid(z[i])


def sigmoid(z) -> np.ndarray:
    r""":math:`\sigma(z) = 1/(1 + e^{-z})`, as :math:`1/(1 + e^{-|z|})` for :math:`z \ge 0` and
    :math:`e^{-|z|}/(1 + e^{-|z|})` below (:func:`exp_nonpositive`: no overflow), elementwise;
    the same bits on every CPU."""
    z = np.asarray(z, dtype=float)
    out = np.empty(z.size)
    _sigmoid_into(np.ravel(z), out)
    return out.reshape(z.shape) if z.ndim else out[0]
