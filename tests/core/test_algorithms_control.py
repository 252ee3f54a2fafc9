"""The per-run control references (:func:`ftd_lib.algorithms.sarsa_lambda`,
:func:`ftd_lib.algorithms.forward_sarsa_lambda`) against numbers worked out by hand, against
each other where the paper says they agree (lambda = 0: both are one-step Sarsa), and on bad
input. (The engines are tested against them in ``test_engine_control.py`` and
``test_engine_kernel.py``.)"""

import numpy as np
import pytest

from ftd_lib import algorithms as A
from ftd_lib.approx import MLP
from ftd_lib.engine import Settings, initial_weights, run_control
from ftd_lib.envs.cartpole import CartPoleBatch
from ftd_lib.rng import run_generator


class TwoSteps:
    """One run of a task with fixed features: two steps, reward 1 then 2, then terminal."""

    n_actions, obs_dim, max_steps = 2, 2, None
    X = np.array([[0.3, -0.2], [-0.5, 0.4], [0.9, 0.1]])

    def reset(self):
        self.t = 0
        return self.X[:1]

    def step(self, actions):
        self.t += 1
        return self.X[self.t:self.t + 1], np.array([float(self.t)]), np.array([self.t == 2]), \
            np.array([False])


def _agent(actions):
    """A generator whose epsilon-greedy choices with epsilon = 1 are ``actions`` (A = 2)."""

    class Fixed:
        def __init__(self):
            self.u = iter([x for a in actions for x in (0.0, 0.25 + 0.5 * a)])

        def random(self):
            return next(self.u)

    return Fixed()


@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0])
def test_two_steps_by_hand(lam):
    """Actions 0 then 1; gamma = 0.9. Sarsa(lambda), by hand: step 1 updates every network by
    alpha delta_1 e (e_0 = grad Q(S0, 0)); step 2 decays e by gamma lambda, adds grad Q(S1, 1)
    and updates with delta_2 = 2 - Q(S1, 1). Forward Sarsa(lambda) with K = infinity (lambda =
    1) updates both pairs at the episode's end towards their lambda-returns."""
    net = MLP(2, 4)
    w0 = np.stack([net.init(run_generator(1, 0, b)) for b in range(2)])
    alpha, gamma, X = 0.1, 0.9, TwoSteps.X
    kw = dict(approx=net, alpha=alpha, lam=lam, gamma=gamma, n_episodes=1, epsilon=1.0)
    got = A.sarsa_lambda(TwoSteps(), w0, agent=_agent([0, 1, 0]), **kw)
    w = w0.copy()
    q = lambda b, x: float(net.value(w[b], x))  # noqa: E731
    d1 = 1.0 + gamma * q(1, X[1]) - q(0, X[0])
    e = np.zeros_like(w)
    e[0] = net.grad(w[0], X[0])
    w = w + alpha * d1 * e
    d2 = 2.0 - q(1, X[1])
    e = gamma * lam * e
    e[1] = e[1] + net.grad(w[1], X[1])
    w = w + alpha * d2 * e
    np.testing.assert_allclose(got.weights, w, rtol=0, atol=1e-14)
    assert got.returns.tolist() == [3.0] and got.lengths.tolist() == [2] and got.n_steps == 2
    if lam == 1.0:
        fwd = A.forward_sarsa_lambda(TwoSteps(), w0, agent=_agent([0, 1, 0]), **kw)
        w = w0.copy()
        q1 = float(net.value(w0[1], X[1]))
        g0 = 1.0 + gamma * 2.0  # the lambda-return with lambda = 1: the Monte-Carlo return
        w[0] = w[0] + alpha * (g0 - q(0, X[0])) * net.grad(w[0], X[0])
        w[1] = w[1] + alpha * (2.0 - q(1, X[1])) * net.grad(w[1], X[1])
        np.testing.assert_allclose(fwd.weights, w, rtol=0, atol=1e-14)
        assert q1 == float(net.value(w0[1], X[1]))


def test_sarsa_and_forward_sarsa_agree_at_lambda_zero():
    """With lambda = 0 both are one-step Sarsa (K = 1): the same runs to rounding."""
    s = Settings.make(alpha=[0.03, 0.1], lam=0.0, gamma=0.99)
    kw = dict(env="cartpole", max_steps=100, engine="reference")
    a = run_control("sarsa_lambda", s, 5, [0, 1], 20, **kw)
    b = run_control("forward_sarsa_lambda", s, 5, [0, 1], 20, **kw)
    np.testing.assert_array_equal(a.returns, b.returns)
    np.testing.assert_allclose(a.final_weights, b.final_weights, rtol=0, atol=1e-10)
    assert len(np.unique(a.returns)) > 3


def test_epsilon_greedy():
    g = run_generator(0, 0, 7)
    u = run_generator(0, 0, 7).random(8)
    assert A.epsilon_greedy([1.0, 3.0, 3.0], 0.0, g) == 1  # greedy, ties to the lowest index
    assert A.epsilon_greedy([1.0, np.nan, 3.0], 0.0, g) == 1  # a nan wins (then: diverged)
    assert A.epsilon_greedy([1.0, 3.0, 2.0], 1.0, g) == int(3 * u[5])  # explores: floor(A u2)


def test_a_diverging_run_is_frozen():
    s = Settings.make(alpha=[80.0], lam=0.9, gamma=0.99)
    r = run_control("forward_sarsa_lambda", s, 0, [0], 6, env="cartpole", engine="reference",
                    div_bound=1e3)
    k = r.diverged_at[0]
    assert 0 <= k < 6 and np.isnan(r.returns[0, k:]).all() and np.isfinite(r.returns[0, :k]).all()
    assert (r.lengths[0, k:] == -1).all() and not r.final_weights.any()


@pytest.mark.parametrize("bad,name", [(dict(alpha=0.0), "alpha"), (dict(lam=1.5), "lam"),
                                      (dict(epsilon=-0.1), "epsilon"),
                                      (dict(truncation="cut"), "truncation"),
                                      (dict(n_episodes=-1), "n_episodes")])
@pytest.mark.parametrize("fn", [A.sarsa_lambda, A.forward_sarsa_lambda])
def test_bad_input_names_the_parameter(fn, bad, name):
    w0 = initial_weights(0, [0], 4, 8, n_nets=2)[0]
    kw = {**dict(approx=MLP(4, 8), alpha=0.1, lam=0.5, gamma=0.99, n_episodes=1,
                 agent=run_generator(0, 0, 1)), **bad}
    with pytest.raises(ValueError, match=name):
        fn(CartPoleBatch(0, [0]), w0, **kw)
