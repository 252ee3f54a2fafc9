"""The batched engine against the per-run reference (ftd_lib.algorithms), in float64.

Every row of a batch must reproduce the reference on the same recorded episodes to 1e-10,
whatever the batch size and whatever the other rows' settings; a row's result must not depend
on its batch; a diverging row is frozen and reported, the others go on, without warnings.
"""

import math

import numpy as np
import pytest
import torch

from ftd_lib import algorithms as ref
from ftd_lib.approx import MLP
from ftd_lib.engine import Settings, initial_weights, run_recorded
from ftd_lib.returns import k_bound

TOL = 1e-10
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device"))]

# (alpha, lam, gamma, eta, k_max): long K, small K, gamma*lam = 1 (K = inf), lam = 0 (K = 1),
# gamma*lam < eta (K = 1), k_max = 1, k_max caps, gamma = 0, gamma*lam = 1 capped
MIXED = [
    (0.01, 0.9, 1.0, 0.01, None),
    (0.02, 0.5, 0.9, 0.1, None),
    (0.01, 1.0, 1.0, 0.01, None),
    (0.03, 0.0, 1.0, 0.01, None),
    (0.02, 0.2, 0.5, 0.3, None),
    (0.01, 0.9, 1.0, 0.01, 1),
    (0.015, 0.95, 1.0, 0.01, 4),
    (0.02, 0.8, 0.99, 0.3, None),
    (0.01, 0.9, 0.0, 0.01, None),
    (0.005, 1.0, 1.0, 0.01, 5),
    (0.02, 0.7, 1.0, 0.01, None),
]


def settings_of(rows):
    a, lam, g, eta, km = zip(*rows, strict=True)
    return Settings.make(alpha=a, lam=lam, gamma=g, eta=eta, k_max=list(km))


def episodes_for(rng, n_rows, n_in, max_len, max_eps=3):
    """Per row: 1..max_eps episodes of lengths 1..max_len (some shorter than K, some T=1)."""
    out = []
    for b in range(n_rows):
        lengths = rng.integers(1, max_len + 1, size=rng.integers(1, max_eps + 1))
        if b % 4 == 0:
            lengths[0] = 1
        out.append([(rng.uniform(-1, 1, (T + 1, n_in)), rng.normal(-1, 2, T)) for T in lengths])
    return out


def reference(method, eps, w0, row, approx):
    kw = dict(approx=approx, alpha=row["alpha"], lam=row["lam"], gamma=row["gamma"])
    if method == "td0":
        kw["lam"] = 0.0
        return ref.td_lambda(eps, w0, **kw)
    if method == "forward_td_lambda":
        return ref.forward_td_lambda(eps, w0, eta=row["eta"], k_max=row["k_max"], **kw)
    return getattr(ref, method)(eps, w0, **kw)


CASES = {  # method: (n_hidden, max episode length)
    "td0": (50, 30),
    "td_lambda": (50, 30),
    "forward_td_lambda": (50, 30),
    "offline_lambda_return": (50, 20),
    "online_lambda_return": (16, 10),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("method", sorted(CASES))
def test_each_row_matches_the_per_run_reference(method, device):
    n_hidden, max_len = CASES[method]
    rng = np.random.default_rng(7)
    rows = MIXED + MIXED[:3]
    s = settings_of(rows)
    n_in = 2
    eps = episodes_for(rng, len(rows), n_in, max_len)
    w0 = initial_weights(3, np.arange(len(rows)), n_in, n_hidden)
    res = run_recorded(method, eps, w0, s, n_hidden=n_hidden, device=device)
    approx = MLP(n_in, n_hidden)
    assert not res.diverged.any()
    for b in range(len(rows)):
        W = reference(method, eps[b], w0[b], s.row(b), approx)
        assert res.weights[b].shape == W.shape
        np.testing.assert_allclose(res.weights[b], W, rtol=0, atol=TOL, err_msg=f"row {b}")


@pytest.mark.parametrize("double_steps,double_pops",
                         [(True, True), (False, False), (True, False), (False, True)])
def test_forward_td_mixed_k_long_episodes(double_steps, double_pops):
    """Episodes longer than K (steady state, syncs every K steps) and shorter than K, with
    K from 1 to 44 and K = inf in one batch; 4 inputs (cart-pole sized); every variant of
    the schedule (double steps / double pops) gives the reference's weights."""
    rng = np.random.default_rng(11)
    s = settings_of(MIXED)
    Ks = s.K()
    assert Ks.min() == 1 and math.isinf(Ks.max()) and 44 in Ks and 3 in Ks
    eps = [[(rng.uniform(-1, 1, (T + 1, 4)), rng.normal(-1, 2, T)) for T in (60, 5, 47)]
           for _ in MIXED]
    w0 = initial_weights(0, np.arange(len(MIXED)), 4)
    res = run_recorded("forward_td_lambda", eps, w0, s, double_steps=double_steps,
                       double_pops=double_pops)
    approx = MLP(4, 50)
    for b in range(len(MIXED)):
        W = reference("forward_td_lambda", eps[b], w0[b], s.row(b), approx)
        np.testing.assert_allclose(res.weights[b], W, rtol=0, atol=TOL, err_msg=f"row {b}")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("method", ["forward_td_lambda", "td_lambda", "online_lambda_return"])
def test_a_row_does_not_depend_on_its_batch(method, device):
    """The same row alone, in a small batch and in a big mixed batch: the same weights, bit
    for bit."""
    rng = np.random.default_rng(3)
    rows = MIXED * 2
    eps = episodes_for(rng, len(rows), 2, 12)
    w0 = initial_weights(5, np.arange(len(rows)), 2, 16)
    big = run_recorded(method, eps, w0, settings_of(rows), n_hidden=16, device=device)
    for b in (0, 2, 9):
        alone = run_recorded(method, [eps[b]], w0[b : b + 1], settings_of([rows[b]]),
                             n_hidden=16, device=device)
        np.testing.assert_array_equal(alone.weights[0], big.weights[b])
    pair = run_recorded(method, [eps[9], eps[0]], w0[[9, 0]], settings_of([rows[9], rows[0]]),
                        n_hidden=16, device=device)
    np.testing.assert_array_equal(pair.weights[1], big.weights[0])


@pytest.mark.parametrize("device", DEVICES)
def test_network_values_do_not_depend_on_the_batch(device):
    """The batched network's value of a column is the same bits for any number of columns
    and any position (fixed-order sums, padded transcendental ops)."""
    from ftd_lib.engine._net import BatchedMLP

    net = BatchedMLP(2, 50, device=device)
    rng = np.random.default_rng(0)
    W = initial_weights(0, np.arange(37), 2)
    X = np.vstack([rng.uniform(-1, 1, (2, 37)), np.ones((1, 37))])
    th = net.to_internal(W)
    full = net.value(net.views(th), torch.as_tensor(X, device=device), net.work(37))
    for lo, hi in [(0, 1), (5, 6), (36, 37), (3, 8), (0, 16), (10, 37)]:
        part = net.value(net.views(th[:, lo:hi].contiguous()),
                         torch.as_tensor(X[:, lo:hi].copy(), device=device), net.work(hi - lo))
        np.testing.assert_array_equal(part, full[lo:hi])
    approx = MLP(2, 50)
    np.testing.assert_allclose(full, [approx.value(W[b], X[:2, b]) for b in range(37)],
                               rtol=0, atol=1e-13)


def test_k_of_every_row_is_the_papers():
    s = settings_of(MIXED)
    for b, (_, lam, g, eta, km) in enumerate(MIXED):
        assert s.K()[b] == k_bound(g, lam, eta, km)
    for row in MIXED:  # one setting broadcast to many rows (the shortcut past np.unique)
        _, lam, g, eta, km = row
        assert settings_of([row]).broadcast(5).K().tolist() == [k_bound(g, lam, eta, km)] * 5


@pytest.mark.filterwarnings("error")
def test_divergence_is_detected_per_row_and_the_rest_goes_on():
    """TD(lambda) with a large step size diverges (the one-state example's alpha*T > 2 on a
    network); the run is frozen and flagged, the other rows still match the reference, and
    no warning is raised (pytest turns warnings into errors here)."""
    rng = np.random.default_rng(1)
    T = 40
    x = np.tile(rng.uniform(-1, 1, (1, 2)), (T + 1, 1))  # one state, seen T times
    eps = [(x, np.r_[np.zeros(T - 1), 1.0])] * 6
    s = Settings.make(alpha=[0.5, 0.001, 3.0, 0.002, 0.9, 0.001], lam=1.0, gamma=1.0)
    w0 = initial_weights(0, np.arange(6), 2, 16)
    states = rng.uniform(-1, 1, (20, 2))
    res = run_recorded("td_lambda", eps, w0, s, n_hidden=16, eval_states=(states, np.ones(20)))
    assert res.diverged[[0, 2, 4]].all() and not res.diverged[[1, 3, 5]].any()
    for b in np.flatnonzero(res.diverged):
        k = res.diverged_at[b]
        assert 0 <= k and np.all(np.isinf(res.errors[b, k:])) and np.all(
            np.isfinite(res.errors[b, :k]))
        assert np.all(np.isnan(res.weights[b][(k + 1) * T :]))
    assert np.all(np.isfinite(res.errors[~res.diverged]))
    approx = MLP(2, 16)
    for b in (1, 3, 5):
        W = reference("td_lambda", eps, w0[b], s.row(b), approx)
        np.testing.assert_allclose(res.weights[b], W, rtol=0, atol=TOL)
    # where TD(lambda) diverged at alpha = 0.5, the offline lambda-return algorithm does not
    res = run_recorded("offline_lambda_return", eps, w0, s, n_hidden=16)
    assert not res.diverged[[0, 1, 3, 5]].any()


def test_error_metric_is_normalised_by_the_initial_error():
    rng = np.random.default_rng(2)
    eps = episodes_for(rng, 3, 2, 10, max_eps=2)
    eps = [e[:1] + e[:1] for e in eps]  # two episodes each
    w0 = initial_weights(1, [0, 1, 2], 2, 8)
    states, v = rng.uniform(-1, 1, (30, 2)), rng.normal(size=30)
    s = Settings.make(alpha=0.05, lam=0.8, gamma=1.0)
    res = run_recorded("forward_td_lambda", eps, w0, s, n_hidden=8, eval_states=(states, v))
    approx = MLP(2, 8)
    for b in range(3):
        e0 = np.sqrt(np.mean((approx.value(w0[b], states) - v) ** 2))
        assert res.initial_error[b] == pytest.approx(e0, rel=1e-12)
        n_steps = [len(r) for _, r in eps[b]]
        for ep, end in enumerate(np.cumsum(n_steps)):
            w = res.weights[b][end - 1]
            err = np.sqrt(np.mean((approx.value(w, states) - v) ** 2)) / e0
            assert res.errors[b, ep] == pytest.approx(err, rel=1e-10)


def test_float32_is_close_to_float64():
    rng = np.random.default_rng(4)
    eps = episodes_for(rng, 4, 2, 20)
    w0 = initial_weights(0, range(4), 2)
    s = settings_of(MIXED[:4])
    a = run_recorded("forward_td_lambda", eps, w0, s, dtype=torch.float64)
    b = run_recorded("forward_td_lambda", eps, w0, s, dtype=torch.float32)
    for wa, wb in zip(a.weights, b.weights, strict=True):
        np.testing.assert_allclose(wb, wa, atol=1e-4)


def test_bad_settings_raise_value_error_naming_the_parameter():
    with pytest.raises(ValueError, match="alpha"):
        Settings.make(alpha=[0.1, -1.0], lam=0.9, gamma=1.0)
    with pytest.raises(ValueError, match="lam"):
        Settings.make(alpha=0.1, lam=1.5, gamma=1.0)
    with pytest.raises(ValueError, match="gamma"):
        Settings.make(alpha=0.1, lam=0.5, gamma=[1.0, -0.1])
    with pytest.raises(ValueError, match="eta"):
        Settings.make(alpha=0.1, lam=0.5, gamma=1.0, eta=1.0)
    with pytest.raises(ValueError, match="k_max"):
        Settings.make(alpha=0.1, lam=0.5, gamma=1.0, k_max=0)
    with pytest.raises(ValueError, match="lengths"):
        Settings.make(alpha=[0.1, 0.2], lam=[0.5, 0.6, 0.7], gamma=1.0)
    with pytest.raises(ValueError, match="method"):
        run_recorded("td_sigma", [(np.zeros((2, 2)), np.ones(1))], np.zeros(201),
                     Settings.make(alpha=0.1, lam=0.5, gamma=1.0))


def test_initial_weights_depend_only_on_seed_and_run_id():
    a = initial_weights(7, [3, 1, 3], 2)
    b = initial_weights(7, [1], 2)
    np.testing.assert_array_equal(a[0], a[2])
    np.testing.assert_array_equal(a[1], b[0])
    assert not np.array_equal(a[0], a[1])
    c = initial_weights(7, [3], 2, n_nets=3)
    assert c.shape == (1, 3, 201)
    np.testing.assert_array_equal(c[0, 0], a[0])
