"""The kernel's set-up variants (sigmoid hidden units, mountain car's [0, 1] inputs and
start states anywhere, the claim-5 study) against a slow, obvious numpy Sarsa(lambda), run by
run and step by step; the defaults are tested bit for bit against the batch in
``test_engine_kernel.py``."""

import numpy as np
import pytest

from ftd_lib.engine import AGENT_STREAM, Settings, initial_weights
from ftd_lib.engine import kernel as K
from ftd_lib.envs import mountain_car as mc
from ftd_lib.envs.batch import START_STREAM
from ftd_lib.rng import run_generator

H, A, N_IN = 50, 3, 2


def _f(z, hidden):
    return np.tanh(z) if hidden == "tanh" else 1.0 / (1.0 + np.exp(-z))


def _value_grad(w, x, hidden):
    """Q and its gradient, reference layout ``[W1 (H x n), b1, w2, b2]``."""
    W1, b1 = w[:H * N_IN].reshape(H, N_IN), w[H * N_IN:H * N_IN + H]
    w2, b2 = w[H * N_IN + H:H * N_IN + 2 * H], w[-1]
    h = _f(W1 @ x + b1, hidden)
    fp = 1 - h * h if hidden == "tanh" else h * (1 - h)
    d = fp * w2
    return h @ w2 + b2, np.concatenate([np.outer(d, x).ravel(), d, h, [1.0]])


def _obs(p, v, inputs):
    if inputs == "symmetric":
        return np.array([2 * (p - mc.X_MIN) / (mc.X_MAX - mc.X_MIN) - 1, v / mc.V_MAX])
    return np.array([(p - mc.X_MIN) / (mc.X_MAX - mc.X_MIN), (v + mc.V_MAX) / (2 * mc.V_MAX)])


def _reset(sgen, start):
    if start == "bottom":
        return mc.START_LOW + (mc.START_HIGH - mc.START_LOW) * sgen.random(), 0.0
    p = mc.X_MIN + (mc.X_MAX - mc.X_MIN) * sgen.random()
    return p, -mc.V_MAX + 2 * mc.V_MAX * sgen.random()


def _choose(q, agen, eps):
    u1, u2 = agen.random(), agen.random()
    return min(int(u2 * A), A - 1) if u1 < eps else int(np.argmax(q))


def sarsa_by_hand(seed, rid, w0, alpha, lam, n_ep, cap, eps, hidden, inputs, start):
    """Sarsa(lambda), accumulating traces, one network per action, mountain car, gamma = 1,
    a cap that bootstraps: (returns, final weights (A, P))."""
    w = w0.copy()
    sgen, agen = run_generator(seed, rid, START_STREAM), run_generator(seed, rid, AGENT_STREAM)
    returns = []
    for _ in range(n_ep):
        p, v = _reset(sgen, start)
        x = _obs(p, v, inputs)
        a = _choose([_value_grad(w[b], x, hidden)[0] for b in range(A)], agen, eps)
        e = np.zeros_like(w)
        ret, t = 0.0, 0
        while True:
            p2, v2, term = mc.step_arrays(np.array([p]), np.array([v]), np.array([a]))
            p, v, term = float(p2[0]), float(v2[0]), bool(term[0])
            t += 1
            ret -= 1.0
            x2 = _obs(p, v, inputs)
            q_next, a2 = 0.0, a
            if not term:
                q = [_value_grad(w[b], x2, hidden)[0] for b in range(A)]
                a2 = _choose(q, agen, eps)
                q_next = q[a2]
            q_sa, g = _value_grad(w[a], x, hidden)
            delta = -1.0 + q_next - q_sa
            e *= lam
            e[a] += g
            w += alpha * delta * e
            x, a = x2, a2
            if term or t >= cap:
                break
        returns.append(ret)
    return np.array(returns), w


@pytest.mark.parametrize("hidden,inputs,start", [
    ("sigmoid", "symmetric", "bottom"), ("tanh", "unit", "bottom"),
    ("tanh", "symmetric", "anywhere"), ("sigmoid", "unit", "anywhere")])
@pytest.mark.parametrize("method,lam", [("sarsa_lambda", 0.8), ("sarsa_lambda", 0.0),
                                        ("forward_sarsa_lambda", 0.0)])
def test_variant_runs_are_sarsa_by_hand(hidden, inputs, start, method, lam):
    """Three short episodes (cap 60 steps, bootstrapping) of two runs, with a step size that
    moves the weights far: the same returns, and the same final weights up to rounding
    (numpy's exp and sums against the kernel's). Forward Sarsa(0) is Sarsa(0) (K = 1)."""
    seed, ids, alpha, n_ep, cap, eps = 3, np.array([4, 9]), 0.02, 3, 60, 0.3
    w0 = initial_weights(seed, ids, N_IN, H, n_nets=A)
    s = Settings.make(alpha=[alpha] * 2, lam=[lam] * 2, gamma=[1.0] * 2)
    res = K.run_tasks(method, s, seed, ids, n_ep, env="mountain_car", init=lambda t: w0[t],
                      epsilon=eps, max_steps=cap, hidden=hidden, inputs=inputs, start=start)
    moved = 0.0
    for i, rid in enumerate(ids):
        ret, w = sarsa_by_hand(seed, int(rid), w0[i], alpha, lam, n_ep, cap, eps, hidden,
                               inputs, start)
        np.testing.assert_array_equal(res.returns[i], ret)
        np.testing.assert_allclose(res.final_weights[i], w, rtol=1e-9, atol=1e-11)
        moved = max(moved, np.abs(w - w0[i]).max())
    assert moved > 1e-2  # the runs learned something the check can see
    assert not res.diverged.any()


def test_variants_change_the_numbers():
    """Each variant is another set-up: its returns differ from the default's."""
    seed, ids = 3, np.arange(4)
    w0 = initial_weights(seed, ids, N_IN, H, n_nets=A)
    s = Settings.make(alpha=[0.02] * 4, lam=[0.5] * 4, gamma=[1.0] * 4)

    def run(**kw):
        return K.run_tasks("sarsa_lambda", s, seed, ids, 2, env="mountain_car",
                           init=lambda t: w0[t], max_steps=200, **kw).final_weights

    base = run()
    for kw in (dict(hidden="sigmoid"), dict(inputs="unit"), dict(start="anywhere")):
        assert not np.array_equal(run(**kw), base), kw


@pytest.mark.parametrize("kw,name", [(dict(hidden="relu"), "hidden"),
                                     (dict(inputs="raw"), "inputs"),
                                     (dict(start="goal"), "start"),
                                     (dict(env="cartpole", start="anywhere"), "start")])
def test_bad_variants_are_refused(kw, name):
    s = Settings.make(alpha=0.01, lam=0.5, gamma=1.0)
    kw = {"env": "mountain_car", **kw}
    A_, n_in = (2, 4) if kw["env"] == "cartpole" else (3, 2)
    w0 = initial_weights(0, [0], n_in, H, n_nets=A_)
    with pytest.raises(ValueError, match=name):
        K.run_tasks("sarsa_lambda", s, 0, [0], 1, init=lambda t: w0[t], **kw)
