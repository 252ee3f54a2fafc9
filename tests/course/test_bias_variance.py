"""Bias and variance of n-step and λ-returns on the random walk (notebook 02, "Why λ at all"):
the closed forms against every path enumerated and against the library's returns on sampled
episodes."""

import itertools

import numpy as np
import pytest

from ftd_lib.course.bias_variance import (
    best_targets,
    lambda_return_bias_variance,
    n_step_bias_variance,
    plot_bias_variance,
    td0_estimate,
)
from ftd_lib.course.nb02_lambda_return import demo_episode
from ftd_lib.envs.random_walk import N_STATES, P_LEFT, random_walk_states, true_values
from ftd_lib.returns import interim_lambda_return, n_step_return

V_HAT = td0_estimate(5)


def _enumerate_n_step(values, n, state):
    """Every path of n moves from ``state`` (left with 0.7, right with 0.3, state 10 moving
    "right" onto itself), stopped at the terminal state 0: the distribution of G^(n)."""
    probs, returns = [], []
    for moves in itertools.product((-1, 1), repeat=n):
        s, p, g = state, 1.0, 0.0
        for k, m in enumerate(moves):
            if s == 0:  # terminated: the remaining moves are not taken, count the path once
                if any(x != -1 for x in moves[k:]):
                    p = 0.0
                break
            p *= P_LEFT if m == -1 else 1 - P_LEFT
            s = s - 1 if m == -1 else min(s + 1, N_STATES)
            g += 1.0
        if p == 0.0:
            continue
        if s != 0:
            g += values[s - 1]
        probs.append(p)
        returns.append(g)
    probs, returns = np.array(probs), np.array(returns)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    mean = probs @ returns
    return mean, probs @ (returns - mean) ** 2


@pytest.mark.parametrize("state", [1, 4, 10])
def test_n_step_against_every_path(state):
    ns = [1, 2, 3, 5, 8, 11]
    r = n_step_bias_variance(V_HAT, ns, state)
    for n, b, var in zip(ns, r["bias"], r["variance"], strict=True):
        mean, var_slow = _enumerate_n_step(V_HAT, n, state)
        assert b == pytest.approx(mean - true_values()[state - 1], abs=1e-10)
        assert var == pytest.approx(var_slow, abs=1e-9)
    assert np.allclose(r["mse"], r["bias"] ** 2 + r["variance"])


def test_closed_forms_against_sampled_returns():
    """Sampled episodes from state 10; the library's own n-step and λ-returns (by definition,
    eq. 2 with h = T): mean and variance agree with the closed forms within 5 standard
    errors."""
    rng = np.random.default_rng(7)
    n_eps, ns, lams = 6000, [1, 5, 20], [0.0, 0.5, 0.9, 1.0]
    g_n = {n: [] for n in ns}
    g_l = {lam: [] for lam in lams}
    for _ in range(n_eps):
        s = random_walk_states(rng)
        values = np.concatenate([[0.0], V_HAT])[s]  # V(S_j), 0 at the end
        rewards = np.ones(len(s) - 1)
        T = len(rewards)
        for n in ns:
            g_n[n].append(n_step_return(rewards, values, 0, n, 1.0))
        for lam in lams:
            g_l[lam].append(interim_lambda_return(rewards, values, 0, T, 1.0, lam))
    v10 = true_values()[-1]
    for exact, samples in ((n_step_bias_variance(V_HAT, ns), g_n),
                           (lambda_return_bias_variance(V_HAT, lams), g_l)):
        for i, x in enumerate(samples.values()):
            x = np.array(x)
            se_mean = x.std() / np.sqrt(n_eps)
            assert exact["bias"][i] == pytest.approx(x.mean() - v10, abs=5 * se_mean + 1e-9)
            # standard error of a sample variance: sqrt((m4 - s^4) / N)
            m4 = np.mean((x - x.mean()) ** 4)
            se_var = np.sqrt(max(m4 - x.var() ** 2, 0.0) / n_eps)
            assert exact["variance"][i] == pytest.approx(x.var(), abs=5 * se_var + 1e-9)


def test_lambda_limits_are_the_n_step_ends():
    """λ = 0 is the one-step target G^(1); λ = 1 the Monte Carlo return (G^(n), n → ∞):
    unbiased, with the variance of the episode length."""
    lam = lambda_return_bias_variance(V_HAT, [0.0, 1.0])
    one = n_step_bias_variance(V_HAT, [1, 2000])
    assert lam["bias"][0] == pytest.approx(one["bias"][0], abs=1e-12)
    assert lam["variance"][0] == pytest.approx(one["variance"][0], abs=1e-12)
    assert lam["bias"][1] == pytest.approx(0.0, abs=1e-9)
    assert lam["variance"][1] == pytest.approx(one["variance"][1], rel=1e-9)
    # a perfect estimate: the one-step target is unbiased too
    perfect = lambda_return_bias_variance(true_values(), [0.0, 0.5])
    assert np.allclose(perfect["bias"], 0.0, atol=1e-9)


def test_the_trade_off():
    """With the notebook's estimate (TD(0) after 5 episodes, far too low) the bias shrinks and
    the variance grows with n and with λ, and the best target lies strictly inside."""
    ns = np.arange(1, 81)
    r = n_step_bias_variance(V_HAT, ns)
    assert np.all(np.diff(np.abs(r["bias"])) <= 1e-12)
    best = int(np.argmin(r["mse"]))
    assert 0 < best < len(ns) - 1
    lams = np.linspace(0, 1, 21)
    rl = lambda_return_bias_variance(V_HAT, lams)
    assert np.all(np.diff(np.abs(rl["bias"])) <= 1e-12) and np.all(np.diff(rl["variance"]) >= 0)
    assert 0 < int(np.argmin(rl["mse"])) < len(lams) - 1


def test_estimate_is_the_demo_episodes():
    states, _, values = demo_episode(seed=3)
    assert np.allclose(np.concatenate([[0.0], V_HAT])[states], values)


@pytest.mark.parametrize("bad", [dict(values=np.zeros(3)), dict(state=0), dict(state=2.5),
                                 dict(values=np.full(10, np.nan))])
def test_bad_input(bad):
    kw = dict(values=V_HAT, state=10) | bad
    with pytest.raises(ValueError, match="values|state"):
        n_step_bias_variance(kw["values"], [1], kw["state"])
    with pytest.raises(ValueError, match="values|state"):
        lambda_return_bias_variance(kw["values"], [0.5], kw["state"])
    with pytest.raises(ValueError, match="lam"):
        lambda_return_bias_variance(V_HAT, [1.5])
    with pytest.raises(ValueError, match="ns"):
        n_step_bias_variance(V_HAT, [0])


def test_best_targets_move_to_one_step_as_the_estimate_improves():
    rows = best_targets(episodes=(5, 50, 200))
    assert [r["episodes"] for r in rows] == [5, 50, 200]
    assert rows[0]["best_n"] > rows[1]["best_n"] > rows[2]["best_n"]
    assert rows[0]["best_lam"] > rows[1]["best_lam"] > rows[2]["best_lam"]
    for r in rows:
        assert r["mse_best_n"] <= min(r["mse_td0"], r["mse_mc"]) + 1e-12
        assert r["mse_best_lam"] <= min(r["mse_td0"], r["mse_mc"]) + 1e-12


def test_plot_places_lambda_at_its_horizon():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = plot_bias_variance(V_HAT, range(1, 31), [0.0, 0.5, 0.9, 1.0])
    x = axes[1].lines[0].get_xdata()
    assert np.allclose(x, [1.0, 2.0, 10.0])  # 1 / (1 - λ), λ = 1 left out of the line
    mc = lambda_return_bias_variance(V_HAT, [1.0])["mse"][0]
    assert any(np.allclose(ln.get_ydata(), mc) for ln in axes[1].lines[3:])  # λ = 1's level
    assert axes[0].get_xscale() == axes[1].get_xscale() == "log"
    plt.close(axes[0].figure)
