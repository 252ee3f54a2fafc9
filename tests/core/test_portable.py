"""The network's portable arithmetic (:mod:`ftd_lib.portable`) against slow obvious forms: a
:math:`\\tanh` and an exponential as accurate as numpy's (against 40-digit decimals), sums in
the stated order (a Python loop, bit for bit), and :class:`ftd_lib.approx.MLP` built on them
(the textbook numpy network to 1e-15; a batch bit for bit as its rows one at a time). That the
bits are the same on every CPU path is what ``test.sh``'s second pass checks (the golden
numbers of ``tests/engine/test_engine_golden.py`` under other OpenBLAS, numpy, numba paths).
"""

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest

from ftd_lib.approx import MLP, Linear
from ftd_lib.portable import dot, exp_nonpositive, matvec, sigmoid, tanh


def exact_tanh(z: float) -> float:
    with localcontext() as c:
        c.prec = 40
        t = (-2 * abs(Decimal(z))).exp()
        return math.copysign(float((1 - t) / (1 + t)), z)


def test_exp_is_within_one_unit_in_the_last_place():
    x = np.concatenate([np.random.default_rng(0).uniform(-40, 0, 2000), [0.0, -1e-300, -700]])
    for v in x:
        with localcontext() as c:
            c.prec = 40
            exact = float(Decimal(v).exp())
        assert abs(exp_nonpositive(v) - exact) <= math.ulp(exact), v


def test_tanh_is_as_accurate_as_numpy_and_odd():
    z = np.concatenate([np.random.default_rng(1).uniform(-20, 20, 3000),
                        np.geomspace(1e-12, 25, 500), [1e-300, 19.0, 19.2, 40.0, 1e300]])
    got = tanh(z)
    exact = np.array([exact_tanh(v) for v in z])
    assert np.abs(got - exact).max() <= 3e-16
    assert np.abs(np.tanh(z) - exact).max() <= 3e-16  # numpy's, for scale
    assert np.array_equal(tanh(-z), -got)
    assert tanh(40.0) == 1.0 and tanh(-np.inf) == -1.0 and np.isnan(tanh(np.nan))
    assert math.copysign(1.0, tanh(-0.0)) == -1.0
    assert tanh(0.5) == tanh(np.array([0.5]))[0] and np.ndim(tanh(0.5)) == 0
    assert tanh(np.zeros((2, 3))).shape == (2, 3)


def test_sigmoid_is_accurate_and_symmetric_without_overflow():
    z = np.concatenate([np.random.default_rng(2).uniform(-40, 40, 2000),
                        [0.0, 1e-300, 700.0, -700.0, 800.0, -800.0]])
    got = sigmoid(z)
    with localcontext() as c:
        c.prec = 40
        exact = np.array([float(1 / (1 + (-Decimal(v)).exp())) for v in z])
    assert np.all(np.abs(got - exact) <= 2 * np.spacing(exact)), "within 2 ulp"
    assert np.allclose(sigmoid(-z), 1.0 - got, rtol=0, atol=2e-16)
    assert sigmoid(0.0) == 0.5 and sigmoid(800.0) == 1.0 and np.isnan(sigmoid(np.nan))


def test_sums_run_left_to_right():
    rng = np.random.default_rng(2)
    W, x = rng.normal(size=(7, 5)), rng.normal(size=(3, 5))
    loop = np.empty((3, 7))
    for m in range(3):
        for i in range(7):
            acc = W[i, 0] * x[m, 0]
            for j in range(1, 5):
                acc = acc + W[i, j] * x[m, j]
            loop[m, i] = acc
    assert np.array_equal(matvec(W, x), loop)
    assert np.array_equal(matvec(W, x[1]), loop[1])
    assert np.array_equal(dot(x, W[2]), loop[:, 2])
    # an order that matters: left to right, 1 + 1e-16 + ... is 1 at every step
    assert dot(np.array([1.0, 1e-16, 1e-16, 1e-16, -1.0]), np.ones(5)) == 0.0
    np.testing.assert_allclose(matvec(W, x), x @ W.T, rtol=0, atol=1e-14)


@pytest.mark.parametrize("n_in, H", [(2, 50), (4, 50), (1, 3)])
def test_mlp_is_the_textbook_network_and_batch_independent(n_in, H):
    rng = np.random.default_rng(3)
    net = MLP(n_in, H)
    w = net.init(rng)
    x = rng.uniform(-1.5, 1.5, size=(20, n_in))
    W1, b1, w2, b2 = net.unpack(w)
    np.testing.assert_allclose(net.value(w, x), np.tanh(x @ W1.T + b1) @ w2 + b2,
                               rtol=0, atol=1e-15)
    assert np.array_equal(net.value(w, x), [net.value(w, xi) for xi in x])
    assert np.array_equal(net.grad(w, x), np.stack([net.grad(w, xi) for xi in x]))
    lin = Linear(n_in)
    assert np.array_equal(lin.value(x[0], x), [lin.value(x[0], xi) for xi in x])
