r"""The prediction loops' passes over the hidden units (:mod:`.prediction`; paper Sec. 5,
Algorithm 1, on the 2-H-1 tanh network of Sec. 6): an update
:math:`\theta \leftarrow \theta + c\,\nabla\hat V(x|\theta)` fused with the values that
need its weights next, each operation rounded as :mod:`.numerics` rounds it (so as the
torch batch: the numbers are the batch's bit for bit).

One per-unit body, written once: :func:`update_unit` (unit k's slope
:math:`d_k = (1 - h_k^2) w_{2,k}` and the updates of its :math:`W_1` column, :math:`b_1`
and :math:`w_2` entries) and :func:`pre_activation` (its new :math:`(W_1 x + b_1)_k`),
which every fused pass calls per unit:

- :func:`update_value`: an update, then one value (the flush's pops: each value needs the
  previous update);
- :func:`update_value2`: an update, then two values (TD(0)'s step and forward
  TD(:math:`\lambda`)'s ready phase: the next step's :math:`\hat V(S')` and
  :math:`\hat V(S_p)`);
- :func:`update_value_pair`: two runs' :func:`update_value` in one pass (two flushes side
  by side, :func:`.prediction._forward_pair`);
- :func:`value2`: two values at the same weights (no update).

Each pass's tanh run in one loop after the per-unit bodies (whole vectors of 4), and the
output sums add the products in the order of the hidden units, as numpy's column sum. The
functions are small and compiled once each (``cache=True``); LLVM inlines them into the
loops that call them, where the paper network's sizes are constants.
"""

from __future__ import annotations

from numba import njit

from .numerics import fma, tanh


@njit(cache=True, error_model="numpy", inline="always")
def update_unit(w, k, hk, x, coef, n, H, o):
    r"""Unit k's part of :func:`.numerics.update` with :math:`c` = ``coef`` at ``x``
    (``hk`` = :math:`h_k`, ``o`` = (n + 1) H, where :math:`b_2` is):
    :math:`d_k = (1 - h_k^2) w_{2,k}`, :math:`W_{1,jk} \mathrel{+}= d_k (c x_j)`,
    :math:`b_{1,k} \mathrel{+}= c d_k`, :math:`w_{2,k} \mathrel{+}= c h_k`, each a
    fused multiply-add."""
    dk = fma(-hk, hk, 1.0) * w[o + 1 + k]
    for j in range(n):
        w[j * H + k] = fma(dk, x[j] * coef, w[j * H + k])
    w[n * H + k] = fma(dk, coef, w[n * H + k])
    w[o + 1 + k] = fma(hk, coef, w[o + 1 + k])


@njit(cache=True, error_model="numpy", inline="always")
def pre_activation(w, k, x, n, H):
    r"""Unit k's :math:`z_k = b_{1,k} + \sum_j W_{1,jk} x_j`, a fused multiply-add per
    input in the order of the inputs (as :func:`.numerics.value`)."""
    z = fma(w[k], x[0], w[n * H + k])
    for j in range(1, n):
        z = fma(w[j * H + k], x[j], z)
    return z


@njit(cache=True, error_model="numpy", inline="always")
def output(w, h, o, H):
    r""":math:`\hat V = b_2 + \sum_k w_{2,k} h_k` with the hidden units ``h[:H]``, the
    products added in the order of the units (as numpy's column sum)."""
    v = w[o]
    for k in range(H):
        v = v + h[k] * w[o + 1 + k]
    return v


@njit(cache=True, error_model="numpy", inline="always")
def output2(wa, wb, hh, o, H):
    r""":func:`output` of network ``wa`` at ``hh[:H]`` and of ``wb`` (the same or another
    run's) at ``hh[H:]``, the two sums side by side in one loop (two independent chains of
    additions instead of one after the other), each in the order of the units."""
    va = wa[o]
    vb = wb[o]
    for k in range(H):
        va = va + hh[k] * wa[o + 1 + k]
        vb = vb + hh[H + k] * wb[o + 1 + k]
    return va, vb


@njit(cache=True, error_model="numpy", inline="always")
def tanh_all(hh, m):
    """``hh[:m] = tanh(hh[:m])`` in one loop (:func:`.numerics.tanh`)."""
    for k in range(m):
        hh[k] = tanh(hh[k])


@njit(cache=True, error_model="numpy")
def value2(th, xa, xb, n, H, hh):
    r""":math:`\hat V(x_a|\theta)` and :math:`\hat V(x_b|\theta)` at the same weights, each
    rounded exactly as :func:`.numerics.value` (tanh units), their hidden units left in
    ``hh[:H]`` and ``hh[H:]`` (one array: the 2H tanh in one loop); the two output sums side
    by side in the order of the hidden units."""
    w = th[0]
    o = (n + 1) * H
    for k in range(H):
        hh[k] = pre_activation(w, k, xa, n, H)
        hh[H + k] = pre_activation(w, k, xb, n, H)
    tanh_all(hh, 2 * H)
    return output2(w, w, hh, o, H)


@njit(cache=True, error_model="numpy")
def update_value(th, x, coef, xn, n, H, h):
    r""":func:`.numerics.update` at ``x`` (hidden units in ``h``), then
    :func:`.numerics.value` at ``xn`` with the new weights, in one pass over the hidden units
    (the flush's pops: each value needs the previous update): per unit
    :func:`update_unit` and its new pre-activation (:func:`pre_activation`) and tanh;
    then :math:`b_2` and the output sum. Returns the value at ``xn`` (its hidden units
    left in ``h``)."""
    w = th[0]
    o = (n + 1) * H
    for k in range(H):
        update_unit(w, k, h[k], x, coef, n, H, o)
        h[k] = tanh(pre_activation(w, k, xn, n, H))
    w[o] = fma(1.0, coef, w[o])
    return output(w, h, o, H)


@njit(cache=True, error_model="numpy")
def update_value2(th, x, coef, xa, xb, n, H, hh):
    r""":func:`.numerics.update` at ``x`` (its hidden units in ``hh[H:]``), then
    :func:`value2` at ``xa`` and ``xb`` with the new weights, in one pass over the hidden
    units (a step's update and the next step's two values, which need it). Returns the values
    at ``xa`` and ``xb`` (their hidden units left in ``hh[:H]`` and ``hh[H:]``)."""
    w = th[0]
    o = (n + 1) * H
    for k in range(H):
        update_unit(w, k, hh[H + k], x, coef, n, H, o)
        hh[k] = pre_activation(w, k, xa, n, H)
        hh[H + k] = pre_activation(w, k, xb, n, H)
    w[o] = fma(1.0, coef, w[o])
    tanh_all(hh, 2 * H)
    return output2(w, w, hh, o, H)


@njit(cache=True, error_model="numpy")
def update_value_pair(thA, xA, coefA, xnA, thB, xB, coefB, xnB, n, H, hh):
    r""":func:`update_value` of two runs in one pass: run A's update at ``xA`` (hidden units
    in ``hh[:H]``) and value at ``xnA``, run B's at ``xB``, ``xnB`` (``hh[H:]``), each with
    its own weights and exactly :func:`update_value`'s operations, their 2H tanh in one loop
    and their output sums side by side (two flushes' chains, each a value after an update,
    filling one pass). Returns ``(vA, vB)``."""
    o = (n + 1) * H
    wA = thA[0]
    wB = thB[0]
    for k in range(H):
        update_unit(wA, k, hh[k], xA, coefA, n, H, o)
        hh[k] = pre_activation(wA, k, xnA, n, H)
    for k in range(H):
        update_unit(wB, k, hh[H + k], xB, coefB, n, H, o)
        hh[H + k] = pre_activation(wB, k, xnB, n, H)
    wA[o] = fma(1.0, coefA, wA[o])
    wB[o] = fma(1.0, coefB, wB[o])
    tanh_all(hh, 2 * H)
    return output2(wA, wB, hh, o, H)


@njit(cache=True, error_model="numpy")
def ok_weights(th, bound):
    """Every weight finite and within ``bound`` (the batch's check at an episode's end)."""
    w = th[0]
    for k in range(w.shape[0]):
        if not abs(w[k]) <= bound:
            return False
    return True


@njit(cache=True, error_model="numpy", inline="always")
def keep(dst, src):
    """``dst[:] = src`` for two 1-d arrays of one length, element by element (no
    broadcasting machinery to compile)."""
    for k in range(src.shape[0]):
        dst[k] = src[k]
