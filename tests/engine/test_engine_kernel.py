"""The compiled per-run control kernel: its pieces, then whole runs against the per-run
reference (:mod:`ftd_lib.algorithms`) and, as a cross-check, against the batched torch
engine bit for bit.

The kernel shares the batch's numerics version, so where torch's CPU arithmetic is the one the
kernel emulates (``addcmul`` one fused multiply-add, the sigmoid's exponential SLEEF's
``expd_u10``: :func:`ftd_lib.engine.premises.kernel_premises`, checked at test time) the two
must agree bit for bit. Where it is not (e.g. ``ATEN_CPU_CAPABILITY=default``) those
cross-checks skip with the reason; the tests against the reference hold on any machine.
"""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch

from ftd_lib.engine import Settings, run_control
from ftd_lib.engine import kernel as K
from ftd_lib.engine._net import BatchedMLP
from ftd_lib.engine.premises import fma_array, kernel_premises, sigmoid_array
from ftd_lib.envs.cartpole import CartPoleBatch
from ftd_lib.envs.mountain_car import MountainCarBatch
from ftd_lib.envs.tasks import TASKS

pytestmark = pytest.mark.slow  # the compiled control kernel against the batch

RNG = np.random.default_rng(20161)
WHY_NOT = kernel_premises()
bit_for_bit_with_torch = pytest.mark.skipif(
    WHY_NOT is not None, reason=f"kernel-vs-batch bit-for-bit cross-check: {WHY_NOT}")


def test_fma_rounds_once():
    """:func:`ftd_lib.engine.kernel.fma` is :math:`s + ab` rounded once: exactly the
    correctly rounded value of the exact rational sum (and a plain multiply-then-add, which
    rounds twice, differs)."""
    s, a, b = RNG.normal(size=(3, 2000))
    exact = [float(Fraction(si) + Fraction(ai) * Fraction(bi))
             for si, ai, bi in zip(s, a, b, strict=True)]
    np.testing.assert_array_equal(fma_array(s, a, b), exact)
    assert (np.array(exact) != s + a * b).sum() > 20


@pytest.mark.parametrize("scale", [0.3, 3.0, 30.0, 400.0])
def test_sleef_exp_and_tanh_are_accurate(scale):
    """The kernel's exponential (SLEEF's algorithm) is within 1 ulp of numpy's, the sigmoid
    and tanh within 2e-16 of theirs, over every range the network meets (including overflow
    and underflow)."""
    z = RNG.normal(size=64 * 1000) * scale
    ours = sigmoid_array(z)
    with np.errstate(over="ignore"):
        ref = 1.0 / (1.0 + np.exp(-z))
    np.testing.assert_allclose(ours, ref, rtol=1e-15, atol=1e-300)
    t = np.array([K.tanh(v) for v in z[:2000]])
    np.testing.assert_allclose(t, np.tanh(z[:2000]), rtol=0, atol=1e-15)


@bit_for_bit_with_torch
@pytest.mark.parametrize("scale", [0.3, 3.0, 30.0, 400.0])
def test_sleef_exp_and_tanh_are_torchs(scale):
    """torch's CPU sigmoid, :math:`1/(1 + e^{-z})`, and the batch's tanh, over every range
    the network meets (including overflow and underflow of the exponential). (torch's own
    ``exp`` op is another implementation: the sigmoid is what the network uses.)"""
    z = RNG.normal(size=64 * 4000) * scale
    np.testing.assert_array_equal(sigmoid_array(z),
                                  torch.from_numpy(z.copy()).sigmoid_().numpy())
    ours_tanh = np.array([K.tanh(v) for v in z])
    net = BatchedMLP(2, 50, tanh="sigmoid")
    np.testing.assert_array_equal(ours_tanh, net.tanh_(torch.from_numpy(z.copy())).numpy())


@bit_for_bit_with_torch
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


@bit_for_bit_with_torch
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
    """``kernel.warm`` and ``warm_prediction`` (what binder/postBuild runs) leave both run
    kernels, the batched envs' steps and both prediction loops compiled."""
    from ftd_lib.engine.kernel import prediction
    from ftd_lib.engine.kernel.prediction_warm import warm_prediction
    from ftd_lib.envs import cartpole, mountain_car

    K.warm()
    warm_prediction()
    assert K.forward_sarsa_run.signatures and K.sarsa_run.signatures
    # every pair of the extension point: n-step Sarsa on each task with compiled dynamics
    for env in ("cartpole", "mountain_car", "acrobot", "puddle_world"):
        pieces = K.extend.method_pieces("n_step_sarsa")[1:] + K.extend.task_pieces(env)[1:]
        assert K.extend.compiled_run(*pieces).signatures, env
    # the loops' entry points for the paper's network (forward_td_episode and td0_run are
    # compiled into them: loaded from numba's cache, their own dispatchers stay empty)
    assert prediction._td0_rows_paper.signatures and prediction._forward_rows_paper.signatures
    assert cartpole._step_rows.signatures and mountain_car._step_rows.signatures
    post = (Path(__file__).parents[2] / "binder" / "postBuild").read_text()
    assert "kernel.warm()" in post and "warm_prediction()" in post
    # warming is outside the code a stored chunk is keyed by (ftd_lib/repro/code.py)
    from ftd_lib.repro.code import code_files

    for kind, method, env in (("control", "sarsa_lambda", "cartpole"),
                              ("prediction", "forward_td_lambda", "mountain_car")):
        assert not any("prediction_warm" in f for f in code_files(kind, method, env))


REF_CASES = [  # (env, runs, episodes, alphas, lambdas, gamma, max_steps): diverging runs too
    ("cartpole", 6, 10, [0.004, 0.03, 0.4], [0.0, 0.6, 0.9, 1.0, 0.5, 0.3], 0.99, None),
    ("cartpole", 4, 8, [0.0075, 3.0], [0.0, 0.6, 1.0], 0.99, 9),
    ("mountain_car", 4, 2, [1e-3, 1.0], [0.0, 0.3, 0.9, 1.0], 1.0, 150),
]


@pytest.mark.parametrize("truncation", ["bootstrap", "terminal"])
@pytest.mark.parametrize("case", range(len(REF_CASES)))
@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
def test_kernel_runs_are_the_references(method, case, truncation):
    """Short runs equal the per-run reference: returns, lengths, divergence and steps
    exactly, final weights to 1e-10, on any machine."""
    env, n, n_ep, alphas, lams, gamma, cap = REF_CASES[case]
    s = Settings.make(alpha=np.resize(alphas, n), lam=np.resize(lams, n), gamma=gamma)
    kw = dict(env=env, max_steps=cap, truncation=truncation)
    k = run_control(method, s, 7, np.arange(n) + 11, n_ep, engine="kernel", **kw)
    r = run_control(method, s, 7, np.arange(n) + 11, n_ep, engine="reference", **kw)
    np.testing.assert_array_equal(k.returns, r.returns)
    np.testing.assert_array_equal(k.diverged_at, r.diverged_at)
    np.testing.assert_array_equal(k.n_steps, r.n_steps)
    ok = np.isfinite(r.returns)  # (the length of the episode a run diverged in: not defined)
    np.testing.assert_array_equal(k.lengths[ok], r.lengths[ok])
    np.testing.assert_allclose(k.final_weights, r.final_weights, rtol=0, atol=1e-10)
    assert r.diverged.any() and not r.diverged.all()


@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
def test_long_kernel_runs_agree_with_the_reference_statistically(method):
    """Over long runs, rounding differences (the kernel's network is not numpy's) may send a
    run another way, so the runs are compared as a sample: the mean return per run of the
    kernel and of the reference differ by less than 3 standard errors of the paired
    differences (and most runs stay identical). The runs learn (returns grow)."""
    n, n_ep = 10, 80
    s = Settings.make(alpha=0.03, lam=np.resize([0.0, 0.6, 0.9], n), gamma=0.99)
    kw = dict(env="cartpole", max_steps=300)
    k = run_control(method, s, 3, np.arange(n), n_ep, engine="kernel", **kw)
    r = run_control(method, s, 3, np.arange(n), n_ep, engine="reference", **kw)
    a, b = np.nanmean(k.returns, 1), np.nanmean(r.returns, 1)
    d = a - b
    assert abs(d.mean()) <= 3 * d.std(ddof=1) / np.sqrt(n) + 1e-12
    assert (d == 0).mean() >= 0.5
    assert np.nanmean(k.returns[:, -10:]) > np.nanmean(k.returns[:, :10])
