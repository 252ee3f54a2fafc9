import math

import numpy as np
import pytest

from ftd_lib.returns import (
    advance_time,
    bounded_returns_by_definition,
    bounded_returns_by_rho,
    delta_prime,
    extend_horizon,
    interim_lambda_return,
    k_bound,
    n_step_return,
    rho,
)


def test_n_step_return_by_hand():
    r = [1.0, 2.0, 3.0]
    v = [9.0, 10.0, 20.0, 0.0]
    # G_0^(2) = 1 + 0.5*2 + 0.25*V_2 = 1 + 1 + 5 = 7
    assert n_step_return(r, v, 0, 2, 0.5) == pytest.approx(7.0)
    # beyond the end: the Monte Carlo return
    assert n_step_return(r, v, 0, 10, 0.5) == pytest.approx(1 + 1 + 0.75)


def test_interim_lambda_return_limits(rng):
    r = rng.normal(size=6)
    v = np.append(rng.normal(size=6), 0.0)
    gamma = 0.9
    # lambda = 0: the one-step (TD(0)) target, whatever the horizon
    assert interim_lambda_return(r, v, 1, 5, gamma, 0.0) == pytest.approx(r[1] + gamma * v[2])
    # lambda = 1: the (h-t)-step return
    assert interim_lambda_return(r, v, 1, 5, gamma, 1.0) == pytest.approx(
        n_step_return(r, v, 1, 4, gamma))
    # horizon t+1: the one-step target for any lambda
    assert interim_lambda_return(r, v, 2, 3, gamma, 0.7) == pytest.approx(r[2] + gamma * v[3])
    # by hand, h = t+2: (1-lam) G^(1) + lam G^(2)
    lam = 0.6
    g1 = r[0] + gamma * v[1]
    g2 = r[0] + gamma * r[1] + gamma**2 * v[2]
    assert interim_lambda_return(r, v, 0, 2, gamma, lam) == pytest.approx((1 - lam) * g1 + lam * g2)


@pytest.mark.parametrize("gamma,lam", [(0.9, 0.8), (1.0, 0.5), (0.5, 1.0), (0.99, 0.3)])
def test_identity_extend_horizon(rng, gamma, lam):
    """App. B: G_t^{lambda|h+1} = G_t^{lambda|h} + (gamma lam)^(h-t) delta'_h, random data."""
    T = 9
    r = rng.normal(size=T)
    v = np.append(rng.normal(size=T), 0.0)
    for t in range(T):
        for h in range(t + 1, T):
            g_h = interim_lambda_return(r, v, t, h, gamma, lam)
            dp = delta_prime(r[h], v[h + 1], v[h], gamma)
            assert extend_horizon(g_h, dp, t, h, gamma, lam) == pytest.approx(
                interim_lambda_return(r, v, t, h + 1, gamma, lam), abs=1e-12)


@pytest.mark.parametrize("gamma,lam", [(0.9, 0.8), (1.0, 0.5), (0.5, 1.0), (0.99, 0.3)])
def test_identity_advance_time(rng, gamma, lam):
    """App. B: G_{t+1}^{lambda|h} = (G_t^{lambda|h} - rho_t) / (gamma lam), h >= t+2."""
    T = 9
    r = rng.normal(size=T)
    v = np.append(rng.normal(size=T), 0.0)
    for t in range(T - 1):
        for h in range(t + 2, T + 1):
            g_t = interim_lambda_return(r, v, t, h, gamma, lam)
            g_next = advance_time(g_t, rho(r[t], v[t + 1], gamma, lam), gamma, lam)
            assert g_next == pytest.approx(interim_lambda_return(r, v, t + 1, h, gamma, lam),
                                           abs=1e-10)


def test_k_bound():
    assert k_bound(1.0, 1.0, 0.01) == math.inf
    assert k_bound(1.0, 1.0, 0.01, k_max=50) == 50
    assert k_bound(0.0, 0.9, 0.01) == 1
    assert k_bound(1.0, 0.0, 0.01) == 1
    assert k_bound(1.0, 0.005, 0.01) == 1  # gamma*lam < eta
    # the boundary: gamma*lam == eta gives (gamma lam)^1 <= eta, K = 1 (one convention: <=)
    assert k_bound(1.0, 0.01, 0.01) == 1 and k_bound(0.5, 0.2, 0.1) == 1
    assert k_bound(1.0, 0.0100001, 0.01) == 2
    assert k_bound(1.0, 0.5, 0.25) == 2  # exactly 0.5^2 = 0.25
    assert k_bound(1.0, 0.5, 0.2) == 3
    # the smallest K with (gamma lam)^K <= eta, checked against a search
    for gl in np.linspace(0.02, 0.99, 60):
        for eta in (0.01, 0.1, 0.3):
            k = k_bound(1.0, gl, eta)
            if gl >= eta:
                assert gl**k <= eta * (1 + 1e-12) and gl ** (k - 1) > eta * (1 - 1e-12)
    assert k_bound(1.0, 0.9, 0.01) == 44
    assert k_bound(1.0, 0.9, 0.01, k_max=10) == 10


def test_bare_rho_recursion_blows_up_and_definition_agrees_early(rng):
    """Sec. 5: with gamma*lam = 0.5, rounding errors in the bare rho-recursion grow 2x a step."""
    T, gamma, lam = 2000, 1.0, 0.5
    r = rng.normal(size=T)
    v = np.append(rng.normal(size=T), 0.0)
    K = k_bound(gamma, lam, 0.01)
    assert K == 7
    by_rho = bounded_returns_by_rho(r, v, K, gamma, lam)
    by_def = bounded_returns_by_definition(r, v, K, gamma, lam)[: len(by_rho)]
    err = np.abs(by_rho - by_def)
    assert np.all(err[:10] < 1e-12)  # exact at first
    assert not np.all(err < 1e-3)  # then the errors, doubled every step, blow up
    first_bad = int(np.argmax(~(err < 1e-3)))
    assert first_bad < 200  # 2^-52 * 2^t > 1e-3 after about 42 steps


# ----------------------------------------------------------------------------- pure returns


def test_pure_returns_agree_with_eq_2(rng):
    """n-step, K-bounded and lambda-returns of a whole episode against the definitions
    (eq. 2 term by term), with a bootstrap value at the end (a cut) and with 0 (terminal)."""
    from ftd_lib.returns import k_bounded_returns, lambda_returns, n_step_returns

    T, gamma, lam = 9, 0.9, 0.7
    r = rng.normal(size=T)
    for end in (0.0, 1.7):
        v = np.append(rng.normal(size=T), end)
        for n in (1, 2, 4, 9, 20):
            want = [n_step_return(r, v, t, min(n, T - t), gamma) for t in range(T)]
            np.testing.assert_allclose(n_step_returns(r, v, n, gamma), want, rtol=1e-13)
            h = [min(t + n, T) for t in range(T)]
            want = [interim_lambda_return(r, v, t, h[t], gamma, lam) for t in range(T)]
            np.testing.assert_allclose(k_bounded_returns(r, v, n, gamma, lam), want,
                                       rtol=1e-12, atol=1e-12)
            # lambda = 1: the K-bounded return is the K-step return (n-step Sarsa's identity)
            np.testing.assert_allclose(k_bounded_returns(r, v, n, gamma, 1.0),
                                       n_step_returns(r, v, n, gamma), rtol=1e-12, atol=1e-12)
        want = [interim_lambda_return(r, v, t, T, gamma, lam) for t in range(T)]
        np.testing.assert_allclose(lambda_returns(r, v, gamma, lam), want, rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(k_bounded_returns(r, v, T, gamma, lam), want, rtol=1e-12,
                                   atol=1e-12)
    # by hand: rewards 1, 2, 3, end value 10, gamma 0.5, n = 2
    np.testing.assert_allclose(n_step_returns([1, 2, 3], [0, 4, 6, 10], 2, 0.5),
                               [1 + 0.5 * 2 + 0.25 * 6, 2 + 0.5 * 3 + 0.25 * 10,
                                3 + 0.5 * 10])


def test_pure_returns_refuse_bad_input():
    from ftd_lib.returns import k_bounded_returns, n_step_returns

    with pytest.raises(ValueError, match="values must have shape"):
        n_step_returns([1.0, 2.0], [0.0, 0.0], 1, 0.9)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        n_step_returns([1.0], [0.0, 0.0], 0, 0.9)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        k_bounded_returns([1.0], [0.0, 0.0], 0, 0.9, 0.5)
