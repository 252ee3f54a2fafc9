"""The engine live on the real tasks (mountain car evaluation and control, cart-pole).

- live prediction of run r equals the per-run reference on run r's recorded episodes;
- a run's result does not depend on its batch (per-run random streams), for prediction and
  control;
- the error metric: normalised RMS over the fixed evaluation states.
"""

import numpy as np
import pytest

from ftd_lib import algorithms as ref
from ftd_lib.approx import MLP
from ftd_lib.engine import Settings, initial_weights, run_control, run_prediction
from ftd_lib.envs.mountain_car import evaluation_states, record_episodes

SEED = 3
N_EVAL = 60


@pytest.fixture(scope="module")
def eval_set():
    return evaluation_states(N_EVAL, 0)


def _rms(w, states, values):
    return np.sqrt(np.mean((MLP(2, 50).value(w, states) - values) ** 2))


@pytest.mark.parametrize("method", ["forward_td_lambda", "td_lambda"])
def test_live_prediction_equals_the_reference_on_the_recorded_episodes(method, eval_set):
    # (step sizes where TD(lambda) stays stable: near divergence, rounding differences grow)
    s = Settings.make(alpha=[0.002, 0.003], lam=[0.9, 0.6], gamma=1.0, eta=[0.01, 0.1])
    run_ids = [5, 2]
    n_ep = 2
    res = run_prediction(method, s, SEED, run_ids, n_ep, eval_states=eval_set)
    w0 = initial_weights(SEED, run_ids, 2)
    approx = MLP(2, 50)
    for b, rid in enumerate(run_ids):
        eps = record_episodes(SEED, rid, n_ep)
        row = s.row(b)
        if method == "forward_td_lambda":
            W = ref.forward_td_lambda(eps, w0[b], approx=approx, alpha=row["alpha"],
                                      lam=row["lam"], gamma=1.0, eta=row["eta"])
        else:
            W = ref.td_lambda(eps, w0[b], approx=approx, alpha=row["alpha"], lam=row["lam"],
                              gamma=1.0)
        np.testing.assert_allclose(res.final_weights[b], W[-1], rtol=0, atol=1e-10)
        assert res.n_steps[b] == len(W)
        e0 = _rms(w0[b], *eval_set)
        ends = np.cumsum([len(r) for _, r in eps]) - 1
        want = [_rms(W[k], *eval_set) / e0 for k in ends]
        np.testing.assert_allclose(res.errors[b], want, rtol=1e-9)
        assert res.initial_error[b] == pytest.approx(e0, rel=1e-12)


@pytest.mark.parametrize("method", ["forward_td_lambda", "offline_lambda_return", "td_lambda"])
def test_live_prediction_does_not_depend_on_the_batch(method, eval_set):
    n_ep = 2
    rows = dict(alpha=[0.01, 0.02, 0.005, 0.01], lam=[0.9, 1.0, 0.5, 0.0], gamma=1.0,
                k_max=[None, None, 3, None])
    s = Settings.make(**rows)
    big = run_prediction(method, s, SEED, [0, 1, 2, 3], n_ep, eval_states=eval_set)
    alone = run_prediction(method, s.select([2]), SEED, [2], n_ep, eval_states=eval_set)
    np.testing.assert_array_equal(alone.errors[0], big.errors[2])
    np.testing.assert_array_equal(alone.final_weights[0], big.final_weights[2])


@pytest.mark.parametrize("env,n_ep,cap", [("mountain_car", 2, 150), ("cartpole", 4, None)])
@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
def test_live_control_does_not_depend_on_the_batch(method, env, n_ep, cap):
    s = Settings.make(alpha=[0.01, 0.003, 0.02], lam=[0.9, 0.5, 1.0], gamma=[1.0, 0.99, 1.0])
    big = run_control(method, s, SEED, [7, 8, 9], n_ep, env=env, max_steps=cap,
                      engine="batch")
    alone = run_control(method, s.select([1]), SEED, [8], n_ep, env=env, max_steps=cap,
                        engine="batch")
    np.testing.assert_array_equal(alone.returns[0], big.returns[1])
    np.testing.assert_array_equal(alone.final_weights[0], big.final_weights[1])
    np.testing.assert_array_equal(alone.diverged[0], big.diverged[1])
    assert big.returns.shape == (3, n_ep) and np.all(np.isfinite(big.returns[:2]))
    if cap is not None:
        assert np.all(big.lengths <= cap)
