"""The compiled per-run control kernel against the batched torch engine, bit for bit.

The kernel (:mod:`ftd_lib.engine.kernel`) shares the batch's numerics version, so it must give
exactly the batch's numbers. First the premises (torch's ``addcmul`` is a fused multiply-add,
its CPU exponential is SLEEF's algorithm, the environments' C-library cosine and sine are
numpy's), then the network pieces, the environments and whole runs: returns, lengths,
divergence and final weights, for both methods, both tasks and both meanings of the cap.
"""

from pathlib import Path

import numpy as np
import pytest
import torch
from numba import njit

from ftd_lib.engine import Settings, run_control
from ftd_lib.engine import kernel as K
from ftd_lib.engine._net import BatchedMLP
from ftd_lib.envs.cartpole import CartPoleBatch
from ftd_lib.envs.mountain_car import MountainCarBatch
from ftd_lib.envs.tasks import TASKS

RNG = np.random.default_rng(20161)


@njit
def _fma_all(s, a, b, out):
    for i in range(s.size):
        out[i] = K.fma(a[i], b[i], s[i])


@njit
def _map(f_id, z, out):
    for i in range(z.size):
        out[i] = 1.0 / (1.0 + K.sleef_exp(-z[i])) if f_id == 0 else K.tanh(z[i])


def test_torch_addcmul_is_one_fused_multiply_add():
    """The premise of :func:`ftd_lib.engine.kernel.fma`: torch's CPU ``addcmul`` rounds once
    (and a plain multiply-then-add, numpy's, differs)."""
    s, a, b = RNG.normal(size=(3, 100_003))
    got = torch.addcmul(*(torch.from_numpy(v) for v in (s, a, b))).numpy()
    fused = np.empty_like(s)
    _fma_all(s, a, b, fused)
    np.testing.assert_array_equal(got, fused)
    assert (got != s + a * b).sum() > 1000


@pytest.mark.parametrize("scale", [0.3, 3.0, 30.0, 400.0])
def test_sleef_exp_and_tanh_are_torchs(scale):
    """torch's CPU sigmoid, :math:`1/(1 + e^{-z})`, and the batch's tanh, over every range
    the network meets (including overflow and underflow of the exponential). (torch's own
    ``exp`` op is another implementation: the sigmoid is what the network uses.)"""
    z = RNG.normal(size=64 * 4000) * scale
    ours_sig, ours_tanh = np.empty_like(z), np.empty_like(z)
    _map(0, z, ours_sig)
    _map(1, z, ours_tanh)
    np.testing.assert_array_equal(ours_sig, torch.from_numpy(z.copy()).sigmoid_().numpy())
    net = BatchedMLP(2, 50, tanh="sigmoid")
    np.testing.assert_array_equal(ours_tanh, net.tanh_(torch.from_numpy(z.copy())).numpy())


@pytest.mark.parametrize("n_in", [2, 4])
def test_value_and_update_are_the_batched_networks(n_in):
    """One network's value and update give the batch's numbers for that column."""
    H, M = 50, 16
    net = BatchedMLP(n_in, H)
    th_ext = RNG.normal(size=(M, net.n_params)) * 0.5
    th = net.to_internal(th_ext)
    x = RNG.uniform(-1, 1, size=(n_in, M))
    xe = torch.from_numpy(np.vstack([x, np.ones((1, M))]))
    coef = RNG.normal(size=M) * 0.1
    w = net.work(M)
    v_batch = net.value(net.views(th), xe, w)
    net.update_(net.views(th), torch.from_numpy((xe.numpy() * coef)[:, None, :]), w,
                torch.from_numpy(coef))
    ours = np.ascontiguousarray(th_ext[:, net.perm])
    h, d = np.empty(H), np.empty(H)
    for m in range(M):
        v = K.value(ours, m, np.ascontiguousarray(x[:, m]), n_in, H, h)
        assert v == v_batch[m]
        K.update(ours, m, np.ascontiguousarray(x[:, m]), n_in, H, h, d, coef[m])
    np.testing.assert_array_equal(ours, th.numpy().T)


@pytest.mark.parametrize("env_name", ["cartpole", "mountain_car"])
def test_environments_are_the_batched_ones(env_name):
    """Resets (from the run's start stream) and 300 steps of random actions, with episodes
    ending on the way, give the batched env's states and features exactly."""
    env_id = K.ENVS[env_name]
    cls = CartPoleBatch if env_name == "cartpole" else MountainCarBatch
    batch = cls(5, [3], max_steps=None)
    obs = batch.reset()
    from ftd_lib.envs.batch import START_STREAM
    from ftd_lib.rng import run_generator

    sgen = run_generator(5, 3, START_STREAM)
    state, x = np.zeros(4), np.empty(TASKS[env_name].n_in)
    K.env_reset(env_id, sgen, state, x)
    np.testing.assert_array_equal(x, obs[0])
    ends = 0
    for a in RNG.integers(0, TASKS[env_name].n_actions, 300):
        obs, r, term, _ = batch.step(np.array([a]))
        reward, t = K.env_step(env_id, state, int(a), x)
        np.testing.assert_array_equal(x, obs[0])
        assert (reward, t) == (r[0], term[0])
        if t:
            ends += 1
            obs = batch.reset()
            K.env_reset(env_id, sgen, state, x)
            np.testing.assert_array_equal(x, obs[0])
    assert env_name == "mountain_car" or ends >= 5


def _both(method, env, n, n_ep, alphas, lams, gamma, **kw):
    s = Settings.make(alpha=np.resize(alphas, n), lam=np.resize(lams, n), gamma=gamma)
    ids = np.arange(n) + 11
    a = run_control(method, s, 7, ids, n_ep, env=env, engine="batch", **kw)
    b = run_control(method, s, 7, ids, n_ep, env=env, engine="kernel", **kw)
    assert b.engine == "kernel" and a.engine == "batch"
    return a, b


CASES = [  # (env, runs, episodes, alphas, lambdas, gamma, max_steps)
    ("cartpole", 12, 12, [0.004, 0.01, 0.03, 0.4], [0.0, 0.3, 0.6, 0.9, 1.0, 0.5], 0.99, None),
    ("cartpole", 8, 8, [0.0075, 0.4], [0.0, 0.6, 1.0], 0.99, 9),
    ("mountain_car", 8, 3, [1e-4, 1e-3, 1.0], [0.0, 0.3, 0.9, 1.0], 1.0, 300),
]


@pytest.mark.parametrize("truncation", ["bootstrap", "terminal"])
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
def test_kernel_runs_are_the_batchs_bit_for_bit(method, case, truncation):
    """Whole runs: returns, lengths, divergence (episode and frozen weights), steps and final
    weights equal the batch's exactly. The workloads include diverging step sizes, gamma
    lambda = 0 (traces cleared every step), lambda = 1 (K beyond the cap), traces renormalised
    (mountain car, lambda = 0.3: s < 1e-60 after 115 steps) and episodes cut by the cap."""
    env, n, n_ep, alphas, lams, gamma, cap = CASES[case]
    a, b = _both(method, env, n, n_ep, alphas, lams, gamma, max_steps=cap,
                 truncation=truncation)
    np.testing.assert_array_equal(b.returns, a.returns)
    np.testing.assert_array_equal(b.lengths, a.lengths)
    np.testing.assert_array_equal(b.diverged_at, a.diverged_at)
    np.testing.assert_array_equal(b.n_steps, a.n_steps)
    np.testing.assert_array_equal(b.final_weights, a.final_weights)
    assert a.diverged.any() and not a.diverged.all()  # the workload has both kinds of runs
    if cap is not None:
        assert (a.lengths == cap).any()


def test_the_default_engine_is_the_kernel_where_it_can_run():
    s = Settings.make(alpha=0.01, lam=0.5, gamma=0.99)
    assert run_control("sarsa_lambda", s, 1, [0], 1, env="cartpole").engine == "kernel"
    assert run_control("sarsa_lambda", s, 1, [0], 1, env="cartpole",
                       dtype=torch.float32).engine == "batch"


@pytest.mark.parametrize("kw,name", [
    (dict(engine="fast"), "engine"),
    (dict(engine="kernel", dtype=torch.float32), "engine"),
    (dict(engine="kernel", env=lambda seed, ids: CartPoleBatch(seed, ids)), "engine"),
])
def test_run_control_rejects_an_engine_it_cannot_use(kw, name):
    s = Settings.make(alpha=0.01, lam=0.5, gamma=0.99)
    kw = {"env": "cartpole", **kw}
    with pytest.raises(ValueError, match=name):
        run_control("sarsa_lambda", s, 1, [0], 1, **kw)


def test_warm_compiles_both_methods_for_both_tasks():
    """``kernel.warm`` (what binder/postBuild runs) leaves both run kernels compiled."""
    K.warm()
    assert K.forward_sarsa_run.signatures and K.sarsa_run.signatures
    post = (Path(__file__).parents[1] / "binder" / "postBuild").read_text()
    assert "kernel.warm()" in post
