import numpy as np
import pytest

from ftd_lib import algorithms as A
from ftd_lib.approx import Linear
from ftd_lib.envs import (
    beta_lambda_return,
    beta_td,
    error_first_episodes,
    one_state_episodes,
    random_walk_episodes,
    true_values,
)
from ftd_lib.envs.one_state import episode_lengths
from ftd_lib.envs.random_walk import random_walk_states, transition_matrix


def test_random_walk_true_values_satisfy_bellman():
    v = true_values()
    P = transition_matrix()
    assert np.allclose(v, 1 + P @ v)
    # state 1: 0.7 to terminal, 0.3 to state 2
    assert v[0] == pytest.approx(1 + 0.3 * v[1])


def test_random_walk_monte_carlo_matches_true_values():
    rng = np.random.default_rng(0)
    lengths = [len(random_walk_states(rng)) - 1 for _ in range(4000)]
    assert np.mean(lengths) == pytest.approx(true_values()[-1], rel=0.03)


def test_random_walk_episodes_format():
    eps = random_walk_episodes(3, np.random.default_rng(1))
    for x, r in eps:
        assert x.shape == (len(r) + 1, 10) and np.all(r == 1)
        assert x[0, 9] == 1 and np.all(x[-1] == 0) and np.all(x[:-1].sum(1) == 1)
    again = random_walk_episodes(3, np.random.default_rng(1))
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(eps, again, strict=True))


def test_one_state_episodes_and_lengths():
    (x, r), = one_state_episodes(1, T=4)
    assert x.shape == (5, 1) and list(r) == [0, 0, 0, 1] and x[-1, 0] == 0
    lengths = episode_lengths(20000, np.random.default_rng(0), p_continue=0.9)
    assert lengths.min() >= 1 and np.mean(lengths) == pytest.approx(10, rel=0.03)
    with pytest.raises(ValueError, match="p_continue"):
        episode_lengths(3, np.random.default_rng(0), p_continue=1.0)
    with pytest.raises(ValueError, match="T"):
        one_state_episodes(2, T=0)


def test_fig2_closed_form_matches_reference_algorithms():
    """The pseudo-update error curve equals running the reference algorithms."""
    rng = np.random.default_rng(5)
    lengths = episode_lengths(10, rng, p_continue=0.8)
    eps = [one_state_episodes(1, T=int(t))[0] for t in lengths]
    lin = Linear(1)
    ends = np.cumsum(lengths) - 1
    for alpha in (0.05, 0.2):
        kw = dict(approx=lin, alpha=alpha, lam=1.0, gamma=1.0)
        for name, method in (("td_lambda", A.td_lambda),
                             ("online_lambda_return", A.offline_lambda_return)):
            v = method(eps, np.zeros(1), **kw)[ends, 0]
            got = error_first_episodes(alpha, lengths[None, :], name)[0]
            assert got == pytest.approx(np.mean(np.abs(1 - v)), rel=1e-10)
            got = error_first_episodes(alpha, lengths[None, :], name, metric="rms")[0]
            assert got == pytest.approx(np.sqrt(np.mean((1 - v) ** 2)), rel=1e-10)


def test_td_diverges_when_beta_above_two_lambda_return_never():
    lengths = np.full((1, 10), 10)
    assert beta_td(0.3, 10) > 2 and beta_lambda_return(0.3, 10) < 1
    td = error_first_episodes([0.05, 0.3, 1.0], lengths, "td_lambda")
    lr = error_first_episodes([0.05, 0.3, 1.0], lengths, "online_lambda_return")
    assert td[1] > 10 and lr[1] < 0.1 and lr[2] == 0.0
    assert np.isinf(error_first_episodes([100.0], np.full((1, 500), 100), "td_lambda")[0])
