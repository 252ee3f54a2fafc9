"""returns.gae: the GAE recursion against the paper's interim lambda-return (eq. 2) by its
definition, a brute-force sum and numbers worked out by hand."""

import numpy as np
import pytest

from ftd_lib.returns import gae, n_step_return, rollout_returns_by_definition


def test_gae_by_hand():
    r, v, gamma, lam = [1.0, 2.0, 3.0], [0.5, 1.0, 2.0, 4.0], 0.5, 0.5
    # delta = [1, 2, 3]; A_2 = 3, A_1 = 2 + 0.25 * 3, A_0 = 1 + 0.25 * 2.75
    assert gae(r, v, gamma, lam) == pytest.approx([1.6875, 2.75, 3.0], abs=1e-15)
    # eq. 2 by hand (and by the library): G_0^(1) = 1.5, G_0^(2) = 2.5, G_0^(3) = 3.25,
    # G_0^{lam|3} = 0.5 * (1.5 + 0.5 * 2.5) + 0.25 * 3.25 = 2.1875 = A_0 + V(S_0)
    assert gae(r, v, gamma, lam)[0] + v[0] == pytest.approx(2.1875, abs=1e-15)
    assert rollout_returns_by_definition(r, v, gamma, lam)[0] == pytest.approx(2.1875)
    # S_2 terminal (terminals[1] = 1): no bootstrap from values[2], the recursion restarts
    # A_2 = 3 (bootstraps from values[3]); A_1 = 2 + 0 - 1 = 1; A_0 = 1 + 0.25 * 1
    assert gae(r, v, gamma, lam, terminals=[0, 1, 0]) == pytest.approx([1.25, 1.0, 3.0],
                                                                      abs=1e-15)


def _segments(terminals, T):
    """(start, end, end_is_terminal) of the episodes' pieces of a rollout."""
    out, s = [], 0
    for t in range(T):
        if terminals[t]:
            out.append((s, t + 1, True))
            s = t + 1
    if s < T:
        out.append((s, T, False))
    return out


def _brute_force(r, v, gamma, lam, terminals):
    r"""A_t = sum_{k=0}^{h-t-1} (gamma lam)^k delta_{t+k}, delta with the terminals' masks."""
    T = len(r)
    d = np.asarray(terminals, float)
    delta = [r[t] + gamma * (1 - d[t]) * v[t + 1] - v[t] for t in range(T)]
    out = np.zeros(T)
    for s, e, _ in _segments(terminals, T):
        for t in range(s, e):
            out[t] = sum((gamma * lam) ** k * delta[t + k] for k in range(e - t))
    return out


@pytest.mark.parametrize("gamma,lam", [(0.99, 0.95), (1.0, 0.9), (0.9, 0.0), (0.8, 1.0),
                                       (1.0, 1.0), (0.0, 0.7)])
@pytest.mark.parametrize("with_terminals", [False, True])
def test_gae_is_the_interim_lambda_return(rng, gamma, lam, with_terminals):
    T = 23
    r = rng.normal(size=T)
    v = rng.normal(size=T + 1)
    terminals = np.zeros(T, dtype=int)
    if with_terminals:
        terminals[[4, 5, 15]] = 1  # pieces 0..4, 5, 6..15 end terminal; 16..22 is cut
    a = gae(r, v, gamma, lam, terminals=terminals if with_terminals else None)
    assert a.shape == (T,)
    term = terminals if with_terminals else None
    by_def = rollout_returns_by_definition(r, v, gamma, lam, term) - v[:-1]
    assert np.allclose(a, by_def, rtol=0, atol=1e-12)
    assert np.allclose(a, _brute_force(r, v, gamma, lam, terminals), rtol=0, atol=1e-12)


def test_gae_limits(rng):
    T, gamma = 9, 0.9
    r = rng.normal(size=T)
    v = rng.normal(size=T + 1)
    # lambda = 0: the TD error; lambda = 1: the T-step return minus the value
    assert np.allclose(gae(r, v, gamma, 0.0), r + gamma * v[1:] - v[:-1], atol=1e-14)
    mc = [n_step_return(r, v, t, T - t, gamma) - v[t] for t in range(T)]
    assert np.allclose(gae(r, v, gamma, 1.0), mc, atol=1e-12)
    # terminals given as bools are the same as 0/1
    term = np.zeros(T, bool)
    term[3] = True
    assert np.array_equal(gae(r, v, gamma, 0.5, term), gae(r, v, gamma, 0.5, term.astype(int)))


@pytest.mark.parametrize("kwargs,name", [
    (dict(values=np.zeros(3)), "values"),  # T + 1 = 4 expected
    (dict(values=np.zeros((4, 1))), "values"),
    (dict(rewards=np.zeros((3, 1))), "rewards"),
    (dict(rewards=np.zeros(0), values=np.zeros(1)), "rewards"),
    (dict(rewards=[0.0, np.nan, 1.0]), "rewards"),
    (dict(values=[0.0, 1.0, np.inf, 0.0]), "values"),
    (dict(gamma=1.5), "gamma"),
    (dict(gamma=-0.1), "gamma"),
    (dict(lam=1.01), "lam"),
    (dict(lam="x"), "lam"),
    (dict(terminals=[0, 1]), "terminals"),
    (dict(terminals=[0, 2, 0]), "terminals"),
    (dict(terminals=[0, 0.5, 0]), "terminals"),
    (dict(rewards=["a", "b", "c"]), "rewards"),
])
def test_gae_bad_input(kwargs, name):
    args = dict(rewards=[1.0, 2.0, 3.0], values=[0.0, 0.0, 0.0, 0.0], gamma=0.9, lam=0.9)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        gae(**args)
