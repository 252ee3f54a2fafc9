"""The per-run reference against the paper's definitions, closed forms and each other."""

import math

import numpy as np
import pytest
from conftest import random_episodes

from ftd_lib import algorithms as A
from ftd_lib.approx import MLP, Linear
from ftd_lib.envs import beta_lambda_return, beta_td, one_state_episodes
from ftd_lib.returns import interim_lambda_return

CASES = [
    # (gamma, lam, eta, k_max): K from the bound
    (0.9, 0.8, 0.1, None),  # K = 16 > most episodes here
    (0.9, 0.5, 0.1, None),  # K = 5
    (1.0, 0.5, 0.3, None),  # K = 2
    (0.5, 0.01, 0.01, None),  # gamma*lam < eta: K = 1
    (1.0, 1.0, 0.01, None),  # gamma*lam = 1: K = inf
    (1.0, 1.0, 0.01, 3),  # K = inf capped at 3
    (0.95, 0.9, 0.01, 4),  # K = 50 capped at 4
]


@pytest.mark.parametrize("gamma,lam,eta,k_max", CASES)
def test_algorithm1_equals_definition(rng, approx, gamma, lam, eta, k_max):
    eps = random_episodes(rng, 3, [1, 2, 7, 3, 12, 25, 4])
    w0 = approx.init(rng) if isinstance(approx, MLP) else rng.normal(size=approx.n_params)
    kw = dict(approx=approx, alpha=0.05, lam=lam, gamma=gamma, eta=eta, k_max=k_max)
    W = A.forward_td_lambda(eps, w0, **kw)
    W_def = A.forward_td_lambda_by_definition(eps, w0, **kw)
    assert W.shape == (sum(len(r) for _, r in eps), approx.n_params)
    assert np.max(np.abs(W - W_def)) < 1e-10
    assert np.max(np.abs(W[-1] - w0)) > 1e-3  # it learned something


def test_online_lambda_return_equals_true_online_td(rng):
    lin = Linear(4)
    eps = random_episodes(rng, 4, [6, 11, 3, 9])
    w0 = rng.normal(size=4)
    for gamma, lam, alpha in [(0.9, 0.8, 0.1), (1.0, 1.0, 0.05), (0.99, 0.3, 0.2), (1.0, 0.0, 0.1)]:
        kw = dict(approx=lin, alpha=alpha, lam=lam, gamma=gamma)
        W1 = A.online_lambda_return(eps, w0, **kw)
        W2 = A.true_online_td_lambda(eps, w0, **kw)
        assert np.max(np.abs(W1 - W2)) < 1e-10  # step by step, every row


def test_k_equals_1_is_td0(rng, approx):
    eps = random_episodes(rng, 3, [5, 9, 1, 7])
    w0 = approx.init(rng) if isinstance(approx, MLP) else rng.normal(size=3)
    W = A.forward_td_lambda(eps, w0, approx=approx, alpha=0.1, lam=0.005, gamma=1.0, eta=0.01)
    W0 = A.td_lambda(eps, w0, approx=approx, alpha=0.1, lam=0.0, gamma=1.0)
    assert np.max(np.abs(W - W0)) < 1e-12


def test_gamma_lam_one_is_offline_lambda_return(rng, approx):
    eps = random_episodes(rng, 3, [5, 9, 1, 7])
    w0 = approx.init(rng) if isinstance(approx, MLP) else rng.normal(size=3)
    kw = dict(approx=approx, alpha=0.05, lam=1.0, gamma=1.0)
    W = A.forward_td_lambda(eps, w0, eta=0.01, **kw)
    W_off = A.offline_lambda_return(eps, w0, **kw)
    assert np.max(np.abs(W - W_off)) < 1e-10


def test_offline_lambda_return_holds_weights_during_episode(rng):
    lin = Linear(3)
    eps = random_episodes(rng, 3, [4, 3])
    w0 = rng.normal(size=3)
    W = A.offline_lambda_return(eps, w0, approx=lin, alpha=0.1, lam=0.7, gamma=0.9)
    assert np.all(W[:3] == w0) and np.any(W[3] != w0) and np.all(W[4:6] == W[3])


def test_theorem1_ratio_shrinks_with_alpha(rng):
    """Theorem 1: ||theta_td - theta_lambda|| / ||theta_td - theta_0|| -> 0 as alpha -> 0."""
    mlp = MLP(3, 8)
    eps = random_episodes(rng, 3, [12])
    w0 = mlp.init(rng)
    ratios = []
    for alpha in (1e-1, 1e-2, 1e-3, 1e-4):
        kw = dict(approx=mlp, alpha=alpha, lam=0.9, gamma=0.95)
        w_td = A.td_lambda(eps, w0, **kw)[-1]
        w_lr = A.online_lambda_return(eps, w0, **kw)[-1]
        ratios.append(np.linalg.norm(w_td - w_lr) / np.linalg.norm(w_td - w0))
    assert all(b < a for a, b in zip(ratios, ratios[1:], strict=False))
    assert ratios[-1] < 1e-3 and ratios[-1] < ratios[0] / 100  # O(alpha): 1000x smaller alpha


@pytest.mark.parametrize("alpha,T", [(0.1, 5), (0.3, 10), (0.05, 40), (0.9, 3)])
def test_one_state_closed_forms(alpha, T):
    """After one episode: TD(1) moves V by beta = alpha T, the lambda-return by 1-(1-alpha)^T."""
    lin = Linear(1)
    eps = one_state_episodes(1, T=T)
    v0 = 0.3
    kw = dict(approx=lin, alpha=alpha, lam=1.0, gamma=1.0)
    for method, beta in [(A.td_lambda, beta_td(alpha, T)),
                         (A.online_lambda_return, beta_lambda_return(alpha, T)),
                         (A.offline_lambda_return, beta_lambda_return(alpha, T))]:
        v_T = method(eps, np.array([v0]), **kw)[-1, 0]
        assert v_T == pytest.approx(v0 + beta * (1 - v0), abs=1e-12)


def test_resync_keeps_rounding_errors_small(rng):
    """Sec. 5: gamma*lam = 0.5 over 2000 steps; Algorithm 1's targets stay exact to 1e-8."""
    lin = Linear(3)
    (x, r), = random_episodes(rng, 3, [2000])
    trace = []
    A.forward_td_lambda([(x, r)], rng.normal(size=3) * 0.1, approx=lin, alpha=0.001, lam=0.5,
                        gamma=1.0, eta=0.01, trace=trace)
    K = trace[0]["K"]
    values = A.trace_values(trace)  # values[j] = V(S_j | theta_{j-1})
    targets = A.algorithm1_targets(trace)
    assert np.all(np.isfinite(targets))  # every state was updated once
    worst = max(abs(targets[t] - interim_lambda_return(r, values, t, min(t + K, 2000), 1.0, 0.5))
                for t in range(2000))
    assert worst < 1e-8


@pytest.mark.parametrize("method", [A.td_lambda, A.online_lambda_return,
                                    A.offline_lambda_return, A.forward_td_lambda,
                                    A.true_online_td_lambda])
def test_bad_input_raises_value_error_naming_parameter(rng, method):
    lin = Linear(2)
    eps = random_episodes(rng, 2, [3])
    good = dict(approx=lin, alpha=0.1, lam=0.5, gamma=0.9)
    bad = [
        ("alpha", dict(alpha=0.0)), ("alpha", dict(alpha=-1)), ("alpha", dict(alpha=math.nan)),
        ("alpha", dict(alpha=math.inf)), ("alpha", dict(alpha="x")),
        ("lam", dict(lam=1.5)), ("lam", dict(lam=-0.1)),
        ("gamma", dict(gamma=1.01)), ("gamma", dict(gamma=-1)),
    ]
    for name, change in bad:
        with pytest.raises(ValueError, match=name):
            method(eps, np.zeros(2), **{**good, **change})
    with pytest.raises(ValueError, match="w0"):
        method(eps, np.zeros(3), **good)
    with pytest.raises(ValueError, match="episodes"):
        method([(np.zeros((4, 2)), np.zeros(2))], np.zeros(2), **good)  # lengths disagree
    with pytest.raises(ValueError, match="episodes"):
        method([(np.zeros((4, 3)), np.zeros(3))], np.zeros(2), **good)  # wrong feature count
    if method is A.forward_td_lambda:
        for eta in (0.0, 1.0, -0.5, 2):
            with pytest.raises(ValueError, match="eta"):
                method(eps, np.zeros(2), eta=eta, **good)
        for k_max in (0, -3, 1.5):
            with pytest.raises(ValueError, match="k_max"):
                method(eps, np.zeros(2), k_max=k_max, **good)


def test_true_online_rejects_mlp(rng):
    with pytest.raises(ValueError, match="approx"):
        A.true_online_td_lambda(random_episodes(rng, 2, [3]), np.zeros(MLP(2, 3).n_params),
                                approx=MLP(2, 3), alpha=0.1, lam=0.5, gamma=0.9)


# ------------------------------------------------------------------------------ TD(0)


def test_td0_one_step_by_hand():
    lin = Linear(3)
    x = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 0]])  # S_0 = a, S_1 = b, S_2 terminal
    r = np.array([1.0, 2.0])
    w0 = np.array([8.0, 5.0, 0.0])
    W = A.td0([(x, r)], w0, approx=lin, alpha=0.5, gamma=0.9)
    # step 1: V(a) = 8 + 0.5 (1 + 0.9 * 5 - 8) = 6.75
    assert W[0] == pytest.approx([6.75, 5.0, 0.0])
    # step 2 (into the terminal state): V(b) = 5 + 0.5 (2 + 0 - 5) = 3.5
    assert W[1] == pytest.approx([6.75, 3.5, 0.0])


@pytest.mark.parametrize("approx", [Linear(3), MLP(3, 5)], ids=["linear", "mlp"])
def test_td0_equals_td_lambda_zero(rng, approx):
    eps = random_episodes(rng, 3, [4, 1, 9])
    w0 = approx.init(rng) if isinstance(approx, MLP) else rng.normal(size=3)
    W = A.td0(eps, w0, approx=approx, alpha=0.1, gamma=0.9)
    W_ref = A.td_lambda(eps, w0, approx=approx, alpha=0.1, lam=0.0, gamma=0.9)
    assert W.shape == W_ref.shape == (14, approx.n_params)
    assert np.max(np.abs(W - W_ref)) < 1e-12
    assert np.max(np.abs(W[-1] - w0)) > 1e-3


def test_td0_rejects_bad_alpha(rng):
    eps = random_episodes(rng, 3, [2])
    with pytest.raises(ValueError, match="alpha"):
        A.td0(eps, np.zeros(3), approx=Linear(3), alpha=0.0, gamma=1.0)
