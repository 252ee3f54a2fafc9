"""n-step Sarsa (Sutton & Barto 2018, Sec. 7.2): a method with a parameter of its own (``n``,
its row's ``params`` in ftd_lib/methods.py), its per-run reference
(ftd_lib/references/n_step_sarsa.py) -- and, the same numbers, a curve of forward Sarsa(λ = 1,
K_max = n) in the fast engines (the kernel and the batch)."""

import numpy as np
import pytest

from ftd_lib import methods
from ftd_lib.engine import Settings, run_control
from ftd_lib.engine import method_check as mc
from ftd_lib.references import n_step_sarsa as ns


@pytest.mark.parametrize("env, cap, trunc, episodes, alphas", [
    ("cartpole", 100, "bootstrap", 10, [0.03, 0.1, 0.01]),
    ("cartpole", 25, "terminal", 6, [0.03, 0.1, 0.01]),
    ("mountain_car", 80, "bootstrap", 3, [0.01, 0.003, 0.02]),
    ("puddle_world", 60, "bootstrap", 3, [0.01, 0.03, 0.003])])  # stochastic, no kernel
def test_forward_sarsa_at_lambda_1_and_k_max_n_is_n_step_sarsa_in_every_engine(
        env, cap, trunc, episodes, alphas):
    """The reference of n-step Sarsa against forward Sarsa(1, K_max = n) run by the kernel and
    the batch: returns, lengths, divergence exactly, weights to 1e-10 and a relative 1e-6
    (the K-bounded return is summed another way, and a run on its way to diverging, values
    in the thousands, grows the last bits); alpha 0.1 diverges on cart-pole, so freezing is
    compared too (larger step sizes are chaotic: the last bits decide the episode a run
    diverges in)."""
    gamma = 0.99 if env == "cartpole" else 1.0  # (the tasks' own)
    diverged = []
    for n in (1, 3, 8):
        s = Settings.make(alpha=alphas, lam=1.0, gamma=gamma, k_max=n)
        kw = dict(env=env, max_steps=cap, truncation=trunc)
        ref = run_control("n_step_sarsa", s, 7, [0, 1, 2], episodes, engine="reference",
                          params={"n": n}, **kw)
        for engine in ("kernel", "batch") if env != "puddle_world" else ("batch",):
            got = run_control("forward_sarsa_lambda", s, 7, [0, 1, 2], episodes, engine=engine,
                              **kw)
            np.testing.assert_array_equal(got.returns, ref.returns, err_msg=f"{engine} n={n}")
            np.testing.assert_array_equal(got.lengths, ref.lengths)
            np.testing.assert_array_equal(got.diverged_at, ref.diverged_at)
            np.testing.assert_allclose(got.final_weights, ref.final_weights, rtol=1e-6,
                                       atol=1e-10)
        diverged += list(ref.diverged_at >= 0)
    if env == "cartpole" and trunc == "bootstrap":
        assert any(diverged) and not all(diverged)


def test_n_changes_the_numbers():
    s = Settings.make(alpha=0.03, lam=1.0, gamma=0.99)
    w = [run_control("n_step_sarsa", s, 7, [0], 4, env="cartpole", max_steps=60,
                     params={"n": n}).final_weights for n in (1, 2, 100)]
    assert not np.allclose(w[0], w[1]) and not np.allclose(w[1], w[2])


def test_the_hand_worked_episode_tells_n_2_from_monte_carlo():
    w0 = mc.W0["greedy"]
    h = ns.hand_n_step_sarsa
    assert not np.allclose(h(w0, 2), h(w0, 4))
    assert not np.allclose(h(w0, 3), h(w0, 4))
    np.testing.assert_array_equal(h(w0, 4), h(w0, 10))  # n >= 4 steps: Monte Carlo
    assert mc.check_hand_worked("n_step_sarsa").endswith("agrees in 10 cases")


def test_a_mutant_without_the_bootstrap_fails_check_method(monkeypatch):
    """A mutant: G_{t:t+n} without gamma^n Q(S_{t+n}, A_{t+n}). The hand-worked
    episode at n = 2 finds it (at n >= 4 there is nothing to bootstrap from)."""
    from ftd_lib import returns

    def no_bootstrap(rewards, values, t, n, gamma):
        return returns.n_step_return(rewards, np.zeros(len(values)), t, n, gamma)

    monkeypatch.setattr(ns, "n_step_return", no_bootstrap)
    with pytest.raises(mc.MethodCheckError, match="n = 1"):
        mc.check_method("n_step_sarsa")
    # the same mutant passes the Monte-Carlo cases alone
    mc_only = mc.HandWorked(ns.hand_n_step_sarsa, ({"n": 4}, {"n": 10}))
    assert "agrees in 4 cases" in mc.check_hand_worked("n_step_sarsa", mc_only)


def test_check_method_takes_the_method_s_parameters():
    lines = mc.check_method("n_step_sarsa", params={"n": 2}, env="cartpole")
    assert lines == ["hand-worked 4-step episode: the reference agrees in 10 cases",
                     "engines: kernel agree with the reference on cartpole at 2 parameter "
                     "points (2 comparisons of 3 runs)"]
    with pytest.raises(ValueError, match="params.n of n_step_sarsa: n must be an integer"):
        mc.check_method("n_step_sarsa", params={"n": 0})


@pytest.mark.parametrize("params, match", [
    (None, "params.n: n_step_sarsa needs it"),
    ({}, "params.n: n_step_sarsa needs it"),
    ({"n": 0}, "params.n of n_step_sarsa: n must be an integer >= 1"),
    ({"n": 2.5}, "params.n of n_step_sarsa"),
    ({"n": 2, "m": 1}, "params.m: n_step_sarsa has no parameter 'm'"),
    ([2], "params of n_step_sarsa must be a table"),
])
def test_bad_params_are_refused_naming_the_parameter(params, match):
    s = Settings.make(alpha=0.03, lam=1.0, gamma=0.99)
    with pytest.raises(ValueError, match=match):
        run_control("n_step_sarsa", s, 7, [0], 1, env="cartpole", params=params)
    with pytest.raises(ValueError, match="sarsa_lambda has no parameter 'n'.*none"):
        run_control("sarsa_lambda", s, 7, [0], 1, env="cartpole", params={"n": 2})


def test_the_row_declares_the_parameter():
    (p,) = methods.method("n_step_sarsa").params
    assert (p.name, p.required, methods.example_params("n_step_sarsa")) == ("n", True, {"n": 3})
    assert methods.check_params("forward_sarsa_lambda", None) == {}
