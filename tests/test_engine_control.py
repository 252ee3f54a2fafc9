"""Batched Sarsa(lambda) and forward Sarsa(lambda) against a plain per-run numpy version.

A small vectorised toy task (a noisy corridor, per-run random streams like the real envs)
keeps the test fast; the per-run version below is written straight from the paper (TD(lambda)
with one network per action; Algorithm 1 with Q(S', A')) with ftd_lib.approx.MLP.
"""

from collections import deque

import numpy as np
import pytest
import torch

from ftd_lib.approx import MLP
from ftd_lib.engine import AGENT_STREAM, Settings, initial_weights, run_control
from ftd_lib.returns import k_bound
from ftd_lib.rng import RunStreams


class Corridor:
    """B runs of a noisy 1-d corridor: actions left/right/stay, reward -1 a step, terminal at
    position >= 1, truncated after ``max_steps``. Observations (position, sin(3 position))."""

    n_actions = 3
    obs_dim = 2

    def __init__(self, seed, run_ids, max_steps=25):
        self.noise = RunStreams(seed, run_ids, stream=0)
        self.B = len(run_ids)
        self.max_steps = max_steps
        self.pos = np.zeros(self.B)
        self.t = np.zeros(self.B, dtype=int)

    def assign(self, rows, run_ids):
        self.noise.assign(rows, run_ids)
        self.t[rows] = 0

    def take(self, rows):
        self.noise.take(rows)
        self.pos, self.t = self.pos[rows], self.t[rows]
        self.B = len(rows)

    def _obs(self):
        return np.stack([self.pos, np.sin(3 * self.pos)], 1)

    def reset(self, mask=None):
        m = np.ones(self.B, bool) if mask is None else np.asarray(mask)
        u = self.noise.draw(m)
        self.pos[m] = u[m] - 0.5
        self.t[m] = 0
        return self._obs()

    def step(self, actions, active=None):
        a = np.ones(self.B, bool) if active is None else np.asarray(active)
        u = self.noise.draw(a)
        move = np.array([-0.15, 0.3, 0.0])[np.asarray(actions)]
        self.pos[a] = np.clip(self.pos[a] + move[a] + 0.2 * (u[a] - 0.5), -1.0, 1.2)
        self.t[a] += 1
        term = a & (self.pos >= 1.0)
        trunc = a & ~term & (self.t >= self.max_steps)
        return self._obs(), np.where(a, -1.0, 0.0), term, trunc


def choose(q, streams, eps):
    u1, u2 = streams.draw()[0], streams.draw()[0]
    return int(np.floor(u2 * len(q))) if u1 < eps else int(np.argmax(q))


def sarsa_reference(method, seed, run_id, w0, row, n_episodes, eps=0.05, n_hidden=16,
                    truncation="bootstrap", max_steps=25):
    """Per-run Sarsa(lambda) / forward Sarsa(lambda); returns (returns, final weights).

    ``truncation="bootstrap"``: at the episode cap (a time limit) A' is chosen at S' and the
    target bootstraps from Q(S', A'); ``"terminal"``: the cap ends the episode like a terminal
    state (Q = 0 after it)."""
    env = Corridor(seed, [run_id], max_steps=max_steps)
    streams = RunStreams(seed, [run_id], stream=AGENT_STREAM)
    net = MLP(2, n_hidden)
    w = [x.copy() for x in w0]
    alpha, lam, gamma = row["alpha"], row["lam"], row["gamma"]
    gl = gamma * lam
    K = k_bound(gamma, lam, row["eta"], row["k_max"])
    c_final = gl ** (K - 1)
    returns = []
    s = env.reset()[0]
    for _ in range(n_episodes):
        a = choose([net.value(w[b], s) for b in range(3)], streams, eps)
        ret, done = 0.0, False
        e = [np.zeros_like(x) for x in w]
        F = deque()
        U_sync, i, c, V_cur, ready, U = 0.0, 0, 1.0, 0.0, False, 0.0
        while not done:
            obs, r, term, trunc = env.step(np.array([a]))
            r, s2, done = float(r[0]), obs[0], bool(term[0] or trunc[0])
            ret += r
            if term[0] or (trunc[0] and truncation == "terminal"):
                q_next, a2 = 0.0, None
            else:
                a2 = choose([net.value(w[b], s2) for b in range(3)], streams, eps)
                q_next = float(net.value(w[a2], s2))
            if method == "sarsa_lambda":
                delta = r + gamma * q_next - net.value(w[a], s)
                g = net.grad(w[a], s)
                for b in range(3):
                    e[b] = gl * e[b]
                e[a] = e[a] + g
                for b in range(3):
                    w[b] = w[b] + alpha * delta * e[b]
            else:  # Algorithm 1 with V_next = Q(S', A')
                rho = r + gamma * (1 - lam) * q_next
                F.append((s, a, rho))
                d_p = r + gamma * q_next - V_cur
                V_cur = q_next
                if i == K - 1:
                    U = U_sync
                    U_sync, i, c, ready = V_cur, 0, 1.0, True
                else:
                    U_sync, i, c = U_sync + c * d_p, i + 1, gl * c
                if ready:
                    U = U + c_final * d_p
                    sp, ap, rp = F.popleft()
                    w[ap] = w[ap] + alpha * (U - net.value(w[ap], sp)) * net.grad(w[ap], sp)
                    if K != 1:
                        U = (U - rp) / gl
            s, a = s2, a2
        if method == "forward_sarsa_lambda":
            if not ready:
                U = U_sync
            while F:
                sp, ap, rp = F.popleft()
                w[ap] = w[ap] + alpha * (U - net.value(w[ap], sp)) * net.grad(w[ap], sp)
                if K != 1 and F:
                    U = (U - rp) / gl
        returns.append(ret)
        s = env.reset()[0]
    return np.array(returns), np.array(w)


ROWS = [  # alpha, lam, gamma, eta, k_max
    (0.02, 0.9, 1.0, 0.01, None),
    (0.05, 0.5, 0.95, 0.1, None),
    (0.01, 1.0, 1.0, 0.01, None),
    (0.03, 0.0, 1.0, 0.01, None),
    (0.02, 0.8, 0.99, 0.3, 3),
]


def _settings(rows):
    a, lam, g, eta, km = zip(*rows, strict=True)
    return Settings.make(alpha=a, lam=lam, gamma=g, eta=eta, k_max=list(km))


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device"))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("width", [None, 2])
@pytest.mark.parametrize("truncation", ["bootstrap", "terminal"])
@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
def test_control_rows_match_the_per_run_version(method, truncation, width, device):
    """Every task equals the per-run version, whether it has a row from the start (width
    None: all tasks at once) or waits in the queue for a row (width 2, 5 tasks), for both
    meanings of the episode cap."""
    seed, n_ep = 4, 6
    run_ids = np.array([0, 1, 2, 3, 1])
    res = run_control(method, _settings(ROWS), seed, run_ids, n_ep, env=Corridor, n_hidden=16,
                      device=device, truncation=truncation, width=width)
    w0 = initial_weights(seed, run_ids, 2, 16, n_nets=3)
    assert not res.diverged.any()
    assert (res.lengths == 25).any() and (res.lengths < 25).any()  # both kinds of ends
    for b, rid in enumerate(run_ids):
        ret, w = sarsa_reference(method, seed, rid, w0[b], _settings(ROWS).row(b), n_ep,
                                 truncation=truncation)
        np.testing.assert_array_equal(res.returns[b], ret, err_msg=f"row {b}")
        np.testing.assert_allclose(res.final_weights[b], w, rtol=0, atol=1e-10)
        assert res.lengths[b].sum() == res.n_steps[b] == -ret.sum()


@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
def test_bootstrapping_at_the_cap_changes_the_numbers(method):
    kw = dict(env=Corridor, n_hidden=16)
    a = run_control(method, _settings(ROWS), 4, np.arange(5), 6, truncation="bootstrap", **kw)
    b = run_control(method, _settings(ROWS), 4, np.arange(5), 6, truncation="terminal", **kw)
    assert not np.allclose(a.final_weights, b.final_weights)
    with pytest.raises(ValueError, match="truncation"):
        run_control(method, _settings(ROWS), 4, np.arange(5), 6, truncation="cap", **kw)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
@pytest.mark.parametrize("width", [None, 3])
def test_a_control_run_does_not_depend_on_its_batch(method, width, device):
    seed, n_ep = 9, 5
    big = run_control(method, _settings(ROWS * 2), seed, np.arange(10), n_ep, env=Corridor,
                      n_hidden=16, device=device, width=width)
    assert big.width == (10 if width is None else width)
    for b in (1, 7):
        alone = run_control(method, _settings([ROWS[b % 5]]), seed, [b], n_ep, env=Corridor,
                            n_hidden=16, device=device)
        np.testing.assert_array_equal(alone.returns[0], big.returns[b])
        np.testing.assert_array_equal(alone.final_weights[0], big.final_weights[b])


def test_diverging_control_run_is_frozen_and_reported():
    s = Settings.make(alpha=[50.0, 0.02], lam=0.9, gamma=1.0)
    res = run_control("sarsa_lambda", s, 0, [0, 1], 8, env=Corridor, n_hidden=16,
                      div_bound=1e3)
    assert res.diverged[0] and not res.diverged[1]
    k = res.diverged_at[0]
    assert np.all(np.isnan(res.returns[0, k:])) and np.all(np.isfinite(res.returns[1]))
