"""The block lambda-return method (GAE targets, one SGD pass): the per-run reference against its
definition and its two limits (B = 1 is TD(0), one block per episode is the offline
lambda-return algorithm), and the batched engine against the reference (1e-10, float64)."""

import numpy as np
import pytest
import torch
from conftest import random_episodes

from ftd_lib import algorithms as ref
from ftd_lib.approx import MLP, Linear
from ftd_lib.engine import Settings, initial_weights, run_prediction, run_recorded
from ftd_lib.returns import interim_lambda_return

TOL = 1e-10
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device"))]


def by_definition(episodes, w0, *, approx, alpha, lam, gamma, block):
    """Slow and obvious: blocks [s, e); targets G_t^{lam|e} from eq. 2 with every value from
    theta_s (the bootstrap at e: V(S_e|theta_s), or 0 at the episode's end); then the
    block's updates in time order."""
    w, rows = np.asarray(w0, float), []
    for x, r in episodes:
        T = len(r)
        for s in range(0, T, block):
            e = min(s + block, T)
            vals = np.zeros(T + 1)  # values[j] = V(S_j | theta_{j-1}) = V(S_j | theta_s)
            for j in range(s + 1, e + 1):
                vals[j] = 0.0 if j == T else float(approx.value(w, x[j]))
            g = [interim_lambda_return(r, vals, t, e, gamma, lam) for t in range(s, e)]
            rows += [w] * (e - s - 1)
            for t in range(s, e):
                w = ref.td_update(approx, w, x[t], g[t - s], alpha)
            rows.append(w)
    return np.array(rows)


@pytest.mark.parametrize("block", [1, 2, 3, 5, 40])
def test_reference_matches_its_definition(rng, approx, block):
    eps = random_episodes(rng, 3, [7, 1, 12, 4])
    w0 = approx.init(rng)
    kw = dict(approx=approx, alpha=0.05, lam=0.8, gamma=0.95)
    W = ref.block_lambda_return(eps, w0, block=block, **kw)
    assert W.shape == (24, len(w0))
    np.testing.assert_allclose(W, by_definition(eps, w0, block=block, **kw), atol=1e-12)
    # the weights stay frozen inside a block: rows 0 .. block-2 of the first episode are w0
    k = min(block, 7) - 1
    assert np.array_equal(W[:k], np.tile(w0, (k, 1)))
    assert not np.allclose(W[k], w0)


def test_limits_td0_and_offline_lambda_return(rng, approx):
    eps = random_episodes(rng, 3, [9, 3, 14])
    w0 = approx.init(rng)
    kw = dict(approx=approx, alpha=0.05, lam=0.9, gamma=0.9)
    np.testing.assert_allclose(ref.block_lambda_return(eps, w0, block=1, **kw),
                               ref.td0(eps, w0, approx=approx, alpha=0.05, gamma=0.9),
                               atol=1e-12)
    off = ref.offline_lambda_return(eps, w0, **kw)
    for block in (None, 14, 100):
        np.testing.assert_allclose(ref.block_lambda_return(eps, w0, block=block, **kw), off,
                                   atol=1e-12)
    # and in between it is neither
    mid = ref.block_lambda_return(eps, w0, block=4, **kw)
    assert np.abs(mid - off).max() > 1e-6


@pytest.mark.parametrize("block", [0, -1, 2.5, "4", True])
def test_bad_block_names_the_parameter(block):
    eps = [(np.zeros((3, 1)), np.ones(2))]
    with pytest.raises(ValueError, match="block"):
        ref.block_lambda_return(eps, np.zeros(1), approx=Linear(1), alpha=0.1, lam=0.5,
                                gamma=1.0, block=block)


# (alpha, lam, gamma, block): blocks shorter and longer than the episodes, B = 1, one block per
# episode (None), lambda 0 and 1, gamma 0
ROWS = [(0.01, 0.9, 1.0, 16), (0.02, 0.5, 0.9, 3), (0.01, 1.0, 1.0, None),
        (0.03, 0.0, 1.0, 4), (0.02, 0.9, 1.0, 1), (0.015, 0.95, 0.99, 7),
        (0.01, 0.9, 0.0, 5), (0.02, 0.7, 1.0, 2), (0.01, 0.9, 1.0, 1000)]


def _settings(rows):
    a, lam, g, blk = zip(*rows, strict=True)
    return Settings.make(alpha=a, lam=lam, gamma=g, k_max=list(blk))


@pytest.mark.parametrize("device", DEVICES)
def test_engine_matches_the_per_run_reference(device):
    rng = np.random.default_rng(19)
    s = _settings(ROWS)
    eps = [[(rng.uniform(-1, 1, (T + 1, 2)), rng.normal(-1, 2, T)) for T in lengths]
           for lengths in ([1, 20, 6], [9, 2], [17], [30, 1, 4], [5, 5], [12, 25],
                           [8], [3, 16, 7], [22, 2])]
    w0 = initial_weights(3, np.arange(len(ROWS)), 2, 50)
    res = run_recorded("block_lambda_return", eps, w0, s, device=device)
    assert not res.diverged.any()
    approx = MLP(2, 50)
    for b, (alpha, lam, gamma, block) in enumerate(ROWS):
        W = ref.block_lambda_return(eps[b], w0[b], approx=approx, alpha=alpha, lam=lam,
                                    gamma=gamma, block=block)
        assert res.weights[b].shape == W.shape
        np.testing.assert_allclose(res.weights[b], W, rtol=0, atol=TOL, err_msg=f"row {b}")


@pytest.mark.parametrize("device", DEVICES)
def test_engine_row_does_not_depend_on_its_batch(device):
    rng = np.random.default_rng(5)
    eps = [[(rng.uniform(-1, 1, (T + 1, 2)), rng.normal(-1, 2, T)) for T in (11, 4)]
           for _ in ROWS]
    w0 = initial_weights(5, np.arange(len(ROWS)), 2, 16)
    big = run_recorded("block_lambda_return", eps, w0, _settings(ROWS), n_hidden=16,
                       device=device)
    for b in (0, 3, 8):
        alone = run_recorded("block_lambda_return", [eps[b]], w0[b : b + 1],
                             _settings([ROWS[b]]), n_hidden=16, device=device)
        np.testing.assert_array_equal(alone.weights[0], big.weights[b])


@pytest.mark.filterwarnings("error")
def test_engine_live_run_and_divergence():
    """On the live mountain car task: a huge step size diverges (flagged, no warning), the
    others finish with finite errors, and the one-block-per-episode row equals the offline
    lambda-return algorithm's numbers."""
    s = Settings.make(alpha=[0.01, 50.0, 0.01], lam=0.9, gamma=1.0, k_max=[16, 16, None])
    res = run_prediction("block_lambda_return", s, 2016, [0, 1, 2], 3, n_eval=50)
    assert list(res.diverged) == [False, True, False]
    assert np.all(np.isfinite(res.errors[[0, 2]])) and np.isinf(res.errors[1, -1])
    off = run_prediction("offline_lambda_return", s.select([2]), 2016, [2], 3, n_eval=50)
    np.testing.assert_allclose(res.errors[2], off.errors[0], rtol=0, atol=1e-12)
